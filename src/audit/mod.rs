//! The audit: runs the case's environment entry in audit-only, no-send mode — Node through the
//! same engine as `tracer run` (so a session, events and evidence are written too), Python with
//! python3 — merges the entry's raw observations under metadata only the tool computes, writes
//! `case/tmp/node-trace-runtime-audit.json` (and `.md`), sealed once the entry's whole tree is
//! gone; `tracer audit` then concludes with the check's verdict (`output::verdict`).
//!
//! Trusted fields (`contractHash`, `traceSourceHash`, `runtimeSourceHash`, `networkAttempts`,
//! `probeVersion`, `exitCode`, …) are computed here from the files and the run, never copied from
//! what the entry wrote.

mod page_errors;
mod traceback;

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::conformance::audit_format::{
    self, AbsentPath, Audit, NetworkAttempt, Observation, RecordedRealm, Recording, SandboxRecord,
    TimelineEntry,
};
use crate::conformance::contract::Contract;
use crate::conformance::{case, hash, observed, requests, seal};
use crate::engine;
use crate::error::TracerError;
use crate::exit;
use crate::guard::{self, Attempt};
use crate::output::human::Styles;
use crate::output::store::write_atomic;
use crate::process::{find, group};

/// The contract, relative to the case folder.
const CONTRACT_PATH: &str = "notes/trace-runtime-contract.json";
/// Where the entry may write its raw observations, relative to the case folder.
const RAW_OBSERVATIONS_PATH: &str = "tmp/entry-trace-audit.json";
/// Where the tool's recording of the environment goes, relative to the case folder.
pub const NODE_TRACE_PATH: &str = "tmp/node-trace.ndjson";

/// How the entry ran.
struct EntryRun {
    runtime: &'static str,
    runtime_version: Option<String>,
    exit_code: Option<i64>,
    /// How it failed: the run's evidence chain's failure (Node), the last traceback on its stderr
    /// (Python); its file as the run named it.
    failure: Option<audit_format::EntryFailure>,
    /// What the no-send guard refused; `None` when no guard could be installed.
    attempts: Option<Vec<Attempt>>,
    /// What the tool's own recording of the environment did (Node entries).
    recording: Option<crate::probe::node::NodeReport>,
    /// The errors of the page's script the environment reported, and how many more (Node
    /// entries).
    page_errors: (Vec<audit_format::PageError>, u64),
}

/// One audit, as `tracer audit` asks for it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The case folder, as the user named it.
    pub case_dir: PathBuf,
    /// The environment's entry (`final.js`, `final.py`).
    pub entry: PathBuf,
    /// Write the audit's Markdown beside its JSON.
    pub markdown: bool,
    /// How long the entry may run, in seconds.
    pub timeout: f64,
    /// Where the run's session goes (`sessions/`, `latest`).
    pub out: PathBuf,
    /// The Node executable.
    pub node: Option<PathBuf>,
    /// The folder the entry must be inside.
    pub workspace: Option<PathBuf>,
    /// No notes on stderr.
    pub quiet: bool,
    /// The verdict goes to stdout as JSON: the entry's own stdout goes to stderr.
    pub json: bool,
}

