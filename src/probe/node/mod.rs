//! The probe in a Node environment under audit: the same probe as `tracer record` installed,
//! through the inspector, in every realm the environment creates (a jsdom or happy-dom window, a
//! `vm` context of its own; their iframes' windows; the main context of a shim that patches
//! `globalThis`) before the target's first line runs there, its records written to
//! `case/tmp/node-trace.ndjson` (`tracer-trace/v1`, runtime `node`) as they arrive. Beside it, the
//! request observer (requests.js) reports what the program tried to send.
//!
//! How, and what it must not do:
//! - A pause on a call of `vm.createContext` given a sandbox (`Debugger.setBreakpointOnFunctionCall`
//!   with a constant condition) turns on
//!   `Debugger.setInstrumentationBreakpoint` (`beforeScriptExecution`), a pause before every script,
//!   until each realm made since has run its first script. There, where the realm holds no host
//!   environment yet (jsdom runs some 60 scripts in a window before its document exists), the pause
//!   before every script gives way to pauses only where one may be needed: a breakpoint on the first
//!   line of every script with a URL whose condition, evaluated by V8 without a round trip, is the
//!   constant [`READY`] check; and a pause on a call of that realm's own `eval` and `Function`
//!   (code run from outside, which has no URL), which turns the pause before every script on for the
//!   script it runs. Once every realm made has its probe, all of them are removed. A breakpoint on
//!   the first line of each script the contract names covers Node's own context (a CommonJS module
//!   runs without such a pause).
//!   At the pause before the first script of the *target* in a realm (see [`Rules`]), the binding
//!   is added to that context only (`Runtime.addBinding` with its `executionContextId`, so no other
//!   realm ever sees it) and the probe is evaluated on the paused frame
//!   (`Debugger.evaluateOnCallFrame`), which runs in the new script's context. The probe takes the
//!   binding and deletes it from the global before the script runs.
//! - At the program's first pause (`--inspect-brk`), the request observer is called on Node's
//!   `diagnostics_channel` (through the inspector's command-line `require`), with its own binding
//!   in the main context, taken and deleted the same way.
//! - The only text ever evaluated is the tool's own: the assembled probe, the observer, a
//!   constant readiness check and the breakpoint's constant condition; the probe only ever on a
//!   paused frame of the realm it goes into (evaluating from outside in a collected `vm` context
//!   crashes Node). Nothing from the program or the user is evaluated; no objectId is
//!   kept past the pause that took it.
//! - Only the target's accesses are written: a record whose nearest frame (the probe's own frames
//!   are never in a stack) is the environment's code is left out and counted (see [`Rules`]).

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use anyhow::Result;
use serde_json::{Value, json};

use crate::inspector::cdp::{Cdp, Incoming};
use crate::inspector::driver::PauseHandler;
use crate::probe::ingest::Ingest;
use crate::probe::writer::{Fields, HeaderInfo, TraceWriter};

/// The binding the request observer reports through (deleted from the main context's global).
mod calls;
mod origin;

use calls::*;
use origin::*;
pub use origin::{Origin, Rules, target_names};

pub const REQUESTS_BINDING: &str = "__tracerRequests";
/// The request observer, called on Node's `diagnostics_channel` module.
const REQUESTS_JS: &str = include_str!("../js/node-requests.js");
/// Node's `diagnostics_channel`, through the inspector's command-line `require` (a fixed text).
const CHANNELS: &str = "require('diagnostics_channel')";
/// `vm.createContext`, through the inspector's command-line `require` (a fixed text).
const CREATE_CONTEXT: &str = "require('vm').createContext";
/// The condition of the pause on `vm.createContext`: a sandbox was given (an object, or jsdom's
/// `vm.constants.DONT_CONTEXTIFY`) that is not a context already. `vm.runInNewContext(code)` without one (a program computing in throwaway contexts,
/// thousands of times) makes none; nor does the second call it makes with the context it made.
/// (`isContext` is `lib/vm.js`'s own, in the scope of the call.)
const CREATE_CONTEXT_CONDITION: &str = include_str!("../js/node-create-context-condition.js");
/// Whether a realm already holds a host environment: its `document` is an object (a window whose
/// document exists: jsdom and happy-dom make it once their interfaces are in place), or it has no
/// `document` at all and its `navigator` is an object (a shim without a document). A constant
/// text; the getters it may run are the environment's own, before any of the target's code.
const READY: &str = include_str!("../js/node-ready.js");
/// A realm's own functions that run code given as text from outside it (their call pauses while
/// the realm waits for its probe): constant expressions, evaluated on a paused frame of the realm.
const GATES: [&str; 2] = ["globalThis.eval", "globalThis.Function"];
/// Requests described at most; the rest are counted.
const MAX_REQUESTS: usize = 1000;
/// How long one synchronous request may take.
const CALL_LIMIT: Duration = Duration::from_secs(10);
/// Scripts named in `leftOutBy`, at most (the others' records are still counted in `leftOut`).
const MAX_LEFT_OUT_URLS: usize = 20;
/// The environment's script URLs handed to the probe, at most (the rest are left out by the
/// filter after they travel, as any record is).
const MAX_ENVIRONMENT_URLS: usize = 20_000;
/// Scripts remembered between their `scriptParsed` and their pause, at most.
const MAX_PENDING_SCRIPTS: usize = 100_000;

