//! The one mapper: turns runtime positions into user positions.
//!
//! This is the only place where
//! - a `file://` URL becomes an absolute path (percent-decoded),
//! - `node:*`, `internal/*`, `eval`, `wasm:`, `data:` and empty URLs are filtered out of stacks,
//!   and so is tracer's own bootloader (never a script event, a frame or a failure's site),
//! - 0-based CDP lines and columns become 1-based,
//! - a generated position is resolved through its script's source map (the generated position is kept
//!   beside the original one), and a position with no map that does not fit the file on disk (a
//!   loader's transformed code) is marked unmapped rather than shown as a line of that file.
//!
//! Stack *text* (`Error.stack`) already carries 1-based positions; it is parsed here too, so that
//! nothing else in the program touches positions.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};

use regex::Regex;
use serde_json::Value;

use crate::inspector::boot::BOOT_FOLDER_PREFIX;
use crate::trace::event::{Frame, Position};
use crate::trace::folders::Folders;
use crate::trace::sourcemaps::{self, LoadedMap};

enum MapEntry {
    Loaded(Box<LoadedMap>),
    None,
    Broken(String),
}

/// The `sourceMapURL`s and lengths the runtime reported for scripts during this tracer process's
/// run, by script, from every process of the tree: a position read later from text about such a
/// script (a test report's `location:` in code tsx compiled in memory) is mapped as the runtime's
/// own positions in it were, by a mapper made after the process that reported them ended.
static REPORTED: LazyLock<Mutex<Reported>> = LazyLock::new(Mutex::default);

#[derive(Default)]
struct Reported {
    source_map_urls: HashMap<String, String>,
    script_lengths: HashMap<String, u64>,
}

fn reported() -> std::sync::MutexGuard<'static, Reported> {
    REPORTED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Maps positions for one run. Remembers each script's `sourceMapURL` and each loaded map.
pub struct Mapper {
    workspace: PathBuf,
    source_map_urls: HashMap<String, String>,
    /// The length (UTF-16 units) of each script as the runtime parsed it, when it said.
    script_lengths: HashMap<String, u64>,
    maps: HashMap<PathBuf, MapEntry>,
    /// Each file's shape on disk (see `fits_on_disk`), read once.
    on_disk: HashMap<PathBuf, Option<DiskText>>,
    /// Whether an original was edited after the script built from it (see `edited_after_build`),
    /// by (script, original).
    edited_after: HashMap<(PathBuf, PathBuf), bool>,
    /// Whether each original a map named is a file on disk, looked at once.
    originals_on_disk: HashMap<PathBuf, bool>,
}

/// What a note about a position in a stale build says (the summary warns on it).
pub const STALE_BUILD: &str = "(a stale build?)";

/// How much later than the script built from it an original must have been written to count as
/// edited since: a copy of a project (`cp -r`, a checkout) writes both within it, in any order.
const BUILD_SLACK: std::time::Duration = std::time::Duration::from_secs(2);

/// What the position check needs of a file on disk: its length and its lines' lengths, in UTF-16
/// units (as V8 counts columns).
struct DiskText {
    length: u64,
    /// With a leading byte-order mark, which CommonJS strips before compiling.
    bom: bool,
    lines: Vec<u32>,
}

/// The largest file read to check a position against.
const MAX_CHECKED_BYTES: u64 = 16 * 1024 * 1024;

/// Whose position is mapped: one in what the runtime ran, or one a program printed about a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ran {
    Runtime,
    Claimed,
}

/// A mapped call stack: user frames only, nearest first, and a note when the nearest frame's map
/// could not be used.
pub struct MappedStack {
    pub frames: Vec<Frame>,
    pub note: Option<String>,
}

impl Mapper {
    pub fn new(workspace: PathBuf) -> Self {
        Mapper {
            workspace,
            source_map_urls: HashMap::new(),
            script_lengths: HashMap::new(),
            maps: HashMap::new(),
            on_disk: HashMap::new(),
            edited_after: HashMap::new(),
            originals_on_disk: HashMap::new(),
        }
    }