/// Runs the entry and writes the sealed audit (`case/tmp/node-trace-runtime-audit.json`, and
/// `.md` when asked); returns the case folder, canonical, for the check that follows.
pub fn audit(request: &Request, styles: &Styles) -> Result<PathBuf> {
    let case_dir = case::canonical_dir(&request.case_dir)?;
    let contract_path = case_dir.join(CONTRACT_PATH);
    if !contract_path.is_file() {
        return Err(TracerError::usage(format!(
            "no contract at {}: run `tracer contract build --case-dir {}` first",
            contract_path.display(),
            request.case_dir.display()
        ))
        .into());
    }
    let contract: Value = crate::files::read_json(&contract_path)?;
    let typed: Contract = serde_json::from_value(contract.clone()).map_err(|e| {
        TracerError::usage(format!(
            "{} is not a trace-runtime contract ({e}): rebuild it with `tracer contract build --case-dir {}`",
            contract_path.display(),
            request.case_dir.display()
        ))
    })?;
    let entry = request.entry.canonicalize().map_err(|_| {
        TracerError::usage(format!(
            "entry {} not found: give the environment's entry file (final.js or final.py)",
            request.entry.display()
        ))
    })?;
    let tmp = case_dir.join("tmp");
    std::fs::create_dir_all(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    let raw_path = case_dir.join(RAW_OBSERVATIONS_PATH);
    let node_trace = case_dir.join(NODE_TRACE_PATH);
    // Observations left by an earlier run must never pass for this run's, and an audit that does
    // not finish (interrupted, the entry did not run) leaves no earlier audit to pass for it.
    let _ = std::fs::remove_file(&raw_path);
    let _ = std::fs::remove_file(&node_trace);
    let _ = std::fs::remove_file(case_dir.join(audit_format::JSON_PATH));
    let _ = std::fs::remove_file(case_dir.join(audit_format::JSON_PATH).with_extension("md"));

    let env = vec![
        ("WEB_JS_ENV_PATCHER_AUDIT_ONLY".to_owned(), "1".to_owned()),
        ("WEB_JS_ENV_PATCHER_NO_NETWORK".to_owned(), "1".to_owned()),
        (
            "WEB_JS_ENV_PATCHER_NETWORK_MODE".to_owned(),
            "no-send".to_owned(),
        ),
        (
            "WEB_JS_ENV_PATCHER_TRACE_CONTRACT".to_owned(),
            contract_path.display().to_string(),
        ),
        (
            "WEB_JS_ENV_PATCHER_TRACE_AUDIT_OUT".to_owned(),
            raw_path.display().to_string(),
        ),
    ];
    // The audited code runs as this user: without this, it could open this process's
    // `/proc/PID/mem` (a file, which no system-call filter sees) and write into the tracer that
    // runs outside the guard. A process that is not dumpable has its `/proc` files owned by root:
    // another process of the same user cannot open them (root, with CAP_SYS_PTRACE, still can;
    // the sandbox below takes that capability away). Children the tracer executes are dumpable
    // again (execve resets it).
    // SAFETY: prctl(PR_SET_DUMPABLE, 0) takes no pointers and only changes this process's flag.
    let not_dumpable = unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) } == 0;
    if !not_dumpable && !request.quiet {
        crate::output::say!(
            "warning: could not make tracer non-dumpable; the audited code could reach its memory"
        );
    }
    let state_dir = seal::state_dir()
        .context("no state directory for the audit's key: set TRACER_STATE_DIR or HOME");
    // The seal's key, read (or made) before the audited code runs: a key planted or replaced
    // while it runs is never used to seal.
    let held_key = state_dir
        .as_ref()
        .map_err(|e| anyhow::anyhow!("{e:#}"))
        .and_then(|dir| seal::HeldKey::take(dir));
    // The tool's own recording is written where the sandbox hides (the state folder), read back
    // from there, and only then copied into the case for the user.
    let private = state_dir
        .as_ref()
        .ok()
        .and_then(|dir| private_folder(dir).ok());
    let recorded_trace = private.as_ref().map_or_else(
        || node_trace.clone(),
        |p| p.path().join("node-trace.ndjson"),
    );
    let (sandbox_record, hide) =
        sandbox_plan(state_dir.as_ref().ok(), &case_dir, &entry, not_dumpable);
    if !sandbox_record.in_force && !request.quiet {
        crate::output::say!(
            "warning: the entry runs without the sandbox ({}): it could reach tracer as the same user",
            sandbox_record.reason.as_deref().unwrap_or("unknown reason")
        );
    }
    crate::timings::mark("audit prepared");
    let guard = guard::capability();
    crate::timings::mark("guard probed");
    if !guard.available && !request.quiet {
        crate::output::say!(
            "warning: the no-send guard is not available here ({}); the entry runs unguarded and the audit records no network count",
            guard.reason.as_deref().unwrap_or("unknown reason")
        );
    }
    let entry_run = match entry.extension().and_then(|e| e.to_str()) {
        Some("js" | "mjs" | "cjs") => run_node(
            request,
            &entry,
            engine::Extras {
                env,
                no_send: guard.available,
                node_probe: Some(node_request(&typed, &entry, &recorded_trace)),
                sandbox: hide.clone(),
                scoped: sandbox_record.scopes.is_some(),
            },
            styles,
        )?,
        Some("py") => run_python(
            request,
            &entry,
            &env,
            guard.available,
            hide.as_deref(),
            sandbox_record.scopes.is_some(),
        )?,
        _ => {
            return Err(TracerError::usage(format!(
                "entry {} is neither JavaScript (.js, .mjs, .cjs) nor Python (.py)",
                request.entry.display()
            ))
            .into());
        }
    };

    crate::timings::mark("entry finished");
    let mut audit = Audit {
        probe_version: Some(audit_format::VERSION.to_owned()),
        baseline_id: contract
            .get("baselineId")
            .and_then(Value::as_str)
            .map(str::to_owned),
        contract_hash: Some(hash::contract(&contract)),
        trace_source_hash: trace_source_hash(&case_dir, &contract),
        entry: Some(relative(&case_dir, &entry)),
        runtime: Some(entry_run.runtime.to_owned()),
        runtime_version: entry_run.runtime_version,
        exit_code: entry_run.exit_code,
        entry_failure: entry_run.failure.map(|f| audit_format::EntryFailure {
            file: f.file.map(|file| relative(&case_dir, Path::new(&file))),
            ..f
        }),
        generated_at: Some(
            humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
        ),
        // Counted by the tool's guard only; without one the count is unknown and the check says so.
        network_attempts: entry_run.attempts.as_ref().map(|a| a.len() as u64),
        transcript: entry_run
            .attempts
            .iter()
            .flatten()
            .map(transcript_line)
            .collect(),
        sandbox: Some(sandbox_record),
        ..Audit::default()
    };
    let (runtime_hash, files) = hash::runtime_source(&case_dir.join("result"))?;
    audit.runtime_source_hash = Some(runtime_hash);
    audit.runtime_sources = Some(files);
    if raw_path.is_file() {
        let (timeline, observations) = read_raw_observations(&raw_path)?;
        audit.timeline = timeline;
        audit.observations = observations;
    }
    // The tool's own recording, beside the entry's observations: the check prefers it and blocks
    // where the entry's claims contradict it. Its timeline is the runtime's raw one.
    if let Some(report) = &entry_run.recording {
        if recorded_trace != node_trace {
            std::fs::read(&recorded_trace)
                .and_then(|bytes| write_atomic(&node_trace, &bytes))
                .with_context(|| format!("copying the recording to {}", node_trace.display()))?;
        }
        let derived = observed::from_trace(&recorded_trace, &case_dir, &typed)?;
        if derived.accesses == 0 && !request.quiet {
            crate::output::say!(
                "warning: the tool recorded no access of the script's in the environment ({}): {}",
                NODE_TRACE_PATH,
                if report.realms.iter().any(|r| r.probed_before.is_some()) {
                    "the probe was in place, and the script touched nothing it watches"
                } else {
                    "no script of the target's ran in a realm of the environment (see docs/conformance.md, \"Which code is the target's\")"
                }
            );
        }
        if !derived.timeline.is_empty() {
            if !audit.timeline.is_empty() && !request.quiet {
                crate::output::say!(
                    "note: the entry's own timeline is replaced by the tool's recording of the runtime"
                );
            }
            audit.timeline = derived.timeline;
        }
        audit.observations.extend(derived.observations);
        audit.script_requests = Some(derived.requests);
        let mut recording = recording_summary(report);
        (recording.page_errors, recording.page_errors_left_out) = entry_run.page_errors.clone();
        // `node_request` asks the probe about each item's path on its receiver's class too.
        recording.receiver_paths_checked = true;
        audit.recording = Some(recording);
        // What the program tried to send, request by request (the guard refused each one).
        audit.requests = report.requests.as_ref().map(requests::from_runtime);
    }

    crate::timings::mark("observations derived");
    // The seal: the check blocks an audit that was edited after this point.
    let key = held_key.and_then(|held| held.still_held().map(<[u8]>::to_vec));
    match key {
        Ok(key) => audit.integrity = Some(seal::seal(&serde_json::to_value(&audit)?, &key)),
        Err(e) if !request.quiet => {
            crate::output::say!("warning: the audit is not sealed ({e:#}); the check will block it")
        }
        Err(_) => {}
    }
    let audit_path = case_dir.join(audit_format::JSON_PATH);
    let mut json = serde_json::to_vec_pretty(&audit)?;
    json.push(b'\n');
    write_atomic(&audit_path, &json)
        .with_context(|| format!("writing {}", audit_path.display()))?;
    if request.markdown {
        let md_path = audit_path.with_extension("md");
        write_atomic(&md_path, to_markdown(&audit).as_bytes())
            .with_context(|| format!("writing {}", md_path.display()))?;
    }
    if !request.quiet {
        crate::output::say!(
            "audit: {}",
            request.case_dir.join(audit_format::JSON_PATH).display()
        );
    }
    Ok(case_dir)
}

