//! Where a relative path a program printed starts: the working folders of the run's processes.
//!
//! A runner prints its stack paths relative to its own working folder (mocha's
//! `at reserve (lib/inventory.js:4:15)`), and that is not always the run's: `npm test
//! --workspaces` runs each package's runner in the package's folder. A relative path is taken
//! from the folder of the process known to have printed it, else from the run's; else from the
//! one other process's folder that has the file. Where two processes' folders both have a file of
//! that name and neither is known to have printed it, no file is named: a site left out is
//! better than one in another package. A process that moved (`process.chdir`) may have printed
//! from either of its folders: where the file is in both, or in another process's too, none is
//! named either.

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
    /// Each process's folder as its exit began, where it had moved ([`Process::cwd_at_exit`]).
    moved: Vec<(String, PathBuf)>,
    /// The process known to have printed the text read (its label).
    printer_label: Option<String>,
}

impl Folders {
    /// The run's folder alone (a run whose processes all ran there).
    pub fn of_run(run: &Path) -> Self {
        Folders {
            run: run.to_owned(),
            own: Vec::new(),
            printer: None,
            moved: Vec::new(),
            printer_label: None,
        }
    }

    /// The run's folder and each process's own ([`Process::cwd`]).
    pub fn of(run: &Path, processes: &[Process]) -> Self {
        let label = |p: &Process| p.label.clone().unwrap_or_else(|| "program".to_owned());
        let own = processes
            .iter()
            .filter_map(|p| Some((label(p), PathBuf::from(p.cwd.as_deref()?))))
            .collect();
        let moved = processes
            .iter()
            .filter_map(|p| Some((label(p), PathBuf::from(p.cwd_at_exit.as_deref()?))))
            .collect();
        Folders {
            run: run.to_owned(),
            own,
            printer: None,
            moved,
            printer_label: None,
        }
    }

    /// The run's own folder.
    pub fn run(&self) -> &Path {
        &self.run
    }

    /// Whether some process ran in a folder of its own: only then is it worth finding which
    /// process printed a text.
    pub fn differ(&self) -> bool {
        !self.own.is_empty() || !self.moved.is_empty()
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
            printer_label: label.map(str::to_owned),
            ..self.clone()
        }
    }

    /// The existing file `printed` names (an absolute path stands as it is), normalized.
    pub fn file(&self, printed: &Path) -> Option<PathBuf> {
        let found = |folder: &Path| Some(normalize(&folder.join(printed))).filter(|p| p.is_file());
        let first = self.file_where_started(printed);
        if printed.is_absolute() {
            return first;
        }
        // Where the printer (else any process) moved: the file there is as likely.
        let moved = self
            .moved
            .iter()
            .filter(|(label, _)| {
                self.printer_label
                    .as_deref()
                    .is_none_or(|printer| printer == label)
            })
            .filter_map(|(_, folder)| found(folder));
        let mut all: Vec<PathBuf> = first.into_iter().chain(moved).collect();
        all.sort_unstable();
        all.dedup();
        match all.len() {
            1 => all.pop(),
            _ => None,
        }
    }

    /// As [`Folders::file`], from the folders the processes started in.
    fn file_where_started(&self, printed: &Path) -> Option<PathBuf> {
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

    /// A program that moved (`process.chdir('pkg')`) and then printed `cfg.yml:3:1: error …`:
    /// the run's folder has a `cfg.yml` too, and the site was once that other file's line.
    #[test]
    fn a_process_that_moved_may_have_printed_from_either_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let pkg = root.join("pkg");
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(root.join("cfg.yml"), "").unwrap();
        std::fs::write(pkg.join("cfg.yml"), "").unwrap();
        std::fs::write(pkg.join("only-pkg.yml"), "").unwrap();
        std::fs::write(root.join("only-root.yml"), "").unwrap();
        let program = Process {
            role: "program".into(),
            cwd_at_exit: Some(pkg.display().to_string()),
            ..Process::default()
        };
        let folders = Folders::of(&root, &[program]);
        let file = |f: &Folders, p: &str| f.file(Path::new(p));
        assert_eq!(file(&folders, "cfg.yml"), None, "in both: not known which");
        assert_eq!(
            file(&folders, "only-pkg.yml"),
            Some(pkg.join("only-pkg.yml"))
        );
        assert_eq!(
            file(&folders, "only-root.yml"),
            Some(root.join("only-root.yml"))
        );
        // Printed by another process, which did not move: its folder alone.
        let by_other = folders.printed_by(Some("child 1"));
        assert_eq!(file(&by_other, "cfg.yml"), Some(root.join("cfg.yml")));
    }
}
