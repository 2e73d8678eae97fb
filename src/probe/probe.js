// probe.js: the browser side of `tracer record`. Rust wraps it as
//   (function (config) { <reflect.js> <probe.js> })(CONFIG)
// and installs it before any page script (Page.addScriptToEvaluateOnNewDocument; Runtime.evaluate
// in a worker paused on start). It owns the wrappers, the redefinitions the page makes of what
// they watch, and the reporting; every structural fact comes from reflect.js, measured on the
// definitions behind the wrappers (the browser's originals, or what the page defined since),
// never on the wrappers themselves.
//
// Reporting: JSON records, in batches (see `post`), through the CDP binding `config.binding`, captured in this
// closure and deleted from the global before page code runs. Records leave in the order their
// local sequence numbers were taken (a call takes its number when it starts, so events it fires
// synchronously come after it); the recorder assigns the global `seq`, `t`, `nav` and `realmId`.
// Fields: see `tracer-trace/v1` (docs: README "tracer record"). Absent = not sampled. The
// property facts of a definition are sent once per realm and referred to after (see `withFacts`).
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
const arraySlice = Array.prototype.slice;

// Wrapper -> the source text of the function it stands for (what toString shows).
const sources = new WeakMapC();
// A function (the original) -> the global path the API list reached it by (`setTimeout`,
// `Intl.DateTimeFormat`): functions are named by it (filled by `install`).
const globalPaths = new WeakMapC();
const M = tracerReflect(g, {
  sourceOf: function (f) {
    return sourceText(f);
  },
  pathOf: function (f) {
    const original = apply(wmGet, originals, [f]);
    return apply(wmGet, globalPaths, [original === undefined ? f : original]);
  },
  ownUrls: [config.ownUrl],
  idPrefix: "o",
});

// Milliseconds since the epoch. An environment's own clock may return anything (a shim's
// `performance.now` returning a string): then Date.now, so that every record keeps its time.
function epoch() {
  if (perfNow) {
    let now;
    try {
      now = apply(perfNow, perf, []);
    } catch (_) {
      now = undefined;
    }
    if (typeof now === "number" && typeof timeOrigin === "number" && now === now) return timeOrigin + now;
  }
  return dateNow();
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
    // A realm without a `top` (a shim's `vm` context, Node's own) stands for the main window.
    const top = g.top;
    realm = top === g || top === undefined || top === null ? "main" : "iframe";
  } catch (_) {
    realm = "iframe";
  }
}

let phase = "init";
let busy = 0;
// Recorded calls running now (see `begin`); `config.markNested` (the audit) marks their records.
let inside = 0;
const MARK_NESTED = config.markNested === true;
let nextLocal = 1;
let flushNext = 1;
const ready = O.create(null);

// Records leave in batches: one binding call carries every record finished since the last one,
// sent at the end of the current task (a microtask), as soon as `config.batchRecords` are
// waiting, or at the first record finished `config.batchMs` after the batch began. One CDP
// message per record costs the browser process far more than the probe's own work; a batch costs
// about as much as one record. What a batch risks: a renderer crash, or a task that never ends,
// before it leaves (the recorder stops a hung page's script at its timeout, which lets the batch
// leave; see session.rs). `tracer record --no-batch` sets `batchRecords` to 1.
const BATCH_RECORDS = config.batchRecords;
const BATCH_MS = config.batchMs;
const queueMicrotaskOriginal = typeof g.queueMicrotask === "function" ? g.queueMicrotask : null;
const batch = [];
let batchStarted = 0;
let batchScheduled = false;

// An access record that repeats the previous record of its api, all but its `ls` and `e`, travels
// as `{"k":"same","slot":n,"ls":..,"e":..}`; the recorder keeps the last whole record of each
// slot (one per api, per realm) and writes the repeat in full. A whole record carries `slot: n`.
// The text is built either way (it is what is compared); what a repeat saves is the bytes the
// binding, the browser and the recorder would each carry and convert.
// A record whose content equals the slot's last one (`sameJson`) is known to repeat it without
// being stringified; any other is stringified and compared as text.
const slots = O.create(null); // api -> { n, body, last }
let nextSlot = 1;
const objectProto = O.prototype;
const arrayProto = Array.prototype;
const isArrayValue = Array.isArray;

