// Written by `tracer capabilities`: probes console capture, source maps and worker capture.
const { Worker, isMainThread } = require("node:worker_threads");
process.stdout.write = () => true;
if (isMainThread) {
  console.log("tracer-probe-main");
  new Worker(__filename, { stdout: true });
} else {
  console.log("tracer-probe-worker");
}
//# sourceMappingURL=probe.js.map
