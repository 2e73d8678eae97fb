//! A session as the Chrome Trace Event Format (`tracer export --format chrome-trace`).
//!
//! The Chrome Trace Event Format (JSON object form), which Perfetto
//! (ui.perfetto.dev) and `chrome://tracing` open as a timeline:
//!
//! - one process (`pid`: the program's pid), named `tracer: TARGET` by a `process_name` metadata event,
//!   and one more per other process of the tree the session lists (its own pid, named `child 1: node …`,
//!   `launcher: node /usr/bin/npm test`, with a `process_labels` metadata event giving its parent's
//!   pid), each traced one with a complete event from its report to its last event;
//! - one track (`tid`) per thread of execution in each process: `1` is its main thread, then one per
//!   worker in the order they first appear, each named by a `thread_name` metadata event;
//! - one complete event (`ph: "X"`, `cat: "run"`) for the run, from 0 to its last event;
//! - one instant event (`ph: "i"`, `s: "t"`) per captured `console`, `exception` and `output` event,
//!   `cat` the event kind, `args` its id, value, message and source position;
//! - when the tree has traced processes besides the program, its `output` events on a track of
//!   their own in the program's process, `output (the tree's shared stdout and stderr)`: every
//!   process of the tree writes to the same pipes, and which one wrote a line is not known;
//! - `ts` and `dur` in microseconds since the run started.
//!

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::trace::event::{Event, Kind};
use crate::trace::session::Session;

/// The main thread's track.
const MAIN_TID: u64 = 1;

/// The track of the output of a tree of processes (see the module documentation).
const SHARED_OUTPUT: &str = "output (the tree's shared stdout and stderr)";

/// The session as a Chrome Trace Event Format object (see the module documentation).
pub fn chrome_trace(session: &Session) -> Value {
    let pid = u64::from(session.pid.unwrap_or(1));
    let mut trace_events = vec![
        json!({"name": "process_name", "ph": "M", "pid": pid, "tid": MAIN_TID,
               "args": {"name": format!("tracer: {}", session.target)}}),
        json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": MAIN_TID,
               "args": {"name": "main"}}),
    ];
    let end_us = session.events.iter().map(|e| us(e.ts)).fold(0.0, f64::max);
    trace_events.push(json!({
        "name": format!("run {}", session.target),
        "cat": "run",
        "ph": "X",
        "ts": 0,
        "dur": end_us,
        "pid": pid,
        "tid": MAIN_TID,
        "args": {
            "session": session.id,
            "status": session.status,
            "args": session.args,
            "cwd": session.cwd,
            "exitCode": session.exit_code,
            "signal": session.signal,
            "droppedEvents": session.dropped_events,
        },
    }));
    // The tree's processes: their own pids, named, with their parent.
    let mut labelled: Vec<(&str, u64)> = Vec::new();
    for process in &session.processes {
        let process_pid = u64::from(process.pid);
        if process.role == "program" {
            continue;
        }
        let name = process.describe(&session.cwd);
        let name = name.split_once(' ').map_or(name.as_str(), |(_, rest)| rest);
        // The program's own pid (a command tracer started that is not a traced Node, such as
        // `node --test`'s runner) is named once, as the run.
        if process_pid != pid {
            trace_events.push(
                json!({"name": "process_name", "ph": "M", "pid": process_pid,
                                     "tid": MAIN_TID, "args": {"name": name}}),
            );
        }
        trace_events.push(json!({"name": "process_labels", "ph": "M", "pid": process_pid,
                                 "tid": MAIN_TID, "args": {"labels": format!("ppid {}", process.ppid)}}));
        if let Some(label) = process.label.as_deref() {
            labelled.push((label, process_pid));
            let last = session
                .events
                .iter()
                .filter(|e| e.worker.as_deref() == Some(label))
                .map(|e| us(e.ts))
                .fold(us(process.ts), f64::max);
            trace_events.push(json!({
                "name": format!("process {}", process.pid),
                "cat": "process",
                "ph": "X",
                "ts": us(process.ts),
                "dur": last - us(process.ts),
                "pid": process_pid,
                "tid": MAIN_TID,
                "args": {"ppid": process.ppid, "argv": process.argv, "execArgv": process.exec_argv, "exitingWith": process.exiting_with, "exitCode": process.exit_code, "signal": process.signal},
            }));
        }
    }
    let mut tids: BTreeMap<(u64, &str), u64> = BTreeMap::new();
    let shared_output = (!labelled.is_empty()).then_some(SHARED_OUTPUT);
    for event in &session.events {
        if !matches!(event.kind, Kind::Console | Kind::Exception | Kind::Output) {
            continue;
        }
        let worker = match (event.kind, event.worker.as_deref()) {
            (Kind::Output, None) => shared_output,
            (_, worker) => worker,
        };
        // `child 1` is that process's main thread; `child 1 worker 1` a worker of it; any other
        // label a worker of the program.
        let (event_pid, thread) = match worker {
            None => (pid, None),
            Some(worker) => match labelled.iter().find(|(label, _)| {
                worker == *label
                    || worker
                        .strip_prefix(label)
                        .is_some_and(|r| r.starts_with(' '))
            }) {
                Some((label, process_pid)) if worker == *label => (*process_pid, None),
                Some((_, process_pid)) => (*process_pid, Some(worker)),
                None => (pid, Some(worker)),
            },
        };
        let tid = match thread {
            None => MAIN_TID,
            Some(worker) => {
                let next =
                    tids.keys().filter(|(p, _)| *p == event_pid).count() as u64 + MAIN_TID + 1;
                let tid = *tids.entry((event_pid, worker)).or_insert(next);
                if tid == next {
                    trace_events.push(json!({"name": "thread_name", "ph": "M", "pid": event_pid,
                                             "tid": tid, "args": {"name": worker}}));
                }
                tid
            }
        };
        trace_events.push(json!({
            "name": instant_name(event),
            "cat": event.kind.as_str(),
            "ph": "i",
            "s": "t",
            "ts": us(event.ts),
            "pid": event_pid,
            "tid": tid,
            "args": instant_args(event),
        }));
    }
    json!({
        "traceEvents": trace_events,
        "displayTimeUnit": "ms",
        "otherData": {
            "tracer": env!("CARGO_PKG_VERSION"),
            "session": session.id,
            "startedAt": session.started_at,
        },
    })
}

fn us(ms: f64) -> f64 {
    (ms * 1000.0).round()
}

fn instant_name(event: &Event) -> String {
    match event.kind {
        Kind::Exception => event
            .error_message
            .clone()
            .unwrap_or_else(|| event.detail.clone()),
        _ => event.detail.clone(),
    }
}

fn instant_args(event: &Event) -> Value {
    let mut args = serde_json::Map::new();
    args.insert("eventId".into(), json!(event.id));
    let fields = [
        ("value", event.value.as_ref().map(|v| json!(v))),
        ("level", event.level.as_ref().map(|v| json!(v))),
        ("stream", event.stream.map(|s| json!(s))),
        ("worker", event.worker.as_ref().map(|v| json!(v))),
        ("file", event.file.as_ref().map(|v| json!(v))),
        ("line", event.line.map(|v| json!(v))),
        ("column", event.column.map(|v| json!(v))),
    ];
    for (key, value) in fields {
        if let Some(value) = value {
            args.insert(key.into(), value);
        }
    }
    Value::Object(args)
}
