//! `tracer completions SHELL` and `tracer man [COMMAND]... | --dir DIR`: a completion script and
//! the man pages, generated from the clap definitions in `cli.rs`, printed on stdout (or, for
//! `man --dir`, written as files). Every page a page refers to (`tracer-run(1)`) can be generated.

use std::io::Write;

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::error::TracerError;
use crate::exit;

pub fn completions(args: CompletionsArgs) -> Result<u8> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "tracer", &mut script);
    write_stdout(&script)
}

/// The command tree the pages describe: built (so a subcommand's page is named `tracer-run`), and
/// without clap's `help` subcommand, which has no page of its own.
fn man_command() -> clap::Command {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    command
}

/// A page whose footer names tracer and its version (clap_mangen would name the subcommand).
fn man_page(command: clap::Command) -> clap_mangen::Man {
    clap_mangen::Man::new(command).source(concat!("tracer ", env!("CARGO_PKG_VERSION")))
}

pub fn man(args: ManArgs) -> Result<u8> {
    let root = man_command();
    if let Some(dir) = &args.dir {
        std::fs::create_dir_all(dir).map_err(|e| {
            TracerError::usage(format!(
                "cannot create {}: {e} (check --dir)",
                dir.display()
            ))
        })?;
        let mut written = 0;
        write_pages(&root, dir, &mut written).map_err(|e| {
            TracerError::usage(format!(
                "cannot write into {}: {e} (check --dir)",
                dir.display()
            ))
        })?;
        crate::output::say!("tracer: wrote {written} man pages into {}", dir.display());
        return Ok(exit::SUCCESS);
    }
    let mut command = &root;
    for (depth, name) in args.command.iter().enumerate() {
        command = command.find_subcommand(name).ok_or_else(|| {
            let path = args.command[..depth].join(" ");
            let known: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
            let of = if path.is_empty() {
                "tracer".to_owned()
            } else {
                format!("tracer {path}")
            };
            TracerError::usage(format!(
                "`{name}` is not a command of `{of}`: one of {}",
                known.join(", ")
            ))
        })?;
    }
    let mut page = Vec::new();
    man_page(command.clone()).render(&mut page)?;
    write_stdout(&page)
}

/// Writes the page of `command` and of each of its subcommands, recursively, into `dir`.
fn write_pages(
    command: &clap::Command,
    dir: &std::path::Path,
    written: &mut usize,
) -> std::io::Result<()> {
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub, dir, written)?;
    }
    let man = man_page(command.clone());
    let mut page = Vec::new();
    man.render(&mut page)?;
    crate::output::store::write_atomic(&dir.join(man.get_filename()), &page)?;
    // The temporary file was private; a man page is meant to be read.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        dir.join(man.get_filename()),
        std::fs::Permissions::from_mode(0o644),
    )?;
    *written += 1;
    Ok(())
}

/// Writes to stdout; a closed stdout (`| head`) is not an error.
fn write_stdout(bytes: &[u8]) -> Result<u8> {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(bytes).and_then(|()| out.flush());
    Ok(exit::SUCCESS)
}
