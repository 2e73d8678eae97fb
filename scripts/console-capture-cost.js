// What building the bootloader's console capture costs inside Node (`prepareConsole` in
// src/inspector/bootloader/console.js, run between the bootloader's report and `waitForDebugger`): its first call
// (V8 compiling it, then running it), the time to its first statement (the compile), and a second
// call. Nothing is installed: `prepareConsole` only builds the capture (checked: the console's own
// properties are the same after both calls), and its result is dropped.
//
//   node scripts/console-capture-cost.js [BOOT_JS]     (prints microseconds on stdout)
'use strict';
const fs = require('fs');
const path = process.argv[2] || require('path').join(__dirname, '..', 'src', 'inspector', 'bootloader', 'console.js');
const source = fs.readFileSync(path, 'utf8');
const start = source.indexOf('  function prepareConsole() {');
const end = source.lastIndexOf('})();');
const first = '    const Console = console.Console;';
if (start < 0 || end < start || !source.includes(first)) {
  console.error(`${path}: no prepareConsole function found`);
  process.exit(2);
}
let body = source.slice(start, end);
body = body.replace(first, 'entered();\n' + first);
let at = 0n;
const make = new Function('entered', 'require', body + '\nreturn prepareConsole;');
const prepare = make(() => {
  at = process.hrtime.bigint();
}, require);
const us = (a, b) => (Number(b - a) / 1e3).toFixed(0);
const before = Reflect.ownKeys(console).map((k) => console[k]);
const t0 = process.hrtime.bigint();
const built = prepare();
const t1 = process.hrtime.bigint();
const compiled = at;
const builtAgain = prepare();
const t2 = process.hrtime.bigint();
// Building changes nothing of the console (what the bootloader relies on: it builds the capture
// before the release and puts it in place after).
const after = Reflect.ownKeys(console).map((k) => console[k]);
if (typeof built !== 'function' || typeof builtAgain !== 'function' ||
    before.length !== after.length || before.some((v, i) => v !== after[i])) {
  console.error(`${path}: prepareConsole did not build a capture, or changed the console`);
  process.exit(1);
}
console.log(`first call ${us(t0, t1)} us (to its first statement ${us(t0, compiled)} us), second call ${us(t1, t2)} us`);
