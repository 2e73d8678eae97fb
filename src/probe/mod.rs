//! The recording probe, one home for the browser and for Node: the JavaScript shipped inside the
//! binary (`js/reflect.js`, the structural measurement; the sections of `js/`, the wrappers and the reporting),
//! assembled here into one script with its configuration, and the default list of watched APIs.
//! `ingest` turns its binding messages into trace lines and `writer` writes them
//! (`tracer-trace/v1`); `node` installs it in the realms of a Node environment under audit (the
//! browser side is `crate::record::recording`); `js/node-requests.js` is the audit's request observer.

pub mod ingest;
pub mod node;
pub mod writer;

use serde_json::json;

/// The structural measurement, runnable in Node too (`require(".../reflect.js")(globalThis)`).
pub const REFLECT_JS: &str = include_str!("js/reflect.js");
/// The browser side: wrappers, phases, stateful families, the binding.
pub const PROBE_JS: &str = concat!(
    include_str!("js/report.js"),
    include_str!("js/api-table.js"),
    include_str!("js/cells.js"),
    include_str!("js/stateful.js"),
    include_str!("js/request-args.js"),
    include_str!("js/phases.js"),
    include_str!("js/to-string.js"),
    include_str!("js/descriptors.js"),
    include_str!("js/walk.js"),
    include_str!("js/checked-paths.js"),
    include_str!("js/install.js"),
);

/// The name of the CDP binding the probe reports through (deleted from the page's global).
pub const BINDING: &str = "__tracerRecord";
/// The probe's own script URL (its `sourceURL`): frames from it never appear in a stack.
pub const OWN_URL: &str = "tracer://probe.js";
/// Top stack frames kept per access.
pub const STACK_FRAMES: usize = 8;
/// The same in an environment under audit: the nearest frame and the two after it, all that the
/// audit reads of a record's stack (its filter of the environment's own accesses, `Rules::keeps`,
/// which looks past a `Proxy` trap, and past a helper the trap forwards through, and the check's
/// script positions). Every record's stack is captured there (the filter needs each one), so
/// each frame more is paid on every access.
pub const AUDIT_STACK_FRAMES: usize = 3;

/// The curated list: interfaces (prototype members, statics, the constructor), namespaces (their
/// functions), and single members (`X.prototype.m`, `X.m`, `window.m`). `tracer record` installs
/// it before its walk of the global (so a single member here is watched even as a data property,
/// `window.name`); the audit watches it in a Node environment's realms. Entries a realm does not
/// have are skipped there. Tags are not decided here but by [`TAGS`].
pub const DEFAULT_APIS: &[&str] = &[
    // Fingerprinting surfaces
    "Navigator",
    "WorkerNavigator",
    "NavigatorUAData",
    "Screen",
    "ScreenOrientation",
    "Plugin",
    "PluginArray",
    "MimeType",
    "MimeTypeArray",
    "Permissions",
    "MediaDevices",
    "BatteryManager",
    "HTMLCanvasElement",
    "CanvasRenderingContext2D",
    "OffscreenCanvas",
    "OffscreenCanvasRenderingContext2D",
    "WebGLRenderingContext",
    "WebGL2RenderingContext",
    "AudioContext",
    "OfflineAudioContext",
    "BaseAudioContext",
    "AnalyserNode",
    "window.devicePixelRatio",
    "window.innerWidth",
    "window.innerHeight",
    "window.outerWidth",
    "window.outerHeight",
    "window.screenX",
    "window.screenY",
    "window.matchMedia",
    "window.name",
    // The document and its cookie, storage, history
    "Document",
    "HTMLDocument",
    "Node.prototype.appendChild",
    "Node.prototype.insertBefore",
    "Node.prototype.removeChild",
    "Node.prototype.replaceChild",
    "Storage",
    "window.localStorage",
    "window.sessionStorage",
    "History",
    // Requests
    "XMLHttpRequest",
    "XMLHttpRequestEventTarget",
    "window.fetch",
    "Request",
    "Response",
    "Headers",
    "WebSocket",
    // Time, locale, randomness
    "Performance",
    "Date",
    "Intl.DateTimeFormat",
    "Intl.NumberFormat",
    "Math.random",
    // Workers, messaging, events, observers
    "Worker",
    "MessageChannel",
    "MessagePort",
    "Event",
    "MutationObserver",
    // Encoding and crypto
    "window.atob",
    "window.btoa",
    "Crypto",
];

