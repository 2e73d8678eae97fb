//! One inspector session, from attach to the end of the program: enables the domains the trace
//! needs, releases the program, releases and attaches to its workers, and reads until the program
//! is waiting for the debugger to disconnect, the connection closes, the deadline passes or a
//! signal arrives. What the messages mean is the observer's business (the capture).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;
use serde_json::{Value, json};

use crate::inspector::cdp::{Cdp, Incoming};

/// Node's main context: the first the inspector reports in a process (`executionContextCreated`).
const MAIN_CONTEXT: u64 = 1;
/// How many frames V8 captures per console call and per error (`Runtime.setMaxCallStackSizeToCapture`:
/// one setting for both; an error's frames are taken when it is constructed) while the program logs
/// little: enough for an exception's `callStack` below Node's own frames, whatever its stack text
/// says (a program's own `Error.prepareStackTrace`).
pub const DEEP_FRAMES: u32 = 32;
/// The same under a flood of console calls or of the audit's probe records (each a stack capture in
/// the program, for which V8 takes an error's frames too): the call site only. Serialising stacks
/// on Node's main thread is what makes a traced flood slow (one frame: about 3x plain node; eight
/// frames: about 15x); an error made then gets its deeper frames from its stack text.
pub const STACK_FRAMES: u32 = 1;
/// A flood: this many console calls arriving within `FLOOD_WINDOW`.
const FLOOD_CALLS: u32 = 500;
const FLOOD_WINDOW: Duration = Duration::from_millis(200);
/// Deep capture again once no flood has been seen for this long.
const CALM_AFTER: Duration = Duration::from_millis(500);
/// Every this many console calls, the inspector's own console store is discarded, so a long-lived
/// program does not grow because it is being traced.
const DISCARD_CONSOLE_EVERY: u64 = 1000;
/// How long after the release, with no event at all, the release is repeated (see `read_until`).
const KICK_AFTER: [Duration; 5] = [
    Duration::from_millis(50),
    Duration::from_millis(150),
    Duration::from_millis(400),
    Duration::from_secs(1),
    Duration::from_secs(3),
];
/// How long after the setup's answers a Node that announced its wait may take to say it waits
/// before it is released anyway (a Node that does not keep its word is never left waiting; the
/// repeats above cover a release that arrives before the wait).
const ANNOUNCE_GRACE: Duration = Duration::from_millis(500);
/// The cache V8 keeps of parsed scripts' sources for the debugger, in bytes.
const MAX_SCRIPTS_CACHE: u64 = 10 * 1024 * 1024;
/// How long an event that needs the program's scripts waits for them (`Seen::NeedsScripts`); a
/// main thread blocked in a native call answers late, and the event is then taken without them.
const SCRIPTS_WAIT: Duration = Duration::from_secs(1);

/// Receives the protocol events of the program and of each of its workers.
pub trait Observer {
    /// `worker` is `None` for the program's main thread, else the worker's label (`worker 1`).
    fn on_event(&mut self, worker: Option<&str>, method: &str, params: &Value) -> Seen;

    /// The next event arrived at `at`, before it is given (it was kept while the driver waited for
    /// the program's scripts: `Seen::NeedsScripts`).
    fn arrived_at(&mut self, _at: Instant) {}
}

/// What an observer did with an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    Done,
    /// Not taken yet: its positions are in code the runtime transformed (`mocha --require
    /// ts-node/register` compiles `.ts` files in memory), whose source maps only the `Debugger`
    /// domain reports. The driver enables it in the running program (once: the scripts already
    /// parsed are reported with their maps) and gives the event again, which is then taken.
    NeedsScripts,
}

/// When reading stops early.
pub struct Limits<'a> {
    /// Stop reading at this instant.
    pub deadline: Option<Instant>,
    /// Set to a signal number when the tracer is asked to stop.
    pub stop: Option<&'a AtomicUsize>,
}

/// Why reading ended.
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
    ConsoleBinding,
    NodeRuntimeEnable,
    Resume,
}

/// One inspector session. `start` sends the setup; `read_until` can be called again after it
/// returned (to keep capturing while a stopped program winds down).
/// What runs at the driver's pauses (the audit's probe, `crate::probe::node::NodeProbe`): armed
/// once before the program is released, shown every event first, and called at every pause
/// before the driver resumes. The driver never knows what it does.
pub trait PauseHandler {
    /// Before the program is released.
    fn arm(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
        node_version: Option<&str>,
    ) -> Result<()>;
    /// Whether the event was the handler's own (the driver then does nothing more with it).
    fn on_event(&mut self, method: &str, params: &Value) -> Result<bool>;
    /// At a pause; the driver resumes after it.
    fn on_pause(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
        params: &Value,
    ) -> Result<()>;
}

