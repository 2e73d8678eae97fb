//! Faults `tracer` must survive (issue 6, point 3; the listening address of point 4): the tracer
//! killed with SIGKILL mid-run, the program closing its own inspector, one CDP message larger than
//! tungstenite's default frame limit, a full disk, two runs sharing one `--out`, fake and forked
//! inspector lines on stderr, and the inspector bound to loopback only while the run lasts.
//! Each test checks what a user would: exit codes, the files on disk, and processes left running.
//! (`show ../../etc` is refused in `sessions::unknown_and_malicious_ids_are_usage_errors`.)

use std::path::{Path, PathBuf};
use std::time::Duration;

use tracer::trace::event::{Event, Kind, Stream};
use tracer::trace::session::{Session, Status};

use crate::support::{
    Output, Running, Tracer, assert_nothing_left_running, eventually, latest_in, of_kind,
    output_lines, parse_file, parse_ndjson, program_pids, walk,
};

/// A program that never ends: a `sleep` grandchild, its pids, `ready` once set up.
const FOREVER: &str = "forever.js";

fn is_console(event: &Event, value: &str) -> bool {
    event.kind == Kind::Console && event.value.as_deref() == Some(value)
}

/// A program that prints `waiting NAME`, then waits until the file `NAME.go` exists, then exits 0.
fn waits_for_file(name: &str) -> String {
    format!(
        "// Waits until {name}.go exists (polling), then exits 0. Exercises runs that overlap.\n\
         const fs = require('node:fs');\n\
         console.log('waiting {name}');\n\
         const timer = setInterval(() => {{\n\
           if (fs.existsSync('{name}.go')) {{ clearInterval(timer); console.log('done {name}'); }}\n\
         }}, 20);\n"
    )
}

/// The session folder whose live `events.ndjson` holds a console call with `value`.
fn session_logging(sessions: &Path, value: &str) -> Option<String> {
    std::fs::read_dir(sessions)
        .ok()?
        .flatten()
        .find_map(|entry| {
            let text = std::fs::read_to_string(entry.path().join("events.ndjson")).ok()?;
            let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
            parse_ndjson(complete)
                .iter()
                .any(|e| is_console(e, value))
                .then(|| entry.file_name().to_string_lossy().into_owned())
        })
}

#[test]
fn sigkill_of_the_tracer_leaves_complete_files_and_the_next_run_works() {
    let mut running = Tracer::new()
        .fixture(FOREVER)
        .fixture("ok.js")
        .args(["run", "--timeout", "60", FOREVER])
        .spawn();
    let (node, sleep) = program_pids(&running.wait_for_stdout_line("pids"));
    running.wait_for_captured_event(|e| is_console(e, "ready"));
    running.signal(libc::SIGKILL);
    let next = Tracer::in_workspace_of(&running);
    let killed = running.wait();
    assert_eq!(killed.code_or_signal(), Err(libc::SIGKILL));
    assert_nothing_left_running(node, &[node, sleep]);

    // The files already on disk are whole: session.json as written at the start, status running;
    // every line of events.ndjson written so far is a complete event.
    let ids = killed.session_ids();
    assert_eq!(ids.len(), 1, "{ids:?}");
    let dir = killed.out_dir().join("sessions").join(&ids[0]);
    let session: Session = parse_file(&dir.join("session.json"));
    assert_eq!(session.status, Status::Running);
    assert_eq!(session.id, ids[0]);
    let text = std::fs::read_to_string(dir.join("events.ndjson")).unwrap();
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "events.ndjson ends with a whole line"
    );
    let events = parse_ndjson(&text);
    assert!(events.iter().any(|e| is_console(e, "ready")), "{events:?}");
    assert!(
        !killed.out_dir().join("latest").exists(),
        "no finished run yet, so no `latest`"
    );

    // The next run in the same --out works; `latest`, `list` and `show` agree.
    let out = next.args(["run", "ok.js"]).run();
    out.assert_code(0);
    let latest = out.latest_id();
    assert_ne!(latest, ids[0]);
    assert_eq!(out.session().status, Status::Exited);
    let list = out.tracer().args(["list", "--json"]).run();
    list.assert_code(0);
    let listed: Vec<serde_json::Value> = serde_json::from_str(&list.stdout()).unwrap();
    let status_of = |id: &str| {
        listed
            .iter()
            .find(|s| s["id"] == id)
            .unwrap_or_else(|| panic!("{id} not listed: {listed:?}"))["status"]
            .clone()
    };
    assert_eq!(status_of(&latest), "exited");
    assert_eq!(
        status_of(&ids[0]),
        "running",
        "the killed run stays visible"
    );
    assert_eq!(listed[0]["id"], latest.as_str(), "newest first");
    let show = out.tracer().args(["show", "latest"]).run();
    show.assert_code(0);
    let shown: Session = serde_json::from_str(&show.stdout()).unwrap();
    assert_eq!(shown.id, latest);
}

