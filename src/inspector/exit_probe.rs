//! The audit's own measurement of a Node program's final state: at `process.emit('exit')`, the
//! structural dimensions of every requested API are measured by reflection in every execution
//! context of the program (the main context, and each `vm` context such as a jsdom window), with
//! the same reflect.js the browser probe uses.
//!
//! How, and what it must not do:
//! - Armed before the program is released: a fixed `Runtime.evaluate("process.emit")` gives the
//!   objectId for `Debugger.setBreakpointOnFunctionCall` with the fixed condition
//!   `this === process && arguments[0] === 'exit'` (and a second one on `process.reallyExit`), and
//!   the measurer (exit_probe.js) is instantiated in the main context before any of the program's
//!   code runs; in a context created later, as soon as it is announced.
//! - The only text ever evaluated is the tool's own (constants and the embedded JavaScript). An
//!   item's api path reaches the runtime as an argument value of `Runtime.callFunctionOn`.
//! - No global is added and nothing is wrapped. Every objectId lives in one object group, released
//!   once the measurement is taken; the breakpoints are removed before the program goes on.
//! - It only runs when asked (the audit): each evaluation of the breakpoint's condition compiles a
//!   script, which slows down an emit-heavy program.
//!
//! It talks CDP and knows nothing of contracts: the audit turns a [`ProbeReport`] into observations.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::inspector::cdp::{Cdp, Incoming};

/// The object group that holds every objectId the probe takes.
const GROUP: &str = "tracer-exit-probe";
/// How long one synchronous request may take before the probe gives up on it.
const CALL_LIMIT: Duration = Duration::from_secs(10);
const REFLECT_JS: &str = include_str!("../record/reflect.js");
const PROBE_JS: &str = include_str!("exit_probe.js");
/// The request observer, called on Node's `diagnostics_channel` module.
const REQUESTS_JS: &str = include_str!("exit_probe_requests.js");
/// Node's `diagnostics_channel`, through the inspector's command-line `require` (a fixed text).
const CHANNELS: &str = "require('diagnostics_channel')";
/// Takes the observer's descriptions.
const TAKE_REQUESTS: &str = "function () { return this.take(); }";
/// The condition on `process.emit` (`EventEmitter.prototype.emit`, shared by every emitter).
const EXIT_CONDITION: &str = "this === process && arguments[0] === 'exit'";
/// Calls the measurer (`this`) with the item passed as arguments.
const CALL_MEASURER: &str = "function (api, accessType, constructNoArgs) { return this.measureItem(api, accessType, constructNoArgs); }";

/// What to measure: one entry per API, keyed by the caller's own key (the contract item id).
#[derive(Debug, Clone, Default)]
pub struct ProbeRequest {
    pub items: Vec<ProbeItem>,
}

#[derive(Debug, Clone)]
pub struct ProbeItem {
    pub key: String,
    /// The api path as the script reached it (`navigator.userAgent`, `XMLHttpRequest`).
    pub api: String,
    pub access_type: String,
    /// The script constructed it with no arguments (only then does the probe construct it too).
    pub construct_no_args: bool,
}

/// One execution context of the program.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Realm {
    pub context_id: i64,
    pub name: String,
    pub is_default: bool,
    /// Scripts with a URL parsed in it (the script's own code, jsdom's page scripts).
    pub scripts: u64,
    /// The realm whose measurements stand for the script's (the "window").
    pub chosen: bool,
}

/// One item measured in one context.
#[derive(Debug, Clone)]
pub struct Measurement {
    pub key: String,
    pub context_id: i64,
    /// The receiver's name, when the path names it.
    pub receiver: Option<String>,
    /// Dimension -> the value measured.
    pub dimensions: BTreeMap<String, Value>,
    /// Why the path could not be followed to its end, if it could not.
    pub unresolved: Option<String>,
}

/// What the probe found, whether or not the program reached its exit.
#[derive(Debug, Clone, Default)]
pub struct ProbeReport {
    /// The program paused at exit and was measured.
    pub measured: bool,
    /// Where it paused (`process.emit('exit')` or `process.reallyExit`).
    pub paused_at: Option<String>,
    pub realms: Vec<Realm>,
    pub measurements: Vec<Measurement>,
    /// The request observer's report (`{"requests": [...], "dropped": n, "failed": n}`), when it
    /// was installed and the program reached its exit.
    pub requests: Option<Value>,
    /// What went wrong, in words (a refused call, a context that vanished).
    pub problems: Vec<String>,
}