/// No handler: a driver whose pauses are only resumed.
pub struct NoPauses;

impl PauseHandler for NoPauses {
    fn arm(&mut self, _: &mut Cdp, _: &mut VecDeque<Incoming>, _: Option<&str>) -> Result<()> {
        Ok(())
    }
    fn on_event(&mut self, _: &str, _: &Value) -> Result<bool> {
        Ok(false)
    }
    fn on_pause(&mut self, _: &mut Cdp, _: &mut VecDeque<Incoming>, _: &Value) -> Result<()> {
        Ok(())
    }
}

pub struct Driver<P: PauseHandler = NoPauses> {
    pending: HashMap<u64, Pending>,
    released: bool,
    /// Whether Node waits for the release: at once for a bootloader that did not announce its
    /// wait; else once Node said so (`NodeRuntime.waitingForDebugger`), or could not.
    node_waits: bool,
    /// Whether Node itself said it waits (the event, not the grace or an older Node).
    heard_wait: bool,
    /// When every setup request had been answered while Node had not yet said it waits.
    answered_at: Option<Instant>,
    /// When the program was released, until its first event arrives (see `KICK_AFTER`).
    awaiting_first_event: Option<Instant>,
    /// The first release's request id, and whether Node has answered a release: only an event
    /// after that answer is the program's (the setup's own events, such as its context, can
    /// follow a release sent as soon as Node said it waits).
    release_id: Option<u64>,
    release_answered: bool,
    kicks: usize,
    workers: HashMap<String, String>,
    console_calls: u64,
    /// Console calls seen in the current window, and when it started (see `FLOOD_CALLS`).
    window_calls: u32,
    window_start: Instant,
    /// When a flood was last seen, while capture is shallow (`STACK_FRAMES`).
    shallow_since_flood: Option<Instant>,
    probed: Probed,
    /// The audit's probe in the program's realms, when asked for (see `probe::node`).
    pause_handler: Option<P>,
    pause_handler_armed: bool,
    /// Messages read while the probe waited for its own answers, dispatched first.
    backlog: VecDeque<Incoming>,
    /// Messages read while the driver waited for the program's scripts, and when each arrived:
    /// dispatched next, in order.
    held: VecDeque<(Incoming, Instant)>,
    /// The console is captured in batches through the bootloader's binding (see
    /// `capture_console_in_batches`).
    console_batches: bool,
    /// The context the binding was asked for in.
    console_binding_context: Option<u64>,
    /// Whether the main thread's `Debugger` domain was asked for (at the start, or for an event's
    /// scripts: `Seen::NeedsScripts`).
    scripts_asked: bool,
}

impl<P: PauseHandler> Driver<P> {
    /// Enables what the trace needs. `debugger`: the `Debugger` domain (script events and their
    /// source-map URLs). The setup requests are queued and reach Node in one write (with the
    /// console binding's, when asked for); the program is released once Node says it waits (it
    /// applies the setup first), or, for a Node that cannot say so, once every one of them has
    /// been answered.
    ///
    /// `skip_pauses`: the program never pauses for the debugger (no break-on-start round trip, no
    /// stop at a `debugger;` statement); off when the tool needs its own pauses (the audit's
    /// probe), and then every pause is resumed.
    ///
    /// `version`: Node's version as the bootloader reported it; asked for (one more request
    /// before the release) only when it is not known.
    ///
    /// `announces`: the bootloader said Node will announce its wait (`boot::ChannelReport::announces`):
    /// it works on until then, and the release waits for `NodeRuntime.waitingForDebugger` too (a
    /// release that arrives before Node waits is lost).
    pub fn start(
        cdp: &mut Cdp,
        debugger: bool,
        skip_pauses: bool,
        version: Option<String>,
        announces: bool,
    ) -> Result<Driver<P>> {
        cdp.set_pacing(false);
        let mut pending = HashMap::new();
        if announces {
            let id = cdp.queue("NodeRuntime.enable", json!({}))?;
            pending.insert(id, Pending::NodeRuntimeEnable);
        }
        cdp.queue("Runtime.enable", json!({}))?;
        cdp.queue(
            "NodeRuntime.notifyWhenWaitingForDisconnect",
            json!({"enabled": true}),
        )?;
        cdp.queue(
            "Runtime.setMaxCallStackSizeToCapture",
            json!({"size": DEEP_FRAMES}),
        )?;
        if debugger {
            let id = cdp.queue(
                "Debugger.enable",
                json!({"maxScriptsCacheSize": MAX_SCRIPTS_CACHE}),
            )?;
            pending.insert(id, Pending::DebuggerEnable);
            if skip_pauses {
                cdp.queue("Debugger.setSkipAllPauses", json!({"skip": true}))?;
            }
        }
        let id = cdp.queue("NodeWorker.enable", json!({"waitForDebuggerOnStart": true}))?;
        pending.insert(id, Pending::WorkerEnable);
        if version.is_none() {
            let id = cdp.queue(
                "Runtime.evaluate",
                json!({"expression": "process.version", "returnByValue": true, "silent": true}),
            )?;
            pending.insert(id, Pending::Version);
        }
        Ok(Driver {
            pending,
            released: false,
            node_waits: !announces,
            heard_wait: false,
            answered_at: None,
            awaiting_first_event: None,
            release_id: None,
            release_answered: false,
            kicks: 0,
            workers: HashMap::new(),
            console_calls: 0,
            window_calls: 0,
            window_start: Instant::now(),
            shallow_since_flood: None,
            probed: Probed {
                node_version: version,
                ..Probed::default()
            },
            pause_handler: None,
            pause_handler_armed: false,
            backlog: VecDeque::new(),
            held: VecDeque::new(),
            console_batches: false,
            console_binding_context: None,
            scripts_asked: debugger,
        })
    }