    /// Records the `sourceMapURL` the runtime reported for the script at `url`. A map already
    /// looked for without it (a position mapped before the runtime reported its scripts) is looked
    /// for again.
    pub fn register_script(&mut self, url: &str, source_map_url: &str) {
        if source_map_url.is_empty() {
            return;
        }
        let key = script_key(url);
        if self.source_map_urls.get(&key).map(String::as_str) != Some(source_map_url) {
            self.maps.remove(Path::new(&key));
            reported()
                .source_map_urls
                .insert(key.clone(), source_map_url.to_owned());
            self.source_map_urls.insert(key, source_map_url.to_owned());
        }
    }

    /// Whether a position in the script at `url` can be mapped only with what the runtime knows of
    /// it: a file the runtime has not reported (no `Debugger` domain) that Node does not run as it
    /// is (`app.ts`: a loader compiled it in memory, with a source map only the runtime knows).
    pub fn needs_runtime_map(&self, url: &str) -> bool {
        // Asked of every console call's frames until the first such file: JavaScript is told
        // apart by its URL's extension before anything is made of it.
        if node_runs_as_is(Path::new(url)) {
            return false;
        }
        let Some(path) = user_path(url) else {
            return false;
        };
        let key = path.display().to_string();
        !self.script_lengths.contains_key(&key) && !self.source_map_urls.contains_key(&key)
    }

    /// Records the length (UTF-16 units) of the script at `url` as the runtime parsed it.
    pub fn register_script_length(&mut self, url: &str, length: u64) {
        reported().script_lengths.insert(script_key(url), length);
        self.script_lengths.insert(script_key(url), length);
    }

    /// What the runtime reported of the script filed under `key` that this mapper was not told
    /// itself (see [`REPORTED`]): taken in the first time the script is looked up.
    fn adopt_reported(&mut self, key: &str) {
        if self.source_map_urls.contains_key(key) || self.script_lengths.contains_key(key) {
            return;
        }
        let reported = reported();
        if let Some(url) = reported.source_map_urls.get(key) {
            self.source_map_urls.insert(key.to_owned(), url.clone());
        }
        if let Some(length) = reported.script_lengths.get(key) {
            self.script_lengths.insert(key.to_owned(), *length);
        }
    }

    /// Maps a position a program printed (1-based, see `printed_position`: a compiler's, a test
    /// runner's claim about a file) like a runtime position: through the file's source map when it
    /// has one, checked against the file on disk. A `.ts` file's line is the file's own here.
    pub fn printed(&mut self, frame: &Frame) -> (Frame, Option<String>) {
        self.printed_by(frame, Ran::Claimed)
    }

    /// Maps a position of the runtime's own stack text (an uncaught error's `stack`): a position
    /// in what ran, as a CDP frame's is.
    pub fn stack_text(&mut self, frame: &Frame) -> (Frame, Option<String>) {
        self.printed_by(frame, Ran::Runtime)
    }

    fn printed_by(&mut self, frame: &Frame, ran: Ran) -> (Frame, Option<String>) {
        frame
            .line
            .checked_sub(1)
            .zip(frame.column.checked_sub(1))
            .and_then(|(line0, column0)| {
                self.map(&frame.function_name, &frame.file, line0, column0, ran)
            })
            .unwrap_or_else(|| (frame.clone(), None))
    }

    /// Marks a frame read from stack text unmapped when its position does not fit its file on disk
    /// (Node maps stack text through the source maps it knows; without one, a loader's transformed
    /// positions remain).
    pub fn check_on_disk(&mut self, frame: &mut Frame) {
        let (Some(line0), Some(column0)) = (frame.line.checked_sub(1), frame.column.checked_sub(1))
        else {
            return;
        };
        if !fits_on_disk(
            &mut self.on_disk,
            None,
            Path::new(&frame.file),
            line0,
            column0,
        ) {
            frame.unmapped = true;
        }
    }

    /// Maps one CDP call frame (0-based line and column). `None` for frames that are not user code.
    pub fn cdp_frame(&mut self, frame: &Value) -> Option<(Frame, Option<String>)> {
        let url = frame.get("url").and_then(Value::as_str)?;
        let line0 = frame.get("lineNumber").and_then(Value::as_u64)?;
        let column0 = frame
            .get("columnNumber")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let name = frame
            .get("functionName")
            .and_then(Value::as_str)
            .unwrap_or("");
        self.position(name, url, to_u32(line0), to_u32(column0))
    }