// Whether JSON.stringify (the original, no replacer) is known to write `a` and `b` as the same
// text, decided without running it. Only the shapes records are built of are compared: strings,
// numbers, booleans, null and undefined (compared with ===, which implies the same text), arrays
// and plain objects the probe made (enumerable keys compared in order, then their values);
// anything else answers false. false only means "not known": the caller stringifies. Valid only
// while `jsonPlain()` holds. The probe builds these objects by literals, assignments and pushes:
// an own property is an enumerable data property and an array has no holes, so reading them runs
// no page code.
const keyLists = [[], [], [], [], [], [], [], [], [], []];
function sameJson(a, b, depth) {
  if (typeof a !== "object" || a === null) {
    return a === b && (typeof a === "string" || typeof a === "number" || typeof a === "boolean" ||
      a === null || a === undefined);
  }
  if (typeof b !== "object" || b === null || depth > 8) return false;
  const proto = getProto(a);
  if (proto !== getProto(b)) return false;
  if (proto === arrayProto) {
    if (!isArrayValue(a) || !isArrayValue(b)) return false;
    const n = a.length;
    if (b.length !== n) return false;
    for (let i = 0; i < n; i++) if (!sameJson(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (proto !== objectProto) return false;
  // With nothing enumerable on Object.prototype, for-in walks exactly the own enumerable string
  // keys, in the order JSON.stringify writes them.
  const keys = keyLists[depth];
  let n = 0;
  for (const key in a) keys[n++] = key;
  let i = 0;
  for (const key in b) {
    if (i >= n || keys[i] !== key || !sameJson(a[key], b[key], depth + 1)) return false;
    i++;
  }
  return i === n;
}

// Whether JSON.stringify of the probe's plain objects and arrays is what `sameJson` assumes: no
// `toJSON` for it to call on Object.prototype, Array.prototype or between them, and nothing
// enumerable on them for for-in to walk.
const emptyObject = {};
const emptyArray = [];
function jsonPlain() {
  if (getProto(arrayProto) !== objectProto || own(objectProto, "toJSON") || own(arrayProto, "toJSON")) {
    return false;
  }
  for (const _ in emptyObject) return false;
  for (const _ in emptyArray) return false;
  return true;
}

// JSON text of a record. JSON.stringify calls a `toJSON` it finds on an object, inherited ones
// included: once the page puts one on Object.prototype or Array.prototype (or swaps Array.prototype's
// prototype), records are written by `writeJson`, which never looks for one.
function jsonOf(value) {
  if (getProto(arrayProto) === objectProto && !own(objectProto, "toJSON") && !own(arrayProto, "toJSON")) {
    return stringify(value);
  }
  const text = writeJson(value, 0);
  return text === undefined ? "null" : text;
}

// JSON.stringify's output for the probe's own data (plain objects, arrays, strings, finite or
// non-finite numbers, booleans, null; undefined and functions left out), without `toJSON`.
// Strings and numbers go through JSON.stringify itself, which asks primitives for nothing.
function writeJson(value, depth) {
  if (value === null) return "null";
  const type = typeof value;
  if (type === "string" || type === "number" || type === "boolean") return stringify(value);
  if (type !== "object" || depth > 200) return undefined;
  const parts = [];
  if (isArrayValue(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = writeJson(value[i], depth + 1);
      parts[parts.length] = item === undefined ? "null" : item;
    }
    return "[" + apply(arrayJoin, parts, [","]) + "]";
  }
  const keys = ownKeysOf(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (typeof key !== "string") continue;
    const d = gopd(value, key);
    if (!d || !d.enumerable) continue;
    const item = writeJson(own(d, "value") ? d.value : undefined, depth + 1);
    if (item !== undefined) parts[parts.length] = stringify(key) + ":" + item;
  }
  return "{" + apply(arrayJoin, parts, [","]) + "}";
}

function textOf(message) {
  if (message.k !== "access" || typeof message.api !== "string") return jsonOf(message);
  const ls = message.ls;
  const e = message.e;
  message.ls = undefined;
  message.e = undefined;
  let slot = slots[message.api];
  if (slot === undefined) {
    slot = { n: nextSlot++, body: null, last: null, stack: null };
    slots[message.api] = slot;
  }
  const head = '"slot":' + slot.n + ',"ls":' + ls + ',"e":' + e;
  const plain = jsonPlain();
  if (slot.last !== null && plain && sameJson(message, slot.last, 0)) {
    return '{"k":"same",' + head + "}";
  }
  // A stack equal to the slot's last one travels as `stackSame: 1` (a loop reads from one place:
  // its 8 frames are most of a record's bytes, which the binding, the browser and tracer each
  // carry); the recorder fills it back in from the slot's last stack.
  const stack = message.stack;
  const stackSame = plain && stack !== undefined && slot.stack !== null && sameJson(stack, slot.stack, 0);
  if (stackSame) {
    message.stack = undefined;
    message.stackSame = 1;
  }
  const body = jsonOf(message);
  if (stackSame) {
    message.stack = stack;
    message.stackSame = undefined;
  }
  if (stack !== undefined) slot.stack = stack;
  // `last` is a record whose text is `body`, but for a stack sent as `stackSame`.
  slot.last = message;
  if (slot.body === body) return '{"k":"same",' + head + "}";
  slot.body = body;
  return "{" + head + "," + apply(strSlice, body, [1]);
}

function post(message) {
  batch[batch.length] = textOf(message);
  if (batch.length === 1) batchStarted = dateNow();
  if (batch.length >= BATCH_RECORDS || dateNow() - batchStarted >= BATCH_MS ||
      queueMicrotaskOriginal === null) {
    sendBatch();
  } else if (!batchScheduled) {
    batchScheduled = true;
    apply(queueMicrotaskOriginal, g, [sendBatch]);
  }
}

function sendBatch() {
  batchScheduled = false;
  if (batch.length === 0) return;
  const payload = "[" + apply(arrayJoin, batch, [","]) + "]";
  batch.length = 0;
  try {
    apply(send, g, [payload]);
  } catch (_) {
    // the binding is gone (the page is closing): nothing more can be reported.
  }
}

// Sends finished records in local order; a record waits for every earlier one to finish.
function finish(record) {
  if (record.ls === flushNext) {
    // Nothing earlier is waiting: it leaves now, without passing through `ready`.
    flushNext++;
    post(withFacts(record));
  } else {
    ready[record.ls] = record;
  }
  while (ready[flushNext] !== undefined) {
    const next = ready[flushNext];
    delete ready[flushNext];
    flushNext++;
    post(withFacts(next));
  }
}

// The property facts of a record (`fx`: owner, descriptor, getter/setter owner) travel once per
// realm: the first record that leaves with them carries them and `fdef: n`; every later record
// with the same facts carries only `fref: n`, and the recorder fills them back in. Decided here,
// in the order records leave, so a definition always reaches the recorder before its references.
// Facts that change with every write (an emulated data property's value) always travel whole.
const factIds = new WeakMapC();
let nextFacts = 1;

function withFacts(record) {
  const facts = record.fx;
  if (facts === undefined) return record;
  record.fx = undefined;
  if (record.fxWhole === true) {
    record.fxWhole = undefined;
  } else {
    const id = apply(wmGet, factIds, [facts]);
    if (id !== undefined) {
      record.fref = id;
      return record;
    }
    record.fdef = nextFacts;
    apply(wmSet, factIds, [facts, nextFacts++]);
  }
  record.owner = facts.owner;
  record.descriptor = facts.descriptor;
  if (own(facts, "getterOwner")) {
    record.getterOwner = facts.getterOwner;
    record.setterOwner = facts.setterOwner;
  }
  return record;
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
    // Set only while its text is made (see `textOf`); present here so that records keep one shape.
    stackSame: undefined,
  };
  // Made while another recorded call is still running (an environment's implementation using
  // its own APIs, or a page callback the call invoked): the audit's filter needs to know.
  if (MARK_NESTED && inside > 0) record.nested = 1;
  busy++;
  try {
    record.stack = M.stack(config.stackLimit, begin);
  } finally {
    busy--;
  }
  return record;
}

// ---- the API table -------------------------------------------------------------------------

// Tags come from one table (`config.tags`, `TAGS` in src/probe/mod.rs), applied to whatever is
// recorded: a name there is an interface (every member of it), a member (`X.prototype.m`,
// `X.m`), a global (`fetch`, `window.devicePixelRatio`) or a singleton's member
// (`document.cookie`). Tags are written in this order.
const TAG_ORDER = ["writer", "request", "cookie", "fingerprint", "detection"];
const TAGS = O.create(null);
if (config.tags) {
  const names = ownKeysOf(config.tags);
  for (let i = 0; i < names.length; i++) TAGS["$" + names[i]] = config.tags[names[i]];
}

function includes(list, item) {
  for (let i = 0; i < list.length; i++) if (list[i] === item) return true;
  return false;
}

function tagsFor(iface, api) {
  const names = [iface, api, "window." + api, iface + ".prototype." + lastPart(api)];
  let found = null;
  for (let i = 0; i < names.length; i++) {
    const list = TAGS["$" + names[i]];
    if (list === undefined) continue;
    if (found === null) found = O.create(null);
    for (let j = 0; j < list.length; j++) found[list[j]] = true;
  }
  const tags = [];
  if (found === null) return tags;
  for (let i = 0; i < TAG_ORDER.length; i++) if (found[TAG_ORDER[i]] === true) tags[tags.length] = TAG_ORDER[i];
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
// The same, as [name, object] pairs, read once here, before any wrapper is in place.
const singletonList = [];
const isWindow = realm === "main" || realm === "iframe";
for (let i = 0; i < singletonNames.length; i++) {
  const name = singletonNames[i];
  // Chromium crashes the renderer when a worker paused on start reads `location`.
  if (!isWindow && name === "location") continue;
  try {
    const value = g[name];
    if (value !== null && typeof value === "object") {
      apply(wmSet, singletons, [value, name]);
      singletonList[singletonList.length] = [name, value];
    }
  } catch (_) {
    // a getter that refuses here (storage in an opaque origin): named by its interface instead.
  }
}

// ---- watched properties: cells and generations ---------------------------------------------
//
// A cell is one watched property: own property `name` of `holder`. Its generation (`prop`) is
// the definition the probe records for it now: `d`, the descriptor as defined with the probe's
// wrappers taken off (the functions that really run), and `facts`, measured on `d` and the
// holder at the first access. Every redefinition the probe sees (Object.defineProperty,
// Object.defineProperties, Reflect.defineProperty, __defineGetter__/__defineSetter__, an
// assignment to a data property it emulates) gives the cell a new generation; a wrapper records
// the generation it was made or re-adopted for.
//
// The page sees its own definitions: where the probe keeps recording a property the page
// defined, the real property holds the probe's wrapper (for a data property: an accessor pair
// that emulates it) and the descriptor readers (Object.getOwnPropertyDescriptor(s),
// Reflect.getOwnPropertyDescriptor, __lookupGetter__/__lookupSetter__) show the page's own
// functions or value: the cell's `view`. Properties the browser defined show the wrappers, as
// they always did (`view` null).

const isExtensible = O.isExtensible;
const objectIs = O.is;
const cells = new WeakMapC(); // holder -> null-prototype map "$name" -> cell
const watchedNames = O.create(null); // "$name" -> true, for every name some cell watches
const handlers = new WeakMapC(); // a wrapper -> its Proxy handler (prop, cell, kind)
const originals = new WeakMapC(); // a wrapper -> the function it wraps
const installed = new WeakMapC(); // a function put in place of the page's own -> its cell
const wrapperOf = new WeakMapC(); // a wrapped function -> its first wrapper

function isObject(value) {
  return (typeof value === "object" && value !== null) || typeof value === "function";
}

function own(object, key) {
  return apply(hasOwnProperty, object, [key]);
}

// A descriptor as a null-prototype record, so that page changes to Object.prototype never leak
// into reading it or defining with it.
function accessorRecord(get, set, enumerable, configurable) {
  const d = O.create(null);
  d.get = get;
  d.set = set;
  d.enumerable = !!enumerable;
  d.configurable = !!configurable;
  return d;
}
function dataRecord(value, writable, enumerable, configurable) {
  const d = O.create(null);
  d.value = value;
  d.writable = !!writable;
  d.enumerable = !!enumerable;
  d.configurable = !!configurable;
  return d;
}
function plain(d) {
  if (d === undefined) return undefined;
  if (own(d, "get") || own(d, "set")) return accessorRecord(d.get, d.set, d.enumerable, d.configurable);
  return dataRecord(d.value, d.writable, d.enumerable, d.configurable);
}
function isAccessor(d) {
  return "get" in d;
}
function same(a, b) {
  if (isAccessor(a) !== isAccessor(b) || a.enumerable !== b.enumerable || a.configurable !== b.configurable) {
    return false;
  }
  if (isAccessor(a)) return a.get === b.get && a.set === b.set;
  return a.writable === b.writable && objectIs(a.value, b.value);
}

// The real own property `name` of `object`, as a record; undefined when there is none.
function realOf(object, name) {
  try {
    return plain(gopd(object, name));
  } catch (_) {
    return undefined;
  }
}

function unwrap(f) {
  const original = typeof f === "function" ? apply(wmGet, originals, [f]) : undefined;
  return original === undefined ? f : original;
}

function cellAt(holder, name) {
  const map = apply(wmGet, cells, [holder]);
  if (map === undefined) return null;
  const cell = map["$" + name];
  return cell === undefined ? null : cell;
}

// The nearest cell for `name` on the prototype chain of `object` (itself excluded).
function inheritedCell(object, name) {
  let p = object;
  for (let i = 0; i < 64; i++) {
    try {
      p = getProto(p);
    } catch (_) {
      return null;
    }
    if (p === null) return null;
    const cell = cellAt(p, name);
    if (cell !== null) return cell;
  }
  return null;
}

// mode: "get" (an accessor: gets and sets are recorded), "call" (a method: calls are recorded),
// "construct" (a constructor). `native` is the browser's own descriptor of the first cell for
// the property; a cell for the same property lower on a chain copies it from the cell above.
function newCell(holder, name, mode, iface, api, onPrototype, native) {
  const cell = {
    holder: holder,
    name: name,
    mode: mode,
    iface: iface,
    api: api,
    onPrototype: onPrototype,
    native: native,
    gen: null,
    real: null,
    view: null,
  };
  let map = apply(wmGet, cells, [holder]);
  if (map === undefined) {
    map = O.create(null);
    apply(wmSet, cells, [holder, map]);
  }
  map["$" + name] = cell;
  watchedNames["$" + name] = true;
  return cell;
}

// A generation of `cell` for definition `d`. The hooks (side effects, stateful families) describe
// what the browser's own functions do, so a definition of the page's own gets none.
function generation(cell, d) {
  const native = cell.native;
  const isNative = isAccessor(d)
    ? isAccessor(native) && d.get === native.get && d.set === native.set
    : !isAccessor(native) && d.value === native.value;
  return {
    cell: cell,
    holder: cell.holder,
    name: cell.name,
    d: d,
    iface: cell.iface,
    api: cell.api,
    onPrototype: cell.onPrototype,
    facts: null,
    volatile: false,
    sampled: 0,
    lastProto: undefined,
    tags: null,
    hook: isNative ? HOOKS[cell.api] || null : null,
    after: isNative ? AFTER[cell.api] || null : null,
  };
}

function propFacts(prop) {
  if (prop.facts === null) {
    prop.facts = M.measureProperty(prop.holder, prop.name, prop.d);
    // A data property read or written where an accessor is expected has, measured, no getter and
    // no setter.
    if (prop.cell.mode === "get" && !isAccessor(prop.d)) {
      prop.facts.getterOwner = null;
      prop.facts.setterOwner = null;
    }
  }
  return prop.facts;
}

// The api path for a prototype member reached on `receiver`.
function apiFor(prop, receiver) {
  if (!prop.onPrototype) return prop.api;
  // A member of the global's chain reached on the global (`self.navigator` in a worker): by its
  // name, as a global's own member is.
  if (receiver === g && WALK) return prop.name;
  if (receiver !== null && (typeof receiver === "object" || typeof receiver === "function")) {
    const name = apply(wmGet, singletons, [receiver]);
    if (name !== undefined) return name + "." + prop.name;
  }
  return prop.api;
}

function complete(record, prop, receiver, args, result, threw, error, measureResult) {
  busy++;
  try {
    record.fx = propFacts(prop);
    if (prop.volatile === true) record.fxWhole = true;
    record.api = apiFor(prop, receiver);
    record.receiver = M.receiverName(receiver);
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
      if ((measureResult === true ||
           (measureResult === "objects" && result !== null &&
            (typeof result === "object" || typeof result === "function"))) &&
          sampleValue(prop, result)) {
        M.measureValue(result, record);
      }
    }
    if (prop.tags === null) prop.tags = tagsFor(prop.iface, prop.api);
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

// Whether this access measures the structure of its value (brand, constructor name, instanceof,
// prototype chain, the own-key lists): the first VALUE_SAMPLES accesses of a definition do, and
// any whose value has another prototype (or type) than the last one measured; the others leave
// those fields absent, not sampled. Enumerating the own keys of some host objects is costly (an
// element's `style` has some 750 names), and a loop reads the same kind of value again and again.
const VALUE_SAMPLES = 10;
function sampleValue(prop, value) {
  let kind;
  if (value !== null && (typeof value === "object" || typeof value === "function")) {
    try {
      kind = getProto(value);
    } catch (_) {
      kind = null;
    }
  } else {
    kind = typeof value;
  }
  if (prop.sampled < VALUE_SAMPLES || kind !== prop.lastProto) {
    prop.sampled++;
    prop.lastProto = kind;
    return true;
  }
  return false;
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

// An error the browser threw itself, with no page frame between it and the probe's trap `above`
// (a getter called on the wrong receiver): its stack is captured again from the trap's caller,
// so that it holds as many of the page's frames as Error.stackTraceLimit gives it without the
// probe, not one fewer. The property keeps its shape (Chromium's own accessor pair). Left to
// `cleanStack` when the page formats stacks itself (Error.prepareStackTrace) or when page code
// threw it (a callback the browser called: its frames are the stack).
const ErrorC = Error;
const captureStack = typeof ErrorC.captureStackTrace === "function" ? ErrorC.captureStackTrace : null;
const atPrefix = "    at ";
function restack(error, above) {
  try {
    if (captureStack === null || error === null || typeof error !== "object") return false;
    const pd = gopd(ErrorC, "prepareStackTrace");
    if (pd !== undefined && (pd.value !== undefined || typeof pd.get === "function")) return false;
    const d = gopd(error, "stack");
    if (!d || !apply(hasOwnProperty, d, ["get"]) || typeof d.get !== "function") return false;
    const text = apply(d.get, error, []);
    if (typeof text !== "string") return false;
    const lines = apply(strSplit, text, ["\n"]);
    for (let i = 0; i < lines.length; i++) {
      if (apply(strIndexOf, lines[i], [atPrefix]) !== 0) continue;
      if (apply(strIndexOf, lines[i], [config.ownUrl]) < 0) return false;
      apply(captureStack, ErrorC, [error, above]);
      return true;
    }
  } catch (_) {
    // leave it to cleanStack
  }
  return false;
}

// Makes `wrapper` read as `original`: its source text is taken from the original the first time
// it is asked for (most of the thousands of wrappers never are: install stays cheap).
function disguise(wrapper, original) {
  apply(wmSet, sourceFrom, [wrapper, original]);
  // A function of another realm (a jsdom or happy-dom interface: the environment's own module
  // code made it) reads its source through that realm's Function.prototype.toString.
  let proto = null;
  try {
    proto = getProto(original);
  } catch (_) {
    proto = null;
  }
  if (proto !== null && proto !== functionProto && typeof proto === "function") {
    let known = false;
    for (let i = 0; i < foreignFunctionProtos.length; i++) {
      if (foreignFunctionProtos[i] === proto) known = true;
    }
    if (!known) foreignFunctionProtos[foreignFunctionProtos.length] = proto;
  }
  return wrapper;
}
const sourceFrom = new WeakMapC(); // a wrapper -> the function whose source it shows
// The source text a wrapper shows, or undefined for a function that is not one.
function sourceText(f) {
  const known = apply(wmGet, sources, [f]);
  if (known !== undefined) return known;
  const original = apply(wmGet, sourceFrom, [f]);
  if (original === undefined) return undefined;
  let source;
  try {
    source = apply(fnToString, original, []);
  } catch (_) {
    source = "function () { [native code] }";
  }
  apply(wmSet, sources, [f, source]);
  return source;
}
const functionProto = Function.prototype;
// Other realms' Function.prototype among the wrapped functions' prototypes (see `disguise`).
const foreignFunctionProtos = [];

// A Proxy trap that records one access of the generation its handler holds (`this[field]`: the
// handler is the trap's `this`).
function callTrap(accessType, measureResult, field) {
  const trap = function (target, thisArg, args) {
    const prop = this[field];
    if (busy) return apply(target, thisArg, args);
    const record = begin(prop, accessType);
    let result;
    let threw = false;
    let error;
    inside++;
    try {
      result = apply(target, thisArg, args);
    } catch (e) {
      threw = true;
      error = e;
      if (!restack(e, trap)) cleanStack(e);
    } finally {
      inside--;
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
    if (ENTER_REALMS && accessType === "get" && (prop.name === "contentWindow" || prop.name === "contentDocument")) {
      enterRealm(result);
    }
    return result;
  };
  return trap;
}

// The audit (`config.enterRealms`): a frame's window that no script ever runs in (a page that
// measures fonts in an iframe it drives from outside) would never get the probe, which the tool
// puts in a realm at the pause before a script runs there. When the page first reaches such a
// window, one empty script of the tool's own runs in it (its `eval` of ""), so that the tool's
// pause before it installs the probe there before the page touches anything in it.
const ENTER_REALMS = config.enterRealms === true;
const enteredRealms = new WeakMapC();
function enterRealm(value) {
  try {
    // Once per object the page reached (a document's `defaultView` is read only the first time,
    // while its realm has no probe whose wrapper would record the read).
    if (value === null || typeof value !== "object" || isGlobalAlias(value) || apply(wmHas, enteredRealms, [value])) return;
    apply(wmSet, enteredRealms, [value, true]);
    const win = value.defaultView !== undefined ? value.defaultView : value;
    if (win === null || typeof win !== "object" || isGlobalAlias(win) || apply(wmHas, enteredRealms, [win])) return;
    apply(wmSet, enteredRealms, [win, true]);
    // Only the realm's own `eval` (never a function the page put there, whose call would run
    // the page's code).
    const d = gopd(win, "eval");
    const childEval = d !== undefined && own(d, "value") ? d.value : undefined;
    if (typeof childEval !== "function" || childEval === g.eval) return;
    let source = "";
    try {
      source = apply(fnToString, childEval, []);
    } catch (_) {
      return;
    }
    if (source === "function eval() { [native code] }") apply(childEval, win, [""]);
  } catch (_) {
    // a window that refuses (another origin's): left as it is.
  }
}

const TRAPS = O.create(null);
TRAPS.get = callTrap("get", true, "prop");
TRAPS.set = callTrap("set", false, "prop");
TRAPS.call = callTrap("call", "objects", "prop");

// A handler without a prototype: a trap name the page defines on Object.prototype is never
// taken for one of ours.
function handlerOf(fields) {
  const handler = O.create(null);
  const keys = ownKeysOf(fields);
  for (let i = 0; i < keys.length; i++) handler[keys[i]] = fields[keys[i]];
  return handler;
}

// A recording wrapper around `f` (the function itself when `f` is a wrapper already) for
// generation `prop` of `cell`.
function wrapFn(f, cell, prop, kind) {
  const target = unwrap(f);
  const handler = handlerOf({ apply: TRAPS[kind], prop: prop, cell: cell, kind: kind });
  const proxy = disguise(new ProxyC(target, handler), target);
  apply(wmSet, handlers, [proxy, handler]);
  apply(wmSet, originals, [proxy, target]);
  if (!apply(wmHas, wrapperOf, [target])) apply(wmSet, wrapperOf, [target, proxy]);
  return proxy;
}

// Whether `f` is the wrapper of this kind the probe made for `cell`.
function ownWrapper(f, cell, kind) {
  if (typeof f !== "function") return false;
  const handler = apply(wmGet, handlers, [f]);
  return handler !== undefined && handler.cell === cell && handler.kind === kind;
}

// From now on, wrapper `f` records generation `prop`.
function repoint(f, prop) {
  if (typeof f === "function") apply(wmGet, handlers, [f]).prop = prop;
  return f;
}

// The accessor pair that stands for a data property the page defined on an accessor's cell: a
// get returns the value, a set (writable only) stores it, each recorded.
function emulatedGet(prop) {
  return function () {
    const value = prop.d.value;
    if (busy) return value;
    const record = begin(prop, "get");
    complete(record, prop, this, null, value, false, undefined, true);
    return value;
  };
}
function emulatedSet(prop) {
  const cell = prop.cell;
  return function (value) {
    const receiver = this;
    if (!busy) complete(begin(prop, "set"), prop, receiver, [value], undefined, false, undefined, false);
    if (receiver === cell.holder) {
      prop.d.value = value;
      prop.facts = null;
      // Its facts change with every write: they travel whole, so the recorder keeps none of them.
      prop.volatile = true;
      return;
    }
    // Inherited writable data property: the assignment defines an own data property on the
    // receiver (OrdinarySet), itself a redefinition the probe then records.
    if (!isObject(receiver)) return;
    const name = cell.name;
    const existing = realOf(receiver, name);
    if (existing !== undefined) {
      if (isAccessor(existing) || !existing.writable) return;
      const update = O.create(null);
      update.value = value;
      redefine(receiver, name, function () { defineProperty(receiver, name, update); });
      return;
    }
    if (!isExtensible(receiver)) return;
    redefine(receiver, name, function () {
      defineProperty(receiver, name, dataRecord(value, true, true, true));
    });
  };
}

// The property as the page sees it: its own definition (`cell.view`) with the real property's
// flags (a freeze the probe did not see still shows).
function pageDescriptor(cell, real, forPage) {
  const view = cell.view;
  if (isAccessor(view)) {
    return forPage
      ? { get: view.get, set: view.set, enumerable: real.enumerable, configurable: real.configurable }
      : accessorRecord(view.get, view.set, real.enumerable, real.configurable);
  }
  const d = cell.gen.d;
  return forPage
    ? { value: d.value, writable: d.writable, enumerable: real.enumerable, configurable: real.configurable }
    : dataRecord(d.value, d.writable, real.enumerable, real.configurable);
}

// Whether the real property `d` is still the one the probe last put in place for `cell`.
function isLive(cell, d) {
  const real = cell.real;
  if (real === null || d === undefined || isAccessor(real) !== isAccessor(d)) return false;
  return isAccessor(d) ? d.get === real.get && d.set === real.set : objectIs(d.value, real.value);
}

// Takes property `P` (as it now is on the cell's holder) as the cell's new definition and puts
// the probe's wrapper in place. `initial`: the browser's own definition at install time, whose
// wrappers the page sees as before; a later definition is the page's, and the page keeps seeing
// it (the cell's view). Where P still holds this cell's own wrappers they record the new
// generation and nothing is redefined. Otherwise a definition that is not configurable is left
// exactly as the page made it and is no longer recorded; so is a method replaced by a function
// that is not the probe's (calling page code is not a host access).
function adopt(cell, P, initial) {
  cell.gen = null;
  cell.real = null;
  cell.view = null;
  if (P === undefined) return;
  let real = null;
  let hidden = false;
  if (isAccessor(P)) {
    const keepGet = typeof P.get !== "function" || ownWrapper(P.get, cell, "get");
    const keepSet = typeof P.set !== "function" || ownWrapper(P.set, cell, "set");
    if ((!keepGet || !keepSet) && !P.configurable) return;
    const prop = generation(cell, accessorRecord(unwrap(P.get), unwrap(P.set), P.enumerable, P.configurable));
    const get = keepGet ? repoint(P.get, prop) : wrapFn(P.get, cell, prop, "get");
    const set = keepSet ? repoint(P.set, prop) : wrapFn(P.set, cell, prop, "set");
    if (!keepGet || !keepSet) {
      real = accessorRecord(get, set, P.enumerable, true);
      hidden = !initial;
    }
    cell.gen = prop;
  } else if (cell.mode === "get") {
    if (!P.configurable) return;
    const prop = generation(cell, dataRecord(P.value, P.writable, P.enumerable, P.configurable));
    real = accessorRecord(emulatedGet(prop), P.writable ? emulatedSet(prop) : undefined, P.enumerable, true);
    hidden = true;
    cell.gen = prop;
  } else {
    const keep = ownWrapper(P.value, cell, cell.mode);
    if (!keep && (!initial || typeof P.value !== "function")) return;
    const prop = generation(cell, dataRecord(unwrap(P.value), P.writable, P.enumerable, P.configurable));
    if (keep) {
      repoint(P.value, prop);
    } else {
      real = dataRecord(wrapFn(P.value, cell, prop, "call"), P.writable, P.enumerable, true);
    }
    cell.gen = prop;
  }
  if (real !== null) {
    defineProperty(cell.holder, cell.name, real);
    if (hidden) {
      cell.view = P;
      if (typeof real.get === "function") apply(wmSet, installed, [real.get, cell]);
      if (typeof real.set === "function") apply(wmSet, installed, [real.set, cell]);
    }
  }
  cell.real = real !== null ? real : P;
}

// Runs the page's definition of property `name` of `object` (`operation`) and, when the name is
// watched there, takes the result as the property's new definition. The page's own view is put
// back in place first, so that a partial descriptor merges with what the page sees and the
// browser's own checks (and error messages) apply to it; a failed definition leaves things as
// they were.
function redefine(object, name, operation) {
  if (watchedNames["$" + name] !== true) return operation();
  const ownCell = cellAt(object, name);
  const base = ownCell !== null ? ownCell : inheritedCell(object, name);
  if (base === null) return operation();
  const before = realOf(object, name);
  let restored = false;
  if (ownCell !== null && ownCell.view !== null && isLive(ownCell, before)) {
    try {
      defineProperty(object, name, pageDescriptor(ownCell, before, false));
      restored = true;
    } catch (_) {
      // frozen since: the page's definition meets the real property
    }
  }
  let result;
  try {
    result = operation();
  } catch (e) {
    if (restored) defineProperty(object, name, before);
    throw e;
  }
  if (result === false) {
    if (restored) defineProperty(object, name, before);
    return result;
  }
  const cell = ownCell !== null ? ownCell
    : newCell(object, name, base.mode, base.iface, base.api, base.onPrototype, base.native);
  adopt(cell, realOf(object, name), false);
  return result;
}

// The names watched on `object` or its prototype chain.
function watchedAround(object) {
  const names = [];
  const seen = O.create(null);
  let p = object;
  for (let i = 0; p !== null && i < 64; i++) {
    const map = apply(wmGet, cells, [p]);
    if (map !== undefined) {
      const keys = ownKeysOf(map);
      for (let j = 0; j < keys.length; j++) {
        if (seen[keys[j]] === true) continue;
        seen[keys[j]] = true;
        names[names.length] = apply(strSlice, keys[j], [1]);
      }
    }
    try {
      p = getProto(p);
    } catch (_) {
      break;
    }
  }
  return names;
}

// `redefine` for a definition of any number of properties (Object.defineProperties): every
// watched name is checked before and after, and those that changed are taken.
function redefineMany(object, operation) {
  const names = watchedAround(object);
  if (names.length === 0) return operation();
  const before = [];
  const restored = [];
  for (let i = 0; i < names.length; i++) {
    const d = realOf(object, names[i]);
    const cell = cellAt(object, names[i]);
    before[i] = d;
    restored[i] = false;
    if (cell !== null && cell.view !== null && isLive(cell, d)) {
      try {
        defineProperty(object, names[i], pageDescriptor(cell, d, false));
        restored[i] = true;
      } catch (_) {
        // frozen since
      }
    }
  }
  let result;
  try {
    result = operation();
  } catch (e) {
    for (let i = 0; i < names.length; i++) if (restored[i]) defineProperty(object, names[i], before[i]);
    throw e;
  }
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const now = realOf(object, name);
    if (now === undefined) continue;
    const ownCell = cellAt(object, name);
    const was = restored[i] ? pageDescriptor(ownCell, before[i], false) : before[i];
    if (was !== undefined && same(was, now)) {
      if (restored[i]) defineProperty(object, name, before[i]);
      continue;
    }
    const base = ownCell !== null ? ownCell : inheritedCell(object, name);
    if (base === null) continue;
    const cell = ownCell !== null ? ownCell
      : newCell(object, name, base.mode, base.iface, base.api, base.onPrototype, base.native);
    adopt(cell, now, false);
  }
  return result;
}

let wrapped = 0;

// Wraps own property `name` of `holder`: accessors (get/set) and methods (call). With `data`
// (a single member the API list names, such as `window.name`), a data property that holds no
// function is recorded too: an accessor pair emulates it and the page sees its own data
// descriptor (as for a data property the page defines, see `adopt`).
function wrapMember(holder, name, iface, api, onPrototype, data, readOnly) {
  if (name === "constructor" || cellAt(holder, name) !== null || excluded(iface, api)) return;
  if (walking && !knownMember(name)) return;
  const d = realOf(holder, name);
  if (d === undefined || !d.configurable) return;
  if (walking && (apply(wmHas, languageFns, [d.value]) || apply(wmHas, languageFns, [d.get]))) return;
  let mode;
  if (isAccessor(d) || (readOnly && data)) {
    mode = "get";
  } else if (typeof d.value === "function" && !isConstructorLike(d.value)) {
    mode = "call";
    // A second name for a method already wrapped (`Date.prototype.toGMTString` is
    // `toUTCString`): the same wrapper, so that the page still finds them one function.
    const wrapper = apply(wmGet, wrapperOf, [d.value]);
    if (wrapper !== undefined) {
      defineProperty(holder, name, dataRecord(wrapper, d.writable, d.enumerable, true));
      return;
    }
  } else if (data && typeof d.value !== "function") {
    mode = "get";
  } else {
    return;
  }
  adopt(newCell(holder, name, mode, iface, api, onPrototype, d), d, true);
  wrapped++;
}

function isConstructorLike(f) {
  const p = gopd(f, "prototype");
  return !!(p && p.value !== null && typeof p.value === "object" && gopd(p.value, "constructor"));
}

// Wraps a constructor held as property `name` of `holder` (construct and call).
function wrapConstructor(holder, name, path) {
  if (cellAt(holder, name) !== null || excluded(path, path)) return null;
  if (walking && !knownMember(name)) return null;
  const d = realOf(holder, name);
  if (d === undefined || isAccessor(d) || typeof d.value !== "function" || !d.configurable) return null;
  const C = d.value;
  const cell = newCell(holder, name, "construct", path, path, false, d);
  const prop = generation(cell, d);
  let proxy = null;
  const handler = handlerOf({
    construct: function constructTrap(target, args, newTarget) {
      const prop = this.prop;
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
      inside++;
      try {
        result = construct(target, callArgs, nt);
      } catch (e) {
        threw = true;
        error = e;
        if (!restack(e, constructTrap)) cleanStack(e);
      } finally {
        inside--;
      }
      complete(record, prop, holder, args, result, threw, error, true);
      if (threw) throw error;
      return result;
    },
    apply: TRAPS.call,
    prop: prop,
    cell: cell,
    kind: "construct",
  });
  proxy = disguise(new ProxyC(C, handler), C);
  apply(wmSet, handlers, [proxy, handler]);
  apply(wmSet, originals, [proxy, C]);
  apply(wmSet, wrapperOf, [C, proxy]);
  const real = dataRecord(proxy, d.writable, d.enumerable, true);
  defineProperty(holder, name, real);
  cell.gen = prop;
  cell.real = real;
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
  if (found === null) {
    if (includes(ASKED, path)) missing[missing.length] = path;
    return;
  }
  // A name watched only for being read (Node's own globals in a Node realm: `Buffer`, `process`):
  // its reads are recorded, whatever it holds; nothing it holds is wrapped.
  if (includes(READ_ONLY, path)) {
    const bare = apply(strSlice, path, [path.indexOf(".") + 1]);
    if (found.holder === g) wrapMember(g, found.name, bare, bare, false, true, true);
    return;
  }
  const value = found.value;
  const parts = apply(strSplit, path, ["."]);
  const bare = parts[0] === "window" || parts[0] === "self" || parts[0] === "globalThis"
    ? apply(strSlice, path, [parts[0].length + 1])
    : path;
  if (typeof value === "function") namePath(value, bare);
  if (typeof value === "function" && isConstructorLike(value)) {
    if (excluded(bare, bare)) return;
    const proto = gopd(value, "prototype").value;
    // A legacy factory function (`Image`, `Audio`, `Option`) shares another interface's
    // prototype: that interface's members are named by it, and only the factory is wrapped here.
    if (gopd(proto, "constructor").value !== value) {
      wrapConstructor(found.holder, found.name, bare);
      return;
    }
    const keys = ownKeysOf(proto);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (typeof key === "symbol") continue;
      wrapMember(proto, key, bare, bare + ".prototype." + key, true);
    }
    aliasSymbols(proto);
    wrapHiddenBases(proto);
    const statics = ownKeysOf(value);
    for (let i = 0; i < statics.length; i++) {
      const key = statics[i];
      if (typeof key === "symbol" || key === "prototype" || key === "length" || key === "name") continue;
      const sd = gopd(value, key);
      if (sd && typeof sd.value === "function") namePath(sd.value, bare + "." + key);
      if (sd && (typeof sd.value === "function" || sd.get)) {
        wrapMember(value, key, bare, bare + "." + key, false);
      }
    }
    wrapConstructor(found.holder, found.name, bare);
  } else if (value !== null && typeof value === "object" && found.holder === g &&
             (includes(NAMESPACES, bare) || (WALK && walkingNamespaces))) {
    if (excluded(bare, bare)) return;
    const keys = ownKeysOf(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (typeof key === "symbol") continue;
      const sd = gopd(value, key);
      if (sd && typeof sd.value === "function") namePath(sd.value, bare + "." + key);
      if (sd && ((typeof sd.value === "function" && !isConstructorLike(sd.value)) || sd.get)) {
        wrapMember(value, key, bare, bare + "." + key, false);
      } else if (WALK && sd && typeof sd.value === "function") {
        // A namespace's interfaces (`Intl.DateTimeFormat`, `WebAssembly.Module`).
        install(bare + "." + key);
      }
    }
    aliasSymbols(value);
  } else {
    const onPrototype = parts.length >= 3 && parts[parts.length - 2] === "prototype";
    const iface = onPrototype ? apply(strSlice, path, [0, path.length - parts[parts.length - 1].length - 11]) : bare;
    wrapMember(found.holder, found.name, iface, bare, onPrototype, true);
  }
}

// An environment may hold an interface's members on a base class the realm does not expose
// (happy-dom's per-window `Document extends` its module's own `Document`): the members of each
// prototype above `proto` that is not a global interface's own are wrapped too, under the name of
// their own constructor. A browser's chain holds only exposed interfaces, so it stops at once.
function wrapHiddenBases(proto) {
  let p = getProto(proto);
  for (let depth = 0; p !== null && p !== O.prototype && depth < 8; depth++) {
    const cd = gopd(p, "constructor");
    const ctor = cd ? cd.value : undefined;
    if (typeof ctor !== "function") return;
    const nd = gopd(ctor, "name");
    const name = nd && typeof nd.value === "string" ? nd.value : "";
    // Another realm's Object.prototype or Function.prototype is no base of an interface's.
    if (name === "" || name === "Object" || name === "Function") return;
    let exposed;
    try {
      exposed = gopd(g, name);
    } catch (_) {
      exposed = undefined;
    }
    if (exposed !== undefined && exposed.value === ctor) return;
    const keys = ownKeysOf(p);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (typeof key === "symbol") continue;
      if (!knownMember(key)) continue;
      wrapMember(p, key, name, name + ".prototype." + key, true);
    }
    p = getProto(p);
  }
}

// A singleton of a watched interface (`navigator`, `screen`, ...) may hold members of its own (an
// environment defined them on the instance, accessors or plain data such as happy-dom's
// `screen.colorDepth`, where a browser holds them on the prototype; a browser's singletons have
// none that can be wrapped): they are recorded too, under the same api path
// (`navigator.userAgent`), so that their owner is what is compared.
function watchSingletonOwnMembers() {
  // The singletons as read before any wrapper was in place: reading them now would record the
  // probe's own reads.
  for (let i = 0; i < singletonList.length; i++) {
    const name = singletonList[i][0];
    const value = singletonList[i][1];
    const iface = M.receiverName(value);
    if (!includes(apis, iface)) continue;
    // Its prototype is not the realm's own `iface.prototype` (happy-dom's window hands out Node's
    // own `performance`): that prototype's members are the singleton's, and recorded as such.
    let proto = null;
    try {
      proto = getProto(value);
    } catch (_) {
      proto = null;
    }
    const exposed = gopd(g, iface);
    const exposedProto = exposed && typeof exposed.value === "function" ? gopd(exposed.value, "prototype") : undefined;
    if (proto !== null && proto !== O.prototype && (!exposedProto || exposedProto.value !== proto)) {
      const protoKeys = ownKeysOf(proto);
      for (let k = 0; k < protoKeys.length; k++) {
        const key = protoKeys[k];
        if (typeof key !== "string" || !knownMember(key)) continue;
        wrapMember(proto, key, iface, iface + ".prototype." + key, true);
      }
      wrapHiddenBases(proto);
    }
    const keys = ownKeysOf(value);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k];
      if (typeof key !== "string") continue;
      const inherited = inheritedCell(value, key);
      wrapMember(value, key, inherited === null ? iface : inherited.iface, name + "." + key, false, true);
    }
  }
}

const NAMESPACES = ["Math", "JSON", "Intl", "Atomics", "console", "CSS"];

// What an environment holds where a browser has nothing the list watches (an interface's members on
// a base class the realm does not expose, a prototype of another realm) is watched only for the
// member names the reference trace has (`config.knownMembers`, given by the audit): the browser
// could not have recorded the others, and the check must not take them for new host APIs. Without
// the list (`tracer record`), everything.
const KNOWN_MEMBERS = config.knownMembers ? O.create(null) : null;
if (KNOWN_MEMBERS !== null) {
  for (let i = 0; i < config.knownMembers.length; i++) KNOWN_MEMBERS["$" + config.knownMembers[i]] = true;
}
function knownMember(name) {
  return KNOWN_MEMBERS === null || KNOWN_MEMBERS["$" + name] === true;
}
// Entries of the list watched only for being read (see `install`).
const READ_ONLY = config.readOnly || [];

// Remembers the first global path a function was reached by.
function namePath(f, path) {
  if (apply(wmGet, globalPaths, [f]) === undefined) apply(wmSet, globalPaths, [f, path]);
}

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

// ---- requests: what a request-making call asks for ------------------------------------------
//
// The `request` field of an XMLHttpRequest.prototype.send, fetch or Navigator.prototype.sendBeacon
// line: {method, url, headerNames, body: {shape, value, length}}. Everything is read with the
// browser's own functions saved here, before any wrapping, and never by running page code: a
// page object's accessor is not called, an iterable other than an array or Headers is not
// iterated, and a body stream is only recognised, never read. A field that cannot be read that
// way is left out (absent = not sampled).

// The function in slot `part` ("get", "set" or "value") of `C.prototype[name]`'s descriptor.
function savedPart(C, name, part) {
  try {
    const d = typeof C === "function" ? gopd(C.prototype, name) : undefined;
    return d && typeof d[part] === "function" ? d[part] : null;
  } catch (_) {
    return null;
  }
}
function savedGetter(C, name) {
  return savedPart(C, name, "get");
}
function savedSetter(C, name) {
  return savedPart(C, name, "set");
}
function savedMethod(C, name) {
  return savedPart(C, name, "value");
}

const URLC = typeof g.URL === "function" ? g.URL : null;
const urlHref = savedGetter(g.URL, "href");
const urlSetUsername = savedSetter(g.URL, "username");
const urlSetPassword = savedSetter(g.URL, "password");
const documentNode = isWindow && g.document ? g.document : null;
const nodeBaseURI = savedGetter(g.Node, "baseURI");
const workerLocation = savedGetter(g.WorkerGlobalScope, "location");
const locationHref = savedGetter(g.WorkerLocation, "href");
const blobSize = savedGetter(g.Blob, "size");
const searchParamsText = savedMethod(g.URLSearchParams, "toString");
const formDataHas = savedMethod(g.FormData, "has");
const bufferLength = savedGetter(g.ArrayBuffer, "byteLength");
const sharedBufferLength = savedGetter(g.SharedArrayBuffer, "byteLength");
const isView = typeof ArrayBuffer === "function" ? ArrayBuffer.isView : null;
const typedArrayLength = typeof Uint8Array === "function" ? savedGetter(getProto(Uint8Array), "byteLength") : null;
const dataViewLength = savedGetter(g.DataView, "byteLength");
const streamLocked = savedGetter(g.ReadableStream, "locked");
const requestMethod = savedGetter(g.Request, "method");
const requestUrl = savedGetter(g.Request, "url");
const headersForEach = savedMethod(g.Headers, "forEach");
const isArray = Array.isArray;
const keysOf = O.keys;
const iteratorSymbol = Symbol.iterator;
const charCodeAt = String.prototype.charCodeAt;
const fromCharCode = String.fromCharCode;
const toWellFormed = typeof String.prototype.toWellFormed === "function" ? String.prototype.toWellFormed : null;
// Marks a value that cannot be read without running page code.
const UNREAD = O.create(null);

// `f` called on `value`, or UNREAD when it refuses (`value` is not of its kind).
function tryCall(f, value, args) {
  if (f === null) return UNREAD;
  try {
    return apply(f, value, args);
  } catch (_) {
    return UNREAD;
  }
}

function isPrimitive(value) {
  return value === null || (typeof value !== "object" && typeof value !== "function");
}

// The value of member `name` of dictionary `object` (own or inherited), or UNREAD when it is an
// accessor (calling it would run page code).
function dataMember(object, name) {
  let p = object;
  for (let i = 0; p !== null && i < 64; i++) {
    let d;
    try {
      d = gopd(p, name);
    } catch (_) {
      return UNREAD;
    }
    if (d !== undefined) return own(d, "value") ? d.value : UNREAD;
    try {
      p = getProto(p);
    } catch (_) {
      return UNREAD;
    }
  }
  return undefined;
}

// The document's base URL (a worker: its location).
function baseURL() {
  try {
    if (documentNode !== null && nodeBaseURI !== null) return apply(nodeBaseURI, documentNode, []);
    if (workerLocation !== null && locationHref !== null) {
      return apply(locationHref, apply(workerLocation, g, []), []);
    }
  } catch (_) {
    // no base: leave the URL out
  }
  return undefined;
}

// A URL argument as the browser turns it into text: primitives as String() does, a URL object
// by its href; anything else would run page code (UNREAD).
function urlText(value) {
  if (typeof value === "symbol") return UNREAD;
  if (isPrimitive(value)) return StringOf(value);
  return tryCall(urlHref, value, []);
}

// The absolute URL `value` names, parsed by the browser's URL parser against the base URL;
// username and password set as XMLHttpRequest.open sets them. Undefined when unknown.
function absoluteURL(value, username, password) {
  const text = urlText(value);
  if (text === UNREAD || URLC === null || urlHref === null) return undefined;
  const base = baseURL();
  try {
    const url = construct(URLC, base === undefined ? [text] : [text, base]);
    if (username !== undefined && username !== null && isPrimitive(username) && urlSetUsername !== null) {
      apply(urlSetUsername, url, [StringOf(username)]);
    }
    if (password !== undefined && password !== null && isPrimitive(password) && urlSetPassword !== null) {
      apply(urlSetPassword, url, [StringOf(password)]);
    }
    return apply(urlHref, url, []);
  } catch (_) {
    return undefined;
  }
}

// A method as XMLHttpRequest and fetch normalize it: DELETE, GET, HEAD, OPTIONS, POST and PUT
// upper-cased whatever their case (ASCII), any other method as given.
const NORMALIZED_METHODS = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"];
function normalizeMethod(value) {
  if (typeof value === "symbol" || !isPrimitive(value)) return undefined;
  const text = StringOf(value);
  let upper = "";
  for (let i = 0; i < text.length; i++) {
    const c = apply(charCodeAt, text, [i]);
    upper += c >= 97 && c <= 122 ? fromCharCode(c - 32) : text[i];
  }
  return includes(NORMALIZED_METHODS, upper) ? upper : text;
}

// The UTF-8 length of a string with no lone surrogate.
function utf8Length(text) {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = apply(charCodeAt, text, [i]);
    if (c < 0x80) {
      n += 1;
    } else if (c < 0x800) {
      n += 2;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = apply(charCodeAt, text, [i + 1]);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    } else {
      n += 3;
    }
  }
  return n;
}

