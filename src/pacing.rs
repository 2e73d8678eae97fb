//! Batching wake-ups under load. Under a flood (100 000 console calls) every message would wake a
//! reader thread, and on two cores the context switches cost more than the work. A `Pacer` notices
//! a stream of back-to-back reads and then naps briefly before the next one, so data piles up and
//! is taken in one go; an idle or chatty-but-slow source is never delayed.

use std::time::{Duration, Instant};

/// Reads closer together than this count as a stream.
const BURST_GAP: Duration = Duration::from_millis(2);
/// How many back-to-back reads make a flood: more than a failing program's last messages usually
/// take (an exception, its console calls, the exit), which a nap would hold up on their way to
/// its end (with a smaller count, a traced `throw` meets a nap before Node's disconnect request is
/// read), while a flood is told apart as soon as with a smaller one (docs/performance.md).
const BURST_READS: u32 = 16;

pub struct Pacer {
    nap: Duration,
    /// Off: never naps (see `set_enabled`).
    enabled: bool,
    last: Option<Instant>,
    streak: u32,
}

impl Pacer {
    pub fn new(nap: Duration) -> Self {
        Pacer {
            nap,
            enabled: true,
            last: None,
            streak: 0,
        }
    }

    /// Turns napping off or on again (with a fresh count): off where every read is awaited by
    /// someone (a handshake's answers), so that no nap stands between them.
    pub fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
        self.last = None;
        self.streak = 0;
    }

    /// Call after each read that returned data; naps when reads are coming back to back.
    pub fn after_read(&mut self) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        self.streak = match self.last {
            Some(last) if now.duration_since(last) < BURST_GAP => self.streak + 1,
            _ => 0,
        };
        if self.streak >= BURST_READS {
            std::thread::sleep(self.nap);
            self.last = Some(Instant::now());
        } else {
            self.last = Some(now);
        }
    }
}
