//! The diff's work list: the blocking findings grouped by what one change to the environment
//! fixes, what the script got and did before the shape the probe measured, largest group first.
//! Grouping only arranges findings the check made; it never adds, drops or re-judges one.
//!
//! The groups, by the first rule that applies to a finding:
//! - `lacks`: items the environment lacks (`environment-lacks`, and what follows from it), by the
//!   interface or singleton they belong to (`CanvasRenderingContext2D`, `navigator.userAgentData`);
//! - `divergence`: items not reached, by where the runtimes parted (the value that differed, else
//!   the last item both reached);
//! - `class`: a value that is an object of another class than the browser's (jsdom's
//!   `getBoundingClientRect` gives a plain `Object`, Chromium's a `DOMRect`), or values of a
//!   class more or less (lit's `<style>` in jsdom): their brand, constructor, chain, own keys,
//!   value and side effect, one group per API and its classes;
//! - `instances`: `instanceOf` lists that lack names the browser's have, by those names (the
//!   page's `Object` and `EventTarget`, whatever the interface);
//! - `elements`: arrays with other elements than the browser's, by API (own-key lists that differ
//!   only by array indices, return values that are arrays on both sides);
//! - `own-keys`: own-key lists that differ only by keys the environment adds, by those keys
//!   (`Symbol(impl)` on every object of an implementation), or only by keys it lacks (happy-dom's
//!   events without their own `isTrusted`);
//! - `native`: descriptors whose functions are JavaScript where the browser has native code;
//! - `receiver`, and every other dimension: by the dimension and the pair of values (one
//!   interface's receiver, one prototype chain), so that the same difference on many items is one
//!   group;
//! - anything else (a stale hash, a network attempt, a host API the trace never recorded): a group
//!   per code.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conformance::finding::{self, Finding};
use crate::conformance::missing;
use crate::conformance::random_names;

/// One group of the work list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    /// What kind of change closes it: `lacks`, `divergence`, `class`, `instances`, `elements`,
    /// `own-keys`, `native`, `dimension`, or a finding code.
    pub kind: String,
    /// The change, in words.
    pub title: String,
    /// Findings it closes.
    pub count: usize,
    /// The items' paths (with access types), in the order of their findings, each once.
    pub items: Vec<String>,
    /// What the browser showed (one finding's expected value), where there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    /// What the environment showed, where the group shares one value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<Value>,
    /// What to do.
    pub action: String,
}

/// The interface or singleton an api path belongs to: `X` for `X.prototype.m` and `X.m`, the
/// path less its last segment for `navigator.m`, the global (`window`, a worker's `self`) for a
/// member of its own.
fn owner_of<'a>(api: &'a str, realm: Option<&str>) -> &'a str {
    if let Some((iface, _)) = api.split_once(".prototype.") {
        return iface;
    }
    match api.rsplit_once('.') {
        Some((head, _)) => head,
        // A member of the global itself (`opener`): a worker's global is its `self`.
        None if realm.is_some_and(|r| r.ends_with("worker")) => "self",
        None => "window",
    }
}

/// The strings of a list of lists of keys, random parts of names left out (see [`random_names`]).
fn keys_of(values: &Value) -> BTreeSet<String> {
    values
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|list| list.as_array().into_iter().flatten())
        // A page's library's random key names are one name in both runtimes.
        .filter_map(|k| k.as_str().map(|k| random_names::skeleton(k).into_owned()))
        .collect()
}

/// Whether a descriptor list holds a function with `native` of `want`.
fn has_native(values: &Value, want: bool) -> bool {
    values.as_array().into_iter().flatten().any(|d| {
        ["get", "set", "value"].iter().any(|part| {
            d.get(part)
                .and_then(|f| f.get("native"))
                .and_then(Value::as_bool)
                == Some(want)
        })
    })
}

/// The names an `instanceOf` finding's values lack, where each of the environment's lists is the
/// browser's less some names (happy-dom's nodes are not `instanceof` the page's `Object` and
/// `EventTarget`): one change whatever the interface.
fn lacking_instances(f: &Finding) -> Option<BTreeSet<String>> {
    if f.dimension.as_deref() != Some("instanceOf") {
        return None;
    }
    let lists = |v: Option<&Value>| -> Option<Vec<BTreeSet<String>>> {
        v?.as_array()?
            .iter()
            .map(|list| {
                list.as_array().map(|names| {
                    names
                        .iter()
                        .filter_map(|n| n.as_str().map(str::to_owned))
                        .collect()
                })
            })
            .collect()
    };
    let (expected, observed) = (lists(f.expected.as_ref())?, lists(f.observed.as_ref())?);
    if expected.len() != observed.len() {
        return None;
    }
    let mut lacking = BTreeSet::new();
    for (want, seen) in expected.iter().zip(&observed) {
        if !seen.is_subset(want) {
            return None;
        }
        lacking.extend(want.difference(seen).cloned());
    }
    (!lacking.is_empty()).then_some(lacking)
}

/// The keys an own-key finding's environment adds to the browser's list, if it only adds.
fn added_keys(f: &Finding) -> Option<Vec<String>> {
    if !matches!(
        f.dimension.as_deref(),
        Some("ownKeys" | "ownSymbols" | "ownNames" | "keys")
    ) {
        return None;
    }
    let seen = keys_of(f.observed.as_ref()?);
    let wanted = keys_of(f.expected.as_ref()?);
    // An array index more is one element more (happy-dom's `takeRecords()` gave two records where
    // Chromium gave one): a value of another length, not the implementation's state.
    let extra: Vec<String> = seen
        .difference(&wanted)
        .filter(|key| !is_index(key))
        .cloned()
        .collect();
    (!extra.is_empty() && wanted.is_subset(&seen)).then_some(extra)
}

/// The own keys `f`'s lists lack and the ones they add (array indices are elements, neither),
/// for an own-key dimension.
fn key_difference(f: &Finding) -> Option<(Vec<String>, Vec<String>)> {
    if !matches!(
        f.dimension.as_deref(),
        Some("ownKeys" | "ownSymbols" | "ownNames" | "keys")
    ) {
        return None;
    }
    let seen = keys_of(f.observed.as_ref()?);
    let wanted = keys_of(f.expected.as_ref()?);
    let apart = |a: &BTreeSet<String>, b: &BTreeSet<String>| -> Vec<String> {
        a.difference(b)
            .filter(|key| !is_index(key))
            .cloned()
            .collect()
    };
    Some((apart(&wanted, &seen), apart(&seen, &wanted)))
}

/// The own keys `f` lacks, where its lists differ only by keys the browser's objects carry and
/// the environment's do not (happy-dom's events lack their own `isTrusted`).
fn lacking_keys(f: &Finding) -> Option<Vec<String>> {
    let (lacking, added) = key_difference(f)?;
    (!lacking.is_empty() && added.is_empty()).then_some(lacking)
}

