// fingerprintjs2 2.1.4: its components and their hash, as the page computed them (`done` is
// done.js's).
try {
  Fingerprint2.get({}, function (components) {
    var values = components.map(function (c) { return c.value; });
    done(Fingerprint2.x64hash128(values.join(""), 31) + " " + components.length);
  });
} catch (e) {
  done("error " + e);
}
