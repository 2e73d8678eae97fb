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

  // Round 1: a getter or method of the browser's, defined as the browser defines it.
  function accessor(proto, name, get) {
    const getter = { get [name]() { return get.call(this); } };
    const fn = Object.getOwnPropertyDescriptor(getter, name).get;
    Object.defineProperty(fn, "name", { value: "get " + name });
    natives.add(fn);
    Object.defineProperty(proto, name, { get: fn, set: undefined, enumerable: true, configurable: true });
  }
  for (const [name, value] of Object.entries(NAVIGATOR)) {
    accessor(window.Navigator.prototype, name, () => value);
  }
  for (const [name, value] of Object.entries(SCREEN)) accessor(window.Screen.prototype, name, () => value);

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
