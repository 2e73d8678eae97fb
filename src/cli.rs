//! The command line: every flag and subcommand `tracer` accepts, as clap types, and nothing else.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// A command-line tracer for JavaScript runtimes.
///
/// `tracer run app.js` runs a Node program under the V8 inspector, records what happened (contexts,
/// scripts, console calls, uncaught exceptions, output, exit), maps every position to your source
/// (source maps included), and explains a failure with an evidence chain.
#[derive(Debug, Parser)]
#[command(
    name = "tracer",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// When to colour the human output on stderr.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,

    /// Print nothing on stderr but errors.
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when stderr is a terminal, `NO_COLOR` is unset or empty and `TERM` is not `dumb`.
    Auto,
    Always,
    Never,
}

impl From<ColorChoice> for crate::output::human::ColorWhen {
    fn from(choice: ColorChoice) -> Self {
        match choice {
            ColorChoice::Auto => Self::Auto,
            ColorChoice::Always => Self::Always,
            ColorChoice::Never => Self::Never,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a Node program, or any command, and trace every Node process it starts.
    Run(RunArgs),
    /// Print a recorded session (summary and events) as JSON.
    Show(SessionArgs),
    /// Print a session's evidence chain as JSON (`null` when the run did not fail).
    Evidence(SessionArgs),
    /// List the recorded sessions, newest first.
    List(ListArgs),
    /// Build the trace-runtime contract from a raw browser trace.
    #[command(subcommand)]
    Contract(ContractCommand),
    /// Run the case's environment entry in audit-only, no-send mode, write the audit, then check.
    Audit(AuditArgs),
    /// Compare the audit with the contract, from files alone; exit 0 matched, 3 not conformant.
    Check(CheckArgs),
    /// Step through a session's captured events, with source (a timeline, not time travel).
    Replay(ReplayArgs),
    /// Run a session's target again, with the same arguments and options: is the failure gone?
    Verify(VerifyArgs),
    /// Write a session as Chrome Trace Event Format (Perfetto), NDJSON events or JSON.
    Export(ExportArgs),
    /// Print the JSON Schema of a file format, generated from the Rust types.
    Schema(SchemaArgs),
    /// Print a shell completion script on stdout.
    Completions(CompletionsArgs),
    /// Print a man page (roff) on stdout, or write every page to a folder.
    Man(ManArgs),
    /// Probe what this build and this Node can do; print it as JSON.
    Capabilities(CapabilitiesArgs),
    /// Record the reference trace of a page or script in headless Chromium.
    Record(RecordArgs),
}

/// Where the session files live: shared by every command that reads or writes them.
#[derive(Debug, Clone, Args)]
pub struct StoreArgs {
    /// The folder holding `sessions/` and `latest`.
    #[arg(long, value_name = "DIR", default_value = ".tracer")]
    pub out: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExitCodeMode {
    /// tracer's own codes: 0 success, 1 the program failed, 124 timeout, ...
    Tracer,
    /// The program's own exit code (128+n when killed by signal n).
    Child,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// What to run: a JavaScript file (as you would give it to `node`), a package folder (its
    /// `main`), or a command (`npm`, `node`, a script; put it after `--`: `tracer run -- npm test`).
    /// Every Node process it starts is traced.
    #[arg(value_name = "TARGET")]
    pub target: PathBuf,

    /// Arguments for the program or the command (everything after TARGET).
    #[arg(
        value_name = "ARGS",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub args: Vec<OsString>,

    /// Write the events to stdout as NDJSON, one object per line; the program's own stdout is
    /// recorded but not passed through.
    #[arg(long)]
    pub ndjson: bool,

    /// Also record `script` events (each user script as it is parsed, with its source-map URL).
    /// This enables the inspector's Debugger domain, which costs about 30 ms of start-up.
    #[arg(long)]
    pub scripts: bool,

    /// Stop the program after this many seconds (exit code 124).
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    pub timeout: Option<f64>,

    /// How long a JavaScript target's Node gets to report its inspector (a command has no limit).
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value_t = 15.0)]
    pub attach_timeout: f64,

    #[command(flatten)]
    pub store: StoreArgs,

    /// How many sessions to keep in the output folder; older ones are removed.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub keep: usize,

    /// How many events to keep in memory and in the session; the rest are counted as dropped.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_events: usize,

    /// The Node executable to use.
    #[arg(long, value_name = "PATH", env = "TRACER_NODE")]
    pub node: Option<PathBuf>,

    /// The folder the target and --cwd must be inside (symlinks followed).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,

    /// The working directory of the program (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Which exit code `tracer` returns.
    #[arg(long, value_enum, default_value_t = ExitCodeMode::Tracer)]
    pub exit_code: ExitCodeMode,

    /// Replace whatever matches this regular expression in stored values by `[REDACTED:custom]`
    /// (repeatable).
    #[arg(long, value_name = "REGEX")]
    pub redact: Vec<String>,

    /// Do not redact the well-known token shapes (bearer tokens, JWTs, cloud keys, private keys).
    #[arg(long)]
    pub no_default_redact: bool,
    /// Print the failure as CI annotations after the run (default: `github` when
    /// `GITHUB_ACTIONS=true`, else `none`). On stdout, or on stderr with --ndjson.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub annotations: Option<Annotations>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Annotations {
    /// GitHub Actions workflow commands: `::error file=…,line=…,col=…::message`.
    Github,
    /// No annotations, even under GitHub Actions.
    None,
}

impl From<Annotations> for Option<crate::output::annotations::Format> {
    fn from(flag: Annotations) -> Self {
        match flag {
            Annotations::Github => Some(crate::output::annotations::Format::Github),
            Annotations::None => None,
        }
    }
}

#[derive(Debug, Args)]
pub struct SessionArgs {
    /// A session id, `latest`, or `last-failed`.
    #[arg(value_name = "ID", default_value = "latest")]
    pub id: String,

    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print the sessions as one JSON array on stdout instead of a table.
    #[arg(long, conflicts_with = "ndjson")]
    pub json: bool,

