//! `tracer record`: recording the reference trace (`tracer-trace/v1`) in a real browser.
//! `browser` starts headless Chromium (own process group, temporary profile, loopback-only
//! debugging), `probe` assembles the JavaScript probe shipped in the binary (`reflect.js`, the
//! structural measurement shared with the Node side, and `probe.js`, the wrappers), `session`
//! drives one recording over CDP, and `writer` writes the trace lines as they arrive.
//! Nothing here reads a trace back: that is `conformance`.

pub mod browser;
pub mod probe;
pub mod session;
pub mod writer;