/// The tag table, applied to whatever is recorded (the walk's members and `--api`'s as much as
/// the list's): a name is an interface (every member of it), a member (`X.prototype.m`, `X.m`),
/// a global (`fetch`, `window.devicePixelRatio`) or a singleton's member (`document.cookie`).
pub const TAGS: &[(&str, &[&str])] = &[
    // Fingerprinting surfaces: whole interfaces
    ("Navigator", &["fingerprint"]),
    ("WorkerNavigator", &["fingerprint"]),
    ("NavigatorUAData", &["fingerprint"]),
    ("Screen", &["fingerprint"]),
    ("ScreenOrientation", &["fingerprint"]),
    ("HTMLCanvasElement", &["fingerprint"]),
    ("CanvasRenderingContext2D", &["fingerprint"]),
    ("OffscreenCanvas", &["fingerprint"]),
    ("OffscreenCanvasRenderingContext2D", &["fingerprint"]),
    ("WebGLRenderingContext", &["fingerprint"]),
    ("WebGL2RenderingContext", &["fingerprint"]),
    ("Plugin", &["fingerprint"]),
    ("PluginArray", &["fingerprint"]),
    ("MimeType", &["fingerprint"]),
    ("MimeTypeArray", &["fingerprint"]),
    ("AudioContext", &["fingerprint"]),
    ("OfflineAudioContext", &["fingerprint"]),
    ("BaseAudioContext", &["fingerprint"]),
    ("AnalyserNode", &["fingerprint"]),
    ("OscillatorNode", &["fingerprint"]),
    ("DynamicsCompressorNode", &["fingerprint"]),
    ("AudioBuffer", &["fingerprint"]),
    ("MediaDevices", &["fingerprint"]),
    ("Permissions", &["fingerprint"]),
    ("BatteryManager", &["fingerprint"]),
    ("NetworkInformation", &["fingerprint"]),
    ("CSS", &["fingerprint"]),
    ("Math", &["fingerprint"]),
    // Fingerprinting surfaces: single members
    (
        "Intl.DateTimeFormat.prototype.resolvedOptions",
        &["fingerprint"],
    ),
    ("Date.prototype.getTimezoneOffset", &["fingerprint"]),
    ("window.devicePixelRatio", &["fingerprint"]),
    ("window.innerWidth", &["fingerprint"]),
    ("window.innerHeight", &["fingerprint"]),
    ("window.outerWidth", &["fingerprint"]),
    ("window.outerHeight", &["fingerprint"]),
    ("window.screenX", &["fingerprint"]),
    ("window.screenY", &["fingerprint"]),
    ("window.matchMedia", &["fingerprint"]),
    ("window.screen", &["fingerprint"]),
    ("window.navigator", &["fingerprint"]),
    ("window.indexedDB", &["fingerprint"]),
    ("window.openDatabase", &["fingerprint"]),
    ("Element.prototype.getBoundingClientRect", &["fingerprint"]),
    ("HTMLElement.prototype.offsetWidth", &["fingerprint"]),
    ("HTMLElement.prototype.offsetHeight", &["fingerprint"]),
    // Automation and bot detection
    (
        "Navigator.prototype.webdriver",
        &["fingerprint", "detection"],
    ),
    ("navigator.webdriver", &["fingerprint", "detection"]),
    ("Document.prototype.hasFocus", &["detection"]),
    ("Notification.permission", &["detection"]),
    ("Permissions.prototype.query", &["fingerprint", "detection"]),
    ("chrome", &["detection"]),
    ("window.external", &["detection"]),
    // Requests
    ("XMLHttpRequest", &["request"]),
    ("XMLHttpRequestEventTarget", &["request"]),
    ("Request", &["request"]),
    ("Response", &["request"]),
    ("Headers", &["request"]),
    ("WebSocket", &["request"]),
    ("EventSource", &["request"]),
    ("fetch", &["request"]),
    ("Navigator.prototype.sendBeacon", &["request"]),
    ("navigator.sendBeacon", &["request"]),
    // Cookies
    ("Document.prototype.cookie", &["cookie"]),
    ("document.cookie", &["cookie"]),
];

