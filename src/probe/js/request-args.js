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

