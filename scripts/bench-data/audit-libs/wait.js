// The entries' end: once the page wrote what it computed (its <pre id="seen">), or after 10 s,
// says which and closes the window with `close`.
module.exports = function untilComputed(window, close) {
  const started = Date.now();
  const poll = setInterval(() => {
    const seen = window.document.getElementById("seen").textContent;
    if (seen.length > 0 || Date.now() - started > 10000) {
      clearInterval(poll);
      console.log(seen.length > 0 ? "computed" : "nothing computed");
      close();
    }
  }, 5);
};