    /// Maps a CDP `stackTrace` (`{callFrames: [...]}`): user frames only, nearest first.
    pub fn cdp_stack(&mut self, stack_trace: Option<&Value>) -> MappedStack {
        let mut frames = Vec::new();
        let mut note = None;
        let call_frames = stack_trace
            .and_then(|s| s.get("callFrames"))
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for frame in call_frames {
            if let Some((frame, frame_note)) = self.cdp_frame(frame) {
                // The note says how the event's own position (the nearest frame) was mapped; a
                // deeper frame that could not be says so itself (`unmapped`).
                if frames.is_empty() {
                    note = frame_note;
                }
                frames.push(frame);
            }
        }
        MappedStack { frames, note }
    }

    /// Maps a 1-based position (V8's CallSite API, the bootloader's console capture; printed stack
    /// text) like a CDP one. `None` for a position in no user file, or with a line or column 0.
    pub fn call_site(
        &mut self,
        function_name: &str,
        url: &str,
        line1: u32,
        column1: u32,
    ) -> Option<(Frame, Option<String>)> {
        self.position(
            function_name,
            url,
            line1.checked_sub(1)?,
            column1.checked_sub(1)?,
        )
    }

    /// Maps a 0-based position in the script at `url`, as the runtime reported it.
    pub fn position(
        &mut self,
        function_name: &str,
        url: &str,
        line0: u32,
        column0: u32,
    ) -> Option<(Frame, Option<String>)> {
        self.map(function_name, url, line0, column0, Ran::Runtime)
    }

    fn map(
        &mut self,
        function_name: &str,
        url: &str,
        line0: u32,
        column0: u32,
        ran: Ran,
    ) -> Option<(Frame, Option<String>)> {
        let path = user_path(url)?;
        // Saturating: a position at u32::MAX (a runtime can report anything) stays the last one.
        let generated = Position {
            file: path.display().to_string(),
            line: line0.saturating_add(1),
            column: column0.saturating_add(1),
        };
        // The scripts' facts are filed under the path (`script_key`), which `generated` names. A
        // position a program printed that fits the file on disk is the file's own (vitest prints
        // positions it mapped itself); one that does not is in the code that ran (TAP's
        // `location:` in tsx's), which the runtime's map, if one was reported, explains.
        if !self.maps.contains_key(&path)
            && (ran == Ran::Runtime
                || !fits_on_disk(&mut self.on_disk, None, &path, line0, column0))
        {
            self.adopt_reported(&generated.file);
        }
        let source_map_url = self.source_map_urls.get(&generated.file).cloned();
        let entry = self.maps.entry(path.clone()).or_insert_with(|| {
            match sourcemaps::load(&path, source_map_url.as_deref()) {
                Ok(Some(map)) => MapEntry::Loaded(Box::new(map)),
                Ok(None) => MapEntry::None,
                Err(note) => MapEntry::Broken(note),
            }
        });
        let function_name = function_name.to_owned();
        match entry {
            MapEntry::Loaded(map) => match map.lookup(line0, column0) {
                // The original was edited after the script that ran was built from it: the map's
                // line may be another one of the file now, and the script on disk is what ran.
                Some(original)
                    if edited_after_build(&mut self.edited_after, &path, &original.path) =>
                {
                    let note = format!(
                        "{} was changed after {} was built from it {STALE_BUILD}: the source \
                         map's line may be another one of it now; showing the position in the \
                         built file",
                        original.path.display(),
                        path.display()
                    );
                    Some((plain(function_name, generated), Some(note)))
                }
                // A map can name a source that is not here (a package that ships its build
                // without its sources, a bundler's own name for a module): the built file is.
                Some(original) if !is_file(&mut self.originals_on_disk, &original.path) => {
                    let note = format!(
                        "the source map names {}:{}:{} for this position, which is not a file \
                         here; showing the position in the built file",
                        original.path.display(),
                        original.line0.saturating_add(1),
                        original.column0.saturating_add(1)
                    );
                    Some((plain(function_name, generated), Some(note)))
                }
                Some(original) => Some((
                    Frame {
                        function_name,
                        file: original.path.display().to_string(),
                        line: original.line0.saturating_add(1),
                        column: original.column0.saturating_add(1),
                        generated: Some(generated),
                        unmapped: false,
                    },
                    None,
                )),
                // A position the map does not cover is a line of the file on disk only when the
                // script that ran is that file (a bundle on disk): a loader's transform in memory
                // (tsx's, named by the original's path) is not.
                None if !fits_on_disk(
                    &mut self.on_disk,
                    self.script_lengths.get(&generated.file).copied(),
                    &path,
                    line0,
                    column0,
                ) =>
                {
                    Some(unmapped(
                        function_name,
                        generated,
                        "has no source-map mapping and does not fit the file on disk (the code that ran was transformed)",
                    ))
                }
                None => Some((
                    plain(function_name, generated),
                    Some(
                        "no source-map mapping for this position; showing the generated one".into(),
                    ),
                )),
            },
            // Without the script's length (no Debugger domain), a file Node does not run as it
            // is ran as some transform of it, whose positions fit the file only by chance.
            MapEntry::None
                if !fits_on_disk(
                    &mut self.on_disk,
                    self.script_lengths.get(&generated.file).copied(),
                    &path,
                    line0,
                    column0,
                ) || (ran == Ran::Runtime
                    && !node_runs_as_is(&path)
                    && !self.script_lengths.contains_key(&generated.file)) =>
            {
                Some(unmapped(
                    function_name,
                    generated,
                    "does not fit the file on disk, and no source map for it was known (a loader such as tsx transformed the code?)",
                ))
            }
            MapEntry::None => Some((plain(function_name, generated), None)),
            MapEntry::Broken(note) => Some((
                plain(function_name, generated),
                Some(format!("{note}; showing generated positions")),
            )),
        }
    }

