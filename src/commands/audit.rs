//! `tracer audit`: the audit of a case's environment entry (`crate::audit`), then the check's
//! verdict on it (`output::verdict`), so one command gives the verdict.

use anyhow::Result;

use crate::audit::{self, Request};
use crate::cli::{AuditArgs, CheckFormat, GlobalArgs};
use crate::output::human::Styles;
use crate::output::verdict::{self, Shown};

pub fn audit(args: AuditArgs, global: &GlobalArgs, styles: &Styles) -> Result<u8> {
    let request = Request {
        case_dir: args.case_dir.clone(),
        entry: args.entry.clone(),
        markdown: args.markdown,
        timeout: args.timeout,
        out: args.store.out.clone(),
        node: args.node.clone(),
        workspace: args.workspace.clone(),
        quiet: global.quiet,
        json: args.format == CheckFormat::Json,
    };
    let case_dir = audit::audit(&request, styles);
    crate::timings::mark("audit written");
    let case_dir = case_dir.inspect_err(|_| crate::timings::print())?;
    let shown = if args.format == CheckFormat::Json {
        Shown::Json
    } else {
        Shown::Nothing
    };
    let code = verdict::conclude(&case_dir, &args.case_dir, shown, global.quiet, styles);
    crate::timings::mark("checked");
    crate::timings::print();
    code
}