fn run_node(
    request: &Request,
    entry: &Path,
    extras: engine::Extras,
    styles: &Styles,
) -> Result<EntryRun> {
    let config = engine::Config {
        target: entry.to_owned(),
        args: vec![OsString::from("--audit-only")],
        timeout: Some(request.timeout),
        attach_timeout: 15.0,
        out: request.out.clone(),
        keep: 20,
        max_events: 10_000,
        node: request.node.clone(),
        workspace: request.workspace.clone(),
        default_redact: true,
        quiet: request.quiet,
        stdout_to_stderr: request.json,
        extras,
        ..engine::Config::default()
    };
    let rules = config.extras.node_probe.as_ref().map(|p| p.rules.clone());
    let report = engine::execute(&config, styles)?;
    // An interrupted audit is never a verdict: no audit is written, so none can be sealed.
    if report.code == exit::INTERRUPTED || report.code == exit::TERMINATED {
        return Err(TracerError::Interrupted {
            code: report.code,
            message: format!(
                "the audit was interrupted ({}) before the entry finished: no audit was written; audit again",
                if report.code == exit::INTERRUPTED { "Ctrl-C" } else { "SIGTERM" }
            ),
        }
        .into());
    }
    if report.code == exit::TIMEOUT {
        return Err(TracerError::cannot_trace(format!(
            "the entry did not finish within --timeout {}s",
            request.timeout
        ))
        .into());
    }
    Ok(EntryRun {
        runtime: "node",
        runtime_version: report.session.capabilities.node_version.clone(),
        exit_code: report.session.exit_code.map(i64::from),
        failure: report.evidence.map(|e| audit_format::EntryFailure {
            kind: e.failure.kind.as_str().to_owned(),
            message: e.failure.message,
            file: e.failure.file,
            line: e.failure.line,
            column: e.failure.column,
        }),
        attempts: report.network_attempts,
        recording: report.node_probe,
        page_errors: rules
            .map(|rules| page_errors::from_events(&report.session.events, &rules))
            .unwrap_or_default(),
    })
}