    /// Whether `file` is the user's own code: inside the workspace and not under `node_modules`.
    pub fn is_own_code(&self, file: &str) -> bool {
        let path = Path::new(file);
        path.starts_with(&self.workspace)
            && !path.components().any(|c| c.as_os_str() == "node_modules")
    }
}

/// A position in code that is not the file on disk, marked so, and the note that says `why`.
fn unmapped(function_name: String, generated: Position, why: &str) -> (Frame, Option<String>) {
    let note = format!(
        "the runtime's position {}:{}:{} {why}: the position is unmapped",
        generated.file, generated.line, generated.column
    );
    let mut frame = plain(function_name, generated);
    frame.unmapped = true;
    (frame, Some(note))
}

/// Whether Node runs the file at `path` as it is: JavaScript (`.js`, `.mjs`, `.cjs`, or no
/// extension: a package's `bin` shim), never `app.ts` or `app.jsx`, which something transforms
/// first (a loader; Node 22's type stripping keeps every position, and is told apart by the
/// script's length).
pub fn node_runs_as_is(path: &Path) -> bool {
    path.extension()
        .and_then(std::ffi::OsStr::to_str)
        .is_none_or(|extension| matches!(extension, "js" | "mjs" | "cjs" | "json" | "node"))
}

/// Whether a 0-based position of a script can be a position in `path` as it is on
/// disk: the script the runtime parsed has the file's length (when the runtime said), the
/// line exists and the column is within it. A loader's transformed code without a source map
/// fails this, so its positions are never shown as lines of the original file.
fn fits_on_disk(
    on_disk: &mut HashMap<PathBuf, Option<DiskText>>,
    script_length: Option<u64>,
    path: &Path,
    line0: u32,
    column0: u32,
) -> bool {
    let text = on_disk
        .entry(path.to_owned())
        .or_insert_with(|| {
            let bytes = crate::files::read_capped(path, MAX_CHECKED_BYTES).ok()?;
            let text = String::from_utf8_lossy(&bytes);
            Some(DiskText {
                length: text.encode_utf16().count() as u64,
                bom: text.starts_with('\u{feff}'),
                lines: text
                    .split('\n')
                    .map(|l| u32::try_from(l.encode_utf16().count()).unwrap_or(u32::MAX))
                    .collect(),
            })
        })
        .as_ref();
    // An unreadable file cannot be checked: its positions are not quoted from it either.
    let Some(text) = text else {
        return true;
    };
    if let Some(length) = script_length
        && length != text.length
        && !(text.bom && length + 1 == text.length)
    {
        return false;
    }
    text.lines
        .get(line0 as usize)
        .is_some_and(|&len| column0 <= len)
}

