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

