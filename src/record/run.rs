//! A recording (what `tracer record` does): resolve what to record (a page file, a loopback URL, or a bare script in a
//! blank page), start Chromium, stream the probe's records into
//! `CASE/ruyi-trace/logs/current.ndjson`, stop the browser, and report. The trace is written beside
//! it and takes its place only once the recording has ended with a trace to keep, so a failed
//! recording leaves an earlier trace in place and no half-written one.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};

use crate::error::TracerError;
use crate::exit;
use crate::inspector::cdp::Cdp;
use crate::output::human::Styles;
use crate::probe;
use crate::probe::writer::{HeaderInfo, TraceWriter};
use crate::record::browser::{self, Browser};
use crate::record::recording::{self, Ending, Recorder, RecordingLimits};

/// Where the trace goes, relative to the case folder.
pub const TRACE_PATH: &str = "ruyi-trace/logs/current.ndjson";
/// How long Chromium may take to print its DevTools URL.
const START_LIMIT: Duration = Duration::from_secs(30);

/// One recording, as `tracer record` asks for it (the command line's `RecordArgs`, converted once).
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// The page (a file or a URL), or none with `script`.
    pub page: Option<String>,
    /// A script to run in a blank page instead of a page.
    pub script: Option<PathBuf>,
    pub case_dir: PathBuf,
    pub baseline_id: String,
    /// The browser (else `TRACER_CHROMIUM`, else one on `PATH`).
    pub browser: Option<PathBuf>,
    /// API paths watched beside the default list, and from a file.
    pub apis: Vec<String>,
    pub api_file: Option<PathBuf>,
    /// API paths left out.
    pub api_excludes: Vec<String>,
    /// No walk of everything the realm's global reaches.
    pub no_walk: bool,
    /// Seconds the recording may last, and of quiet before it settles.
    pub timeout: f64,
    pub settle: f64,
    /// Records sent one by one, not in batches.
    pub no_batch: bool,
    /// The most access lines written.
    pub max_accesses: u64,
    /// No notes on stderr.
    pub quiet: bool,
}

