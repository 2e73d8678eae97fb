  // ---- console.js: the console capture, inside the bootloader's closure (assembled after
  // boot.js: `inspector::boot::BOOT_JS`). ----
  // The program's own console stays Node's. Each method is, as in plain Node, a bound function
  // with Node's `name` and `length` and a native source text; what it runs is Node's own method,
  // bound to a private receiver that inherits everything from `console` and says which method
  // was called. Only the inspector's half of Node's console call is left out (the half that made
  // one protocol message per call). Node's `kWriteToConsole` gets the text as Node prints it; it
  // is recorded with its call site (the first frame outside Node's console) before Node writes
  // it. No frame of this file is on the stack while the program's values are formatted, and
  // none is added to what `console.trace` prints. Methods that print nothing are seen where they
  // change the console's state: `group`, `groupCollapsed` and `groupEnd` where they set the
  // indentation, `clear` where it looks at its stream. A call of Node's console printing through
  // `console.log` when the program has replaced it goes to the program's function, as in Node.
  //
  // `prepareConsole` builds all of it and changes nothing; the `install(send)` it returns puts
  // it in place (and returns what to run at exit), or declines (null) if the console changed in
  // between.
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
    // The CallSite methods as they are now (a program can reach their prototype later).
    const proto = isFrozen(ErrorCtor) ? {} : Object.getPrototypeOf(stack(undefined, 1)[0]);
    const fileName = proto.getFileName;
    const lineNumber = proto.getLineNumber;
    const columnNumber = proto.getColumnNumber;
    const functionName = proto.getFunctionName;

    // V8's structured frames below `below`, at most `limit`; Error.prepareStackTrace and
    // Error.stackTraceLimit are the program's again afterwards, own or not as they were.
    function stack(below, limit) {
      const holder = {};
      const hadPrepare = hasOwn(ErrorCtor, 'prepareStackTrace');
      const prepare = hadPrepare ? ErrorCtor.prepareStackTrace : undefined;
      const hadLimit = hasOwn(ErrorCtor, 'stackTraceLimit');
      const limitWas = hadLimit ? ErrorCtor.stackTraceLimit : undefined;
      try {
        ErrorCtor.prepareStackTrace = callSites;
        ErrorCtor.stackTraceLimit = limit;
        captureStackTrace(holder, below);
        return holder.stack;
      } finally {
        if (hadPrepare) ErrorCtor.prepareStackTrace = prepare;
        else deleteProperty(ErrorCtor, 'prepareStackTrace');
        if (hadLimit) ErrorCtor.stackTraceLimit = limitWas;
        else deleteProperty(ErrorCtor, 'stackTraceLimit');
      }
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
    // Node's own method (`nodeMethod`, on the stack just under `write`). V8 summarizes every
    // frame it collects (about 1.2 µs each in a hot loop), so this asks for one frame instead of
    // the method's and its caller's. Undefined where that cannot be had (the structured frames
    // are unavailable, or Node's method is not on the stack); `where` is asked then.
    function callerOf(nodeMethod) {
      if (fileName === undefined || isFrozen(ErrorCtor)) return undefined;
      const sites = stack(nodeMethod, 1);
      return sites !== undefined && sites.length === 1 ? sites : undefined;
    }
    // Whether the caller of Node's console method is Node's console again (`group('label')`
    // printing its label through `console.log`): `at` as `where(write, …)` gave it, or, with
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
        send(stringify(lost === 0 ? { count: calls.length, calls } : { count: calls.length, calls, unrecorded: lost }));
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
      if (length !== null || note !== null || stackText !== null) {
        entry[7] = length;
        entry[8] = note;
        if (stackText !== null) entry[9] = stackText;
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
    const receivers = {};
    const bound = {};
    // Node's own functions behind the methods that print straight to kWriteToConsole (`info`,
    // `debug` and `dirxml` are `log`'s, `error` is `warn`'s), as they are now.
    const nodeMethods = create(null);
    for (const m of direct) nodeMethods[m] = Console.prototype[m];
    for (const m of all) {
      const receiver = create(console);
      receiver[kMethod] = m;
      receivers[m] = receiver;
      bound[m] = apply(bind, Console.prototype[m], [receiver]);
    }
    // What `group('label')` printed through `console.log`, for the group's own record.
    let groupLabel;
    // Node's `kWriteToConsole`, with the recording in front. Whatever the recording meets, the
    // text is written as Node would.
    function write(streamSymbol, string) {
      const method = this !== null && typeof this === 'object' ? this[kMethod] : undefined;
      if (method !== undefined && typeof string === 'string') {
        try {
          const own = hasOwn(nodeMethods, method) ? callerOf(nodeMethods[method]) : undefined;
          const at = own !== undefined ? own : where(write, method === 'log' || method === 'warn' ? 2 : 6);
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
      return apply(nodeWrite, this, arguments);
    }
    // table, trace, assert, count, timeEnd and timeLog print through `this.log` / `this.warn` /
    // `this.error`: their own while the program's console still has Node's, else the program's.
    for (const m of through) {
      const receiver = receivers[m];
      for (const k of ['log', 'warn', 'error']) {
        const own = apply(bind, Console.prototype[k], [receiver]);
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
    // Node's own name (`value`) and length, not this file's.
    defineProperty(write, 'name', getOwnPropertyDescriptor(nodeWrite, 'name'));
    defineProperty(write, 'length', getOwnPropertyDescriptor(nodeWrite, 'length'));
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
      console[kWrite] = write;
      for (const m of all) console[m] = bound[m];
      return () => {
        exiting = true;
        flush();
      };
    };
  }
})();
