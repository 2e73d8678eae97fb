//! Where a relative path a program printed starts: the working folders of the run's processes.
//!
//! A runner prints its stack paths relative to its own working folder (mocha's
//! `at reserve (lib/inventory.js:4:15)`), and that is not always the run's: `npm test
//! --workspaces` runs each package's runner in the package's folder. A relative path is taken
//! from the folder of the process known to have printed it, else from the run's; else from the
//! one other process's folder that has the file. Where two processes' folders both have a file of
//! that name and neither is known to have printed it, no file is named: a site left out is
//! better than one in another package.

use std::path::{Path, PathBuf};

use crate::trace::session::Process;
use crate::trace::sourcemaps::normalize;

#[derive(Debug, Clone)]
pub struct Folders {
    run: PathBuf,
    /// Each process's own folder where it is not the run's, by its label (`program` for the
    /// program's own).
    own: Vec<(String, PathBuf)>,
    /// The folder of the process known to have printed the text read, tried first.
    printer: Option<PathBuf>,
}

impl Folders {
    /// The run's folder alone (a run whose processes all ran there).
    pub fn of_run(run: &Path) -> Self {
        Folders {
            run: run.to_owned(),
            own: Vec::new(),
            printer: None,
        }
    }

    /// The run's folder and each process's own ([`Process::cwd`]).
    pub fn of(run: &Path, processes: &[Process]) -> Self {
        let own = processes
            .iter()
            .filter_map(|p| {
                let folder = PathBuf::from(p.cwd.as_deref()?);
                let label = p.label.clone().unwrap_or_else(|| "program".to_owned());
                Some((label, folder))
            })
            .collect();
        Folders {
            run: run.to_owned(),
            own,
            printer: None,
        }
    }

    /// The run's own folder.
    pub fn run(&self) -> &Path {
        &self.run
    }

    /// Whether some process ran in a folder of its own: only then is it worth finding which
    /// process printed a text.
    pub fn differ(&self) -> bool {
        !self.own.is_empty()
    }

    /// The same folders, for text the process `label` printed (`program` for the program; none
    /// when it is not known).
    pub fn printed_by(&self, label: Option<&str>) -> Folders {
        let printer = label.and_then(|label| {
            self.own
                .iter()
                .find(|(l, _)| l == label)
                .map(|(_, folder)| folder.clone())
        });
        Folders {
            printer,
            ..self.clone()
        }
    }

    /// The existing file `printed` names (an absolute path stands as it is), normalized.
    pub fn file(&self, printed: &Path) -> Option<PathBuf> {
        let found = |folder: &Path| Some(normalize(&folder.join(printed))).filter(|p| p.is_file());
        if let Some(file) = self.printer.as_deref().and_then(found) {
            return Some(file);
        }
        if let Some(file) = found(&self.run) {
            return Some(file);
        }
        if printed.is_absolute() {
            return None;
        }
        let mut others: Vec<PathBuf> = self.own.iter().filter_map(|(_, f)| found(f)).collect();
        others.sort_unstable();
        others.dedup();
        match others.len() {
            1 => others.pop(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn process(label: &str, cwd: &Path) -> Process {
        Process {
            label: Some(label.to_owned()),
            role: "child".into(),
            cwd: Some(cwd.display().to_string()),
            ..Process::default()
        }
    }

    #[test]
    fn a_relative_path_is_the_printing_process_s_then_the_run_s_then_the_one_other_s() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let a = root.join("packages/a");
        let b = root.join("packages/b");
        for folder in [&root, &a, &b] {
            std::fs::create_dir_all(folder.join("lib")).unwrap();
        }
        std::fs::write(root.join("lib/root.js"), "").unwrap();
        std::fs::write(a.join("lib/only-a.js"), "").unwrap();
        for folder in [&root, &a, &b] {
            std::fs::write(folder.join("lib/x.js"), "").unwrap();
        }
        std::fs::write(a.join("lib/both.js"), "").unwrap();
        std::fs::write(b.join("lib/both.js"), "").unwrap();
        let folders = Folders::of(&root, &[process("child 1", &a), process("child 2", &b)]);
        let file = |f: &Folders, p: &str| f.file(Path::new(p));

        assert_eq!(
            file(&folders, "lib/root.js"),
            Some(root.join("lib/root.js"))
        );
        assert_eq!(
            file(&folders, "lib/only-a.js"),
            Some(a.join("lib/only-a.js"))
        );
        // Two packages have it and no one printer is known: no file rather than a guess.
        assert_eq!(file(&folders, "lib/both.js"), None);
        let by_b = folders.printed_by(Some("child 2"));
        assert_eq!(file(&by_b, "lib/both.js"), Some(b.join("lib/both.js")));
        // The printer's own file before the run's of the same name.
        assert_eq!(file(&by_b, "lib/x.js"), Some(b.join("lib/x.js")));
        assert_eq!(file(&folders, "lib/x.js"), Some(root.join("lib/x.js")));
        assert_eq!(file(&folders, "lib/none.js"), None);
        assert_eq!(
            file(&Folders::of_run(&root), "lib/only-a.js"),
            None,
            "a run whose processes all ran in its folder looks nowhere else"
        );
    }
}
