// examples/conformance, the CORRECTED environment. `run.sh fixed` copies it to case/result/final.js.
// Part 1 is the environment shim (the only part that differs from result-wrong/final.js);
// part 2 is the script under test plus the entry's own report of what it saw.

// ---- Part 1: the environment shim (installed on globalThis, i.e. Node's main context) ----------
const kState = new WeakMap(); // XHR state lives here, so instances have no own keys (as in a browser)
class Window {}
Object.setPrototypeOf(globalThis, Window.prototype);
class Navigator {
  get userAgent() { return 'Mozilla/5.0 (X11; Linux x86_64) Example/1.0'; } // on the prototype
}
class Document {
  get cookie() { return ''; }
}
class HTMLDocument extends Document {}
class Screen {
  get width() { return 1920; }
}
class EventTarget {
  addEventListener() {}
}
class XMLHttpRequestEventTarget extends EventTarget {}
class XMLHttpRequest extends XMLHttpRequestEventTarget {
  get readyState() { return kState.get(this)?.readyState ?? 0; }
  get status() { return kState.get(this)?.status ?? 0; }
  get onreadystatechange() { return kState.get(this)?.onrsc ?? null; }
  set onreadystatechange(f) { this.#state().onrsc = f; }
  open(method, url) { Object.assign(this.#state(), { method, url, readyState: 1 }); }
  send() {
    // Audit-only: no request leaves the process; a canned 200 answers it.
    const s = this.#state();
    const step = (readyState, status) => {
      Object.assign(s, { readyState, status });
      if (typeof s.onrsc === 'function') s.onrsc.call(this, { type: 'readystatechange' });
    };
    setTimeout(() => { step(2, 200); setTimeout(() => step(4, 200), 1); }, 1);
  }
  get [Symbol.toStringTag]() { return 'XMLHttpRequest'; }
  #state() {
    if (!kState.has(this)) kState.set(this, { readyState: 0, status: 0, onrsc: null });
    return kState.get(this);
  }
}
Object.assign(globalThis, {
  EventTarget, Navigator, Document, HTMLDocument, Screen, XMLHttpRequestEventTarget, XMLHttpRequest,
  navigator: new Navigator(), document: new HTMLDocument(), screen: new Screen(),
});

// ---- Part 2: the script under test, and what the entry reports ---------------------------------
// The tool measures the structure (owners, chains, brands, own keys) itself at exit; the entry
// reports only what the tool cannot see: return values, arguments, exceptions, and the timeline.
// Everything here lives in module scope: nothing is added to the globals the script can see.
const fs = require('node:fs');
const contract = JSON.parse(fs.readFileSync(process.env.WEB_JS_ENV_PATCHER_TRACE_CONTRACT, 'utf8'));
const itemId = (api, accessType, receiver, phase) =>
  contract.items.find((i) => i.api === api && i.accessType === accessType && i.realm === 'main'
    && i.receiver === receiver && i.phase === phase)?.id;
const observations = new Map();
const timeline = [];
let phase = 'init';
let sequence = 0;
const encode = (v) => (v === undefined ? { $undefined: true }
  : v !== null && typeof v === 'object' ? { $object: v.constructor?.name ?? 'Object' } : v);
function observe(api, accessType, receiver, dims) {
  const key = [api, accessType, receiver, phase].join('\u0000');
  if (!observations.has(key)) {
    observations.set(key, { id: itemId(api, accessType, receiver, phase), api, accessType, realm: 'main',
      receiver, phase, observations: {} });
  }
  const o = observations.get(key).observations;
  for (const [d, v] of Object.entries(dims)) {
    o[d] ??= [];
    if (!o[d].some((x) => JSON.stringify(x) === JSON.stringify(v))) o[d].push(v);
  }
}
function run(api, accessType, receiver, args, f) {
  let value; let exception = null;
  try { value = f(); } catch (e) { exception = String(e); }
  observe(api, accessType, receiver, {
    ...(args ? { args } : {}), returnValue: encode(value), exception });
  return value;
}
const event = (api, accessType, receiver, object, name) => {
  observe(api, accessType, receiver, {});
  timeline.push({ contractId: itemId(api, accessType, receiver, phase), sequence: ++sequence, object, event: name });
};
function finish() {
  fs.writeFileSync(process.env.WEB_JS_ENV_PATCHER_TRACE_AUDIT_OUT,
    JSON.stringify({ timeline, observations: [...observations.values()] }, null, 1));
}

// The script under test (what the hand-written trace recorded the browser running).
run('navigator.userAgent', 'get', 'Navigator', null, () => navigator.userAgent);
run('navigator.userAgent', 'get', 'Navigator', null, () => navigator.userAgent);
run('document.cookie', 'get', 'HTMLDocument', null, () => document.cookie);
phase = 'challenge-init';
const xhr = run('XMLHttpRequest', 'construct', 'Window', [], () => new XMLHttpRequest());
xhr.onreadystatechange = function () {
  event('XMLHttpRequest.event:readystatechange', 'event', 'XMLHttpRequest', 'xhr-1', 'readystatechange');
  if (this.readyState !== 4) return;
  phase = 'writer';
  run('screen.width', 'get', 'Screen', null, () => screen.width);
  finish();
};
run('XMLHttpRequest.prototype.open', 'call', 'XMLHttpRequest', ['GET', 'https://a.test/x'],
  () => xhr.open('GET', 'https://a.test/x'));
event('XMLHttpRequest.prototype.open', 'call', 'XMLHttpRequest', 'xhr-1', 'open');
run('XMLHttpRequest.prototype.send', 'call', 'XMLHttpRequest', [null], () => xhr.send(null));
event('XMLHttpRequest.prototype.send', 'call', 'XMLHttpRequest', 'xhr-1', 'send');