impl ProbeReport {
    /// The context whose measurements stand for the script's realm.
    pub fn chosen(&self) -> Option<&Realm> {
        self.realms.iter().find(|r| r.chosen)
    }
}

struct Context {
    realm: Realm,
    measurer: Option<String>,
}

/// The probe inside one inspector session (see the module comment).
pub struct ExitProbe {
    request: ProbeRequest,
    armed: bool,
    breakpoints: Vec<(String, &'static str)>,
    contexts: Vec<Context>,
    /// Pending asynchronous measurer instantiations: request id -> context id.
    instantiating: BTreeMap<u64, i64>,
    /// The request observer (an objectId in the probe's group), once installed.
    requests: Option<String>,
    requests_tried: bool,
    report: ProbeReport,
}

impl ExitProbe {
    pub fn new(request: ProbeRequest) -> ExitProbe {
        ExitProbe {
            request,
            armed: false,
            breakpoints: Vec::new(),
            contexts: Vec::new(),
            instantiating: BTreeMap::new(),
            requests: None,
            requests_tried: false,
            report: ProbeReport::default(),
        }
    }

    pub fn is_armed(&self) -> bool {
        self.armed
    }

    /// Sets the exit breakpoints and instantiates the measurer in the contexts known so far. Call
    /// before releasing the program; messages that are not the answers awaited go to `backlog`.
    pub fn arm(&mut self, cdp: &mut Cdp, backlog: &mut VecDeque<Incoming>) -> Result<()> {
        self.armed = true;
        let main = self
            .contexts
            .iter()
            .find(|c| c.realm.is_default)
            .map(|c| c.realm.context_id);
        for (expression, condition, label) in [
            ("process.emit", EXIT_CONDITION, "process.emit('exit')"),
            (
                "process.reallyExit",
                "this === process",
                "process.reallyExit",
            ),
        ] {
            let mut params =
                json!({"expression": expression, "objectGroup": GROUP, "silent": true});
            if let Some(id) = main {
                params["contextId"] = json!(id);
            }
            let function = match call(cdp, backlog, "Runtime.evaluate", params)? {
                Ok(result) => result
                    .pointer("/result/objectId")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                Err(e) => {
                    self.report.problems.push(format!("{expression}: {e}"));
                    None
                }
            };
            let Some(object_id) = function else {
                self.report.problems.push(format!(
                    "{expression} is not a function here: no breakpoint"
                ));
                continue;
            };
            match call(
                cdp,
                backlog,
                "Debugger.setBreakpointOnFunctionCall",
                json!({"objectId": object_id, "condition": condition}),
            )? {
                Ok(result) => {
                    if let Some(id) = result.get("breakpointId").and_then(Value::as_str) {
                        self.breakpoints.push((id.to_owned(), label));
                    }
                }
                Err(e) => self
                    .report
                    .problems
                    .push(format!("breakpoint on {expression}: {e}")),
            }
        }
        let known: Vec<i64> = self.contexts.iter().map(|c| c.realm.context_id).collect();
        for id in known {
            self.instantiate_now(cdp, backlog, id)?;
        }
        Ok(())
    }

    /// At the program's first pause (`--inspect-brk`'s break on the first line, before any of the
    /// program's code ran; Node's module loader is ready only then), installs the request observer.
    pub fn on_first_pause(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
    ) -> Result<()> {
        if !self.armed || self.requests_tried {
            return Ok(());
        }
        self.requests_tried = true;
        let main = self
            .contexts
            .iter()
            .find(|c| c.realm.is_default)
            .map(|c| c.realm.context_id);
        self.observe_requests(cdp, backlog, main)
    }

    /// Installs the request observer (exit_probe_requests.js) on Node's `diagnostics_channel`
    /// in the main context. A failure is a problem in the report, never a failed audit.
    fn observe_requests(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
        main: Option<i64>,
    ) -> Result<()> {
        let mut params = json!({"expression": CHANNELS, "includeCommandLineAPI": true,
            "objectGroup": GROUP, "silent": true});
        if let Some(id) = main {
            params["contextId"] = json!(id);
        }
        let answer = call(cdp, backlog, "Runtime.evaluate", params)?;
        let Some(channels) = self
            .answered("request observer", answer)
            .and_then(object_id)
        else {
            return Ok(());
        };
        let params = json!({"objectId": channels, "functionDeclaration": REQUESTS_JS,
            "objectGroup": GROUP, "silent": true});
        let answer = call(cdp, backlog, "Runtime.callFunctionOn", params)?;
        self.requests = self
            .answered("request observer", answer)
            .and_then(object_id);
        Ok(())
    }

