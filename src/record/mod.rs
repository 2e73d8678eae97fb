//! `tracer record`: recording the reference trace (`tracer-trace/v1`) in a real browser.
//! `browser` starts headless Chromium (own process group, temporary profile, loopback-only
//! debugging) and `recording` drives one recording over CDP: the probe (`crate::probe`, the same
//! code the audit installs in a Node environment) in every realm of the page, its records written
//! as they arrive. Nothing here reads a trace back: that is `conformance`.

pub mod browser;
pub mod recording;
pub mod run;