fn plain(function_name: String, position: Position) -> Frame {
    Frame {
        function_name,
        file: position.file,
        line: position.line,
        column: position.column,
        generated: None,
        unmapped: false,
    }
}

/// Whether the `original` a map names was written more than `BUILD_SLACK` after the `script` on
/// disk that was built from it (`tsc` writes its output after reading its sources; an edit since
/// moves the lines the map points at). A script that is its own original (a loader's transform of
/// the file in memory), or either file not on disk, is not. Read once per pair.
fn edited_after_build(
    cache: &mut HashMap<(PathBuf, PathBuf), bool>,
    script: &Path,
    original: &Path,
) -> bool {
    if script == original {
        return false;
    }
    *cache
        .entry((script.to_owned(), original.to_owned()))
        .or_insert_with(|| {
            let written = |path: &Path| path.metadata().and_then(|m| m.modified()).ok();
            match (written(script), written(original)) {
                (Some(built), Some(edited)) => edited
                    .duration_since(built)
                    .is_ok_and(|later| later > BUILD_SLACK),
                _ => false,
            }
        })
}

/// Whether `path` is a file, as `cache` remembers it.
fn is_file(cache: &mut HashMap<PathBuf, bool>, path: &Path) -> bool {
    *cache
        .entry(path.to_owned())
        .or_insert_with(|| path.is_file())
}

/// A 0-based CDP line or column as the mapper takes it: one beyond `u32` becomes the largest
/// position (never truncated to a small one).
pub fn to_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX - 1)
}

/// The absolute path a script URL names, or `None` when it is not a user file (`node:*`,
/// `internal/*`, `eval`, `wasm:`, `data:`, empty, anything that is not a file).
/// What the scripts' facts are filed under: a user file's path (a CDP `file://` URL and the plain
/// path V8's CallSite gives for the same CommonJS module are one script), else the URL.
fn script_key(url: &str) -> String {
    user_path(url).map_or_else(|| url.to_owned(), |path| path.display().to_string())
}

pub fn user_path(url: &str) -> Option<PathBuf> {
    let path = if let Some(rest) = url.strip_prefix("file://") {
        PathBuf::from(crate::files::percent_decode(rest))
    } else if url.starts_with('/') {
        // CommonJS `exceptionDetails.url` and some stack texts carry plain absolute paths.
        PathBuf::from(url)
    } else {
        return None;
    };
    (path.is_absolute() && !is_tracer_file(&path)).then_some(path)
}

/// Whether `path` is one of tracer's own files (its bootloader): never the user's code, so never
/// a `script` event, a frame of a stack or the site of a failure.
fn is_tracer_file(path: &Path) -> bool {
    // `…/tracer-boot-XXXX/node_modules/boot.js`, or a file right in that folder.
    path.ancestors().skip(1).take(2).any(|folder| {
        folder
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with(BOOT_FOLDER_PREFIX))
    })
}

/// Parses the frames of an `Error.stack` text (`    at fn (/path/file.js:3:9)`; the last frame of
/// an error Node prints with its own properties ends in ` {`): user frames only, nearest first. These positions are already 1-based, and the generated
/// ones (Node is run without `--enable-source-maps`): map them with `Mapper::printed`, or use
/// `mapped_stack_text_frames`.
pub fn stack_text_frames(text: &str) -> Vec<Frame> {
    frames_of_text(text, None)
}

/// `stack_text_frames`, each position mapped through the source map of its file when it has one
/// (Node is not asked to map stack text: see `Capture`), for reading a stack the program printed
/// on stderr. `workspace` is the run's.
pub fn mapped_stack_text_frames(text: &str, workspace: &Path) -> Vec<Frame> {
    let mut mapper = Mapper::new(workspace.to_owned());
    stack_text_frames(text)
        .iter()
        .map(|frame| mapper.printed(frame).0)
        .collect()
}

/// The frames of stack text a program printed (a test runner's report): as `stack_text_frames`,
/// but a relative path (`test/math.test.js:4:12`, as mocha prints it) is resolved against the
/// printing process's folder (see [`Folders`]), and only files that exist count.
pub fn printed_stack_frames(text: &str, folders: &Folders) -> Vec<Frame> {
    frames_of_text(text, Some(folders))
}