#[test]
fn a_program_closing_its_own_inspector_still_finishes_with_its_exit_code() {
    let out = Tracer::new()
        .file(
            "closes.js",
            "// Closes its own inspector mid-run, then logs and exits 3.\n\
             console.log('before close');\n\
             require('node:inspector').close();\n\
             console.log('after close');\n\
             process.exitCode = 3;\n",
        )
        .args(["run", "--timeout", "60", "closes.js"])
        .run();
    out.assert_code(1);
    let session = out.session();
    assert_eq!(session.exit_code, Some(3), "{}", out.dump());
    assert_eq!(session.status, Status::Failed);
    assert!(
        session.events.iter().any(|e| is_console(e, "before close")),
        "events before the close are kept: {:?}",
        session.events
    );
    // What the program printed after the close is still recorded, as output.
    assert!(
        output_lines(&session.events, Stream::Stdout).contains(&"after close".to_owned()),
        "{}",
        out.dump()
    );
}

#[test]
fn a_cdp_message_over_16_mib_is_captured_and_capped() {
    let out = Tracer::new()
        .file(
            "huge.js",
            "// Logs one 20 MB string: a single CDP message larger than tungstenite's default 16 MiB frame.\n\
             console.log('x'.repeat(20 * 1024 * 1024));\n\
             console.log('after');\n",
        )
        .args(["run", "--ndjson", "--timeout", "60", "huge.js"])
        .run();
    out.assert_code(0);
    let session = out.session();
    assert_eq!(session.status, Status::Exited, "{}", out.dump());
    let consoles = of_kind(&session.events, Kind::Console);
    let huge = consoles
        .iter()
        .find(|e| e.value.as_deref().is_some_and(|v| v.starts_with("xxx")))
        .unwrap_or_else(|| panic!("the 20 MB console call is captured: {consoles:?}"));
    assert!(huge.truncated);
    let value = huge.value.as_deref().unwrap();
    assert!(value.starts_with(&"x".repeat(500)));
    assert!(value.ends_with(&format!("… [{} more chars]", 20 * 1024 * 1024 - 500)));
    assert!(consoles.iter().any(|e| is_console(e, "after")));
}