    /// Console calls in batches: before the release, the bootloader's binding
    /// (`boot::CONSOLE_BINDING`) is added to the program's main context only; the bootloader then
    /// takes it and records the calls of Node's own console itself, one protocol message per
    /// batch (`Runtime.bindingCalled`). Without it (or when the bootloader cannot), every console
    /// call is the inspector's own `Runtime.consoleAPICalled`.
    ///
    /// The binding is asked for at once for context 1, Node's main context in a process whose
    /// bootloader waits (nothing else can have made a context yet), so that no round trip is added
    /// before the release; should the main context have another id, it is asked for again there.
    pub fn capture_console_in_batches(&mut self, cdp: &mut Cdp) -> Result<()> {
        self.console_batches = true;
        self.add_console_binding(cdp, MAIN_CONTEXT)
    }

    fn add_console_binding(&mut self, cdp: &mut Cdp, context: u64) -> Result<()> {
        let id = cdp.queue(
            "Runtime.addBinding",
            json!({
                "name": crate::inspector::boot::CONSOLE_BINDING,
                "executionContextId": context,
            }),
        )?;
        self.pending.insert(id, Pending::ConsoleBinding);
        self.console_binding_context = Some(context);
        Ok(())
    }

    /// Arms `handler` before the program is released (needs the `Debugger` domain, without
    /// skipped pauses).
    pub fn set_pause_handler(&mut self, handler: P) {
        self.pause_handler = Some(handler);
    }

    /// The pause handler, if there was one, for what it did.
    pub fn take_pause_handler(&mut self) -> Option<P> {
        self.pause_handler.take()
    }

    pub fn probed(&self) -> &Probed {
        &self.probed
    }

