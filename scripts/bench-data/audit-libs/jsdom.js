// bench.sh part 9. The environment under audit: the page's two scripts (the library, then
// app.js) run inline in a jsdom window at the page's recorded URL, read from this folder (never
// fetched); ends once the page says what it computed (its <pre id="seen">), or after 10 s.
const fs = require("node:fs");
const path = require("node:path");
const { JSDOM } = require("jsdom");
const here = path.join(__dirname, "..", "..");
// The URL Chromium recorded the page at (bench.sh writes it).
const PAGE_URL = fs.readFileSync(path.join(here, "page-url.txt"), "utf8").trim();
const dom = new JSDOM('<!doctype html><html><head><meta charset="utf-8"><title>library</title></head><body><pre id="seen"></pre></body></html>',
  { url: PAGE_URL, runScripts: "dangerously", pretendToBeVisual: true });
const window = dom.window;
for (const file of ["lib.js", "app.js"]) {
  const script = window.document.createElement("script");
  script.textContent = fs.readFileSync(path.join(here, file), "utf8") + "\n";
  window.document.body.appendChild(script);
}
const started = Date.now();
const poll = setInterval(() => {
  const seen = window.document.getElementById("seen").textContent;
  if (seen.length > 0 || Date.now() - started > 10000) {
    clearInterval(poll);
    console.log(seen.length > 0 ? "computed" : "nothing computed");
    window.close();
  }
}, 5);
