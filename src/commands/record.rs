//! `tracer record`: a recording in real Chromium (`crate::record::run`), from the command line's
//! arguments.

use anyhow::Result;

use crate::cli::{GlobalArgs, RecordArgs};
use crate::output::human::Styles;
use crate::record::run::{self, Request};

pub fn record(args: RecordArgs, global: &GlobalArgs, styles: &Styles) -> Result<u8> {
    let request = Request {
        page: args.page,
        script: args.script,
        case_dir: args.case_dir,
        baseline_id: args.baseline_id,
        browser: args.browser,
        apis: args.apis,
        api_file: args.api_file,
        api_excludes: args.api_excludes,
        no_walk: args.no_walk,
        timeout: args.timeout,
        settle: args.settle,
        no_batch: args.no_batch,
        max_accesses: args.max_accesses,
        quiet: global.quiet,
    };
    run::record(&request, styles)
}
