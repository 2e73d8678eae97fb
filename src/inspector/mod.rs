//! Talking to a runtime: `launch` spawns Node under the inspector (own process group, loopback
//! only), `pumps` carry its stdout and stderr on their own threads, `cdp` is the blocking
//! WebSocket client, and `driver` runs one inspector session from attach to the end of the program;
//! `exit_probe` is the audit's measurement of the program's final state at exit.

pub mod cdp;
pub mod driver;
pub mod exit_probe;
pub mod launch;
pub mod pumps;
