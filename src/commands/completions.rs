//! `tracer completions SHELL` and `tracer man`: a completion script and the man page, generated
//! from the clap definitions in `cli.rs`, printed on stdout.

use std::io::Write;

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::exit;

pub fn completions(args: CompletionsArgs) -> Result<u8> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "tracer", &mut script);
    write_stdout(&script)
}

pub fn man() -> Result<u8> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut page)?;
    write_stdout(&page)
}

/// Writes to stdout; a closed stdout (`| head`) is not an error.
fn write_stdout(bytes: &[u8]) -> Result<u8> {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(bytes).and_then(|()| out.flush());
    Ok(exit::SUCCESS)
}
