// bench.sh part 9. The environment under audit: the page's three scripts (done.js, the library,
// then app.js) run inline in a happy-dom Window at the page's recorded URL (happy-dom would fetch a
// script's src: a request); ends once the page says what it computed (wait.js).
const fs = require("node:fs");
const path = require("node:path");
const { Window } = require("happy-dom");
const here = path.join(__dirname, "..", "..");
// The URL Chromium recorded the page at (bench.sh writes it).
const PAGE_URL = fs.readFileSync(path.join(here, "page-url.txt"), "utf8").trim();
const window = new Window({ url: PAGE_URL,
  settings: { enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true } });
window.document.body.innerHTML = '<pre id="seen"></pre>';
for (const file of ["done.js", "lib.js", "app.js"]) {
  const script = window.document.createElement("script");
  // A UMD header puts the library on `this`, which happy-dom's wrapper does not make the window.
  const text = fs.readFileSync(path.join(here, file), "utf8");
  script.textContent = file === "lib.js" ? "(function () {" + text + "\n}).call(window);\n" : text + "\n";
  window.document.body.appendChild(script);
}
require("./wait.js")(window, () => window.happyDOM.close());
