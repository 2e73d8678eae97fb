// probe.js: the browser side of `tracer record`. Rust wraps it as
//   (function (config) { <reflect.js> <probe.js> })(CONFIG)
// and installs it before any page script (Page.addScriptToEvaluateOnNewDocument; Runtime.evaluate
// in a worker paused on start). It owns the wrappers and the reporting; every structural fact
// comes from reflect.js, measured on the originals saved before wrapping.
//
// Reporting: one JSON string per record through the CDP binding `config.binding`, captured in this
// closure and deleted from the global before page code runs. Records leave in the order their
// local sequence numbers were taken (a call takes its number when it starts, so events it fires
// synchronously come after it); the recorder assigns the global `seq`, `t`, `nav` and `realmId`.
// Fields: see `tracer-trace/v1` (docs: README "tracer record"). Absent = not sampled.
const g = globalThis;
const send = g[config.binding];
try {
  delete g[config.binding];
} catch (_) {
  // not deletable: leave it, it still works for us.
}
if (typeof send !== "function") {
  return;
}
const O = Object;
const R = Reflect;
const apply = R.apply;
const construct = R.construct;
const gopd = O.getOwnPropertyDescriptor;
const defineProperty = O.defineProperty;
const getProto = O.getPrototypeOf;
const ownKeysOf = R.ownKeys;
const stringify = JSON.stringify;
const ProxyC = Proxy;
const WeakMapC = WeakMap;
const wmGet = WeakMap.prototype.get;
const wmSet = WeakMap.prototype.set;
const wmHas = WeakMap.prototype.has;
const strSlice = String.prototype.slice;
const strIndexOf = String.prototype.indexOf;
const strSplit = String.prototype.split;
const StringOf = String;
const promiseThen = Promise.prototype.then;
const addListener = typeof EventTarget === "function" ? EventTarget.prototype.addEventListener : null;
const dateNow = Date.now;
const perf = g.performance;
const perfNow = perf && typeof perf.now === "function" ? perf.now : null;
const timeOrigin = perf && typeof perf.timeOrigin === "number" ? perf.timeOrigin : 0;
const fnToString = Function.prototype.toString;
const hasOwnProperty = O.prototype.hasOwnProperty;
const arrayJoin = Array.prototype.join;

// Wrapper -> the source text of the function it stands for (what toString shows).
const sources = new WeakMapC();
const M = tracerReflect(g, {
  sourceOf: function (f) {
    return apply(wmGet, sources, [f]);
  },
  ownUrls: [config.ownUrl],
  idPrefix: "o",
});

function epoch() {
  return perfNow ? timeOrigin + apply(perfNow, perf, []) : dateNow();
}

function startsWith(text, prefix) {
  return typeof text === "string" && apply(strIndexOf, text, [prefix]) === 0;
}

let realm = "main";
if (typeof g.WorkerGlobalScope === "function" && g instanceof g.WorkerGlobalScope) {
  if (typeof g.DedicatedWorkerGlobalScope === "function" && g instanceof g.DedicatedWorkerGlobalScope) {
    realm = "worker";
  } else if (typeof g.SharedWorkerGlobalScope === "function" && g instanceof g.SharedWorkerGlobalScope) {
    realm = "sharedworker";
  } else {
    realm = "serviceworker";
  }
} else {
  try {
    realm = g.top === g ? "main" : "iframe";
  } catch (_) {
    realm = "iframe";
  }
}

let phase = "init";
let busy = 0;
let nextLocal = 1;
let flushNext = 1;
const ready = O.create(null);

function post(message) {
  try {
    apply(send, g, [stringify(message)]);
  } catch (_) {
    // the binding is gone (the page is closing): nothing more can be reported.
  }
}

// Sends finished records in local order; a record waits for every earlier one to finish.
function finish(record) {
  ready[record.ls] = record;
  while (ready[flushNext] !== undefined) {
    const next = ready[flushNext];
    delete ready[flushNext];
    flushNext++;
    post(next);
  }
}

function begin(prop, accessType) {
  const record = {
    k: "access",
    ls: nextLocal++,
    e: epoch(),
    realm: realm,
    phase: phase,
    api: prop.api,
    accessType: accessType,
  };
  busy++;
  try {
    record.stack = M.stack(config.stackLimit);
  } finally {
    busy--;
  }
  return record;
}