/// Accesses written at most; the recording says so when it stops there.
pub const MAX_ACCESSES: u64 = 5_000_000;

/// What the audit asks for.
#[derive(Debug, Clone)]
pub struct NodeRequest {
    /// Where the trace goes (`case/tmp/node-trace.ndjson`).
    pub trace_path: PathBuf,
    pub baseline_id: String,
    /// The APIs the probe watches (the same list `tracer record` uses, and `read_only`).
    pub apis: Vec<String>,
    /// Entries of `apis` watched only for being read (Node's own globals).
    pub read_only: Vec<String>,
    /// The member names of the contract's items (the last part of each api path).
    pub known_members: Vec<String>,
    /// The contract's items as `[realm kind, api]`: whether each resolves in a realm, and whether
    /// the probe can watch it there, is reported with the realm's installation.
    pub check_paths: Vec<[String; 2]>,
    pub rules: Rules,
}

/// One execution context of the program.
#[derive(Debug, Clone)]
pub struct RealmInfo {
    pub context_id: i64,
    pub name: String,
    pub is_default: bool,
    /// When the probe went in, the URL of the script it went in before; `None`: never probed.
    pub probed_before: Option<String>,
    /// Scripts compiled in it before the probe went in (their accesses were not recorded): counted
    /// as V8 reports them parsed there, since most run without a pause.
    pub scripts_before: u64,
}

/// What the probe did, for the audit.
#[derive(Debug, Default)]
pub struct NodeReport {
    pub realms: Vec<RealmInfo>,
    /// Realm ids the records came from (`main#0`, `iframe#0`).
    pub recorded_realms: Vec<String>,
    /// The probe's installations.
    pub installs: Vec<crate::probe::ingest::Install>,
    pub accesses: u64,
    /// Records of the environment's own code, left out.
    pub left_out: u64,
    /// Their nearest frame's script, with the count of each (the first scripts only).
    pub left_out_by: BTreeMap<String, u64>,
    /// Instrumentation pauses taken (one per script run).
    pub pauses: u64,
    /// The request observer's report (`{"requests": [...], "dropped": n, "failed": n}`), when it
    /// was installed.
    pub requests: Option<Value>,
    pub problems: Vec<String>,
}

/// The probe inside one inspector session (see the module comment).
pub struct NodeProbe {
    request: NodeRequest,
    /// The probe's configuration; each install adds `environmentUrls`.
    config: Value,
    /// The URLs (and, for a `file:` URL, the path a JavaScript stack names it by) of the scripts
    /// parsed so far that are the environment's ([`Origin::Environment`]): an access whose nearest
    /// frame is one of these, made inside a recorded call or not by a `Proxy` trap, is one the
    /// filter leaves out ([`Rules::keeps`]), and the probe sends it without building its record.
    environment_urls: BTreeSet<String>,
    ingest: Option<Ingest<TraceWriter>>,
    started: f64,
    /// scriptId -> (url, execution context), from `scriptParsed` until the script's pause.
    scripts: HashMap<String, (String, i64)>,
    /// The same for the target's named scripts, kept (their first-line breakpoint may come later).
    named_scripts: HashMap<String, (String, i64)>,
    /// The breakpoints on the first line of the target's named scripts.
    breakpoints: Vec<String>,
    /// The breakpoint on `vm.createContext`, when it could be set.
    create_context: Option<String>,
    /// The pause before every script, while it is on.
    instrumentation: Option<String>,
    /// The conditional breakpoint on every script's first line ([`READY`]), while a realm waits.
    ready_breakpoint: Option<String>,
    /// Realms waiting for their probe whose first script has run: the breakpoints on their own
    /// `eval` and `Function`.
    gates: HashMap<i64, Vec<String>>,
    /// A gate was passed: the pause before every script is on for the script it runs.
    gate_passed: bool,
    /// A `vm.createContext` call paused: the next realms made wait for their probe.
    expecting_context: bool,
    /// Realms made since, still without their probe.
    awaiting: HashSet<i64>,
    realms: Vec<RealmInfo>,
    /// The default context's id (shared with the record filter).
    main_context: Rc<Cell<i64>>,
    /// The nearest frame's script of the records left out, with their counts (shared with the
    /// record filter).
    left_out_by: Rc<RefCell<BTreeMap<String, u64>>>,
    requests_tried: bool,
    requests: Option<Vec<Value>>,
    requests_dropped: u64,
    requests_failed: u64,
    pauses: u64,
    problems: Vec<String>,
}

