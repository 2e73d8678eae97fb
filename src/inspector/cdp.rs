//! The Chrome DevTools Protocol client: one blocking WebSocket to a loopback inspector, request ids,
//! and incoming messages split into responses and events. It knows nothing of what the messages mean.

use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::os::fd::AsRawFd;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use tungstenite::{Message, WebSocket};

use crate::pacing::Pacer;

/// How long one `read` waits before returning `Incoming::Idle`, so the caller can check deadlines
/// and signals without a second thread.
const TICK: Duration = Duration::from_millis(50);

/// The largest WebSocket message (and frame: Node sends each CDP message as one frame) accepted
/// from the inspector. tungstenite's defaults (64 MiB message, 16 MiB frame) refuse a single
/// `console.log` of a 20 MB string and end the trace; 256 MiB still bounds what one message can
/// make the tracer allocate. A larger message ends the read with an error naming the size.
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

/// One message from the inspector.
#[derive(Debug)]
pub enum Incoming {
    /// The answer to request `id`: `result`, or the protocol's `error` object.
    Response {
        id: u64,
        result: Result<Value, Value>,
    },
    /// A protocol event.
    Event { method: String, params: Value },
    /// Nothing arrived within one tick.
    Idle,
    /// The inspector closed the connection (the program ended or closed its inspector).
    Closed,
}

/// The inspector socket: re-arms TCP_QUICKACK after every read (Node never sets TCP_NODELAY, so a
/// delayed ACK from this side would stall its next small write by ~40 ms) and paces reads under a
/// flood of messages.
struct Socket {
    stream: TcpStream,
    pacer: Pacer,
}

impl Read for Socket {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.stream.read(buf)?;
        let one: libc::c_int = 1;
        // SAFETY: setsockopt on a socket we own, with a pointer to a live c_int and its size.
        unsafe {
            libc::setsockopt(
                self.stream.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_QUICKACK,
                (&raw const one).cast(),
                size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
        if n > 0 {
            self.pacer.after_read();
        }
        Ok(n)
    }
}

impl Write for Socket {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.stream.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.stream.flush()
    }
}

/// A connected CDP client.
pub struct Cdp {
    socket: WebSocket<Socket>,
    next_id: u64,
    /// Requests `queue`d and not yet written out (the next `send` or read writes them).
    queued: bool,
    /// `TRACER_DEBUG_CDP=1`: every message in and out is echoed to stderr (for developing tracer).
    debug: bool,
}

/// Checks that an inspector URL points at loopback (`ws://127.0.0.1:PORT/...`) and returns the
/// address to connect to. Anything else is refused: a debugger on another interface is remote code
/// execution, and the tool never helps widen it.
pub fn loopback_address(url: &str) -> Result<SocketAddr> {
    let parsed =
        url::Url::parse(url).with_context(|| format!("inspector URL `{url}` is not a URL"))?;
    if parsed.scheme() != "ws" {
        bail!("inspector URL `{url}` is not a ws:// URL");
    }
    match parsed.host() {
        Some(url::Host::Ipv4(ip)) if ip == Ipv4Addr::LOCALHOST => {}
        _ => bail!("refusing to attach to inspector URL `{url}`: its host is not 127.0.0.1"),
    }
    let port = parsed
        .port()
        .with_context(|| format!("inspector URL `{url}` has no port"))?;
    Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
}

/// Runs, on the calling thread and off the path to the program's release, what its first
/// connection would otherwise run for the first time between the bootloader's report and the
/// release: the thread's random generator (seeded with a `getrandom` call, for the handshake's key),
/// and the CPU-feature checks of SHA-1 (the accept key) and of httparse (the response). A feature
/// check is a handful of `cpuid` instructions, slow in a virtual machine; taking the three off
/// that path shortens the attach (figures: docs/performance.md). Called while Node starts.
pub fn warm_up() {
    let key = tungstenite::handshake::client::generate_key();
    let _ = tungstenite::handshake::derive_accept_key(key.as_bytes());
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    let _ = std::is_x86_feature_detected!("avx2");
}