// ---- the API table -------------------------------------------------------------------------

const FINGERPRINT = [
  "Navigator", "WorkerNavigator", "NavigatorUAData", "Screen", "ScreenOrientation",
  "HTMLCanvasElement", "CanvasRenderingContext2D", "OffscreenCanvas",
  "OffscreenCanvasRenderingContext2D", "WebGLRenderingContext", "WebGL2RenderingContext",
  "Plugin", "PluginArray", "MimeType", "MimeTypeArray", "AudioContext", "OfflineAudioContext",
  "BaseAudioContext", "AnalyserNode", "MediaDevices", "Permissions", "BatteryManager",
];
const FINGERPRINT_MEMBERS = [
  "Intl.DateTimeFormat.prototype.resolvedOptions", "Date.prototype.getTimezoneOffset",
  "window.devicePixelRatio", "window.innerWidth", "window.innerHeight", "window.outerWidth",
  "window.outerHeight", "window.screenX", "window.screenY", "window.matchMedia", "window.screen",
  "window.navigator",
];
const REQUEST = ["XMLHttpRequest", "XMLHttpRequestEventTarget", "Request", "Response", "Headers",
  "WebSocket", "EventSource"];

function includes(list, item) {
  for (let i = 0; i < list.length; i++) if (list[i] === item) return true;
  return false;
}

function tagsFor(iface, api) {
  const tags = [];
  if (includes(REQUEST, iface) || api === "fetch" || api === "Navigator.prototype.sendBeacon" ||
      api === "navigator.sendBeacon") {
    tags[tags.length] = "request";
  }
  if (api === "Document.prototype.cookie" || api === "document.cookie") tags[tags.length] = "cookie";
  if (includes(FINGERPRINT, iface) || includes(FINGERPRINT_MEMBERS, api) ||
      includes(FINGERPRINT_MEMBERS, "window." + api) ||
      includes(FINGERPRINT_MEMBERS, iface + ".prototype." + lastPart(api))) {
    tags[tags.length] = "fingerprint";
  }
  return tags;
}

function lastPart(path) {
  const parts = apply(strSplit, path, ["."]);
  return parts[parts.length - 1];
}

// Objects reached through a global name: their members are named `navigator.userAgent`.
const singletonNames = ["navigator", "screen", "document", "performance", "localStorage",
  "sessionStorage", "history", "location", "crypto", "visualViewport", "indexedDB"];
const singletons = new WeakMapC();
const isWindow = realm === "main" || realm === "iframe";
for (let i = 0; i < singletonNames.length; i++) {
  const name = singletonNames[i];
  // Chromium crashes the renderer when a worker paused on start reads `location`.
  if (!isWindow && name === "location") continue;
  try {
    const value = g[name];
    if (value !== null && typeof value === "object") apply(wmSet, singletons, [value, name]);
  } catch (_) {
    // a getter that refuses here (storage in an opaque origin): named by its interface instead.
  }
}

// Per-property facts, measured once on the original descriptor.
function propertyOf(holder, name, d, iface, api, hooks) {
  return {
    holder: holder,
    name: name,
    d: d,
    iface: iface,
    api: api,
    facts: null,
    tags: tagsFor(iface, api),
    hook: hooks[api] || null,
  };
}

function propFacts(prop) {
  if (prop.facts === null) prop.facts = M.measureProperty(prop.holder, prop.name, prop.d);
  return prop.facts;
}

// The api path for a prototype member reached on `receiver`.
function apiFor(prop, receiver) {
  if (!prop.onPrototype) return prop.api;
  if (receiver !== null && (typeof receiver === "object" || typeof receiver === "function")) {
    const name = apply(wmGet, singletons, [receiver]);
    if (name !== undefined) return name + "." + prop.name;
  }
  return prop.api;
}

