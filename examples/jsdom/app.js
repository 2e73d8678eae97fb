// The script of examples/jsdom/page.html. The same file runs in Chromium (tracer record) and in
// jsdom (case/result/final.js). It sends nothing: the fetch is of a data: URL.
if (typeof performance.mark === "function") performance.mark("tracer:phase=init");
const seen = {};
seen.ua = navigator.userAgent;
seen.uaGetter = Function.prototype.toString.call(
  Object.getOwnPropertyDescriptor(Navigator.prototype, "userAgent").get);
document.cookie = "seen=1";
seen.cookie = document.cookie;
seen.documentBrand = Object.prototype.toString.call(document);
seen.name = window.name;
try {
  new Navigator();
  seen.navigatorConstructor = "constructed";
} catch (e) {
  seen.navigatorConstructor = e.constructor.name;
}
const xhr = new XMLHttpRequest();
seen.xhrDone = XMLHttpRequest.DONE;
seen.xhrChain = Object.getPrototypeOf(Object.getPrototypeOf(xhr)).constructor.name;
seen.fetch = typeof fetch;
if (typeof fetch === "function") fetch("data:text/plain,hello").catch(() => {});
seen.matchMedia = typeof matchMedia === "function" ? matchMedia("(min-width: 1px)").matches : null;
console.log(JSON.stringify(seen));
if (typeof performance.mark === "function") performance.mark("tracer:done");
