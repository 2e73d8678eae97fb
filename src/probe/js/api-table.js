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

