// Patches to jsdom, made round by round from tracer's findings alone (the rounds: ../../README.md).
// Each is applied to a window before its document is parsed (jsdom's `beforeParse`), so that the
// page's scripts, and tracer's probe, find the window already patched. Values the browser gave
// (the user agent, the screen, the plugins) are the ones the reference trace recorded.

// Round 1: what the browser's navigator and screen say.
const NAVIGATOR = {
  userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36",
  platform: "Linux x86_64",
};
const SCREEN = { width: 800, height: 600, availWidth: 800, availHeight: 600, colorDepth: 24 };

exports.patch = function patch(window) {
  const outerToString = Function.prototype.toString;
  const realm = window.Function.prototype;
  const natives = new WeakSet();
  // Functions the window holds under a name their own `name` does not give (jsdom's `setTimeout`
  // is anonymous): the browser's source text names them.
  const names = new WeakMap();

  // Round 1: jsdom's own functions read as native code, as the browser's do.
  function nativeSource(f) {
    const name = names.has(f) ? names.get(f) : f.name;
    return "function " + (typeof name === "string" ? name : "") + "() { [native code] }";
  }
  function markAll(object) {
    for (const key of Reflect.ownKeys(object)) {
      const d = Object.getOwnPropertyDescriptor(object, key);
      for (const f of [d.get, d.set, d.value]) if (typeof f === "function") natives.add(f);
    }
  }

  // Round 1: a getter (round 3: and a setter) of the browser's, defined as the browser defines it.
  function accessor(proto, name, get, set) {
    const pair = {
      get [name]() { return get.call(this); },
      set [name](value) { set.call(this, value); },
    };
    const d = Object.getOwnPropertyDescriptor(pair, name);
    natives.add(d.get);
    natives.add(d.set);
    Object.defineProperty(proto, name, {
      get: d.get, set: set === undefined ? undefined : d.set, enumerable: true, configurable: true,
    });
  }
  // Round 3: a method of the browser's, with its name and length.
  function method(proto, name, length, body) {
    const fn = { [name](...args) { return body.apply(this, args); } }[name];
    Object.defineProperty(fn, "length", { value: length });
    natives.add(fn);
    Object.defineProperty(proto, name, { value: fn, writable: true, enumerable: true, configurable: true });
  }
  // Round 3: an interface the browser has and jsdom lacks, or replaces: its constructor throws,
  // as the browser's does for these.
  function iface(name, base) {
    const ctor = { [name]() { throw new window.TypeError("Illegal constructor"); } }[name];
    const proto = Object.create(base, {
      constructor: { value: ctor, writable: true, configurable: true },
      [Symbol.toStringTag]: { value: name, configurable: true },
    });
    Object.defineProperty(ctor, "prototype", { value: proto });
    natives.add(ctor);
    Object.defineProperty(window, name, { value: ctor, writable: true, configurable: true });
    return proto;
  }
  // An object of interface `proto`, with own properties the way the browser lists them: `indexed`
  // enumerable (`0`, `1`, …), `named` not (`application/pdf`).
  function collection(proto, indexed, named) {
    const object = Object.create(proto);
    indexed.forEach((value, i) => Object.defineProperty(object, i, { value, enumerable: true, configurable: true }));
    for (const [key, value] of named) Object.defineProperty(object, key, { value, configurable: true });
    return object;
  }
  for (const [name, value] of Object.entries(NAVIGATOR)) {
    accessor(window.Navigator.prototype, name, () => value);
  }
  for (const [name, value] of Object.entries(SCREEN)) accessor(window.Screen.prototype, name, () => value);

  // Round 3: the browser's five PDF plugins and their two mime types (jsdom's are empty).
  const data = new WeakMap();
  const field = (name) => function () { return data.get(this)[name]; };
  const pluginProto = iface("Plugin", window.Object.prototype);
  const mimeProto = iface("MimeType", window.Object.prototype);
  const pluginsProto = iface("PluginArray", window.Object.prototype);
  const mimesProto = iface("MimeTypeArray", window.Object.prototype);
  for (const name of ["name", "filename", "description", "length"]) accessor(pluginProto, name, field(name));
  for (const name of ["type", "suffixes", "description", "enabledPlugin"]) accessor(mimeProto, name, field(name));
  for (const proto of [pluginsProto, mimesProto, pluginProto]) {
    method(proto, "item", 1, function (i) { return this[i] === undefined ? null : this[i]; });
    method(proto, "namedItem", 1, function (n) { return Object.prototype.hasOwnProperty.call(this, n) && !/^\d+$/.test(n) ? this[n] : null; });
  }
  accessor(pluginsProto, "length", function () { return data.get(this).length; });
  accessor(mimesProto, "length", function () { return data.get(this).length; });
  method(pluginsProto, "refresh", 0, function () {});
  const PDF_PLUGINS = ["PDF Viewer", "Chrome PDF Viewer", "Chromium PDF Viewer", "Microsoft Edge PDF Viewer", "WebKit built-in PDF"];
  const MIME_TYPES = ["application/pdf", "text/pdf"];
  const mimeOf = (type, plugin) => {
    const m = Object.create(mimeProto);
    data.set(m, { type, suffixes: "pdf", description: "Portable Document Format", enabledPlugin: plugin });
    return m;
  };
  const plugins = PDF_PLUGINS.map((name) => {
    const mimes = MIME_TYPES.map((type) => mimeOf(type, null));
    const p = collection(pluginProto, mimes, mimes.map((m, i) => [MIME_TYPES[i], m]));
    data.set(p, { name, filename: "internal-pdf-viewer", description: "Portable Document Format", length: 2 });
    return p;
  });
  const pluginArray = collection(pluginsProto, plugins, plugins.map((p, i) => [PDF_PLUGINS[i], p]));
  data.set(pluginArray, { length: plugins.length });
  const mimes = MIME_TYPES.map((type) => mimeOf(type, plugins[0]));
  const mimeArray = collection(mimesProto, mimes, mimes.map((m, i) => [MIME_TYPES[i], m]));
  data.set(mimeArray, { length: mimes.length });
  accessor(window.Navigator.prototype, "plugins", () => pluginArray);
  accessor(window.Navigator.prototype, "mimeTypes", () => mimeArray);

  // Round 3: a 2D context. jsdom draws nothing; ClientJS's canvas print is the image Chromium
  // drew for the same calls (chromium-canvas.txt: its data URL, whose sha256 is the trace's).
  const ctxProto = iface("CanvasRenderingContext2D", window.Object.prototype);
  for (const [name, initial] of [["textBaseline", "alphabetic"], ["font", "10px sans-serif"], ["fillStyle", "#000000"]]) {
    accessor(ctxProto, name, function () { const v = data.get(this)[name]; return v === undefined ? initial : v; },
      function (value) { data.get(this)[name] = String(value); });
  }
  method(ctxProto, "fillRect", 4, function () {});
  method(ctxProto, "fillText", 3, function (text) { data.get(this).texts.push(String(text)); });
  const contexts = new WeakMap();
  method(window.HTMLCanvasElement.prototype, "getContext", 1, function (type) {
    if (type !== "2d") return null;
    if (!contexts.has(this)) {
      const ctx = Object.create(ctxProto);
      data.set(ctx, { texts: [] });
      contexts.set(this, ctx);
    }
    return contexts.get(this);
  });
  const CANVAS = require("node:fs").readFileSync(require("node:path").join(__dirname, "chromium-canvas.txt"), "utf8");
  method(window.HTMLCanvasElement.prototype, "toDataURL", 0, function () {
    const ctx = contexts.get(this);
    return ctx && data.get(ctx).texts.includes("ClientJS,org <canvas> 1.0") ? CANVAS : "data:,";
  });

  // Round 3: layout. jsdom lays nothing out (every offsetWidth is 0); ClientJS's font detection
  // measures a 72px span of "mmmmmmmmmmlli" per font family: the sizes Chromium gave, by the first
  // family the span names that Chromium has (a font it lacks falls back to the next one).
  const SIZES = {
    monospace: [564, 84], "sans-serif": [648, 80], serif: [620, 80],
    Arial: [648, 80], "Bauhaus 93": [648, 80], "Courier New": [562, 82], "Times New Roman": [620, 80],
  };
  const sizeOf = (element) => {
    for (const family of String(element.style.fontFamily).split(",")) {
      const size = SIZES[family.trim().replace(/^["']|["']$/g, "")];
      if (size !== undefined) return size;
    }
    return [0, 0];
  };
  accessor(window.HTMLElement.prototype, "offsetWidth", function () { return sizeOf(this)[0]; });
  accessor(window.HTMLElement.prototype, "offsetHeight", function () { return sizeOf(this)[1]; });

  // Round 4: `performance` is replaceable in the browser (a setter that makes an own property).
  const performance = window.performance;
  accessor(window, "performance", () => performance, function (value) {
    Object.defineProperty(this, "performance", { value, writable: true, enumerable: true, configurable: true });
  });
  // Round 4: the same collection for the same tag name, as the browser keeps it (jsdom makes a
  // new one when the last is collected).
  const byTag = new WeakMap();
  const getElementsByTagName = window.Document.prototype.getElementsByTagName;
  method(window.Document.prototype, "getElementsByTagName", 1, function (name) {
    if (!byTag.has(this)) byTag.set(this, new Map());
    const cache = byTag.get(this);
    if (!cache.has(String(name))) cache.set(String(name), getElementsByTagName.call(this, name));
    return cache.get(String(name));
  });

  // Round 1: every interface's members, and the window's own, read as native.
  for (const key of Reflect.ownKeys(window)) {
    const d = Object.getOwnPropertyDescriptor(window, key);
    for (const f of [d.get, d.set, d.value]) if (typeof f === "function") natives.add(f);
    if (typeof d.value === "function" && d.value.name === "" && typeof key === "string") names.set(d.value, key);
    if (typeof d.value === "function" && d.value.prototype && typeof key === "string" && /^[A-Z]/.test(key)) {
      markAll(d.value.prototype);
      markAll(d.value);
    }
  }
  const patchedToString = {
    toString() {
      if (natives.has(this)) return nativeSource(this);
      return outerToString.call(this);
    },
  }.toString;
  natives.add(patchedToString);
  Object.defineProperty(realm, "toString", { value: patchedToString, writable: true, configurable: true });
  // jsdom's functions are made in Node's realm: `getter.toString()` reaches Node's toString.
  Object.defineProperty(Function.prototype, "toString", { value: patchedToString, writable: true, configurable: true });

  // Round 2: the prototype chains the browser has. jsdom makes most interfaces' prototypes in
  // Node's realm, so their chains end at Node's Object.prototype, not the window's (`navigator
  // instanceof Object` is false); Screen is an EventTarget; the document is an HTMLDocument.
  for (const key of Object.getOwnPropertyNames(window)) {
    const d = Object.getOwnPropertyDescriptor(window, key);
    const proto = typeof d.value === "function" && /^[A-Z]/.test(key) ? d.value.prototype : null;
    if (proto === null || typeof proto !== "object") continue;
    const up = Object.getPrototypeOf(proto);
    if (up !== null && up !== window.Object.prototype && up === Object.prototype) {
      Object.setPrototypeOf(proto, window.Object.prototype);
    }
  }
  Object.setPrototypeOf(window.Screen.prototype, window.EventTarget.prototype);
  // Round 2: jsdom's HTMLDocument is Document itself; the browser's is an interface of its own.
  const HTMLDocument = { HTMLDocument() { throw new window.TypeError("Illegal constructor"); } }.HTMLDocument;
  Object.defineProperty(HTMLDocument, "prototype", {
    value: Object.create(window.Document.prototype, {
      constructor: { value: HTMLDocument, writable: true, configurable: true },
      [Symbol.toStringTag]: { value: "HTMLDocument", configurable: true },
    }),
  });
  Object.setPrototypeOf(HTMLDocument, window.Document);
  natives.add(HTMLDocument);
  Object.defineProperty(window, "HTMLDocument", { value: HTMLDocument, writable: true, configurable: true });
  Object.setPrototypeOf(window.document, HTMLDocument.prototype);

  // Round 1: jsdom keeps its implementation under own symbols of every wrapper; the script sees
  // the browser's own keys.
  const internal = (key) => typeof key === "symbol" &&
    /^Symbol\((impl|wrapper|SameObject caches|\[webidl2js\] constructor registry)\)$/.test(String(key));
  const ownKeys = window.Reflect.ownKeys;
  const ownSymbols = window.Object.getOwnPropertySymbols;
  const hiddenOwnKeys = { ownKeys(target) { return ownKeys(target).filter((k) => !internal(k)); } }.ownKeys;
  const hiddenOwnSymbols = {
    getOwnPropertySymbols(target) { return ownSymbols(target).filter((k) => !internal(k)); },
  }.getOwnPropertySymbols;
  natives.add(hiddenOwnKeys);
  natives.add(hiddenOwnSymbols);
  Object.defineProperty(window.Reflect, "ownKeys", { value: hiddenOwnKeys, writable: true, configurable: true });
  Object.defineProperty(window.Object, "getOwnPropertySymbols", {
    value: hiddenOwnSymbols, writable: true, configurable: true,
  });
};
