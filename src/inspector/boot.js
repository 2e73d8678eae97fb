// tracer's bootloader: preloaded into every Node process of a traced command tree through
// NODE_OPTIONS (`--require`). In a process that is not a launcher (npm, npx, pnpm, yarn,
// corepack), it opens the inspector on 127.0.0.1 with a random port, tells tracer its URL on the
// private channel named by TRACER_BOOT (a FIFO in a 0700 folder tracer made), and waits until
// tracer has attached and released it. A launcher is only reported. In a worker thread it does
// nothing (workers are traced through their parent's session). It never runs the program's code
// and keeps nothing of it; a report goes out with one write of at most PIPE_BUF bytes, so the
// reports of many processes never interleave.
'use strict';
(function tracerBoot() {
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
  if (!isMainThread) return;
  const fs = require('fs');
  const script = process.argv[1] || '';
  const launcher = /(?:^|[\\/])(?:npm|npx|npm-cli|npx-cli|npm-prefix|pnpm|pnpx|yarn|yarnpkg|corepack)(?:\.c?js)?$/.test(script) ||
    /[\\/]node_modules[\\/](?:npm|pnpm|yarn|corepack|@yarnpkg[\\/]cli-dist)[\\/]bin[\\/]/.test(script);
  // Everything a report needs is taken now: the 'exit' listener below touches no global of the
  // program's (an audit's probe watches some of them, and counts what it sees).
  const stringify = JSON.stringify;
  const byteLength = Buffer.byteLength;
  const assign = Object.assign;
  const { openSync, writeSync, closeSync, constants } = fs;
  const head = { pid: process.pid, ppid: process.ppid };
  const fullArgv = process.argv.slice(0, 16).map((a) => String(a).slice(0, 200));
  // Non-blocking: with no reader (tracer gone), the open fails instead of waiting.
  const openChannel = () => {
    try {
      return openSync(channel, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (e) {
      return -1;
    }
  };
  const report = (fields, opened) => {
    let argv = fullArgv;
    let line = stringify(assign({}, head, { argv }, fields)) + '\n';
    while (byteLength(line) > 4000 && argv.length > 1) {
      argv = argv.slice(0, -1);
      line = stringify(assign({}, head, { argv }, fields)) + '\n';
    }
    const fd = opened === undefined ? openChannel() : opened;
    if (fd < 0) return false;
    try {
      writeSync(fd, line);
      return true;
    } catch (e) {
      return false;
    } finally {
      try {
        closeSync(fd);
      } catch (e) {}
    }
  };
  if (launcher) {
    report({ launcher: true });
    return;
  }
  const inspector = require('inspector');
  if (inspector.url()) return;
  // The channel first: without tracer to read it, no inspector is opened at all.
  const fd = openChannel();
  if (fd < 0) return;
  try {
    inspector.open(0, '127.0.0.1', false);
  } catch (e) {
    // Node's test runner runs its files from a process made without an inspector.
    report({ untraced: String(e).slice(0, 200) }, fd);
    return;
  }
  const url = inspector.url();
  if (!url) {
    closeSync(fd);
    inspector.close();
    return;
  }
  if (!report({ url }, fd)) {
    inspector.close();
    return;
  }
  // The exit code as Node passes it to 'exit' listeners, for this process's track (tracer is
  // not this process's parent and cannot wait for it).
  process.on('exit', (code) => {
    report({ exit: typeof code === 'number' ? code : 0 });
  });
  inspector.waitForDebugger();
})();
