// tracer's bootloader: preloaded into every Node process of a traced command tree through
// NODE_OPTIONS (`--require`). In a process that is not a launcher (npm, npx, pnpm, yarn,
// corepack), it opens the inspector on 127.0.0.1 with a random port, tells tracer its URL on the
// private channel TRACER_BOOT names (`FD:INODE:FOLDER`: a datagram socket every process of the
// tree inherits at descriptor FD, whose sender the kernel states to tracer), and waits until
// tracer has attached and released it; then, when tracer asked for it (a binding), it records the
// calls of Node's own console and sends them in batches (`prepareConsole`, below). A launcher is
// only reported. In a worker thread (traced through its parent's session) it only takes the
// console calls, when tracer asked for it. It never runs the program's code; of the program's
// values it keeps only the text Node's console printed, until the batch is sent. A report is one datagram (one write of at most
// 4000 bytes), so the reports of many processes never interleave.
'use strict';
(function tracerBoot() {
  // The program's modules are its own: this file is in neither Node's module cache nor its list
  // of preloads (Node read the list before loading it; a worker reads its own).
  delete require.cache[__filename];
  // A new list, never the one changed in place: Node is walking that one by index to load the
  // preloads after this one (`-r ./setup.js`), and would skip the next.
  const preloads = Object.getOwnPropertyDescriptor(process, '_preload_modules');
  if (preloads && preloads.configurable && Array.isArray(preloads.value) &&
      preloads.value.includes(__filename)) {
    Object.defineProperty(process, '_preload_modules', Object.assign({}, preloads, {
      value: preloads.value.filter((p) => p !== __filename),
    }));
  }
  const channel = process.env.TRACER_BOOT;
  if (!channel) return;
  // A worker thread (it runs preloads too) is traced through its parent's session. Node names
  // `process.chdir` by the thread it runs in; `worker_threads` (about 2.5 ms to load) only decides
  // when the name is neither.
  const chdirName = typeof process.chdir === 'function' ? process.chdir.name : '';
  let isMainThread = chdirName === 'wrappedChdir';
  if (chdirName !== 'wrappedChdir' && chdirName !== 'unavailableInWorker') {
    try {
      isMainThread = require('worker_threads').isMainThread;
    } catch (e) {}
  }
  if (!isMainThread) {
    // The parent's session added the console's binding to this thread's context before releasing
    // it when tracer wants console calls in batches: the inspector's own report of a call
    // describes each argument, which runs a getter of the program's (`Symbol.toStringTag`) that
    // plain Node never runs, and the program would compute otherwise.
    const send = globalThis.__tracerConsole;
    if (typeof send !== 'function') return;
    delete globalThis.__tracerConsole;
    try {
      const install = prepareConsole();
      const atExit = install === null ? null : install(send);
      if (atExit !== null) process.on('exit', atExit);
    } catch (e) {}
    return;
  }
  const fs = require('fs');
  const script = process.argv[1] || '';
  // A launcher: its script's name (less `.js`/`.cjs`) is a package manager's, or the script is in
  // one's `bin` folder. Plain string tests: the first regular expression costs about 0.2 ms.
  const slashed = script.replaceAll('\\', '/');
  let base = slashed.slice(slashed.lastIndexOf('/') + 1);
  if (base.endsWith('.js')) base = base.slice(0, -3);
  else if (base.endsWith('.cjs')) base = base.slice(0, -4);
  const launcher = ['npm', 'npx', 'npm-cli', 'npx-cli', 'npm-prefix', 'pnpm', 'pnpx', 'yarn', 'yarnpkg', 'corepack'].includes(base) ||
    ['npm', 'pnpm', 'yarn', 'corepack', '@yarnpkg/cli-dist'].some((p) => slashed.includes(`/node_modules/${p}/bin/`));
  // Everything a report needs is taken now: the 'exit' listener below touches no global of the
  // program's (an audit's probe watches some of them, and counts what it sees).
  const stringify = JSON.stringify;
  const byteLength = Buffer.byteLength;
  const assign = Object.assign;
  const { writeSync, fstatSync } = fs;
  const head = { pid: process.pid, ppid: process.ppid };
  // An argument over 200 characters is cut, and ends with `…` to say so.
  const word = (a) => (String(a).length > 200 ? String(a).slice(0, 199) + '\u2026' : String(a));
  const fullArgv = process.argv.slice(0, 16).map(word);
  // Node's own flags (`--require x`, `--test`, `--max-old-space-size=…`), which `argv` leaves out.
  const execArgv = process.execArgv.slice(0, 8).map(word);
  const [fdText, inodeText] = channel.split(':');
  const channelFd = Number(fdText);
  // The descriptor, only while it is still the socket tracer made: a number the program (or
  // whatever started this process) reused for something else is never written to. Asked as a
  // `bigint` stat, which Node answers in an array of its own: Node 20's `realpathSync` reads the
  // last plain stat's array, and one describing this socket stopped it resolving symlinks (a
  // package linked by pnpm or npm workspaces loaded from its link's path, and so twice).
  // Nor is `stat.ino` compared as a number: over 2^53 it would not be exact.
  const openChannel = () => {
    try {
      const stat = fstatSync(channelFd, { bigint: true });
      return stat.isSocket() && String(stat.ino) === inodeText ? channelFd : -1;
    } catch (e) {
      return -1;
    }
  };
  // The user's CommonJS modules Node's module cache holds as the process exits (outside
  // `node_modules`, as many as the exit report holds): which process ran a test file where its
  // arguments do not say (c8 and nyc run mocha beside other Node processes).
  const moduleCache = require.cache;
  const keysOf = Object.keys;
  const ownModules = () => {
    const modules = [];
    let room = 3600;
    for (const name of keysOf(moduleCache)) {
      if (name[0] !== '/' || name.includes('/node_modules/')) continue;
      room -= byteLength(stringify(name)) + 1;
      if (room < 0) break;
      modules.push(name);
    }
    return modules;
  };
  const report = (fields, opened) => {
    let argv = fullArgv;
    let flags = execArgv.length > 0 ? { execArgv } : {};
    let line = stringify(assign({}, head, { argv }, flags, fields)) + '\n';
    while (byteLength(line) > 4000 && (argv.length > 1 || flags.execArgv)) {
      if (argv.length > 1) argv = argv.slice(0, -1);
      else flags = {};
      line = stringify(assign({}, head, { argv }, flags, fields)) + '\n';
    }
    const fd = opened === undefined ? openChannel() : opened;
    if (fd < 0) return false;
    // With tracer gone, the write fails (ECONNREFUSED) instead of waiting.
    try {
      writeSync(fd, line);
      return true;
    } catch (e) {
      return false;
    }
  };
  if (launcher) {
    report({ launcher: true });
    return;
  }
  const inspector = inspectorBinding() || publicInspector();
  // The channel first: without tracer to read it, no inspector is opened at all.
  const fd = openChannel();
  if (fd < 0) return;
  if (inspector.url()) {
    // Opened by the process's own `--inspect` flag (tracer removes those of NODE_OPTIONS): it
    // belongs to whatever debugger that flag is for, and tracer never attaches to a port it did
    // not choose.
    const flags = execArgv.filter((a) => a.startsWith('--inspect') || a.startsWith('--debug'));
    // Its URL goes with the warning: Node's own `Debugger listening on` line is taken out of the
    // output with tracer's, and NODE_OPTIONS' `--inspect-publish-uid=stderr` hides its HTTP list.
    report({ untraced: 'not traced: its own ' + (flags.join(' ').slice(0, 100) || '--inspect') +
      ' flag opened its inspector (' + String(inspector.url()).slice(0, 200) + '), for another' +
      ' debugger; tracer attaches only to an inspector it opened: drop the flag to trace this process' }, fd);
    return;
  }
  try {
    inspector.open(0, '127.0.0.1', false);
  } catch (e) {
    // Node's test runner runs its files from a process made without an inspector.
    report({ untraced: 'its inspector could not be opened: ' + String(e).slice(0, 200) }, fd);
    return;
  }
  const url = inspector.url();
  if (!url) {
    inspector.close();
    return;
  }
  // Node 20.12, 21.7 and later tell a client that enabled `NodeRuntime` when they start to wait
  // (`NodeRuntime.waitingForDebugger`); tracer, told so in the report, releases this process
  // only then, so the console capture is made ready while tracer attaches. Older ones do not,
  // and nothing runs between the report and the wait: a release that arrives before Node waits
  // is lost, and Node then waits for another one.
  const [major, minor] = process.versions.node.split('.').map(Number);
  const announces = major > 21 || (major === 21 && minor >= 7) || (major === 20 && minor >= 12);
  // Node's version goes with the URL (tracer needs no round trip to ask for it).
  // Code loaded before the script by the process's own flags (tsx starts its child as `node
  // --require …/preflight.cjs --import …/loader.mjs app.ts`): the script that runs may be a
  // transform of the file, whose source map tracer then reads off the runtime's `scriptParsed`.
  // Or by a preload in NODE_OPTIONS other than this file (nyc runs its command with `--require
  // …/node-preload.js` there, which instruments every file as it loads and maps it inline).
  const preloadFlags = ['--import', '--require', '-r', '--loader', '--experimental-loader'];
  const hasPreload = (list) => list.some((a, i) =>
    preloadFlags.some((flag) => a === flag || a.startsWith(flag + '=')) &&
    !(a + ' ' + (list[i + 1] || '')).includes(__dirname));
  const loader = hasPreload(process.execArgv) ||
    hasPreload(String(process.env.NODE_OPTIONS || '').split(/\s+/));
  if (!report({ url, version: process.version, announces, loader }, fd)) {
    inspector.close();
    return;
  }
  // The program finds no inspector open, as under plain `node`: a program that asks
  // `inspector.url()` whether it is being debugged (ava refuses to run in CI then, and turns its
  // timeouts off) behaves as it does without tracer.
  inspector.hideUrl();
  // The exit code as Node passes it to 'exit' listeners, for this process's track (tracer is
  // not this process's parent and cannot wait for it).
  let consoleExit = null;
  process.on('exit', (code) => {
    if (consoleExit !== null) consoleExit();
    // Without its arguments (the first report had them): room for the modules.
    const fd = openChannel();
    if (fd < 0) return;
    const exit = typeof code === 'number' ? code : 0;
    try {
      writeSync(fd, stringify(assign({}, head, { exit, modules: ownModules() })) + '\n');
    } catch (e) {}
  });
  // Console capture: made ready (nothing of the console changed yet) while tracer attaches when
  // Node announces its wait, else after the release.
  let install = null;
  if (announces) {
    try {
      install = prepareConsole();
    } catch (e) {}
  }
  inspector.waitForDebugger();
  // Tracer added a binding to this context before releasing it when it wants console calls in
  // batches (one inspector message per batch instead of one per call; see
  // `src/trace/capture.rs`, `console_batch`). Without the binding the console stays as it is and
  // the inspector reports every console call itself.
  const send = globalThis.__tracerConsole;
  if (typeof send !== 'function') return;
  delete globalThis.__tracerConsole;
  try {
    if (!announces) install = prepareConsole();
    if (install !== null) consoleExit = install(send);
  } catch (e) {}

  // Node's inspector binding: the functions `require('inspector')` wraps (open, url,
  // waitForDebugger; close is `process._debugEnd`), without the 2 ms of loading that module (it
  // loads `worker_threads`, `events` and the validators). Not under `--pending-deprecation`, where
  // `process.binding` warns (DEP0111); where it cannot be had (a permission model, a Node without
  // it), the public module is used.
  function inspectorBinding() {
    const env = process.env;
    if (env.NODE_PENDING_DEPRECATION === '1' ||
        process.execArgv.some((a) => a.includes('pending-deprecation')) ||
        (env.NODE_OPTIONS || '').includes('pending-deprecation')) {
      return null;
    }
    let binding;
    try {
      binding = process.binding('inspector');
    } catch (e) {
      return null;
    }
    const { open, url, waitForDebugger } = binding;
    const close = process._debugEnd;
    if (typeof open !== 'function' || typeof url !== 'function' ||
        typeof waitForDebugger !== 'function' || typeof close !== 'function') {
      return null;
    }
    // `inspector` and `inspector/promises` take their `url` from the binding when they load
    // (the program's first `require`), so they load with the hidden one.
    return controls(open, url, close, waitForDebugger, binding);
  }

  // The public module, loaded now (where the binding cannot be had).
  function publicInspector() {
    const inspector = require('inspector');
    const { open, url, close, waitForDebugger } = inspector;
    return controls(open, url, close, waitForDebugger, inspector);
  }

  // What the bootloader does with an inspector; `hideUrl` replaces `holder.url`.
  function controls(open, url, close, waitForDebugger, holder) {
    return {
      open: (port, host) => open(port, host),
      url: () => url(),
      close: () => close(),
      waitForDebugger: () => waitForDebugger(),
      hideUrl: () => {
        holder.url = hiddenUrl();
      },
    };
  }

  // `inspector.url()` of a process whose inspector is not open (named `url`, as Node's is).
  function hiddenUrl() {
    return { url() { return undefined; } }.url;
  }