function complete(record, prop, receiver, args, result, threw, error, measureResult) {
  busy++;
  try {
    const facts = propFacts(prop);
    record.api = apiFor(prop, receiver);
    record.receiver = M.receiverName(receiver);
    record.owner = facts.owner;
    record.descriptor = facts.descriptor;
    if ("getterOwner" in facts) {
      record.getterOwner = facts.getterOwner;
      record.setterOwner = facts.setterOwner;
    }
    if (args !== null) {
      const encoded = [];
      for (let i = 0; i < args.length; i++) encoded[i] = M.encode(args[i]);
      record.args = encoded;
    }
    if (threw) {
      record.exception = M.exceptionOf(error);
    } else {
      record.exception = null;
      if (record.accessType !== "set") record.returnValue = M.encode(result);
      if (measureResult === true ||
          (measureResult === "objects" && result !== null &&
           (typeof result === "object" || typeof result === "function"))) {
        M.measureValue(result, record);
      }
    }
    const tags = prop.tags.length ? prop.tags : tagsFor(prop.iface, record.api);
    if (tags.length) record.tags = tags;
    if (prop.hook) prop.hook(record, receiver, args, result, threw);
  } catch (e) {
    record.probeError = StringOf(e && e.message);
  } finally {
    busy--;
  }
  finish(record);
}

// A thrown error's stack without the probe's frames. Chromium keeps `stack` as an own accessor
// pair (older versions: a data property): the text is read and written back through it, so the
// property keeps its shape.
function cleanStack(error) {
  try {
    if (error === null || (typeof error !== "object" && typeof error !== "function")) return;
    const d = gopd(error, "stack");
    if (!d) return;
    const accessor = apply(hasOwnProperty, d, ["get"]);
    const text = accessor ? (typeof d.get === "function" ? apply(d.get, error, []) : undefined) : d.value;
    if (typeof text !== "string") return;
    const lines = apply(strSplit, text, ["\n"]);
    const kept = [];
    for (let i = 0; i < lines.length; i++) {
      if (apply(strIndexOf, lines[i], [config.ownUrl]) < 0) kept[kept.length] = lines[i];
    }
    if (kept.length === lines.length) return;
    const cleaned = apply(arrayJoin, kept, ["\n"]);
    if (!accessor) {
      defineProperty(error, "stack", { value: cleaned, writable: d.writable, enumerable: d.enumerable, configurable: d.configurable });
    } else if (typeof d.set === "function") {
      apply(d.set, error, [cleaned]);
    }
  } catch (_) {
    // leave it
  }
}

function disguise(wrapper, original) {
  let source;
  try {
    source = apply(fnToString, original, []);
  } catch (_) {
    source = "function () { [native code] }";
  }
  apply(wmSet, sources, [wrapper, source]);
  return wrapper;
}

function callTrap(prop, accessType, measureResult) {
  return function (target, thisArg, args) {
    if (busy) return apply(target, thisArg, args);
    const record = begin(prop, accessType);
    let result;
    let threw = false;
    let error;
    try {
      result = apply(target, thisArg, args);
    } catch (e) {
      threw = true;
      error = e;
      cleanStack(e);
    }
    if (prop.after && !threw) {
      try {
        result = prop.after(record, thisArg, args, result);
      } catch (_) {
        // keep the original result
      }
    }
    complete(record, prop, thisArg, accessType === "get" ? null : args, result, threw, error,
      measureResult);
    if (threw) throw error;
    return result;
  };
}

let wrapped = 0;
const done = new WeakMapC();

function alreadyWrapped(holder, name) {
  let names = apply(wmGet, done, [holder]);
  if (names === undefined) {
    names = O.create(null);
    apply(wmSet, done, [holder, names]);
  }
  const key = typeof name === "symbol" ? "@@" + StringOf(name.description) : "$" + name;
  if (names[key]) return true;
  names[key] = true;
  return false;
}

