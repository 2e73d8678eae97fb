//! The integration tests: one binary driving the real `tracer` against real `node`.
//! `support` is the harness; each other module covers one area of `tracer` and its readers.

mod support;

mod annotations;
mod audit;
mod capabilities;
mod capture;
mod completions;
mod conformance;
mod errors;
mod export;
mod faults;
mod fuzz;
mod io;
mod lifecycle;
mod node_probe;
mod positions;
mod real_libraries;
mod record;
mod record_realms;
mod redact;
mod replay;
mod run;
mod schema;
mod sessions;
mod tree;
mod verify;