/// Mounts a tmpfs of `size` at `dir`; `None` (with the reason) when this machine does not allow it.
fn mount_tmpfs(dir: &Path, size: &str) -> Option<TmpfsMount> {
    std::fs::create_dir_all(dir).unwrap();
    let out = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(dir)
        .output();
    match out {
        Ok(out) if out.status.success() => Some(TmpfsMount(dir.to_owned())),
        Ok(out) => {
            eprintln!(
                "SKIPPED: cannot mount a tmpfs (needs root): {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            None
        }
        Err(e) => {
            eprintln!("SKIPPED: cannot run mount: {e}");
            None
        }
    }
}

struct TmpfsMount(PathBuf);

impl Drop for TmpfsMount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
        // The mount point itself, which the test's folder cannot remove while it is mounted.
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// Every `*.json` file under `dir` (and `latest`) is whole: it parses.
fn assert_no_half_written_json(dir: &Path) {
    for entry in walk(dir) {
        let name = entry.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".json") {
            let text = std::fs::read_to_string(&entry).unwrap();
            serde_json::from_str::<serde_json::Value>(&text).unwrap_or_else(|e| {
                panic!("{} is not whole JSON ({e}): {text:.300}", entry.display())
            });
        }
        if name.ends_with(".ndjson") {
            // The live stream stops at a full disk, at the end of a line: every line is whole.
            let text = std::fs::read_to_string(&entry).unwrap();
            assert!(
                text.is_empty() || text.ends_with('\n'),
                "{} ends in half a line: {:.200}",
                entry.display(),
                &text[text.len().saturating_sub(200)..]
            );
            for line in text.lines() {
                serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| {
                    panic!(
                        "{}: a line is not whole JSON ({e}): {line:.300}",
                        entry.display()
                    )
                });
            }
        }
        assert!(
            !name.starts_with(".tmp-"),
            "a temporary file was left behind: {}",
            entry.display()
        );
    }
}

#[test]
fn a_full_disk_ends_with_a_clear_error_or_a_complete_session() {
    let tracer = Tracer::new().file(
        "chatty.js",
        "// Logs about 1 MB of distinct lines (more than the 64 KiB disk holds), prints its pid, exits 0.\n\
         for (let i = 0; i < 5000; i++) console.log(`line ${i} ` + 'y'.repeat(200));\n\
         console.log(`pid ${process.pid}`);\n",
    );
    let out_dir = tracer.outside().join("full");
    let Some(mount) = mount_tmpfs(&out_dir, "64k") else {
        return;
    };
    let out = tracer
        .arg("run")
        .arg("--out")
        .arg(&out_dir)
        .args(["--max-events", "100000", "--timeout", "60", "chatty.js"])
        .run();
    let pid: u32 = out
        .stdout()
        .lines()
        .find_map(|l| l.strip_prefix("pid ").and_then(|p| p.parse().ok()))
        .unwrap_or_else(|| panic!("the program ran to its end\n{}", out.dump()));
    assert_nothing_left_running(pid, &[pid]);
    match out.code() {
        0 => {
            // Everything fitted after all: then the session must be complete.
            let id = latest_in(&out_dir).unwrap();
            let session: Session = parse_file(
                &out_dir
                    .join("sessions")
                    .join(id.trim())
                    .join("session.json"),
            );
            assert_eq!(session.status, Status::Exited);
        }
        code => {
            assert_eq!(
                code,
                4,
                "an I/O error is exit 4 (could not trace)\n{}",
                out.dump()
            );
            let stderr = out.stderr();
            assert!(
                stderr.contains("error: writing") && stderr.contains("No space left on device"),
                "the error names the file and the cause\n{stderr}"
            );
        }
    }
    assert_no_half_written_json(&out_dir);
    // Unmounted before the test's folder goes (`out` holds it): nothing is left behind.
    drop(mount);
    drop(out);
    assert!(!out_dir.exists(), "{} was left behind", out_dir.display());
}

