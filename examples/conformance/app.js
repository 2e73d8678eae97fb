// examples/conformance: the script under test (the page's script; the trace's stack names it
// `app.js`). Each environment's final.js installs its shim, then runs this file unchanged.
performance.mark('tracer:phase=init');
navigator.userAgent;
navigator.userAgent;
document.cookie;
performance.mark('tracer:phase=challenge-init');
const xhr = new XMLHttpRequest();
xhr.onreadystatechange = function () {
  if (this.readyState !== 4) return;
  performance.mark('tracer:phase=writer');
  screen.width;
};
xhr.open('GET', 'https://a.test/x');
xhr.send(null);
