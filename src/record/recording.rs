//! One recording over CDP: a page target attached in flat mode, the binding and the probe
//! installed before navigation, out-of-process iframes and dedicated, shared and service workers
//! probed while paused on start (the last two auto-attached from the browser level), and every
//! record of every binding message (a batch) turned into a trace line (global `seq`, `t`,
//! `realmId`, `nav`) as it arrives. It decides when the recording ends: the page's `tracer:done`
//! mark, the load event plus a quiet period, the timeout, a signal, or the browser going away;
//! before an ending the page did not ask for, it stops the running scripts so the batches in
//! flight still leave.
//!
//! A realm's probe sends the property facts of a definition (`owner`, `descriptor`,
//! `getterOwner`, `setterOwner`) once, on the first record that has them, marked `fdef: n`; later
//! records with the same facts carry `fref: n`, and the facts are filled back in here, so every
//! trace line is whole. `n` is per realm instance (CDP session and execution context). Likewise
//! an access record equal to its api's previous one but for `ls` and `e` arrives as
//! `{"k":"same","slot":n,..}` and is written in full from the slot's last whole record.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::error::TracerError;
use crate::inspector::cdp::{Cdp, Incoming};
use crate::probe;
use crate::probe::ingest::Ingest;
use crate::probe::writer::TraceWriter;

/// How long to keep reading after the page said `tracer:done`, for records of other realms
/// still on the wire.
const DRAIN: Duration = Duration::from_millis(200);
/// How long one setup request may take.
const SETUP_LIMIT: Duration = Duration::from_secs(15);

/// When the recording stops.
pub struct RecordingLimits {
    /// Stop this long after the load event once no record has arrived for that long.
    pub settle: Duration,
    /// Stop here whatever happens.
    pub timeout: Duration,
    /// Set to a signal number when the tracer is asked to stop.
    pub stop: Arc<AtomicUsize>,
    /// Stop once this many accesses are written (later records are not written).
    pub max_accesses: u64,
}

/// Why the recording ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The page marked `tracer:done`.
    Done,
    /// Loaded, then quiet for the settle period.
    Settled,
    TimedOut,
    /// `--max-accesses` were written.
    Capped,
    Signalled(i32),
    /// The page crashed or was closed.
    PageGone,
    /// The browser closed the connection.
    BrowserGone,
}

/// What the recording saw, for the summary.
#[derive(Debug, Default)]
pub struct RecordingSummary {
    pub realms: Vec<String>,
    /// Probe installations: realm kind, members wrapped, entries that failed.
    pub installs: Vec<probe::ingest::Install>,
    pub page_errors: Vec<String>,
    pub worker_failures: Vec<String>,
}

pub struct Recorder<'a> {
    cdp: Cdp,
    /// The records, turned into trace lines.
    ingest: Ingest<&'a mut TraceWriter>,
    page_session: String,
    probe_source: String,
    /// The targets given the probe, by target id.
    probed: HashSet<String>,
    /// The sessions of the workers given the probe, and whether the worker lost its realm since
    /// (a service worker stopped and started again keeps its session but not its realm).
    worker_sessions: HashMap<String, bool>,
    loaded: bool,
    last_activity: Instant,
    done_at: Option<Instant>,
    gone: Option<Ending>,
    pub report: RecordingSummary,
}

/// The browser's product version (`156.0.8078.114`), from `Browser.getVersion`.
pub fn browser_version(cdp: &mut Cdp) -> Result<String> {
    let version = call(
        cdp,
        None,
        "Browser.getVersion",
        json!({}),
        &mut |_, _, _| {},
    )?;
    let product = version
        .get("product")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Ok(product
        .split_once('/')
        .map_or(product, |(_, v)| v)
        .to_owned())
}

/// `Target.setAutoAttach`'s parameters: every new target waits on start, in flat mode.
fn auto_attach() -> Value {
    json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true})
}

/// Sends one request and waits for its answer; events meanwhile go to `on_event`.
fn call(
    cdp: &mut Cdp,
    session: Option<&str>,
    method: &str,
    params: Value,
    on_event: &mut dyn FnMut(Option<String>, String, Value),
) -> Result<Value> {
    let answer = cdp.call(
        session,
        method,
        params,
        SETUP_LIMIT,
        &mut |session, message| {
            if let Incoming::Event { method, params } = message {
                on_event(session, method, params);
            }
        },
    )?;
    answer.map_err(|e| anyhow::anyhow!("{method} failed: {e}"))
}

