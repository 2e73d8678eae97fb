//! How human output looks: the colour choice, the styles (plain until colour is on), and a path as
//! the user would type it.

use std::io::IsTerminal;
use std::path::Path;

use owo_colors::Style;

/// When to colour, as the user chose it (the command line's `--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

/// Styles for the human output. Every field starts plain and is coloured only when colour is on.
#[derive(Debug, Clone, Default)]
pub struct Styles {
    pub error: Style,
    pub warning: Style,
    pub success: Style,
    pub heading: Style,
    pub location: Style,
    pub dim: Style,
    pub highlight: Style,
}

impl Styles {
    /// Styles for stderr under `choice`: `auto` colours only a terminal, with `NO_COLOR` unset or
    /// empty and `TERM` not `dumb`.
    pub fn for_stderr(choice: ColorWhen) -> Self {
        Self::for_stream(choice, std::io::stderr().is_terminal())
    }

    /// Styles for stdout under `choice` (human output that is the command's result: `replay`).
    pub fn for_stdout(choice: ColorWhen) -> Self {
        Self::for_stream(choice, std::io::stdout().is_terminal())
    }

    fn for_stream(choice: ColorWhen, terminal: bool) -> Self {
        let on = match choice {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => {
                terminal
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
            }
        };
        if on { Self::colored() } else { Self::default() }
    }

    fn colored() -> Self {
        Styles {
            error: Style::new().red().bold(),
            warning: Style::new().yellow().bold(),
            success: Style::new().green().bold(),
            heading: Style::new().bold(),
            location: Style::new().cyan(),
            dim: Style::new().dimmed(),
            highlight: Style::new().magenta().bold(),
        }
    }
}

/// A path as the user would type it: relative to the current directory when inside it.
pub fn display_path(file: &str) -> String {
    let here = std::env::current_dir().ok();
    match here
        .as_deref()
        .and_then(|here| Path::new(file).strip_prefix(here).ok())
    {
        Some(relative) if !relative.as_os_str().is_empty() => relative.display().to_string(),
        _ => file.to_owned(),
    }
}
