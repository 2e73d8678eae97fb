// requests.js: the audit's request-level view of what a Node program tried to send
// (src/probe/node.rs). Rust calls this function declaration with `Runtime.callFunctionOn` on Node's
// `diagnostics_channel` module (taken with the inspector's own command-line `require` at the
// program's first pause, before any of its code runs), so `this` is that module, with the name of
// a binding the tool added to the main context only. The function takes the binding and deletes it
// from the global before any of the program's code runs. It subscribes to channels Node publishes
// on by itself — `undici:request:create` (fetch), and `http.client.request.start` /
// `http.client.request.error` (the http and https modules) — and sends a description of each
// request through the binding as it starts. It adds no global and wraps nothing; what a program
// could notice is documented in docs/conformance.md (those channels report `hasSubscribers`). It
// never sends, delays or changes a request: the kernel-level guard refuses the connection.
function (bindingName) {
  "use strict";
  const dc = this;
  const BODY_TEXT_LIMIT = 1048576;
  const send = globalThis[bindingName];
  try {
    delete globalThis[bindingName];
  } catch (e) {
    // not deletable: it still works for us.
  }
  if (typeof send !== "function") return;
  const stringify = JSON.stringify;
  const apply = Reflect.apply;
  const isArray = Array.isArray;
  const StringOf = String;
  const strIndexOf = String.prototype.indexOf;
  const strSlice = String.prototype.slice;
  const strSplit = String.prototype.split;
  const strToLower = String.prototype.toLowerCase;

  function add(entry) {
    send(stringify(entry));
  }

  function failed() {
    send("{\"failed\":1}");
  }

  // Header names from a raw header list: undici gives [name, value, name, value, ...] or one
  // "Name: value\r\n" string; http gives its serialized header block.
  function namesOfLines(text) {
    const names = [];
    const lines = apply(strSplit, text, ["\r\n"]);
    for (let i = 0; i < lines.length; i++) {
      const colon = apply(strIndexOf, lines[i], [":"]);
      if (colon > 0) names[names.length] = apply(strSlice, lines[i], [0, colon]);
    }
    return names;
  }

  function headerOf(lines, wanted) {
    for (let i = 0; i < lines.length; i++) {
      const colon = apply(strIndexOf, lines[i], [":"]);
      if (colon > 0 && apply(strToLower, apply(strSlice, lines[i], [0, colon]), []) === wanted) {
        return apply(strSlice, lines[i], [colon + 1]).trim();
      }
    }
    return undefined;
  }

  function onUndici(message) {
    try {
      const r = message && message.request;
      if (!r) return;
      let names = [];
      if (isArray(r.headers)) {
        for (let i = 0; i + 1 < r.headers.length; i += 2) names[names.length] = StringOf(r.headers[i]);
      } else if (typeof r.headers === "string") {
        names = namesOfLines(r.headers);
      }
      const body = {};
      const b = r.body;
      if (b === null || b === undefined || b === "") {
        body.shape = "none";
      } else if (typeof b === "string") {
        body.shape = "text";
        if (b.length <= BODY_TEXT_LIMIT) body.text = b;
      } else if (b instanceof Uint8Array) {
        body.shape = "bytes";
        body.length = b.byteLength;
      }
      if (typeof r.contentLength === "number") body.length = r.contentLength;
      if (typeof r.contentType === "string") body.contentType = r.contentType;
      add({ via: "undici", method: StringOf(r.method), url: StringOf(r.origin) + StringOf(r.path),
        headerNames: names, body: body });
    } catch (e) {
      failed();
    }
  }

  // A request is described once: at `start`, or at `error` when it failed before it had a
  // socket (a connection refused at once by the guard never starts).
  const described = new WeakSet();
  const seen = WeakSet.prototype.has;
  const see = WeakSet.prototype.add;

  function onHttp(message) {
    try {
      const r = message && message.request;
      if (!r || apply(seen, described, [r])) return;
      apply(see, described, [r]);
      const entry = { via: "http" };
      const protocol = typeof r.protocol === "string" ? r.protocol : "http:";
      const header = r._header;
      if (typeof header === "string" && header.length > 0) {
        // What would go on the wire: "METHOD /path HTTP/1.1\r\nName: value\r\n...\r\n\r\n".
        const lines = apply(strSplit, header, ["\r\n"]);
        const request = apply(strSplit, lines[0], [" "]);
        entry.method = request[0];
        const host = headerOf(lines, "host");
        entry.url = protocol + "//" + (host === undefined ? StringOf(r.host) : host) + request[1];
        const rest = [];
        for (let i = 1; i < lines.length; i++) rest[rest.length] = lines[i];
        entry.headerNames = namesOfLines(apply(Array.prototype.join, rest, ["\r\n"]));
        const length = headerOf(lines, "content-length");
        const contentType = headerOf(lines, "content-type");
        entry.body = {};
        if (length !== undefined) entry.body.length = Number(length);
        // Without Content-Length or chunked framing, Node sends no body.
        if (length === "0" || (length === undefined && headerOf(lines, "transfer-encoding") === undefined)) {
          entry.body.shape = "none";
          entry.body.length = 0;
        }
        if (contentType !== undefined) entry.body.contentType = contentType;
      } else {
        entry.method = StringOf(r.method);
        entry.url = protocol + "//" + StringOf(r.host) + StringOf(r.path);
      }
      add(entry);
    } catch (e) {
      failed();
    }
  }

  dc.subscribe("undici:request:create", onUndici);
  dc.subscribe("http.client.request.start", onHttp);
  dc.subscribe("http.client.request.error", onHttp);
}
