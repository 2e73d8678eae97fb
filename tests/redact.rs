//! Redaction: well-known token shapes and `--redact` patterns never reach the session files, the
//! NDJSON stream or the evidence; `--no-default-redact` turns the defaults off.

use crate::support::Tracer;

const JWT: &str =
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";

fn program() -> String {
    format!(
        "// Logs a JWT, an AWS key and a custom secret, prints a private key block, then throws with a bearer token.\n\
         console.log('token', '{JWT}');\n\
         console.log('my secret-1234 and AKIAIOSFODNN7EXAMPLE');\n\
         process.stdout.write('-----BEGIN PRIVATE KEY-----\\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7\\n-----END PRIVATE KEY-----\\n');\n\
         throw new Error('auth failed for Bearer abcdefghijklmnopqrstuvwxyz');\n"
    )
}

fn stored_text(out: &crate::support::Output) -> String {
    let dir = out.session_dir();
    ["session.json", "events.ndjson", "evidence.json"]
        .iter()
        .map(|name| std::fs::read_to_string(dir.join(name)).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn secrets_are_redacted_everywhere_the_trace_stores_them() {
    let out = Tracer::new()
        .file("app.js", program())
        .args([
            "run",
            "--ndjson",
            "--redact",
            "secret-[0-9]+",
            "app.js",
            "--key=AKIAIOSFODNN7EXAMPLE",
        ])
        .run();
    out.assert_code(1);
    let stored = format!("{}\n{}", stored_text(&out), out.stdout());
    for secret in [
        JWT,
        "AKIAIOSFODNN7EXAMPLE",
        "secret-1234",
        "abcdefghijklmnopqrstuvwxyz",
        "MIIBVQIBADANBgkq",
    ] {
        assert!(
            !stored.contains(secret),
            "{secret} leaked into the stored trace"
        );
    }
    for marker in [
        "[REDACTED:jwt]",
        "[REDACTED:aws-access-key]",
        "[REDACTED:custom]",
        "[REDACTED:bearer]",
        "[REDACTED:private-key]",
    ] {
        assert!(stored.contains(marker), "no {marker} in the stored trace");
    }
    let evidence = out.evidence().unwrap();
    assert!(
        evidence.failure.message.contains("[REDACTED:bearer]"),
        "{}",
        evidence.failure.message
    );
    assert_eq!(out.session().args, ["--key=[REDACTED:aws-access-key]"]);
}

#[test]
fn no_default_redact_keeps_the_values_but_custom_patterns_still_apply() {
    let out = Tracer::new()
        .file("app.js", program())
        .args([
            "run",
            "--no-default-redact",
            "--redact",
            "secret-[0-9]+",
            "app.js",
        ])
        .run();
    out.assert_code(1);
    let stored = stored_text(&out);
    assert!(stored.contains(JWT));
    assert!(stored.contains("AKIAIOSFODNN7EXAMPLE"));
    assert!(!stored.contains("secret-1234"));
}

#[test]
fn an_invalid_redact_pattern_is_a_usage_error() {
    let out = Tracer::new()
        .file("app.js", "console.log(1)\n")
        .args(["run", "--redact", "(", "app.js"])
        .run();
    out.assert_code(2);
    assert!(out.stderr().contains("--redact"), "{}", out.stderr());
}

#[test]
fn a_fine_grained_github_token_and_a_token_in_a_vm_context_name_are_redacted() {
    let pat = format!("github_pat_{}", "A1b2C3d4E5f6G7h8I9j0K1_".repeat(3));
    let classic = format!("ghp_{}", "a".repeat(36));
    let out = Tracer::new()
        .file(
            "app.js",
            format!(
                "// A fine-grained token logged, a classic one as a vm context's name.\n\
                 console.log('token {pat}');\n\
                 require('node:vm').createContext({{}}, {{ name: 'ctx {classic}' }});\n"
            ),
        )
        .args(["run", "app.js"])
        .run();
    out.assert_code(0);
    let stored = stored_text(&out);
    assert!(!stored.contains(&pat), "the fine-grained token leaked");
    assert!(
        !stored.contains(&classic),
        "the context name's token leaked"
    );
    assert!(stored.contains("[REDACTED:github-token]"), "{stored}");
}