impl NodeProbe {
    pub fn new(request: NodeRequest) -> NodeProbe {
        // Unbatched: a program may end its process in the middle of a task (`process.exit`), and a
        // batch waiting for the end of that task would be lost.
        let config = crate::probe::config_with(
            &request.apis,
            false,
            true,
            &request.read_only,
            Some(&request.known_members),
            // The same walk as the browser's, for the member names the reference trace has.
            true,
            &request.check_paths,
        );
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0);
        NodeProbe {
            request,
            config,
            environment_urls: BTreeSet::new(),
            ingest: None,
            started,
            scripts: HashMap::new(),
            named_scripts: HashMap::new(),
            breakpoints: Vec::new(),
            create_context: None,
            instrumentation: None,
            ready_breakpoint: None,
            gates: HashMap::new(),
            gate_passed: false,
            expecting_context: false,
            awaiting: HashSet::new(),
            realms: Vec::new(),
            main_context: Rc::new(Cell::new(-1)),
            left_out_by: Rc::new(RefCell::new(BTreeMap::new())),
            requests_tried: false,
            requests: None,
            requests_dropped: 0,
            requests_failed: 0,
            pauses: 0,
            problems: Vec::new(),
        }
    }

    /// Pauses when `vm.createContext` is called (`Debugger.setBreakpointOnFunctionCall`, its
    /// object taken with the inspector's command-line `require` and released at once): the pause
    /// before every script is on only while a realm made since waits for its probe. Without it,
    /// every script of the program is paused before.
    fn watch_context_creation(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
    ) -> Result<()> {
        let main = self.main_context.get();
        let (function, _) = command_line_object(cdp, backlog, main, CREATE_CONTEXT, "tracer-vm")?;
        if let Some(function) = function {
            let answer = call(
                cdp,
                backlog,
                "Debugger.setBreakpointOnFunctionCall",
                json!({"objectId": function, "condition": CREATE_CONTEXT_CONDITION}),
            )?;
            self.create_context = answer
                .ok()
                .and_then(|r| r["breakpointId"].as_str().map(str::to_owned));
        }
        call(
            cdp,
            backlog,
            "Runtime.releaseObjectGroup",
            json!({"objectGroup": "tracer-vm"}),
        )?
        .ok();
        if self.create_context.is_none() {
            self.instrument(cdp, backlog, true)?;
        }
        Ok(())
    }

    /// Turns the pause before every script on or off.
    fn instrument(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
        on: bool,
    ) -> Result<()> {
        match (&self.instrumentation, on) {
            (None, true) => {
                let answer = call(
                    cdp,
                    backlog,
                    "Debugger.setInstrumentationBreakpoint",
                    json!({"instrumentation": "beforeScriptExecution"}),
                )?;
                match answer {
                    Ok(result) => {
                        self.instrumentation = result["breakpointId"].as_str().map(str::to_owned);
                    }
                    Err(e) => self.problems.push(format!(
                        "no pause before scripts ({e}): realms made by the program were not recorded"
                    )),
                }
            }
            (Some(id), false) => {
                let id = id.clone();
                remove_breakpoint(cdp, backlog, &id)?;
                self.instrumentation = None;
            }
            _ => {}
        }
        Ok(())
    }

    /// A realm got its probe (or went away): once none made since the last `vm.createContext`
    /// waits, scripts run without a pause again.
    fn settled(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
        context: i64,
    ) -> Result<()> {
        self.awaiting.remove(&context);
        for id in self.gates.remove(&context).unwrap_or_default() {
            remove_breakpoint(cdp, backlog, &id)?;
        }
        if self.awaiting.is_empty() && self.create_context.is_some() {
            self.instrument(cdp, backlog, false)?;
            self.ungate_all(cdp, backlog)?;
        }
        Ok(())
    }

    /// No realm waits: the conditional breakpoint and every gate go, a gone realm's included
    /// (its end arrives as an event, where nothing can be asked of the inspector).
    fn ungate_all(&mut self, cdp: &mut Cdp, backlog: &mut VecDeque<Incoming>) -> Result<()> {
        if let Some(id) = self.ready_breakpoint.take() {
            remove_breakpoint(cdp, backlog, &id)?;
        }
        for id in std::mem::take(&mut self.gates).into_values().flatten() {
            remove_breakpoint(cdp, backlog, &id)?;
        }
        Ok(())
    }

    /// The first script of a realm that waits for its probe ran before it held a host
    /// environment: from now on it is paused only where it may be ready (see the module comment).
    /// Where a gate cannot be set, the pause before every script stays on for it.
    fn gate(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
        context: i64,
        frame: &str,
    ) -> Result<()> {
        if self.ready_breakpoint.is_none() {
            let answer = call(
                cdp,
                backlog,
                "Debugger.setBreakpointByUrl",
                json!({"urlRegex": self.request.rules.maybe_target_url_regex(),
                    "lineNumber": 0, "columnNumber": 0, "condition": READY}),
            )?;
            self.ready_breakpoint = answer
                .ok()
                .and_then(|r| r["breakpointId"].as_str().map(str::to_owned));
            if self.ready_breakpoint.is_none() {
                return Ok(());
            }
        }
        let mut ids = Vec::new();
        for expression in GATES {
            let answer = call(
                cdp,
                backlog,
                "Debugger.evaluateOnCallFrame",
                json!({"callFrameId": frame, "expression": expression, "silent": true,
                    "objectGroup": "tracer-gate"}),
            )?;
            let function = answer.ok().and_then(|r| {
                r.pointer("/result/objectId")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
            let id = match function {
                Some(function) => call(
                    cdp,
                    backlog,
                    "Debugger.setBreakpointOnFunctionCall",
                    json!({"objectId": function}),
                )?
                .ok()
                .and_then(|r| r["breakpointId"].as_str().map(str::to_owned)),
                None => None,
            };
            match id {
                Some(id) => ids.push(id),
                None => break,
            }
        }
        // No objectId is kept past this pause.
        call(
            cdp,
            backlog,
            "Runtime.releaseObjectGroup",
            json!({"objectGroup": "tracer-gate"}),
        )?
        .ok();
        if ids.len() == GATES.len() {
            self.gates.insert(context, ids);
        } else {
            for id in ids {
                remove_breakpoint(cdp, backlog, &id)?;
            }
        }
        Ok(())
    }

    /// The pause before every script is on while a realm waits whose first script has not run
    /// yet, or for the script a gate let through; off otherwise.
    fn refresh_instrumentation(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
    ) -> Result<()> {
        if self.create_context.is_none() {
            return Ok(());
        }
        let ungated = self.awaiting.iter().any(|c| !self.gates.contains_key(c));
        self.instrument(cdp, backlog, ungated || self.gate_passed)
    }

    /// Whether the pause is at a call of a waiting realm's `eval` or `Function`.
    fn at_gate(&self, params: &Value) -> bool {
        self.gates
            .values()
            .flatten()
            .any(|id| hit(params, Some(id.as_str())))
    }

    /// Whether the pause is at one of the breakpoints on the target's named scripts.
    fn at_named_breakpoint(&self, params: &Value) -> bool {
        params["hitBreakpoints"].as_array().is_some_and(|hit| {
            hit.iter()
                .filter_map(Value::as_str)
                .any(|id| self.breakpoints.iter().any(|b| b == id))
        })
    }

    /// The probe's script for an install now: its configuration with the environment's script
    /// URLs known so far.
    fn source(&self, context: i64) -> String {
        let mut config = self.config.clone();
        if let Some(fields) = config.as_object_mut() {
            fields.insert(
                "environmentUrls".into(),
                json!(by_folder(&self.environment_urls)),
            );
            fields.insert("proxyTraps".into(), json!(PROXY_TRAPS));
            fields.insert("putForwardsSetters".into(), json!(PUT_FORWARDS_SETTERS));
            // Each realm's probe is a script of its own name, so that a probe can tell another's
            // frames from its own (see `probeUrls` in js/report.js).
            fields.insert(
                "scriptUrl".into(),
                json!(format!("{}?realm={context}", crate::probe::OWN_URL)),
            );
            // Members another realm's probe wrapped are left to it (`anotherProbesWrapper`).
            fields.insert(
                "laterProbe".into(),
                json!(self.realms.iter().any(|r| r.probed_before.is_some())),
            );
        }
        crate::probe::script_for(config)
    }

    /// Puts the probe into `context`: its binding there only, then the probe evaluated on the
    /// paused `frame`, which runs in that frame's context. (Never with `Runtime.evaluate` in
    /// another context than the paused one: Node crashes, SIGSEGV, when a `vm` context that was
    /// collected, and whose end it has not reported, is evaluated in.)
    fn install(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
        context: i64,
        frame: &str,
    ) -> Result<()> {
        let answer = call(
            cdp,
            backlog,
            "Runtime.addBinding",
            json!({"name": crate::probe::BINDING, "executionContextId": context}),
        )?;
        if let Err(e) = answer {
            self.problems.push(format!(
                "context {context}: the probe's binding was refused: {e}"
            ));
            return Ok(());
        }
        let answer = call(
            cdp,
            backlog,
            "Debugger.evaluateOnCallFrame",
            json!({"callFrameId": frame, "expression": self.source(context), "silent": true}),
        )?;
        if let Some(problem) = failure(&answer) {
            self.problems
                .push(format!("context {context}: the probe failed: {problem}"));
        }
        Ok(())
    }

    /// Whether the paused frame's realm already holds a host environment ([`READY`]).
    fn ready(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
        frame: &str,
    ) -> Result<bool> {
        let answer = call(
            cdp,
            backlog,
            "Debugger.evaluateOnCallFrame",
            json!({"callFrameId": frame, "expression": READY, "silent": true, "returnByValue": true}),
        )?;
        Ok(answer
            .ok()
            .and_then(|r| r.pointer("/result/value").and_then(Value::as_bool))
            .unwrap_or(false))
    }

    /// Installs the request observer on Node's `diagnostics_channel` in the main context. A
    /// failure is a problem in the report, never a failed audit.
    fn observe_requests(&mut self, cdp: &mut Cdp, backlog: &mut VecDeque<Incoming>) -> Result<()> {
        let Some(main) = self
            .realms
            .iter()
            .find(|r| r.is_default)
            .map(|r| r.context_id)
        else {
            return Ok(());
        };
        let answer = call(
            cdp,
            backlog,
            "Runtime.addBinding",
            json!({"name": REQUESTS_BINDING, "executionContextId": main}),
        )?;
        if let Err(e) = answer {
            self.problems.push(format!("request observer: {e}"));
            return Ok(());
        }
        let (channels, answer) =
            command_line_object(cdp, backlog, main, CHANNELS, "tracer-requests")?;
        match channels {
            Some(channels) => {
                let answer = call(
                    cdp,
                    backlog,
                    "Runtime.callFunctionOn",
                    json!({"objectId": channels, "functionDeclaration": REQUESTS_JS,
                        "arguments": [{"value": REQUESTS_BINDING}], "silent": true}),
                )?;
                match failure(&answer) {
                    Some(problem) => self.problems.push(format!("request observer: {problem}")),
                    None => self.requests = Some(Vec::new()),
                }
            }
            None => self.problems.push(format!(
                "request observer: {}",
                failure(&answer).unwrap_or_else(|| "no diagnostics_channel".to_owned())
            )),
        }
        // No objectId is kept past this pause.
        let _ = call(
            cdp,
            backlog,
            "Runtime.releaseObjectGroup",
            json!({"objectGroup": "tracer-requests"}),
        )?;
        Ok(())
    }

    fn request_message(&mut self, payload: &str) {
        let Some(list) = self.requests.as_mut() else {
            return;
        };
        match serde_json::from_str::<Value>(payload) {
            Ok(entry) if entry.get("failed").is_some() => self.requests_failed += 1,
            Ok(entry) if list.len() < MAX_REQUESTS => list.push(entry),
            Ok(_) => self.requests_dropped += 1,
            Err(_) => self.requests_failed += 1,
        }
    }

    /// What the probe did; the trace is complete on disk.
    pub fn finish(mut self) -> NodeReport {
        let mut report = NodeReport {
            pauses: self.pauses,
            ..NodeReport::default()
        };
        if let Some(mut ingest) = self.ingest.take() {
            let _ = ingest.writer().flush();
            report.accesses = ingest.accesses();
            if report.accesses >= MAX_ACCESSES {
                self.problems.push(format!(
                    "the recording stopped at {MAX_ACCESSES} accesses: later accesses were not written (and not compared)"
                ));
            }
            let ingested = std::mem::take(&mut ingest.report);
            report.recorded_realms = ingested.realms;
            report.installs = ingested.installs;
            report.left_out = ingested.left_out;
            self.problems.extend(ingested.unreadable);
        }
        if self.requests_dropped > 0 {
            self.problems.push(format!(
                "{} requests beyond the first {MAX_REQUESTS} were not described",
                self.requests_dropped
            ));
        }
        if self.requests_failed > 0 {
            self.problems.push(format!(
                "{} requests could not be described",
                self.requests_failed
            ));
        }
        report.requests = self.requests.map(|list| {
            json!({"requests": list, "dropped": self.requests_dropped, "failed": self.requests_failed})
        });
        report.left_out_by = std::mem::take(&mut *self.left_out_by.borrow_mut());
        report.realms = self.realms;
        report.problems = self.problems;
        report
    }
}

impl PauseHandler for NodeProbe {
    /// Before the program is released: opens the trace and asks for a pause before every script.
    fn arm(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
        node_version: Option<&str>,
    ) -> Result<()> {
        let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        let writer = TraceWriter::create(
            &self.request.trace_path,
            &HeaderInfo {
                baseline_id: &self.request.baseline_id,
                runtime: "node",
                runtime_version: node_version.unwrap_or(""),
                started_at: &stamp,
                page: "",
            },
        )?;
        let rules = self.request.rules.clone();
        let main = self.main_context.clone();
        let left_out = self.left_out_by.clone();
        let keep = move |context: i64, fields: &Fields<'_>| {
            let stack = fields.get("stack").map(|s| s.as_ref());
            let nested = fields.get("nested").is_some();
            // A JSON string's text, quotes and all (an access type has no escapes).
            let access_type = fields.get("accessType").map_or("", |t| t.trim_matches('"'));
            let kept = rules.keeps(stack, access_type, nested, context == main.get());
            if !kept {
                let url = stack.and_then(first_frame_url).unwrap_or_default();
                let mut by = left_out.borrow_mut();
                if by.len() < MAX_LEFT_OUT_URLS || by.contains_key(&url) {
                    *by.entry(url).or_insert(0) += 1;
                }
            }
            kept
        };
        let mut ingest = Ingest::new(writer, self.started).with_filter(Box::new(keep));
        ingest.max_accesses = MAX_ACCESSES;
        self.ingest = Some(ingest);
        // A breakpoint on the first line of each script the contract names (a protocol parameter
        // built from a file name, never evaluated).
        let mut names: Vec<&String> = self.request.rules.target_names.iter().collect();
        names.sort();
        for name in names {
            let answer = call(
                cdp,
                backlog,
                "Debugger.setBreakpointByUrl",
                json!({"urlRegex": format!(r"(^|[/\\]){}$", regex::escape(name)),
                    "lineNumber": 0, "columnNumber": 0}),
            )?;
            match answer {
                Ok(result) => {
                    if let Some(id) = result["breakpointId"].as_str() {
                        self.breakpoints.push(id.to_owned());
                    }
                }
                Err(e) => self
                    .problems
                    .push(format!("no breakpoint on {name}'s first line: {e}")),
            }
        }
        Ok(())
    }

    /// Follows the program's contexts and scripts, and takes the probes' messages. True when the
    /// event was the probe's own (a binding call), which nothing else needs to see.
    fn on_event(&mut self, method: &str, params: &Value) -> Result<bool> {
        match method {
            "Runtime.executionContextCreated" => {
                let context = &params["context"];
                if let Some(id) = context.get("id").and_then(Value::as_i64) {
                    let is_default = context
                        .pointer("/auxData/isDefault")
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    if is_default {
                        self.main_context.set(id);
                    } else if self.expecting_context || self.create_context.is_none() {
                        self.awaiting.insert(id);
                    }
                    self.realms.push(RealmInfo {
                        context_id: id,
                        name: context["name"].as_str().unwrap_or("").to_owned(),
                        is_default,
                        probed_before: None,
                        scripts_before: 0,
                    });
                }
            }
            "Runtime.executionContextDestroyed" => {
                if let (Some(ingest), Some(id)) = (
                    self.ingest.as_mut(),
                    params.get("executionContextId").and_then(Value::as_i64),
                ) {
                    ingest.forget_context("", id);
                    // Its gates stay listed until no realm waits (see `ungate_all`).
                    self.awaiting.remove(&id);
                }
            }
            "Debugger.scriptParsed" => {
                if let (Some(id), Some(context)) = (
                    params.get("scriptId").and_then(Value::as_str),
                    params.get("executionContextId").and_then(Value::as_i64),
                ) {
                    let url = params["url"].as_str().unwrap_or("").to_owned();
                    let origin = self.request.rules.origin(&url);
                    if origin == Origin::Environment
                        && self.environment_urls.len() < MAX_ENVIRONMENT_URLS
                    {
                        // A CommonJS module's frames name it by its path, its script by its URL.
                        if url.starts_with("file:") {
                            self.environment_urls.insert(url_path(&url));
                        }
                        self.environment_urls.insert(url.clone());
                    }
                    if let Some(realm) = self.realms.iter_mut().find(|r| {
                        r.context_id == context && !r.is_default && r.probed_before.is_none()
                    }) {
                        realm.scripts_before += 1;
                    }
                    if origin == Origin::Named && self.named_scripts.len() < MAX_PENDING_SCRIPTS {
                        self.named_scripts
                            .insert(id.to_owned(), (url.clone(), context));
                    }
                    // Bounded: a script parsed long ago has run (or never will); the newest are
                    // the ones a pause may still come for.
                    if self.scripts.len() >= MAX_PENDING_SCRIPTS {
                        self.scripts.clear();
                    }
                    self.scripts.insert(id.to_owned(), (url, context));
                }
            }
            "Runtime.bindingCalled" => {
                let name = params["name"].as_str().unwrap_or("");
                let payload = params["payload"].as_str().unwrap_or("");
                if name == crate::probe::BINDING {
                    let context = params["executionContextId"].as_i64().unwrap_or(0);
                    if let Some(ingest) = self.ingest.as_mut() {
                        ingest.binding("", context, payload)?;
                    }
                    return Ok(true);
                }
                if name == REQUESTS_BINDING {
                    self.request_message(payload);
                    return Ok(true);
                }
            }
            _ => {}
        }
        Ok(false)
    }

    /// A `Debugger.paused`: the program's first pause installs the request observer; a pause
    /// before a script installs the probe when it is the first of the target's in its realm.
    /// The caller resumes.
    fn on_pause(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
        params: &Value,
    ) -> Result<()> {
        if !self.requests_tried {
            self.requests_tried = true;
            self.observe_requests(cdp, backlog)?;
            self.watch_context_creation(cdp, backlog)?;
        }
        if self.create_context.is_some()
            && params["hitBreakpoints"].as_array().is_some_and(|hit| {
                hit.iter()
                    .any(|id| id.as_str() == self.create_context.as_deref())
            })
        {
            // A realm is being made: every script from now on is paused before, until each new
            // realm has its probe.
            self.expecting_context = true;
            return self.instrument(cdp, backlog, true);
        }
        if self.awaiting.is_empty() && (self.ready_breakpoint.is_some() || !self.gates.is_empty()) {
            // The last waiting realm went away without its probe.
            self.ungate_all(cdp, backlog)?;
        }
        if self.at_gate(params) {
            // Code from outside a waiting realm is about to run in it: pause before its script.
            self.gate_passed = true;
            return self.instrument(cdp, backlog, true);
        }
        let instrumented = params["reason"].as_str() == Some("instrumentation");
        self.at_script(cdp, backlog, params, instrumented)?;
        if instrumented {
            // The script a gate let through (if any) has had its pause.
            self.gate_passed = false;
            self.refresh_instrumentation(cdp, backlog)?;
        }
        Ok(())
    }
}

