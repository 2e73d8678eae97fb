//! Starting headless Chromium for `tracer record`: finding the executable, a fresh temporary
//! profile, loopback-only remote debugging on a random port, its own process group (killed with
//! the tracer through `PR_SET_PDEATHSIG`), the DevTools URL read from its stderr, and stopping the
//! whole group. It knows nothing of CDP beyond that URL.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::error::TracerError;
use crate::process::{find, group};

/// The executables looked up on `PATH`, in order, when neither `--browser` nor
/// `TRACER_CHROMIUM` is given.
pub const CANDIDATES: [&str; 4] = [
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// How to install a browser, for the error message.
pub const INSTALL_HINT: &str = "apt-get install chromium";

/// The flags for a closed network and a throwaway profile, in front of `--user-data-dir`.
/// Remote debugging alone makes Chromium tell pages `navigator.webdriver === true`; the page
/// must see what it sees in a browser nobody records, so that flag of automation is turned off.
pub const FLAGS: [&str; 14] = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-dev-shm-usage",
    "--mute-audio",
    "--disable-blink-features=AutomationControlled",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
];

/// Lines of the browser's stderr kept for error messages.
const STDERR_TAIL: usize = 20;

/// The browser executable: `requested` (from `--browser` or `TRACER_CHROMIUM`), else the first
/// of [`CANDIDATES`] on `PATH`.
pub fn find(requested: Option<&Path>) -> Result<PathBuf, TracerError> {
    let hint = format!("install Chromium (`{INSTALL_HINT}`)");
    find::find_executable(
        requested,
        &find::Wanted {
            what: "Chromium",
            source: "--browser or TRACER_CHROMIUM",
            defaults: &CANDIDATES,
            hint: &hint,
        },
    )
}

/// A running browser. Dropping it stops its process group and removes the profile.
pub struct Browser {
    child: Child,
    pgid: u32,
    /// The DevTools WebSocket URL of the browser target (`ws://127.0.0.1:PORT/devtools/browser/…`).
    pub ws_url: String,
    tail: Arc<Mutex<VecDeque<String>>>,
    stopped: bool,
    // Declared last: removed after the processes are gone.
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts `executable` headless on `about:blank` and waits at most `limit` for its DevTools URL.
    pub fn start(executable: &Path, limit: Duration) -> Result<Browser, TracerError> {
        let profile = tempfile::Builder::new()
            .prefix("tracer-chromium-")
            .tempdir()
            .map_err(|e| {
                TracerError::cannot_trace(format!("creating a temporary browser profile: {e}"))
            })?;
        let mut command = Command::new(executable);
        command
            .args(FLAGS)
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0);
        group::die_with_parent(&mut command);
        let mut child = command.spawn().map_err(|e| {
            TracerError::cannot_trace(format!(
                "could not start Chromium ({}): {e}. Check that it is a working browser, or install one ({INSTALL_HINT})",
                executable.display()
            ))
        })?;
        let pgid = child.id();
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let (tx, rx) = mpsc::channel();
        if let Some(stderr) = child.stderr.take() {
            let tail = Arc::clone(&tail);
            let _ = std::thread::Builder::new()
                .name("chromium-stderr".into())
                .spawn(move || pump_stderr(stderr, &tx, &tail));
        }
        let mut browser = Browser {
            child,
            pgid,
            ws_url: String::new(),
            tail,
            stopped: false,
            _profile: profile,
        };
        let deadline = Instant::now() + limit;
        loop {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(url) => {
                    browser.ws_url = url;
                    return Ok(browser);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    // stderr closed without a URL: the browser is exiting.
                    let _ = group::wait_for(&mut browser.child, Duration::from_secs(2));
                    return Err(browser.failed("exited before printing its DevTools URL"));
                }
            }
            if let Ok(Some(status)) = browser.child.try_wait() {
                return Err(browser.failed(&format!(
                    "exited ({status}) before printing its DevTools URL"
                )));
            }
            if Instant::now() >= deadline {
                return Err(browser.failed(&format!(
                    "printed no DevTools URL within {} s",
                    limit.as_secs()
                )));
            }
        }
    }

    fn failed(&self, what: &str) -> TracerError {
        TracerError::cannot_trace(format!(
            "Chromium {what}; its last stderr lines:\n{}",
            self.stderr_tail()
        ))
    }

    /// The last lines the browser wrote on stderr, indented, for error messages.
    pub fn stderr_tail(&self) -> String {
        let tail = self.tail.lock().map(|t| t.clone()).unwrap_or_default();
        if tail.is_empty() {
            return "  (nothing)".to_owned();
        }
        tail.iter()
            .map(|l| format!("  {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Whether the browser process has exited.
    pub fn exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits up to `grace` for the browser to exit by itself (after `Browser.close`), then ends
    /// its process group: SIGTERM, a grace period, SIGKILL. Every process of the group is gone
    /// when this returns.
    pub fn stop(&mut self, grace: Duration) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        let _ = group::wait_for(&mut self.child, grace);
        group::stop_group(self.pgid, libc::SIGTERM, Duration::from_secs(2));
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Helpers that outlived the leader (a crash handler) are still in the group.
        group::signal_group(self.pgid, libc::SIGKILL);
        let deadline = Instant::now() + Duration::from_secs(2);
        while group::group_alive(self.pgid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.stop(Duration::ZERO);
    }
}

/// Reads the browser's stderr to its end (so a full pipe never blocks it): sends the DevTools
/// URL once, keeps the last lines.
fn pump_stderr(stderr: impl io::Read, tx: &mpsc::Sender<String>, tail: &Mutex<VecDeque<String>>) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    let mut sent = false;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line).trim_end().to_owned();
        if !sent && let Some(url) = devtools_url(&text) {
            let _ = tx.send(url.to_owned());
            sent = true;
        }
        if let Ok(mut tail) = tail.lock() {
            if tail.len() == STDERR_TAIL {
                tail.pop_front();
            }
            tail.push_back(text);
        }
    }
}

/// The URL in a `DevTools listening on ws://…` line.
pub fn devtools_url(line: &str) -> Option<&str> {
    line.strip_prefix("DevTools listening on ")
        .map(str::trim)
        .filter(|url| url.starts_with("ws://"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_devtools_line() {
        assert_eq!(
            devtools_url("DevTools listening on ws://127.0.0.1:4000/devtools/browser/ab"),
            Some("ws://127.0.0.1:4000/devtools/browser/ab")
        );
        assert_eq!(devtools_url("[1:2:ERROR:bus.cc] DevTools"), None);
    }

    #[test]
    fn a_missing_browser_names_the_install_command() {
        let err = find(Some(Path::new("/nonexistent/chromium"))).unwrap_err();
        assert!(err.to_string().contains(INSTALL_HINT), "{err}");
        assert_eq!(err.exit_code(), crate::exit::CANNOT_TRACE);
    }
}
