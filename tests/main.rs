//! The integration tests: one binary driving the real `tracer` against real `node`.
//! `support` is the harness; each other module covers one area of `tracer` and its readers.

mod support;

mod capture;
mod conformance;
mod errors;
mod io;
mod lifecycle;
mod record;
mod run;
mod sessions;
