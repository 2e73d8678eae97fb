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

// In an environment under audit: each record names its receiver's number (`receiverId`, the
// number its `$object` values give it), so that the check can tell which reference receiver one
// object stands for where the environment gives several of the browser's classes one (jsdom's
// `SVGElement` for a `circle` and a `rect`).
const RECEIVER_IDS = config.receiverIds === true;
// A realm of Node's (an environment under audit), where a `vm` context's global stands for its
// sandbox object.
const IN_NODE = config.pinGlobalError === true;
const SANDBOX_MARK = Symbol("tracer sandbox");
// Whether `object` is this `vm` context's sandbox: a property defined on the global goes to it
// (Node's interceptors), and is taken off again at once; no code of the page's runs meanwhile.
function isSandbox(object) {
  if (object === null || typeof object !== "object") return false;
  try {
    defineProperty(g, SANDBOX_MARK, { value: true, configurable: true });
  } catch (_) {
    return false;
  }
  let found = false;
  try {
    found = gopd(object, SANDBOX_MARK) !== undefined;
  } catch (_) {
    found = false;
  }
  try {
    R.deleteProperty(g, SANDBOX_MARK);
  } catch (_) {
    // a global that keeps what it was given: nothing more to do
  }
  return found;
}
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
    pathTags: null,
    pathTagsOf: null,
    lastApi: null,
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

// In an environment under audit, the URLs of its own scripts (`config.environmentUrls`, from the
// tool) and the names of a Proxy handler's traps: an access whose nearest frame is one of those
// scripts, from anything but a trap or from a trap that one of them called, is one the tool's
// filter leaves out (its `Rules::keeps`; a trap's access may be made for the page, and the filter
// looks at the frame after it). Such a record leaves brief (`brief: 1`, its stack and place in
// order): the tool counts it without the page paying for a record it would not write.
const ENVIRONMENT_URLS = setOfFolders(config.environmentUrls);
const PROXY_TRAPS = setOf(config.proxyTraps);
const PUT_FORWARDS_SETTERS = setOf(config.putForwardsSetters);
function setOf(list) {
  if (!isArrayValue(list) || list.length === 0) return null;
  const set = O.create(null);
  for (let i = 0; i < list.length; i++) set["$" + list[i]] = true;
  return set;
}
// `[folder, [name, ..]]` pairs (how the tool sends a long list of URLs) as a set of `folder + name`.
function setOfFolders(groups) {
  if (!isArrayValue(groups) || groups.length === 0) return null;
  const set = O.create(null);
  for (let i = 0; i < groups.length; i++) {
    const folder = groups[i][0];
    const names = groups[i][1];
    for (let j = 0; j < names.length; j++) set["$" + folder + names[j]] = true;
  }
  return set;
}
function environmentsOwn(record) {
  const stack = record.stack;
  if (ENVIRONMENT_URLS === null || !isArrayValue(stack) || stack.length === 0) return false;
  const nearest = stack[0];
  // Made by a probe's own code (another realm's, installing itself in a window whose members
  // this one wraps: happy-dom's windows share their classes).
  if (typeof nearest.url === "string" && startsWith(nearest.url, config.ownUrl)) return true;
  if (ENVIRONMENT_URLS["$" + scriptOf(nearest)] !== true) return false;
  // A `[PutForwards]` setter's read and write are the target's where the next frame is (the
  // tool's rule, `PUT_FORWARDS_SETTERS`).
  if (PUT_FORWARDS_SETTERS !== null && PUT_FORWARDS_SETTERS["$" + nearest.functionName] === true &&
      (record.accessType === "get" || record.accessType === "set")) {
    const after = stack[1];
    return after === undefined || after === null || ENVIRONMENT_URLS["$" + scriptOf(after)] === true;
  }
  if (PROXY_TRAPS === null) return true;
  // The trap, or a helper of the environment's a `get` or `set` trap forwards a read or a write
  // of its own kind through (jsdom's form's `set` trap writes with
  // `utils.ordinarySetWithOwnDescriptor`).
  let trapAt = 0;
  if (PROXY_TRAPS["$" + nearest.functionName] !== true) {
    const second = stack[1];
    if (record.accessType !== "get" && record.accessType !== "set") return true;
    // Of the same operation (a descriptor's setter named `set` whose helper reads is not one).
    if (second === undefined || second === null || second.functionName !== record.accessType ||
        ENVIRONMENT_URLS["$" + scriptOf(second)] !== true) return true;
    trapAt = 1;
  }
  const trap = stack[trapAt];
  // A call or a construction a trap other than `apply` or `construct` makes is the
  // environment's own work (happy-dom's `dataset` calls `getAttribute`); a read or a write is
  // forwarded (the tool's rule, `Rules::keeps`).
  const forwarded = record.accessType === "get" || record.accessType === "set" ||
    trap.functionName === "apply" || trap.functionName === "construct";
  if (!forwarded) return true;
  // Through a trap the next frame decides (the tool's rule): brief only when it is the
  // environment's too, or there is none; past a `[PutForwards]` setter the trap wrote through.
  let nextAt = trapAt + 1;
  const between = stack[nextAt];
  if ((record.accessType === "get" || record.accessType === "set") && PUT_FORWARDS_SETTERS !== null &&
      between !== undefined && between !== null && PUT_FORWARDS_SETTERS["$" + between.functionName] === true &&
      ENVIRONMENT_URLS["$" + scriptOf(between)] === true) {
    nextAt++;
  }
  const next = stack[nextAt];
  if (next === undefined || next === null) return true;
  return ENVIRONMENT_URLS["$" + scriptOf(next)] === true;
}
// A frame's script: eval'd code's is the script that evaluated it (`evalUrl`, see reflect.js).
function scriptOf(frame) {
  return frame.url === "" && typeof frame.evalUrl === "string" ? frame.evalUrl : frame.url;
}