fn frames_of_text(text: &str, folders: Option<&Folders>) -> Vec<Frame> {
    static AT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"^\s*at (?:(?P<name>.*?) \()?(?P<loc>[^()]*?):(?P<line>\d+):(?P<col>\d+)\)?(?: \{)?\s*$",
        )
        .expect("valid regex")
    });
    text.lines()
        .filter_map(|line| {
            let caps = AT.captures(line)?;
            let loc = caps.name("loc")?.as_str();
            let loc = loc.strip_prefix("async ").unwrap_or(loc);
            let path = match (user_path(loc), folders) {
                (Some(path), None) => path,
                (Some(path), Some(_)) => Some(path).filter(|p| p.is_file())?,
                (None, Some(folders)) if !loc.contains(':') && !loc.is_empty() => {
                    folders.file(Path::new(loc))?
                }
                (None, _) => return None,
            };
            Some(Frame {
                function_name: caps.name("name").map_or("", |m| m.as_str()).to_owned(),
                file: path.display().to_string(),
                line: caps["line"].parse().ok()?,
                column: caps["col"].parse().ok()?,
                generated: None,
                unmapped: false,
            })
        })
        .collect()
}

/// A position a program printed about a file, as compilers, linters and test runners print them:
/// `src/index.ts(1,7): error TS2322: …` (tsc), `src/a.ts:1:7 - error …` (tsc --pretty),
/// `file:line:col: message`: 1-based as printed; esbuild's `    src/x.ts:1:6:` and webpack's
/// `ERROR in ./src/x.js 1:6-9`, whose columns are 0-based, made 1-based. A relative path is
/// resolved as [`Folders`] says; only a file that exists counts, so a URL or a time is never taken
/// for one.
pub fn printed_position(line: &str, folders: &Folders) -> Option<Frame> {
    static PAREN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^\s*(?P<file>[^\s(][^()]*?)\((?P<line>\d+),(?P<col>\d+)\)")
            .expect("valid regex")
    });
    static COLON: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^\s*(?P<file>[^\s:()][^:()]*?):(?P<line>\d+):(?P<col>\d+)(?:[:\s]|$)")
            .expect("valid regex")
    });
    // webpack's `ERROR in ./src/main.js 5:0-26`: a 1-based line and a 0-based column range.
    static WEBPACK: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"^\s*(?:ERROR|WARNING) in (?P<file>\S+) (?P<line>\d+):(?P<col>\d+)(?:-\d+)?\s*$",
        )
        .expect("valid regex")
    });
    // esbuild's (and so vite's) location line under its `✘ [ERROR] …`: `    src/x.ts:1:7:`, alone on
    // an indented line, with a 0-based column (esbuild's `location.column`).
    static ESBUILD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^\s+(?P<file>[^\s:()][^:()]*?):(?P<line>\d+):(?P<col>\d+):\s*$")
            .expect("valid regex")
    });
    let plain = crate::trace::values::strip_ansi(line);
    if let Some(caps) = WEBPACK
        .captures(&plain)
        .or_else(|| ESBUILD.captures(&plain))
    {
        let path = folders.file(Path::new(&caps["file"]))?;
        return Some(Frame {
            function_name: String::new(),
            file: path.display().to_string(),
            line: caps["line"].parse().ok().filter(|&n: &u32| n > 0)?,
            column: caps["col"].parse::<u32>().ok()?.saturating_add(1),
            generated: None,
            unmapped: false,
        });
    }
    let caps = PAREN.captures(&plain).or_else(|| COLON.captures(&plain))?;
    let file = caps["file"].trim();
    let file = file.strip_prefix("file://").unwrap_or(file);
    let path = folders.file(Path::new(&crate::files::percent_decode(file)))?;
    Some(Frame {
        function_name: String::new(),
        file: path.display().to_string(),
        line: caps["line"].parse().ok().filter(|&n: &u32| n > 0)?,
        column: caps["col"].parse().ok()?,
        generated: None,
        unmapped: false,
    })
}