/// Records the page or script in Chromium into the case's trace; returns the exit code.
pub fn record(request: &Request, styles: &Styles) -> Result<u8> {
    let args = request;
    for (flag, value) in [("--timeout", args.timeout), ("--settle", args.settle)] {
        if !(value > 0.0 && value.is_finite()) {
            return Err(
                TracerError::usage(format!("{flag} must be a positive number of seconds")).into(),
            );
        }
    }
    if args.baseline_id.trim().is_empty() {
        return Err(TracerError::usage("--baseline-id must not be empty").into());
    }
    let mut extra = args.apis.clone();
    if let Some(file) = &args.api_file {
        extra.extend(read_api_file(file)?);
    }
    for (flag, api) in extra
        .iter()
        .map(|api| ("--api", api))
        .chain(args.api_excludes.iter().map(|api| ("--api-exclude", api)))
    {
        if !valid_api(api) {
            return Err(TracerError::usage(format!(
                "{flag} `{api}` is not an API path: use an interface (`Element`), a namespace (`Math`) or a member (`Element.prototype.focus`, `window.open`)"
            ))
            .into());
        }
    }
    let mut asked = extra.clone();
    asked.extend(args.api_excludes.iter().cloned());
    let watch = probe::Watch {
        apis: probe::api_list(&extra),
        exclude: args.api_excludes.clone(),
        asked,
        walk: !args.no_walk,
    };
    // Holds the blank page of --script until the recording ends.
    let scratch = tempfile::Builder::new()
        .prefix("tracer-record-")
        .tempdir()
        .context("creating a temporary folder")?;
    let url = target_url(args, scratch.path())?;
    let executable = browser::find(args.browser.as_deref())?;

    let stop = Arc::new(AtomicUsize::new(0));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_usize(signal, Arc::clone(&stop), signal as usize)
            .context("installing signal handlers")?;
    }

    let begun = Instant::now();
    let mut chromium = Browser::start(&executable, START_LIMIT)?;
    let mut cdp = Cdp::connect(&chromium.ws_url).map_err(|e| {
        TracerError::cannot_trace(format!("could not attach to Chromium's DevTools: {e:#}"))
    })?;
    let version = recording::browser_version(&mut cdp)
        .map_err(|e| TracerError::cannot_trace(format!("Chromium did not answer: {e:#}")))?;

    let trace_path = args.case_dir.join(TRACE_PATH);
    let started_at = SystemTime::now();
    let started_ms = started_at
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    let stamp = humantime::format_rfc3339_seconds(started_at).to_string();
    let partial = Partial::new(&trace_path);
    let mut writer = TraceWriter::create(
        &partial.path,
        &HeaderInfo {
            baseline_id: &args.baseline_id,
            runtime: "chromium",
            runtime_version: &version,
            started_at: &stamp,
            page: &url,
        },
    )?;
    let limits = RecordingLimits {
        settle: Duration::from_secs_f64(args.settle),
        timeout: Duration::from_secs_f64(args.timeout),
        stop,
        max_accesses: args.max_accesses,
    };
    let mut recorder = Recorder::open(cdp, &mut writer, started_ms, &watch, !args.no_batch)
        .map_err(|e| TracerError::cannot_trace(format!("could not set up the page: {e:#}")))?;
    let ending = recorder.record(&url, &limits);
    let report = recorder.take_report();
    recorder.close();
    chromium.stop(Duration::from_secs(3));
    let ending = ending?;
    let accesses = writer.accesses();
    drop(writer);

    let unknown = unknown_names(&watch.asked, &report.installs);
    if !unknown.is_empty() {
        // A trace without what was asked for would be taken for the one asked for (the partial
        // trace is removed when `partial` goes).
        let realms = realm_list(&report.realms);
        let names: Vec<String> = unknown
            .iter()
            .map(|n| {
                let flag = if extra.contains(n) {
                    "--api"
                } else {
                    "--api-exclude"
                };
                format!("{flag} `{n}`")
            })
            .collect();
        return Err(TracerError::usage(format!(
            "{} {} nothing in any realm of this page ({realms}): not an interface, a namespace or a member there (a typo, or an API this Chromium lacks); no trace was kept",
            names.join(", "),
            if names.len() == 1 { "names" } else { "name" }
        ))
        .into());
    }

    partial.keep_as(&trace_path)?;

    if !args.quiet {
        let mut err = std::io::stderr().lock();
        for install in &report.installs {
            let _ = writeln!(
                err,
                "{} probe in {}: {} members watched{}{}",
                styles.dim.style("record:"),
                install.realm,
                install.wrapped,
                install
                    .ms
                    .map(|ms| format!(" (installed in {ms:.0} ms)"))
                    .unwrap_or_default(),
                if install.failed > 0 {
                    format!(", {} list entries failed", install.failed)
                } else {
                    String::new()
                }
            );
        }
        for note in &report.worker_failures {
            let _ = writeln!(err, "{} {note}", styles.warning.style("record:"));
        }
        for error in &report.page_errors {
            let _ = writeln!(
                err,
                "{} page error: {error}",
                styles.warning.style("record:")
            );
        }
        let _ = writeln!(
            err,
            "{} {accesses} accesses in {} realm(s) ({}) in {:.1} s, Chromium {version}; {}",
            styles.success.style("record:"),
            report.realms.len(),
            realm_list(&report.realms),
            begun.elapsed().as_secs_f64(),
            ending_text(ending, args.timeout, args.max_accesses)
        );
        let _ = writeln!(err, "  wrote {}", trace_path.display());
    }
    Ok(match ending {
        Ending::Done | Ending::Settled => exit::SUCCESS,
        Ending::TimedOut | Ending::Capped => exit::TIMEOUT,
        Ending::Signalled(signal) => exit::for_signal(signal),
        Ending::PageGone | Ending::BrowserGone => exit::CANNOT_TRACE,
    })
}

/// The trace while it is written: a file of its own beside the trace, put in the trace's place
/// once the recording has ended with a trace to keep, else removed when this goes, so that a
/// failed recording (a page that never loaded) leaves no half-written trace and an earlier trace
/// in place.
struct Partial {
    path: PathBuf,
    kept: bool,
}

impl Partial {
    fn new(trace: &Path) -> Partial {
        let mut name = trace.file_name().unwrap_or_default().to_owned();
        name.push(".partial");
        Partial {
            path: trace.with_file_name(name),
            kept: false,
        }
    }

    /// Puts the written trace in `trace`'s place.
    fn keep_as(mut self, trace: &Path) -> Result<()> {
        std::fs::rename(&self.path, trace).with_context(|| {
            format!(
                "moving the trace from {} to {}",
                self.path.display(),
                trace.display()
            )
        })?;
        self.kept = true;
        Ok(())
    }
}