fn run_python(
    request: &Request,
    entry: &Path,
    env: &[(String, String)],
    no_send: bool,
    hide: Option<&[PathBuf]>,
    scoped: bool,
) -> Result<EntryRun> {
    let python = Path::new("python3");
    let version = Command::new(python)
        .arg("--version")
        .output()
        .map_err(|e| {
            TracerError::cannot_trace(format!(
                "python3 not found ({e}): install Python 3 to audit a .py entry"
            ))
        })?;
    let version = String::from_utf8_lossy(&version.stdout)
        .trim()
        .trim_start_matches("Python ")
        .to_owned();
    let entry_args = [entry.as_os_str().to_owned(), OsString::from("--audit-only")];
    let (mut command, sandbox) = match hide {
        Some(hide) => {
            let python = find::search_path(python.as_os_str()).unwrap_or(python.to_owned());
            let (command, pending) = crate::sandbox::command(hide, Some((&python, &entry_args)))
                .map_err(|e| {
                    TracerError::cannot_trace(format!("the sandbox could not be prepared: {e}"))
                })?;
            (command, Some(pending))
        }
        None => {
            let mut command = Command::new(python);
            command.args(&entry_args);
            (command, None)
        }
    };
    command
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0);
    if no_send {
        group::close_inherited_on_exec(&mut command);
    }
    let handle = if no_send {
        Some(guard::install(&mut command).map_err(|e| {
            TracerError::cannot_trace(format!("the no-send guard could not be prepared: {e}"))
        })?)
    } else {
        None
    };
    if scoped {
        crate::sandbox::scope::restrict(&mut command);
    }
    if let Some(pending) = &sandbox {
        pending.pass_to(&mut command);
    }
    let mut child = command
        .spawn()
        .map_err(|e| TracerError::cannot_trace(format!("could not start python3: {e}")))?;
    let guard = match handle.map(|h| h.start(child.id())).transpose() {
        Ok(guard) => guard,
        Err(e) => {
            group::signal_group(child.id(), libc::SIGKILL);
            let _ = child.wait();
            return Err(TracerError::cannot_trace(format!(
                "the no-send guard could not start: {e}"
            ))
            .into());
        }
    };
    // After the guard has its listener: until then the helper waits before its `exec`.
    if let Some(pending) = sandbox
        && let Err(e) = pending.started(Duration::from_secs(10))
    {
        group::signal_group(child.id(), libc::SIGKILL);
        let _ = child.wait();
        return Err(
            TracerError::cannot_trace(format!("the sandbox could not be made: {e}")).into(),
        );
    }
    let pgid = child.id();
    let tail = child.stderr.take().map(traceback::Tail::pass_on);
    let status = group::wait_for(&mut child, Duration::from_secs_f64(request.timeout))?;
    // Nothing the entry started outlives the audit.
    group::stop_group(pgid, libc::SIGTERM, Duration::from_secs(2));
    let failed = status.is_some_and(|s| !s.success());
    // Only a failed entry's traceback is read: one that ended well is not waited for.
    let failure = tail
        .filter(|_| failed)
        .and_then(|tail| tail.take(Duration::from_secs(2)))
        .and_then(|tail| traceback::python_failure(&tail))
        .map(|mut failure| {
            // Redacted as a Node entry's evidence is (the default shapes: tokens, keys).
            if let Ok(redactor) = crate::trace::redact::Redactor::new(true, &[]) {
                redactor.apply_mut(&mut failure.message);
            }
            failure
        });
    let Some(status) = status else {
        let _ = child.wait();
        return Err(TracerError::cannot_trace(format!(
            "the entry did not finish within --timeout {}s",
            request.timeout
        ))
        .into());
    };
    Ok(EntryRun {
        runtime: "python",
        runtime_version: Some(version),
        exit_code: status.code().map(i64::from),
        failure,
        attempts: guard.map(guard::Guard::finish),
        recording: None,
        page_errors: Default::default(),
    })
}