    /// Reads and dispatches messages until the program ends or a limit is reached.
    pub fn read_until(
        &mut self,
        cdp: &mut Cdp,
        observer: &mut dyn Observer,
        limits: &Limits<'_>,
    ) -> Result<Ending> {
        loop {
            let signal = limits.stop.map_or(0, |s| s.load(Ordering::Relaxed));
            if signal != 0 {
                return Ok(Ending::Signalled(signal as i32));
            }
            if limits.deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(Ending::TimedOut);
            }
            // Released once Node waits for it: a release that arrives before the wait is lost
            // (with everything pipelined before Node could say it waits, it missed the release
            // about once in 100 runs; see the kick below). When Node said so itself, at once: it
            // dispatches what it was sent in order, so the setup still on its way is applied
            // before the release, and the release does not wait for the setup's answers to make
            // their way back (0.1 ms). Else (a Node that cannot say it waits, or the grace below)
            // once every setup request has been answered. The audit's probe arms itself once its
            // setup is answered.
            // (Asked only until then: this loop reads every message of a flood.)
            let answered =
                !self.released && self.pending.values().all(|p| matches!(p, Pending::Resume));
            if answered && !self.node_waits {
                let since = *self.answered_at.get_or_insert_with(Instant::now);
                self.node_waits = since.elapsed() >= ANNOUNCE_GRACE;
            }
            let heard = !self.released && self.heard_wait && self.pause_handler.is_none();
            if (answered || heard) && self.node_waits {
                if let Some(probe) = self.pause_handler.as_mut()
                    && !self.pause_handler_armed
                {
                    self.pause_handler_armed = true;
                    probe.arm(cdp, &mut self.backlog, self.probed.node_version.as_deref())?;
                    // The probe's first pause, before any of the program's code: the
                    // bootloader released the process with no break on its first line.
                    cdp.send("Debugger.pause", json!({}))?;
                }
                self.release_id = Some(cdp.send("Runtime.runIfWaitingForDebugger", json!({}))?);
                cdp.set_pacing(true);
                crate::timings::mark("released");
                self.released = true;
                self.awaiting_first_event = Some(Instant::now());
            }
            self.calm_down(cdp)?;
            let incoming = match self.backlog.pop_front() {
                Some(incoming) => incoming,
                None => match self.held.pop_front() {
                    Some((incoming, at)) => {
                        observer.arrived_at(at);
                        incoming
                    }
                    None => cdp.read()?,
                },
            };
            match incoming {
                Incoming::Idle => {
                    // Node can miss the release: it answers `runIfWaitingForDebugger` but its main
                    // thread stays in `WaitForFrontendEvent` (a lost wake-up, seen about once in
                    // 500 runs under load, confirmed with gdb). Any further message wakes it, so
                    // while nothing has arrived since Node answered the release, say it again.
                    if let Some(since) = self.awaiting_first_event
                        && let Some(&after) = KICK_AFTER.get(self.kicks)
                        && since.elapsed() >= after
                    {
                        cdp.send("Runtime.runIfWaitingForDebugger", json!({}))?;
                        self.kicks += 1;
                    }
                }
                Incoming::Closed => return Ok(Ending::Closed),
                Incoming::Response { id, result } => {
                    // Answers come in the order of the requests: one to a request made with or
                    // after the release means the release was dispatched.
                    if self.release_id.is_some_and(|release| id >= release) {
                        self.release_answered = true;
                    }
                    self.answered(id, result);
                }
                Incoming::Event { method, .. } if method == "NodeRuntime.waitingForDebugger" => {
                    self.node_waits = true;
                    self.heard_wait = true;
                }
                Incoming::Event { method, params } => {
                    if self.release_answered {
                        self.awaiting_first_event = None;
                    }
                    if method == "NodeRuntime.waitingForDisconnect" {
                        if self.probed.workers_seen > 0 {
                            self.drain_workers(cdp, observer)?;
                        }
                        return Ok(Ending::Finished);
                    }
                    self.dispatch(cdp, observer, &method, &params)?;
                }
            }
        }
    }

    /// A worker's last messages are relayed by the main thread and can still be on their way when
    /// the program reports its end: read until the connection has been quiet for one tick.
    fn drain_workers(&mut self, cdp: &mut Cdp, observer: &mut dyn Observer) -> Result<()> {
        loop {
            match cdp.read()? {
                Incoming::Idle | Incoming::Closed => return Ok(()),
                Incoming::Response { id, result } => self.answered(id, result),
                Incoming::Event { method, params } => {
                    self.dispatch(cdp, observer, &method, &params)?;
                }
            }
        }
    }

    /// `calls` more console calls: under a flood (`FLOOD_CALLS` within `FLOOD_WINDOW`), V8
    /// captures the call site only.
    fn count_for_flood(&mut self, cdp: &mut Cdp, calls: u32) -> Result<()> {
        let now = Instant::now();
        if now.duration_since(self.window_start) > FLOOD_WINDOW {
            self.window_start = now;
            self.window_calls = 0;
        }
        self.window_calls = self.window_calls.saturating_add(calls);
        if self.window_calls >= FLOOD_CALLS {
            if self.shallow_since_flood.is_none() {
                cdp.send(
                    "Runtime.setMaxCallStackSizeToCapture",
                    json!({"size": STACK_FRAMES}),
                )?;
            }
            self.shallow_since_flood = Some(now);
        }
        Ok(())
    }

    /// Deep capture again once the flood has been over for `CALM_AFTER`.
    fn calm_down(&mut self, cdp: &mut Cdp) -> Result<()> {
        if let Some(seen) = self.shallow_since_flood
            && seen.elapsed() >= CALM_AFTER
        {
            cdp.send(
                "Runtime.setMaxCallStackSizeToCapture",
                json!({"size": DEEP_FRAMES}),
            )?;
            self.shallow_since_flood = None;
            self.window_calls = 0;
        }
        Ok(())
    }

    fn answered(&mut self, id: u64, result: Result<Value, Value>) {
        match (self.pending.remove(&id), result) {
            (Some(Pending::Version), Ok(result)) => {
                self.probed.node_version = result
                    .pointer("/result/value")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
            (Some(Pending::DebuggerEnable), Ok(_)) => self.probed.debugger = true,
            (Some(Pending::WorkerEnable), Ok(_)) => self.probed.workers = true,
            // A Node that cannot announce its wait: released once the rest is answered.
            (Some(Pending::NodeRuntimeEnable), Err(_)) => self.node_waits = true,
            _ => {}
        }
    }

    fn dispatch(
        &mut self,
        cdp: &mut Cdp,
        observer: &mut dyn Observer,
        method: &str,
        params: &Value,
    ) -> Result<()> {
        if let Some(probe) = self.pause_handler.as_mut()
            && probe.on_event(method, params)?
        {
            // A probe's record is a stack capture in the program (`Error.captureStackTrace`), for
            // which V8 also takes the 32 frames an error would carry: a page's records are a flood
            // like a console's, and as slow with deep capture. The first one says the target runs
            // (a page's first accesses come slower than a flood's rate but cost the same each).
            if method == "Runtime.bindingCalled" {
                self.count_for_flood(cdp, FLOOD_CALLS)?;
            }
            return Ok(());
        }
        match method {
            "Runtime.executionContextCreated" if self.console_batches && !self.released => {
                // The program's own context, reported before any of its code.
                let context = params.pointer("/context/id").and_then(Value::as_u64);
                let main = params
                    .pointer("/context/auxData/isDefault")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                if let Some(context) = context
                    && main
                    && self.console_binding_context != Some(context)
                {
                    self.add_console_binding(cdp, context)?;
                }
                self.deliver(cdp, observer, method, params)?;
            }
            "Runtime.bindingCalled"
                if params.get("name").and_then(Value::as_str)
                    == Some(crate::inspector::boot::CONSOLE_BINDING) =>
            {
                // A flood seen through the bootloader's batches counts as one seen call by call:
                // V8's capture for errors (32 frames) also runs for each call site the bootloader
                // takes (`Error.captureStackTrace`), which makes a flood about twice as slow.
                let payload = params.get("payload").and_then(Value::as_str).unwrap_or("");
                self.count_for_flood(cdp, batch_size(payload))?;
                self.deliver(cdp, observer, method, params)?;
            }
            "Debugger.paused" => {
                if let Some(probe) = self.pause_handler.as_mut() {
                    probe.on_pause(cdp, &mut self.backlog, params)?;
                }
                // Break-on-start, a `debugger;` statement, the probe's pause before a script:
                // a traced program never stays paused.
                let id = cdp.send(resume_from(params), json!({}))?;
                self.pending.insert(id, Pending::Resume);
            }
            "Runtime.consoleAPICalled" => {
                self.console_calls += 1;
                self.count_for_flood(cdp, 1)?;
                if self.console_calls % DISCARD_CONSOLE_EVERY == 0 {
                    cdp.send("Runtime.discardConsoleEntries", json!({}))?;
                }
                self.deliver(cdp, observer, method, params)?;
            }
            "NodeWorker.attachedToWorker" => {
                let Some(session) = params.get("sessionId").and_then(Value::as_str) else {
                    return Ok(());
                };
                self.probed.workers_seen += 1;
                let label = format!("worker {}", self.probed.workers_seen);
                self.workers.insert(session.to_owned(), label.clone());
                cdp.send_to_worker(session, "Runtime.enable", json!({}))?;
                cdp.send_to_worker(
                    session,
                    "Runtime.setMaxCallStackSizeToCapture",
                    json!({"size": STACK_FRAMES}),
                )?;
                // A worker's uncaught error never reaches its own session as `exceptionThrown`;
                // pausing on uncaught exceptions (and resuming at once) is how it is seen there.
                cdp.send_to_worker(
                    session,
                    "Debugger.enable",
                    json!({"maxScriptsCacheSize": MAX_SCRIPTS_CACHE}),
                )?;
                cdp.send_to_worker(
                    session,
                    "Debugger.setPauseOnExceptions",
                    json!({"state": "uncaught"}),
                )?;
                if self.console_batches {
                    // The worker's bootloader takes its console calls in batches, as the main
                    // thread's does (the worker's first context is its own, numbered 1).
                    cdp.send_to_worker(
                        session,
                        "Runtime.addBinding",
                        json!({
                            "name": crate::inspector::boot::CONSOLE_BINDING,
                            "executionContextId": MAIN_CONTEXT,
                        }),
                    )?;
                }
                cdp.send_to_worker(session, "Runtime.runIfWaitingForDebugger", json!({}))?;
                observer.on_event(Some(&label), method, params);
            }
            "NodeWorker.receivedMessageFromWorker" => {
                let session = params
                    .get("sessionId")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let Some(label) = self.workers.get(session) else {
                    return Ok(());
                };
                let message = params.get("message").and_then(Value::as_str).unwrap_or("");
                if let Incoming::Event { method, params } = crate::inspector::cdp::parse(message) {
                    if method == "Debugger.paused" {
                        let session = session.to_owned();
                        let reason = params.get("reason").and_then(Value::as_str).unwrap_or("");
                        if matches!(reason, "exception" | "promiseRejection") {
                            observer.on_event(Some(label), &method, &params);
                        }
                        cdp.send_to_worker(&session, resume_from(&params), json!({}))?;
                    } else {
                        observer.on_event(Some(label), &method, &params);
                    }
                }
            }
            "NodeWorker.detachedFromWorker" => {
                let session = params
                    .get("sessionId")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                self.workers.remove(session);
            }
            _ => self.deliver(cdp, observer, method, params)?,
        }
        Ok(())
    }

    /// Gives a main-thread event to the observer, and again once the program's scripts are known
    /// when it needs them (`Seen::NeedsScripts`).
    fn deliver(
        &mut self,
        cdp: &mut Cdp,
        observer: &mut dyn Observer,
        method: &str,
        params: &Value,
    ) -> Result<()> {
        if observer.on_event(None, method, params) == Seen::NeedsScripts {
            if !self.scripts_asked {
                self.enable_scripts(cdp, observer)?;
            }
            observer.on_event(None, method, params);
        }
        Ok(())
    }

    /// Enables the main thread's `Debugger` domain in the running program and waits at most
    /// `SCRIPTS_WAIT` for its answer. V8 reports every script already parsed, with its source-map
    /// URL, before it answers: those reports go to the observer at once; any other message read
    /// meanwhile is kept, in order and with its time, for after the event that asked. Pauses stay
    /// skipped, as in a run that enabled the domain from the start.
    fn enable_scripts(&mut self, cdp: &mut Cdp, observer: &mut dyn Observer) -> Result<()> {
        self.scripts_asked = true;
        let enable = cdp.send(
            "Debugger.enable",
            json!({"maxScriptsCacheSize": MAX_SCRIPTS_CACHE}),
        )?;
        self.pending.insert(enable, Pending::DebuggerEnable);
        cdp.send("Debugger.setSkipAllPauses", json!({"skip": true}))?;
        let deadline = Instant::now() + SCRIPTS_WAIT;
        while self.pending.contains_key(&enable) && Instant::now() < deadline {
            match cdp.read()? {
                Incoming::Idle => {}
                Incoming::Response { id, result } => {
                    if self.release_id.is_some_and(|release| id >= release) {
                        self.release_answered = true;
                    }
                    self.answered(id, result);
                }
                Incoming::Event { method, params } if method == "Debugger.scriptParsed" => {
                    observer.on_event(None, &method, &params);
                }
                Incoming::Closed => {
                    self.held.push_back((Incoming::Closed, Instant::now()));
                    break;
                }
                event @ Incoming::Event { .. } => self.held.push_back((event, Instant::now())),
            }
        }
        Ok(())
    }
}