function textBody(shape, text) {
  const sent = toWellFormed !== null ? apply(toWellFormed, text, []) : text;
  return { shape: shape, value: sent, length: utf8Length(sent) };
}

// What a body argument will send: {shape, value?, length?}. `streams`: whether a ReadableStream
// is a body of its own (fetch) or, like any other object, turned into text (XMLHttpRequest,
// sendBeacon).
function describeBody(body, streams) {
  if (body === undefined || body === null) return { shape: "none" };
  if (typeof body === "string") return textBody("text", body);
  if (isPrimitive(body)) return typeof body === "symbol" ? { shape: "other" } : textBody("text", StringOf(body));
  const size = tryCall(blobSize, body, []);
  if (size !== UNREAD) return { shape: "blob", length: size };
  const params = tryCall(searchParamsText, body, []);
  if (params !== UNREAD) return textBody("urlencoded", params);
  if (tryCall(formDataHas, body, [""]) !== UNREAD) return { shape: "formdata" };
  let bytes = tryCall(bufferLength, body, []);
  if (bytes === UNREAD) bytes = tryCall(sharedBufferLength, body, []);
  if (bytes === UNREAD && isView !== null && isView(body)) {
    bytes = tryCall(typedArrayLength, body, []);
    if (bytes === UNREAD) bytes = tryCall(dataViewLength, body, []);
    if (bytes === UNREAD) return { shape: "bytes" };
  }
  if (bytes !== UNREAD) return { shape: "bytes", length: bytes };
  if (streams && tryCall(streamLocked, body, []) !== UNREAD) return { shape: "stream" };
  return { shape: "other" };
}

