//! What to run, checked before anything is spawned: the target (a script, a package folder's
//! `main`, a command), its `#!` line's Node flags, the workspace and the working folder, Node.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::error::TracerError;
use crate::process::find;

use super::Config;

/// Where and what to run, checked before anything is spawned.
pub(super) struct Plan {
    pub(super) workspace: PathBuf,
    /// The JavaScript file Node runs (`tracer run app.js`, `tracer run .`); none for a command.
    pub(super) target: Option<PathBuf>,
    /// What tracer starts: Node, or the command.
    pub(super) program: PathBuf,
    /// Its `argv[0]`, as a shell would pass it: the command as given (`node`, `npm`, `./run.sh`),
    /// or Node as `--node` gave it, else by the name `PATH` found it by (`process.argv0` is then
    /// `node`, as under plain `node app.js`).
    pub(super) argv0: OsString,
    /// Its arguments: for Node, the shebang's flags, the target and the program's arguments.
    pub(super) argv: Vec<OsString>,
    pub(super) cwd: PathBuf,
    pub(super) node: PathBuf,
}

impl Plan {
    /// What the session names as the target: the file, or the command as it was found.
    pub(super) fn target_name(&self) -> String {
        self.target
            .as_ref()
            .unwrap_or(&self.program)
            .display()
            .to_string()
    }
}

/// What `TARGET` turned out to be.
pub(super) enum Target {
    /// A file Node runs, with the flags of its `#!` line (`#!/usr/bin/env -S node --flag`).
    Script {
        file: PathBuf,
        node_flags: Vec<OsString>,
    },
    /// An executable that is not a Node script: a shell script, npm, node itself.
    Command(PathBuf),
}

pub(super) fn plan(config: &Config) -> Result<Plan> {
    let here = std::env::current_dir().context("reading the current directory")?;
    let workspace_arg = config.workspace.clone().unwrap_or_else(|| here.clone());
    let workspace = workspace_arg.canonicalize().map_err(|e| {
        TracerError::usage(format!(
            "workspace {} cannot be used: {e}",
            workspace_arg.display()
        ))
    })?;
    let cwd_arg = config.cwd.clone().unwrap_or(here);
    let cwd = cwd_arg.canonicalize().map_err(|e| {
        TracerError::usage(format!("--cwd {} cannot be used: {e}", cwd_arg.display()))
    })?;
    let target = resolve_target(&config.target, &workspace)?;
    if let Target::Script { file, .. } = &target
        && !file.starts_with(&workspace)
    {
        return Err(TracerError::usage(format!(
            "target {} is outside the workspace {}: move it inside, or pass --workspace DIR",
            file.display(),
            workspace.display()
        ))
        .into());
    }
    if !cwd.starts_with(&workspace) {
        return Err(TracerError::usage(format!(
            "working directory {} is outside the workspace {}: move it inside, or pass --workspace DIR",
            cwd.display(),
            workspace.display()
        ))
        .into());
    }
    let node = find::find_node(config.node.as_deref())?;
    let (target, program, argv, argv0) = match target {
        Target::Script { file, node_flags } => {
            let mut argv = node_flags;
            argv.push(file.clone().into_os_string());
            argv.extend(config.args.iter().cloned());
            let argv0 = match &config.node {
                Some(given) => given.clone().into_os_string(),
                None => node
                    .file_name()
                    .map_or_else(|| node.clone().into_os_string(), ToOwned::to_owned),
            };
            (Some(file), node.clone(), argv, argv0)
        }
        Target::Command(program) => (
            None,
            program,
            config.args.clone(),
            config.target.clone().into_os_string(),
        ),
    };
    Ok(Plan {
        workspace,
        target,
        program,
        argv0,
        argv,
        cwd,
        node,
    })
}

