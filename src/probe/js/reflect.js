// reflect.js: the structural measurement of `tracer-trace/v1` (owner, descriptor, getter/setter
// owner, brand, constructor name, instanceof, own keys, prototype chain, `Val`/`Fn` encodings,
// stack frames). It assumes no DOM, only ECMAScript plus V8's structured stack API, so the same
// code measures a browser realm (inside the probe, see probe.js) and a Node realm (the audit:
// `require("./reflect.js")(globalThis)`).
//
// `tracerReflect(g)` captures every built-in it needs when it is called, so page code that later
// replaces `Object.keys` or `Function.prototype.toString` does not change what it measures. It
// measures the objects it is given: the caller gives it the originals, never its own wrappers.
// Strings are returned whole; the `$string` hashing of strings over 500 characters is done by the
// writer (Rust side), in every field, so both sides apply one rule.
function tracerReflect(g, options) {
  "use strict";
  const opts = options || {};
  const O = Object;
  const R = Reflect;
  const apply = R.apply;
  const getProto = O.getPrototypeOf;
  const gopd = O.getOwnPropertyDescriptor;
  const keysOf = O.keys;
  const namesOf = O.getOwnPropertyNames;
  const symbolsOf = O.getOwnPropertySymbols;
  const ownKeysOf = R.ownKeys;
  const isArray = Array.isArray;
  const objToString = O.prototype.toString;
  const fnToString = Function.prototype.toString;
  const symToString = Symbol.prototype.toString;
  const symDescription = gopd(Symbol.prototype, "description").get;
  const reExec = RegExp.prototype.exec;
  const strSlice = String.prototype.slice;
  const NumberIsNaN = Number.isNaN;
  const objectIs = O.is;
  const StringOf = String;
  const WeakMapC = WeakMap;
  const wmGet = WeakMap.prototype.get;
  const wmSet = WeakMap.prototype.set;
  const ErrorC = Error;
  const captureStackTrace = typeof Error.captureStackTrace === "function" ? Error.captureStackTrace : null;
  const returnCallSites = function (_, callSites) {
    return callSites;
  };
  const toStringTag = Symbol.toStringTag;
  // The prototypes a primitive's wrapper object gets (this realm's intrinsics: page code cannot
  // change which objects they are). A wrapper made by O(value) has no own `constructor`, so a
  // walk up a primitive's chain may start at its intrinsic prototype without making the wrapper.
  const stringProto = getProto(O(""));
  const numberProto = getProto(O(0));
  const booleanProto = getProto(O(false));
  const symbolProto = getProto(O(toStringTag));
  const bigintProto = typeof BigInt === "function" ? getProto(O(BigInt(0))) : null;
  const nativeRe = /\{\s*\[native code\]\s*\}\s*$/;
  // Sources to report for functions the caller replaced (wrapper -> original's source).
  const sourceOf = opts.sourceOf || null;
  // The global path a function was reached from (`setTimeout`, `Intl.DateTimeFormat`), when the
  // caller knows one; a function is named by it first (the spec's naming rule).
  const pathOf = opts.pathOf || null;
  // Script URLs whose frames are the measurer's own and never reported. Another realm's probe's
  // frames (their URLs start with `opts.probeUrls`) are not reported either; but with
  // `opts.probeNearest`, a stack whose nearest frame is one of them has that frame as its only
  // one: the access was made by that probe (reading its own window through a member this realm's
  // probe wraps: happy-dom's windows share their classes), not by the page.
  const ownUrls = opts.ownUrls || [];
  const probeUrls = typeof opts.probeUrls === "string" ? opts.probeUrls : null;
  const probeNearest = opts.probeNearest === true;
  const defineProp = O.defineProperty;
  const deleteProp = R.deleteProperty;
  // In Node (`opts.pinGlobalError`): Node formats a stack through its own callback, which looks up
  // `prepareStackTrace` on the realm's global `Error` (a browser's V8 uses the realm's intrinsic).
  // A page that made that global an accessor would see every capture read it; one that replaced
  // it would get the stack as text. So while a stack is captured, the global `Error` is this
  // realm's own, as a plain data property, and put back as it was right after.
  const pinGlobalError = opts.pinGlobalError === true;
  const NOT_PINNED = {};
  const idPrefix = opts.idPrefix || "o";
  const ids = new WeakMapC();
  let nextId = 1;

  function push(array, item) {
    array[array.length] = item;
  }

  // An object's number in this run (`o2`): it links the lines that name the object, within one
  // trace, never across runtimes.
  function idOf(value) {
    let id = apply(wmGet, ids, [value]);
    if (id === undefined) {
      id = idPrefix + nextId++;
      apply(wmSet, ids, [value, id]);
    }
    return id;
  }

  function dataOf(object, key) {
    let d;
    try {
      d = gopd(object, key);
    } catch (_) {
      return undefined;
    }
    return d && "value" in d ? d.value : undefined;
  }

  function fnName(f) {
    const name = dataOf(f, "name");
    return typeof name === "string" ? name : "";
  }

  function brandOf(value) {
    try {
      return apply(objToString, value, []);
    } catch (_) {
      return "[object Unknown]";
    }
  }

  function tagOf(value) {
    const brand = brandOf(value);
    return apply(strSlice, brand, [8, -1]);
  }

  function sourceOfFn(f) {
    if (sourceOf) {
      const known = sourceOf(f);
      if (typeof known === "string") return known;
    }
    try {
      return apply(fnToString, f, []);
    } catch (_) {
      return "";
    }
  }

  // `Fn`: {name, length, native, source}.
  function describeFn(f) {
    if (typeof f !== "function") return null;
    const source = sourceOfFn(f);
    const length = dataOf(f, "length");
    return {
      name: fnName(f),
      length: typeof length === "number" ? length : 0,
      native: apply(reExec, nativeRe, [source]) !== null,
      source: source,
    };
  }

  // A function's name by the naming rule: the global path it was reached from, else its own
  // `name`, else `(anonymous)`.
  function functionName(f) {
    if (pathOf) {
      const path = pathOf(f);
      if (typeof path === "string" && path) return path;
    }
    return fnName(f) || "(anonymous)";
  }

  // Whether `p` is the prototype object of its own `constructor` (`X.prototype`,
  // `Function.prototype` included).
  function isPrototypeObject(p) {
    const ctor = dataOf(p, "constructor");
    return typeof ctor === "function" && dataOf(ctor, "prototype") === p;
  }

  // The name a prototype-chain entry goes by: a function object other than a prototype object
  // (`Element` on `HTMLElement`'s chain), its `name`; else its own `constructor`'s name; else its
  // `Symbol.toStringTag`; else the tag inside `Object.prototype.toString`.
  function protoName(p) {
    if (typeof p === "function" && !isPrototypeObject(p)) return fnName(p) || "(anonymous)";
    const ctor = dataOf(p, "constructor");
    if (typeof ctor === "function") {
      const name = fnName(ctor);
      if (name) return name;
    }
    let tag;
    try {
      tag = p[toStringTag];
    } catch (_) {
      tag = undefined;
    }
    if (typeof tag === "string" && tag) return tag;
    return tagOf(p);
  }

  // The prototype of a primitive's wrapper; undefined for an object or a function.
  function primitiveProto(value) {
    switch (typeof value) {
      case "string":
        return stringProto;
      case "number":
        return numberProto;
      case "boolean":
        return booleanProto;
      case "symbol":
        return symbolProto;
      case "bigint":
        return bigintProto;
      default:
        return undefined;
    }
  }

  function chainOf(value) {
    const out = [];
    if (value === null || value === undefined) return out;
    let p = primitiveProto(value);
    if (p === undefined) {
      try {
        p = getProto(O(value));
      } catch (_) {
        return out;
      }
    }
    for (let i = 0; p !== null && i < 64; i++) {
      push(out, protoName(p));
      try {
        p = getProto(p);
      } catch (_) {
        break;
      }
    }
    return out;
  }

  // The constructor name of a value, read from the first own `constructor` data property on its
  // chain (no getter runs); `null` when there is none.
  function constructorNameOf(value) {
    if (value === null || value === undefined) return null;
    // A primitive: its wrapper (step 0 of the walk) has no own `constructor`.
    const proto = primitiveProto(value);
    let p = proto === undefined ? O(value) : proto;
    for (let i = proto === undefined ? 0 : 1; p !== null && i < 64; i++) {
      const ctor = dataOf(p, "constructor");
      if (typeof ctor === "function") return fnName(ctor) || null;
      try {
        p = getProto(p);
      } catch (_) {
        return null;
      }
    }
    return null;
  }

  // A receiver's name: its constructor name, else its tag. The realm's global object is named by
  // `window.constructor.name` as a script reads it: a `vm` context's global (a jsdom or happy-dom
  // window) answers own-property questions from its sandbox object, whose chain is not the
  // global's.
  function receiverName(value) {
    if (value === null) return "null";
    if (value === undefined) return "undefined";
    if (value === g) {
      let ctor;
      try {
        ctor = g.constructor;
      } catch (_) {
        ctor = undefined;
      }
      const name = typeof ctor === "function" ? fnName(ctor) : "";
      if (name) return name;
    }
    return constructorNameOf(value) || tagOf(value);
  }

  // Naming rule for owners and holders: `window` for the global object, `X.prototype`, `X`, or
  // `X instance`.
  function holderName(object) {
    if (object === null || object === undefined) return null;
    if (object === g) return "window";
    // A prototype object first: `Function.prototype` is callable, and named as a prototype.
    const ctor = dataOf(object, "constructor");
    if (typeof ctor === "function" && dataOf(ctor, "prototype") === object) {
      const name = functionName(ctor);
      // The realm exposes another `X` (happy-dom's per-window `Document` extends its module's
      // own `Document`): this one is not `X.prototype` as a script reaches it.
      const exposed = dataOf(g, name);
      if (typeof exposed === "function" && exposed !== ctor && fnName(exposed) === fnName(ctor)) {
        return name + ".prototype (a base of the exposed " + name + ")";
      }
      // The realm exposes no `X` at all and `X` is another realm's (happy-dom's window hands out
      // Node's own `performance`, and has no `Performance`): say so, rather than name a prototype
      // no script can reach as such.
      if (exposed === undefined && name === fnName(ctor) && name !== "" && !inChain(g, object) &&
          fromAnotherRealm(ctor)) {
        return name + ".prototype (not exposed by the realm)";
      }
      return name + ".prototype";
    }
    if (typeof object === "function") return functionName(object);
    return (constructorNameOf(object) || tagOf(object)) + " instance";
  }

  // Whether function `f` was made by another realm's code (its prototype is not this realm's
  // Function.prototype): an environment's class handed to the page, as opposed to the page's own.
  const ownFunctionProto = Function.prototype;
  function fromAnotherRealm(f) {
    try {
      return getProto(f) !== ownFunctionProto;
    } catch (_) {
      return false;
    }
  }

  // Whether `object` is on `value`'s prototype chain (the global's own chain holds prototypes no
  // global names: `Window.prototype` is exposed, `WindowProperties` is not, and is no finding).
  function inChain(value, object) {
    let p = value;
    for (let i = 0; p !== null && i < 64; i++) {
      if (p === object) return true;
      try {
        p = getProto(p);
      } catch (_) {
        return false;
      }
    }
    return false;
  }

  // The object on `value`'s chain that holds own property `name`; `null` when none does.
  function findHolder(value, name) {
    if (value === null || value === undefined) return null;
    let p = O(value);
    for (let i = 0; p !== null && i < 64; i++) {
      let d;
      try {
        d = gopd(p, name);
      } catch (_) {
        return null;
      }
      if (d) return p;
      p = getProto(p);
    }
    return null;
  }

  function sortStrings(list) {
    for (let i = 1; i < list.length; i++) {
      const item = list[i];
      let j = i - 1;
      while (j >= 0 && list[j] > item) {
        list[j + 1] = list[j];
        j--;
      }
      list[j + 1] = item;
    }
    return list;
  }

  function instanceOfNames(value, chain) {
    if (value === null || (typeof value !== "object" && typeof value !== "function")) {
      return [];
    }
    const candidates = [];
    for (let i = 0; i < chain.length; i++) push(candidates, chain[i]);
    push(candidates, "Object");
    push(candidates, "Function");
    const out = [];
    for (let i = 0; i < candidates.length; i++) {
      const name = candidates[i];
      let seen = false;
      for (let j = 0; j < out.length; j++) if (out[j] === name) seen = true;
      if (seen) continue;
      let C;
      try {
        C = g[name];
      } catch (_) {
        continue;
      }
      if (typeof C !== "function") continue;
      try {
        if (value instanceof C) push(out, name);
      } catch (_) {
        // a constructor whose `prototype` is not an object: not an instance.
      }
    }
    return sortStrings(out);
  }

  function symbolName(symbol) {
    let description;
    try {
      description = apply(symDescription, symbol, []);
    } catch (_) {
      description = undefined;
    }
    return description === undefined ? "" : description;
  }

  // An own-key list keeps its first KEY_CAP names, then `{"$more": n}` for the n left out, as a
  // `Val` array does (a CSSStyleDeclaration has some 750 own names: every read of
  // `element.style` would otherwise carry them four times).
  const KEY_CAP = 100;
  function capped(list) {
    if (list.length <= KEY_CAP) return list;
    const out = [];
    for (let i = 0; i < KEY_CAP; i++) push(out, list[i]);
    push(out, { $more: list.length - KEY_CAP });
    return out;
  }
  function keyLists(value) {
    const out = {};
    try {
      out.keys = capped(keysOf(value));
      out.ownNames = capped(namesOf(value));
      const symbols = symbolsOf(value);
      out.ownSymbols = [];
      for (let i = 0; i < symbols.length && i < KEY_CAP; i++) {
        push(out.ownSymbols, apply(symToString, symbols[i], []));
      }
      if (symbols.length > KEY_CAP) push(out.ownSymbols, { $more: symbols.length - KEY_CAP });
      const all = ownKeysOf(value);
      out.ownKeys = [];
      for (let i = 0; i < all.length && i < KEY_CAP; i++) {
        const k = all[i];
        push(out.ownKeys, typeof k === "symbol" ? apply(symToString, k, []) : k);
      }
      if (all.length > KEY_CAP) push(out.ownKeys, { $more: all.length - KEY_CAP });
    } catch (_) {
      // a revoked proxy or an exotic object that refuses: keep what was measured.
    }
    return out;
  }

  // `Val`: JSON primitives as they are, the rest tagged; arrays of at most 100 items.
  function encode(value, depth) {
    switch (typeof value) {
      case "undefined":
        return { $undefined: true };
      case "number":
        if (NumberIsNaN(value)) return { $number: "NaN" };
        if (value === Infinity) return { $number: "Infinity" };
        if (value === -Infinity) return { $number: "-Infinity" };
        if (objectIs(value, -0)) return { $number: "-0" };
        return value;
      case "bigint":
        return { $bigint: StringOf(value) };
      case "symbol":
        return { $symbol: symbolName(value) };
      case "string":
      case "boolean":
        return value;
      case "function": {
        // Whether it is the runtime's own code (`[native code]`) or JavaScript: a method a shim
        // wrote in JavaScript is no longer named like the browser's. A native one also carries
        // its (short) source, which names it: a Proxy or a bound function reads differently.
        const source = sourceOfFn(value);
        const native = apply(reExec, nativeRe, [source]) !== null;
        return native ? { $function: functionName(value), native: true, source: source }
          : { $function: functionName(value), native: false };
      }
      default:
        break;
    }
    if (value === null) return null;
    let array = false;
    try {
      array = isArray(value);
    } catch (_) {
      array = false;
    }
    if (array && (depth || 0) < 3) {
      const out = [];
      const n = value.length;
      const shown = n > 100 ? 100 : n;
      for (let i = 0; i < shown; i++) push(out, encode(value[i], (depth || 0) + 1));
      if (n > 100) push(out, { $more: n - 100 });
      return out;
    }
    const id = idOf(value);
    const name = constructorNameOf(value) || tagOf(value);
    const out = { $object: name, id: id };
    // A plain object (a dictionary such as `resolvedOptions()`'s) also carries its own enumerable
    // data properties (at most 20, two levels deep; no getter runs), so that its values compare.
    if ((depth || 0) < 2 && name === "Object" && typeof value === "object") {
      let keys = [];
      try {
        keys = keysOf(value);
      } catch (_) {
        keys = [];
      }
      if (keys.length <= 20) {
        const props = {};
        let complete = true;
        for (let i = 0; i < keys.length; i++) {
          let d;
          try {
            d = gopd(value, keys[i]);
          } catch (_) {
            d = undefined;
          }
          if (!d || !("value" in d)) {
            complete = false;
            break;
          }
          props[keys[i]] = encode(d.value, (depth || 0) + 1);
        }
        if (complete) out.props = props;
      }
    }
    return out;
  }

  // `descriptor`: the property as its holder defines it; `null` when there is no such property.
  function describeDescriptor(d) {
    if (!d) return null;
    if ("get" in d || "set" in d) {
      return {
        kind: "accessor",
        configurable: !!d.configurable,
        enumerable: !!d.enumerable,
        get: d.get ? describeFn(d.get) : null,
        set: d.set ? describeFn(d.set) : null,
      };
    }
    const value = encode(d.value, 0);
    // A method's own name and length, which a script reads (jsdom's `setTimeout` is anonymous);
    // the `$function` label is the naming rule's, the global path it was reached by.
    if (typeof d.value === "function" && value !== null && typeof value === "object") {
      const length = dataOf(d.value, "length");
      value.name = fnName(d.value);
      value.length = typeof length === "number" ? length : 0;
    }
    return {
      kind: "data",
      configurable: !!d.configurable,
      enumerable: !!d.enumerable,
      writable: !!d.writable,
      value: value,
    };
  }

  // The property facts: owner, descriptor, getter/setter owner. `d` is the descriptor to describe
  // (the original one when the caller has since replaced it); by default the current one.
  function measureProperty(holder, name, d) {
    const out = {};
    if (holder === null || holder === undefined) {
      out.owner = null;
      out.descriptor = null;
      return out;
    }
    const descriptor = d || gopd(holder, name);
    out.owner = holderName(holder);
    out.descriptor = describeDescriptor(descriptor);
    if (descriptor && ("get" in descriptor || "set" in descriptor)) {
      out.getterOwner = descriptor.get ? out.owner : null;
      out.setterOwner = descriptor.set ? out.owner : null;
    }
    return out;
  }

  // The interfaces whose objects have indexed or named properties (`opts.keysComputedBy`, the
  // tool's `contract::KEYS_COMPUTED_BY`): their own keys are computed by the environment's code,
  // which jsdom and happy-dom run as a Proxy's traps, and running them is not invisible (happy-dom's
  // `ownKeys` of a `<select>` caches its option list, and an option appended next is then not
  // selected). Their own-key lists are not measured, in the browser or in an environment: absent,
  // not sampled.
  const INDEXED_OR_NAMED = O.create(null);
  const indexedOrNamed = isArray(opts.keysComputedBy) ? opts.keysComputedBy : [];
  for (let i = 0; i < indexedOrNamed.length; i++) INDEXED_OR_NAMED[indexedOrNamed[i]] = true;
  function keysComputed(chain) {
    for (let i = 0; i < chain.length; i++) if (INDEXED_OR_NAMED[chain[i]] === true) return true;
    return false;
  }
  // Such an object's brand, as `Object.prototype.toString` gives it, without asking the object
  // for its `Symbol.toStringTag` (a Proxy's `get` trap: happy-dom's binds the member it is asked
  // for onto the object, an own property the page would then see): the tag is looked up along the
  // chain from its prototype, a getter called on the object as the lookup would.
  function brandOfComputed(value) {
    try {
      for (let p = getProto(value), i = 0; p !== null && i < 64; p = getProto(p), i++) {
        const d = gopd(p, toStringTag);
        if (d === undefined) continue;
        const tag = "get" in d ? (typeof d.get === "function" ? apply(d.get, value, []) : undefined) : d.value;
        return "[object " + (typeof tag === "string" ? tag : "Object") + "]";
      }
    } catch (_) {
      return "[object Unknown]";
    }
    return "[object Object]";
  }

  // The value facts: brand, constructor name, instanceof, prototype chain, and the own-key lists
  // of objects and functions (but those whose keys the environment computes, above).
  function measureValue(value, out) {
    const facts = out || {};
    const chain = chainOf(value);
    const computed = value !== null && typeof value === "object" && keysComputed(chain);
    facts.brand = computed ? brandOfComputed(value) : brandOf(value);
    facts.constructorName = constructorNameOf(value);
    facts.prototypeChain = chain;
    facts.instanceOf = instanceOfNames(value, chain);
    if (value !== null && (typeof value === "object" || typeof value === "function") && !computed) {
      const lists = keyLists(value);
      facts.keys = lists.keys;
      facts.ownNames = lists.ownNames;
      facts.ownSymbols = lists.ownSymbols;
      facts.ownKeys = lists.ownKeys;
    }
    return facts;
  }

  // Every structural field for `value`, reached as property `name` of `holder` (the object that
  // holds the property; `findHolder` finds it from a receiver).
  function measure(value, holder, name) {
    return measureValue(value, measureProperty(holder, name));
  }

  function exceptionOf(error) {
    if (error !== null && (typeof error === "object" || typeof error === "function")) {
      const type = constructorNameOf(error) || tagOf(error);
      let message = "";
      let name;
      try {
        message = StringOf(error.message);
        name = error.name;
      } catch (_) {
        message = "";
      }
      const out = { type: type, message: message };
      if (typeof name === "string" && name !== type) out.name = name;
      return out;
    }
    return { type: typeof error, message: StringOf(error) };
  }

  function isOwnUrl(url) {
    for (let i = 0; i < ownUrls.length; i++) if (url === ownUrls[i]) return true;
    return false;
  }

  // The top `limit` frames of the current stack, the measurer's own frames left out; 1-based.
  // `above` (optional) is the caller's own entry function: it and every frame above it are not
  // even captured.
  function stack(limit, above) {
    // `limit` frames and the one of the probe's trap the access went through (between `above`
    // and the page) first: V8 pays for every frame it captures (its summary, its call site),
    // microseconds each in a real page's code, and more frames the record leaves out (the
    // probe's own, a built-in's) are rare. Only when there were more, and the stack went deeper,
    // is it captured again with room for them.
    if (above !== undefined && captureStackTrace !== null) {
      const sites = callSites(limit + 1, above);
      const out = framesOf(sites, limit);
      if (out.length === limit || sites.length < limit + 1) return out;
      return framesOf(callSites(limit + 16, above), limit);
    }
    return framesOf(callSites(limit + 16, undefined), limit);
  }

  // The call sites of the current stack, at most `count`: above `above` (a function of the
  // probe's, left out with everything it called), or from here. Error's own `prepareStackTrace`
  // and `stackTraceLimit` are set for the capture and put back as the page left them, through
  // their descriptors: a page's accessor there (a known way to notice that something formats
  // stacks) is never called, and a property the page never had is not left behind. Where one
  // cannot be set without the page's code (its non-configurable accessor), nothing is captured.
  function callSites(count, above) {
    const pinned = pinGlobalError ? pinError() : NOT_PINNED;
    let hook;
    let limit;
    try {
      hook = gopd(ErrorC, "prepareStackTrace");
      limit = gopd(ErrorC, "stackTraceLimit");
    } catch (_) {
      if (pinned !== NOT_PINNED) putBack(g, "Error", pinned.was);
      return [];
    }
    let sites = [];
    let hookSet = false;
    let limitSet = false;
    try {
      hookSet = setOwn(ErrorC, "prepareStackTrace", hook, returnCallSites);
      limitSet = hookSet && setOwn(ErrorC, "stackTraceLimit", limit, count);
      if (limitSet) {
        let captured;
        if (above !== undefined) {
          const holder = {};
          captureStackTrace(holder, above);
          captured = holder.stack;
        } else {
          captured = new ErrorC().stack;
        }
        if (isArray(captured)) sites = captured;
      }
    } catch (_) {
      sites = [];
    } finally {
      if (limitSet) putBack(ErrorC, "stackTraceLimit", limit);
      if (hookSet) putBack(ErrorC, "prepareStackTrace", hook);
      if (pinned !== NOT_PINNED) putBack(g, "Error", pinned.was);
    }
    return sites;
  }

  // A writable data property is set and put back by assignment (no page code runs for it).
  function writableData(d) {
    return d !== undefined && d.writable === true;
  }

  // `object`'s own `key` made `value` without running page code (described before by `d`, or
  // absent); false where that cannot be done (a non-configurable accessor, a frozen object).
  function setOwn(object, key, d, value) {
    if (writableData(d)) {
      object[key] = value;
      return true;
    }
    if (d !== undefined && d.configurable !== true) return false;
    try {
      defineProp(object, key, {
        value: value,
        writable: true,
        enumerable: d === undefined ? false : d.enumerable === true,
        configurable: true,
      });
    } catch (_) {
      return false;
    }
    return true;
  }

  // `object`'s own `key` as `d` described it before `setOwn` (absent: deleted).
  function putBack(object, key, d) {
    try {
      if (d === undefined) deleteProp(object, key);
      else if (writableData(d)) object[key] = d.value;
      else defineProp(object, key, d);
    } catch (_) {
      // put back as far as it goes
    }
  }

  // The global `Error` made this realm's own for a capture: `NOT_PINNED` when it already is (a
  // data property holding it) or cannot be made so; else `{was}`, its descriptor to put back.
  function pinError() {
    let d;
    try {
      d = gopd(g, "Error");
    } catch (_) {
      return NOT_PINNED;
    }
    if (d !== undefined && d.value === ErrorC && d.get === undefined && d.set === undefined) return NOT_PINNED;
    return setOwn(g, "Error", d, ErrorC) ? { was: d } : NOT_PINNED;
  }

  // The script whose code made an eval'd frame's code, from V8's eval origin (`eval at make
  // (/w/lib.js:1:22)`, nested as `eval at f (eval at g (/w/a.js:1:2), <anonymous>:1:1)`): the
  // innermost location that is a script's; null when none is.
  const evalLocation = /\(([^()]+):\d+:\d+\)/;
  function evalScriptOf(site) {
    let origin = null;
    try {
      origin = site.getEvalOrigin ? site.getEvalOrigin() : null;
    } catch (_) {
      origin = null;
    }
    if (typeof origin !== "string") return null;
    const found = apply(reExec, evalLocation, [origin]);
    return found !== null && found[1] !== "<anonymous>" ? found[1] : null;
  }

  // The record's frames of `sites`, nearest first, at most `limit`: the page's, not the probe's
  // own nor a built-in function's.
  function framesOf(sites, limit) {
    const out = [];
    for (let i = 0; i < sites.length && out.length < limit; i++) {
      const site = sites[i];
      let url = null;
      try {
        url = site.getScriptNameOrSourceURL ? site.getScriptNameOrSourceURL() : site.getFileName();
      } catch (_) {
        url = null;
      }
      if (isOwnUrl(url)) continue;
      if (probeUrls !== null && typeof url === "string" && apply(strSlice, url, [0, probeUrls.length]) === probeUrls) {
        if (probeNearest && out.length === 0) {
          push(out, { url: url, line: site.getLineNumber(), column: site.getColumnNumber(),
            functionName: site.getFunctionName() || "" });
          return out;
        }
        continue;
      }
      if (url === null || url === undefined) {
        // Code run by `eval` has no script name: it is kept, with an empty URL (a script the page
        // evaluated is the page's code); a built-in function's frame is left out.
        let evaluated = false;
        try {
          evaluated = site.isEval ? site.isEval() : false;
        } catch (_) {
          evaluated = false;
        }
        if (!evaluated) continue;
        url = "";
      }
      const frame = {
        url: url,
        line: site.getLineNumber(),
        column: site.getColumnNumber(),
        functionName: site.getFunctionName() || "",
      };
      // In an environment under audit, eval'd code also names the script that evaluated it (a
      // selector engine's `new Function` in `node_modules` is the environment's, a page's `eval`
      // the page's): the tool tells whose code it is by that script.
      if (url === "" && probeNearest) {
        const from = evalScriptOf(site);
        if (from !== null) frame.evalUrl = from;
      }
      push(out, frame);
    }
    return out;
  }

  return {
    measure: measure,
    measureProperty: measureProperty,
    measureValue: measureValue,
    describeFn: describeFn,
    describeDescriptor: describeDescriptor,
    encode: function (value) {
      return encode(value, 0);
    },
    holderName: holderName,
    receiverName: receiverName,
    idOf: idOf,
    constructorNameOf: constructorNameOf,
    chainOf: chainOf,
    findHolder: findHolder,
    exceptionOf: exceptionOf,
    stack: stack,
  };
}

if (typeof module === "object" && module && typeof module.exports === "object") {
  module.exports = tracerReflect;
}
