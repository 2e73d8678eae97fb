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

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::error::TracerError;
use crate::inspector::cdp::{Cdp, Incoming};
use crate::record::probe;
use crate::record::writer::{self, Fields, TraceWriter};

/// How long to keep reading after the page said `tracer:done`, for records of other realms
/// still on the wire.
const DRAIN: Duration = Duration::from_millis(200);
/// The property facts a probe sends once per definition (see the module comment).
const FACTS: [&str; 4] = ["owner", "descriptor", "getterOwner", "setterOwner"];
/// How long one setup request may take.
const SETUP_LIMIT: Duration = Duration::from_secs(15);

/// When the recording stops.
pub struct Limits {
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
pub struct Report {
    pub realms: Vec<String>,
    /// Probe installations: realm kind, members wrapped, entries that failed.
    pub installs: Vec<(String, u64, u64)>,
    pub page_errors: Vec<String>,
    pub worker_failures: Vec<String>,
}

pub struct Recorder<'a> {
    cdp: Cdp,
    writer: &'a mut TraceWriter,
    started: f64,
    page_session: String,
    probe_source: String,
    /// session -> execution context -> the realm.
    realms: HashMap<String, HashMap<i64, Realm>>,
    realm_counts: HashMap<String, u64>,
    /// The targets given the probe, by target id.
    probed: HashSet<String>,
    /// The sessions of the workers given the probe, and whether the worker lost its realm since
    /// (a service worker stopped and started again keeps its session but not its realm).
    worker_sessions: HashMap<String, bool>,
    /// The nav of the newest main realm.
    nav: u64,
    loaded: bool,
    last_activity: Instant,
    done_at: Option<Instant>,
    gone: Option<Ending>,
    /// The limit's `max_accesses` (set when the recording starts).
    max_accesses: u64,
    pub report: Report,
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
    let id = match session {
        Some(s) => cdp.send_session(s, method, params)?,
        None => cdp.send(method, params)?,
    };
    let deadline = Instant::now() + SETUP_LIMIT;
    loop {
        match cdp.read_flat()? {
            (_, Incoming::Response { id: got, result }) if got == id => {
                return result.map_err(|e| anyhow::anyhow!("{method} failed: {e}"));
            }
            (session, Incoming::Event { method, params }) => on_event(session, method, params),
            (_, Incoming::Closed) => bail!("the browser closed the connection during {method}"),
            _ => {}
        }
        if Instant::now() >= deadline {
            bail!("no answer to {method} within {} s", SETUP_LIMIT.as_secs());
        }
    }
}