impl Drop for Partial {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The names of `asked` that every realm reported naming nothing there (none when no realm
/// reported: nothing was measured then), in the order asked.
fn unknown_names(asked: &[String], installs: &[probe::ingest::Install]) -> Vec<String> {
    if installs.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for name in asked {
        if !out.contains(name) && installs.iter().all(|i| i.missing.contains(name)) {
            out.push(name.clone());
        }
    }
    out
}

/// The realms' ids, the first ten of them when there are more (a page that reloads itself in a
/// loop makes one per load).
fn realm_list(realms: &[String]) -> String {
    const SHOWN: usize = 10;
    let mut list = realms[..realms.len().min(SHOWN)].join(", ");
    if realms.len() > SHOWN {
        list.push_str(&format!(", … {} more", realms.len() - SHOWN));
    }
    list
}

fn ending_text(ending: Ending, timeout: f64, max_accesses: u64) -> String {
    match ending {
        Ending::Done => "ended by the page's tracer:done mark".into(),
        Ending::Settled => "ended after the load event and a quiet period".into(),
        Ending::TimedOut => {
            format!("stopped by --timeout {timeout} s (the trace is complete up to then)")
        }
        Ending::Capped => {
            format!("stopped at --max-accesses {max_accesses} (the trace is complete up to then)")
        }
        Ending::Signalled(_) => "interrupted (the trace is complete up to then)".into(),
        Ending::PageGone => "the page crashed or closed (the trace is complete up to then)".into(),
        Ending::BrowserGone => "the browser went away (the trace is complete up to then)".into(),
    }
}

/// The URL to navigate to: a page file as a `file://` URL, a loopback `http(s)` or `file` URL
/// as given, or a blank page in `scratch` that loads the `--script`.
fn target_url(args: &Request, scratch: &Path) -> Result<String> {
    if let Some(script) = &args.script {
        let script = canonical(script, "--script")?;
        let script_url = url::Url::from_file_path(&script).map_err(|()| {
            TracerError::usage(format!("{} cannot be a file URL", script.display()))
        })?;
        let page = scratch.join("index.html");
        let html = format!(
            "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>tracer record</title></head>\n<body><script src=\"{}\"></script></body></html>\n",
            html_escape(script_url.as_str())
        );
        std::fs::write(&page, html).with_context(|| format!("writing {}", page.display()))?;
        return file_url(&page);
    }
    let page = args.page.as_deref().unwrap_or_default();
    if page.contains("://") {
        let parsed = url::Url::parse(page)
            .map_err(|e| TracerError::usage(format!("`{page}` is not a URL ({e})")))?;
        let loopback = match parsed.host() {
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            Some(url::Host::Domain(name)) => name == "localhost",
            None => false,
        };
        return match parsed.scheme() {
            "file" => Ok(parsed.to_string()),
            "http" | "https" if loopback => Ok(parsed.to_string()),
            _ => Err(TracerError::usage(format!(
                "`{page}`: tracer record loads local pages only (a file, or an http://127.0.0.1:PORT/ URL); serve the page on loopback"
            ))
            .into()),
        };
    }
    file_url(&canonical(Path::new(page), "PAGE")?)
}

fn canonical(path: &Path, what: &str) -> Result<PathBuf> {
    let canonical = path.canonicalize().map_err(|e| {
        TracerError::usage(format!("{what} {} cannot be read ({e})", path.display()))
    })?;
    if !canonical.is_file() {
        return Err(TracerError::usage(format!("{what} {} is not a file", path.display())).into());
    }
    Ok(canonical)
}

fn file_url(path: &Path) -> Result<String> {
    url::Url::from_file_path(path)
        .map(|u| u.to_string())
        .map_err(|()| TracerError::usage(format!("{} cannot be a file URL", path.display())).into())
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// API names from a list file: one per line, blank lines and `#` comments skipped.
fn read_api_file(path: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        TracerError::usage(format!(
            "--api-file {} cannot be read ({e})",
            path.display()
        ))
    })?;
    Ok(text
        .lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect())
}

/// An API path: dot-separated JavaScript identifiers.
fn valid_api(api: &str) -> bool {
    !api.is_empty()
        && api.split('.').all(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
                && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_paths_are_identifiers_joined_by_dots() {
        for good in ["Element", "Element.prototype.focus", "window.open", "$x._y"] {
            assert!(valid_api(good), "{good}");
        }
        for bad in ["", "a..b", "1a", "a.b()", "a b", "a;alert(1)"] {
            assert!(!valid_api(bad), "{bad}");
        }
    }
}
