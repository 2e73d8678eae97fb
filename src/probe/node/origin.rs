//! Which code is the target's: a script's origin by its URL (the environment's own folder and
//! modules, the target's names from the contract), and a record's by its nearest frame.

use super::*;

/// Which code is the target's and which the environment's.
///
/// - The environment's code: Node's own (`node:`), every file under a `node_modules` folder, and
///   every file under the environment's folder (`case/result/`) whose file name is not one of the
///   target's script names. These are files Node loads; a script the environment fetched for a
///   page (an `http:` or `https:` URL) is never the environment's, wherever its server keeps it
///   (`http://127.0.0.1:8765/node_modules/clientjs/dist/client.min.js` is the page's library).
/// - The target's script names: the file names (last path segment) of the script URLs in the
///   contract's stack samples (`app.js` for `https://a.test/js/app.js?v=2`).
/// - In a `vm` context (a window), a script that is not the environment's is the target's once the
///   realm holds a host environment ([`READY`]): a jsdom page script is named by the document's
///   URL, a shim may run its own setup code in the context first (under any name, or none).
///   In the main context only a script with one of the target's names is.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    pub environment_dirs: Vec<PathBuf>,
    pub target_names: HashSet<String>,
}

/// What a script or a frame is, by its URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Environment,
    /// No name: eval'd code, `vm` code run without a file name.
    Anonymous,
    /// A script of the target's, named by the contract.
    Named,
    /// Anything else.
    Other,
}

impl Rules {
    pub fn origin(&self, url: &str) -> Origin {
        if url.is_empty() || url.starts_with("evalmachine.") || url.starts_with('[') {
            return Origin::Anonymous;
        }
        // The tool's own code (a probe reading its window) is never the target's.
        if url.starts_with("node:") || url.starts_with(crate::probe::OWN_URL) {
            return Origin::Environment;
        }
        let path = url_path(url);
        let name = file_name(&path);
        let named = self.target_names.contains(name);
        // A page script the environment fetched (`http://host/node_modules/lib.js`) is the page's
        // wherever its server keeps it: the folder rules are about files Node loads itself.
        if url.starts_with("http://") || url.starts_with("https://") {
            return if named { Origin::Named } else { Origin::Other };
        }
        if path.split('/').any(|part| part == "node_modules") {
            return Origin::Environment;
        }
        if named {
            return Origin::Named;
        }
        let local = Path::new(&path);
        if self
            .environment_dirs
            .iter()
            .any(|dir| local.starts_with(dir))
        {
            return Origin::Environment;
        }
        Origin::Other
    }

    /// A URL pattern (a JavaScript regular expression, for `Debugger.setBreakpointByUrl`) of the
    /// scripts that may be the target's: any with a URL but Node's own, those under a
    /// `node_modules` folder (unless fetched over HTTP) and those under the environment's folders
    /// ([`Rules::origin`]'s `Environment`, less its named scripts, which have breakpoints of their
    /// own). A breakpoint by URL is resolved in every script it matches, the hundreds of modules
    /// already loaded included: those are left out.
    pub fn maybe_target_url_regex(&self) -> String {
        let mut pattern = String::from(r"^(?!node:)(?!(?!https?:).*[/\\]node_modules[/\\])");
        for dir in &self.environment_dirs {
            let dir = regex::escape(&dir.to_string_lossy());
            pattern.push_str(&format!(r"(?!(file://)?{dir}([/\\]|$))"));
        }
        pattern.push('.');
        pattern
    }

    /// Whether code at `url` is the target's (in the main context only its named scripts are).
    fn is_target(&self, url: &str, main_context: bool) -> bool {
        match self.origin(url) {
            Origin::Environment => false,
            Origin::Named => true,
            Origin::Anonymous | Origin::Other => !main_context,
        }
    }

    /// Whether a frame is an environment's `[PutForwards]` setter (see [`PUT_FORWARDS_SETTERS`]).
    fn put_forwards(&self, (url, function): &(String, String)) -> bool {
        PUT_FORWARDS_SETTERS.contains(&function.as_str()) && self.origin(url) == Origin::Environment
    }

