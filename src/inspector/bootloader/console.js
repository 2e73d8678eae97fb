  // ---- console.js: the console capture, inside the bootloader's closure (assembled after
  // boot.js: `inspector::boot::BOOT_JS`). ----
  // The program's own console stays Node's. Each method is, as in plain Node, a bound function
  // with Node's `name` and `length` and a native source text, bound to a private receiver that
  // inherits everything from `console` and says which method was called. Only the inspector's
  // half of Node's console call is left out (the half that made one protocol message per call).
  // Node's `kWriteToConsole` stays Node's own. The methods that print straight to it (`log`,
  // `warn`, `dir` and their aliases) run Node's own text with one call added between the
  // formatting and the write, which records the text as Node prints it, with its call site (the
  // first frame outside Node's console); that text is compiled under Node's file name at Node's
  // line and column (`emulate`), so every frame the program can see (an error made while a value
  // is formatted or while the text is written, a stack taken in a replaced `stdout.write`) is the
  // frame plain Node gives, at the same position. No frame of this file is on the stack while any
  // code of the program's runs, and none is added to what `console.trace` prints. Methods that
  // print nothing are seen where they change the console's state: `group`, `groupCollapsed` and
  // `groupEnd` where they set the indentation, `clear` where it looks at its stream. A call of
  // Node's console printing through `console.log` when the program has replaced it goes to the
  // program's function, as in Node.
  //
  // `prepareConsole` builds all of it and changes nothing; the `install(send)` it returns puts
  // it in place (and returns what to run at exit), or declines (null) if the console changed in
  // between. Where any of it cannot be had as this file expects (another Node's text, a frozen
  // `Error`, no `vm`), it declines, and the inspector reports every console call itself.
  function prepareConsole() {
    const Console = console.Console;
    // Reflect.ownKeys: Object.getOwnPropertySymbols(console) takes about 0.2 ms the first time.
    const symbols = Reflect.ownKeys(console).filter((k) => typeof k === 'symbol');
    const kWrite = symbols.find((s) => s.description === 'kWriteToConsole');
    const kGroupIndent = symbols.find((s) => s.description === 'kGroupIndent');
    const nodeWrite = kWrite && console[kWrite];
    if (typeof nodeWrite !== 'function' || kGroupIndent === undefined) return null;
    // Printing straight to kWriteToConsole; printing through this.log / this.warn / this.error;
    // recorded where they set the indentation; recorded where they read the stream; not
    // recorded (they print nothing, and the inspector reports nothing for them either).
    const direct = ['log', 'info', 'debug', 'warn', 'error', 'dir', 'dirxml'];
    const through = ['table', 'trace', 'assert', 'count', 'timeEnd', 'timeLog'];
    const grouping = ['group', 'groupCollapsed', 'groupEnd'];
    const silent = ['time', 'countReset'];
    const all = [...direct, ...through, ...grouping, 'clear', ...silent];
    for (const m of all) {
      if (typeof Console.prototype[m] !== 'function' || typeof console[m] !== 'function') return null;
    }
    const { apply, defineProperty, getOwnPropertyDescriptor, deleteProperty } = Reflect;
    const { create, hasOwn, isFrozen } = Object;
    const split = String.prototype.split;
    const includes = String.prototype.includes;
    const bind = Function.prototype.bind;
    const captureStackTrace = Error.captureStackTrace;
    const ErrorCtor = Error;
    const stringify = JSON.stringify;
    const round = Math.round;
    const queue = queueMicrotask;
    // Milliseconds on a monotonic clock (`perf_hooks` would cost about 1 ms to load).
    const hrtime = process.hrtime;
    const now = () => {
      const t = apply(hrtime, process, []);
      return t[0] * 1e3 + t[1] / 1e6;
    };
    const slice = String.prototype.slice;
    const charCodeAt = String.prototype.charCodeAt;
    const startsWith = String.prototype.startsWith;
    const isWellFormed = String.prototype.isWellFormed;
    const toWellFormed = String.prototype.toWellFormed;
    const callSites = (_, sites) => sites;
    // Both modules are loaded by Node's own start-up: requiring them adds nothing a program sees.
    const executionAsyncResource = require('async_hooks').executionAsyncResource;
    const isProxy = require('util').types.isProxy;
    // The CallSite methods as they are now (a program can reach their prototype later).
    const proto = isFrozen(ErrorCtor) ? {} : Object.getPrototypeOf(stack(undefined, 1)[0]);
    const fileName = proto.getFileName;
    const lineNumber = proto.getLineNumber;
    const columnNumber = proto.getColumnNumber;
    const functionName = proto.getFunctionName;

    // V8's structured frames below `below`, at most `limit`. Error.prepareStackTrace and
    // Error.stackTraceLimit are set for the capture and put back as the program left them,
    // through their descriptors: a program's accessor there (a known way to notice that
    // something formats stacks) is never called, and a property it never had is not left
    // behind. Undefined where one cannot be set without the program's code (its
    // non-configurable accessor).
    function stack(below, limit) {
      const hook = getOwnPropertyDescriptor(ErrorCtor, 'prepareStackTrace');
      const limitWas = getOwnPropertyDescriptor(ErrorCtor, 'stackTraceLimit');
      let hookSet = false;
      let limitSet = false;
      try {
        hookSet = setOwn('prepareStackTrace', hook, callSites);
        limitSet = hookSet && setOwn('stackTraceLimit', limitWas, limit);
        if (!limitSet) return undefined;
        const holder = {};
        captureStackTrace(holder, below);
        return holder.stack;
      } finally {
        if (limitSet) putBack('stackTraceLimit', limitWas);
        if (hookSet) putBack('prepareStackTrace', hook);
      }
    }
    // Error's own `key` made `value` without running the program's code (a writable data
    // property by assignment); false where that cannot be done.
    function setOwn(key, d, value) {
      if (d !== undefined && d.writable === true) {
        ErrorCtor[key] = value;
        return true;
      }
      if (d !== undefined && d.configurable !== true) return false;
      const enumerable = d !== undefined && d.enumerable === true;
      return defineProperty(ErrorCtor, key, { value, writable: true, enumerable, configurable: true });
    }
    // Error's own `key` as `d` described it before `setOwn` (absent: deleted).
    function putBack(key, d) {
      if (d === undefined) deleteProperty(ErrorCtor, key);
      else if (d.writable === true) ErrorCtor[key] = d.value;
      else defineProperty(ErrorCtor, key, d);
    }
    const inConsole = (file) => typeof file === 'string' && apply(startsWith, file, ['node:internal/console/']);
    // Where a call was made: V8's structured frames below `below` (at most `limit`); or, when
    // the program froze `Error` (`--frozen-intrinsics`, a lockdown) so that they cannot be asked
    // for, the stack's text, which tracer reads.
    function where(below, limit) {
      if (fileName === undefined || isFrozen(ErrorCtor)) {
        const holder = {};
        captureStackTrace(holder, below);
        return typeof holder.stack === 'string' ? holder.stack : undefined;
      }
      return stack(below, limit);
    }
    // Where a method that prints straight to kWriteToConsole was called: the one frame below
    // the method (`method`, the emulated one on the stack just under `recordText`). V8 summarizes every
    // frame it collects (about 1.2 µs each in a hot loop), so this asks for one frame instead of
    // the method's and its caller's. Undefined where that cannot be had (the structured frames
    // are unavailable, or Node's method is not on the stack); `where` is asked then.
    function callerOf(method) {
      if (fileName === undefined || isFrozen(ErrorCtor)) return undefined;
      const sites = stack(method, 1);
      return sites !== undefined && sites.length === 1 ? sites : undefined;
    }
    // Whether the caller of Node's console method is Node's console again (`group('label')`
    // printing its label through `console.log`): `at` as `where(recordText, …)` gave it, or, with
    // `direct`, as `callerOf` did (the caller alone).
    function calledByConsole(at, direct) {
      if (direct) return inConsole(apply(fileName, at[0], []));
      if (typeof at === 'string') {
        const lines = apply(split, at, ['\n']);
        return lines.length > 2 && apply(includes, lines[2], ['node:internal/console/']);
      }
      return at !== undefined && at.length > 1 && inConsole(apply(fileName, at[1], []));
    }

    // Batches: a call in a quiet program goes out at once; calls in quick succession wait for the
    // end of the current task (a microtask) or a full batch; at exit, everything at once.
    const QUIET_MS = 2;
    const MAX_BATCH = 256;
    const MAX_BYTES = 256 * 1024;
    const MAX_TEXT = 2048;
    let send = null;
    let batch = [];
    // Calls the recording failed on (a program that froze `Error`, say): counted and sent.
    let unrecorded = 0;
    let lastUrl = null;
    let lastName = null;
    let bytes = 0;
    let lastSent = -Infinity;
    let scheduled = false;
    let exiting = false;
    const flush = () => {
      if (batch.length === 0 && unrecorded === 0) return;
      const calls = batch;
      batch = [];
      bytes = 0;
      lastSent = now();
      // Each call's time becomes its age at sending, in milliseconds to the microsecond.
      for (let i = 0; i < calls.length; i++) {
        calls[i][1] = round((lastSent - calls[i][1]) * 1000) / 1000;
      }
      const lost = unrecorded;
      unrecorded = 0;
      try {
        // `sent` is the batch's time on the machine's monotonic clock (`process.hrtime`), which
        // tracer reads too: its calls keep their own times however late tracer reads the batch.
        const sent = round(lastSent * 1000) / 1000;
        send(stringify(lost === 0 ? { count: calls.length, calls, sent } : { count: calls.length, calls, sent, unrecorded: lost }));
      } catch (e) {}
    };
    const flushTask = () => {
      scheduled = false;
      flush();
    };
    function counted() {
      unrecorded++;
      if (exiting) {
        flush();
      } else if (!scheduled) {
        scheduled = true;
        queue(flushTask);
      }
    }
    // The `node:test` test whose own code makes the call now, as `outer > inner > test`: the test
    // being run is the resource its function runs in (Node's `Test` is an `AsyncResource`),
    // known by its own data properties (nothing of the program's runs: no getter is called,
    // no Proxy asked). Null outside a test, after an `await` in one (the resource is then the
    // promise's), and in a test whose suite runs its tests concurrently: only a test's
    // synchronous code, run while no other test of its file runs, is named.
    function testOf() {
      const names = [];
      let resource = executionAsyncResource();
      for (let depth = 0; depth < 16; depth++) {
        if (resource === null || typeof resource !== 'object' || isProxy(resource)) return null;
        const number = getOwnPropertyDescriptor(resource, 'testNumber');
        if (number === undefined || typeof number.value !== 'number') return null;
        const parent = getOwnPropertyDescriptor(resource, 'parent');
        const name = getOwnPropertyDescriptor(resource, 'name');
        if (parent === undefined || name === undefined || typeof name.value !== 'string') return null;
        if (depth > 0) {
          // A suite (or the root) running its tests concurrently: their calls interleave, and
          // a test's could not bound another's; such tests are named by none of their calls.
          const concurrency = getOwnPropertyDescriptor(resource, 'concurrency');
          if (concurrency === undefined || concurrency.value !== 1) return null;
        }
        // The root test (`<root>`) has no parent and names no test of the program's.
        if (parent.value === null) break;
        names[names.length] = name.value;
        resource = parent.value;
      }
      if (names.length === 0) return null;
      let path = names[names.length - 1];
      for (let i = names.length - 2; i >= 0; i--) path = path + ' > ' + names[i];
      return path;
    }
    // One call: `method` as the program called it, `text` as Node printed it, its call site the
    // first frame of `at` (see `where`) outside Node's console.
    const LABEL_UNSEEN = "the group's label, if it had one, went to the program's own console.log and is not recorded";
    function record(method, text, at, note = null) {
      const stackText = typeof at === 'string' ? at : null;
      const sites = typeof at === 'string' ? undefined : at;
      let caller;
      if (sites !== undefined) {
        for (let i = 0; i < sites.length; i++) {
          if (!inConsole(apply(fileName, sites[i], []))) {
            caller = sites[i];
            break;
          }
        }
      }
      const file = caller ? apply(fileName, caller, []) : undefined;
      // A long text is cut here; how many characters it had (code points, as tracer counts
      // them) goes with it.
      let length = null;
      if (text.length > MAX_TEXT) {
        length = text.length;
        for (let i = 0; i < text.length - 1; i++) {
          const unit = apply(charCodeAt, text, [i]);
          if (unit >= 0xd800 && unit <= 0xdbff) {
            const next = apply(charCodeAt, text, [i + 1]);
            if (next >= 0xdc00 && next <= 0xdfff) {
              length--;
              i++;
            }
          }
        }
        text = apply(slice, text, [0, MAX_TEXT]);
      }
      if (isWellFormed !== undefined && !apply(isWellFormed, text, [])) {
        text = apply(toWellFormed, text, []);
      }
      const time = now();
      // The file and the function's name are 0 when they are the previous call's in the batch.
      const url = typeof file === 'string' ? file : null;
      const name = caller ? apply(functionName, caller, []) : null;
      const sameUrl = batch.length > 0 && url !== null && url === lastUrl;
      const sameName = batch.length > 0 && name !== null && name === lastName;
      lastUrl = url;
      lastName = name;
      const entry = [
        method,
        time,
        sameUrl ? 0 : url,
        caller ? apply(lineNumber, caller, []) : null,
        caller ? apply(columnNumber, caller, []) : null,
        sameName ? 0 : name,
        text,
      ];
      let test = null;
      try {
        test = testOf();
      } catch (e) {}
      if (length !== null || note !== null || stackText !== null || test !== null) {
        entry[7] = length;
        entry[8] = note;
        entry[9] = stackText;
        if (test !== null) entry[10] = test;
      }
      if (batch.length === 0 && (exiting || time - lastSent > QUIET_MS)) {
        batch[0] = entry;
        flush();
        return;
      }
      batch[batch.length] = entry;
      bytes += text.length;
      if (exiting || batch.length >= MAX_BATCH || bytes >= MAX_BYTES) {
        flush();
      } else if (!scheduled) {
        scheduled = true;
        queue(flushTask);
      }
    }

    const kMethod = Symbol('method');
    // The recording's own key on the receivers (see `emulate`).
    const kRecord = Symbol('record');
    const emulated = emulate();
    if (emulated === null) return null;
    const receivers = {};
    const bound = {};
    for (const m of all) {
      const receiver = create(console);
      receiver[kMethod] = m;
      receiver[kRecord] = recordText;
      receivers[m] = receiver;
      const impl = hasOwn(emulated.of, m) ? emulated.of[m] : Console.prototype[m];
      bound[m] = apply(bind, impl, [receiver]);
    }
    // What `group('label')` printed through `console.log`, for the group's own record.
    let groupLabel;
    // The text a method that prints straight to kWriteToConsole formatted, on its way to Node's
    // write (called as `this[kRecord](text)` by the emulated method, `this` its receiver);
    // returns it as it came, whatever the recording meets.
    function recordText(string) {
      const method = this[kMethod];
      if (typeof string === 'string') {
        try {
          const own = hasOwn(emulated.of, method) ? callerOf(emulated.of[method]) : undefined;
          const at = own !== undefined ? own : where(recordText, method === 'log' || method === 'warn' ? 2 : 6);
          if (method === 'log' && calledByConsole(at, own !== undefined)) {
            // `group('label')` printing its label: recorded as the group, where it indents.
            groupLabel = string;
          } else {
            record(method, string, at);
          }
        } catch (e) {
          counted();
        }
      }
      return string;
    }

    // Node's own methods that print straight to kWriteToConsole, rebuilt with the recording
    // between the formatting and the write: `{ of }`, the function for each method of `direct`
    // (unbound), or null where that cannot be done exactly.
    //
    // The text run is this file's (`OWN_TEXT`); it is used only where Node's own method has
    // exactly the text this file knows (`NODE_TEXT`), and it differs from it only after the
    // write call's opening parenthesis: `kUseStdout, ` (12 characters) becomes `U,  this[R](`,
    // so every later call on that line keeps its column. It is compiled under Node's file name
    // with the write call on Node's line; that every call the program could see (the write, the
    // formatting, `dir`'s options and stream) is at Node's line and column is then measured,
    // against Node's own method, with receivers that only note where they were called from.
    function emulate() {
      const NODE_TEXT = {
        log: 'log(...args) {\n    this[kWriteToConsole](kUseStdout, this[kFormatForStdout](args));\n  }',
        warn: 'warn(...args) {\n    this[kWriteToConsole](kUseStderr, this[kFormatForStderr](args));\n  }',
        dir: 'dir(object, options) {\n    this[kWriteToConsole](kUseStdout, inspect(object, {\n      customInspect: false,\n' +
          '      ...this[kGetInspectOptions](this._stdout),\n      ...options,\n    }));\n  }',
      };
      const OWN_TEXT = {
        log: 'log(...args) {\n    this[kWriteToConsole](U,  this[R](this[kFormatForStdout](args)));\n  }',
        warn: 'warn(...args) {\n    this[kWriteToConsole](E,  this[R](this[kFormatForStderr](args)));\n  }',
        dir: 'dir(object, options) {\n    this[kWriteToConsole](U,  this[R](inspect(object, {\n      customInspect: false,\n' +
          '      ...this[kGetInspectOptions](this._stdout),\n      ...options,\n    })));\n  }',
      };
      const FILE = 'node:internal/console/constructor';
      const kFormatOut = symbols.find((k) => k.description === 'kFormatForStdout');
      const kFormatErr = symbols.find((k) => k.description === 'kFormatForStderr');
      const kOptions = symbols.find((k) => k.description === 'kGetInspectOptions');
      if (fileName === undefined || kFormatOut === undefined || kFormatErr === undefined || kOptions === undefined) {
        return null;
      }
      const toText = Function.prototype.toString;
      // Which of Node's three each method of `direct` is.
      const which = create(null);
      for (const m of direct) {
        const text = apply(toText, Console.prototype[m], []);
        const name = ['log', 'warn', 'dir'].find((n) => NODE_TEXT[n] === text);
        if (name === undefined) return null;
        which[m] = name;
      }
      // Where a method called the functions of `fake` (each notes the caller's line and column,
      // and the first argument of the write), and what it returned.
      function measure(method, object, options) {
        const seen = { symbol: undefined };
        const note = (key) => function noted(first) {
          const sites = stack(noted, 1);
          const site = sites[0];
          seen[key] = apply(lineNumber, site, []) + ':' + apply(columnNumber, site, []) + ':' + apply(fileName, site, []);
          if (key === 'write') seen.symbol = first;
          return key === 'options' ? {} : key === 'spread' ? undefined : '';
        };
        const fake = create(console);
        fake[kWrite] = note('write');
        fake[kFormatOut] = note('format');
        fake[kFormatErr] = note('format');
        fake[kOptions] = note('options');
        fake[kRecord] = (text) => text;
        defineProperty(fake, '_stdout', { get: note('stream') });
        const spread = {};
        defineProperty(spread, 'depth', { get: note('spread'), enumerable: true });
        apply(method, fake, method.length === 2 ? [object, spread] : [object]);
        return seen;
      }
      const vm = require('vm');
      const inspect = require('util').inspect;
      const of = create(null);
      let U;
      let E;
      for (const name of ['log', 'warn', 'dir']) {
        const node = Console.prototype[name];
        const expected = measure(node, undefined);
        const line = Number(apply(split, expected.write, [':'])[0]);
        if (!(line >= 3)) return null;
        if (name === 'warn') E = expected.symbol;
        else U = expected.symbol;
        // The method's second line (the write) on Node's line: the header is line 1 of the
        // script, the method's first line line 2.
        const source = "'use strict';(function (kWriteToConsole, kFormatForStdout, kFormatForStderr, kGetInspectOptions, inspect, U, E, R) { return {\n  " +
          OWN_TEXT[name] + '\n}.' + name + '; })';
        const make = new vm.Script(source, { filename: FILE, lineOffset: line - 3 }).runInThisContext();
        const fn = make(kWrite, kFormatOut, kFormatErr, kOptions, inspect, U, E, kRecord);
        const got = measure(fn, undefined);
        for (const key of ['write', 'format', 'options', 'stream', 'spread', 'symbol']) {
          if (got[key] !== expected[key]) return null;
        }
        of[name] = fn;
      }
      if (U === undefined || E === undefined || U === E) return null;
      const methods = create(null);
      for (const m of direct) methods[m] = of[which[m]];
      return { of: methods };
    }
    // table, trace, assert, count, timeEnd and timeLog print through `this.log` / `this.warn` /
    // `this.error`: their own while the program's console still has Node's, else the program's.
    for (const m of through) {
      const receiver = receivers[m];
      for (const k of ['log', 'warn', 'error']) {
        const own = apply(bind, hasOwn(emulated.of, k) ? emulated.of[k] : Console.prototype[k], [receiver]);
        defineProperty(receiver, k, {
          get() {
            const current = console[k];
            return current === bound[k] ? own : current;
          },
          set(value) {
            console[k] = value;
          },
        });
      }
    }
    for (const m of grouping) {
      function indent(value) {
        console[kGroupIndent] = value;
        try {
          // The label `group` printed just before; else the inspector's text for none.
          let text = m === 'groupEnd' ? undefined : groupLabel;
          groupLabel = undefined;
          // A label printed through the program's own `console.log` is not seen here.
          const unseen = text === undefined && m !== 'groupEnd' && console.log !== bound.log;
          if (text === undefined) text = `console.${m}`;
          record(m, text, where(indent, 4), unseen ? LABEL_UNSEEN : null);
        } catch (e) {
          counted();
        }
      }
      defineProperty(receivers[m], kGroupIndent, {
        get() {
          return console[kGroupIndent];
        },
        set: indent,
      });
    }
    function clearing() {
      try {
        record('clear', 'console.clear', where(clearing, 4));
      } catch (e) {
        counted();
      }
      return console._stdout;
    }
    defineProperty(receivers.clear, '_stdout', { get: clearing });
    const was = create(null);
    for (const m of all) {
      was[m] = console[m];
      defineProperty(bound[m], 'name', getOwnPropertyDescriptor(was[m], 'name'));
      defineProperty(bound[m], 'length', getOwnPropertyDescriptor(was[m], 'length'));
    }
    return (binding) => {
      if (console[kWrite] !== nodeWrite) return null;
      for (const m of all) {
        if (console[m] !== was[m]) return null;
      }
      send = binding;
      for (const m of all) console[m] = bound[m];
      return () => {
        exiting = true;
        flush();
      };
    };
  }
})();