impl<'a> Recorder<'a> {
    /// Opens a page target on `about:blank`, attaches to it and installs the binding and the
    /// probe. `started` is the capture's start in milliseconds since the Unix epoch.
    pub fn open(
        mut cdp: Cdp,
        writer: &'a mut TraceWriter,
        started: f64,
        watch: &probe::Watch,
        batch: bool,
    ) -> Result<Recorder<'a>> {
        let mut ignore = |_: Option<String>, _: String, _: Value| {};
        let target = call(
            &mut cdp,
            None,
            "Target.createTarget",
            json!({"url": "about:blank"}),
            &mut ignore,
        )?;
        let target_id = target
            .get("targetId")
            .and_then(Value::as_str)
            .context("Target.createTarget returned no targetId")?
            .to_owned();
        let attached = call(
            &mut cdp,
            None,
            "Target.attachToTarget",
            json!({"targetId": target_id, "flatten": true}),
            &mut ignore,
        )?;
        let page_session = attached
            .get("sessionId")
            .and_then(Value::as_str)
            .context("Target.attachToTarget returned no sessionId")?
            .to_owned();
        let probe_source = probe::record_source(watch, batch);
        let s = Some(page_session.as_str());
        call(
            &mut cdp,
            s,
            "Runtime.addBinding",
            json!({"name": probe::BINDING}),
            &mut ignore,
        )?;
        call(&mut cdp, s, "Page.enable", json!({}), &mut ignore)?;
        call(&mut cdp, s, "Runtime.enable", json!({}), &mut ignore)?;
        call(
            &mut cdp,
            s,
            "Runtime.setMaxCallStackSizeToCapture",
            json!({"size": 0}),
            &mut ignore,
        )?;
        call(
            &mut cdp,
            s,
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": probe_source}),
            &mut ignore,
        )?;
        call(
            &mut cdp,
            s,
            "Target.setAutoAttach",
            auto_attach(),
            &mut ignore,
        )?;
        // Shared and service workers are not children of the page: the browser attaches them,
        // paused on start, to this connection. Pages and the rest are left out.
        let mut browser_level = auto_attach();
        browser_level["filter"] = json!([{"type": "shared_worker"}, {"type": "service_worker"}]);
        call(
            &mut cdp,
            None,
            "Target.setAutoAttach",
            browser_level,
            &mut ignore,
        )?;
        Ok(Recorder {
            cdp,
            ingest: Ingest::new(writer, started),
            page_session,
            probe_source,
            probed: HashSet::new(),
            worker_sessions: HashMap::new(),
            loaded: false,
            last_activity: Instant::now(),
            done_at: None,
            gone: None,
            report: RecordingSummary::default(),
        })
    }

    /// Navigates the page to `url` and records until the recording ends.
    pub fn record(&mut self, url: &str, limits: &RecordingLimits) -> Result<Ending> {
        let session = self.page_session.clone();
        let navigate = self
            .cdp
            .send_session(&session, "Page.navigate", json!({"url": url}))?;
        let deadline = Instant::now() + limits.timeout;
        self.ingest.max_accesses = limits.max_accesses;
        loop {
            let signal = limits.stop.load(Ordering::Relaxed);
            if signal != 0 {
                self.collect_batches()?;
                return Ok(Ending::Signalled(signal as i32));
            }
            if let Some(ending) = self.gone {
                return Ok(ending);
            }
            if self.ingest.accesses() >= self.ingest.max_accesses {
                return Ok(Ending::Capped);
            }
            if self.done_at.is_some_and(|at| at.elapsed() >= DRAIN) {
                // The page's own batch left with its mark; a worker may be mid-task.
                if self.ingest.sessions().count() > 1 {
                    self.collect_batches()?;
                }
                return Ok(Ending::Done);
            }
            if self.loaded
                && self.done_at.is_none()
                && self.last_activity.elapsed() >= limits.settle
            {
                // Quiet may be a long task holding a batch that has not left yet.
                self.collect_batches()?;
                return Ok(Ending::Settled);
            }
            if Instant::now() >= deadline {
                self.collect_batches()?;
                return Ok(Ending::TimedOut);
            }
            match self.cdp.read_flat()? {
                (session, Incoming::Event { method, params }) => {
                    self.event(session, &method, params)?;
                }
                (_, Incoming::Response { id, result }) if id == navigate => {
                    let answer = result.unwrap_or_else(|error| json!({"errorText": error}));
                    if let Some(error) = answer.get("errorText").and_then(Value::as_str) {
                        bail!(TracerError::cannot_trace(format!(
                            "Chromium could not load {url}: {error}"
                        )));
                    }
                }
                (
                    _,
                    Incoming::Response {
                        result: Err(error), ..
                    },
                ) => {
                    self.report
                        .worker_failures
                        .push(format!("a request to a frame or worker failed: {error}"));
                }
                (
                    _,
                    Incoming::Response {
                        result: Ok(answer), ..
                    },
                ) => {
                    if let Some(details) = answer.get("exceptionDetails") {
                        let text = details["exception"]["description"]
                            .as_str()
                            .or_else(|| details["text"].as_str())
                            .unwrap_or("an exception");
                        self.report
                            .worker_failures
                            .push(format!("the probe failed in a worker: {text}"));
                    }
                }
                (_, Incoming::Closed) => return Ok(Ending::BrowserGone),
                _ => {}
            }
        }
    }

    /// Before an ending the page did not ask for (and after `tracer:done` when workers reported):
    /// the probe's current batch leaves at the end of the running task, and a page stuck in a
    /// loop never ends it. Stopping the running script
    /// (`Runtime.terminateExecution`, in the page and every probed worker) ends the task; the
    /// batches that then leave are read for up to [`DRAIN`].
    fn collect_batches(&mut self) -> Result<()> {
        if self.gone.is_some() {
            return Ok(());
        }
        for session in self.probed_sessions() {
            self.cdp
                .send_session(&session, "Runtime.terminateExecution", json!({}))?;
        }
        let until = Instant::now() + DRAIN;
        while Instant::now() < until && self.gone.is_none() {
            match self.cdp.read_flat()? {
                (session, Incoming::Event { method, params }) => {
                    self.event(session, &method, params)?;
                }
                (_, Incoming::Closed) => break,
                _ => {}
            }
        }
        Ok(())
    }

    /// The page's session and every other session a probe reported from.
    fn probed_sessions(&self) -> Vec<String> {
        let mut sessions = vec![self.page_session.clone()];
        sessions.extend(
            self.ingest
                .sessions()
                .filter(|session| **session != self.page_session)
                .cloned(),
        );
        sessions
    }

    /// What the recording saw, with what the records said of realms and installations.
    pub fn take_report(&mut self) -> RecordingSummary {
        let mut report = std::mem::take(&mut self.report);
        let ingested = std::mem::take(&mut self.ingest.report);
        report.realms = ingested.realms;
        report.installs = ingested.installs.into_iter().collect();
        report.worker_failures.extend(ingested.unreadable);
        report
    }

    /// Asks the browser to close and drops the connection.
    pub fn close(mut self) {
        let _ = self.cdp.send("Browser.close", json!({}));
        self.cdp.close();
    }

    fn event(&mut self, session: Option<String>, method: &str, params: Value) -> Result<()> {
        match method {
            "Runtime.bindingCalled" => {
                if params.get("name").and_then(Value::as_str) != Some(probe::BINDING) {
                    return Ok(());
                }
                let context = params
                    .get("executionContextId")
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                let payload = params
                    .get("payload")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let delivered = self.ingest.binding(
                    session.as_deref().unwrap_or_default(),
                    context,
                    payload,
                )?;
                if delivered.records > 0 {
                    self.last_activity = Instant::now();
                }
                if delivered.done {
                    self.done_at.get_or_insert_with(Instant::now);
                }
            }
            "Page.loadEventFired" if session.as_deref() == Some(&self.page_session) => {
                self.loaded = true;
                self.last_activity = Instant::now();
            }
            "Target.attachedToTarget" => self.attached(&params)?,
            "Target.detachedFromTarget"
                if params.get("sessionId").and_then(Value::as_str) == Some(&self.page_session) =>
            {
                self.gone = Some(Ending::PageGone);
            }
            "Inspector.targetCrashed" if session.as_deref() == Some(&self.page_session) => {
                self.gone = Some(Ending::PageGone);
            }
            "Runtime.executionContextsCleared" => {
                if let Some(lost) = session
                    .as_deref()
                    .and_then(|s| self.worker_sessions.get_mut(s))
                {
                    *lost = true;
                }
                // Its realms send nothing more (a binding call precedes, on the same session,
                // the end of its context): what was kept for them goes.
                if let Some(session) = session.as_deref() {
                    self.ingest.forget_session(session);
                }
            }
            "Runtime.executionContextDestroyed" => {
                if let (Some(session), Some(context)) = (
                    session.as_deref(),
                    params.get("executionContextId").and_then(Value::as_i64),
                ) {
                    self.ingest.forget_context(session, context);
                }
            }
            "Runtime.executionContextCreated" => self.worker_restarted(session, &params)?,
            "Runtime.exceptionThrown" => {
                let details = &params["exceptionDetails"];
                let text = details["exception"]["description"]
                    .as_str()
                    .or_else(|| details["text"].as_str())
                    .unwrap_or("an uncaught exception");
                let first = text.lines().next().unwrap_or_default().to_owned();
                self.report.page_errors.push(first);
            }
            _ => {}
        }
        Ok(())
    }

    /// A new target: under the page (an out-of-process iframe, a dedicated worker, the page's
    /// service worker) or, from the browser-level auto-attach, a shared or service worker. Each
    /// waits on start: it gets the binding and the probe, then runs. A target attached twice (a
    /// service worker is, once per level) is probed once. Anything else is only let go.
    fn attached(&mut self, params: &Value) -> Result<()> {
        let Some(session) = params.get("sessionId").and_then(Value::as_str) else {
            return Ok(());
        };
        let info = &params["targetInfo"];
        let kind = info["type"].as_str().unwrap_or_default();
        let target = info["targetId"].as_str().unwrap_or_default();
        match kind {
            "worker" | "shared_worker" | "service_worker" | "iframe" => {
                if self.probed.insert(target.to_owned()) {
                    self.probe_target(session, kind == "iframe")?;
                }
            }
            _ => {
                let url = info["url"].as_str().unwrap_or_default();
                self.report
                    .worker_failures
                    .push(format!("not probed ({kind}): {url}"));
            }
        }
        if params.get("waitingForDebugger").and_then(Value::as_bool) == Some(true) {
            self.cdp
                .send_session(session, "Runtime.runIfWaitingForDebugger", json!({}))?;
        }
        Ok(())
    }

    /// Installs the binding and the probe in a target paused on start. A worker's one realm is
    /// probed by evaluating the probe now (it runs before the worker's first line). An
    /// out-of-process iframe is paused before its document exists: the probe is registered for
    /// every new document of that frame (its first one included, and the same-site frames inside
    /// it), as on the page. The target auto-attaches its own children the same way.
    fn probe_target(&mut self, session: &str, frame: bool) -> Result<()> {
        self.cdp.send_session(
            session,
            "Runtime.addBinding",
            json!({"name": probe::BINDING}),
        )?;
        self.cdp
            .send_session(session, "Runtime.enable", json!({}))?;
        self.cdp.send_session(
            session,
            "Runtime.setMaxCallStackSizeToCapture",
            json!({"size": 0}),
        )?;
        if frame {
            self.cdp.send_session(session, "Page.enable", json!({}))?;
            self.cdp.send_session(
                session,
                "Page.addScriptToEvaluateOnNewDocument",
                json!({"source": self.probe_source}),
            )?;
        } else {
            self.cdp.send_session(
                session,
                "Runtime.evaluate",
                json!({"expression": self.probe_source, "silent": true}),
            )?;
            self.worker_sessions.insert(session.to_owned(), false);
        }
        self.cdp
            .send_session(session, "Target.setAutoAttach", auto_attach())?;
        Ok(())
    }

    /// A new realm in a probed worker that lost its first one: a service worker the browser
    /// stopped (idle) and started again. It is not paused this time (the browser attaches it only
    /// once), so the probe is evaluated in it as soon as it is announced: the worker's first lines
    /// may run before it.
    fn worker_restarted(&mut self, session: Option<String>, params: &Value) -> Result<()> {
        let Some(session) = session else {
            return Ok(());
        };
        let Some(lost) = self.worker_sessions.get_mut(&session) else {
            return Ok(());
        };
        if !std::mem::take(lost) {
            return Ok(());
        }
        let Some(context) = params["context"]["id"].as_i64() else {
            return Ok(());
        };
        self.cdp.send_session(
            &session,
            "Runtime.evaluate",
            json!({"expression": self.probe_source, "silent": true, "contextId": context}),
        )?;
        Ok(())
    }
}
