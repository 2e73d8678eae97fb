// The environment under audit: page.html and its scripts, unchanged, run under jsdom (npm, not
// vendored) with the patches in patches.js applied to each window before its document is parsed.
// The page's URL is the one Chromium recorded it at; its scripts are read from this folder, never
// fetched. What the page computed is printed as one JSON line.
const fs = require("node:fs");
const path = require("node:path");
const { JSDOM, VirtualConsole, requestInterceptor } = require("jsdom");
const { patch } = require("./patches.js");

const here = path.join(__dirname, "..", "..");
const origin = "http://127.0.0.1:8765/";

// The page's scripts from this folder; any other request is refused here, before the network.
const localFiles = requestInterceptor((request) => {
  if (!request.url.startsWith(origin)) return Response.error();
  const file = path.join(here, new URL(request.url).pathname);
  return new Response(fs.readFileSync(file), { headers: { "Content-Type": "text/javascript" } });
});

const virtualConsole = new VirtualConsole();
virtualConsole.forwardTo(console);
const dom = new JSDOM(fs.readFileSync(path.join(here, "page.html"), "utf8"), {
  url: origin + "page.html",
  runScripts: "dangerously",
  resources: { interceptors: [localFiles] },
  pretendToBeVisual: true,
  virtualConsole,
  beforeParse: patch,
});
dom.window.addEventListener("load", () => {
  console.log(dom.window.document.getElementById("seen").textContent);
  dom.window.close();
});