/// `TARGET`: a JavaScript file; a package folder (its `main`); an executable file whose `#!` line
/// does not name Node (a shell script, a `.bin` shim), or that lies outside the workspace
/// (`/usr/bin/npm`, as `tracer verify` gives it again: run as it is, its Node traced all the same);
/// else a command on `PATH` (`npm`, `node`).
pub(super) fn resolve_target(given: &Path, workspace: &Path) -> Result<Target> {
    if let Ok(path) = given.canonicalize() {
        if path.is_dir() {
            return package_main(&path, given).map(|file| Target::Script {
                file,
                node_flags: Vec::new(),
            });
        }
        if path.is_file() {
            return Ok(match shebang(&path) {
                Shebang::Node(_) if !path.starts_with(workspace) && is_executable(&path) => {
                    Target::Command(path)
                }
                Shebang::Node(node_flags) => Target::Script {
                    file: path,
                    node_flags,
                },
                Shebang::Other if is_executable(&path) => Target::Command(path),
                Shebang::Other | Shebang::None => Target::Script {
                    file: path,
                    node_flags: Vec::new(),
                },
            });
        }
    }
    let name = given.as_os_str();
    if given.components().count() == 1
        && !name.to_string_lossy().starts_with('-')
        && let Some(found) = find::search_path(name)
    {
        return Ok(Target::Command(found));
    }
    let shown = given.display();
    let hint = if name.to_string_lossy().starts_with('-') {
        format!(
            "`{shown}` is a flag, not a target: for Node's own flags, run `tracer run [OPTIONS] -- node {shown} …`"
        )
    } else {
        format!(
            "target {shown} not found: give a JavaScript file, a package folder, or a command on PATH (`tracer run -- npm test`)"
        )
    };
    Err(TracerError::usage(hint).into())
}

/// A package folder's entry: `main` in its `package.json`, else `index.js`.
pub(super) fn package_main(dir: &Path, given: &Path) -> Result<PathBuf> {
    let manifest = dir.join("package.json");
    let main = match crate::files::read_capped(&manifest, 1 << 20) {
        Ok(bytes) => serde_json::from_slice::<serde_json::Value>(&bytes)
            .map_err(|e| {
                TracerError::usage(format!(
                    "{}: not valid JSON ({e}): fix it, or give the program's file instead of the folder",
                    manifest.display()
                ))
            })?
            .get("main")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned),
        Err(_) => None,
    };
    let entry = main.unwrap_or_else(|| "index.js".to_owned());
    let candidates = [
        dir.join(&entry),
        dir.join(format!("{entry}.js")),
        dir.join(&entry).join("index.js"),
    ];
    candidates
        .iter()
        .find(|c| c.is_file())
        .and_then(|c| c.canonicalize().ok())
        .ok_or_else(|| {
            TracerError::usage(format!(
                "{} is a folder and its entry `{entry}` (package.json's `main`, else index.js) is not a file: give the program's file",
                given.display()
            ))
            .into()
        })
}

pub(super) enum Shebang {
    /// `#!…node [flags]`: the flags.
    Node(Vec<OsString>),
    /// `#!` naming another interpreter.
    Other,
    None,
}

/// The file's `#!` line: whether it runs Node, and with which flags.
pub(super) fn shebang(file: &Path) -> Shebang {
    let Ok(mut opened) = crate::files::open_regular(file) else {
        return Shebang::None;
    };
    let mut head = [0u8; 512];
    let n = opened.read(&mut head).unwrap_or(0);
    let Some(line) = head[..n].strip_prefix(b"#!") else {
        return Shebang::None;
    };
    let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let words: Vec<&str> = line.split_whitespace().collect();
    let is_node = |w: &&str| {
        let base = w.rsplit('/').next().unwrap_or(w);
        base == "node" || base == "nodejs"
    };
    match words.iter().position(is_node) {
        Some(at) => Shebang::Node(
            words[at + 1..]
                .iter()
                .take_while(|w| w.starts_with('-'))
                .map(OsString::from)
                .collect(),
        ),
        None => Shebang::Other,
    }
}

pub(super) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}
