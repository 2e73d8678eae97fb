//! The members Chromium holds where the recorder cannot watch them, so that a reference trace
//! never has their accesses: [LegacyUnforgeable] members, own non-configurable accessors of each
//! object (every member of `Location`; `window`, `document`, `location` and `top` of a window;
//! a document's `location`; an event's `isTrusted`), and a style's CSS properties, which
//! Chromium holds as named properties of each `CSSStyleDeclaration`. An environment that defines
//! one on a prototype has its accesses recorded, and the check says that the trace could not
//! have had them (checked in Chromium 156: `location.href`, `style.top`, `window.top`,
//! `document.location` read by a page leave no line in its trace).

/// The members of `CSSStyleDeclaration` that are its interface's own (on its prototype in
/// Chromium too): every other name is a CSS property.
const STYLE_OWN: [&str; 9] = [
    "cssText",
    "length",
    "parentRule",
    "cssFloat",
    "getPropertyValue",
    "getPropertyPriority",
    "setProperty",
    "removeProperty",
    "item",
];

/// Why the reference could not have recorded `api` (an access path as an environment's
/// recording spells it: `Location.prototype.href`, `location.href`, `window.top`), if it could
/// not.
pub fn why(api: &str) -> Option<&'static str> {
    let (holder, member) = match api.split_once(".prototype.") {
        Some((holder, member)) => (holder, member),
        None => api.rsplit_once('.')?,
    };
    let holder = holder
        .strip_prefix("window.")
        .or_else(|| holder.strip_prefix("self."))
        .unwrap_or(holder);
    match (holder, member) {
        ("Location" | "location" | "document.location", _) => Some(
            "Chromium holds every member of Location as an own property of each `location` object ([LegacyUnforgeable]), where the recorder cannot watch it",
        ),
        (
            "Window" | "window" | "self" | "globalThis",
            "window" | "document" | "location" | "top",
        ) => Some(
            "Chromium holds it as an own property of each window ([LegacyUnforgeable]), where the recorder cannot watch it",
        ),
        ("Document" | "HTMLDocument" | "document", "location") => Some(
            "Chromium holds it as an own property of each document ([LegacyUnforgeable]), where the recorder cannot watch it",
        ),
        (_, "isTrusted") if holder.ends_with("Event") => Some(
            "Chromium holds it as an own property of each event ([LegacyUnforgeable]), where the recorder cannot watch it",
        ),
        ("CSSStyleDeclaration" | "CSS2Properties" | "CSSStyleProperties", name)
            if !STYLE_OWN.contains(&name) =>
        {
            Some(
                "Chromium holds a style's CSS properties as named properties of each CSSStyleDeclaration, where the recorder cannot watch them",
            )
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::why;

    #[test]
    fn what_chromium_holds_on_each_object_is_named() {
        for api in [
            "Location.prototype.href",
            "location.hostname",
            "window.top",
            "Window.prototype.location",
            "document.location",
            "Event.prototype.isTrusted",
            "MouseEvent.prototype.isTrusted",
            "CSSStyleDeclaration.prototype.top",
        ] {
            assert!(why(api).is_some(), "{api}");
        }
        for api in [
            "CSSStyleDeclaration.prototype.getPropertyValue",
            "Window.prototype.innerWidth",
            "navigator.userAgent",
            "DOMRectReadOnly.prototype.top",
            "top",
        ] {
            assert!(why(api).is_none(), "{api}");
        }
    }
}
