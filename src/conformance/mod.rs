//! The conformance loop, from files alone: the raw-trace reader, the contract, the hashes, the
//! audit file format, the policy file and the check. Nothing here runs a runtime or opens a
//! connection; `tracer audit` runs the entry (`crate::audit`), and `observed` turns the trace
//! the probe recorded in the environment into the audit's observations and timeline.
//! Data flows one way: raw_trace -> contract -> (audit file) -> check; `build` feeds the reader's
//! events (or its parts', on several threads) to the contract builder.

pub mod audit_format;
pub mod build;
pub mod case;
pub mod check;
pub mod contract;
pub mod finding;
pub mod hash;
pub mod identity;
pub mod missing;
pub mod observed;
pub mod policy;
pub mod random_names;
pub mod raw_trace;
pub mod requests;
pub mod seal;
pub mod unwatchable;
pub mod worklist;