/// A printed line that is nothing but the path of an existing file (eslint's "stylish" report puts
/// the file on a line of its own, its problems under it).
pub fn printed_file_heading(line: &str, folders: &Folders) -> Option<String> {
    let text = line.trim();
    if text.is_empty() || text.contains(char::is_whitespace) && !text.starts_with('/') {
        return None;
    }
    Some(folders.file(Path::new(text))?.display().to_string())
}

/// `  1:7  error  'x' is assigned a value but never used` under a file heading: that file's
/// position (1-based as printed).
pub fn printed_line_column(line: &str, file: &str) -> Option<Frame> {
    static LINE_COL: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s+(?P<line>\d+):(?P<col>\d+)\s+\S").expect("valid regex"));
    let caps = LINE_COL.captures(line)?;
    Some(Frame {
        function_name: String::new(),
        file: file.to_owned(),
        line: caps["line"].parse().ok().filter(|&n: &u32| n > 0)?,
        column: caps["col"].parse().ok()?,
        generated: None,
        unmapped: false,
    })
}

/// The position Node puts in front of an error's stack when it decorates it (a CommonJS
/// `SyntaxError`: `/path/app.js:2`, the source line, a caret under the column, a blank line), and
/// the text after that block. Already 1-based; the column is the caret's (characters).
pub fn arrow_frame(text: &str) -> Option<(Frame, &str)> {
    static ARROW: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\A(?P<loc>[^\n]+):(?P<line>\d+)\n[^\n]*\n(?P<pad>[ \t]*)\^+[^\n]*\n\n?")
            .expect("valid regex")
    });
    let caps = ARROW.captures(text)?;
    let path = user_path(caps.name("loc")?.as_str())?;
    let frame = Frame {
        function_name: String::new(),
        file: path.display().to_string(),
        line: caps["line"].parse().ok()?,
        column: u32::try_from(caps["pad"].chars().count() + 1).ok()?,
        generated: None,
        unmapped: false,
    };
    Some((frame, &text[caps.get(0)?.end()..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn filters_everything_that_is_not_a_user_file() {
        for url in [
            "node:internal/main",
            "internal/modules/cjs/loader.js",
            "",
            "eval",
            "wasm://x",
            "data:text/javascript,1",
        ] {
            assert_eq!(user_path(url), None, "{url}");
        }
        assert_eq!(
            user_path("file:///tmp/a%20b/%C3%A9.js"),
            Some(PathBuf::from("/tmp/a b/é.js"))
        );
        assert_eq!(user_path("/tmp/app.js"), Some(PathBuf::from("/tmp/app.js")));
        // tracer's own bootloader is never the user's file.
        assert_eq!(user_path("/dev/shm/tracer-boot-Ab12/boot.js"), None);
        assert_eq!(
            user_path("/dev/shm/tracer-boot-Ab12/node_modules/boot.js"),
            None
        );
        assert_eq!(user_path("file:///tmp/tracer-boot-Ab12/boot.js"), None);
    }

    #[test]
    fn cdp_positions_become_one_based() {
        let mut mapper = Mapper::new(PathBuf::from("/nowhere"));
        let (frame, note) = mapper
            .cdp_frame(&json!({"functionName":"f","url":"file:///nowhere/app.js","lineNumber":0,"columnNumber":4}))
            .unwrap();
        assert_eq!((frame.line, frame.column), (1, 5));
        assert_eq!(frame.file, "/nowhere/app.js");
        assert!(note.is_none() && frame.generated.is_none());
        assert!(
            mapper
                .cdp_frame(&json!({"url":"node:internal/x","lineNumber":0,"columnNumber":0}))
                .is_none()
        );
    }

    /// A loader's transform in memory (its map inline, the script longer than the file): a frame
    /// the map does not cover is no line of the file on disk, and the stack's note is the nearest
    /// frame's alone.
    #[test]
    fn a_frame_a_loaded_map_does_not_cover_in_transformed_code_is_unmapped() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("app.ts");
        std::fs::write(
            &file,
            "run();\nfunction run() {\n  throw new Error('x');\n}\n",
        )
        .unwrap();
        let url = format!("file://{}", file.display());
        // {"version":3,"sources":["app.ts"],"names":[],"mappings":"AAAA"}: line 1 alone.
        let inline = "data:application/json;base64,eyJ2ZXJzaW9uIjozLCJzb3VyY2VzIjpbImFwcC50cyJdLCJuYW1lcyI6W10sIm1hcHBpbmdzIjoiQUFBQSJ9";
        let mut mapper = Mapper::new(dir.path().to_owned());
        mapper.register_script(&url, inline);
        mapper.register_script_length(&url, 4000);
        let stack = json!({"callFrames": [
            {"functionName": "run", "url": url, "lineNumber": 0, "columnNumber": 0},
            {"functionName": "", "url": url, "lineNumber": 2, "columnNumber": 2},
        ]});
        let mapped = mapper.cdp_stack(Some(&stack));
        assert_eq!(mapped.note, None);
        let [near, far] = &mapped.frames[..] else {
            panic!("{:?}", mapped.frames)
        };
        assert!(!near.unmapped && near.generated.is_some(), "{near:?}");
        assert!(far.unmapped, "{far:?}");
        // The same frame of a bundle on disk (the script is the file) is a line of it.
        let mut mapper = Mapper::new(dir.path().to_owned());
        mapper.register_script(&url, inline);
        let (frame, note) = mapper.position("", &url, 2, 2).unwrap();
        assert!(!frame.unmapped && note.is_some_and(|n| n.contains("showing the generated one")));
    }

    #[test]
    fn parses_stack_text_keeping_one_based_positions() {
        let stack = "Error: boom\n    at work (/w/app.js:3:9)\n    at node:internal/x:1:1\n    at /w/b c.js:10:2\n    at async Promise.all (index 0)\n    at Object.<anonymous> (/w/top.js:6:8) {";
        let frames = stack_text_frames(stack);
        assert_eq!(frames.len(), 3);
        assert_eq!((frames[2].file.as_str(), frames[2].line), ("/w/top.js", 6));
        assert_eq!(
            (
                frames[0].function_name.as_str(),
                frames[0].line,
                frames[0].column
            ),
            ("work", 3, 9)
        );
        assert_eq!(frames[1].file, "/w/b c.js");
    }

    #[test]
    fn reads_the_position_node_decorates_a_syntax_error_with() {
        let text = "/w/syntax.js:2\nconst a = 2;\n      ^\n\nSyntaxError: Identifier 'a' has already been declared\n    at wrapSafe (node:internal/modules/cjs/loader:1464:18)";
        let (frame, rest) = arrow_frame(text).unwrap();
        assert_eq!(
            (frame.file.as_str(), frame.line, frame.column),
            ("/w/syntax.js", 2, 7)
        );
        assert!(rest.starts_with("SyntaxError: Identifier"));
        assert!(arrow_frame("Error: boom\n    at x (/w/a.js:1:1)").is_none());
    }

    #[test]
    fn reads_positions_programs_print_about_files() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(cwd.join("src")).unwrap();
        std::fs::write(cwd.join("src/index.ts"), "const n: number = 'x';\n").unwrap();
        let file = cwd.join("src/index.ts").display().to_string();
        for line in [
            "src/index.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.",
            "src/index.ts:1:7 - error TS2322: Type 'string' is not assignable",
            "\x1b[96msrc/index.ts\x1b[0m:\x1b[93m1\x1b[0m:\x1b[93m7\x1b[0m - error",
            // esbuild's location line: a 0-based column.
            "    src/./index.ts:1:6:",
            &format!("{file}:1:7: error: no"),
        ] {
            let frame = printed_position(line, &Folders::of_run(&cwd))
                .unwrap_or_else(|| panic!("{line:?}"));
            assert_eq!(
                (frame.file.as_str(), frame.line, frame.column),
                (file.as_str(), 1, 7),
                "{line:?}"
            );
        }
        for line in [
            "http://localhost:8080:1 up",
            "at 10:20:30 done",
            "missing.ts(1,2): error",
        ] {
            assert!(
                printed_position(line, &Folders::of_run(&cwd)).is_none(),
                "{line:?}"
            );
        }
    }

    #[test]
    fn own_code_excludes_node_modules_and_outside_paths() {
        let mapper = Mapper::new(PathBuf::from("/w"));
        assert!(mapper.is_own_code("/w/src/app.js"));
        assert!(!mapper.is_own_code("/w/node_modules/lib/index.js"));
        assert!(!mapper.is_own_code("/elsewhere/x.js"));
    }
}