// The header names of a HeadersInit as the script wrote them: a Headers object's (its iteration
// order), an array of pairs' first items, an object's own enumerable keys (Object.keys order).
// UNREAD for an iterable of another kind, or an accessor in the way.
function headerNamesOf(init) {
  if (isPrimitive(init)) return UNREAD;
  const names = [];
  if (tryCall(headersForEach, init, [function (value, name) { names[names.length] = name; }]) !== UNREAD) {
    return names;
  }
  if (isArray(init)) {
    const n = dataMember(init, "length");
    if (typeof n !== "number") return UNREAD;
    for (let i = 0; i < n; i++) {
      const pair = dataMember(init, StringOf(i));
      if (!isArray(pair)) return UNREAD;
      const name = dataMember(pair, "0");
      if (name === UNREAD || typeof name === "symbol" || !isPrimitive(name)) return UNREAD;
      names[names.length] = StringOf(name);
    }
    return names;
  }
  if (dataMember(init, iteratorSymbol) !== undefined) return UNREAD;
  try {
    return keysOf(init);
  } catch (_) {
    return UNREAD;
  }
}

// Requests the probe saw constructed: their script-set header names and body (a Request's own
// headers also hold the ones the browser added, its body is a stream by then).
const constructedRequests = new WeakMapC();

