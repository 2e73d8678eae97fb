//! Which processes of a run are test runners' workers: their arguments do not name the test files
//! they run, so the files they parse (their own `script` events) tell.

/// The entry scripts of the test runners' worker processes, whose arguments do not name the test
/// files they run: jest's (`jest-worker`, 29 and 30), vitest's forks (`tinypool`'s up to vitest 3,
/// its own from 4), mocha's `--parallel` workers (10 and 12) and jasmine's (5 to 7, whose `cluster`
/// workers are given the coordinator's arguments, every spec file of the run). Such a worker's own scripts are
/// `script` events, so a failed test and what it printed are placed on the track of the process
/// that ran its file.
const RUNNER_WORKERS: &[&str] = &[
    "jest-worker/build/workers/processChild.js",
    "jest-worker/build/processChild.js",
    "tinypool/dist/entry/process.js",
    "vitest/dist/workers/forks.js",
    "vitest/dist/workers/vmForks.js",
    "mocha/lib/nodejs/worker.js",
    "mocha/lib/nodejs/worker.cjs",
    "jasmine/bin/worker.js",
];

/// Whether `argv` runs a test runner's worker ([`RUNNER_WORKERS`]).
pub fn runner_worker(argv: &[String]) -> bool {
    argv.iter()
        .skip(1)
        .take(2)
        .any(|arg| RUNNER_WORKERS.iter().any(|entry| arg.ends_with(entry)))
}
