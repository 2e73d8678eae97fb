// fingerprintjs2 2.1.4: its components and their hash, stored as the page computed them.
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
  Fingerprint2.get({}, function (components) {
    var values = components.map(function (c) { return c.value; });
    done(Fingerprint2.x64hash128(values.join(""), 31) + " " + components.length);
  });
} catch (e) {
  done("error " + e);
}
