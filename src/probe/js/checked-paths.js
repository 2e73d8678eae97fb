// ---- checked paths ------------------------------------------------------------------------

// The audit's question for the contract's items this realm has not reached yet: does the path
// resolve here, in a window the target has not touched, and can the probe watch what it names?
// `config.checkPaths` holds [realm kind, api] pairs (data, never evaluated). Resolved before any
// wrapper is in place (so reading the path records nothing), each found property is looked at
// again once the probe is installed: `absent` lists the paths that do not resolve (the script gets
// `undefined` there), `unwatched` the ones that resolve to a property the probe put no wrapper
// on (an own data property of an object: no access of it can be recorded), `shared` the ones it
// left to another realm's probe (see `anotherProbesWrapper`).
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
// After install: the found properties that hold no wrapper of the probe's, as `unwatched` and
// `shared`.
const sharedPaths = [];
function unwatchedPaths() {
  const out = [];
  for (let i = 0; i < checked.length; i++) {
    const entry = checked[i];
    if (cellAt(entry[1], entry[2]) !== null) continue;
    const d = gopd(entry[1], entry[2]);
    const another = d !== undefined &&
      (anotherProbesWrapper(d.get) || anotherProbesWrapper(d.set) || anotherProbesWrapper(d.value));
    if (another) sharedPaths[sharedPaths.length] = entry[0];
    else out[out.length] = entry[0];
  }
  return out;
}

