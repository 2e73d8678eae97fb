//! `tracer completions SHELL` and `tracer man`: generated from the clap definitions, on stdout.

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
