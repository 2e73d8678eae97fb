//! `tracer check`: the check's verdict on a case folder, from files alone (`output::verdict`).

use anyhow::Result;

use crate::cli::{CheckArgs, CheckFormat, GlobalArgs};
use crate::conformance::case;
use crate::output::human::Styles;
use crate::output::verdict::{self, Shown};

pub fn check(args: CheckArgs, global: &GlobalArgs, styles: &Styles) -> Result<u8> {
    let case_dir = case::canonical_dir(&args.case_dir)?;
    let shown = if args.format == CheckFormat::Json {
        Shown::Json
    } else if args.markdown {
        Shown::Markdown
    } else {
        Shown::Nothing
    };
    verdict::conclude(&case_dir, &args.case_dir, shown, global.quiet, styles)
}
