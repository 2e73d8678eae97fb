//! `tracer replay [ID] [--kind K]... [--grep REGEX]`: the session's timeline in the replay viewer
//! (`output::replay`), interactive on a terminal, else printed whole.

use std::io::IsTerminal;

use anyhow::Result;
use regex::Regex;

use crate::cli::{EventKind, GlobalArgs, ReplayArgs};
use crate::error::TracerError;
use crate::exit;
use crate::output::human::Styles;
use crate::output::replay::Replay;
use crate::output::store::Store;
use crate::trace::event::Kind;
use crate::trace::evidence::Evidence;

pub fn replay(args: ReplayArgs, global: &GlobalArgs) -> Result<u8> {
    let store = Store::new(&args.session.store.out);
    let id = store.resolve(&args.session.id)?;
    let session = store.load(&id)?;
    let evidence: Option<Evidence> =
        crate::files::read_json(&store.dir(&id).join("evidence.json")).unwrap_or(None);
    let grep = args
        .grep
        .as_deref()
        .map(Regex::new)
        .transpose()
        .map_err(|e| {
            TracerError::usage(format!("--grep is not a valid regular expression: {e}"))
        })?;
    let kinds: Vec<Kind> = args.kind.iter().map(|k| kind(*k)).collect();
    let timeline = Replay::new(&session, evidence.as_ref(), &kinds, grep.as_ref());

    let styles = Styles::for_stdout(global.color.into());
    let mut out = std::io::stdout().lock();
    let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let _ = if interactive {
        timeline.step_through(&styles, &mut std::io::stdin().lock(), &mut out)
    } else {
        timeline.print_all(&styles, &mut out)
    };
    Ok(exit::SUCCESS)
}

fn kind(kind: EventKind) -> Kind {
    match kind {
        EventKind::Context => Kind::Context,
        EventKind::Script => Kind::Script,
        EventKind::Console => Kind::Console,
        EventKind::Exception => Kind::Exception,
        EventKind::Output => Kind::Output,
        EventKind::Test => Kind::Test,
        EventKind::Exit => Kind::Exit,
    }
}
