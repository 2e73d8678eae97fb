//! `tracer capabilities`: what this build and this Node can do (`crate::capabilities`), as JSON on
//! stdout. Exits 0 when the report was printed: a missing Node is an answer, not an error.

use anyhow::Result;

use crate::cli::CapabilitiesArgs;
use crate::output::print_json;

pub fn capabilities(args: CapabilitiesArgs) -> Result<u8> {
    print_json(&crate::capabilities::report(
        args.node.as_deref(),
        args.browser.as_deref(),
    ))
}