    /// Print one JSON object per session per line (NDJSON) instead of a table.
    #[arg(long)]
    pub ndjson: bool,

    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Subcommand)]
pub enum ContractCommand {
    /// Write case/notes/trace-runtime-contract.json (and .md with --markdown) from a raw trace.
    Build(ContractBuildArgs),
}

#[derive(Debug, Args)]
pub struct ContractBuildArgs {
    /// The case folder (holds trace/, ruyi-trace/logs/, notes/, result/, tmp/).
    #[arg(long, value_name = "DIR", default_value = "case")]
    pub case_dir: PathBuf,

    /// A tracer-trace/v1 file; give it several times for the shards of one capture. Without it,
    /// the *.ndjson files under CASE/ruyi-trace/logs/ and CASE/trace/ are used if they are one
    /// capture.
    #[arg(long, value_name = "FILE")]
    pub trace: Vec<PathBuf>,

    /// The baseline the trace must have been recorded against (its header's baselineId).
    #[arg(long, value_name = "ID")]
    pub baseline_id: Option<String>,

    /// Also write case/notes/trace-runtime-contract.md.
    #[arg(long)]
    pub markdown: bool,

    /// Threads that read a single trace file, in parts joined in order (default: the number of
    /// cores; 1 reads it in one pass). The contract is the same bytes either way.
    #[arg(long, value_name = "N", value_parser = jobs)]
    pub jobs: Option<std::num::NonZeroUsize>,

    /// Refuse a trace with more distinct items (api, accessType, realm, receiver, phase) than
    /// this: each takes up to about 6 KB of memory while the contract is built.
    #[arg(long, value_name = "N", default_value_t = crate::conformance::build::DEFAULT_MAX_ITEMS)]
    pub max_items: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// A summary on stderr.
    Human,
    /// The diff as JSON on stdout (for CI), and the summary on stderr.
    Json,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The case folder (holds notes/, result/, tmp/).
    #[arg(long, value_name = "DIR", default_value = "case")]
    pub case_dir: PathBuf,