// What fetch(input, init) or new Request(input, init) asks for.
function fetchRequest(args) {
  const input = args[0];
  const init = args.length > 1 ? args[1] : undefined;
  if (init !== undefined && init !== null && isPrimitive(init)) return null;
  const dict = init === undefined || init === null ? null : init;
  const method = dict !== null ? dataMember(dict, "method") : undefined;
  const headers = dict !== null ? dataMember(dict, "headers") : undefined;
  const body = dict !== null ? dataMember(dict, "body") : undefined;
  const inputUrl = isPrimitive(input) ? UNREAD : tryCall(requestUrl, input, []);
  const fromRequest = inputUrl !== UNREAD;
  const seen = fromRequest ? apply(wmGet, constructedRequests, [input]) : undefined;
  const out = {};
  if (method !== UNREAD) {
    const m = method !== undefined ? normalizeMethod(method)
      : fromRequest ? tryCall(requestMethod, input, []) : "GET";
    if (m !== undefined && m !== UNREAD) out.method = m;
  }
  const url = fromRequest ? inputUrl : absoluteURL(input);
  if (url !== undefined) out.url = url;
  if (headers !== UNREAD) {
    const names = headers !== undefined ? headerNamesOf(headers)
      : fromRequest ? (seen !== undefined ? seen.headerNames : UNREAD) : [];
    if (names !== UNREAD && names !== undefined) out.headerNames = names;
  }
  if (body !== UNREAD) {
    const described = body !== undefined ? describeBody(body, true)
      : fromRequest ? (seen !== undefined ? seen.body : undefined) : { shape: "none" };
    if (described !== undefined) out.body = described;
  }
  return out;
}

