//! The trace itself: event and session types, the capture (CDP -> events), the mapper (the one place
//! where positions become user positions), source maps, values, and the evidence chain.

pub mod capture;
pub mod event;
pub mod evidence;
pub mod folders;
pub mod mapper;
pub mod redact;
pub mod rerun;
pub mod runner_workers;
pub mod session;
pub mod sourcemaps;
pub mod test_report;
pub mod values;