// Wraps own property `name` of `holder`: accessors (get/set) and methods (call).
function wrapMember(holder, name, iface, api, onPrototype) {
  if (name === "constructor" || alreadyWrapped(holder, name)) return;
  let d;
  try {
    d = gopd(holder, name);
  } catch (_) {
    return;
  }
  if (!d || !d.configurable) return;
  const prop = propertyOf(holder, name, d, iface, api, HOOKS);
  prop.onPrototype = onPrototype;
  prop.after = AFTER[api] || null;
  if ("get" in d || "set" in d) {
    const replacement = { enumerable: d.enumerable, configurable: true };
    if (typeof d.get === "function") {
      replacement.get = disguise(new ProxyC(d.get, { apply: callTrap(prop, "get", true) }), d.get);
    } else {
      replacement.get = d.get;
    }
    if (typeof d.set === "function") {
      replacement.set = disguise(new ProxyC(d.set, { apply: callTrap(prop, "set", false) }), d.set);
    } else {
      replacement.set = d.set;
    }
    defineProperty(holder, name, replacement);
    wrapped++;
  } else if (typeof d.value === "function" && !isConstructorLike(d.value)) {
    const proxy = disguise(new ProxyC(d.value, { apply: callTrap(prop, "call", "objects") }), d.value);
    defineProperty(holder, name, { value: proxy, writable: d.writable, enumerable: d.enumerable, configurable: true });
    wrapped++;
  }
}

function isConstructorLike(f) {
  const p = gopd(f, "prototype");
  return !!(p && p.value !== null && typeof p.value === "object" && gopd(p.value, "constructor"));
}

// Wraps a constructor held as property `name` of `holder` (construct and call).
function wrapConstructor(holder, name, path) {
  if (alreadyWrapped(holder, name)) return null;
  const d = gopd(holder, name);
  if (!d || !("value" in d) || typeof d.value !== "function" || !d.configurable) return null;
  const C = d.value;
  const prop = propertyOf(holder, name, d, path, path, HOOKS);
  prop.onPrototype = false;
  prop.after = AFTER[path] || null;
  const callProp = propertyOf(holder, name, d, path, path, HOOKS);
  callProp.onPrototype = false;
  callProp.facts = null;
  let proxy = null;
  const handler = {
    construct: function (target, args, newTarget) {
      const nt = newTarget === proxy ? target : newTarget;
      if (busy) return construct(target, args, nt);
      const record = begin(prop, "construct");
      let callArgs = args;
      try {
        if (BEFORE[path]) callArgs = BEFORE[path](record, args);
      } catch (_) {
        callArgs = args;
      }
      let result;
      let threw = false;
      let error;
      try {
        result = construct(target, callArgs, nt);
      } catch (e) {
        threw = true;
        error = e;
        cleanStack(e);
      }
      complete(record, prop, holder, args, result, threw, error, true);
      if (threw) throw error;
      return result;
    },
    apply: callTrap(callProp, "call", "objects"),
  };
  proxy = disguise(new ProxyC(C, handler), C);
  defineProperty(holder, name, { value: proxy, writable: d.writable, enumerable: d.enumerable, configurable: true });
  const pd = gopd(C, "prototype");
  if (pd && pd.value && typeof pd.value === "object") {
    const cd = gopd(pd.value, "constructor");
    if (cd && cd.value === C && cd.configurable) {
      defineProperty(pd.value, "constructor", { value: proxy, writable: cd.writable, enumerable: cd.enumerable, configurable: true });
    }
  }
  wrapped++;
  return C;
}

// Resolves a dotted path from the global object: [holder, name, value] or null.
function resolve(path) {
  const parts = apply(strSplit, path, ["."]);
  let holder = g;
  let start = 0;
  if (parts[0] === "window" || parts[0] === "self" || parts[0] === "globalThis") start = 1;
  if (start >= parts.length) return null;
  for (let i = start; i < parts.length - 1; i++) {
    let next;
    try {
      next = holder[parts[i]];
    } catch (_) {
      return null;
    }
    if (next === null || (typeof next !== "object" && typeof next !== "function")) return null;
    holder = next;
  }
  const name = parts[parts.length - 1];
  let value;
  try {
    const d = gopd(holder, name);
    if (!d) {
      // inherited: wrap it where it is held.
      let p = getProto(holder);
      while (p !== null && !gopd(p, name)) p = getProto(p);
      if (p === null) return null;
      holder = p;
    }
    const own = gopd(holder, name);
    value = "value" in own ? own.value : undefined;
  } catch (_) {
    return null;
  }
  return { holder: holder, name: name, value: value };
}