/// A folder of this audit's own in the state folder (0700, removed when dropped).
fn private_folder(state_dir: &Path) -> std::io::Result<tempfile::TempDir> {
    std::fs::create_dir_all(state_dir)?;
    tempfile::Builder::new()
        .prefix("audit-")
        .tempdir_in(state_dir)
}

/// Whether the entry runs in the sandbox, and the folders it hides: the state folder (the key,
/// the tool's own recording) and `/dev/net` (TUN devices). Without the sandbox, the reason.
fn sandbox_plan(
    state_dir: Option<&PathBuf>,
    case_dir: &Path,
    entry: &Path,
    not_dumpable: bool,
) -> (SandboxRecord, Option<Vec<PathBuf>>) {
    let scopes = crate::sandbox::scope::available();
    let without = |reason: String| {
        (
            SandboxRecord {
                in_force: false,
                tool_not_dumpable: not_dumpable,
                scopes: scopes.clone(),
                reason: Some(reason),
                ..SandboxRecord::default()
            },
            None,
        )
    };
    let Some(state_dir) = state_dir.and_then(|d| d.canonicalize().ok()) else {
        return without("no state folder to hide".to_owned());
    };
    // Hiding a folder that holds the case would hide the entry from itself.
    let cwd = std::env::current_dir().unwrap_or_default();
    if [case_dir, entry, cwd.as_path()]
        .iter()
        .any(|p| p.starts_with(&state_dir))
    {
        return without(format!(
            "the state folder {} holds the case or the current folder; set TRACER_STATE_DIR elsewhere",
            state_dir.display()
        ));
    }
    if std::env::var_os(NO_SANDBOX_ENV).is_some_and(|v| v == "1") {
        return without(format!("{NO_SANDBOX_ENV}=1"));
    }
    let capability = crate::sandbox::capability();
    if !capability.available {
        return without(capability.reason.unwrap_or_default());
    }
    let hide = vec![state_dir, PathBuf::from("/dev/net")];
    (
        SandboxRecord {
            in_force: true,
            namespaces: crate::sandbox::NAMESPACES
                .iter()
                .map(|n| (*n).to_owned())
                .collect(),
            hidden: hide.iter().map(|p| p.display().to_string()).collect(),
            tool_not_dumpable: not_dumpable,
            scopes,
            reason: None,
        },
        Some(hide),
    )
}

