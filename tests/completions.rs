//! `tracer completions SHELL` and `tracer man`: generated from the clap definitions, on stdout
//! (`man --dir`: into a folder).

use crate::support::Tracer;

#[test]
fn completion_scripts_name_the_subcommands_and_flags() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef tracer"),
        ("fish", "complete -c tracer"),
    ] {
        let out = Tracer::new().args(["completions", shell]).run();
        out.assert_code(0);
        let script = out.stdout();
        assert!(script.contains(marker), "{shell}: {script:.300}");
        for word in ["replay", "verify", "export", "annotations", "chrome-trace"] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
    Tracer::new()
        .args(["completions", "tcsh"])
        .run()
        .assert_code(2);
}

#[test]
fn the_man_page_is_roff_and_lists_the_commands() {
    let out = Tracer::new().arg("man").run();
    out.assert_code(0);
    let page = out.stdout();
    assert!(page.contains(".TH tracer"));
    for word in ["replay", "verify", "export", "capabilities"] {
        assert!(page.contains(word), "the man page lacks {word}");
    }
}

/// Every page the pages refer to (`tracer-run(1)`, `tracer-contract-build(1)`) is one `tracer man`
/// generates, printed (`tracer man run`) or written (`tracer man --dir`).
#[test]
fn every_man_page_a_page_refers_to_can_be_generated() {
    let out = Tracer::new().args(["man", "--dir", "pages"]).run();
    out.assert_code(0);
    let dir = out.workspace().join("pages");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in [
        "tracer.1",
        "tracer-run.1",
        "tracer-export.1",
        "tracer-contract-build.1",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} missing: {names:?}");
    }
    let reference = regex::Regex::new(r"(tracer(?:\\-[a-z]+)+)\((\d)\)").unwrap();
    for name in &names {
        let page = std::fs::read_to_string(dir.join(name)).unwrap();
        for caps in reference.captures_iter(&page) {
            let wanted = format!("{}.{}", caps[1].replace("\\-", "-"), &caps[2]);
            assert!(
                names.contains(&wanted),
                "{name} refers to {} but no such page is generated: {names:?}",
                &caps[0]
            );
        }
    }
    // One page on stdout, as `man -l -` reads it; the root page names its subcommands' pages.
    let run = out.tracer().args(["man", "run"]).run();
    run.assert_code(0);
    assert!(
        run.stdout().contains(".TH tracer-run 1"),
        "{:.300}",
        run.stdout()
    );
    assert!(run.stdout().contains("\\-\\-ndjson"));
    let root = out.tracer().arg("man").run().stdout();
    assert!(root.contains("tracer\\-run(1)") && !root.contains("tracer\\-help(1)"));
    out.tracer().args(["man", "nope"]).run().assert_code(2);
}