/// The own keys `f`'s lists lack and the ones they add, where they both lack and add some
/// (happy-dom's `MouseEvent` carries its state as 26 own keys, and lacks the own `isTrusted`).
fn lacking_and_added_keys(f: &Finding) -> Option<(Vec<String>, Vec<String>)> {
    let (lacking, added) = key_difference(f)?;
    (!lacking.is_empty() && !added.is_empty()).then_some((lacking, added))
}

/// Up to three of `keys`, and how many more.
fn some_of(keys: &[String]) -> String {
    match keys.len() {
        n if n <= 3 => keys.join(", "),
        n => format!("{} and {} more", keys[..3].join(", "), n - 3),
    }
}

/// What part of the page a member writes or reads back: `attribute`, `text` (a node's text and
/// children), `style`, or `markup` (all of them, serialized); `None` for anything else (a layout
/// value, which the browser computes, is no read-back of what the script wrote).
fn page_part(member: &str) -> Option<&'static str> {
    Some(match member {
        "getAttribute" | "getAttributeNS" | "setAttribute" | "setAttributeNS" | "className"
        | "title" | "value" | "id" => "attribute",
        "textContent" | "innerText" | "nodeValue" | "data" => "text",
        "cssText" | "getPropertyValue" | "setProperty" => "style",
        "innerHTML" | "outerHTML" => "markup",
        m if ["append", "insert", "replace", "write"]
            .iter()
            .any(|verb| m.starts_with(verb)) =>
        {
            "text"
        }
        _ => return None,
    })
}

fn member_of(f: &Finding) -> &str {
    f.api
        .as_deref()
        .unwrap_or("")
        .rsplit('.')
        .next()
        .unwrap_or("")
}

/// The part of the page `f` writes, where it is a write: a property set, or a call that sets, adds
/// or writes (`setAttribute`, `appendChild`, `insertBefore`).
fn writes(f: &Finding) -> Option<&'static str> {
    let member = member_of(f);
    let is_write = f.access_type.as_deref() == Some("set")
        || (f.access_type.as_deref() == Some("call") && !member.starts_with("get"));
    is_write.then(|| page_part(member)).flatten()
}

/// The part of the page `f` reads back, where it is a value read of one (`getAttribute`,
/// `textContent`, `cssText`).
fn reads(f: &Finding) -> Option<&'static str> {
    let value = matches!(
        f.dimension.as_deref(),
        Some("returnValue" | "outcomesByArgs")
    );
    let read = f.access_type.as_deref() == Some("get")
        || (f.access_type.as_deref() == Some("call") && member_of(f).starts_with("get"));
    (value && read).then(|| page_part(member_of(f))).flatten()
}

/// Whether `f` is a difference in the elements of arrays: own-key lists that differ only by array
/// indices, or return values that are arrays on both sides.
fn elements_differ(f: &Finding) -> bool {
    let (Some(observed), Some(expected)) = (f.observed.as_ref(), f.expected.as_ref()) else {
        return false;
    };
    match f.dimension.as_deref() {
        Some("ownKeys" | "ownNames" | "keys") => {
            let (seen, wanted) = (keys_of(observed), keys_of(expected));
            seen != wanted && seen.symmetric_difference(&wanted).all(|k| is_index(k))
        }
        Some("returnValue") => {
            let arrays = |v: &Value| {
                v.as_array()
                    .is_some_and(|values| !values.is_empty() && values.iter().all(Value::is_array))
            };
            arrays(observed) && arrays(expected)
        }
        _ => false,
    }
}

/// Whether `key` is an array index (`0`, `17`; not `01` nor `-1`).
fn is_index(key: &str) -> bool {
    key == "0"
        || (!key.starts_with('0') && !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit()))
}

