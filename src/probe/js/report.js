// The probe: the browser side of `tracer record` (and the Node realms' of the audit). Its sections
// are the files of this folder, one closure once assembled (`probe::PROBE_JS`, in this order:
// report, api-table, cells, stateful, request-args, phases, to-string, descriptors, walk,
// checked-paths, install), which Rust wraps as
//   (function (config) { <reflect.js> <the sections> })(CONFIG)
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
const mathRound = Math.round;
// A loop's repeat compares the receiver and the value with the last record's without keeping
// them alive (a page can tell, with a WeakRef of its own, whether an object was collected).
const WeakRefC = typeof WeakRef === "function" ? WeakRef : null;
const weakDeref = WeakRefC !== null ? WeakRefC.prototype.deref : null;
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
  // This probe's script (`scriptUrl`: a URL of its own per realm in an audit) and every probe's.
  ownUrls: [typeof config.scriptUrl === "string" ? config.scriptUrl : config.ownUrl],
  probeUrls: config.ownUrl,
  // In an environment under audit: such a record leaves brief (see `environmentsOwn`).
  probeNearest: typeof config.environmentUrls === "object" && config.environmentUrls !== null,
  idPrefix: "o",
  keysComputedBy: config.keysComputedBy,
  pinGlobalError: config.pinGlobalError === true,
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
// How many records wait in `ready`: most records leave at once, and looking a missing key up in
// `ready` (a dictionary once keys were deleted) is most of what `flushReady` would cost them.
let waiting = 0;

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
// Repeats back to back, of any slots (a loop reads `navigator`, then its `userAgent`, over and
// over), are one run (see `postRepeat`): the first repeat's `ls`, and each repeat's slot and time,
// kept as numbers until the run is written (`closeRun`), which happens before anything else is
// posted and when the batch leaves. A run is one of the batch's records, of at most RUN_MAX
// repeats.
let runLs = 0;
const runSlots = [];
const runTimes = [];
let runLength = 0;
const RUN_MAX = 4096;

// An access record that repeats the previous record of its api, all but its `ls` and `e`, travels
// as `{"k":"same","slot":n,"ls":..,"e":..}`; the recorder keeps the last whole record of each
// slot (one per api, per realm) and writes the repeat in full. A whole record carries `slot: n`.
// The text is built either way (it is what is compared); what a repeat saves is the bytes the
// binding, the browser and the recorder would each carry and convert.
// A record whose content equals the slot's last one (`sameJson`) is known to repeat it without
// being stringified; any other is stringified and compared as text.
const slots = O.create(null); // api -> { n, body, last, stack, same, skip, gap }
let nextSlot = 1;

// A sampled stack (`config.sampleStacks`, the recorder's): an api read from one place over and over
// (a loop, a timing loop of a detection script) has its stack captured only now and then once its
// last STABLE_STACKS captures were the same, the gap between captures doubling to MAX_STACK_GAP;
// a record between two captures has no `stack` at all (not sampled: never a stand-in). Capturing
// the stack is most of a record's cost in the page, and a page can time it; a stack that changes
// at a capture takes the slot back to capturing every access. Off in an audit, whose filter
// reads every record's nearest frame.
const SAMPLE_STACKS = config.sampleStacks === true;
const STABLE_STACKS = 8;
const MAX_STACK_GAP = 64;
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
    slot = { n: nextSlot++, body: null, last: null, stack: null, same: 0, skip: 0, gap: 0, inputs: null };
    slots[message.api] = slot;
  }
  const head = '"slot":' + slot.n + ',"ls":' + ls + ',"e":' + e;
  const plain = jsonPlain();
  // A brief record (the environment's own, see `environmentsOwn`) is never sent as a repeat: the
  // tool counts each by its nearest script, which a repeat does not carry.
  const brief = message.brief === 1;
  if (slot.last !== null && plain && !brief && sameJson(message, slot.last, 0)) {
    if (SAMPLE_STACKS && message.stack !== undefined) sampled(slot, true);
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
  if (stack !== undefined) {
    if (SAMPLE_STACKS) sampled(slot, stackSame);
    slot.stack = stack;
  }
  // `last` is a record whose text is `body`, but for a stack sent as `stackSame`.
  slot.last = message;
  slot.inputs = SAMPLE_STACKS ? inputsOf(message) : null;
  if (slot.body === body && !brief) return '{"k":"same",' + head + "}";
  slot.body = body;
  return "{" + head + "," + apply(strSlice, body, [1]);
}

// A captured stack was its slot's last (`same`) or not: when the next captures may be skipped.
function sampled(slot, same) {
  if (!same) {
    slot.same = 0;
    slot.gap = 0;
    slot.skip = 0;
    return;
  }
  slot.same++;
  if (slot.same >= STABLE_STACKS) {
    slot.gap = slot.gap === 0 ? 1 : slot.gap * 2 > MAX_STACK_GAP ? MAX_STACK_GAP : slot.gap * 2;
    slot.skip = slot.gap;
  }
}