impl NodeProbe {
    /// A pause before a script (an instrumentation pause, the first line of a script where its
    /// realm is ready, or of one the contract names): the probe goes in when it is the first of
    /// the target's in its realm; a waiting realm's first script that is not gets its gates.
    fn at_script(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
        params: &Value,
        instrumented: bool,
    ) -> Result<()> {
        let at_named = self.at_named_breakpoint(params);
        let at_ready = !at_named && hit(params, self.ready_breakpoint.as_deref());
        let top_script = || {
            params
                .pointer("/callFrames/0/location/scriptId")
                .and_then(Value::as_str)
                .unwrap_or("")
        };
        let found = if instrumented {
            self.pauses += 1;
            params
                .pointer("/data/scriptId")
                .and_then(Value::as_str)
                .and_then(|script| self.scripts.remove(script))
        } else if at_ready {
            // The first line of a script run where its realm holds a host environment ([`READY`],
            // evaluated by V8): as the pause before it.
            self.pauses += 1;
            self.scripts.get(top_script()).cloned()
        } else if at_named {
            // A breakpoint on the first line of one of the target's named scripts: a CommonJS
            // module runs as a compiled function, which no instrumentation pause precedes.
            self.named_scripts.get(top_script()).cloned()
        } else {
            None
        };
        let Some((url, context)) = found else {
            return Ok(());
        };
        let Some(realm) = self.realms.iter().position(|r| r.context_id == context) else {
            return Ok(());
        };
        if self.realms[realm].probed_before.is_some() {
            return Ok(());
        }
        let is_default = self.realms[realm].is_default;
        let Some(frame) = params
            .pointer("/callFrames/0/callFrameId")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return Ok(());
        };
        let go = match self.request.rules.origin(&url) {
            Origin::Environment => false,
            Origin::Named => true,
            Origin::Other | Origin::Anonymous => {
                !is_default && (at_ready || self.ready(cdp, backlog, &frame)?)
            }
        };
        if !go {
            if instrumented
                && self.awaiting.contains(&context)
                && !self.gates.contains_key(&context)
            {
                self.gate(cdp, backlog, context, &frame)?;
            }
            return Ok(());
        }
        self.install(cdp, backlog, context, &frame)?;
        self.realms[realm].probed_before = Some(url);
        // The script paused at was parsed there too, and has not run yet.
        self.realms[realm].scripts_before = self.realms[realm].scripts_before.saturating_sub(1);
        self.settled(cdp, backlog, context)
    }
}

