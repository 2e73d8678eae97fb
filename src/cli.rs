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

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a Node program under the inspector and trace it.
    Run(RunArgs),
    /// Print a recorded session (summary and events) as JSON.
    Show(SessionArgs),
    /// Print a session's evidence chain as JSON (`null` when the run did not fail).
    Evidence(SessionArgs),
    /// List the recorded sessions, newest first.
    List(ListArgs),
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
    /// Print the man page (roff) on stdout.
    Man,
    /// Probe what this build and this Node can do; print it as JSON.
    Capabilities(CapabilitiesArgs),
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
    /// The program to run, as you would give it to `node`.
    #[arg(value_name = "TARGET")]
    pub target: PathBuf,

    /// Arguments for the program (everything after TARGET, or after `--`).
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

    /// Stop the program after this many seconds (exit code 124).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// How long to wait for the inspector to start.
    #[arg(long, value_name = "SECONDS", default_value_t = 15.0)]
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
    /// Print one JSON object per session on stdout instead of a table.
    #[arg(long)]
    pub json: bool,

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
    Exit,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub session: SessionArgs,

    /// Stop the re-run after this many seconds (default: the original run's --timeout).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// How many sessions to keep in the output folder; older ones are removed.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub keep: usize,
}

#[derive(Debug, Args)]
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
    /// Not available yet.
    Contract,
    /// Not available yet.
    Audit,
    /// Not available yet.
    Diff,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
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
