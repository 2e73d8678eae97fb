//! The lines a workspace runner relays from each package's script, read as that package's own:
//! `pnpm -r test` prints a package's output after `<package> <script>: ` (`packages/b test: not
//! ok 1 - b greets`), having announced it with `<package> <script>$ <command>`, and interleaves the
//! packages line by line. Only a prefix so announced is taken off (a line's own `Name: ` stays),
//! and each package's lines are kept apart as a stream of their own, so that one package's report
//! is never read into another's.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use crate::trace::event::{Event, Kind};
use crate::trace::values::strip_ansi;

/// pnpm's announcement of a package's script: `packages/b test$ node --test test/`.
static ANNOUNCED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\S+ [\w:.-]+)\$ \S").expect("valid regex"));

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
    if prefixes.is_empty() {
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
                if let Some(prefix) = prefixes.iter().find(|p| text.starts_with(p.as_str())) {
                    event.value = Some(text[prefix.len()..].to_owned());
                    event.worker = Some(format!(
                        "{} relayed by {}",
                        prefix.trim_end_matches(": "),
                        event.worker.as_deref().unwrap_or("the program")
                    ));
                }
                event
            })
            .collect(),
    )
}