function complete(record, prop, receiver, args, result, threw, error, measureResult) {
  if (environmentsOwn(record)) {
    record.brief = 1;
    // A hook follows an object's state (its number, its events) whatever code used it.
    if (prop.hook) {
      busy++;
      try {
        prop.hook(record, receiver, args, result, threw);
      } catch (_) {
        // nothing more to follow
      } finally {
        busy--;
      }
    }
    finish(record);
    return;
  }
  busy++;
  try {
    record.fx = propFacts(prop);
    if (prop.volatile === true) record.fxWhole = true;
    record.api = apiFor(prop, receiver);
    // The path its next access will most likely take: whose slot says whether to capture the
    // stack (`begin`, before the path is known).
    prop.lastApi = record.api;
    record.receiver = M.receiverName(receiver);
    if (RECEIVER_IDS && receiver !== null && (typeof receiver === "object" || typeof receiver === "function")) {
      record.receiverId = M.idOf(receiver);
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
      // What the page gets: Node hands it the realm's global where a global property's value is
      // the context's sandbox object (happy-dom's window, whose `self`, `window`, `top` are its
      // own getters bound to it), and the value measured is that.
      if (IN_NODE && result === receiver && receiver !== g && isSandbox(receiver)) result = g;
      if (record.accessType !== "set") record.returnValue = M.encode(result);
      if ((measureResult === true ||
           (measureResult === "objects" && result !== null &&
            (typeof result === "object" || typeof result === "function"))) &&
          sampleValue(prop, result)) {
        M.measureValue(result, record);
      }
    }
    if (prop.tags === null) prop.tags = tagsFor(prop.iface, prop.api);
    let tags = prop.tags;
    if (tags.length === 0) {
      // The tags of the path the access took, kept for the next access by the same path (a
      // loop's): `tagsFor` builds four names and looks each up.
      if (prop.pathTagsOf !== record.api) {
        prop.pathTags = tagsFor(prop.iface, record.api);
        prop.pathTagsOf = record.api;
      }
      tags = prop.pathTags;
    }
    if (tags.length) record.tags = tags;
    if (prop.hook) prop.hook(record, receiver, args, result, threw);
  } catch (e) {
    record.probeError = StringOf(e && e.message);
  } finally {
    busy--;
  }
  completed = record;
  completedProp = prop;
  completedReceiver = receiver;
  completedValue = result;
  finish(record);
  completed = null;
  completedProp = null;
  completedReceiver = null;
  completedValue = null;
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
      // Formatted now, while the probe reads nothing as the page's: formatting a DOMException's
      // stack reads its `name` and `message` through their (wrapped) getters.
      const again = gopd(error, "stack");
      if (again && typeof again.get === "function") apply(again.get, error, []);
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

// Calls the watched function for `trap`'s access, as the page called it: what it returned, and
// whether it threw (`calledThrew`, `calledError`, read at once by the caller: no object is made per
// call). An error it threw has the probe's frames taken out of its stack: that runs no access of
// the page's (formatting a DOMException's stack reads its wrapped `name` and `message`, whose
// traps would record the probe's own reads and, calling this function again, reset what the
// first call found: the error would be swallowed), and what it found is set after it.
let calledThrew = false;
let calledError;
function callWatched(trap, target, thisArg, args) {
  calledThrew = false;
  calledError = undefined;
  inside++;
  try {
    return apply(target, thisArg, args);
  } catch (e) {
    busy++;
    try {
      if (!restack(e, trap)) cleanStack(e);
    } finally {
      busy--;
    }
    calledThrew = true;
    calledError = e;
    return undefined;
  } finally {
    inside--;
  }
}

// A Proxy trap that records one access of the generation its handler holds (`this[field]`: the
// handler is the trap's `this`).
function callTrap(accessType, measureResult, field) {
  const trap = function (target, thisArg, args) {
    const prop = this[field];
    if (busy) return apply(target, thisArg, args);
    const slot = accessType === "get" && SAMPLE_STACKS ? repeatable(prop, thisArg) : null;
    if (slot !== null) return repeatGet(trap, target, thisArg, args, prop, slot);
    const record = begin(prop, accessType);
    let result = callWatched(trap, target, thisArg, args);
    const threw = calledThrew;
    const error = calledError;
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

// A getter read that may repeat its slot's last record (see `repeatable`): the getter runs as in
// the trap; a value that is the last one's is sent as a repeat, anything else (another value, an
// error, a record that another record made during the call now precedes) is recorded in full,
// with the `ls` and `e` it took before the call and no stack, as the slot's sampling had it.
function repeatGet(trap, target, thisArg, args, prop, slot) {
  const e = epoch();
  const ls = nextLocal++;
  const result = callWatched(trap, target, thisArg, args);
  const threw = calledThrew;
  const error = calledError;
  try {
    if (!threw && flushNext === ls && repeats(slot.inputs, prop, thisArg, result)) {
      postRepeat(slot, ls, e);
      flushReady();
    } else {
      complete(beginAt(prop, "get", ls, e, repeatGet), prop, thisArg, null, result, threw, error, true);
    }
  } catch (_) {
    // No stack left to record the access (a page recursing through the getter): what is known of
    // it waits for the next record to carry it out, without a call, and the read ends as the
    // getter's did.
    if (flushNext <= ls && ready[ls] === undefined) {
      ready[ls] = { k: "access", ls: ls, e: e, realm: realm, phase: phase, api: prop.api,
        accessType: "get", probeError: "no stack left to record the access" };
      waiting++;
    }
  }
  if (threw) throw error;
  return result;
}

// Whether a getter's record would be `inputs`' record again (see `repeatable`): the path and the
// receiver's name as `complete` computes them, the value, and `sampleValue` leaving its
// structure unmeasured.
function repeats(inputs, prop, receiver, value) {
  if (inputs === null || prop.sampled < VALUE_SAMPLES ||
      (inputs.valueRef === null ? !objectIs(value, inputs.value)
        : apply(weakDeref, inputs.valueRef, []) !== value)) {
    return false;
  }
  busy++;
  try {
    if (apiFor(prop, receiver) !== inputs.api || M.receiverName(receiver) !== inputs.receiverName) {
      return false;
    }
    if (inputs.valueName === null) return typeof value === prop.lastProto;
    return getProto(value) === prop.lastProto &&
      (M.constructorNameOf(value) || "") === inputs.valueName;
  } catch (_) {
    return false;
  } finally {
    busy--;
  }
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
    if (win === null || typeof win !== "object" || isGlobalAlias(win)) return;
    // A document's window is entered once, whichever way the page reached it first (a window
    // reached as itself was marked just above).
    if (win !== value) {
      if (apply(wmHas, enteredRealms, [win])) return;
      apply(wmSet, enteredRealms, [win, true]);
    }
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

// A realm probed after another one of the same Node process (`config.laterProbe`: an iframe's
// window) may share members with it: happy-dom's interfaces are one set of classes, in Node's own
// realm, for every window, and the first probe has wrapped them already. Wrapped again, each
// access would be recorded twice, the outer record in this realm's name whatever realm the
// receiver is of: such a member is left to the probe that wrapped it. Another probe's wrapper is a
// Proxy of another realm's function, which this realm's toString reads as `PROXY_SOURCE` (no name);
// a bound function reads the same, and is told apart by its own name.
const LATER_PROBE = config.laterProbe === true;
function anotherProbesWrapper(f) {
  if (!LATER_PROBE || typeof f !== "function") return false;
  try {
    if (apply(fnToString, f, []) !== PROXY_SOURCE) return false;
    const nd = gopd(f, "name");
    return !(nd !== undefined && typeof nd.value === "string" && startsWith(nd.value, "bound "));
  } catch (_) {
    return false;
  }
}

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
  if (anotherProbesWrapper(d.get) || anotherProbesWrapper(d.set) || anotherProbesWrapper(d.value)) return;
  let mode;
  if (isAccessor(d) || (readOnly && data)) {
    mode = "get";
  } else if (typeof d.value === "function" && (onPrototype || !isConstructorLike(d.value))) {
    // A prototype's function is a method, though an environment's own made with `function`
    // has a `prototype` of its own (jsdom's CSSOM's `replaceSync`).
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
  if (!(p && p.value !== null && typeof p.value === "object")) return false;
  // A prototype without a `constructor` of its own that inherits another's is an interface's
  // still (jsdom's `CSSStyleSheet`, whose members are on the base it hides).
  if (gopd(p.value, "constructor")) return true;
  const base = getProto(p.value);
  if (base === null || base === O.prototype) return false;
  const bc = gopd(base, "constructor");
  const nd = bc && typeof bc.value === "function" ? gopd(bc.value, "name") : undefined;
  // Another realm's `Object.prototype` is no interface's.
  return nd !== undefined && typeof nd.value === "string" && nd.value !== "" && nd.value !== "Object";
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
    // A prototype with no `constructor` of its own is the interface's still (jsdom's
    // `CSSStyleSheet.prototype`, whose members are on a base it hides).
    const protoCtor = gopd(proto, "constructor");
    if (protoCtor !== undefined && protoCtor.value !== value) {
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

