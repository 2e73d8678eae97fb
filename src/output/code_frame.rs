//! The `-->` code frame the summary and the replay both show: the position's heading, the source
//! lines with a gutter of their numbers, and a caret under the column.

use std::io::Write;

use crate::output::style::{Styles, display_path};

/// `  --> file:line:column`.
pub fn heading(
    out: &mut impl Write,
    s: &Styles,
    file: &str,
    line: u32,
    column: u32,
) -> std::io::Result<()> {
    writeln!(
        out,
        "  {} {}",
        s.dim.style("-->"),
        s.location
            .style(format!("{}:{line}:{column}", display_path(file)))
    )
}

/// `  --> file`: a file with no position (a script's event).
pub fn file_heading(out: &mut impl Write, s: &Styles, file: &str) -> std::io::Result<()> {
    writeln!(
        out,
        "  {} {}",
        s.dim.style("-->"),
        s.location.style(display_path(file))
    )
}

/// `lines`, numbered from `first`, with a caret under `column` of line `line`, whose number is
/// highlighted when `emphasize` (else dim, as the others). The gutter is at least four wide.
pub fn lines(
    out: &mut impl Write,
    s: &Styles,
    first: u32,
    lines: &[&str],
    (line, column): (u32, u32),
    emphasize: bool,
) -> std::io::Result<()> {
    let last = first.saturating_add(lines.len().saturating_sub(1) as u32);
    let width = last.to_string().len().max(4);
    for (number, text) in (first..).zip(lines) {
        let gutter = format!("{number:>width$}");
        let gutter = if number == line && emphasize {
            s.highlight.style(gutter)
        } else {
            s.dim.style(gutter)
        };
        writeln!(out, "  {gutter} {} {text}", s.dim.style("|"))?;
        if number == line {
            let caret_at: String = text
                .chars()
                .take(column.saturating_sub(1) as usize)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            writeln!(
                out,
                "  {:>width$} {} {caret_at}{}",
                "",
                s.dim.style("|"),
                s.highlight.style("^")
            )?;
        }
    }
    Ok(())
}