/// Set to 1, the entry runs without the sandbox (the audit says so, and the check names it a
/// risk): for a machine whose kernel allows namespaces but where they get in the way.
pub const NO_SANDBOX_ENV: &str = "TRACER_NO_SANDBOX";

/// What the probe in the environment watches, and which code is the target's: the names of the
/// scripts that made the recorded accesses (the first frame of each item's stack sample); the
/// environment's folder (the entry's).
fn node_request(
    contract: &Contract,
    entry: &Path,
    trace: &Path,
) -> crate::probe::node::NodeRequest {
    let urls = contract.items.iter().filter_map(|item| {
        let frame = item.stack_sample.first()?;
        frame.get("url").and_then(Value::as_str).map(str::to_owned)
    });
    let node_globals: Vec<String> = crate::conformance::check::NODE_GLOBALS
        .iter()
        .map(|g| format!("window.{g}"))
        .collect();
    crate::probe::node::NodeRequest {
        trace_path: trace.to_owned(),
        baseline_id: contract.baseline_id.clone().unwrap_or_default(),
        // Node's own globals beside the list, watched only for being read: a realm that exposes
        // them to the script leaks Node, and the check names the script's reads of them (a jsdom
        // window has none to wrap).
        apis: crate::probe::api_list(&node_globals),
        read_only: node_globals,
        known_members: {
            let mut names: Vec<String> = contract
                .items
                .iter()
                .filter_map(|item| item.api.rsplit('.').next().map(str::to_owned))
                .collect();
            names.sort();
            names.dedup();
            names
        },
        check_paths: {
            let mut pairs: Vec<[String; 2]> = contract
                .items
                .iter()
                .flat_map(|item| {
                    let on_receiver = crate::conformance::missing::receiver_path(item);
                    std::iter::once(item.api.clone())
                        .chain(on_receiver)
                        .map(|path| [item.realm.clone(), path])
                })
                .chain([[
                    "main".to_owned(),
                    crate::conformance::audit_format::TOOL_MARK_PATH.to_owned(),
                ]])
                .collect();
            pairs.sort();
            pairs.dedup();
            pairs
        },
        rules: crate::probe::node::Rules {
            environment_dirs: entry.parent().map(Path::to_owned).into_iter().collect(),
            target_names: crate::probe::node::target_names(urls),
        },
    }
}