function extendHook(api, extra) {
  const previous = HOOKS[api];
  HOOKS[api] = function (record, receiver, args, result, threw) {
    if (previous) previous(record, receiver, args, result, threw);
    extra(record, receiver, args || [], result, threw);
  };
}

function copyOf(list) {
  const out = [];
  for (let i = 0; i < list.length; i++) out[i] = list[i];
  return out;
}

// XMLHttpRequest: the method and URL of the last open(), the names of the setRequestHeader()
// calls since, and the body of send().
const openedRequests = new WeakMapC();
extendHook("XMLHttpRequest.prototype.open", function (record, xhr, args, result, threw) {
  if (threw || isPrimitive(xhr)) return;
  const method = normalizeMethod(args[0]);
  const state = { headerNames: [] };
  if (method !== undefined) state.method = method;
  const url = absoluteURL(args[1], args[3], args[4]);
  if (url !== undefined) state.url = url;
  apply(wmSet, openedRequests, [xhr, state]);
});
extendHook("XMLHttpRequest.prototype.setRequestHeader", function (record, xhr, args, result, threw) {
  if (threw || isPrimitive(xhr)) return;
  const state = apply(wmGet, openedRequests, [xhr]);
  if (state === undefined || state.headerNames === null) return;
  const name = args[0];
  if (isPrimitive(name) && typeof name !== "symbol") {
    state.headerNames[state.headerNames.length] = StringOf(name);
  } else {
    state.headerNames = null;
  }
});
extendHook("XMLHttpRequest.prototype.send", function (record, xhr, args, result, threw) {
  // A synchronous request that failed was still made.
  if (threw && !(record.exception && record.exception.name === "NetworkError")) return;
  const state = isPrimitive(xhr) ? undefined : apply(wmGet, openedRequests, [xhr]);
  if (state === undefined) return;
  const request = {};
  if (state.method !== undefined) request.method = state.method;
  if (state.url !== undefined) request.url = state.url;
  if (state.headerNames !== null) request.headerNames = copyOf(state.headerNames);
  request.body = state.method === "GET" || state.method === "HEAD"
    ? { shape: "none" }
    : describeBody(args[0], false);
  record.request = request;
});
extendHook("fetch", function (record, receiver, args, result, threw) {
  if (threw) return;
  const request = fetchRequest(args);
  if (request !== null) record.request = request;
});
extendHook("Request", function (record, receiver, args, result, threw) {
  if (threw || record.accessType !== "construct" || isPrimitive(result)) return;
  const request = fetchRequest(args);
  if (request === null) return;
  apply(wmSet, constructedRequests, [result, { headerNames: request.headerNames, body: request.body }]);
});
extendHook("Navigator.prototype.sendBeacon", function (record, receiver, args, result, threw) {
  if (threw) return;
  const request = { method: "POST" };
  const url = absoluteURL(args[0]);
  if (url !== undefined) request.url = url;
  request.headerNames = [];
  request.body = describeBody(args[1], false);
  record.request = request;
});

