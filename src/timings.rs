//! Phase timings of one run, for measuring where tracer's own time goes: with `TRACER_TIMINGS=1`,
//! each phase's time since the tracer started is printed on stderr at the end (`timing: spawned
//! 3.14 ms`), after the start's own time on `CLOCK_MONOTONIC`. Off, a mark costs one atomic load. How
//! the start-up pieces in docs/performance.md were measured.

use std::sync::Mutex;
use std::sync::OnceLock;
use std::time::Instant;

struct Timings {
    start: Instant,
    /// `start` on `CLOCK_MONOTONIC`, in nanoseconds, for lining the marks up with other processes'
    /// (`scripts/startup-timeline.py`).
    start_ns: i128,
    marks: Mutex<Vec<(&'static str, f64)>>,
}

static TIMINGS: OnceLock<Option<Timings>> = OnceLock::new();

fn timings() -> Option<&'static Timings> {
    TIMINGS
        .get_or_init(|| {
            (std::env::var_os("TRACER_TIMINGS").is_some_and(|v| v == "1")).then(|| {
                let start = Instant::now();
                Timings {
                    start,
                    start_ns: monotonic_ns(),
                    marks: Mutex::new(Vec::new()),
                }
            })
        })
        .as_ref()
}

/// Now on `CLOCK_MONOTONIC`, in nanoseconds: the clock Node's `process.hrtime` reads, so that a
/// time a program measured lines up with tracer's own.
pub fn monotonic_ns() -> i128 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    i128::from(now.tv_sec) * 1_000_000_000 + i128::from(now.tv_nsec)
}

/// Starts the clock (call first thing in `main`).
pub fn start() {
    let _ = timings();
}

/// Notes that `phase` was reached now (at most 64 marks are kept).
pub fn mark(phase: &'static str) {
    if let (Some(t), Some(ms)) = (timings(), elapsed_ms()) {
        let mut marks = t.marks.lock().unwrap_or_else(|e| e.into_inner());
        if marks.len() < 64 {
            marks.push((phase, ms));
        }
    }
}

/// The time since the tracer started, in milliseconds, when timings are on (`TRACER_DEBUG_CDP`
/// lines carry it then).
pub fn elapsed_ms() -> Option<f64> {
    timings().map(|t| t.start.elapsed().as_secs_f64() * 1000.0)
}

/// Prints the marks on stderr, in order.
pub fn print() {
    if let Some(t) = timings() {
        let marks = t.marks.lock().unwrap_or_else(|e| e.into_inner());
        eprintln!("timing: started at {} ns on CLOCK_MONOTONIC", t.start_ns);
        for (phase, ms) in marks.iter() {
            eprintln!("timing: {phase} {ms:.2} ms");
        }
    }
}