/// How to go on from a pause: resume; but from V8's pause before running out of memory (`OOM`:
/// the `Debugger` domain, once enabled, takes the thread's near-heap-limit callback and raises
/// the limit to pause there), disable the domain, which resumes and puts the limit back, so that
/// the program runs out of memory where it would without tracer (a worker with `resourceLimits`
/// ends with `ERR_WORKER_OUT_OF_MEMORY`, not the whole process with a fatal error).
fn resume_from(paused: &Value) -> &'static str {
    match paused.get("reason").and_then(Value::as_str) {
        Some("OOM") => "Debugger.disable",
        _ => "Debugger.resume",
    }
}

/// How many console calls a batch of the bootloader's holds: its payload starts
/// `{"count":N,` (`boot.js`); 1 when it does not.
fn batch_size(payload: &str) -> u32 {
    payload
        .strip_prefix("{\"count\":")
        .and_then(|rest| {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            rest[..digits].parse().ok()
        })
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for Node's inspector on loopback: answers every request; if `announce`, says it
    /// waits a while after the setup's last request (a bootloader still at work); asks for the
    /// disconnect once released. Returns the methods it was sent, with `(waiting)` where it said
    /// it waits.
    fn fake_inspector(announce: bool) -> (String, std::thread::JoinHandle<Vec<String>>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("ws://{}/fake", listener.local_addr().unwrap());
        let server = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut socket = tungstenite::accept(stream).unwrap();
            let mut methods = Vec::new();
            while let Ok(message) = socket.read() {
                let Ok(text) = message.to_text() else { break };
                let Ok(request) = serde_json::from_str::<Value>(text) else {
                    continue;
                };
                let method = request["method"].as_str().unwrap_or_default().to_owned();
                let answer = json!({"id": request["id"], "result": {}});
                socket.send(answer.to_string().into()).unwrap();
                if method == "Runtime.runIfWaitingForDebugger" {
                    let event = json!({"method": "NodeRuntime.waitingForDisconnect", "params": {}});
                    socket.send(event.to_string().into()).unwrap();
                }
                if method == "NodeWorker.enable" && announce {
                    std::thread::sleep(Duration::from_millis(100));
                    // Anything the client sent meanwhile came before Node said it waits.
                    let stream = socket.get_ref();
                    stream.set_nonblocking(true).unwrap();
                    if stream.peek(&mut [0u8; 1]).is_ok() {
                        methods.push("(sent before the wait)".into());
                    }
                    stream.set_nonblocking(false).unwrap();
                    let event = json!({"method": "NodeRuntime.waitingForDebugger", "params": {}});
                    socket.send(event.to_string().into()).unwrap();
                    methods.push("(waiting)".into());
                }
                methods.push(method);
            }
            methods
        });
        (url, server)
    }

    struct Nothing;
    impl Observer for Nothing {
        fn on_event(&mut self, _: Option<&str>, _: &str, _: &Value) -> Seen {
            Seen::Done
        }
    }

    /// A session with a bootloader that announces its wait, against the stand-in at `url`, with
    /// console batches or not, for at most `limit`.
    fn session(url: &str, batches: bool, limit: Duration) -> Ending {
        let mut cdp = Cdp::connect(url).unwrap();
        let mut driver =
            Driver::<NoPauses>::start(&mut cdp, false, true, Some("v20.20.2".into()), true)
                .unwrap();
        if batches {
            driver.capture_console_in_batches(&mut cdp).unwrap();
        }
        let limits = Limits {
            deadline: Some(Instant::now() + limit),
            stop: None,
        };
        let ending = driver.read_until(&mut cdp, &mut Nothing, &limits).unwrap();
        cdp.close();
        ending
    }

    fn released(announce: bool) -> (Ending, Vec<String>) {
        let (url, server) = fake_inspector(announce);
        let ending = session(&url, false, Duration::from_secs(20));
        (ending, server.join().unwrap())
    }

    #[test]
    fn a_pause_before_running_out_of_memory_disables_the_debugger_and_any_other_resumes() {
        assert_eq!(resume_from(&json!({"reason": "OOM"})), "Debugger.disable");
        for reason in ["other", "exception", "promiseRejection", "instrumentation"] {
            assert_eq!(resume_from(&json!({ "reason": reason })), "Debugger.resume");
        }
        assert_eq!(resume_from(&json!({})), "Debugger.resume");
    }

    #[test]
    fn a_node_that_announced_its_wait_is_released_once_it_says_it_waits() {
        let (ending, methods) = released(true);
        assert_eq!(ending, Ending::Finished);
        let waiting = methods.iter().position(|m| m == "(waiting)");
        let release = methods
            .iter()
            .position(|m| m == "Runtime.runIfWaitingForDebugger");
        assert!(methods.iter().any(|m| m == "NodeRuntime.enable"));
        assert!(waiting.is_some() && release > waiting, "{methods:?}");
        assert!(
            !methods.iter().any(|m| m == "(sent before the wait)"),
            "{methods:?}"
        );
    }

    #[test]
    fn a_node_that_announced_its_wait_and_never_says_it_is_released_anyway() {
        // Never left waiting: released after the grace, not at the deadline.
        let (ending, methods) = released(false);
        assert_eq!(ending, Ending::Finished, "{methods:?}");
        assert!(
            methods
                .iter()
                .any(|m| m == "Runtime.runIfWaitingForDebugger")
        );
    }

    type Socket = tungstenite::WebSocket<std::net::TcpStream>;

    /// Drives a session with console batches against `serve`, a stand-in for Node's inspector
    /// that says it waits on the setup's first request and is then handed every request it is
    /// sent, with the socket, until it returns `Some`. Returns how the session ended and what
    /// `serve` returned.
    fn drive<T: Send + 'static>(
        mut serve: impl FnMut(&mut Socket, &Value) -> Option<T> + Send + 'static,
    ) -> (Ending, Option<T>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("ws://{}/fake", listener.local_addr().unwrap());
        let server = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut socket = tungstenite::accept(stream).unwrap();
            socket
                .get_ref()
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let mut first = true;
            while let Ok(message) = socket.read() {
                let Ok(request) = serde_json::from_str::<Value>(message.to_text().unwrap_or(""))
                else {
                    continue;
                };
                if std::mem::take(&mut first) {
                    let event = json!({"method": "NodeRuntime.waitingForDebugger", "params": {}});
                    socket.send(event.to_string().into()).unwrap();
                }
                if let Some(result) = serve(&mut socket, &request) {
                    let event = json!({"method": "NodeRuntime.waitingForDisconnect", "params": {}});
                    socket.send(event.to_string().into()).unwrap();
                    return Some(result);
                }
            }
            None
        });
        let ending = session(&url, true, Duration::from_secs(5));
        (ending, server.join().unwrap())
    }

    fn answer(socket: &mut Socket, id: &Value) {
        let answer = json!({"id": id, "result": {}});
        socket.send(answer.to_string().into()).unwrap();
    }

    #[test]
    fn a_node_that_says_it_waits_is_released_before_the_setup_s_answers_are_back() {
        // Every answer is held back until the release has come.
        let mut held = Vec::new();
        let (ending, released) = drive(move |socket, request| {
            held.push(request["id"].clone());
            if request["method"] != "Runtime.runIfWaitingForDebugger" {
                return None;
            }
            for id in held.drain(..) {
                answer(socket, &id);
            }
            Some(())
        });
        assert_eq!(ending, Ending::Finished);
        assert!(released.is_some(), "the release waited for the answers");
    }

    #[test]
    fn a_release_lost_after_the_setup_s_own_events_is_said_again() {
        // The release goes out before the setup is answered; the setup's answers and its
        // context's event come back first, then the release's answer, and then nothing (Node
        // missed the wake-up) until the release is said again.
        let mut held = Vec::new();
        let mut releases = 0;
        let (ending, said) = drive(move |socket, request| {
            if request["method"] != "Runtime.runIfWaitingForDebugger" {
                held.push(request["id"].clone());
                return None;
            }
            releases += 1;
            for id in held.drain(..) {
                answer(socket, &id);
            }
            if releases == 1 {
                let context = json!({"method": "Runtime.executionContextCreated",
                    "params": {"context": {"id": 1, "auxData": {"isDefault": true}}}});
                socket.send(context.to_string().into()).unwrap();
            }
            answer(socket, &request["id"]);
            (releases == 2).then_some(releases)
        });
        assert_eq!(
            ending,
            Ending::Finished,
            "the lost release was not said again"
        );
        assert_eq!(said, Some(2));
    }

    /// A pause handler that takes every binding call as its own (the audit's probe's records).
    struct Records;
    impl PauseHandler for Records {
        fn arm(&mut self, _: &mut Cdp, _: &mut VecDeque<Incoming>, _: Option<&str>) -> Result<()> {
            Ok(())
        }
        fn on_event(&mut self, method: &str, _: &Value) -> Result<bool> {
            Ok(method == "Runtime.bindingCalled")
        }
        fn on_pause(&mut self, _: &mut Cdp, _: &mut VecDeque<Incoming>, _: &Value) -> Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_probe_s_first_records_take_the_errors_capture_down_to_the_call_site() {
        // Each record is a stack capture in the program, for which V8 also takes an error's
        // frames: a page's records are a flood from the first, and capture goes shallow as for
        // the console's.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("ws://{}/fake", listener.local_addr().unwrap());
        let server = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut socket = tungstenite::accept(stream).unwrap();
            let mut sizes = Vec::new();
            while let Ok(message) = socket.read() {
                let Ok(request) = serde_json::from_str::<Value>(message.to_text().unwrap_or(""))
                else {
                    continue;
                };
                answer(&mut socket, &request["id"]);
                if request["method"] == "Runtime.setMaxCallStackSizeToCapture" {
                    sizes.push(request["params"]["size"].as_u64().unwrap_or(0));
                }
                if request["method"] == "Runtime.runIfWaitingForDebugger" && sizes.len() == 1 {
                    for ls in 0..3 {
                        let event = json!({"method": "Runtime.bindingCalled",
                            "params": {"name": "__tracerRecord", "payload": format!("[{{\"ls\":{ls}}}]")}});
                        socket.send(event.to_string().into()).unwrap();
                    }
                }
                if sizes.len() == 2 {
                    let event = json!({"method": "NodeRuntime.waitingForDisconnect", "params": {}});
                    socket.send(event.to_string().into()).unwrap();
                }
            }
            sizes
        });
        let mut cdp = Cdp::connect(&url).unwrap();
        let mut driver =
            Driver::<Records>::start(&mut cdp, false, true, Some("v20.20.2".into()), false)
                .unwrap();
        driver.set_pause_handler(Records);
        let limits = Limits {
            deadline: Some(Instant::now() + Duration::from_secs(10)),
            stop: None,
        };
        let ending = driver.read_until(&mut cdp, &mut Nothing, &limits).unwrap();
        cdp.close();
        assert_eq!(ending, Ending::Finished);
        assert_eq!(
            server.join().unwrap(),
            [u64::from(DEEP_FRAMES), u64::from(STACK_FRAMES)]
        );
    }

    #[test]
    fn a_batch_says_how_many_calls_it_holds() {
        assert_eq!(batch_size(r#"{"count":256,"now":1.5,"calls":[]}"#), 256);
        assert_eq!(batch_size(r#"{"count":1,"now":1.5,"calls":[]}"#), 1);
        // Anything else counts as one call.
        assert_eq!(batch_size(r#"{"now":1.5}"#), 1);
        assert_eq!(batch_size(r#"{"count":"x"}"#), 1);
        assert_eq!(batch_size(r#"{"count":99999999999}"#), 1);
    }
}