// ---- phases and the end marker -------------------------------------------------------------

const PHASE = "tracer:phase=";
// The holder of `performance.mark`: the realm's Performance.prototype, else wherever its
// `performance` finds it (happy-dom's window hands out Node's own `performance`).
const markProto = typeof g.Performance === "function" ? g.Performance.prototype
  : (perf && typeof perf === "object" ? M.findHolder(perf, "mark") : null);
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
  const proxy = disguise(new ProxyC(inner, handlerOf({
    apply: function (target, thisArg, args) {
      const name = args[0];
      if (startsWith(name, PHASE)) {
        phase = apply(strSlice, name, [PHASE.length]) || "init";
        return apply(markOriginal, thisArg, args);
      }
      if (name === "tracer:done") {
        const result = apply(markOriginal, thisArg, args);
        finish({ k: "done", ls: nextLocal++, e: epoch(), realm: realm });
        sendBatch();
        return result;
      }
      return apply(target, thisArg, args);
    },
  })), markOriginal);
  defineProperty(proto, "mark", { value: proxy, writable: d.writable, enumerable: d.enumerable, configurable: true });
}

// ---- Function.prototype.toString: wrappers read as the functions they stand for ------------

// Another realm's probe (a same-origin iframe's, reading this window's functions through its own
// Function.prototype.toString) asks this one for the source its wrappers show: it calls this
// realm's toString with the recording's token (`config.realmToken`, random per recording), and
// the answer is the source, or the token itself for a function that is not a wrapper here.
const REALM_TOKEN = typeof config.realmToken === "string" ? config.realmToken : null;
// What this realm's toString reads of another realm's Proxy: the other probe's toString.
const PROXY_SOURCE = "function () { [native code] }";
function foreignSource(f) {
  if (REALM_TOKEN === null || typeof f !== "function") return undefined;
  let other;
  try {
    // The other realm's Function.prototype.toString, found up the chain (an interface's
    // constructor inherits from its parent interface's: HTMLElement from Element).
    let p = getProto(f);
    let d;
    for (let i = 0; p !== null && i < 64; i++) {
      if (p === functionProto) return undefined;
      d = gopd(p, "toString");
      if (d !== undefined) break;
      p = getProto(p);
    }
    other = d !== undefined ? d.value : undefined;
    // Only the other probe's own toString is asked (a page's function never runs): it is a
    // Proxy, whose text, read from here, has no name.
    if (typeof other !== "function" || apply(fnToString, other, []) !== PROXY_SOURCE) return undefined;
    const answer = apply(other, f, [REALM_TOKEN]);
    return typeof answer === "string" && answer !== REALM_TOKEN ? answer : undefined;
  } catch (_) {
    return undefined;
  }
}

