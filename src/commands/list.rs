//! `tracer list`: the recorded sessions, newest first, as a table on stdout (or NDJSON with --json).

use std::io::Write;

use anyhow::Result;
use serde_json::json;

use crate::cli::ListArgs;
use crate::exit;
use crate::output::human::Styles;
use crate::output::store::Store;

pub fn list(args: ListArgs, _styles: &Styles) -> Result<u8> {
    let store = Store::new(&args.store.out);
    let mut out = std::io::stdout().lock();
    for id in store.ids().into_iter().rev() {
        let Ok(session) = store.load(&id) else {
            continue;
        };
        let line = if args.json {
            json!({
                "id": session.id,
                "status": session.status,
                "target": session.target,
                "startedAt": session.started_at,
                "exitCode": session.exit_code,
                "exceptionCount": session.exception_count,
                "eventCount": session.event_count,
            })
            .to_string()
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
