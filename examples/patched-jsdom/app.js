// The script under test (with ClientJS, loaded before it): the same file in Chromium and in jsdom.
// Every component goes into sessionStorage (so the reference trace holds what Chromium computed,
// as the arguments of setItem) and into <pre id="seen"> (which case/result/final.js prints).
const client = new ClientJS();
const components = {
  fingerprint: () => client.getFingerprint(),
  customFingerprint: () => client.getCustomFingerprint("a", "b"),
  browser: () => client.getBrowser(), browserVersion: () => client.getBrowserVersion(),
  engine: () => client.getEngine(), os: () => client.getOS(), osVersion: () => client.getOSVersion(),
  device: () => client.getDevice(), cpu: () => client.getCPU(), isMobile: () => client.isMobile(),
  screenPrint: () => client.getScreenPrint(), colorDepth: () => client.getColorDepth(),
  resolution: () => client.getCurrentResolution(), available: () => client.getAvailableResolution(),
  xdpi: () => client.getDeviceXDPI(), ydpi: () => client.getDeviceYDPI(), plugins: () => client.getPlugins(),
  mimeTypes: () => client.getMimeTypes(), fonts: () => client.getFonts(),
  localStorage: () => client.isLocalStorage(), sessionStorage: () => client.isSessionStorage(),
  cookie: () => client.isCookie(), timeZone: () => client.getTimeZone(), language: () => client.getLanguage(),
  systemLanguage: () => client.getSystemLanguage(), canvas: () => client.getCanvasPrint(),
};
const seen = {};
for (const key of Object.keys(components)) {
  let text;
  try {
    text = JSON.stringify(components[key]());
    if (text === undefined) text = "undefined";
  } catch (e) {
    text = "threw " + e.name;
  }
  // A long value as a digest, so that the trace keeps it whole (strings over 500 characters are hashed).
  if (text.length > 400) {
    let h = 5381;
    for (let i = 0; i < text.length; i++) h = (h * 33 + text.charCodeAt(i)) % 4294967296;
    text = "djb2:" + h + ":" + text.length;
  }
  seen[key] = text;
}
for (const key of Object.keys(seen)) sessionStorage.setItem("seen:" + key, seen[key]);
document.getElementById("seen").textContent = JSON.stringify(seen);
if (typeof performance.mark === "function") performance.mark("tracer:done");
