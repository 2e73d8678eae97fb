// examples/conformance, a deliberately WRONG environment. `run.sh wrong` copies it to case/result/final.js.
// Part 1 is the environment shim (the only part that differs from result-fixed/final.js), wrong in
// four places marked WRONG;
// part 2 runs the script under test, ../../app.js (the page's script), and reports nothing:
// `tracer audit` records what the script does in this environment itself.

// ---- Part 1: the environment shim (installed on globalThis, i.e. Node's main context) ----------
const kState = new WeakMap(); // XHR state lives here, so instances have no own keys (as in a browser)
class Window {}
Object.setPrototypeOf(globalThis, Window.prototype);
class Navigator {}
class Document {
  get cookie() { return ''; }
}
class HTMLDocument extends Document {}
class Screen {
  get width() { return 1920; }
}
const kListeners = new WeakMap();
class EventTarget {
  addEventListener(type, listener) {
    if (!kListeners.has(this)) kListeners.set(this, []);
    kListeners.get(this).push({ type, listener });
  }
  dispatchEvent(event) {
    for (const { type, listener } of kListeners.get(this) ?? []) {
      if (type === event.type) listener.call(this, event);
    }
    return true;
  }
}
// WRONG (2): no XMLHttpRequestEventTarget between XMLHttpRequest and EventTarget.
class XMLHttpRequest extends EventTarget {
  get readyState() { return kState.get(this)?.readyState ?? 0; }
  get status() { return kState.get(this)?.status ?? 0; }
  get onreadystatechange() { return kState.get(this)?.onrsc ?? null; }
  set onreadystatechange(f) { this.#state().onrsc = f; }
  open(method, url) { Object.assign(this.#state(), { method, url, readyState: 1 }); }
  send() {
    // WRONG (4): an extra network call: the shim really sends the request (the audit's guard
    // refuses it; the error is swallowed, as careless shims do). A canned 200 answers anyway.
    const s = this.#state();
    require('node:https').get(s.url).on('error', () => {});
    const step = (readyState, status) => {
      Object.assign(s, { readyState, status });
      this.dispatchEvent({ type: 'readystatechange' });
      if (typeof s.onrsc === 'function') s.onrsc.call(this, { type: 'readystatechange' });
    };
    setTimeout(() => { step(2, 200); setTimeout(() => step(4, 200), 1); }, 1);
  }
  // WRONG (3): no Symbol.toStringTag, so the brand is [object Object], not [object XMLHttpRequest].
  #state() {
    if (!kState.has(this)) kState.set(this, { readyState: 0, status: 0, onrsc: null });
    return kState.get(this);
  }
}
Object.assign(globalThis, {
  EventTarget, Navigator, Document, HTMLDocument, Screen, XMLHttpRequest,
  navigator: new Navigator(), document: new HTMLDocument(), screen: new Screen(),
});
// WRONG (1): the getter is an own property of the navigator instance, not of Navigator.prototype.
Object.defineProperty(navigator, 'userAgent', {
  get() { return 'Mozilla/5.0 (X11; Linux x86_64) Example/1.0'; }, configurable: true, enumerable: true,
});

// ---- Part 2: the script under test -------------------------------------------------------------
// The page's own script, unchanged; the contract names it (`app.js`), so the tool's probe goes into
// this context just before its first line.
require('../../app.js');
