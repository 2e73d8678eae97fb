// ---- the walk: everything the realm's global reaches ----------------------------------------
//
// With `config.walk` (`tracer record`'s default), after the list, every own property of the
// realm's global is watched: an interface (a constructor with its own prototype: the members of
// the prototype, its statics, the constructor), a namespace (any other object held as a data
// property: `Math`, `CSS`, `Intl`, `WebAssembly`, its functions, accessors and interfaces), a
// function-valued global (`fetch`, `setTimeout`) and the global's own accessors
// (`innerWidth`, `navigator`). ECMAScript's own globals are the language, not the host, and are
// not walked, but for `Math`, `Intl` and `Date`, which read the host's clock, locale, time zone
// and randomness; `console` is not walked unless the list names it. `config.exclude` trims
// (`--api-exclude`): an interface or namespace (all of it), a member, or a global. Nothing is
// read through a getter: the walk looks at descriptors only.
const WALK = config.walk === true;
let walkingNamespaces = false;
// While the walk runs: an environment under audit (`config.knownMembers`) has only the member
// names of the reference trace wrapped by it (see `knownMember`).
let walking = false;
const LANGUAGE = O.create(null);
const LANGUAGE_NAMES = ["Object", "Function", "Array", "Number", "parseFloat", "parseInt",
  "Infinity", "NaN", "undefined", "Boolean", "String", "Symbol", "Promise", "RegExp", "Error",
  "AggregateError", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError",
  "URIError", "SuppressedError", "globalThis", "JSON", "ArrayBuffer", "SharedArrayBuffer",
  "Atomics", "Uint8Array", "Int8Array", "Uint16Array", "Int16Array", "Uint32Array", "Int32Array",
  "Float16Array", "Float32Array", "Float64Array", "Uint8ClampedArray", "BigUint64Array",
  "BigInt64Array", "DataView", "Map", "BigInt", "Set", "WeakMap", "WeakSet", "Proxy", "Reflect",
  "FinalizationRegistry", "WeakRef", "decodeURI", "decodeURIComponent", "encodeURI",
  "encodeURIComponent", "escape", "unescape", "eval", "isFinite", "isNaN", "Iterator",
  "DisposableStack", "AsyncDisposableStack", "console"];
for (let i = 0; i < LANGUAGE_NAMES.length; i++) LANGUAGE["$" + LANGUAGE_NAMES[i]] = true;
// The language's own functions, wherever an interface also holds them (a NodeList's `forEach`
// and `values` are Array.prototype's): never wrapped by the walk, so that they stay one function.
// The global object as this realm's own names for it give it (`window`, `self`, `frames`,
// `globalThis`; `top` and `parent` of a top-level window are the same object), read before any
// wrapper is in place.
const globalAliases = [g];
const globalNames = ["window", "self", "frames", "globalThis"];
for (let i = 0; i < globalNames.length; i++) {
  try {
    const value = g[globalNames[i]];
    if (value !== null && typeof value === "object") globalAliases[globalAliases.length] = value;
    // A `vm` context made from a sandbox (happy-dom's window) reads its global as the context's
    // global, but describes it as the sandbox object itself: both are the global.
    const d = gopd(g, globalNames[i]);
    if (d !== undefined && d.value !== null && typeof d.value === "object") globalAliases[globalAliases.length] = d.value;
  } catch (_) {
    // a getter that refuses here: no alias by that name.
  }
}
function isGlobalAlias(value) {
  for (let i = 0; i < globalAliases.length; i++) if (globalAliases[i] === value) return true;
  return false;
}
// Whether `value` is the global object of a realm, this one or another (jsdom's `_top` and
// `_parent` of a frame's window are its parent's window): a global holds itself as its own
// `globalThis` data property. Decided from the descriptor alone, so that nothing runs.
function isSomeGlobal(value) {
  if (isGlobalAlias(value)) return true;
  try {
    const d = gopd(value, "globalThis");
    return d !== undefined && own(d, "value") && d.value !== null && typeof d.value === "object" &&
      (d.value === value || gopd(d.value, "globalThis") !== undefined);
  } catch (_) {
    return false;
  }
}