    /// Whether a record belongs in the trace: its nearest frame is the target's; or it was made
    /// for the target by a `Proxy` the environment handed it — the nearest frame a trap of the
    /// environment's (`get`, `has`, ...), the next one the target's, and no other recorded call
    /// running (jsdom's `navigator.plugins` is such a Proxy) — where the trap forwards the
    /// target's access: a read or a write, or any access from an `apply` or `construct` trap. A
    /// call or a construction a `get` or `set` trap makes is the environment's own work
    /// (happy-dom's `dataset` reads `li.dataset.id` with `getAttribute`, where the browser's
    /// `DOMStringMap` calls nothing the page could see). Anything else the environment's code does
    /// is its own: inside a recorded call (jsdom's `XMLHttpRequest` reading
    /// `navigator.userAgent`), or inside a call of the target's to an API the probe does not
    /// watch (happy-dom's `setAttribute` making an attribute node).
    pub(super) fn keeps(
        &self,
        stack: Option<&str>,
        access_type: &str,
        nested: bool,
        main_context: bool,
    ) -> bool {
        let frames = stack.map(frames_of).unwrap_or_default();
        let Some((url, function)) = frames.first() else {
            // No frame to go by (a call from the event loop's own turn): kept.
            return true;
        };
        if self.is_target(url, main_context) {
            return true;
        }
        let read_or_write = matches!(access_type, "get" | "set");
        if read_or_write && self.put_forwards(&frames[0]) {
            return frames
                .get(1)
                .is_some_and(|(next, _)| self.is_target(next, main_context));
        }
        // The trap, or a helper of the environment's that a `get` or `set` trap forwards a read or
        // a write through, of its own kind (jsdom's form's `set` trap writes with
        // `utils.ordinarySetWithOwnDescriptor`: the page's `form.id = …` was once jsdom's own).
        let trap_at = if PROXY_TRAPS.contains(&function.as_str()) {
            0
        } else if read_or_write
            && frames.get(1).is_some_and(|(second, trap)| {
                // The trap of the same operation: a read forwarded by a `get` trap, a write by a
                // `set` one. A descriptor's setter named `set` (jsdom's `cssstyle` defines its
                // properties so) whose helper reads `length` is the environment's own work.
                trap == access_type && self.origin(second) == Origin::Environment
            })
        {
            1
        } else {
            return false;
        };
        // Through a trap, the next frame decides: a script of the target's made the access even
        // inside a recorded call (the page's own scripts run inside the environment's
        // `appendChild`, its listeners inside `dispatchEvent`); nameless code only outside one.
        let forwarded = read_or_write || FORWARDING_TRAPS.contains(&frames[trap_at].1.as_str());
        // A `[PutForwards]` setter between (happy-dom's `style` is a `Proxy` whose `set` trap
        // writes `cssText`) forwards too.
        let mut next_at = trap_at + 1;
        if read_or_write && frames.get(next_at).is_some_and(|f| self.put_forwards(f)) {
            next_at += 1;
        }
        forwarded
            && frames.get(next_at).is_some_and(|(next, _)| {
                self.is_target(next, main_context)
                    && (!nested || self.origin(next) != Origin::Anonymous)
            })
    }
}

/// The path part of a script URL (`file:///a/b.js` -> `/a/b.js`, `https://h/x/app.js?v=1` ->
/// `/x/app.js`), percent-decoded; a plain path as it is.
pub(super) fn url_path(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(parsed) if parsed.scheme() == "file" => parsed
            .to_file_path()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|()| parsed.path().to_owned()),
        Ok(parsed) if parsed.has_host() || parsed.scheme() == "data" => {
            percent_encoding::percent_decode_str(parsed.path())
                .decode_utf8_lossy()
                .into_owned()
        }
        _ => url.to_owned(),
    }
}

pub(super) fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The target's script names from the contract's stack samples.
pub fn target_names(urls: impl IntoIterator<Item = String>) -> HashSet<String> {
    urls.into_iter()
        .map(|url| file_name(&url_path(&url)).to_owned())
        .filter(|name| !name.is_empty())
        .collect()
}

/// The names of a `Proxy` handler's traps.
pub(super) const PROXY_TRAPS: &[&str] = &[
    "get",
    "set",
    "has",
    "ownKeys",
    "getOwnPropertyDescriptor",
    "defineProperty",
    "deleteProperty",
    "apply",
    "construct",
    "getPrototypeOf",
];

/// The setters of Web IDL's `[PutForwards]` attributes, as V8 names an accessor's setter: `el.style
/// = text` is a read of `style` and a write of its `cssText` (`classList`, `relList`, `sizes` and
/// `part` forward to `value`, `location` to `href`). A browser makes the two from native code, so
/// its recorder gives them the page's frame; an environment makes them in its setter, whose reads
/// and writes are then the target's as the browser's are.
pub(super) const PUT_FORWARDS_SETTERS: &[&str] = &[
    "set style",
    "set classList",
    "set relList",
    "set sizes",
    "set part",
    "set location",
];

/// The traps whose calls and constructions forward the target's own (a function's `Proxy`).
pub(super) const FORWARDING_TRAPS: &[&str] = &["apply", "construct"];

pub(super) fn first_frame_url(stack: &str) -> Option<String> {
    frames_of(stack).into_iter().next().map(|(url, _)| url)
}

/// The URL and function name of a record's stack frames, nearest first; eval'd code (no URL) by
/// the script that evaluated it, when the probe named one (`evalUrl`).
pub(super) fn frames_of(stack: &str) -> Vec<(String, String)> {
    let Ok(Value::Array(frames)) = serde_json::from_str::<Value>(stack) else {
        return Vec::new();
    };
    frames
        .iter()
        .filter_map(|f| {
            let url = f.get("url")?.as_str()?;
            let url = match f.get("evalUrl").and_then(Value::as_str) {
                Some(from) if url.is_empty() => from,
                _ => url,
            }
            .to_owned();
            let function = f["functionName"].as_str().unwrap_or("").to_owned();
            Some((url, function))
        })
        .collect()
}
