//! Talking to a runtime: `launch` spawns Node under the inspector (own process group, loopback
//! only; `spawn` starts the process without copying the tracer), `pumps` carry its stdout and stderr on their own threads, `cdp` is the blocking
//! WebSocket client, and `driver` runs one inspector session from attach to the end of the program
//! (with the audit's probe, `crate::probe::node`, when asked for); `listening` finds which socket
//! listens on a loopback port (how a report's URL is checked before tracer connects); `watchdog`
//! kills what a run started if tracer dies without warning.

pub mod boot;
pub mod cdp;
pub mod driver;
pub mod launch;
pub mod listening;
pub mod pumps;
pub mod spawn;
pub mod tree;
pub mod watchdog;