#[test]
fn two_runs_sharing_one_out_keep_distinct_sessions_and_a_consistent_latest() {
    let first = Tracer::new()
        .file("a.js", waits_for_file("a"))
        .file("b.js", waits_for_file("b"));
    let second = Tracer::in_workspace_of_tracer(&first);
    let workspace = first.workspace().to_owned();
    let sessions = workspace.join(".tracer").join("sessions");
    let a = first
        .args(["run", "--keep", "1", "--timeout", "60", "a.js"])
        .spawn();
    let b = second
        .args(["run", "--keep", "1", "--timeout", "60", "b.js"])
        .spawn();
    // Both runs are in progress at once.
    let mut ids = (None, None);
    eventually("both runs logged `waiting`", || {
        ids = (
            session_logging(&sessions, "waiting a"),
            session_logging(&sessions, "waiting b"),
        );
        ids.0.is_some() && ids.1.is_some()
    });
    let (id_a, id_b) = (ids.0.unwrap(), ids.1.unwrap());
    assert_ne!(id_a, id_b, "distinct session ids");
    // The older session finishes last: whichever finished first, retention (--keep 1) must not
    // delete a session in progress, nor the one `latest` names.
    let (older, newer, older_run, newer_run, older_name, newer_name) = if id_a < id_b {
        (id_a, id_b, a, b, "a", "b")
    } else {
        (id_b, id_a, b, a, "b", "a")
    };
    std::fs::write(workspace.join(format!("{newer_name}.go")), "").unwrap();
    let newer_out = newer_run.wait();
    newer_out.assert_code(0);
    assert_eq!(newer_out.latest_id(), newer);
    assert!(
        sessions.join(&older).join("session.json").is_file(),
        "a session in progress was deleted by the other run's retention"
    );
    std::fs::write(workspace.join(format!("{older_name}.go")), "").unwrap();
    let older_out = older_run.wait();
    older_out.assert_code(0);
    let latest = older_out.latest_id();
    assert_eq!(latest, older, "`latest` names the run that finished last");
    let session = older_out.session();
    assert_eq!(
        (session.id.as_str(), session.status),
        (older.as_str(), Status::Exited)
    );
    assert!(
        session
            .events
            .iter()
            .any(|e| is_console(e, &format!("done {older_name}"))),
        "{session:?}"
    );
    let show = older_out.tracer().args(["show", "latest"]).run();
    show.assert_code(0);
}

/// Finds the fds of `pid` that are sockets, as their inode numbers.
fn socket_inodes(pid: u32) -> Vec<u64> {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .filter_map(|link| {
            let link = link.to_string_lossy().into_owned();
            link.strip_prefix("socket:[")?
                .strip_suffix(']')?
                .parse()
                .ok()
        })
        .collect()
}

/// One listening TCP socket from `/proc/net/tcp` or `tcp6`: local address (hex, as the kernel
/// writes it), port, inode.
#[derive(Debug)]
struct Listener {
    table: &'static str,
    address: String,
    port: u16,
    inode: u64,
}

fn listeners() -> Vec<Listener> {
    let mut found = Vec::new();
    for table in ["tcp", "tcp6"] {
        let text = std::fs::read_to_string(format!("/proc/net/{table}")).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
            if fields.len() < 10 || fields[3] != "0A" {
                continue;
            }
            let Some((address, port)) = fields[1].split_once(':') else {
                continue;
            };
            found.push(Listener {
                table,
                address: address.to_owned(),
                port: u16::from_str_radix(port, 16).unwrap(),
                inode: fields[9].parse().unwrap_or(0),
            });
        }
    }
    found
}

/// Sends one HTTP/1.1 GET to 127.0.0.1:`port` and returns what came back (up to 4 KiB).
fn http_get(port: u16, path: &str, headers: &[&str]) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n");
    for header in headers {
        request.push_str(header);
        request.push_str("\r\n");
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut buffer = vec![0u8; 4096];
    let n = stream.read(&mut buffer).unwrap_or(0);
    String::from_utf8_lossy(&buffer[..n]).into_owned()
}