    /// Print the Markdown diff on stdout (it is always written to
    /// case/notes/trace-runtime-diff.md).
    #[arg(long, conflicts_with = "format")]
    pub markdown: bool,

    /// What to print: a human summary, or the diff JSON on stdout.
    #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
    pub format: CheckFormat,
}

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// The case folder (holds notes/, result/, tmp/).
    #[arg(long, value_name = "DIR", default_value = "case")]
    pub case_dir: PathBuf,

    /// The environment entry to audit: a `.js`/`.mjs`/`.cjs` file (run with Node under the
    /// inspector) or a `.py` file (run with python3).
    #[arg(long, value_name = "FILE")]
    pub entry: PathBuf,

    /// Also write the audit as Markdown (case/tmp/node-trace-runtime-audit.md).
    #[arg(long)]
    pub markdown: bool,

    /// What the check prints at the end: a human summary, or the diff JSON on stdout.
    #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
    pub format: CheckFormat,

    /// Stop the entry after this many seconds.
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value_t = 120.0)]
    pub timeout: f64,

    /// The Node executable to use.
    #[arg(long, value_name = "PATH", env = "TRACER_NODE")]
    pub node: Option<PathBuf>,

    /// The folder the entry must be inside (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,

    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub session: SessionArgs,

    /// Show only events of this kind (repeatable).
    #[arg(long, value_enum, value_name = "KIND")]
    pub kind: Vec<EventKind>,

    /// Show only events whose detail, value, message or file matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub grep: Option<String>,
}

/// An event kind, as `--kind` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EventKind {
    Context,
    Script,
    Console,
    Exception,
    Output,
    Test,
    Exit,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub session: SessionArgs,

    /// Stop the re-run after this many seconds (default: the original run's --timeout).
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    pub timeout: Option<f64>,

    /// How many sessions to keep in the output folder; older ones are removed.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub keep: usize,
}

/// The usage line is spelled out: clap's own, in an error about a missing `--format`, shows a
/// given id as `<ID>`, as if it were required.
#[derive(Debug, Args)]
#[command(override_usage = "tracer export [OPTIONS] --format <FORMAT> [ID]")]
pub struct ExportArgs {
    /// A session id, `latest`, or `last-failed`.
    #[arg(value_name = "ID", default_value = "latest")]
    pub id: String,

    /// The output format.
    #[arg(long, value_enum)]
    pub format: ExportFormat,

    /// Write to this file (atomically) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// Chrome Trace Event Format: opens in Perfetto (ui.perfetto.dev).
    ChromeTrace,
    /// The kept events, one JSON object per line.
    Ndjson,
    /// The session as it is (`session.json`).
    Json,
}

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Which file format.
    #[arg(value_enum)]
    pub format: SchemaFormat,
}

