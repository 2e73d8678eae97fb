// The environment under audit: the page's own script, run under jsdom (installed by npm in
// examples/jsdom/node_modules, not vendored). jsdom's window is a `vm` context of its own, which
// is where `tracer audit` puts its probe, just before the page's first script.
const fs = require("node:fs");
const path = require("node:path");
const { JSDOM } = require("jsdom");

const here = path.join(__dirname, "..", "..");
const html = fs.readFileSync(path.join(here, "page.html"), "utf8")
  .replace('<script src="app.js"></script>',
    () => "<script>" + fs.readFileSync(path.join(here, "app.js"), "utf8") + "</script>");
const dom = new JSDOM(html, {
  url: "https://example.test/page.html",
  runScripts: "dangerously",
  pretendToBeVisual: true,
});
// Forward the page's console to ours.
void dom;
