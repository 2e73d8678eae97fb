//! One inspector session, from attach to the end of the program: enables the domains the trace
//! needs, releases the program, releases and attaches to its workers, and reads until the program
//! is waiting for the debugger to disconnect, the connection closes, the deadline passes or a
//! signal arrives. What the messages mean is the observer's business (the capture).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Result;
use serde_json::{Value, json};

use crate::inspector::cdp::{Cdp, Incoming};

/// How many frames V8 captures per console call and exception: the call site only. Serialising
/// stacks on Node's main thread is what makes a traced console flood slow (one frame: about 3x
/// plain node; eight frames: about 15x). An exception's deeper frames come from its stack text.
pub const STACK_FRAMES: u32 = 1;
/// Every this many console calls, the inspector's own console store is discarded, so a long-lived
/// program does not grow because it is being traced.
const DISCARD_CONSOLE_EVERY: u64 = 1000;
/// The cache V8 keeps of parsed scripts' sources for the debugger, in bytes.
const MAX_SCRIPTS_CACHE: u64 = 10 * 1024 * 1024;

/// Receives the protocol events of the program and of each of its workers.
pub trait Observer {
    /// `worker` is `None` for the program's main thread, else the worker's label (`worker 1`).
    fn on_event(&mut self, worker: Option<&str>, method: &str, params: &Value);
}

/// What the session may use.
pub struct DriveOptions<'a> {
    /// Enable the `Debugger` domain (script events and their source-map URLs).
    pub debugger: bool,
    /// Stop reading at this instant.
    pub deadline: Option<Instant>,
    /// Set to a signal number when the tracer is asked to stop.
    pub stop: &'a AtomicUsize,
}

/// Why the session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The program finished and Node is waiting for the debugger to disconnect.
    Finished,
    /// The inspector closed the connection (the program exited, was killed, or closed it).
    Closed,
    /// The deadline passed.
    TimedOut,
    /// The tracer received this signal.
    Signalled(i32),
}

/// What the session found out about the runtime, probed, never assumed.
#[derive(Debug, Default, Clone)]
pub struct Probed {
    pub node_version: Option<String>,
    pub debugger: bool,
    pub workers: bool,
    pub workers_seen: u32,
}

#[derive(Clone, Copy)]
enum Pending {
    Version,
    DebuggerEnable,
    WorkerEnable,
    Resume,
}

/// Runs the session. Returns why it ended and what was probed.
pub fn drive(
    cdp: &mut Cdp,
    observer: &mut dyn Observer,
    options: &DriveOptions<'_>,
) -> Result<(Ending, Probed)> {
    let mut pending: HashMap<u64, Pending> = HashMap::new();
    let mut probed = Probed::default();
    cdp.send("Runtime.enable", json!({}))?;
    cdp.send(
        "NodeRuntime.notifyWhenWaitingForDisconnect",
        json!({"enabled": true}),
    )?;
    cdp.send(
        "Runtime.setMaxCallStackSizeToCapture",
        json!({"size": STACK_FRAMES}),
    )?;
    if options.debugger {
        let id = cdp.send(
            "Debugger.enable",
            json!({"maxScriptsCacheSize": MAX_SCRIPTS_CACHE}),
        )?;
        pending.insert(id, Pending::DebuggerEnable);
    }
    let id = cdp.send("NodeWorker.enable", json!({"waitForDebuggerOnStart": true}))?;
    pending.insert(id, Pending::WorkerEnable);
    let id = cdp.send(
        "Runtime.evaluate",
        json!({"expression": "process.version", "returnByValue": true, "silent": true}),
    )?;
    pending.insert(id, Pending::Version);
    // The program is released only once every setup request has been answered: released
    // earlier, Node occasionally stops for good before its first statement (seen about once in
    // 100 runs with everything pipelined).
    let mut released = false;

    let mut workers: HashMap<String, String> = HashMap::new();
    let mut console_calls = 0u64;
    loop {
        let signal = options.stop.load(Ordering::Relaxed);
        if signal != 0 {
            return Ok((Ending::Signalled(signal as i32), probed));
        }
        if options.deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok((Ending::TimedOut, probed));
        }
        if !released && pending.values().all(|p| matches!(p, Pending::Resume)) {
            cdp.send("Runtime.runIfWaitingForDebugger", json!({}))?;
            released = true;
        }
        match cdp.read()? {
            Incoming::Idle => {}
            Incoming::Closed => return Ok((Ending::Closed, probed)),
            Incoming::Response { id, result } => match (pending.remove(&id), result) {
                (Some(Pending::Version), Ok(result)) => {
                    probed.node_version = result
                        .pointer("/result/value")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                }
                (Some(Pending::DebuggerEnable), Ok(_)) => probed.debugger = true,
                (Some(Pending::WorkerEnable), Ok(_)) => probed.workers = true,
                _ => {}
            },
            Incoming::Event { method, params } => match method.as_str() {
                "NodeRuntime.waitingForDisconnect" => return Ok((Ending::Finished, probed)),
                "Debugger.paused" => {
                    let id = cdp.send("Debugger.resume", json!({}))?;
                    pending.insert(id, Pending::Resume);
                }
                "Runtime.consoleAPICalled" => {
                    console_calls += 1;
                    if console_calls % DISCARD_CONSOLE_EVERY == 0 {
                        cdp.send("Runtime.discardConsoleEntries", json!({}))?;
                    }
                    observer.on_event(None, &method, &params);
                }
                "NodeWorker.attachedToWorker" => {
                    let Some(session) = params.get("sessionId").and_then(Value::as_str) else {
                        continue;
                    };
                    probed.workers_seen += 1;
                    let label = format!("worker {}", probed.workers_seen);
                    workers.insert(session.to_owned(), label.clone());
                    cdp.send_to_worker(session, "Runtime.enable", json!({}))?;
                    cdp.send_to_worker(
                        session,
                        "Runtime.setMaxCallStackSizeToCapture",
                        json!({"size": STACK_FRAMES}),
                    )?;
                    cdp.send_to_worker(session, "Runtime.runIfWaitingForDebugger", json!({}))?;
                    observer.on_event(Some(&label), &method, &params);
                }
                "NodeWorker.receivedMessageFromWorker" => {
                    let session = params
                        .get("sessionId")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let Some(label) = workers.get(session) else {
                        continue;
                    };
                    let message = params.get("message").and_then(Value::as_str).unwrap_or("");
                    if let Incoming::Event { method, params } =
                        crate::inspector::cdp::parse(message)
                    {
                        observer.on_event(Some(label), &method, &params);
                    }
                }
                "NodeWorker.detachedFromWorker" => {
                    let session = params
                        .get("sessionId")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    workers.remove(session);
                }
                _ => observer.on_event(None, &method, &params),
            },
        }
    }
}