/// What `tracer record` watches: the list (installed first, so its entries keep their names,
/// and its single members are watched even as data properties), the walk of each realm's global
/// (`walk`), less `exclude`; `asked` are the names the user gave (`--api`, `--api-exclude`),
/// reported back by each realm where they name nothing.
#[derive(Debug, Clone, Default)]
pub struct Watch {
    pub apis: Vec<String>,
    pub exclude: Vec<String>,
    pub asked: Vec<String>,
    pub walk: bool,
}

/// Records per batch, at most (see `post` in js/report.js).
pub const BATCH_RECORDS: usize = 512;
/// A batch leaves with the first record finished this many milliseconds after it began, if the
/// task has not ended by then.
pub const BATCH_MS: u64 = 10;

/// The probe as one script: `config` is the JSON object the probe reads (`binding`, `apis`,
/// `ownUrl`, `stackLimit`, `batchRecords`, `batchMs`). Without `batch`, every record leaves on
/// its own.
pub fn source(apis: &[String], batch: bool) -> String {
    script(config_with(apis, batch, false, &[], None, false, &[]))
}

/// The probe as `tracer record` installs it: [`source`] for a [`Watch`].
pub fn record_source(watch: &Watch, batch: bool) -> String {
    script(config(
        &watch.apis,
        batch,
        false,
        &[],
        None,
        // A stack captured now and then for an api read from one place over and over (see
        // `sampled` in js/report.js): the reference trace's hot loops, not the audit's.
        json!({"walk": watch.walk, "exclude": watch.exclude, "asked": watch.asked,
               "realmToken": realm_token(), "sampleStacks": true}),
    ))
}

/// The probe's configuration: [`source`]'s, with `mark_nested`: records made while another
/// recorded call runs carry `nested: 1` (the audit's filter of the environment's own accesses reads
/// it); and `read_only`: entries of `apis` watched only for being read (Node's own globals in a Node
/// realm); and `known_members`: where an environment holds members a browser cannot show the probe
/// (see `knownMember` in js/cells.js), only these names are watched; and `walk`: after the list,
/// every interface and namespace the realm's global reaches (with `known_members`, only those
/// names); and `check_paths`: `[realm kind, api]` pairs whose resolution the probe reports in its
/// `ready` record (see js/checked-paths.js). The audit adds fields before each install and makes
/// the script with [`script_for`].
pub fn config_with(
    apis: &[String],
    batch: bool,
    mark_nested: bool,
    read_only: &[String],
    known_members: Option<&[String]>,
    walk: bool,
    check_paths: &[[String; 2]],
) -> serde_json::Value {
    config(
        apis,
        batch,
        mark_nested,
        read_only,
        known_members,
        // An environment under audit (the only caller with `known_members`) has its frames'
        // windows entered when the page first reaches them (`enterRealm` in js/cells.js).
        // And in Node, a stack is captured with the realm's global `Error` its own (see
        // `pinError` in js/reflect.js).
        json!({"walk": walk, "checkPaths": check_paths, "enterRealms": known_members.is_some(),
               "stackLimit": if known_members.is_some() { AUDIT_STACK_FRAMES } else { STACK_FRAMES },
               "pinGlobalError": known_members.is_some(), "receiverIds": known_members.is_some()}),
    )
}

/// The probe's script for a configuration made by [`config_with`].
pub fn script_for(config: serde_json::Value) -> String {
    script(config)
}

/// A token the probes of one recording share (see `foreignSource` in probe.js), unguessable by the
/// page: a digest of the time, the process id and a fresh heap address.
fn realm_token() -> String {
    use sha2::Digest;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let heap = Box::new(0u8);
    let seed = format!(
        "{nanos}:{}:{:p}",
        std::process::id(),
        std::ptr::addr_of!(*heap)
    );
    format!(
        "tracer-realm-{}",
        hex::encode(&sha2::Sha256::digest(seed.as_bytes())[..16])
    )
}

