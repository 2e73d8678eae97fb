//! The integration tests: one binary driving the real `tracer` against real `node`.
//! `support` is the harness; each other module covers one area of `tracer run` and its readers.

mod support;

mod capture;
mod errors;
mod io;
mod lifecycle;
mod run;
mod sessions;

mod annotations;
mod capabilities;
mod completions;
mod export;
mod replay;
mod schema;
mod verify;
