// bench.sh part 9. The environment under audit: the page's three scripts (done.js, the library,
// then app.js) run inline in a jsdom window at the page's recorded URL, read from this folder (never
// fetched); ends once the page says what it computed (wait.js).
const fs = require("node:fs");
const path = require("node:path");
const { JSDOM } = require("jsdom");
const here = path.join(__dirname, "..", "..");
// The URL Chromium recorded the page at (bench.sh writes it).
const PAGE_URL = fs.readFileSync(path.join(here, "page-url.txt"), "utf8").trim();
const dom = new JSDOM('<!doctype html><html><head><meta charset="utf-8"><title>library</title></head><body><pre id="seen"></pre></body></html>',
  { url: PAGE_URL, runScripts: "dangerously", pretendToBeVisual: true });
const window = dom.window;
for (const file of ["done.js", "lib.js", "app.js"]) {
  const script = window.document.createElement("script");
  script.textContent = fs.readFileSync(path.join(here, file), "utf8") + "\n";
  window.document.body.appendChild(script);
}
require("./wait.js")(window, () => window.close());