// One entry of the API list: an interface (prototype members, statics, constructor), a namespace
// object (its functions and accessors), or one member (`X.prototype.m`, `X.m`, `window.m`).
function install(path) {
  const found = resolve(path);
  if (found === null) return;
  const value = found.value;
  const parts = apply(strSplit, path, ["."]);
  const bare = parts[0] === "window" || parts[0] === "self" || parts[0] === "globalThis"
    ? apply(strSlice, path, [parts[0].length + 1])
    : path;
  if (typeof value === "function" && isConstructorLike(value)) {
    const proto = gopd(value, "prototype").value;
    const keys = ownKeysOf(proto);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (typeof key === "symbol") continue;
      wrapMember(proto, key, bare, bare + ".prototype." + key, true);
    }
    const statics = ownKeysOf(value);
    for (let i = 0; i < statics.length; i++) {
      const key = statics[i];
      if (typeof key === "symbol" || key === "prototype" || key === "length" || key === "name") continue;
      const sd = gopd(value, key);
      if (sd && (typeof sd.value === "function" || sd.get)) {
        wrapMember(value, key, bare, bare + "." + key, false);
      }
    }
    wrapConstructor(found.holder, found.name, bare);
  } else if (value !== null && typeof value === "object" && found.holder === g &&
             includes(NAMESPACES, bare)) {
    const keys = ownKeysOf(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (typeof key === "symbol") continue;
      const sd = gopd(value, key);
      if (sd && ((typeof sd.value === "function" && !isConstructorLike(sd.value)) || sd.get)) {
        wrapMember(value, key, bare, bare + "." + key, false);
      }
    }
  } else {
    const onPrototype = parts.length >= 3 && parts[parts.length - 2] === "prototype";
    const iface = onPrototype ? apply(strSlice, path, [0, path.length - parts[parts.length - 1].length - 11]) : bare;
    wrapMember(found.holder, found.name, iface, bare, onPrototype);
  }
}

const NAMESPACES = ["Math", "JSON", "Intl", "Atomics", "console", "CSS"];

// ---- stateful families -------------------------------------------------------------------

const objectIds = new WeakMapC();
const counters = O.create(null);

function objectId(object, family) {
  let id = apply(wmGet, objectIds, [object]);
  if (id === undefined) {
    counters[family] = (counters[family] || 0) + 1;
    id = family + "#" + counters[family];
    apply(wmSet, objectIds, [object, id]);
  }
  return id;
}

function readNumber(object, name) {
  busy++;
  try {
    const v = object[name];
    return typeof v === "number" ? v : undefined;
  } catch (_) {
    return undefined;
  } finally {
    busy--;
  }
}

function stateEvent(api, receiver, state) {
  if (busy) return;
  const record = {
    k: "access",
    ls: nextLocal++,
    e: epoch(),
    realm: realm,
    phase: phase,
    api: api,
    accessType: "event",
    receiver: receiver,
    state: state,
  };
  const tags = state.family === "xhr" || state.family === "fetch" ? ["request"] : null;
  if (tags) record.tags = tags;
  finish(record);
}

function listen(target, types, handler) {
  if (!addListener) return;
  for (let i = 0; i < types.length; i++) {
    const type = types[i];
    try {
      apply(addListener, target, [type, function (event) { handler(type, event); }]);
    } catch (_) {
      // not an event target
    }
  }
}

function xhrState(record, xhr, event) {
  const state = { family: "xhr", object: objectId(xhr, "xhr"), event: event };
  const rs = readNumber(xhr, "readyState");
  if (rs !== undefined) state.readyState = rs;
  record.state = state;
}

function watchXhr(xhr) {
  const object = objectId(xhr, "xhr");
  listen(xhr, ["readystatechange", "load", "error", "abort", "timeout"], function (type) {
    const state = { family: "xhr", object: object, event: type };
    const rs = readNumber(xhr, "readyState");
    if (rs !== undefined) state.readyState = rs;
    if (rs === 4 || type !== "readystatechange") {
      const status = readNumber(xhr, "status");
      if (status !== undefined) state.status = status;
    }
    stateEvent("XMLHttpRequest.event:" + type, "XMLHttpRequest", state);
  });
}

function watchPort(port, family, receiver) {
  const object = objectId(port, family);
  listen(port, ["message", "messageerror", "error"], function (type) {
    stateEvent(receiver + ".event:" + type, receiver, { family: family, object: object, event: type });
  });
}

