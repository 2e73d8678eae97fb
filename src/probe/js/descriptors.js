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

