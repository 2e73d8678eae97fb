//! `tracer list`: the recorded sessions, newest first, on stdout: a table; with `--json` one JSON
//! array of `{id, status, target, startedAt, exitCode, exceptionCount, eventCount}` objects; with
//! `--ndjson` the same objects, one per line.

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
    let sessions = store
        .ids()
        .into_iter()
        .rev()
        .filter_map(|id| store.load(&id).ok());
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
                session.target
            )
        };
        if writeln!(out, "{line}").is_err() {
            break;
        }
    }
    Ok(exit::SUCCESS)
}

/// One session as `--json` and `--ndjson` list it.
fn row(session: &Session) -> Value {
    json!({
        "id": session.id,
        "status": session.status,
        "target": session.target,
        "startedAt": session.started_at,
        "exitCode": session.exit_code,
        "exceptionCount": session.exception_count,
        "eventCount": session.event_count,
    })
}