/// `urls` as `[folder, [name, ..]]` pairs, a pair for each run of names in one folder (a folder
/// ends with its `/`; in sorted order a folder's names may come back after a subfolder's): an
/// environment's scripts share a few folders, and jsdom's some 1 300 URLs, each as a path and a
/// `file:` URL, were most of the probe's install message.
fn by_folder(urls: &BTreeSet<String>) -> Vec<(&str, Vec<&str>)> {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for url in urls {
        let cut = url.rfind('/').map_or(0, |i| i + 1);
        let (folder, name) = url.split_at(cut);
        match groups.last_mut() {
            Some((last, names)) if *last == folder => names.push(name),
            _ => groups.push((folder, vec![name])),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_travel_by_folder_and_each_is_its_folder_and_name() {
        let urls: BTreeSet<String> = [
            "/m/jsdom/lib/a.js",
            "/m/jsdom/lib/b.js",
            "/m/jsdom/lib/x/c.js",
            "file:///m/jsdom/lib/a.js",
            "node:vm",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect();
        let groups = by_folder(&urls);
        assert_eq!(
            serde_json::to_string(&groups).unwrap(),
            r#"[["/m/jsdom/lib/",["a.js","b.js"]],["/m/jsdom/lib/x/",["c.js"]],["file:///m/jsdom/lib/",["a.js"]],["",["node:vm"]]]"#
        );
        let rebuilt: BTreeSet<String> = groups
            .iter()
            .flat_map(|(folder, names)| names.iter().map(move |n| format!("{folder}{n}")))
            .collect();
        assert_eq!(rebuilt, urls);
    }

    fn rules() -> Rules {
        Rules {
            environment_dirs: vec![PathBuf::from("/case/result")],
            target_names: target_names(["https://a.test/js/app.js?v=2".to_owned()]),
        }
    }

    #[test]
    fn code_is_the_environments_by_where_it_lives_and_the_targets_by_its_name() {
        let r = rules();
        assert_eq!(r.origin("node:vm"), Origin::Environment);
        assert_eq!(
            r.origin("/x/node_modules/jsdom/lib/Window.js"),
            Origin::Environment
        );
        assert_eq!(
            r.origin("file:///case/result/final.js"),
            Origin::Environment
        );
        assert_eq!(r.origin("/case/result/app.js"), Origin::Named);
        assert_eq!(r.origin("https://example.test/page.html"), Origin::Other);
        // A page's library served from a node_modules folder is the page's code.
        assert_eq!(
            r.origin("http://127.0.0.1:8765/node_modules/clientjs/dist/client.min.js"),
            Origin::Other
        );
        assert_eq!(
            r.origin("https://a.test/node_modules/x/app.js"),
            Origin::Named
        );
        assert_eq!(r.origin("evalmachine.<anonymous>"), Origin::Anonymous);
        assert_eq!(r.origin(""), Origin::Anonymous);
    }

    #[test]
    fn a_record_is_kept_by_its_nearest_frame() {
        let r = rules();
        let jsdom = r#"[{"url":"/x/node_modules/jsdom/lib/xhr.js","line":1,"column":1}]"#;
        let page = r#"[{"url":"https://example.test/page.html","line":5,"column":2}]"#;
        assert!(!r.keeps(Some(jsdom), "get", false, false));
        assert!(r.keeps(Some(page), "get", false, false));
        assert!(
            !r.keeps(Some(page), "get", false, true),
            "main context: only named scripts"
        );
        assert!(r.keeps(
            Some(r#"[{"url":"/case/result/app.js"}]"#),
            "get",
            false,
            true
        ));
        // The environment's code on top, the page's below: a read through the environment's
        // Proxy is the page's, also during a recorded call (the page's script runs inside the
        // environment's `appendChild`); nameless code below the trap only outside one.
        let proxied = r#"[{"url":"/x/node_modules/jsdom/lib/plugins.js","functionName":"get"},{"url":"https://example.test/page.html"}]"#;
        assert!(r.keeps(Some(proxied), "get", false, false));
        assert!(r.keeps(Some(proxied), "get", true, false));
        // A call a `get` trap makes is the environment's own work (happy-dom's `dataset` reading
        // the attribute); one an `apply` trap makes forwards the page's.
        assert!(!r.keeps(Some(proxied), "call", false, false));
        let applied = r#"[{"url":"/x/node_modules/jsdom/lib/plugins.js","functionName":"apply"},{"url":"https://example.test/page.html"}]"#;
        assert!(r.keeps(Some(applied), "call", false, false));
        let nameless =
            r#"[{"url":"/x/node_modules/jsdom/lib/plugins.js","functionName":"get"},{"url":""}]"#;
        assert!(r.keeps(Some(nameless), "get", false, false));
        assert!(!r.keeps(Some(nameless), "get", true, false));
        // Eval'd code is the code of the script that evaluated it: a selector engine's compiled
        // matcher is the environment's, a page's `eval` the page's.
        let compiled = r#"[{"url":"","evalUrl":"/x/node_modules/nwsapi/src/nwsapi.js"}]"#;
        assert!(!r.keeps(Some(compiled), "get", false, false));
        let evaluated = r#"[{"url":"","evalUrl":"https://example.test/page.html"}]"#;
        assert!(r.keeps(Some(evaluated), "get", true, false));
        // The environment's own work inside an unwatched call of the page's is its own.
        let inside = r#"[{"url":"/x/node_modules/happy-dom/lib/Element.js","functionName":"setAttribute"},{"url":"https://example.test/page.html"}]"#;
        assert!(!r.keeps(Some(inside), "get", false, false));
        assert!(r.keeps(None, "get", false, false));
    }

    /// `el.style = text` reads `style` and writes its `cssText`: a browser does it from native
    /// code (the page's frame nearest), jsdom in its `style` setter, happy-dom through that
    /// setter and its style object's `set` trap. Both were once the environment's own, and the
    /// check said the page never reached `cssText`.
    #[test]
    fn a_put_forwards_setter_s_read_and_write_are_the_page_s() {
        let r = rules();
        let setter = r#"[{"url":"/x/node_modules/jsdom/lib/HTMLElement.js","functionName":"set style"},{"url":"https://example.test/page.html"}]"#;
        assert!(r.keeps(Some(setter), "get", true, false));
        assert!(r.keeps(Some(setter), "set", true, false));
        // Its calls are still its own work, and so is a setter the environment itself ran.
        assert!(!r.keeps(Some(setter), "call", true, false));
        let by_environment = r#"[{"url":"/x/node_modules/jsdom/lib/HTMLElement.js","functionName":"set style"},{"url":"/x/node_modules/jsdom/lib/Window.js"}]"#;
        assert!(!r.keeps(Some(by_environment), "set", true, false));
        // Another setter of the environment's is not one.
        let other = r#"[{"url":"/x/node_modules/jsdom/lib/HTMLElement.js","functionName":"set title"},{"url":"https://example.test/page.html"}]"#;
        assert!(!r.keeps(Some(other), "set", true, false));
        let trapped = r#"[{"url":"/x/node_modules/happy-dom/lib/CSSStyleDeclaration.js","functionName":"set"},{"url":"/x/node_modules/happy-dom/lib/HTMLElement.js","functionName":"set style"},{"url":"https://example.test/page.html"}]"#;
        assert!(r.keeps(Some(trapped), "set", true, false));
    }
}