    /// The result of a call the probe made, or `None` with the problem (an exception thrown in the
    /// program's runtime, or a refused call) added to the report under `what`.
    fn answered(&mut self, what: &str, answer: Result<Value, Value>) -> Option<Value> {
        match answer {
            Ok(result) if result.get("exceptionDetails").is_none() => Some(result),
            Ok(result) => {
                let problem = describe_exception(&result["exceptionDetails"]);
                self.report.problems.push(format!("{what}: {problem}"));
                None
            }
            Err(e) => {
                self.report.problems.push(format!("{what}: {e}"));
                None
            }
        }
    }

    /// Takes the request observer's report (once, at exit).
    fn take_requests(&mut self, cdp: &mut Cdp, backlog: &mut VecDeque<Incoming>) -> Result<()> {
        let Some(observer) = self.requests.take() else {
            return Ok(());
        };
        let params = json!({"objectId": observer, "functionDeclaration": TAKE_REQUESTS,
            "returnByValue": true, "silent": true, "objectGroup": GROUP});
        let answer = call(cdp, backlog, "Runtime.callFunctionOn", params)?;
        let Some(value) = self
            .answered("requests", answer)
            .and_then(|result| result.pointer("/result/value").cloned())
        else {
            return Ok(());
        };
        for (field, what) in [
            (
                "dropped",
                "requests beyond the first 1000 were not described",
            ),
            ("failed", "requests could not be described"),
        ] {
            if let Some(n) = value.get(field).and_then(Value::as_u64).filter(|n| *n > 0) {
                self.report.problems.push(format!("{n} {what}"));
            }
        }
        self.report.requests = Some(value);
        Ok(())
    }