impl Cdp {
    /// Connects to the inspector at `url` (which must be loopback).
    pub fn connect(url: &str) -> Result<Cdp> {
        let address = loopback_address(url)?;
        let stream = match crate::sandbox::current() {
            // The inspector listens on the sandbox's loopback: connected through a socket made
            // there.
            Some(sandbox) => sandbox.connect(address).with_context(|| {
                format!("connecting to the inspector at {address} in the sandbox")
            })?,
            None => TcpStream::connect_timeout(&address, Duration::from_secs(5))
                .with_context(|| format!("connecting to the inspector at {address}"))?,
        };
        stream.set_nodelay(true).context("setting TCP_NODELAY")?;
        stream.set_read_timeout(Some(Duration::from_secs(5)))?;
        let socket = Socket {
            stream,
            pacer: Pacer::new(Duration::from_micros(300)),
        };
        let config = tungstenite::protocol::WebSocketConfig::default()
            .max_message_size(Some(MAX_MESSAGE_BYTES))
            .max_frame_size(Some(MAX_MESSAGE_BYTES));
        let (socket, _response) =
            tungstenite::client::client_with_config(url, socket, Some(config))
                .map_err(|e| anyhow::anyhow!("WebSocket handshake with {url} failed: {e}"))?;
        socket.get_ref().stream.set_read_timeout(Some(TICK))?;
        Ok(Cdp {
            socket,
            next_id: 1,
            queued: false,
            debug: std::env::var_os("TRACER_DEBUG_CDP").is_some(),
        })
    }

    /// Whether reads are paced under a flood of messages (on from `connect`; see `Pacer`). The
    /// driver turns it off until the program is released: the setup's answers come back to back,
    /// and a nap among them would delay the release.
    pub fn set_pacing(&mut self, on: bool) {
        self.socket.get_mut().pacer.set_enabled(on);
    }

    /// Sends `method` with `params` (and whatever was queued before it); returns the request id.
    /// Does not wait for the answer.
    pub fn send(&mut self, method: &str, params: Value) -> Result<u64> {
        let id = self.queue(method, params)?;
        self.flush()
            .with_context(|| format!("sending {method} to the inspector"))?;
        Ok(id)
    }

    /// Queues `method` with `params`, written out with the next `send` or read: requests queued
    /// together reach the inspector in one write, which it dispatches in one go (the setup before
    /// the release: one wake-up of Node's main thread instead of one per request).
    pub fn queue(&mut self, method: &str, params: Value) -> Result<u64> {
        self.queue_request(None, method, params)
    }

    /// Queues one request, to the connection's own target or to the flat-mode session `session`.
    fn queue_request(&mut self, session: Option<&str>, method: &str, params: Value) -> Result<u64> {
        let id = self.next_id;
        self.next_id += 1;
        let text = match session {
            None => json!({"id": id, "method": method, "params": params}),
            Some(session) => {
                json!({"id": id, "sessionId": session, "method": method, "params": params})
            }
        }
        .to_string();
        if self.debug {
            eprintln!("cdp -> {}{text}", debug_time());
        }
        self.socket
            .write(Message::text(text))
            .with_context(|| format!("sending {method} to the inspector"))?;
        self.queued = true;
        Ok(id)
    }

    fn flush(&mut self) -> Result<()> {
        self.queued = false;
        self.socket.flush().context("writing to the inspector")
    }

    /// Sends a message to a worker's session through `NodeWorker.sendMessageToWorker`.
    pub fn send_to_worker(&mut self, session_id: &str, method: &str, params: Value) -> Result<u64> {
        let inner_id = self.next_id;
        self.next_id += 1;
        let message = json!({"id": inner_id, "method": method, "params": params}).to_string();
        self.send(
            "NodeWorker.sendMessageToWorker",
            json!({"sessionId": session_id, "message": message}),
        )
    }

    /// Sends `method` to the flat-mode session `session_id` (a target attached with
    /// `Target.attachToTarget`/`Target.setAutoAttach` and `flatten: true`); returns the request id.
    pub fn send_session(&mut self, session_id: &str, method: &str, params: Value) -> Result<u64> {
        let id = self.queue_request(Some(session_id), method, params)?;
        self.flush()
            .with_context(|| format!("sending {method} to the inspector"))?;
        Ok(id)
    }

    /// Sends `method` (to the flat-mode `session`, else the connection's own target) and waits at
    /// most `limit` for its answer: what the target answered, a result or its error object. Every
    /// other message read meanwhile goes to `other` with its session, so nothing is lost (a
    /// `Closed` too, before the error that follows it).
    pub fn call(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
        limit: Duration,
        other: &mut dyn FnMut(Option<String>, Incoming),
    ) -> Result<Result<Value, Value>> {
        let id = match session {
            Some(session) => self.send_session(session, method, params)?,
            None => self.send(method, params)?,
        };
        let deadline = std::time::Instant::now() + limit;
        loop {
            match self.read_flat()? {
                (_, Incoming::Response { id: got, result }) if got == id => return Ok(result),
                (_, Incoming::Idle) => {}
                (session, Incoming::Closed) => {
                    other(session, Incoming::Closed);
                    bail!("the inspector closed the connection during {method}");
                }
                (session, message) => other(session, message),
            }
            if std::time::Instant::now() >= deadline {
                bail!("no answer to {method} within {limit:?}");
            }
        }
    }