// What a getter's record was made of (see `repeatGet` in cells.js), when its record is the one
// `complete` just made (not one that waited for an earlier record) and holds nothing another
// access with the same inputs could differ in: no error, no hook, no nesting. Its stack, if it
// has one, is not among them: a run's repeats are written without it (see `closeRun`), so a
// captured stack is followed by repeats at once.
let completed = null;
let completedProp = null;
let completedReceiver = null;
let completedValue = null;
function inputsOf(message) {
  if (message !== completed || message.accessType !== "get" || message.exception !== null ||
      message.nested !== undefined || message.probeError !== undefined || completedProp.hook !== null || completedProp.after !== null ||
      completedProp.volatile === true) {
    return null;
  }
  const v = completedValue;
  const r = completedReceiver;
  if (WeakRefC === null || typeof v === "function" || r === null ||
      (typeof r !== "object" && typeof r !== "function")) {
    return null;
  }
  let valueName = null;
  let valueRef = null;
  if (v !== null && typeof v === "object") {
    // An object is written by its constructor's name and id, unless it is an array or a plain
    // object (whose items and values are written too).
    const written = message.returnValue;
    if (written === null || typeof written !== "object" || typeof written.$object !== "string" ||
        written.$object === "Object") {
      return null;
    }
    valueName = written.$object;
    valueRef = new WeakRefC(v);
  }
  return { prop: completedProp, receiverRef: new WeakRefC(r), receiverName: message.receiver,
    api: message.api, value: valueRef === null ? v : undefined, valueRef: valueRef,
    valueName: valueName, phase: message.phase, facts: completedProp.facts };
}

// The record a getter access would make is its slot's last one, but for `ls` and `e`, when the
// slot's stack is not being captured now and the access has the same inputs: the same property
// (its facts unchanged), the same receiver under the same name and path, the same value (a
// primitive by Object.is, an object by identity and its constructor's name), the same phase, and
// no value structure left to sample. Then only the repeat is sent, and none of the record is
// built: what the page pays for a loop's read is the call and these comparisons. Checked before
// the call (`repeatable`: what the call cannot change) and after it (`repeats`, as `complete`
// would compute each).
function repeatable(prop, receiver) {
  if (busy || flushNext !== nextLocal || prop.lastApi === null) return null;
  const slot = slots[prop.lastApi];
  if (slot === undefined || slot.skip === 0) return null;
  const inputs = slot.inputs;
  if (inputs === null || inputs.prop !== prop || apply(weakDeref, inputs.receiverRef, []) !== receiver ||
      inputs.phase !== phase || inputs.facts !== prop.facts) {
    return null;
  }
  return slot;
}

function post(message) {
  closeRun();
  batch[batch.length] = textOf(message);
  pushed(epoch());
}

// A record was added to the batch (or to its open run) at `now` (epoch milliseconds): the batch
// leaves now, or at the end of the task.
function pushed(now) {
  const records = batch.length + (runLength === 0 ? 0 : 1);
  if (records === 1 && runLength <= 1) batchStarted = now;
  if (records >= BATCH_RECORDS || now - batchStarted >= BATCH_MS ||
      queueMicrotaskOriginal === null) {
    sendBatch();
  } else if (!batchScheduled) {
    batchScheduled = true;
    apply(queueMicrotaskOriginal, g, [sendBatch]);
  }
}

function sendBatch() {
  batchScheduled = false;
  closeRun();
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
    waiting++;
  }
  flushReady();
}

// Sends the records that waited for the ones just sent.
function flushReady() {
  while (waiting > 0 && ready[flushNext] !== undefined) {
    const next = ready[flushNext];
    delete ready[flushNext];
    waiting--;
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
  return beginAt(prop, accessType, nextLocal++, epoch(), begin);
}

// A repeat of `slot`'s last record, `ls` and `e` its own, sent in order (nothing earlier waits:
// see `repeatable`). It joins the open run (nothing was posted since the run's last repeat, so
// their `ls` follow each other): what the page pays per read of a loop is two numbers stored,
// not a text built.
function postRepeat(slot, ls, e) {
  slot.skip--;
  flushNext++;
  if (runLength === RUN_MAX) closeRun();
  if (runLength === 0) runLs = ls;
  runSlots[runLength] = slot.n;
  runTimes[runLength++] = e;
  // The batch's age by the read's own time (`e`, the clock `post` uses): one clock call per read.
  pushed(e);
}

// Writes the open run into the batch as `{"k":"same","slots":[n,..],"ls":first,"e":e0,"ds":[..]}`:
// each repeat's slot, `e0` the first repeat's time and `ds` each later one's, in whole
// microseconds after it (as the recorder adds them: its `epoch_us`), small integers whose text is
// short. The recorder writes each as its slot's last record without that record's stack (a read
// between two captures has none: not sampled).
function closeRun() {
  if (runLength === 0) return;
  const e0 = runTimes[0];
  const base = mathRound(e0 * 1000);
  const slotsOf = [];
  const ds = [];
  slotsOf[0] = runSlots[0];
  for (let i = 1; i < runLength; i++) {
    slotsOf[i] = runSlots[i];
    ds[i - 1] = mathRound(runTimes[i] * 1000) - base;
  }
  batch[batch.length] = '{"k":"same","slots":[' + apply(arrayJoin, slotsOf, [","]) + '],"ls":' + runLs +
    ',"e":' + e0 + ',"ds":[' + apply(arrayJoin, ds, [","]) + "]}";
  runLength = 0;
}

// A record begun: `above` is the probe's function the page's call went through (its frame and
// those above it are not captured).
function beginAt(prop, accessType, ls, e, above) {
  const record = {
    k: "access",
    ls: ls,
    e: e,
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
  if (SAMPLE_STACKS) {
    const slot = prop.lastApi === null ? undefined : slots[prop.lastApi];
    if (slot !== undefined && slot.skip > 0) {
      slot.skip--;
      return record;
    }
  }
  busy++;
  try {
    record.stack = M.stack(config.stackLimit, above);
  } finally {
    busy--;
  }
  return record;
}