#[test]
fn the_inspector_listens_on_loopback_only_and_only_while_the_run_lasts() {
    let mut running: Running = Tracer::new()
        .fixture(FOREVER)
        .args(["run", "--timeout", "60", FOREVER])
        .spawn();
    let (node, sleep) = program_pids(&running.wait_for_stdout_line("pids"));
    running.wait_for_captured_event(|e| is_console(e, "ready"));
    let inodes = socket_inodes(node);
    let mine: Vec<Listener> = listeners()
        .into_iter()
        .filter(|l| inodes.contains(&l.inode))
        .collect();
    assert_eq!(
        mine.len(),
        1,
        "the program listens on exactly one socket, the inspector's: {mine:?}"
    );
    let inspector = &mine[0];
    assert_eq!(
        (inspector.table, inspector.address.as_str()),
        ("tcp", "0100007F"),
        "bound to 127.0.0.1 only (IPv4 loopback, not 0.0.0.0 nor ::): {inspector:?}"
    );
    assert_ne!(inspector.port, 9229, "a random port, not the default");
    let port = inspector.port;
    // Knowing the port is not enough: with `--inspect-publish-uid=stderr` Node lists no target
    // over HTTP, and a WebSocket upgrade to any path but the session's UUID is refused.
    let list = http_get(port, "/json/list", &[]);
    assert!(
        list.starts_with("HTTP/1.") && !list.contains("webSocketDebuggerUrl"),
        "the target list reveals nothing: {list}"
    );
    let upgrade = http_get(
        port,
        "/00000000-0000-0000-0000-000000000000",
        &[
            "Connection: Upgrade",
            "Upgrade: websocket",
            "Sec-WebSocket-Version: 13",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        ],
    );
    assert!(
        upgrade.starts_with("HTTP/1.0 400") || upgrade.starts_with("HTTP/1.1 400"),
        "a guessed session path is refused: {upgrade}"
    );

    running.signal(libc::SIGINT);
    let out: Output = running.wait();
    out.assert_code(130);
    assert_nothing_left_running(node, &[node, sleep]);
    let still = listeners()
        .into_iter()
        .filter(|l| l.port == port && l.address == "0100007F")
        .collect::<Vec<_>>();
    assert!(
        still.is_empty(),
        "the inspector port is closed after the run: {still:?}"
    );
}

#[test]
fn fake_and_forked_inspector_lines_do_not_disturb_the_run() {
    let out = Tracer::new()
        .file(
            "fakes.js",
            "// Prints fake inspector lines (a closed loopback port, a remote host, what inspector.url() says)\n\
             // and forks a child that prints one too. Exercises the stderr pump's URL handling.\n\
             const { fork } = require('node:child_process');\n\
             if (process.argv[2] === 'child') {\n\
               console.error('Debugger listening on ws://127.0.0.1:1/child-fake');\n\
               console.log('child done');\n\
             } else {\n\
               console.error('Debugger listening on ws://127.0.0.1:1/x');\n\
               console.error('Debugger listening on ws://10.0.0.1:9229/remote');\n\
               console.error('Debugger listening on ' + require('node:inspector').url());\n\
               console.error('a real error line');\n\
               const child = fork(__filename, ['child']);\n\
               child.on('exit', (code) => { console.log('child exited with', code); process.exitCode = 5; });\n\
             }\n",
        )
        .args(["-q", "run", "--timeout", "60", "fakes.js"])
        .run();
    out.assert_code(1);
    let session = out.session();
    assert_eq!(session.exit_code, Some(5), "{}", out.dump());
    let stdout = out.stdout();
    assert!(stdout.contains("child done"), "{}", out.dump());
    assert!(stdout.contains("child exited with 0"), "{}", out.dump());
    // Lines starting with `Debugger listening on ` are the inspector's: stripped from the
    // passed-through stderr and from the recorded output, fake or not.
    let stderr = out.stderr();
    assert!(!stderr.contains("Debugger listening on"), "{stderr}");
    assert!(stderr.contains("a real error line"), "{stderr}");
    let recorded = output_lines(&session.events, Stream::Stderr);
    assert!(
        recorded.iter().all(|l| !l.contains("Debugger listening")),
        "{recorded:?}"
    );
    assert!(recorded.contains(&"a real error line".to_owned()));
    // The child is traced; the fake URLs it and its parent printed take no child number.
    if session.capabilities.forked_children {
        let child = of_kind(&session.events, Kind::Console)
            .into_iter()
            .find(|e| e.value.as_deref() == Some("child done"))
            .expect("the child's console call is traced");
        assert_eq!(child.worker.as_deref(), Some("child 1"), "{child:?}");
    }
}