const HOOKS = O.create(null);
const AFTER = O.create(null);
const BEFORE = O.create(null);

function memberHook(family, idFamily) {
  return function (record, receiver, args, result, threw) {
    if (threw || receiver === null || typeof receiver !== "object") return;
    if (family === "xhr") {
      xhrState(record, receiver, lastPart(record.api));
      return;
    }
    record.state = { family: family, object: objectId(receiver, idFamily), event: lastPart(record.api) };
  };
}

const XHR_METHODS = ["open", "send", "abort", "setRequestHeader", "overrideMimeType"];
for (let i = 0; i < XHR_METHODS.length; i++) {
  HOOKS["XMLHttpRequest.prototype." + XHR_METHODS[i]] = memberHook("xhr", "xhr");
}
HOOKS.XMLHttpRequest = function (record, receiver, args, result, threw) {
  if (threw || record.accessType !== "construct") return;
  watchXhr(result);
  record.state = { family: "xhr", object: objectId(result, "xhr"), event: "construct", readyState: 0 };
};
HOOKS["Worker.prototype.postMessage"] = memberHook("worker", "worker");
HOOKS["Worker.prototype.terminate"] = memberHook("worker", "worker");
HOOKS.Worker = function (record, receiver, args, result, threw) {
  if (threw || record.accessType !== "construct") return;
  watchPort(result, "worker", "Worker");
  record.state = { family: "worker", object: objectId(result, "worker"), event: "construct" };
};
HOOKS["MessagePort.prototype.postMessage"] = memberHook("messageport", "messageport");
HOOKS["MessagePort.prototype.start"] = memberHook("messageport", "messageport");
HOOKS["MessagePort.prototype.close"] = memberHook("messageport", "messageport");
HOOKS.MessageChannel = function (record, receiver, args, result, threw) {
  if (threw || record.accessType !== "construct") return;
  busy++;
  try {
    watchPort(result.port1, "messageport", "MessagePort");
    watchPort(result.port2, "messageport", "MessagePort");
    record.state = {
      family: "messageport",
      object: objectId(result.port1, "messageport"),
      event: "construct",
      peer: objectId(result.port2, "messageport"),
    };
  } finally {
    busy--;
  }
};
HOOKS["MutationObserver.prototype.observe"] = memberHook("observer", "observer");
HOOKS["MutationObserver.prototype.disconnect"] = memberHook("observer", "observer");
HOOKS["MutationObserver.prototype.takeRecords"] = memberHook("observer", "observer");
BEFORE.MutationObserver = function (record, args) {
  const callback = args[0];
  if (typeof callback !== "function") return args;
  const holder = { object: null };
  record.pendingObserver = holder;
  const copy = [];
  for (let i = 0; i < args.length; i++) copy[i] = args[i];
  copy[0] = function (records, observer) {
    if (holder.object === null) holder.object = objectId(observer, "observer");
    stateEvent("MutationObserver.event:callback", "MutationObserver", {
      family: "observer",
      object: holder.object,
      event: "callback",
      records: records && typeof records.length === "number" ? records.length : 0,
    });
    return apply(callback, this, arguments);
  };
  return copy;
};
HOOKS.MutationObserver = function (record, receiver, args, result, threw) {
  const holder = record.pendingObserver;
  delete record.pendingObserver;
  if (threw || record.accessType !== "construct") return;
  const object = objectId(result, "observer");
  if (holder) holder.object = object;
  record.state = { family: "observer", object: object, event: "construct" };
};
// fetch: the call, then its settlement as an event. The page gets a promise chained on the
// original one that settles the same way (a rejection it leaves unhandled is still reported).
AFTER.fetch = function (record, receiver, args, result) {
  if (result === null || typeof result !== "object") return result;
  const object = objectId(record, "fetch");
  record.state = { family: "fetch", object: object, event: "fetch" };
  busy++;
  try {
    return apply(promiseThen, result, [
      function (response) {
        const state = { family: "fetch", object: object, event: "response" };
        const status = readNumber(response, "status");
        if (status !== undefined) state.status = status;
        stateEvent("fetch.event:response", "Response", state);
        return response;
      },
      function (error) {
        stateEvent("fetch.event:error", "Window", { family: "fetch", object: object, event: "error" });
        throw error;
      },
    ]);
  } finally {
    busy--;
  }
};

