//! The conformance loop, from files alone: the raw-trace reader, the contract, the hashes, the
//! audit file format, the policy file and the check. Nothing here runs a runtime or opens a
//! connection; `tracer audit` runs the entry (`commands::audit`), and `probe` only turns the exit
//! probe's measurements into observations.
//! Data flows one way: raw_trace -> contract -> (audit file) -> check.

pub mod audit_format;
pub mod check;
pub mod contract;
pub mod hash;
pub mod policy;
pub mod probe;
pub mod raw_trace;
pub mod requests;
