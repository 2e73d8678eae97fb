//! Talking to a runtime: `launch` starts the command with the bootloader (`boot`) in its
//! environment, `pumps` carry its stdout and stderr on their own threads, `cdp` is the blocking
//! WebSocket client, `driver` runs one inspector session from attach to the end of the program
//! (with the audit's probe, `crate::probe::node`, when asked for), and `tree` follows every Node
//! process of the command. The processes themselves are `crate::process`'s.

pub mod boot;
pub mod cdp;
pub mod driver;
pub mod launch;
pub mod pumps;