// Side effects with a stable summary.
function sideEffect(api, summary) {
  const previous = HOOKS[api];
  HOOKS[api] = function (record, receiver, args, result, threw) {
    if (previous) previous(record, receiver, args, result, threw);
    if (!threw && record.accessType !== "get") record.sideEffect = summary(args || [], receiver);
  };
}
function firstPart(value) {
  return apply(strSplit, StringOf(value), [";"])[0];
}
function nodeName(node) {
  busy++;
  try {
    return node && typeof node.nodeName === "string" ? node.nodeName : "?";
  } catch (_) {
    return "?";
  } finally {
    busy--;
  }
}
sideEffect("Document.prototype.cookie", function (args) { return "cookie+=" + firstPart(args[0]); });
sideEffect("Node.prototype.appendChild", function (args) { return "dom:append:" + nodeName(args[0]); });
sideEffect("Node.prototype.insertBefore", function (args) { return "dom:insert:" + nodeName(args[0]); });
sideEffect("Node.prototype.removeChild", function (args) { return "dom:remove:" + nodeName(args[0]); });
sideEffect("Node.prototype.replaceChild", function (args) { return "dom:replace:" + nodeName(args[0]); });
sideEffect("Storage.prototype.setItem", function (args) { return "storage:set:" + StringOf(args[0]); });
sideEffect("Storage.prototype.removeItem", function (args) { return "storage:remove:" + StringOf(args[0]); });
sideEffect("Storage.prototype.clear", function () { return "storage:clear"; });
sideEffect("History.prototype.pushState", function () { return "history:push"; });
sideEffect("History.prototype.replaceState", function () { return "history:replace"; });

// ---- phases and the end marker -------------------------------------------------------------

const PHASE = "tracer:phase=";
const markProto = typeof g.Performance === "function" ? g.Performance.prototype : null;
const markOriginal = markProto && gopd(markProto, "mark") ? gopd(markProto, "mark").value : null;
// Runs after the API table is installed: `target` is then the recording wrapper (when Performance
// is watched) and phase markers bypass it to reach the original.
function watchMarks() {
  if (typeof markOriginal !== "function") return;
  const proto = markProto;
  const d = gopd(proto, "mark");
  if (!d || typeof d.value !== "function" || !d.configurable) return;
  const inner = d.value;
  // Phase markers are instrumentation, not accesses: they set the phase and are not recorded.
  const proxy = disguise(new ProxyC(inner, {
    apply: function (target, thisArg, args) {
      const name = args[0];
      if (startsWith(name, PHASE)) {
        phase = apply(strSlice, name, [PHASE.length]) || "init";
        return apply(markOriginal, thisArg, args);
      }
      if (name === "tracer:done") {
        const result = apply(markOriginal, thisArg, args);
        finish({ k: "done", ls: nextLocal++, e: epoch(), realm: realm });
        return result;
      }
      return apply(target, thisArg, args);
    },
  }), markOriginal);
  defineProperty(proto, "mark", { value: proxy, writable: d.writable, enumerable: d.enumerable, configurable: true });
}

// ---- Function.prototype.toString: wrappers read as the functions they stand for ------------

function patchToString() {
  const d = gopd(Function.prototype, "toString");
  if (!d || !d.configurable) return;
  const original = d.value;
  const proxy = new ProxyC(original, {
    apply: function (target, thisArg, args) {
      const known = apply(wmGet, sources, [thisArg]);
      if (typeof known === "string") return known;
      return apply(target, thisArg, args);
    },
  });
  disguise(proxy, original);
  defineProperty(Function.prototype, "toString", { value: proxy, writable: d.writable, enumerable: d.enumerable, configurable: true });
}

// ---- install ------------------------------------------------------------------------------

const apis = config.apis;
let failed = 0;
for (let i = 0; i < apis.length; i++) {
  try {
    install(apis[i]);
  } catch (_) {
    failed++;
  }
}
watchMarks();
patchToString();
post({ k: "ready", realm: realm, wrapped: wrapped, failed: failed });
