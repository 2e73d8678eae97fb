//! `tracer list`: the recorded sessions, newest first, on stdout: a table; with `--json` one JSON
//! array of `{id, status, target, args, startedAt, exitCode, exceptionCount, eventCount}` objects;
//! with `--ndjson` the same objects, one per line. A session that cannot be read is left out with a
//! warning on stderr.

use std::io::Write;

use anyhow::Result;
use serde_json::{Value, json};

use crate::cli::ListArgs;
use crate::exit;
use crate::output::human::Styles;
use crate::output::store::Store;
use crate::trace::session::Session;

pub fn list(args: ListArgs, _styles: &Styles) -> Result<u8> {
    let store = Store::new(&args.store.out);
    let sessions = store.ids().into_iter().rev().filter_map(|id| {
        match store.load(&id) {
            Ok(session) => Some(session),
            // A run still under way has written no `session.json` yet: not a session to list.
            Err(_) if !store.dir(&id).join("session.json").exists() => None,
            Err(e) => {
                let _ = writeln!(
                    std::io::stderr(),
                    "tracer: warning: session {id} is left out: {e:#}"
                );
                None
            }
        }
    });
    let mut out = std::io::stdout().lock();
    // A closed stdout (`| head -1`) ends the listing; it is not an error.
    if args.json {
        let rows: Vec<Value> = sessions.map(|s| row(&s)).collect();
        let mut text = serde_json::to_string_pretty(&rows)?;
        text.push('\n');
        let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
        return Ok(exit::SUCCESS);
    }
    for session in sessions {
        let line = if args.ndjson {
            row(&session).to_string()
        } else {
            let status = serde_json::to_value(session.status)?;
            let code = session.exit_code.map_or("-".to_owned(), |c| c.to_string());
            format!(
                "{}  {:<8} exit {:<3} {:>6} events  {}",
                session.id,
                status.as_str().unwrap_or(""),
                code,
                session.event_count,
                command(&session)
            )
        };
        if writeln!(out, "{line}").is_err() {
            break;
        }
    }
    Ok(exit::SUCCESS)
}

/// What ran, as it was given: the target (`npm` for `/usr/bin/npm`) and its arguments, at most
/// `COMMAND_CHARS` characters.
fn command(session: &Session) -> String {
    const COMMAND_CHARS: usize = 100;
    let target = session
        .options
        .as_ref()
        .and_then(|o| o.given_target.as_deref())
        .unwrap_or(&session.target);
    let text = std::iter::once(target)
        .chain(session.args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    match text.char_indices().nth(COMMAND_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// One session as `--json` and `--ndjson` list it.
fn row(session: &Session) -> Value {
    json!({
        "id": session.id,
        "status": session.status,
        "target": session.target,
        "args": session.args,
        "startedAt": session.started_at,
        "exitCode": session.exit_code,
        "exceptionCount": session.exception_count,
        "eventCount": session.event_count,
    })
}
