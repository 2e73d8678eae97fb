// detectIncognito 1.9.0: whether the browser is in a private window, as the page computed it.
function done(text) {
  sessionStorage.setItem("result", text);
  document.getElementById("seen").textContent = text;
  try {
    performance.mark("tracer:done");
  } catch (e) {
    // an environment without marks (jsdom)
  }
}
try {
  detectIncognito().then(function (r) { done(JSON.stringify(r)); }, function (e) { done("rejected " + e); });
} catch (e) {
  done("error " + e);
}