const languageFns = new WeakMapC();
function noteLanguage(object) {
  if (!isObject(object)) return;
  const keys = ownKeysOf(object);
  for (let i = 0; i < keys.length; i++) {
    const d = gopd(object, keys[i]);
    if (d === undefined) continue;
    if (typeof d.value === "function") apply(wmSet, languageFns, [d.value, true]);
    if (typeof d.get === "function") apply(wmSet, languageFns, [d.get, true]);
    if (typeof d.set === "function") apply(wmSet, languageFns, [d.set, true]);
  }
}
if (WALK) {
  for (let i = 0; i < LANGUAGE_NAMES.length; i++) {
    let d;
    try {
      d = gopd(g, LANGUAGE_NAMES[i]);
    } catch (_) {
      d = undefined;
    }
    // `globalThis` is the global itself, whose members are the host's (in a `vm` context made
    // from a sandbox, happy-dom's window, it is the sandbox: the global as the realm names it).
    if (d === undefined || !isObject(d.value) || isGlobalAlias(d.value)) continue;
    noteLanguage(d.value);
    const pd = typeof d.value === "function" ? gopd(d.value, "prototype") : undefined;
    if (pd !== undefined && isObject(pd.value)) noteLanguage(pd.value);
  }
  // %TypedArray%, %IteratorPrototype% and the array iterator's prototype.
  if (typeof Uint8Array === "function") {
    noteLanguage(getProto(Uint8Array));
    noteLanguage(getProto(Uint8Array).prototype);
  }
  try {
    const arrayIterator = getProto([][Symbol.iterator]());
    noteLanguage(arrayIterator);
    noteLanguage(getProto(arrayIterator));
  } catch (_) {
    // no iterators
  }
}

const EXCLUDE = O.create(null);
const excludeList = config.exclude || [];
let anyExcluded = false;
for (let i = 0; i < excludeList.length; i++) {
  const name = excludeList[i];
  EXCLUDE["$" + name] = true;
  anyExcluded = true;
  // `window.fetch` and `fetch` name the same global.
  const parts = apply(strSplit, name, ["."]);
  if (parts[0] === "window" || parts[0] === "self" || parts[0] === "globalThis") {
    EXCLUDE["$" + apply(strSlice, name, [parts[0].length + 1])] = true;
  }
}
// A member named through a singleton or a receiver (`document.cookie`, `navigator.userAgent`) is
// excluded where it is held (`Document.prototype.cookie`).
for (let i = 0; i < excludeList.length; i++) {
  let found = null;
  try {
    found = resolve(excludeList[i]);
  } catch (_) {
    found = null;
  }
  if (found === null || found.holder === g) continue;
  const cd = gopd(found.holder, "constructor");
  const C = cd !== undefined ? cd.value : undefined;
  const nd = typeof C === "function" ? gopd(C, "name") : undefined;
  if (nd !== undefined && typeof nd.value === "string" && nd.value !== "") {
    const pd = gopd(C, "prototype");
    if (pd !== undefined && pd.value === found.holder) EXCLUDE["$" + nd.value + ".prototype." + found.name] = true;
  }
  const holderName = typeof found.holder === "function" ? gopd(found.holder, "name") : undefined;
  if (holderName !== undefined && typeof holderName.value === "string") {
    EXCLUDE["$" + holderName.value + "." + found.name] = true;
  }
}
function excluded(iface, api) {
  return anyExcluded && (EXCLUDE["$" + iface] === true || EXCLUDE["$" + api] === true);
}
// The list's names the user asked for (`--api`, `--api-exclude`): those that name nothing in this
// realm are reported (`missing` in the ready record; the recorder refuses a name no realm has).
const ASKED = config.asked || [];
const missing = [];