/// The group key, title, action and shared values of one finding. `leaked` counts, per added
/// key, the own-key findings that add it: a finding that adds several joins its most common
/// key's group.
fn classify(
    f: &Finding,
    leaked: &HashMap<String, usize>,
    classes: &HashMap<String, Classes>,
    given_other: &HashMap<String, Vec<String>>,
) -> (String, String, String, String) {
    let api = f.api.as_deref().unwrap_or("");
    let dim = f.dimension.as_deref().unwrap_or("");
    let expected = without_ids(f.expected.as_ref());
    let observed = without_ids(f.observed.as_ref());
    if let Some(lacking) = &f.lacks {
        // The interface the lacking part belongs to (the lacking interface itself, or the
        // interface of a lacking member).
        if lacking == api {
            // A member lacking where its interface is there (happy-dom's `HTMLElement` without
            // `offsetParent`): the title must not say the interface is.
            let owner = owner_of(api, f.realm.as_deref());
            return (
                format!("lacks-members\t{owner}"),
                "lacks".into(),
                format!("the environment's {owner} lacks members the browser has: provide them"),
                format!("provide the members below on {owner}, as the browser does"),
            );
        }
        return (
            format!("lacks\t{lacking}"),
            "lacks".into(),
            format!("the environment lacks {lacking}: provide it"),
            format!("provide {lacking} with the members below, as the browser does"),
        );
    }
    if f.cause.as_deref() == Some(missing::NOT_REACHED) {
        let at = f.divergence.as_ref().and_then(|d| {
            d.get("differed")
                .map(|x| (x, "differed"))
                .or_else(|| d.get("lastReached").map(|x| (x, "lastReached")))
        });
        if let Some(ended) = f
            .divergence
            .as_ref()
            .and_then(|d| d.get("entryEnded"))
            .and_then(Value::as_str)
        {
            return (
                "divergence\tentry".into(),
                "divergence".into(),
                format!("not reached: the entry {ended} before the script ran"),
                "make the entry finish with exit code 0 (see ENTRY_FAILED), then audit again"
                    .into(),
            );
        }
        let page_error = f
            .divergence
            .as_ref()
            .and_then(|d| d.get("pageError"))
            .and_then(Value::as_str);
        // The page's script threw there and not in the browser: a fact, where a value that
        // differed before is a lead (a happy-dom page whose library never became a global: "make
        // document.createElement give what the browser gave", of a call that gave the same).
        if let Some(error) = page_error {
            let lead = match at {
                Some((x, "differed")) => format!(
                    "; else the closest value before these items that differed is {}'s ({}) {} (a lead, not proof of cause)",
                    x["api"].as_str().unwrap_or(""),
                    x["accessType"].as_str().unwrap_or(""),
                    x["dimension"].as_str().unwrap_or("")
                ),
                _ => String::new(),
            };
            return (
                format!("divergence\tpage-error\t{error}"),
                "divergence".into(),
                format!(
                    "not reached: the environment reported an error of the page's script, {error}, after which the script did not go on there"
                ),
                format!(
                    "find why the page's script throws there ({error}) and not in the browser{lead}"
                ),
            );
        }
        let (key, title, action) = match at {
            Some((x, "differed")) => {
                let api = x["api"].as_str().unwrap_or("");
                let dim = x["dimension"].as_str().unwrap_or("");
                (
                    format!("divergence\t{api}\t{dim}"),
                    format!(
                        "not reached after {api} ({}) {dim} differed",
                        x["accessType"].as_str().unwrap_or("")
                    ),
                    if x["givenOther"] == true {
                        format!(
                            "find where the values the script passed to {api} came from (it was given other arguments than in the browser); these items follow once the script takes the browser's branch"
                        )
                    } else {
                        format!(
                            "make {api} give what the browser gave; these items follow once the script takes the browser's branch"
                        )
                    },
                )
            }
            Some((x, _)) => {
                let api = x["api"].as_str().unwrap_or("");
                (
                    format!("divergence\t{api}"),
                    format!("not reached after {api}"),
                    "compare what the script did after that point in both runtimes".into(),
                )
            }
            None => (
                "divergence\t".into(),
                "not reached before any item both runtimes reached".into(),
                "compare how the script starts in both runtimes".into(),
            ),
        };
        return (key, "divergence".into(), title, action);
    }
    if f.cause.is_some() {
        let cause = f.cause.as_deref().unwrap_or("");
        return (
            format!("cause\t{cause}"),
            cause.into(),
            format!("{cause}: the tool could not watch these items"),
            f.action.clone(),
        );
    }
    if matches!(
        dim,
        "brand"
            | "constructorName"
            | "instanceOf"
            | "prototypeChain"
            | "returnValue"
            | "ownKeys"
            | "ownSymbols"
            | "ownNames"
            | "keys"
            | "sideEffect"
    ) && let Some(classes) = f.item.as_ref().and_then(|item| classes.get(item))
    {
        let (browser, here) = (&classes.browser, &classes.here);
        // `null` is no class: named as it is.
        let named = |n: &str| match n {
            "null" => "null".to_owned(),
            n => missing::with_article(n),
        };
        let listed = |names: &[String]| {
            names
                .iter()
                .map(|n| named(n))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let key = format!("class\t{api}\t{}\t{}", browser.join(","), here.join(","));
        if let ([browser], [here]) = (browser.as_slice(), here.as_slice()) {
            // The object is of another kind altogether (jsdom's `getBoundingClientRect` gives a
            // plain `Object` with its own `x`…`width` where Chromium gives a `DOMRect`): its
            // brand, chain and own keys follow from that (the keys are its data, not the
            // implementation's state leaking), one change for all of them.
            return (
                key,
                "class".into(),
                format!(
                    "{api} gives {} where the browser gives {}",
                    named(here),
                    named(browser)
                ),
                format!(
                    "make {api} give {} as the browser does: its brand, prototype chain and own keys follow; where the script put the object there (a node it appended), look at what it did before, in the other groups",
                    named(browser)
                ),
            );
        }
        // Objects of a class more, or less, among those it gave (lit, without
        // `adoptedStyleSheets` in jsdom, adds a `<style>` to what it renders: `firstChild`
        // gives an `HTMLStyleElement` too): one change, often made upstream.
        let extra: Vec<String> = here
            .iter()
            .filter(|n| !browser.contains(n))
            .cloned()
            .collect();
        let fewer: Vec<String> = browser
            .iter()
            .filter(|n| !here.contains(n))
            .cloned()
            .collect();
        let title = match (extra.is_empty(), fewer.is_empty()) {
            (false, true) => format!(
                "{api} also gives {} where the browser gives none",
                listed(&extra)
            ),
            (true, false) => format!(
                "{api} never gives {} where the browser does",
                listed(&fewer)
            ),
            _ => format!(
                "{api} gives {} where the browser gives {}",
                listed(here),
                listed(browser)
            ),
        };
        return (
            key,
            "class".into(),
            title,
            if classes.other_args.is_empty() {
                format!(
                    "make {api} give what the browser gives ({}): its brand, prototype chain, own keys and value follow; where the script put the object there (a node it appended), look at what it did before, in the other groups",
                    listed(browser)
                )
            } else {
                format!(
                    "the script called {api} with arguments no call in the browser had ({}): the other objects are those calls' answers, not {api}'s mistake; look at what made the script make them, before, in the other groups (an earlier call that gave an object of another class, a member the environment lacks)",
                    classes.other_args.join(", ")
                )
            },
        );
    }
    // Arguments answered otherwise than in the browser: the message names the first of them and
    // what came of it on each side, which is the change to make.
    if dim == crate::conformance::contract::OUTCOMES_BY_ARGS {
        return (
            format!("outcomes\t{api}"),
            "outcomes".into(),
            f.message.clone(),
            f.action.clone(),
        );
    }
    if let Some(lacking) = lacking_instances(f) {
        let names = lacking.iter().cloned().collect::<Vec<_>>().join(", ");
        let realm = if lacking.contains("Object") {
            " (a chain that ends in another realm's Object.prototype, not the script's: `value instanceof Object` is false there)"
        } else {
            ""
        };
        return (
            format!("instances\t{names}"),
            "instances".into(),
            format!(
                "the environment's values are not instances of {names} where the browser's are{realm}"
            ),
            format!(
                "make these objects in the script's realm, on prototype chains through its own {names} as the browser's are"
            ),
        );
    }
    if elements_differ(f) {
        // One array more or less in what an API gives (happy-dom's `takeRecords()` gave two
        // records where Chromium gave one): its keys and its value differ together.
        return (
            format!("elements\t{api}"),
            "elements".into(),
            format!("{api} gives arrays with other elements than the browser's"),
            format!(
                "make {api} give the elements the browser gives (their number and their values)"
            ),
        );
    }
    if let Some(mut extra) = added_keys(f) {
        // The most common first: the group's key, then the others this finding adds.
        extra.sort_by_key(|k| {
            (
                std::cmp::Reverse(leaked.get(k).copied().unwrap_or(0)),
                k.clone(),
            )
        });
        let key = extra[0].clone();
        let keys = match extra.len() {
            1 => key.clone(),
            n if n <= 3 => extra.join(", "),
            n => format!("{} and {} more", extra[..3].join(", "), n - 3),
        };
        let (a_key, these) = if extra.len() == 1 {
            ("an own key", key.clone())
        } else {
            ("own keys", format!("these {} keys", extra.len()))
        };
        return (
            format!("own-keys\t{key}"),
            "own-keys".into(),
            format!("objects of the environment carry {a_key} the browser's do not: {keys}"),
            format!(
                "hide {these} from the objects the script sees (keep the implementation's state off the object, or in a WeakMap)"
            ),
        );
    }
    if let Some(lacking) = lacking_keys(f) {
        let keys = some_of(&lacking);
        let (a_key, these) = if lacking.len() == 1 {
            ("an own key", lacking[0].clone())
        } else {
            ("own keys", format!("these {} keys", lacking.len()))
        };
        return (
            format!("lacks-keys\t{}", lacking.join(",")),
            "own-keys".into(),
            format!("objects of the environment lack {a_key} the browser's carry: {keys}"),
            format!(
                "give these objects {these} as their own, as the browser does (a member the platform makes own, such as an event's isTrusted, is on each object, not on its prototype); where the page puts a key there itself, look at what it did before, in the other groups"
            ),
        );
    }
    if let Some((lacking, added)) = lacking_and_added_keys(f) {
        return (
            format!(
                "lacks-and-adds-keys\t{}\t{}",
                lacking.join(","),
                added.join(",")
            ),
            "own-keys".into(),
            format!(
                "objects of the environment lack own keys the browser's carry ({}) and carry others ({})",
                some_of(&lacking),
                some_of(&added)
            ),
            format!(
                "give these objects {} as their own, as the browser does, and hide the {} others from the objects the script sees (keep the implementation's state off the object, or in a WeakMap)",
                some_of(&lacking),
                added.len()
            ),
        );
    }
    if dim == "descriptor" && has_native(&observed, false) && has_native(&expected, true) {
        return (
            "native".into(),
            "native".into(),
            "the environment's functions are JavaScript where the browser's are native code".into(),
            "make these functions read as native (`Function.prototype.toString` gives `function name() { [native code] }`)".into(),
        );
    }
    // A finding of the audit as a whole (the network guard's count of attempts): its message
    // says what it is, where "networkAttempts differs the same way" said nothing.
    if f.item.is_none() && f.api.is_none() {
        return (
            format!("code\t{}", f.code),
            f.code.clone(),
            f.message.clone(),
            f.action.clone(),
        );
    }
    // A value of a call given other arguments than in the browser follows from them: Preact's
    // `Math.round` of jsdom's layout widths, 0 where Chromium's were 160, was "make Math.round
    // give what the browser gives for each receiver".
    if matches!(dim, "returnValue" | "exception")
        && let Some(other) = f.item.as_ref().and_then(|item| given_other.get(item))
    {
        return (
            format!("given-other\t{api}"),
            "dimension".into(),
            format!(
                "{api} was given arguments no call in the browser had ({}), and gave other values",
                some_of(other)
            ),
            format!(
                "find where the values the script passed to {api} came from (a difference before it, in the other groups): what {api} gave follows from them"
            ),
        );
    }
    // One value here for an API whose value in the browser depends on the receiver (happy-dom's
    // `nodeName` is "" for every element, Chromium's `P`, `SPAN`, `A`): one change, one group,
    // whatever the browser gave each receiver (it was a group of one per element class).
    if dim == "returnValue"
        && !api.is_empty()
        && f.observed
            .as_ref()
            .and_then(Value::as_array)
            .is_some_and(|values| {
                values.len() == 1
                    && !values[0].is_object()
                    && !values[0].is_array()
                    && f.expected
                        .as_ref()
                        .and_then(Value::as_array)
                        .is_some_and(|e| e.iter().all(|v| !v.is_object() && !v.is_array()))
            })
    {
        return (
            format!("value\t{api}\t{observed}"),
            "dimension".into(),
            format!("{api}{EVERY_RECEIVER}"),
            format!("make {api} give what the browser gives{EACH_RECEIVER}"),
        );
    }
    if !dim.is_empty() {
        return (
            format!("dimension\t{dim}\t{expected}\t{observed}"),
            "dimension".into(),
            format!("{dim} differs the same way"),
            f.action.clone(),
        );
    }
    (
        format!("code\t{}", f.code),
        f.code.clone(),
        f.code.clone(),
        f.action.clone(),
    )
}

/// The constructors' names of an item's values, each runtime's (`null` for a value that is none).
struct Classes {
    browser: Vec<String>,
    here: Vec<String>,
    /// The arguments the environment's calls were given that no call in the browser was (an
    /// `args` finding of the item, blocking or a risk), as JSON texts: the script made other
    /// calls, whose values are other objects (lit, lacking `adoptedStyleSheets` in jsdom, calls
    /// `createElement("style")`).
    other_args: Vec<String>,
}

/// Whether a group of `kind` (of findings on `dimension`) is of the shape the probe measured on
/// what the script touched (a descriptor's functions, native code, own keys, `instanceof`, a
/// receiver's or a value's class and chain), which a script sees only where it asks (and then
/// its asking is an access of its own, with a value of its own); the others are what the script
/// got and did: values, exceptions, side effects, arguments, identity, items not reached,
/// members lacking, values of another class, accesses the browser did not make. jQuery's page
/// in happy-dom: the selector that throws in Chromium and not there, behind most of the result's
/// differences, was group 43 of 115, below 305 descriptors of JavaScript functions.
fn shape_only(kind: &str, dimension: Option<&str>) -> bool {
    match kind {
        "native" | "own-keys" | "instances" => true,
        "dimension" => !matches!(
            dimension,
            Some(
                "returnValue" | "exception" | "sideEffect" | "args" | "identity" | "outcomesByArgs"
            ) | None
        ),
        _ => false,
    }
}

/// The work list of `blocking`: what the script got and did first, then the shape the probe
/// measured ([`shape_only`]); within each, the largest group first (ties in the order their first
/// finding came).
pub fn groups(blocking: &[Finding]) -> Vec<Group> {
    groups_beside(blocking, &[], &HashMap::new())
}

/// [`groups`], where the `risks` beside the blocking findings tell what else the runtimes did (an
/// item's calls given other arguments, whose values then differ too), and `order` gives each
/// item's first and last access in the browser's trace (by item id; an item not in it is taken to
/// come before any other).
pub fn groups_beside(
    blocking: &[Finding],
    risks: &[Finding],
    order: &HashMap<String, (u64, u64)>,
) -> Vec<Group> {
    // Whether the item `write` first wrote before the item `read` last read, in the browser.
    let before = |write: Option<&String>, read: Option<&String>| match (
        write.and_then(|w| order.get(w)),
        read.and_then(|r| order.get(r)),
    ) {
        (Some((first_write, _)), Some((_, last_read))) => first_write < last_read,
        _ => true,
    };
    let mut leaked: HashMap<String, usize> = HashMap::new();
    for extra in blocking.iter().filter_map(added_keys) {
        for key in extra {
            *leaked.entry(key).or_default() += 1;
        }
    }
    // The items whose values are objects of other classes than the browser's (their
    // constructors' names): the browser's and the environment's.
    let mut classes: HashMap<String, Classes> = HashMap::new();
    for f in blocking {
        let names = |v: Option<&Value>| -> Option<Vec<String>> {
            v?.as_array()?
                .iter()
                .map(|n| match n {
                    Value::String(name) => Some(name.clone()),
                    Value::Null => Some("null".to_owned()),
                    _ => None,
                })
                .collect()
        };
        if f.dimension.as_deref() == Some("constructorName")
            && let (Some(item), Some(browser), Some(here)) = (
                f.item.as_ref(),
                names(f.expected.as_ref()),
                names(f.observed.as_ref()),
            )
        {
            classes.insert(
                item.clone(),
                Classes {
                    browser,
                    here,
                    other_args: Vec::new(),
                },
            );
        }
    }
    // The arguments each item's calls were given that no call in the browser was (its `args`
    // finding, blocking or a risk), as JSON texts; and the writes whose arguments differ from
    // the browser's, by the part of the page they write and API.
    let mut given_other: HashMap<String, Vec<String>> = HashMap::new();
    let mut wrote_other: Vec<(&str, String, Option<String>)> = Vec::new();
    for f in blocking.iter().chain(risks) {
        if f.dimension.as_deref() == Some("args")
            && let Some(item) = f.item.as_ref()
        {
            // Objects compare by class: their ids only link lines within one trace.
            let texts = |v: Option<&Value>| -> Vec<String> {
                without_ids(v)
                    .as_array()
                    .map(|values| values.iter().map(Value::to_string).collect())
                    .unwrap_or_default()
            };
            let browser = texts(f.expected.as_ref());
            let other: Vec<String> = texts(f.observed.as_ref())
                .into_iter()
                .filter(|args| !browser.contains(args))
                .collect();
            if let Some(classes) = classes.get_mut(item) {
                classes.other_args.clone_from(&other);
            }
            if !other.is_empty() {
                given_other.insert(item.clone(), other);
            }
            // A write given other arguments, or not all of the browser's (Preact never set
            // `aria-valuenow` to 160 in jsdom, where it set 0 in both).
            if let Some(part) = writes(f) {
                let write = (part, f.api.clone().unwrap_or_default(), f.item.clone());
                if !wrote_other.contains(&write) {
                    wrote_other.push(write);
                }
            }
        }
    }
    let mut out: Vec<(String, Group)> = Vec::new();
    // Whether each group is of the shape the probe measured alone (see [`shape_only`]).
    let mut shape: Vec<bool> = Vec::new();
    // An item's arguments answered otherwise (its `outcomesByArgs` finding) and its values that
    // differ are one difference: told once, by its arguments (jsdom's `getAttribute("style")` was
    // two groups, each asking for `getAttribute` to change).
    let outcomes_of: HashMap<&str, &Finding> = blocking
        .iter()
        .filter(|f| f.dimension.as_deref() == Some(crate::conformance::contract::OUTCOMES_BY_ARGS))
        .filter_map(|f| Some((f.item.as_deref()?, f)))
        .collect();
    for f in blocking {
        let told = match (
            f.dimension.as_deref(),
            f.item.as_deref().and_then(|item| outcomes_of.get(item)),
        ) {
            (Some("returnValue" | "exception"), Some(outcomes)) => outcomes,
            _ => f,
        };
        let (key, kind, title, mut action) = classify(told, &leaked, &classes, &given_other);
        // What the script reads back of the page may be what it wrote there: Preact's
        // `getAttribute("aria-valuenow")` gave "0" in jsdom because the page had set it from a
        // layout width of 0, and `getAttribute` was told to change.
        // Markup reads back every part. Only a write the browser's script made before its last
        // read can be what the read gave (Vue's page wrote its result after reading `innerHTML`).
        let wrote: Vec<String> = match reads(f) {
            Some(part) if matches!(kind.as_str(), "dimension" | "outcomes") => wrote_other
                .iter()
                .filter(|(w, _, _)| part == "markup" || *w == "markup" || *w == part)
                .filter(|(_, _, write)| before(write.as_ref(), f.item.as_ref()))
                .map(|(_, api, _)| api.clone())
                .fold(Vec::new(), |mut apis, api| {
                    if !apis.contains(&api) {
                        apis.push(api);
                    }
                    apis
                }),
            _ => Vec::new(),
        };
        if !wrote.is_empty() && !key.starts_with("given-other\t") {
            action = format!(
                "{action}; but the script's writes there differed from the browser's before ({}: other arguments): where this is what it wrote, it follows from them, and the change is upstream (a lead, not proof of cause)",
                some_of(&wrote)
            );
        }
        let item = format!(
            "{} {}",
            f.api.as_deref().unwrap_or(""),
            f.access_type.as_deref().unwrap_or("")
        )
        .trim()
        .to_owned();
        let position = match out.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                shape.push(shape_only(&kind, f.dimension.as_deref()));
                out.push((
                    key,
                    Group {
                        kind,
                        title,
                        count: 0,
                        items: Vec::new(),
                        expected: f.expected.as_ref().map(|v| without_ids(Some(v))),
                        observed: f.observed.as_ref().map(|v| without_ids(Some(v))),
                        action,
                    },
                ));
                out.len() - 1
            }
        };
        let group = &mut out[position].1;
        group.count += 1;
        if group.observed != f.observed.as_ref().map(|v| without_ids(Some(v))) {
            group.observed = None;
        }
        if !item.is_empty() && !group.items.contains(&item) {
            group.items.push(item);
        }
    }
    // A group of one value finding has one receiver's items: "on every receiver" says too much.
    for (key, g) in &mut out {
        if key.starts_with("value\t") && g.count == 1 {
            g.title = g.title.replacen(EVERY_RECEIVER, ONE_RECEIVER, 1);
            g.action = g.action.replacen(EACH_RECEIVER, "", 1);
        }
    }
    let mut groups: Vec<(bool, Group)> = shape
        .into_iter()
        .zip(out.into_iter().map(|(_, g)| g))
        .collect();
    groups.sort_by_key(|(shape, g)| (*shape, std::cmp::Reverse(g.count)));
    let mut groups: Vec<Group> = groups.into_iter().map(|(_, g)| g).collect();
    // The receiver and the other dimensions' titles name the dimension's values once grouped.
    for g in &mut groups {
        if g.kind == "dimension" && g.observed.is_some() {
            g.title = format!(
                "{} (expected {}, here {})",
                g.title,
                brief(g.expected.as_ref()),
                brief(g.observed.as_ref())
            );
        }
    }
    groups
}

