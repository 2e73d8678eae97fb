//! Talking to a runtime: `launch` starts the command with the bootloader (`boot`) in its
//! environment, `cdp` is the blocking WebSocket client, and `driver` runs one inspector session
//! from attach to the end of the program (with a `PauseHandler`, the audit's probe, when asked
//! for). It knows no trace event: what the driver sees goes to an `Observer`
//! (`crate::trace::capture`), and the engine (`crate::engine`) puts the pieces together. The
//! processes themselves are `crate::process`'s.

pub mod boot;
pub mod cdp;
pub mod driver;
pub mod launch;