/// The audit's `recording` section.
fn recording_summary(report: &crate::probe::node::NodeReport) -> Recording {
    Recording {
        trace: NODE_TRACE_PATH.to_owned(),
        accesses: report.accesses,
        left_out: report.left_out,
        left_out_by: report.left_out_by.clone(),
        pauses: report.pauses,
        realms: report
            .realms
            .iter()
            .map(|r| {
                let install = report.installs.iter().find(|i| i.context == r.context_id);
                RecordedRealm {
                    context_id: r.context_id,
                    name: r.name.clone(),
                    is_default: r.is_default,
                    wrapped: install.map(|i| i.wrapped),
                    probed_before: r.probed_before.clone(),
                    scripts_before: r.scripts_before,
                    kind: install.map(|i| i.realm.clone()),
                    absent: install
                        .map(|i| {
                            i.absent
                                .iter()
                                .map(|(path, missing)| AbsentPath {
                                    path: path.clone(),
                                    missing: missing.clone(),
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    unwatched: install.map(|i| i.unwatched.clone()).unwrap_or_default(),
                    shared: install.map(|i| i.shared.clone()).unwrap_or_default(),
                }
            })
            .collect(),
        recorded_realms: report.recorded_realms.clone(),
        problems: report.problems.clone(),
        ..Recording::default()
    }
}

/// One refused attempt as the audit's transcript records it.
fn transcript_line(attempt: &Attempt) -> NetworkAttempt {
    NetworkAttempt {
        module: Some("kernel".to_owned()),
        method: Some(attempt.syscall.clone()),
        host: Some(attempt.address.clone()),
        port: Some(attempt.port),
        family: Some(attempt.family.clone()),
        pid: Some(attempt.pid),
        process: Some(attempt.process.clone()),
        ..NetworkAttempt::default()
    }
}

/// `traceSourceHash` recomputed from the trace files the contract names, as they are on disk now.
fn trace_source_hash(case_dir: &Path, contract: &Value) -> Option<String> {
    let files: Vec<PathBuf> = contract
        .get("traces")?
        .as_array()?
        .iter()
        .filter_map(|t| t.get("path").and_then(Value::as_str))
        .map(|p| case_dir.join(p))
        .collect();
    hash::trace_source(&files).ok()
}

/// The entry's raw observations (`timeline`, `observations`); anything else it wrote is ignored, and
/// trusted fields it may have written are never taken.
fn read_raw_observations(path: &Path) -> Result<(Vec<TimelineEntry>, Vec<Observation>)> {
    let raw: Value = crate::files::read_json(path)?;
    let field = |name: &str| raw.get(name).cloned().unwrap_or(Value::Array(Vec::new()));
    let timeline: Vec<TimelineEntry> = serde_json::from_value(field("timeline")).map_err(|e| {
        TracerError::usage(format!(
            "{}: `timeline` is not a list of {{contractId, sequence, object, event}}: {e}",
            path.display()
        ))
    })?;
    let mut observations: Vec<Observation> = serde_json::from_value(field("observations"))
        .map_err(|e| {
            TracerError::usage(format!(
                "{}: `observations` is not a list of observations: {e}",
                path.display()
            ))
        })?;
    for observation in &mut observations {
        observation.source.get_or_insert_with(|| "entry".to_owned());
    }
    Ok((timeline, observations))
}

fn relative(base: &Path, path: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn to_markdown(audit: &Audit) -> String {
    let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "—".to_owned());
    let mut md = String::from("# Trace-runtime audit\n\n| field | value |\n|---|---|\n");
    for (name, value) in [
        ("probeVersion", show(&audit.probe_version)),
        ("baselineId", show(&audit.baseline_id)),
        ("entry", show(&audit.entry)),
        (
            "runtime",
            format!("{} {}", show(&audit.runtime), show(&audit.runtime_version)),
        ),
        (
            "exitCode",
            audit.exit_code.map_or("—".to_owned(), |c| c.to_string()),
        ),
        ("contractHash", show(&audit.contract_hash)),
        ("traceSourceHash", show(&audit.trace_source_hash)),
        ("runtimeSourceHash", show(&audit.runtime_source_hash)),
        (
            "networkAttempts",
            audit
                .network_attempts
                .map_or("not measured (no guard)".to_owned(), |n| n.to_string()),
        ),
        ("generatedAt", show(&audit.generated_at)),
    ] {
        md.push_str(&format!("| {name} | {value} |\n"));
    }
    md.push_str(&format!(
        "\n{} observations, {} timeline events.\n",
        audit.observations.len(),
        audit.timeline.len()
    ));
    if let Some(requests) = &audit.requests {
        md.push_str("\n## Requests the program tried to send\n\n");
        if requests.is_empty() {
            md.push_str("None.\n");
        }
        for (i, r) in requests.iter().enumerate() {
            md.push_str(&format!("{}. {}\n", i + 1, r.describe()));
        }
    }
    if !audit.transcript.is_empty() {
        md.push_str("\n## Blocked network attempts\n\n");
        for attempt in &audit.transcript {
            md.push_str(&format!("- {}\n", attempt.describe()));
        }
    }
    md
}