function patchToString(functionPrototype) {
  const d = gopd(functionPrototype, "toString");
  if (!d || typeof d.value !== "function" || !d.configurable) return;
  const original = d.value;
  const proxy = new ProxyC(original, handlerOf({
    apply: function (target, thisArg, args) {
      if (REALM_TOKEN !== null && args.length === 1 && args[0] === REALM_TOKEN) {
        const mine = sourceText(thisArg);
        return typeof mine === "string" ? mine : REALM_TOKEN;
      }
      const known = sourceText(thisArg);
      if (typeof known === "string") return known;
      const foreign = foreignSource(thisArg);
      if (foreign !== undefined) return foreign;
      return apply(target, thisArg, args);
    },
  }));
  disguise(proxy, original);
  defineProperty(functionPrototype, "toString", { value: proxy, writable: d.writable, enumerable: d.enumerable, configurable: true });
}

// ---- the page's definitions: the descriptor definers and readers ----------------------------
//
// The definers run the page's call unchanged and take what it defined on a watched name as the
// property's new definition (see `redefine`); the readers show the page's own definition where
// the probe stands in for it. Each keeps its name, length and source; an error it throws is the
// browser's own, without the probe's frames.

// A property key the probe can take without converting it a second time: symbols are never
// watched, and an object key is left alone (its toString would run twice).
function keyOf(key) {
  if (typeof key === "string") return key;
  if (typeof key === "number") return StringOf(key);
  return null;
}

function patchMethod(holder, name, trap) {
  if (holder === null || holder === undefined) return;
  const d = gopd(holder, name);
  if (!d || typeof d.value !== "function" || !d.configurable) return;
  const proxy = disguise(new ProxyC(d.value, handlerOf({ apply: trap })), d.value);
  defineProperty(holder, name, { value: proxy, writable: d.writable, enumerable: d.enumerable, configurable: true });
}

// Object.defineProperty(o, key, attributes), Reflect.defineProperty(o, key, attributes).
function defineTrap(target, thisArg, args) {
  try {
    const object = args[0];
    const name = keyOf(args[1]);
    if (name === null || !isObject(object)) return apply(target, thisArg, args);
    return redefine(object, name, function () { return apply(target, thisArg, args); });
  } catch (e) {
    cleanStack(e);
    throw e;
  }
}

// Object.defineProperties(o, properties).
function defineManyTrap(target, thisArg, args) {
  try {
    const object = args[0];
    if (!isObject(object)) return apply(target, thisArg, args);
    return redefineMany(object, function () { return apply(target, thisArg, args); });
  } catch (e) {
    cleanStack(e);
    throw e;
  }
}

// o.__defineGetter__(key, f), o.__defineSetter__(key, f).
function legacyDefineTrap(target, thisArg, args) {
  try {
    const name = keyOf(args[0]);
    if (name === null || !isObject(thisArg)) return apply(target, thisArg, args);
    return redefine(thisArg, name, function () { return apply(target, thisArg, args); });
  } catch (e) {
    cleanStack(e);
    throw e;
  }
}

// The page's view of own property descriptor `d` of `object` (d itself when the probe does not
// stand in for that property there).
function viewOf(object, d) {
  let f = own(d, "get") ? d.get : undefined;
  if (typeof f !== "function") f = own(d, "set") ? d.set : undefined;
  if (typeof f !== "function") return d;
  const cell = apply(wmGet, installed, [f]);
  if (cell === undefined || cell.holder !== object || cell.view === null) return d;
  const real = plain(d);
  if (!isLive(cell, real)) return d;
  return pageDescriptor(cell, real, true);
}

// The page's call, through to the original; an error it throws leaves without the probe's frames.
function applyCleaned(target, thisArg, args) {
  try {
    return apply(target, thisArg, args);
  } catch (e) {
    cleanStack(e);
    throw e;
  }
}

// Object.getOwnPropertyDescriptor(o, key), Reflect.getOwnPropertyDescriptor(o, key).
function describeTrap(target, thisArg, args) {
  const d = applyCleaned(target, thisArg, args);
  const object = args[0];
  if (d === undefined || !isObject(object) || apply(wmGet, cells, [object]) === undefined) return d;
  return viewOf(object, d);
}

// Object.getOwnPropertyDescriptors(o).
function describeAllTrap(target, thisArg, args) {
  const all = applyCleaned(target, thisArg, args);
  const object = args[0];
  const map = isObject(object) ? apply(wmGet, cells, [object]) : undefined;
  if (map === undefined) return all;
  const keys = ownKeysOf(map);
  for (let i = 0; i < keys.length; i++) {
    const name = apply(strSlice, keys[i], [1]);
    if (!own(all, name)) continue;
    const d = all[name];
    const view = viewOf(object, d);
    if (view !== d) defineProperty(all, name, dataRecord(view, true, true, true));
  }
  return all;
}

// o.__lookupGetter__(key), o.__lookupSetter__(key).
function lookupTrap(which) {
  return function (target, thisArg, args) {
    const f = applyCleaned(target, thisArg, args);
    if (typeof f !== "function") return f;
    const cell = apply(wmGet, installed, [f]);
    if (cell === undefined || cell.view === null || cell.real === null || cell.real[which] !== f) return f;
    return isAccessor(cell.view) ? cell.view[which] : undefined;
  };
}

function patchDescriptors() {
  const objectProto = O.prototype;
  patchMethod(O, "defineProperty", defineTrap);
  patchMethod(R, "defineProperty", defineTrap);
  patchMethod(O, "defineProperties", defineManyTrap);
  patchMethod(objectProto, "__defineGetter__", legacyDefineTrap);
  patchMethod(objectProto, "__defineSetter__", legacyDefineTrap);
  patchMethod(O, "getOwnPropertyDescriptor", describeTrap);
  patchMethod(R, "getOwnPropertyDescriptor", describeTrap);
  patchMethod(O, "getOwnPropertyDescriptors", describeAllTrap);
  patchMethod(objectProto, "__lookupGetter__", lookupTrap("get"));
  patchMethod(objectProto, "__lookupSetter__", lookupTrap("set"));
}

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

// ---- checked paths ------------------------------------------------------------------------

// The audit's question for the contract's items this realm has not reached yet: does the path
// resolve here, in a window the target has not touched, and can the probe watch what it names?
// `config.checkPaths` holds [realm kind, api] pairs (data, never evaluated). Resolved before any
// wrapper is in place (so reading the path records nothing), each found property is looked at
// again once the probe is installed: `absent` lists the paths that do not resolve (the script gets
// `undefined` there), `unwatched` the ones that resolve to a property the probe put no wrapper
// on (an own data property of an object: no access of it can be recorded).
const checkPaths = config.checkPaths || [];
const checked = [];
const absent = [];
for (let i = 0; i < checkPaths.length; i++) {
  const pair = checkPaths[i];
  if (pair[0] !== realm) continue;
  const path = pair[1];
  const parts = apply(strSplit, path, ["."]);
  let start = 0;
  if (parts.length > 1 && (parts[0] === "window" || parts[0] === "self" || parts[0] === "globalThis")) start = 1;
  let object = g;
  let found = null;
  // The segments up to the first that does not resolve: what the environment lacks.
  let resolved = start;
  try {
    for (let j = start; j < parts.length; j++) {
      const key = parts[j];
      if (j === parts.length - 1) {
        let holder = object;
        for (let depth = 0; holder !== null && depth < 64; depth++) {
          if (gopd(holder, key) !== undefined) {
            found = [holder, key];
            break;
          }
          holder = getProto(holder);
        }
      } else {
        object = (typeof object === "object" || typeof object === "function") ? object[key] : undefined;
        if (object === null || object === undefined) break;
      }
      resolved = j + 1;
    }
  } catch (_) {
    found = null;
  }
  if (found === null) {
    const missingTo = resolved < parts.length ? resolved + 1 : parts.length;
    absent[absent.length] = { path: path, missing: apply(arrayJoin, apply(arraySlice, parts, [start, missingTo]), ["."]) };
  } else {
    checked[checked.length] = [path, found[0], found[1]];
  }
}
// After install: the found properties that hold no wrapper of the probe's.
function unwatchedPaths() {
  const out = [];
  for (let i = 0; i < checked.length; i++) {
    const entry = checked[i];
    if (cellAt(entry[1], entry[2]) === null) out[out.length] = entry[0];
  }
  return out;
}

// ---- install ------------------------------------------------------------------------------

const apis = config.apis;
const installStarted = epoch();
let failed = 0;
for (let i = 0; i < apis.length; i++) {
  try {
    install(apis[i]);
  } catch (_) {
    failed++;
  }
}
if (WALK) {
  walking = true;
  try {
    walkGlobal();
  } finally {
    walking = false;
  }
}
for (let i = 0; i < excludeList.length; i++) {
  if (includes(ASKED, excludeList[i]) && resolve(excludeList[i]) === null) missing[missing.length] = excludeList[i];
}
watchSingletonOwnMembers();
watchMarks();
patchDescriptors();
patchToString(Function.prototype);
for (let i = 0; i < foreignFunctionProtos.length; i++) patchToString(foreignFunctionProtos[i]);
post({ k: "ready", realm: realm, wrapped: wrapped, failed: failed, missing: missing, ms: epoch() - installStarted,
  absent: absent, unwatched: unwatchedPaths() });
sendBatch();
