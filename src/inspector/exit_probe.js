// exit_probe.js: the audit's own structural measurement of a Node realm (src/inspector/exit_probe.rs).
// Rust builds one function declaration from it:
//   function () { <reflect.js without its CommonJS export> <this file> }
// and calls it with `Runtime.callFunctionOn` in an execution context (the main context before the
// program is released; a `vm` context such as a jsdom window as soon as it is created). It returns
// a measurer object that only the inspector holds (an objectId in the probe's object group): it adds
// no global, wraps nothing, and keeps the built-ins it captured at that moment, so a program that
// later replaces `Object.getOwnPropertyDescriptor` and the like does not change what it measures.
// At exit, `measureItem(api, accessType, constructNoArgs)` is called on it with the item's api path
// as an argument value (never as evaluated text) and answers with the structural dimensions of
// `tracer-trace/v1`, measured by the same reflect.js the browser probe uses.
const g = globalThis;
const M = tracerReflect(g);
const apply = Reflect.apply;
const reflectGet = Reflect.get;
const reflectConstruct = Reflect.construct;
const gopd = Object.getOwnPropertyDescriptor;
const create = Object.create;
const strSplit = String.prototype.split;
const arrayJoin = Array.prototype.join;
const arraySlice = Array.prototype.slice;
const StringOf = String;

// Constructors that start threads, connections or media when constructed: never constructed here,
// whatever the trace says (their chain is measured on a bare object made from their prototype).
const NEVER_CONSTRUCT = ["Worker", "SharedWorker", "WebSocket", "EventSource", "RTCPeerConnection",
  "AudioContext", "OfflineAudioContext", "BroadcastChannel", "XMLHttpRequestUpload", "Function",
  "AsyncFunction", "GeneratorFunction", "Notification", "PaymentRequest", "MediaRecorder"];

function includes(list, item) {
  for (let i = 0; i < list.length; i++) if (list[i] === item) return true;
  return false;
}

function copyValueFacts(from, to) {
  to.brand = from.brand;
  to.constructorName = from.constructorName;
  to.prototypeChain = from.prototypeChain;
  to.instanceOf = from.instanceOf;
}

function measureItem(path, accessType, constructNoArgs) {
  const out = {};
  const parts = apply(strSplit, StringOf(path), ["."]);
  let start = 0;
  if (parts[0] === "window" || parts[0] === "self" || parts[0] === "globalThis") start = 1;
  if (start >= parts.length) {
    out.receiver = M.receiverName(g);
    return out;
  }
  let base = g;
  for (let i = start; i < parts.length - 1; i++) {
    let next;
    try {
      next = base[parts[i]];
    } catch (e) {
      out.unresolved = apply(arrayJoin, apply(arraySlice, parts, [0, i + 1]), ["."]) + " threw";
      return out;
    }
    if (next === null || (typeof next !== "object" && typeof next !== "function")) {
      // The path ends early: the property the script reached does not exist here.
      out.owner = null;
      out.descriptor = null;
      out.unresolved = apply(arrayJoin, apply(arraySlice, parts, [0, i + 1]), ["."]) + " is " +
        (next === null ? "null" : typeof next);
      return out;
    }
    base = next;
  }
  const name = parts[parts.length - 1];
  // `X.prototype.m`: a member reached on an instance the probe cannot name; the receiver and the
  // value are not measured, only the property.
  const onPrototype = parts.length - start >= 3 && parts[parts.length - 2] === "prototype";
  const holder = M.findHolder(base, name);
  const facts = M.measureProperty(holder, name);
  out.owner = facts.owner;
  out.descriptor = facts.descriptor;
  if ("getterOwner" in facts) {
    out.getterOwner = facts.getterOwner;
    out.setterOwner = facts.setterOwner;
  }
  // A call's receiver is its `this`, which the path does not fix (`fetch()` has none,
  // `window.fetch()` has the window): not measured.
  if (!onPrototype && accessType !== "call") out.receiver = M.receiverName(base);
  if (holder === null || onPrototype) return out;
  if (accessType === "get" || accessType === "ownKeys") {
    let value;
    try {
      value = reflectGet(holder, name, base);
    } catch (_) {
      return out;
    }
    const measured = M.measureValue(value, {});
    if (accessType === "get") copyValueFacts(measured, out);
    if ("ownKeys" in measured) {
      out.keys = measured.keys;
      out.ownNames = measured.ownNames;
      out.ownSymbols = measured.ownSymbols;
      out.ownKeys = measured.ownKeys;
    }
  } else if (accessType === "construct") {
    const d = gopd(holder, name);
    const C = d && "value" in d ? d.value : undefined;
    if (typeof C !== "function") return out;
    if (constructNoArgs === true && !includes(NEVER_CONSTRUCT, name)) {
      // The script constructed it with no arguments: so does the probe.
      let made;
      try {
        made = reflectConstruct(C, []);
      } catch (e) {
        out.exception = M.exceptionOf(e);
        return out;
      }
      out.exception = null;
      M.measureValue(made, out);
    } else {
      const pd = gopd(C, "prototype");
      if (pd && pd.value !== null && typeof pd.value === "object") {
        copyValueFacts(M.measureValue(create(pd.value), {}), out);
      }
    }
  }
  return out;
}

return { measureItem: measureItem };
