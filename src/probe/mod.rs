//! The recording probe, one home for the browser and for Node: the JavaScript shipped inside the
//! binary (`reflect.js`, the structural measurement; `probe.js`, the wrappers and the reporting),
//! assembled here into one script with its configuration, and the default list of watched APIs.
//! `ingest` turns its binding messages into trace lines and `writer` writes them
//! (`tracer-trace/v1`); `node` installs it in the realms of a Node environment under audit (the
//! browser side is `crate::record::session`); `requests.js` is the audit's request observer.

pub mod ingest;
pub mod node;
pub mod writer;

use serde_json::json;

/// The structural measurement, runnable in Node too (`require(".../reflect.js")(globalThis)`).
pub const REFLECT_JS: &str = include_str!("reflect.js");
/// The browser side: wrappers, phases, stateful families, the binding.
pub const PROBE_JS: &str = include_str!("probe.js");

/// The name of the CDP binding the probe reports through (deleted from the page's global).
pub const BINDING: &str = "__tracerRecord";
/// The probe's own script URL (its `sourceURL`): frames from it never appear in a stack.
pub const OWN_URL: &str = "tracer://probe.js";
/// Top stack frames kept per access.
pub const STACK_FRAMES: usize = 8;

/// The APIs watched by default: interfaces (prototype members, statics, the constructor),
/// namespaces (their functions), and single members (`X.prototype.m`, `X.m`, `window.m`).
/// Entries a realm does not have are skipped there.
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

/// Records per batch, at most (see `post` in probe.js).
pub const BATCH_RECORDS: usize = 512;
/// A batch leaves with the first record finished this many milliseconds after it began, if the
/// task has not ended by then.
pub const BATCH_MS: u64 = 10;

/// The probe as one script: `config` is the JSON object the probe reads (`binding`, `apis`,
/// `ownUrl`, `stackLimit`, `batchRecords`, `batchMs`). Without `batch`, every record leaves on
/// its own.
pub fn source(apis: &[String], batch: bool) -> String {
    source_with(apis, batch, false, &[], None)
}

/// [`source`], with `mark_nested`: records made while another recorded call runs carry
/// `nested: 1` (the audit's filter of the environment's own accesses reads it); and `read_only`:
/// entries of `apis` watched only for being read (Node's own globals in a Node realm); and
/// `known_members`: where an environment holds members a browser cannot show the probe (see
/// `knownMember` in probe.js), only these names are watched.
pub fn source_with(
    apis: &[String],
    batch: bool,
    mark_nested: bool,
    read_only: &[String],
    known_members: Option<&[String]>,
) -> String {
    let config = json!({
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
    format!(
        "(function (config) {{\n\"use strict\";\n{REFLECT_JS}\n{PROBE_JS}\n}})({config});\n//# sourceURL={OWN_URL}\n"
    )
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
}