impl<'a> Recorder<'a> {
    /// Opens a page target on `about:blank`, attaches to it and installs the binding and the
    /// probe. `started` is the capture's start in milliseconds since the Unix epoch.
    pub fn open(
        mut cdp: Cdp,
        writer: &'a mut TraceWriter,
        started: f64,
        apis: &[String],
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
        let probe_source = probe::source(apis, batch);
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
            writer,
            started,
            page_session,
            probe_source,
            realms: HashMap::new(),
            realm_counts: HashMap::new(),
            probed: HashSet::new(),
            worker_sessions: HashMap::new(),
            nav: 0,
            loaded: false,
            last_activity: Instant::now(),
            done_at: None,
            gone: None,
            max_accesses: u64::MAX,
            report: Report::default(),
        })
    }

    /// Navigates the page to `url` and records until the recording ends.
    pub fn record(&mut self, url: &str, limits: &Limits) -> Result<Ending> {
        let session = self.page_session.clone();
        let navigate = self
            .cdp
            .send_session(&session, "Page.navigate", json!({"url": url}))?;
        let deadline = Instant::now() + limits.timeout;
        self.max_accesses = limits.max_accesses;
        loop {
            let signal = limits.stop.load(Ordering::Relaxed);
            if signal != 0 {
                self.collect_batches()?;
                return Ok(Ending::Signalled(signal as i32));
            }
            if let Some(ending) = self.gone {
                return Ok(ending);
            }
            if self.writer.accesses() >= self.max_accesses {
                return Ok(Ending::Capped);
            }
            if self.done_at.is_some_and(|at| at.elapsed() >= DRAIN) {
                // The page's own batch left with its mark; a worker may be mid-task.
                if self.realms.len() > 1 {
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
            self.realms
                .keys()
                .filter(|session| **session != self.page_session)
                .cloned(),
        );
        sessions
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
                self.binding(session.unwrap_or_default(), context, payload)?;
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
                    self.realms.remove(session);
                }
            }
            "Runtime.executionContextDestroyed" => {
                if let (Some(session), Some(context)) = (
                    session.as_deref(),
                    params.get("executionContextId").and_then(Value::as_i64),
                ) && let Some(realms) = self.realms.get_mut(session)
                {
                    realms.remove(&context);
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

    /// One binding call: an array of records (a batch, in local order) or one record. Each
    /// record is kept as its fields' JSON texts, never parsed into values; lines are flushed to
    /// disk once per call.
    fn binding(&mut self, session: String, context: i64, payload: &str) -> Result<()> {
        let parsed = if payload.trim_start().starts_with('[') {
            serde_json::from_str::<Vec<&RawValue>>(payload)
        } else {
            serde_json::from_str::<&RawValue>(payload).map(|record| vec![record])
        };
        let records = match parsed {
            Ok(records) => records,
            Err(error) => {
                // Never expected (the probe writes its own JSON), and never silent.
                self.report.worker_failures.push(format!(
                    "a message from the probe could not be read ({error}; {} bytes): its records are missing from the trace",
                    payload.len()
                ));
                return Ok(());
            }
        };
        for raw in records {
            if let Ok(RawRecord(fields)) = serde_json::from_str(raw.get()) {
                self.one(&session, context, fields)?;
            }
        }
        self.writer.flush()
    }

    fn one(&mut self, session: &str, context: i64, mut record: Fields<'_>) -> Result<()> {
        self.last_activity = Instant::now();
        let kind = record.remove("k");
        let text =
            |field: Option<&Cow<'_, str>>| -> Option<String> { serde_json::from_str(field?).ok() };
        match kind.as_deref() {
            Some("\"access\"") => self.access(session, context, record),
            Some("\"same\"") => self.repeat(session, context, &record),
            Some("\"done\"") => {
                self.done_at.get_or_insert_with(Instant::now);
                Ok(())
            }
            Some("\"ready\"") => {
                let realm = text(record.get("realm")).unwrap_or_else(|| "?".to_owned());
                let count = |field: &str| {
                    record
                        .get(field)
                        .and_then(|v| v.parse::<u64>().ok())
                        .unwrap_or(0)
                };
                self.report
                    .installs
                    .push((realm, count("wrapped"), count("failed")));
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// A record that repeats its slot's last whole record but for `ls` and `e` (see `textOf` in
    /// probe.js): its line is that record's line with the next `seq` and its own `t`.
    fn repeat(&mut self, session: &str, context: i64, record: &Fields<'_>) -> Result<()> {
        let slot = record.get("slot").and_then(|n| n.parse::<u64>().ok());
        let t = record.get("e").and_then(|e| t_of(self.started, e));
        let (Some(slot), Some(t)) = (slot, t) else {
            return Ok(());
        };
        let Some(tail) = self
            .realms
            .get(session)
            .and_then(|realms| realms.get(&context))
            .and_then(|realm| realm.slots.get(&slot))
        else {
            return Ok(());
        };
        if self.writer.accesses() < self.max_accesses {
            self.writer.repeat(&t, tail)?;
        }
        Ok(())
    }

    /// A whole access record. Its line, past `t`, is kept for the repeats of its slot.
    fn access(&mut self, session: &str, context: i64, mut record: Fields<'_>) -> Result<()> {
        if !self
            .realms
            .get(session)
            .is_some_and(|realms| realms.contains_key(&context))
        {
            let kind: String = record
                .get("realm")
                .and_then(|v| serde_json::from_str(v).ok())
                .unwrap_or_else(|| "main".to_owned());
            let count = self.realm_counts.entry(kind.clone()).or_insert(0);
            let id = format!("{kind}#{count}");
            if kind == "main" {
                self.nav = *count;
            }
            *count += 1;
            self.report.realms.push(id.clone());
            let realm = Realm {
                id_json: Value::from(id.as_str()).to_string(),
                id,
                nav: self.nav.to_string(),
                facts: HashMap::new(),
                slots: HashMap::new(),
            };
            self.realms
                .entry(session.to_owned())
                .or_default()
                .insert(context, realm);
        }
        let Some(realm) = self
            .realms
            .get_mut(session)
            .and_then(|realms| realms.get_mut(&context))
        else {
            return Ok(());
        };
        if self.writer.accesses() >= self.max_accesses {
            return Ok(());
        }
        let slot = record.remove("slot").and_then(|n| n.parse::<u64>().ok());
        if let Some(n) = record.remove("fref").and_then(|n| n.parse::<u64>().ok())
            && let Some(facts) = realm.facts.get(&n)
        {
            for (field, value) in facts {
                record.insert(Cow::Borrowed(field), Cow::Owned(value.clone()));
            }
        }
        if let Some(n) = record.remove("fdef").and_then(|n| n.parse::<u64>().ok()) {
            let facts = FACTS
                .iter()
                .filter_map(|&field| Some((field, record.get(field)?.to_string())))
                .collect();
            realm.facts.insert(n, facts);
        }
        record.remove("ls");
        if let Some(t) = record.remove("e").and_then(|e| t_of(self.started, &e)) {
            record.insert(Cow::Borrowed("t"), Cow::Owned(t));
        }
        // Object names are per realm: outside the first main realm they carry the realm's id.
        if realm.id != "main#0"
            && let Some(state) = record.get_mut("state")
            && let Ok(Value::Object(mut fields)) = serde_json::from_str::<Value>(state)
        {
            for field in ["object", "peer"] {
                if let Some(Value::String(object)) = fields.get_mut(field) {
                    *object = format!("{}/{object}", realm.id);
                }
            }
            *state = Cow::Owned(Value::Object(fields).to_string());
        }
        record.insert(Cow::Borrowed("realmId"), Cow::Owned(realm.id_json.clone()));
        record.insert(Cow::Borrowed("nav"), Cow::Owned(realm.nav.clone()));
        self.writer.access(record)?;
        if let Some(slot) = slot
            && let Some(tail) = writer::after_t(self.writer.last_line())
            && let Some(realm) = self
                .realms
                .get_mut(session)
                .and_then(|realms| realms.get_mut(&context))
        {
            realm.slots.insert(slot, tail.to_owned());
        }
        Ok(())
    }
}

/// `t` (milliseconds since the recording `started`, as JSON) from the probe's `e` (its epoch
/// milliseconds).
fn t_of(started: f64, e: &str) -> Option<String> {
    let epoch = e.parse::<f64>().ok()?;
    let t = ((epoch - started) * 1000.0).round() / 1000.0;
    Some(json!(t.max(0.0)).to_string())
}

/// One realm instance (a CDP session's execution context) the probe reported from.
struct Realm {
    /// `main#0`, `worker#1`, ...
    id: String,
    /// `id` as a JSON string.
    id_json: String,
    /// The nav of the newest main realm when this one first reported, as JSON.
    nav: String,
    /// `fdef` number -> the property facts the probe sent once, as JSON texts.
    facts: HashMap<u64, Vec<(&'static str, String)>>,
    /// slot -> its last whole record's line past `t` (one slot per api).
    slots: HashMap<u64, String>,
}

/// One record of a binding payload, read as its fields' JSON texts (borrowed from the payload;
/// field names are the probe's own, never escaped).
struct RawRecord<'p>(Fields<'p>);

impl<'de> Deserialize<'de> for RawRecord<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RecordVisitor;
        impl<'de> Visitor<'de> for RecordVisitor {
            type Value = RawRecord<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a record (a JSON object)")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut fields = Vec::with_capacity(24);
                while let Some((key, value)) = map.next_entry::<&'de str, &'de RawValue>()? {
                    fields.push((Cow::Borrowed(key), Cow::Borrowed(value.get())));
                }
                Ok(RawRecord(fields.into_iter().collect()))
            }
        }
        deserializer.deserialize_map(RecordVisitor)
    }
}