function walkGlobal() {
  const keys = ownKeysOf(g);
  const seen = O.create(null);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (typeof key !== "string") continue;
    seen["$" + key] = true;
    walkGlobalKey(key);
  }
  // A global may hold members its key list does not give (happy-dom's window is a `vm` sandbox
  // whose accessors and methods the context's global does not list): in an environment under
  // audit, the reference's member names are looked up by name too.
  if (KNOWN_MEMBERS === null) return;
  for (let i = 0; i < config.knownMembers.length; i++) {
    const name = config.knownMembers[i];
    if (typeof name === "string" && seen["$" + name] !== true) walkGlobalKey(name);
  }
}

// The walk of one own property `key` of the global.
function walkGlobalKey(key) {
  if (LANGUAGE["$" + key] === true || key === config.binding) return;
  let d;
  try {
    d = gopd(g, key);
  } catch (_) {
    return;
  }
  if (d === undefined || !d.configurable) return;
  try {
    if (!own(d, "value")) {
      wrapMember(g, key, key, key, false, false);
    } else if (typeof d.value === "function") {
      if (apply(wmHas, originals, [d.value])) return;
      // A second global name for a function already wrapped (`webkitURL` is `URL`): the same
      // wrapper, so that the page still finds them one function.
      if (aliasGlobal(key, d)) return;
      if (isConstructorLike(d.value)) {
        // Named by its own name where the global holds it under that name too.
        const nd = gopd(d.value, "name");
        const canonical = nd && typeof nd.value === "string" ? nd.value : key;
        if (canonical !== key && LANGUAGE["$" + canonical] !== true) {
          const cd = gopd(g, canonical);
          if (cd !== undefined && cd.value === d.value) install(canonical);
          if (aliasGlobal(key, d)) return;
        }
        install(key);
      } else {
        namePath(d.value, key);
        wrapMember(g, key, key, key, false, false);
      }
    } else if (d.value !== null && typeof d.value === "object") {
      // No path goes through a global (jsdom's `_globalObject`, a shim's `window`: its members
      // are the global's, named as such; a frame's `_top`: another realm's, watched there).
      if (isSomeGlobal(d.value)) return;
      // In an environment under audit, an object the browser holds behind a getter and the
      // environment in a data property (happy-dom's `performance`, `document`) is read through
      // an accessor pair that emulates it, as for a data property the page defines (the page
      // sees its own data descriptor): its reads are recorded, not left unseen.
      if (KNOWN_MEMBERS !== null && knownMember(key)) wrapMember(g, key, key, key, false, true);
      walkingNamespaces = true;
      try {
        install(key);
      } finally {
        walkingNamespaces = false;
      }
    }
  } catch (_) {
    failed++;
  }
}

// Puts the wrapper of function `d.value` (the global's property `key`) made for another of its
// names in place; false when it has none.
function aliasGlobal(key, d) {
  const wrapper = apply(wmGet, wrapperOf, [d.value]);
  if (wrapper === undefined) return false;
  defineProperty(g, key, dataRecord(wrapper, d.writable, d.enumerable, true));
  return true;
}

// Web IDL gives an iterable interface's `@@iterator` the very function of its `values` or
// `entries`: where a member so shared is wrapped, the symbol-keyed slot gets the same wrapper,
// so that the page still finds them one function.
function aliasSymbols(holder) {
  const keys = ownKeysOf(holder);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (typeof key !== "symbol") continue;
    const d = realOf(holder, key);
    if (d === undefined || isAccessor(d) || typeof d.value !== "function" || !d.configurable) continue;
    const wrapper = apply(wmGet, wrapperOf, [d.value]);
    if (wrapper !== undefined) defineProperty(holder, key, dataRecord(wrapper, d.writable, d.enumerable, true));
  }
}