    /// Reads the next message, waiting at most one tick.
    pub fn read(&mut self) -> Result<Incoming> {
        Ok(self.read_flat()?.1)
    }

    /// Reads the next message with the flat-mode `sessionId` it came from (`None` for the
    /// connection's own target), waiting at most one tick.
    pub fn read_flat(&mut self) -> Result<(Option<String>, Incoming)> {
        if self.queued {
            self.flush()?;
        }
        let message = match self.socket.read() {
            Ok(message) => message,
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) =>
            {
                return Ok((None, Incoming::Idle));
            }
            Err(
                tungstenite::Error::ConnectionClosed
                | tungstenite::Error::AlreadyClosed
                | tungstenite::Error::Protocol(_),
            ) => return Ok((None, Incoming::Closed)),
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    ErrorKind::ConnectionReset | ErrorKind::BrokenPipe | ErrorKind::UnexpectedEof
                ) =>
            {
                return Ok((None, Incoming::Closed));
            }
            Err(e) => return Err(e).context("reading from the inspector"),
        };
        let text = match message {
            Message::Text(text) => text,
            Message::Close(_) => return Ok((None, Incoming::Closed)),
            _ => return Ok((None, Incoming::Idle)),
        };
        if self.debug {
            eprintln!("cdp <- {}{}", debug_time(), text.as_str());
        }
        Ok(parse_flat(text.as_str()))
    }

    /// Closes the connection; the runtime then exits with the program's own code.
    pub fn close(mut self) {
        let _ = self.socket.close(None);
        let _ = self.socket.flush();
        let _ = self
            .socket
            .get_ref()
            .stream
            .shutdown(std::net::Shutdown::Both);
    }
}

/// `[12.3 ms] ` when `TRACER_TIMINGS=1` is set too, for the debug log.
fn debug_time() -> String {
    crate::timings::elapsed_ms().map_or_else(String::new, |ms| format!("[{ms:.2} ms] "))
}

/// Splits one inspector message into a response or an event. Malformed messages become `Idle`:
/// a runtime that sends garbage loses that message, not the trace.
pub fn parse(text: &str) -> Incoming {
    parse_flat(text).1
}

/// [`parse`], with the flat-mode `sessionId` the message carries, if any.
pub fn parse_flat(text: &str) -> (Option<String>, Incoming) {
    let Ok(mut value) = serde_json::from_str::<Value>(text) else {
        return (None, Incoming::Idle);
    };
    let session = match value.get_mut("sessionId").map(Value::take) {
        Some(Value::String(id)) => Some(id),
        _ => None,
    };
    (session, parse_value(value))
}

fn parse_value(mut value: Value) -> Incoming {
    if let Some(id) = value.get("id").and_then(Value::as_u64) {
        let result = match value.get_mut("error") {
            Some(error) => Err(error.take()),
            None => Ok(value
                .get_mut("result")
                .map(Value::take)
                .unwrap_or(Value::Null)),
        };
        return Incoming::Response { id, result };
    }
    match value.get("method").and_then(Value::as_str) {
        Some(method) => Incoming::Event {
            method: method.to_owned(),
            params: value
                .get_mut("params")
                .map(Value::take)
                .unwrap_or(Value::Null),
        },
        None => Incoming::Idle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_urls_are_accepted() {
        assert!(loopback_address("ws://127.0.0.1:9229/abc").is_ok());
        for url in [
            "ws://0.0.0.0:9229/a",
            "ws://localhost:9229/a",
            "ws://10.0.0.1:1/a",
            "ws://[::1]:1/a",
            "http://127.0.0.1:1/a",
            "ws://127.0.0.1/a",
            "not a url",
        ] {
            assert!(loopback_address(url).is_err(), "{url}");
        }
    }

    #[test]
    fn parses_responses_errors_and_events() {
        assert!(matches!(
            parse(r#"{"id":3,"result":{"a":1}}"#),
            Incoming::Response {
                id: 3,
                result: Ok(_)
            }
        ));
        assert!(matches!(
            parse(r#"{"id":4,"error":{"code":-32000}}"#),
            Incoming::Response {
                id: 4,
                result: Err(_)
            }
        ));
        assert!(matches!(
            parse(r#"{"method":"Runtime.consoleAPICalled","params":{}}"#),
            Incoming::Event { .. }
        ));
        assert!(matches!(parse("{not json"), Incoming::Idle));
        assert!(matches!(parse("[]"), Incoming::Idle));
    }
}