/// A `value` group's title, past its API, where its findings span receivers; and where it has one.
const EVERY_RECEIVER: &str =
    " gives one value here on every receiver of these items, where the browser gives each its own";
const ONE_RECEIVER: &str = " gives another value here than in the browser";
/// A `value` group's action, past "make API give what the browser gives", where it spans receivers.
const EACH_RECEIVER: &str = " for each receiver (each item's expected value is the browser's)";

/// `value` (null when absent) without the `id` of its objects (`{"$object": "Document", "id":
/// "o51"}`): a run's own numbering, which one difference must not split into groups by.
fn without_ids(value: Option<&Value>) -> Value {
    match value {
        None => Value::Null,
        Some(Value::Array(items)) => items.iter().map(|v| without_ids(Some(v))).collect(),
        Some(Value::Object(map)) => Value::Object(
            map.iter()
                .filter(|(k, _)| !(k.as_str() == "id" && map.contains_key("$object")))
                .map(|(k, v)| (k.clone(), without_ids(Some(v))))
                .collect(),
        ),
        Some(other) => other.clone(),
    }
}

/// A value in at most 80 characters.
fn brief(value: Option<&Value>) -> String {
    value.map_or_else(|| "—".to_owned(), |v| finding::clipped(v, 80))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn finding(api: &str, dim: &str, expected: Value, observed: Value) -> Finding {
        Finding {
            code: "DIMENSION_MISMATCH".into(),
            api: Some(api.into()),
            access_type: Some("get".into()),
            dimension: Some(dim.into()),
            expected: Some(expected),
            observed: Some(observed),
            message: String::new(),
            action: "fix it".into(),
            ..Finding::default()
        }
    }

    /// jsdom's `getAttribute("style")` gave the declarations in another order: its arguments
    /// answered otherwise and its values differ are one difference, once two groups each asking
    /// for `getAttribute` to change.
    #[test]
    fn an_item_s_values_and_its_arguments_answered_otherwise_are_one_group() {
        let outcomes = Finding {
            item: Some("c-style".into()),
            access_type: Some("call".into()),
            message: "Element.prototype.getAttribute(\"style\"): the browser returned …".into(),
            action:
                "make Element.prototype.getAttribute answer these arguments as the browser does"
                    .into(),
            ..finding(
                "Element.prototype.getAttribute",
                "outcomesByArgs",
                json!([[["style"], {"threw": false, "value": "a: 1; b: 2;"}]]),
                json!([[["style"], {"threw": false, "value": "b: 2; a: 1;"}]]),
            )
        };
        let values = Finding {
            item: Some("c-style".into()),
            access_type: Some("call".into()),
            ..finding(
                "Element.prototype.getAttribute",
                "returnValue",
                json!(["a: 1; b: 2;"]),
                json!(["b: 2; a: 1;"]),
            )
        };
        let told = groups(&[values, outcomes]);
        assert_eq!(told.len(), 1, "{told:#?}");
        assert_eq!(told[0].count, 2);
        assert_eq!(told[0].kind, "outcomes");
        assert_action_starts(
            &told[0],
            "make Element.prototype.getAttribute answer these arguments",
        );
    }

    /// Asserts that `group`'s action begins with `start`.
    fn assert_action_starts(group: &Group, start: &str) {
        assert!(group.action.starts_with(start), "{}", group.action);
    }

    /// A value of a call the script gave other arguments follows from them: Preact's
    /// `Math.round` of jsdom's layout widths (0 where Chromium's were 160) was "make Math.round give
    /// what the browser gives for each receiver", where `Math.round` is right.
    #[test]
    fn a_value_of_a_call_given_other_arguments_points_at_where_they_came_from() {
        let value = Finding {
            item: Some("c-round".into()),
            access_type: Some("call".into()),
            ..finding("Math.round", "returnValue", json!([160]), json!([0]))
        };
        let args = Finding {
            item: Some("c-round".into()),
            access_type: Some("call".into()),
            priority: Some("P2".into()),
            ..finding("Math.round", "args", json!([[160]]), json!([[0]]))
        };
        let given = groups_beside(std::slice::from_ref(&value), &[args], &HashMap::new());
        assert!(
            given[0]
                .title
                .starts_with("Math.round was given arguments no call in the browser had ([0])"),
            "{}",
            given[0].title
        );
        assert_action_starts(
            &given[0],
            "find where the values the script passed to Math.round came from",
        );
        // Without other arguments, its value is its own (one finding: one receiver's).
        let own = groups(&[value]);
        assert!(
            own[0]
                .title
                .starts_with("Math.round gives another value here than in the browser"),
            "{own:#?}"
        );
        assert_eq!(own[0].action, "make Math.round give what the browser gives");
    }

    /// A value the script reads back of the page (an attribute) after it wrote values no write in
    /// the browser had is told it may follow from them: Preact set `aria-valuenow` from jsdom's
    /// layout width (0 where Chromium's was 160), and `getAttribute` was told to change.
    #[test]
    fn a_value_read_back_after_other_writes_is_told_where_it_may_come_from() {
        let read = Finding {
            item: Some("c-get".into()),
            access_type: Some("call".into()),
            ..finding(
                "Element.prototype.getAttribute",
                "returnValue",
                json!(["160"]),
                json!(["0"]),
            )
        };
        let layout = finding(
            "HTMLElement.prototype.offsetWidth",
            "returnValue",
            json!([160]),
            json!([0]),
        );
        let wrote = Finding {
            item: Some("c-set".into()),
            access_type: Some("call".into()),
            priority: Some("P2".into()),
            ..finding(
                "Element.prototype.setAttribute",
                "args",
                json!([["aria-valuenow", "160"]]),
                json!([["aria-valuenow", "0"]]),
            )
        };
        let blocking = [read.clone(), layout];
        let order: HashMap<String, (u64, u64)> =
            [("c-set".to_owned(), (3, 3)), ("c-get".to_owned(), (5, 8))].into();
        let told = groups_beside(&blocking, std::slice::from_ref(&wrote), &order);
        let action_of = |api: &str| {
            told.iter()
                .find(|g| g.title.starts_with(api))
                .map(|g| g.action.clone())
                .unwrap()
        };
        assert!(
            action_of("Element.prototype.getAttribute")
                .contains("but the script's writes there differed from the browser's before (Element.prototype.setAttribute: other arguments)"),
            "{told:#?}"
        );
        // A layout value is the browser's to compute: no such hint.
        assert!(!action_of("HTMLElement.prototype.offsetWidth").contains("the script's writes"));
        // Without the write, none either.
        assert!(
            !groups(std::slice::from_ref(&read))[0]
                .action
                .contains("the script's writes")
        );
        // Nor where the browser's script wrote only after its last read (Vue's page wrote its
        // result after reading `innerHTML`): that write cannot be what the read gave.
        let later: HashMap<String, (u64, u64)> =
            [("c-set".to_owned(), (9, 9)), ("c-get".to_owned(), (5, 8))].into();
        let told = groups_beside(&[read], std::slice::from_ref(&wrote), &later);
        assert!(!told[0].action.contains("the script's writes"), "{told:#?}");
    }

    /// One value here for an API whose browser value depends on the receiver is one group:
    /// happy-dom's `nodeName` gives "" for every element (12 groups of one on DOMPurify's page,
    /// ranked below the consequences of it).
    #[test]
    fn one_value_here_for_every_receiver_is_one_group() {
        let mut blocking: Vec<Finding> = ["P", "SPAN", "A"]
            .iter()
            .map(|name| {
                finding(
                    "Node.prototype.nodeName",
                    "returnValue",
                    json!([name]),
                    json!([""]),
                )
            })
            .collect();
        blocking.push(finding(
            "Node.prototype.nodeName",
            "returnValue",
            json!(["B"]),
            json!(["b"]),
        ));
        let groups = groups(&blocking);
        assert_eq!(groups.len(), 2, "{groups:#?}");
        assert_eq!(groups[0].count, 3);
        assert!(
            groups[0]
                .title
                .starts_with("Node.prototype.nodeName gives one value here on every receiver"),
            "{}",
            groups[0].title
        );
    }

    #[test]
    fn an_object_of_another_class_is_one_group_not_a_leaked_key_and_five_dimensions() {
        // jsdom's `getBoundingClientRect` gives a plain Object with its own `x`…: one change.
        let on_rect = |dim: &str, expected: Value, observed: Value| Finding {
            item: Some("c-rect".into()),
            access_type: Some("call".into()),
            ..finding(
                "Element.prototype.getBoundingClientRect",
                dim,
                expected,
                observed,
            )
        };
        let blocking = vec![
            on_rect(
                "brand",
                json!(["[object DOMRect]"]),
                json!(["[object Object]"]),
            ),
            on_rect("constructorName", json!(["DOMRect"]), json!(["Object"])),
            on_rect("ownKeys", json!([[]]), json!([["x", "width"]])),
            on_rect("keys", json!([[]]), json!([["x", "width"]])),
            // Another item's leaked key stays a leak.
            finding("screen", "ownKeys", json!([[]]), json!([["Symbol(impl)"]])),
        ];
        let groups = groups(&blocking);
        assert_eq!(groups[0].kind, "class", "{groups:#?}");
        assert_eq!(groups[0].count, 4);
        assert_eq!(
            groups[0].title,
            "Element.prototype.getBoundingClientRect gives an Object where the browser gives a DOMRect"
        );
        assert_action_starts(
            &groups[0],
            "make Element.prototype.getBoundingClientRect give a DOMRect",
        );
        assert_eq!(groups[1].kind, "own-keys");
        assert_eq!(groups.len(), 2);
    }

    /// happy-dom's events lack the own `isTrusted` the platform puts on each of Chromium's: one
    /// group that names the key, wherever the event came from.
    #[test]
    fn an_own_key_the_environment_lacks_is_named() {
        let keys = |extra: &[&str]| {
            let mut list = vec!["isTrusted"];
            list.extend_from_slice(extra);
            json!([list])
        };
        let blocking = vec![
            finding("MouseEvent", "ownKeys", keys(&[]), json!([[]])),
            finding("Event", "ownKeys", keys(&[]), json!([[]])),
        ];
        let groups = groups(&blocking);
        assert_eq!(groups.len(), 1, "{groups:#?}");
        assert_eq!(groups[0].count, 2);
        assert_eq!(
            groups[0].title,
            "objects of the environment lack an own key the browser's carry: isTrusted"
        );
        assert_action_starts(&groups[0], "give these objects isTrusted as their own");
        // happy-dom's `MouseEvent` also carries its state as own keys.
        let state = json!([["NONE", "detail", "layerX", "layerY"]]);
        let groups = super::groups(&[finding("MouseEvent", "ownKeys", keys(&[]), state)]);
        assert_eq!(
            groups[0].title,
            "objects of the environment lack own keys the browser's carry (isTrusted) and carry others (NONE, detail, layerX and 1 more)"
        );
        assert_action_starts(
            &groups[0],
            "give these objects isTrusted as their own, as the browser does, and hide the 4 others",
        );
    }

    /// lit, lacking `adoptedStyleSheets` in jsdom, adds a `<style>` to what it renders: every
    /// item that gives it has a class more among its values, and its brand, constructor, chain,
    /// value and side effect differ with it: one change per API, not five.
    #[test]
    fn values_of_a_class_more_are_one_group_per_api() {
        let on = |item: &str, api: &str, dim: &str, expected: Value, observed: Value| Finding {
            item: Some(item.into()),
            access_type: Some("call".into()),
            ..finding(api, dim, expected, observed)
        };
        let append = "Node.prototype.appendChild";
        let blocking = vec![
            on(
                "c-a",
                append,
                "constructorName",
                json!(["FruitList"]),
                json!(["FruitList", "HTMLStyleElement"]),
            ),
            on(
                "c-a",
                append,
                "brand",
                json!(["[object HTMLElement]"]),
                json!(["[object HTMLElement]", "[object HTMLStyleElement]"]),
            ),
            on(
                "c-a",
                append,
                "returnValue",
                json!([{"$object": "FruitList"}]),
                json!([{"$object": "FruitList"}, {"$object": "HTMLStyleElement"}]),
            ),
            on(
                "c-a",
                append,
                "sideEffect",
                json!(["dom:append:FRUIT-LIST"]),
                json!(["dom:append:FRUIT-LIST", "dom:append:STYLE"]),
            ),
            on(
                "c-f",
                "Node.prototype.firstChild",
                "constructorName",
                json!([null]),
                json!(["HTMLStyleElement"]),
            ),
            on(
                "c-f",
                "Node.prototype.firstChild",
                "prototypeChain",
                json!([[]]),
                json!([["HTMLStyleElement", "HTMLElement"]]),
            ),
        ];
        let groups = groups(&blocking);
        let titles: Vec<(&str, usize, &str)> = groups
            .iter()
            .map(|g| (g.kind.as_str(), g.count, g.title.as_str()))
            .collect();
        assert_eq!(
            titles,
            [
                (
                    "class",
                    4,
                    "Node.prototype.appendChild also gives an HTMLStyleElement where the browser gives none"
                ),
                (
                    "class",
                    2,
                    "Node.prototype.firstChild gives an HTMLStyleElement where the browser gives null"
                ),
            ]
        );
        assert_action_starts(
            &groups[0],
            "make Node.prototype.appendChild give what the browser gives (a FruitList)",
        );
        // The same where the page's calls were given another argument too (a risk beside them):
        // lit appends a `<style>` it made only because `adoptedStyleSheets` is lacking, and
        // `appendChild` gives what it was given; the action once said to change `appendChild`.
        let other_argument = Finding {
            priority: Some("P2".into()),
            ..on(
                "c-a",
                append,
                "args",
                json!([[{"$object": "FruitList", "id": "o3"}]]),
                json!([[{"$object": "FruitList", "id": "o9"}], [{"$object": "HTMLStyleElement", "id": "o7"}]]),
            )
        };
        let groups = groups_beside(&blocking, &[other_argument], &HashMap::new());
        assert_action_starts(
            &groups[0],
            r#"the script called Node.prototype.appendChild with arguments no call in the browser had ([{"$object":"HTMLStyleElement"}])"#,
        );
    }

    #[test]
    fn values_lacking_the_same_instances_are_one_group_whatever_the_interface() {
        let blocking = vec![
            finding(
                "document.createTextNode",
                "instanceOf",
                json!([["CharacterData", "EventTarget", "Node", "Object", "Text"]]),
                json!([["CharacterData", "Node", "Text"]]),
            ),
            finding(
                "document.createElement",
                "instanceOf",
                json!([
                    [],
                    ["Element", "EventTarget", "HTMLElement", "Node", "Object"]
                ]),
                json!([[], ["Element", "HTMLElement", "Node"]]),
            ),
            finding(
                "sessionStorage",
                "instanceOf",
                json!([["Object", "Storage"]]),
                json!([["Storage"]]),
            ),
            // Not a subset: its own group.
            finding(
                "performance",
                "instanceOf",
                json!([["Object", "Performance"]]),
                json!([["Timing"]]),
            ),
        ];
        let groups = groups(&blocking);
        assert_eq!(groups[0].kind, "instances", "{groups:#?}");
        assert_eq!(groups[0].count, 2);
        assert!(
            groups[0]
                .title
                .contains("not instances of EventTarget, Object"),
            "{}",
            groups[0].title
        );
        assert_eq!(groups[1].kind, "instances");
        assert!(
            groups[1].title.contains("instances of Object where"),
            "{}",
            groups[1].title
        );
        assert_eq!(groups[2].kind, "dimension");
        assert_eq!(groups.len(), 3);
    }

    #[test]
    fn one_leaked_key_on_many_items_is_one_group_after_what_the_script_got() {
        let blocking = vec![
            finding(
                "navigator.userAgent",
                "returnValue",
                json!(["a"]),
                json!(["b"]),
            ),
            finding(
                "navigator",
                "ownSymbols",
                json!([[]]),
                json!([["Symbol(impl)"]]),
            ),
            finding("screen", "ownKeys", json!([[]]), json!([["Symbol(impl)"]])),
            finding(
                "document.getElementById",
                "ownSymbols",
                json!([[]]),
                json!([["Symbol(SameObject caches)", "Symbol(impl)"]]),
            ),
        ];
        let groups = groups(&blocking);
        assert_eq!(groups.len(), 2);
        // The value the script got comes first, however many items the leaked key is on: the
        // own keys are a shape the probe measured, which the script sees only where it asks.
        assert_eq!(groups[0].kind, "dimension");
        assert_eq!(groups[0].count, 1);
        assert_eq!(groups[1].kind, "own-keys");
        assert_eq!(groups[1].count, 3);
        assert_eq!(
            groups[1].items,
            vec!["navigator get", "screen get", "document.getElementById get"]
        );
        assert!(groups[1].title.contains("Symbol(impl)"));
    }

    #[test]
    fn an_array_with_an_element_more_is_one_group_of_its_api_not_a_leaked_key() {
        // happy-dom's `takeRecords()` once gave two records where Chromium gave one: its own key
        // `1` was a group "hide 1 … in a WeakMap", beside its names, keys and value.
        let api = "MutationObserver.prototype.takeRecords";
        let keys = |dim: &str| {
            finding(
                api,
                dim,
                json!([["0", "length"], ["length"]]),
                json!([["0", "length"], ["length"], ["0", "1", "length"]]),
            )
        };
        let blocking = vec![
            keys("ownKeys"),
            keys("ownNames"),
            finding(
                api,
                "keys",
                json!([["0"], []]),
                json!([["0"], [], ["0", "1"]]),
            ),
            finding(
                api,
                "returnValue",
                json!([[{"$object": "MutationRecord"}]]),
                json!([[{"$object": "MutationRecord"}, {"$object": "MutationRecord"}]]),
            ),
        ];
        let groups = groups(&blocking);
        assert_eq!(groups.len(), 1, "{groups:?}");
        assert_eq!(groups[0].kind, "elements");
        assert_eq!(groups[0].count, 4);
        assert!(groups[0].title.starts_with(api), "{}", groups[0].title);
    }

    #[test]
    fn an_own_key_group_names_every_key_its_objects_carry_the_most_common_first() {
        // happy-dom's elements carry 49 symbols of its own: the title once named one of them.
        let extra = |keys: &[&str]| {
            finding(
                "document.createElement",
                "ownSymbols",
                json!([[]]),
                json!([keys]),
            )
        };
        let blocking = vec![
            extra(&[
                "Symbol(a)",
                "Symbol(b)",
                "Symbol(c)",
                "Symbol(d)",
                "Symbol(e)",
            ]),
            extra(&["Symbol(e)"]),
        ];
        let groups = groups(&blocking);
        assert_eq!(groups.len(), 1, "{groups:?}");
        assert_eq!(
            groups[0].title,
            "objects of the environment carry own keys the browser's do not: Symbol(e), Symbol(a), Symbol(b) and 2 more"
        );
        assert_action_starts(&groups[0], "hide these 5 keys");
    }

    #[test]
    fn the_same_receiver_difference_is_one_group_and_lacking_members_group_by_interface() {
        let mut blocking = vec![
            finding(
                "document.cookie",
                "receiver",
                json!("HTMLDocument"),
                json!("Document"),
            ),
            finding(
                "document.title",
                "receiver",
                json!("HTMLDocument"),
                json!("Document"),
            ),
        ];
        // An item missing because the environment lacks `lacks`.
        let lacking = |api: &str, lacks: &str| {
            let mut f = finding(api, "", json!(null), json!(null));
            f.code = "MISSING_OBSERVATION".into();
            f.dimension = None;
            f.cause = Some(missing::ENVIRONMENT_LACKS.into());
            f.lacks = Some(lacks.into());
            f
        };
        for member in ["font", "fillRect"] {
            blocking.push(lacking(
                &format!("CanvasRenderingContext2D.prototype.{member}"),
                "CanvasRenderingContext2D",
            ));
        }
        // A member the environment lacks on an interface it has is said as such, apart.
        let member = lacking(
            "HTMLElement.prototype.offsetParent",
            "HTMLElement.prototype.offsetParent",
        );
        // One difference of object values is one group, whatever the objects' ids.
        blocking.extend(["o51", "o44"].map(|id| {
            finding(
                "Document.prototype.implementation",
                "returnValue",
                json!([{"$object": "HTMLDocument", "id": id}]),
                json!([{"$object": "Document", "id": id}]),
            )
        }));
        let groups = groups(&blocking);
        assert_eq!(groups.len(), 3, "{groups:#?}");
        assert!(groups.iter().all(|g| g.count == 2));
        assert!(
            groups.iter().any(|g| g.title
                == r#"returnValue differs the same way (expected [{"$object":"HTMLDocument"}], here [{"$object":"Document"}])"#),
            "{groups:#?}"
        );
        let with_member = super::groups(&[member]);
        assert_eq!(
            with_member[0].title,
            "the environment's HTMLElement lacks members the browser has: provide them"
        );
        // A member of the global (jsdom has no `opener`) is the window's.
        let global = super::groups(&[lacking("opener", "opener")]);
        assert_eq!(
            global[0].title,
            "the environment's window lacks members the browser has: provide them"
        );
        assert_eq!(
            global[0].action,
            "provide the members below on window, as the browser does"
        );
        let lacks = groups.iter().find(|g| g.kind == "lacks").unwrap();
        assert!(
            lacks.title.contains("CanvasRenderingContext2D"),
            "{}",
            lacks.title
        );
        let receiver = groups.iter().find(|g| g.kind == "dimension").unwrap();
        assert!(
            receiver.title.contains("\"HTMLDocument\""),
            "{}",
            receiver.title
        );
    }
}