    /// Follows the program's contexts and scripts; a new context gets its measurer at once.
    pub fn on_event(&mut self, cdp: &mut Cdp, method: &str, params: &Value) -> Result<()> {
        match method {
            "Runtime.executionContextCreated" => {
                let context = &params["context"];
                let Some(id) = context.get("id").and_then(Value::as_i64) else {
                    return Ok(());
                };
                self.contexts.push(Context {
                    realm: Realm {
                        context_id: id,
                        name: context
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_owned(),
                        is_default: context
                            .pointer("/auxData/isDefault")
                            .and_then(Value::as_bool)
                            .unwrap_or(false),
                        scripts: 0,
                        chosen: false,
                    },
                    measurer: None,
                });
                if self.armed {
                    let request = cdp.send("Runtime.callFunctionOn", instantiate_params(id))?;
                    self.instantiating.insert(request, id);
                }
            }
            "Runtime.executionContextDestroyed" => {
                if let Some(id) = params.get("executionContextId").and_then(Value::as_i64) {
                    self.contexts.retain(|c| c.realm.context_id != id);
                }
            }
            "Runtime.executionContextsCleared" => self.contexts.clear(),
            "Debugger.scriptParsed" => {
                let has_url = params
                    .get("url")
                    .and_then(Value::as_str)
                    .is_some_and(|u| !u.is_empty());
                let id = params.get("executionContextId").and_then(Value::as_i64);
                if has_url
                    && let Some(c) = self
                        .contexts
                        .iter_mut()
                        .find(|c| Some(c.realm.context_id) == id)
                {
                    c.realm.scripts += 1;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Takes the answer to an asynchronous instantiation; false when `id` is not the probe's.
    pub fn on_response(&mut self, id: u64, result: &Result<Value, Value>) -> bool {
        let Some(context) = self.instantiating.remove(&id) else {
            return false;
        };
        match result {
            Ok(result) => {
                let object = result.pointer("/result/objectId").and_then(Value::as_str);
                if let Some(c) = self
                    .contexts
                    .iter_mut()
                    .find(|c| c.realm.context_id == context)
                {
                    c.measurer = object.map(str::to_owned);
                }
            }
            Err(e) => self
                .report
                .problems
                .push(format!("measurer in context {context}: {e}")),
        }
        true
    }

    /// Whether a `Debugger.paused` is one of the probe's exit breakpoints.
    pub fn is_exit_pause(&self, params: &Value) -> Option<&'static str> {
        let hit = params.get("hitBreakpoints")?.as_array()?;
        self.breakpoints
            .iter()
            .find(|(id, _)| hit.iter().any(|h| h.as_str() == Some(id)))
            .map(|(_, label)| *label)
    }

    /// Measures every item in every context while the program is paused at exit, then removes
    /// the breakpoints and releases every objectId. The caller resumes the program.
    pub fn measure(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
        paused_at: &'static str,
    ) -> Result<()> {
        if self.report.measured {
            return Ok(());
        }
        self.report.measured = true;
        self.report.paused_at = Some(paused_at.to_owned());
        self.report.realms = self.realms_now();
        let ids: Vec<i64> = self.contexts.iter().map(|c| c.realm.context_id).collect();
        for id in ids {
            if self.measurer(id).is_none() {
                self.instantiate_now(cdp, backlog, id)?;
            }
            let Some(measurer) = self.measurer(id) else {
                continue;
            };
            for item in self.request.items.clone() {
                let params = json!({
                    "objectId": measurer,
                    "functionDeclaration": CALL_MEASURER,
                    "arguments": [{"value": item.api}, {"value": item.access_type}, {"value": item.construct_no_args}],
                    "returnByValue": true,
                    "silent": true,
                    "objectGroup": GROUP,
                });
                match call(cdp, backlog, "Runtime.callFunctionOn", params)? {
                    Ok(result) => {
                        if let Some(details) = result.get("exceptionDetails") {
                            self.report.problems.push(format!(
                                "{} in context {id}: {}",
                                item.api,
                                describe_exception(details)
                            ));
                            continue;
                        }
                        let value = result
                            .pointer("/result/value")
                            .cloned()
                            .unwrap_or(Value::Null);
                        self.report
                            .measurements
                            .push(measurement(&item.key, id, value));
                    }
                    Err(e) => self
                        .report
                        .problems
                        .push(format!("{} in context {id}: {e}", item.api)),
                }
            }
        }
        self.take_requests(cdp, backlog)?;
        self.disarm(cdp, backlog)
    }

    /// Removes the breakpoints and releases the probe's objects.
    fn disarm(&mut self, cdp: &mut Cdp, backlog: &mut VecDeque<Incoming>) -> Result<()> {
        for (id, _) in std::mem::take(&mut self.breakpoints) {
            let _ = call(
                cdp,
                backlog,
                "Debugger.removeBreakpoint",
                json!({"breakpointId": id}),
            )?;
        }
        let _ = call(
            cdp,
            backlog,
            "Runtime.releaseObjectGroup",
            json!({"objectGroup": GROUP}),
        )?;
        for c in &mut self.contexts {
            c.measurer = None;
        }
        Ok(())
    }

    /// The report, with the realms as they were at exit and the chosen one marked.
    pub fn finish(mut self) -> ProbeReport {
        if !self.report.measured {
            self.report.realms = self.realms_now();
        }
        self.report
    }

    /// The contexts alive now, the script's realm marked `chosen`.
    fn realms_now(&self) -> Vec<Realm> {
        let mut realms: Vec<Realm> = self.contexts.iter().map(|c| c.realm.clone()).collect();
        // The script's realm: a `vm` context (jsdom's window) where scripts ran; else the first
        // `vm` context; else the main context.
        let chosen = realms
            .iter()
            .filter(|r| !r.is_default)
            .max_by_key(|r| (r.scripts > 0, std::cmp::Reverse(r.context_id)))
            .or_else(|| realms.iter().find(|r| r.is_default))
            .map(|r| r.context_id);
        for r in &mut realms {
            r.chosen = Some(r.context_id) == chosen;
        }
        realms
    }

    fn measurer(&self, context: i64) -> Option<String> {
        self.contexts
            .iter()
            .find(|c| c.realm.context_id == context)
            .and_then(|c| c.measurer.clone())
    }

    fn instantiate_now(
        &mut self,
        cdp: &mut Cdp,
        backlog: &mut VecDeque<Incoming>,
        id: i64,
    ) -> Result<()> {
        let answer = call(
            cdp,
            backlog,
            "Runtime.callFunctionOn",
            instantiate_params(id),
        )?;
        let object = self
            .answered(&format!("measurer in context {id}"), answer)
            .and_then(object_id);
        if let Some(c) = self.contexts.iter_mut().find(|c| c.realm.context_id == id) {
            c.measurer = object;
        }
        Ok(())
    }
}

/// The measurer's source: reflect.js (without its CommonJS export, which would touch a `module`
/// global if a program defined one) and exit_probe.js, as one function declaration.
fn measurer_source() -> String {
    let reflect = REFLECT_JS
        .find("\nif (typeof module")
        .map_or(REFLECT_JS, |end| &REFLECT_JS[..end]);
    format!("function () {{\n\"use strict\";\n{reflect}\n{PROBE_JS}\n}}")
}

fn instantiate_params(context: i64) -> Value {
    json!({
        "executionContextId": context,
        "functionDeclaration": measurer_source(),
        "objectGroup": GROUP,
        "silent": true,
    })
}

fn measurement(key: &str, context_id: i64, value: Value) -> Measurement {
    let mut fields = match value {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let receiver = match fields.remove("receiver") {
        Some(Value::String(r)) => Some(r),
        _ => None,
    };
    let unresolved = match fields.remove("unresolved") {
        Some(Value::String(r)) => Some(r),
        _ => None,
    };
    Measurement {
        key: key.to_owned(),
        context_id,
        receiver,
        dimensions: fields.into_iter().collect(),
        unresolved,
    }
}

fn describe_exception(details: &Value) -> String {
    details
        .pointer("/exception/description")
        .or_else(|| details.get("text"))
        .and_then(Value::as_str)
        .unwrap_or("threw")
        .lines()
        .next()
        .unwrap_or("threw")
        .to_owned()
}

/// Sends one request and waits for its answer; everything else that arrives meanwhile is kept, in
/// order, in `backlog` for the driver.
/// The objectId a call's result holds.
fn object_id(result: Value) -> Option<String> {
    result
        .pointer("/result/objectId")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

fn call(
    cdp: &mut Cdp,
    backlog: &mut VecDeque<Incoming>,
    method: &str,
    params: Value,
) -> Result<Result<Value, Value>> {
    let id = cdp.send(method, params)?;
    let deadline = Instant::now() + CALL_LIMIT;
    loop {
        match cdp.read()? {
            Incoming::Response { id: got, result } if got == id => return Ok(result),
            Incoming::Idle => {
                if Instant::now() >= deadline {
                    bail!("the inspector did not answer {method} within {CALL_LIMIT:?}");
                }
            }
            Incoming::Closed => {
                backlog.push_back(Incoming::Closed);
                bail!("the inspector closed the connection during {method}");
            }
            other => backlog.push_back(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_measurer_is_the_tools_own_code_without_the_export_line() {
        let source = measurer_source();
        assert!(source.starts_with("function () {"));
        assert!(source.contains("function tracerReflect(g, options)"));
        assert!(source.contains("function measureItem(path, accessType, constructNoArgs)"));
        assert!(!source.contains("typeof module"));
    }

    #[test]
    fn measurements_split_receiver_and_dimensions() {
        let m = measurement(
            "c-1",
            2,
            json!({"receiver": "Navigator", "owner": "Navigator.prototype", "descriptor": null}),
        );
        assert_eq!(m.receiver.as_deref(), Some("Navigator"));
        assert_eq!(m.dimensions["owner"], json!("Navigator.prototype"));
        assert_eq!(m.dimensions["descriptor"], Value::Null);
        assert!(!m.dimensions.contains_key("receiver"));
    }

    #[test]
    fn the_script_realm_prefers_a_vm_context_where_scripts_ran() {
        let mut probe = ExitProbe::new(ProbeRequest::default());
        for (id, default, scripts) in [(1, true, 5), (2, false, 0), (3, false, 2)] {
            probe.contexts.push(Context {
                realm: Realm {
                    context_id: id,
                    name: format!("c{id}"),
                    is_default: default,
                    scripts,
                    chosen: false,
                },
                measurer: None,
            });
        }
        assert_eq!(probe.finish().chosen().map(|r| r.context_id), Some(3));
        let mut only_main = ExitProbe::new(ProbeRequest::default());
        only_main.contexts.push(Context {
            realm: Realm {
                context_id: 1,
                name: "main".into(),
                is_default: true,
                scripts: 1,
                chosen: false,
            },
            measurer: None,
        });
        assert_eq!(only_main.finish().chosen().map(|r| r.context_id), Some(1));
    }
}