/// The file formats `tracer schema` knows; `contract`, `audit` and `diff` are not built yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaFormat {
    /// `session.json`.
    Session,
    /// One event (a line of `events.ndjson`, an element of `session.json`'s `events`).
    Event,
    /// `evidence.json` (the schema allows `null` too).
    Evidence,
    /// case/notes/trace-runtime-contract.json
    Contract,
    /// case/tmp/node-trace-runtime-audit.json
    Audit,
    /// case/notes/trace-runtime-diff.json
    Diff,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (`run`, `contract build`); none: `tracer(1)`.
    #[arg(value_name = "COMMAND", conflicts_with = "dir")]
    pub command: Vec<String>,

    /// Write every page (`tracer.1`, `tracer-run.1`, ...) into this folder instead.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub struct CapabilitiesArgs {
    /// The Node executable to probe.
    #[arg(long, value_name = "PATH", env = "TRACER_NODE")]
    pub node: Option<PathBuf>,

    /// The browser to look for (default: `TRACER_CHROMIUM`, else `chromium`, `chromium-browser`,
    /// `google-chrome` or `google-chrome-stable` on PATH).
    #[arg(long, value_name = "PATH", env = "TRACER_CHROMIUM")]
    pub browser: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The page to record: a local HTML file, or an http://127.0.0.1:PORT/... URL.
    #[arg(
        value_name = "PAGE",
        required_unless_present = "script",
        conflicts_with = "script"
    )]
    pub page: Option<String>,

    /// Record a bare script instead, loaded by a blank page.
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,

    /// The case folder; the trace goes to CASE/ruyi-trace/logs/current.ndjson.
    #[arg(long, value_name = "DIR", default_value = "case")]
    pub case_dir: PathBuf,

    /// The baseline this recording is (written in the trace's header).
    #[arg(long, value_name = "ID")]
    pub baseline_id: String,

    /// The Chromium executable (default: chromium or google-chrome on PATH).
    #[arg(long, value_name = "PATH", env = "TRACER_CHROMIUM")]
    pub browser: Option<PathBuf>,

    /// Also watch this API, beyond everything each realm's global reaches (watched by default): a
    /// data property (`window.name`), a member the walk leaves out (`console`,
    /// `Array.prototype.push`), an interface, a namespace or a member. A name no realm of the page
    /// has is a usage error (exit 2). Repeatable.
    #[arg(long = "api", value_name = "NAME")]
    pub apis: Vec<String>,

    /// Also watch the APIs listed in FILE, one per line (`#` starts a comment).
    #[arg(long, value_name = "FILE")]
    pub api_file: Option<PathBuf>,

    /// Do not watch this API (an interface, a namespace, a member or a global: `Element`,
    /// `CSS`, `Element.prototype.focus`, `window.setTimeout`). Repeatable.
    #[arg(long = "api-exclude", value_name = "NAME")]
    pub api_excludes: Vec<String>,

    /// Watch only the curated list and the `--api` names, not everything each realm's global
    /// reaches (less start-up per realm; see docs/performance.md).
    #[arg(long)]
    pub no_walk: bool,

    /// Stop after this many seconds whatever happens (exit code 124; the trace is kept).
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value_t = 30.0)]
    pub timeout: f64,

    /// After the load event, stop once no access has been recorded for this many seconds (a
    /// `performance.mark("tracer:done")` in the page stops at once).
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value_t = 1.0)]
    pub settle: f64,

    /// Send every record from the page on its own instead of in batches: several times slower,
    /// but a renderer crash then loses nothing the probe recorded (batched, a crash can lose the
    /// records of the crashing task's last 10 ms).
    #[arg(long)]
    pub no_batch: bool,

    /// Stop once this many accesses are written (exit code 124; the trace is complete up to then).
    #[arg(long, value_name = "N", default_value_t = 5_000_000)]
    pub max_accesses: u64,
}

/// The longest wait a `SECONDS` flag takes: a year.
pub const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// The most threads `--jobs` asks for: far more than any machine's cores, and small enough that
/// the parts a file is cut into for them cannot overflow.
pub const MAX_JOBS: usize = 1024;

/// `--jobs`: from 1 to [`MAX_JOBS`], else a usage error that says the range (clap names the flag).
fn jobs(text: &str) -> Result<std::num::NonZeroUsize, String> {
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=MAX_JOBS).contains(n))
        .and_then(std::num::NonZeroUsize::new)
        .ok_or_else(|| {
            format!("`{text}` is out of range: give a number of threads from 1 to {MAX_JOBS}")
        })
}

/// A `SECONDS` flag's value: a finite number of seconds from 0 to a year, else a usage error that
/// says the range (clap names the flag).
fn seconds(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !value.is_finite() || !(0.0..=MAX_SECONDS).contains(&value) {
        return Err(format!(
            "{text} is out of range: give a number of seconds from 0 to {MAX_SECONDS} (a year)"
        ));
    }
    Ok(value)
}
