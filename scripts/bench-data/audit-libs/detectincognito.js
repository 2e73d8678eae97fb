// detectIncognito 1.9.0: whether the browser is in a private window, as the page computed it
// (`done` is done.js's).
try {
  detectIncognito().then(function (r) { done(JSON.stringify(r)); }, function (e) { done("rejected " + e); });
} catch (e) {
  done("error " + e);
}