/// The probe's configuration object; `more` adds fields.
fn config(
    apis: &[String],
    batch: bool,
    mark_nested: bool,
    read_only: &[String],
    known_members: Option<&[String]>,
    more: serde_json::Value,
) -> serde_json::Value {
    let tags: serde_json::Map<String, serde_json::Value> = TAGS
        .iter()
        .map(|(name, tags)| ((*name).to_owned(), json!(tags)))
        .collect();
    let mut config = json!({
        "tags": tags,
        "keysComputedBy": &crate::conformance::contract::KEYS_COMPUTED_BY[..],
        "markNested": mark_nested,
        "readOnly": read_only,
        "knownMembers": known_members,
        "binding": BINDING,
        "apis": apis,
        "ownUrl": OWN_URL,
        "stackLimit": STACK_FRAMES,
        "batchRecords": if batch { BATCH_RECORDS } else { 1 },
        "batchMs": BATCH_MS,
    });
    if let (Some(config), serde_json::Value::Object(more)) = (config.as_object_mut(), more) {
        config.extend(more);
    }
    config
}

/// The probe's script around its configuration, named [`OWN_URL`], or its `scriptUrl` (which
/// starts with it: an audit names each realm's probe apart, see `probe::node`).
fn script(config: serde_json::Value) -> String {
    let url = config
        .get("scriptUrl")
        .and_then(serde_json::Value::as_str)
        .filter(|url| url.starts_with(OWN_URL))
        .unwrap_or(OWN_URL)
        .to_owned();
    format!(
        "(function (config) {{\n\"use strict\";\n{}\n}})({config});\n//# sourceURL={url}\n",
        shipped_code()
    )
}

/// [`REFLECT_JS`] and [`PROBE_JS`] as a realm receives them: without their comment lines, which
/// are some 40 KB of every install's message that the page's V8 would read and skip (a Node
/// install's message is converted and parsed as a whole before the probe runs). A line is dropped
/// only when it is nothing but a `//` comment: the probe has no template literal, and no string
/// or regular expression continues onto another line, so such a line is never part of one.
fn shipped_code() -> &'static str {
    static CODE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    CODE.get_or_init(|| {
        let mut code = String::with_capacity(REFLECT_JS.len() + PROBE_JS.len());
        for line in REFLECT_JS.lines().chain(PROBE_JS.lines()) {
            let text = line.trim_start();
            if text.starts_with("//") || text.is_empty() {
                continue;
            }
            code.push_str(line);
            code.push('\n');
        }
        code
    })
}

/// The default list plus `extra`, without repeats, in order.
pub fn api_list(extra: &[String]) -> Vec<String> {
    let mut list: Vec<String> = DEFAULT_APIS.iter().map(|s| (*s).to_owned()).collect();
    for api in extra {
        if !list.contains(api) {
            list.push(api.clone());
        }
    }
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_apis_are_appended_once() {
        let list = api_list(&["Navigator".into(), "Element".into(), "Element".into()]);
        assert_eq!(list.len(), DEFAULT_APIS.len() + 1);
        assert_eq!(list.last().map(String::as_str), Some("Element"));
    }

    #[test]
    fn the_script_carries_its_configuration_and_source_url() {
        let script = source(&["Navigator".into()], true);
        assert!(script.contains(r#""binding":"__tracerRecord""#));
        assert!(script.ends_with("//# sourceURL=tracer://probe.js\n"));
    }

    #[test]
    fn the_shipped_code_drops_only_comment_lines_and_no_line_can_be_inside_a_literal() {
        // What makes dropping a `//` line safe (see `shipped_code`): no template literal, and no
        // string continued onto the next line.
        for (n, line) in REFLECT_JS.lines().chain(PROBE_JS.lines()).enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            assert!(!line.contains('`'), "line {}: {line}", n + 1);
            assert!(!line.ends_with('\\'), "line {}: {line}", n + 1);
        }
        let code = shipped_code();
        assert!(!code.lines().any(|l| l.trim_start().starts_with("//")));
        let kept = |text: &str| {
            text.lines()
                .filter(|l| !l.trim_start().starts_with("//") && !l.trim().is_empty())
                .count()
        };
        assert_eq!(code.lines().count(), kept(REFLECT_JS) + kept(PROBE_JS));
    }
}
