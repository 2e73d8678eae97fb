//! The lines a workspace runner relays from each package's script, read as that package's own:
//! `pnpm -r test` prints a package's output after `<package> <script>: ` (`packages/b test: not
//! ok 1 - b greets`), having announced it with `<package> <script>$ <command>`, and interleaves the
//! packages line by line. Only a prefix so announced is taken off (a line's own `Name: ` stays),
//! and each package's lines are kept apart as a stream of their own, so that one package's report
//! is never read into another's. A runner that labels each command's lines in brackets
//! (`concurrently`'s `[unit] …`, `run-p --print-label`'s) announces nothing: a label on two lines
//! or more is taken as one.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use crate::trace::event::{Event, Kind};
use crate::trace::values::strip_ansi;

/// pnpm's announcement of a package's script: `packages/b test$ node --test test/`.
static ANNOUNCED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\S+ [\w:.-]+)\$ \S").expect("valid regex"));

/// A line a runner relays with a label in brackets in front (`concurrently`'s `[name] …`,
/// `run-p --print-label`'s padded `[name  ] …`, ANSI colours around the label allowed): the label
/// (1 to 60 characters, on one line, padding trimmed) and the line past it and the spaces after it.
/// A line that ends right after the label is one too (a runner may write the label apart).
pub fn bracket_label(line: &str) -> Option<(&str, &str)> {
    let colour = |s: &str| -> usize {
        let mut at = 0;
        while let Some(code) = s[at..].strip_prefix("\x1b[") {
            let Some(end) = code.find(|c: char| !(c.is_ascii_digit() || c == ';')) else {
                return at;
            };
            if !code[end..].starts_with('m') {
                return at;
            }
            at += 2 + end + 1;
        }
        at
    };
    let at = colour(line);
    let label = line[at..].strip_prefix('[')?;
    let close = label.find(']')?;
    if close == 0 || close > 60 || label[..close].contains(['\n', '\r', '[']) {
        return None;
    }
    let after = &label[close + 1..];
    let after = &after[colour(after)..];
    let rest = after.trim_start_matches(' ');
    (rest.len() < after.len() || after.is_empty()).then_some((label[..close].trim_end(), rest))
}

/// `events` with every relayed output line as its package's: the prefix taken off, and its
/// `worker` the package's own (a name used only to keep packages apart while reports are read:
/// these events never leave the reading). Borrowed as they are when nothing was relayed.
pub(super) fn unrelayed(events: &[Event]) -> Cow<'_, [Event]> {
    let mut prefixes: Vec<String> = Vec::new();
    for event in events.iter().filter(|e| e.kind == Kind::Output) {
        let Some(value) = event.value.as_deref() else {
            continue;
        };
        if let Some(caps) = ANNOUNCED.captures(&strip_ansi(value)) {
            let prefix = format!("{}: ", &caps[1]);
            if !prefixes.contains(&prefix) {
                prefixes.push(prefix);
            }
        }
    }
    // A label in brackets on two lines or more is a runner's relaying (concurrently names each
    // command so, announcing none of them).
    let mut labels: Vec<(String, usize)> = Vec::new();
    for event in events.iter().filter(|e| e.kind == Kind::Output) {
        let Some(value) = event.value.as_deref() else {
            continue;
        };
        if let Some((label, _)) = bracket_label(&strip_ansi(value)) {
            match labels.iter_mut().find(|(l, _)| l == label) {
                Some((_, n)) => *n += 1,
                None => labels.push((label.to_owned(), 1)),
            }
        }
    }
    labels.retain(|(_, n)| *n >= 2);
    if prefixes.is_empty() && labels.is_empty() {
        return Cow::Borrowed(events);
    }
    Cow::Owned(
        events
            .iter()
            .map(|event| {
                let mut event = event.clone();
                if event.kind != Kind::Output {
                    return event;
                }
                let Some(text) = event.value.as_deref().map(|v| strip_ansi(v).into_owned()) else {
                    return event;
                };
                let relayed = match prefixes.iter().find(|p| text.starts_with(p.as_str())) {
                    Some(prefix) => Some((
                        prefix.trim_end_matches(": ").to_owned(),
                        &text[prefix.len()..],
                    )),
                    None => bracket_label(&text)
                        .filter(|(label, _)| labels.iter().any(|(l, _)| l == label))
                        .map(|(label, rest)| (format!("[{label}]"), rest)),
                };
                if let Some((by, rest)) = relayed {
                    event.value = Some(rest.to_owned());
                    event.worker = Some(format!(
                        "{by} relayed by {}",
                        event.worker.as_deref().unwrap_or("the program")
                    ));
                }
                event
            })
            .collect(),
    )
}
