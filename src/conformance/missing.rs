//! Why a contract item has no observation in the environment: the cause the tool checked, never a
//! guess. One of
//!
//! - [`ENVIRONMENT_LACKS`]: the item's path did not resolve in that kind of realm of the
//!   environment, checked by the probe before the target's first line ran there (the audit's
//!   `recording.realms[].absent`); what follows from it for the script is said.
//! - [`PROBE_BLIND`]: the tool could not have watched it: no realm of that kind was probed, the
//!   path resolves to a property the probe put no wrapper on (`recording.realms[].unwatched`), or
//!   to a member another window's probe watches (`recording.realms[].shared`: one class for every
//!   window, whose accesses are recorded in the first window's name), or it is a getter of a
//!   collection the script was handed whose prototype's getters never ran (it answers its members
//!   itself: happy-dom's Proxies).
//! - [`NOT_REACHED`]: the environment has it, the probe watched it, and the script did not get
//!   there: the divergence is the last item both runtimes reached before it (in the reference's
//!   order), the closest value before that which differed between them, and the last item before
//!   it the environment lacks.
//!
//! Where the entry failed and the environment made no realm of the item's kind, the item is
//! [`NOT_REACHED`] with how the entry ended as its divergence.
//!
//! An audit without the tool's recording (an entry's own observations only) has no cause.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::conformance::audit_format::{Observation, Recording};
use crate::conformance::contract::{Item, KEYS_COMPUTED_BY};

pub const ENVIRONMENT_LACKS: &str = "environment-lacks";
pub const NOT_REACHED: &str = "not-reached";
pub const PROBE_BLIND: &str = "probe-blind";

/// An item the check has compared, as the divergence names it.
#[derive(Debug, Clone)]
pub struct Reached {
    pub item: String,
    pub api: String,
    pub access_type: String,
    /// The class of the object it was reached on (`HTMLFormElement`).
    pub receiver: String,
    /// Its place in the reference's order (the contract's items).
    pub index: usize,
}

impl Reached {
    /// `item`, the `index`th of the contract's items.
    pub fn of(item: &Item, index: usize) -> Reached {
        Reached {
            item: item.id.clone(),
            api: item.api.clone(),
            access_type: item.access_type.clone(),
            receiver: item.receiver.clone(),
            index,
        }
    }
}

/// A value that differed between the runtimes on an item both reached.
#[derive(Debug, Clone)]
pub struct Differed {
    pub at: Reached,
    pub dimension: String,
    pub expected: Value,
    pub observed: Value,
    /// Whether the call was given other arguments than the browser's too: then what it gave
    /// follows from what the script passed it (`Math.max` of other durations), and the
    /// difference to look for is in what the script read before.
    pub given_other: bool,
    /// The browser's last access of the item (the contract's `lastSeq`): its differing value was
    /// given at some access up to then, which may be after a later item's first.
    pub until: u64,
}

/// What the check has seen so far, walking the items in the reference's order.
#[derive(Debug, Default)]
pub struct Progress {
    /// The last item both runtimes reached.
    pub last_reached: Option<Reached>,
    /// The values (return values and exceptions) that differed on items both reached, in order.
    pub differences: Vec<Differed>,
    /// The last item the environment lacks (whether the script went there is not known: the
    /// probe has nothing to watch where a path does not resolve).
    pub last_lacking: Option<Reached>,
    /// How the entry ended, when it did not end well (see `Audit::entry_ended`).
    pub entry_ended: Option<String>,
    /// The first error of the page's script the environment reported (see
    /// `Recording::page_errors`): `ReferenceError: mylib is not defined at page.html:5:10`.
    pub page_error: Option<String>,
    /// The collection interfaces ([`KEYS_COMPUTED_BY`]) the environment handed the script an
    /// object of (a value it got, or a receiver it used), whose getters the probe never saw run:
    /// such a collection may answer its members itself (a Proxy: happy-dom's `HTMLCollection`
    /// answers `length` without its prototype's getter).
    pub collections_answering_themselves: Vec<String>,
    /// Each class of object the environment handed the script (a value it got, or the records a
    /// `MutationObserver` callback is given) none of whose prototype's members the probe saw run, with
    /// the first API that gave one:
    /// `("MutationRecord", "MutationObserver.prototype.takeRecords")`. Such objects answer the
    /// script some other way (their own data properties), or their prototype was never watched.
    pub classes_given: Vec<(String, String)>,
    /// The own property names of the objects the environment handed the script, by each class
    /// among those values' constructors, with the API that gave them (see [`own_names_given`]).
    pub own_names_given: HashMap<(String, String), String>,
}

/// What [`classes_given`] says gave an event class: a listener the script added.
const LISTENER_ARGUMENT: &str = "an event listener's argument";

/// The same, where only the browser's run added one (the environment's never got that far).
const BROWSER_LISTENER_ARGUMENT: &str = "an event listener's argument in the browser";

/// What [`classes_the_browser_got`] says gave a class: the API, after this.
const BROWSER_GAVE: &str = "in the browser, ";

/// Whether an access adds an event listener: `addEventListener`, or an `on…` handler set.
pub fn adds_a_listener(api: &str, access_type: &str) -> bool {
    let member = api.rsplit('.').next().unwrap_or("");
    (access_type == "call" && member == "addEventListener")
        || (access_type == "set" && member.starts_with("on"))
}

/// How the script came to hold `iface` objects: `gave` one (an API, or a listener's argument).
fn handed(iface: &str, gave: &str) -> String {
    if gave == LISTENER_ARGUMENT {
        format!(
            "the script added an event listener, and the environment hands a listener its events ({iface} objects in the browser)"
        )
    } else if gave == BROWSER_LISTENER_ARGUMENT {
        format!(
            "the script adds an event listener in the browser, and a listener is handed its events ({iface} objects there), which the environment's may be"
        )
    } else if let Some(api) = gave.strip_prefix(BROWSER_GAVE) {
        format!(
            "the browser's script got {iface} objects from {api}, which the environment has, and its run there stopped before (the page's script threw)"
        )
    } else {
        format!("the environment handed the script {iface} objects ({gave} gave one)")
    }
}

/// The classes of the objects among the environment's `observations`' values whose prototype's
/// members were never seen run (see [`Progress::classes_given`]), each with the first API that
/// gave one.
///
/// A listener the script added is handed its events: where it added one (`addEventListener`, an
/// `on…` handler), the event classes among the reference's (`expected`: the classes the
/// browser's objects had and the interfaces whose members were read on them, `MouseEvent`) count
/// as given (happy-dom's events carry `button` and `relatedTarget` as their own data properties,
/// and `e.button` gives 0 as in the browser).
///
/// Where the browser's script added one and the environment's run never got that far (happy-dom
/// running a UMD build whose top-level `this` is not the window: the page's script threw first),
/// the same holds of the script as it runs in the browser: `KeyboardEvent.prototype.key` lacking
/// there was once "reading it gives `undefined`", where happy-dom's events carry `key` themselves.
pub fn classes_given<'a>(
    observations: &[Observation],
    expected: impl IntoIterator<Item = &'a str>,
    browser_listened: bool,
) -> Vec<(String, String)> {
    let mut given: Vec<(String, String)> = Vec::new();
    let watched = |class: &str| {
        let prefix = format!("{class}.prototype.");
        observations.iter().any(|o| o.api.starts_with(&prefix))
    };
    let listens = observations
        .iter()
        .any(|o| adds_a_listener(&o.api, &o.access_type));
    if listens || browser_listened {
        let gave = if listens {
            LISTENER_ARGUMENT
        } else {
            BROWSER_LISTENER_ARGUMENT
        };
        for class in expected {
            if class.ends_with("Event") && !given.iter().any(|(c, _)| c == class) {
                given.push((class.to_owned(), gave.to_owned()));
            }
        }
    }
    for o in observations {
        // An observer's callback is handed its records as its argument.
        if o.api == "MutationObserver.event:callback"
            && !given.iter().any(|(c, _)| c == "MutationRecord")
        {
            given.push((
                "MutationRecord".to_owned(),
                "a MutationObserver callback's argument".to_owned(),
            ));
        }
        // A value, or the items of an array value (`takeRecords()` gives `MutationRecord`s).
        let values = o.observations.get("returnValue").into_iter().flatten();
        let items = values.flat_map(|v| match v {
            Value::Array(items) => items.iter().collect(),
            one => vec![one],
        });
        for class in items.filter_map(|v| v.get("$object")?.as_str()) {
            if !given.iter().any(|(c, _)| c == class) {
                given.push((class.to_owned(), o.api.clone()));
            }
        }
    }
    // jsdom's `Document` lacking one member of many is lacking it: its others ran.
    given.retain(|(class, _)| !watched(class));
    given
}

/// The classes of the objects the browser's script got from an API (its items' `returnValue`s),
/// where the environment has that API (its path resolves in the realm the probe checked), with
/// [`BROWSER_GAVE`] and that API; classes whose prototype's members the probe saw run are left
/// out, as in [`classes_given`]. For an environment whose run stopped short (the page's script
/// threw there): happy-dom running Preact's UMD build lacks the `DOMTokenList` global, and its
/// `classList` gives such objects, where the check once said "no object of it exists there".
pub fn classes_the_browser_got(
    items: &[Item],
    recording: &Recording,
    observations: &[Observation],
) -> Vec<(String, String)> {
    let absent = |item: &Item| {
        recording.realms.iter().any(|r| {
            r.kind.as_deref() == Some(item.realm.as_str())
                && r.absent.iter().any(|a| a.path == item.api)
        })
    };
    let mut got: Vec<(String, String)> = Vec::new();
    for item in items.iter().filter(|item| !absent(item)) {
        let values = item.expected.get("returnValue").into_iter().flatten();
        for class in values.filter_map(|v| v.get("$object")?.as_str()) {
            let prefix = format!("{class}.prototype.");
            let watched = observations.iter().any(|o| o.api.starts_with(&prefix));
            if !watched && !got.iter().any(|(c, _)| c == class) {
                got.push((class.to_owned(), format!("{BROWSER_GAVE}{}", item.api)));
            }
        }
    }
    got
}

/// For each observation of the environment's whose values are objects, every pair of a class
/// among their constructors and a name among their own property names (`ownNames`), with the
/// observation's API: happy-dom's `<textarea>` carries `type` as its own data property, and its
/// `HTMLTextAreaElement.prototype` has none, where other members of it ran; "lacks … reading it
/// gives `undefined`" was false. The values' classes and names are each a set, so a name is
/// paired with every class given with it: a lead toward "cannot be told", never toward a lack.
pub fn own_names_given(observations: &[Observation]) -> HashMap<(String, String), String> {
    let mut given = HashMap::new();
    for o in observations {
        let (Some(classes), Some(names)) = (
            o.observations.get("constructorName"),
            o.observations.get("ownNames"),
        ) else {
            continue;
        };
        for class in classes.iter().filter_map(Value::as_str) {
            for name in names
                .iter()
                .flat_map(|n| n.as_array().into_iter().flatten())
            {
                if let Some(name) = name.as_str() {
                    given
                        .entry((class.to_owned(), name.to_owned()))
                        .or_insert_with(|| o.api.clone());
                }
            }
        }
    }
    given
}

/// The collection interfaces (see [`Progress::collections_answering_themselves`]) among the
/// environment's `observations`: handed to the script, none of their prototype's getters seen.
pub fn collections_answering_themselves(observations: &[Observation]) -> Vec<String> {
    let mut given: Vec<String> = Vec::new();
    let mut getters_seen: Vec<&str> = Vec::new();
    for o in observations {
        if let Some((iface, _)) = o.api.split_once(".prototype.")
            && o.access_type == "get"
        {
            getters_seen.push(iface);
        }
        let values = o.observations.get("returnValue").into_iter().flatten();
        let classes = values
            .filter_map(|v| v.get("$object")?.as_str())
            .chain([o.receiver.as_str()]);
        for class in classes {
            if KEYS_COMPUTED_BY.contains(&class) && !given.iter().any(|g| g == class) {
                given.push(class.to_owned());
            }
        }
    }
    given.retain(|g| !getters_seen.contains(&g.as_str()));
    given
}

/// The interface (or singleton) an api path's member belongs to: `MimeType` for
/// `MimeType.prototype.description`, `navigator` for `navigator.plugins`.
fn interface_of(api: &str) -> &str {
    match api.split_once(".prototype.") {
        Some((iface, _)) => iface,
        None => api.rsplit_once('.').map_or(api, |(head, _)| head),
    }
}

impl Differed {
    /// Whether the environment gave none of the browser's values (objects counted by class): then
    /// its first access already differed, whenever the browser reached the item last.
    fn none_alike(&self) -> bool {
        let key = |v: &Value| match v.get("$object") {
            Some(class) => class.to_string(),
            None => v.to_string(),
        };
        let expected: Vec<String> = self
            .expected
            .as_array()
            .into_iter()
            .flatten()
            .map(key)
            .collect();
        self.observed
            .as_array()
            .into_iter()
            .flatten()
            .all(|v| !expected.contains(&key(v)))
    }

    /// Whether every value on both sides is an object (`{"$object": …}`), the two differing only
    /// in their classes: a script seldom takes another way on that.
    fn objects_alike(&self) -> bool {
        let objects = |v: &Value| {
            v.as_array().is_some_and(|values| {
                !values.is_empty() && values.iter().all(|v| v.get("$object").is_some())
            })
        };
        objects(&self.expected) && objects(&self.observed)
    }

    /// Whether this value answers a read of `member` that the browser's made through `class`'s
    /// getter: the browser gave a `class` object where the environment gave a plain object whose
    /// own data property `member` answers the read without any getter (jsdom's
    /// `getBoundingClientRect` returns an `Object` with its own `width`, Chromium's a `DOMRect`).
    fn answers(&self, class: &str, member: &str) -> bool {
        let objects = |v: &Value| v.as_array().cloned().unwrap_or_default();
        self.dimension == "returnValue"
            && objects(&self.expected)
                .iter()
                .any(|v| v.get("$object").and_then(Value::as_str) == Some(class))
            && objects(&self.observed).iter().any(|v| {
                v.get("$object").and_then(Value::as_str) != Some(class)
                    && v.get("props")
                        .is_some_and(|props| props.get(member).is_some())
            })
    }
}

impl Progress {
    /// The difference before `item` (a getter's read) that answered it from an own data property
    /// (`Differed::answers`), the closest first.
    fn answered_by(&self, item: &Item) -> Option<(&Differed, String)> {
        let (_, member) = item.api.split_once(".prototype.")?;
        if item.access_type != "get" {
            return None;
        }
        self.differences
            .iter()
            .rev()
            .find(|d| d.answers(&item.receiver, member))
            .map(|d| (d, member.to_owned()))
    }

    /// The lead for an item not reached: the closest difference before it on a related API (one
    /// whose path names the item's interface: `MimeTypeArray.prototype.length` for
    /// `MimeType.prototype.description`), else the closest difference before it; none where no
    /// difference is known to have come before it (below).
    /// A value that differed only in its objects' class (`Differed::objects_alike`) is a lead
    /// only where no other value differed: DOMPurify in happy-dom removes a `<body>` where
    /// Chromium removed a `<script>` (`removeChild` gave another object), but turns away where
    /// `NodeIterator.prototype.nextNode` gave `null`.
    fn lead(&self, item: &Item) -> Option<&Differed> {
        let iface = interface_of(&item.api).to_ascii_lowercase();
        let related =
            |d: &&Differed| !iface.is_empty() && d.at.api.to_ascii_lowercase().contains(&iface);
        let turns = |d: &&Differed| !d.objects_alike();
        // Only an item whose accesses all came before this one's first, or whose every value
        // differed (its first too), is known to have given a differing value before; one the
        // browser went on reaching, with values alike on both sides, may have given it only
        // after (d3 read `getPropertyValue("display")`, equal, before the items, and
        // `("opacity")`, which differs, after them): no lead. (An item without a place in the
        // order, 0, is taken to come after every other.)
        let before =
            |d: &&Differed| item.first_seq == 0 || d.until < item.first_seq || d.none_alike();
        let closest = |keep: &dyn Fn(&&Differed) -> bool| {
            self.differences.iter().rev().filter(before).find(keep)
        };
        closest(&|d| related(d) && turns(d))
            .or_else(|| closest(&turns))
            .or_else(|| closest(&related))
            .or_else(|| closest(&|_| true))
    }
}

/// The cause of one missing item, in words and as data.
#[derive(Debug)]
pub struct Explanation {
    pub cause: &'static str,
    /// For `environment-lacks`: the part of the path the environment lacks (the interface, or the
    /// member itself).
    pub lacks: Option<String>,
    pub message: String,
    pub action: String,
    /// For `not-reached`: `{"lastReached": {...}, "differed": {...}}`.
    pub divergence: Option<Value>,
    /// For `environment-lacks`: the dimensions that follow from the member's absence, as
    /// (dimension, what the script sees).
    pub follows: Vec<(&'static str, Value)>,
}

/// What a script gets from a member the environment lacks, by access type.
/// `HTMLDivElement.prototype.clientWidth` for an item on `Element.prototype.clientWidth` whose
/// receiver is an `HTMLDivElement`: the path the audit also asks about (see
/// `audit::node_request`'s `check_paths`), where the receiver is of another class than the owner.
pub fn receiver_path(item: &Item) -> Option<String> {
    let (owner, member) = item.api.split_once(".prototype.")?;
    let receiver = item.receiver.as_str();
    let named = !receiver.is_empty()
        && receiver
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    (named && receiver != owner).then(|| format!("{receiver}.prototype.{member}"))
}

fn what_the_script_gets(access_type: &str) -> &'static str {
    match access_type {
        "get" => "reading it gives `undefined`",
        "call" => "calling it throws a TypeError (it is not a function)",
        "construct" => {
            "`new` of it throws (a TypeError, or a ReferenceError for a bare global name)"
        }
        "set" => "assigning it makes an own data property instead of calling a setter",
        _ => "the script finds nothing there",
    }
}

/// Explains why `item` has no observation, from the audit's recording and the check's progress.
pub fn explain(item: &Item, recording: &Recording, progress: &Progress) -> Explanation {
    let probed: Vec<_> = recording
        .realms
        .iter()
        .filter(|r| r.probed_before.is_some() && r.kind.as_deref() == Some(item.realm.as_str()))
        .collect();
    if probed.is_empty() {
        let unprobed: Vec<&str> = recording
            .realms
            .iter()
            .filter(|r| !r.is_default && r.probed_before.is_none())
            .map(|r| r.name.as_str())
            .collect();
        if let (true, Some(ended)) = (unprobed.is_empty(), &progress.entry_ended) {
            // No such realm, and the entry failed: whether it would have made one is not known,
            // but the script never ran where the browser reached the item.
            return Explanation {
                cause: NOT_REACHED,
                message: format!(
                    "the entry {ended}, and the environment made no `{}` realm: the script never ran where the browser reached {} ({})",
                    item.realm, item.api, item.access_type
                ),
                action:
                    "make the entry finish with exit code 0 (see ENTRY_FAILED), then audit again"
                        .into(),
                divergence: Some(json!({ "entryEnded": ended })),
                follows: Vec::new(),
                lacks: None,
            };
        }
        if unprobed.is_empty() {
            // Every realm the environment made was probed, and none is of this kind: the
            // environment has no such realm (a frame it never made a window for).
            return Explanation {
                cause: ENVIRONMENT_LACKS,
                message: format!(
                    "the environment made no `{}` realm, where the browser reached {} ({}): the script had no such realm to reach it in",
                    item.realm, item.api, item.access_type
                ),
                action: format!(
                    "give the script a `{}` realm as the browser does (a window for each frame)",
                    item.realm
                ),
                divergence: None,
                follows: Vec::new(),
                lacks: Some(format!("a `{}` realm", item.realm)),
            };
        }
        let realms = format!(
            " (realms the environment made that the probe never entered: {})",
            unprobed.join(", ")
        );
        return Explanation {
            cause: PROBE_BLIND,
            message: format!(
                "the tool never watched a `{}` realm of the environment, where the browser reached {} ({}){realms}",
                item.realm, item.api, item.access_type
            ),
            action: "run the script in that realm of the environment (the probe goes into every realm where a script of the target's runs); see the audit's `recording`".into(),
            divergence: None,
            follows: Vec::new(),
            lacks: None,
        };
    }
    let absent: Vec<&str> = probed
        .iter()
        .filter_map(|r| r.absent.iter().find(|a| a.path == item.api))
        .map(|a| a.missing.as_str())
        .collect();
    // The path is the browser's owner of the member; the environment may hold it on another
    // prototype of the receiver's chain (happy-dom's `clientWidth` is on HTMLElement.prototype,
    // not Element.prototype): then the receiver's objects have it, and it is not lacking.
    let on_the_receiver = recording.receiver_paths_checked
        && receiver_path(item).is_some_and(|path| {
            probed
                .iter()
                .all(|r| !r.absent.iter().any(|a| a.path == path))
        });
    if absent.len() == probed.len() && !on_the_receiver {
        let missing = absent[0];
        if missing != item.api
            && let Some((iface, member)) = item.api.split_once(".prototype.")
            && missing == iface
            && let Some((_, gave)) = progress.classes_given.iter().find(|(c, _)| c == iface)
        {
            // The interface object is lacking, not its objects (happy-dom has no `DOMTokenList`
            // global, and `classList` gives DOMTokenLists): the probe reaches a prototype through
            // its interface, so it watched none of its members.
            return Explanation {
                cause: PROBE_BLIND,
                message: format!(
                    "the environment has no {iface} interface in its `{}` realm (checked before the script ran there), so the probe, which reaches a prototype through its interface, watched none of {iface}.prototype's members; but {}, so whether the script reached `{member}` on them cannot be told",
                    item.realm,
                    handed(iface, gave)
                ),
                action: format!(
                    "expose {iface} as the browser does (a global interface whose prototype holds `{member}`): then the probe watches its members; until then check `{member}` by hand"
                ),
                divergence: None,
                follows: Vec::new(),
                lacks: None,
            };
        }
        if missing != item.api {
            // The interface (or the object on the way) is lacking: the script had nothing there
            // to reach the member on.
            return Explanation {
                cause: ENVIRONMENT_LACKS,
                message: format!(
                    "the environment lacks {missing}, so {} does not resolve in its `{}` realm (checked before the script ran there): no object of it exists there for the script to reach it on",
                    item.api, item.realm
                ),
                action: format!("provide {missing} as the browser does"),
                divergence: None,
                follows: Vec::new(),
                lacks: Some(missing.to_owned()),
            };
        }
        if item.access_type == "get"
            && let Some((iface, member)) = item.api.split_once(".prototype.")
            && let Some(gave) = progress
                .classes_given
                .iter()
                .find(|(c, _)| c == iface)
                .map(|(_, gave)| gave)
                .or_else(|| {
                    progress
                        .own_names_given
                        .get(&(iface.to_owned(), member.to_owned()))
                })
        {
            // happy-dom's `MutationRecord` carries `target`, `type` … as its own data properties:
            // the prototype lacks them, the objects do not.
            return Explanation {
                cause: PROBE_BLIND,
                message: format!(
                    "{iface}.prototype has no `{member}` in the environment (checked before the script ran in its `{}` realm), but {}: such an object can carry `{member}` itself, as an own data property the probe cannot watch, so whether the script's read got a value cannot be told (the browser's `{member}` is a getter on {iface}.prototype)",
                    item.realm,
                    handed(iface, gave)
                ),
                action: format!(
                    "check by hand that {}'s `{member}` gives what the browser gives, and define it as the browser does (a getter on {iface}.prototype): then the probe can watch it",
                    with_article(iface)
                ),
                divergence: None,
                follows: Vec::new(),
                lacks: None,
            };
        }
        let mut follows = Vec::new();
        if item.expected.contains_key("owner") {
            follows.push(("owner", Value::Null));
        }
        if item.access_type == "get" && item.expected.contains_key("returnValue") {
            follows.push(("returnValue", json!({"$undefined": true})));
        }
        return Explanation {
            cause: ENVIRONMENT_LACKS,
            message: format!(
                "the environment lacks {}: the path does not resolve in its `{}` realm (checked before the script ran there); {}",
                item.api,
                item.realm,
                what_the_script_gets(&item.access_type)
            ),
            action: format!("provide {} as the browser does", item.api),
            divergence: None,
            follows,
            lacks: Some(item.api.clone()),
        };
    }
    if probed.iter().all(|r| r.shared.contains(&item.api)) {
        return Explanation {
            cause: PROBE_BLIND,
            message: format!(
                "{} is one member every window of the environment shares (its class is made once, not per window, as happy-dom's are): another window's probe watches it, so an access in this `{}` realm is recorded in that window's name and cannot be told apart here",
                item.api, item.realm
            ),
            action: "check this item by hand, or give each window its own interface objects as the browser does: then the probe watches it in each".into(),
            divergence: None,
            follows: Vec::new(),
            lacks: None,
        };
    }
    if probed.iter().any(|r| r.unwatched.contains(&item.api)) {
        return Explanation {
            cause: PROBE_BLIND,
            message: format!(
                "{} resolves in the environment to a property the probe cannot watch (an own data property of an object): an access of it leaves no record",
                item.api
            ),
            action: "define it as the browser does (an accessor or a method on the prototype): then the probe can watch it; until then it cannot be verified".into(),
            divergence: None,
            follows: Vec::new(),
            lacks: None,
        };
    }
    if item.access_type == "get"
        && let Some((iface, member)) = item.api.split_once(".prototype.")
        && progress
            .collections_answering_themselves
            .iter()
            .any(|c| c == iface)
    {
        return Explanation {
            cause: PROBE_BLIND,
            message: format!(
                "the environment handed the script {iface} objects, and the probe saw none of {iface}.prototype's getters run on them: such a collection can answer `{member}` itself (a Proxy: happy-dom's collections answer `length` so) where the probe watches only the prototype's getter, so whether the script read it cannot be told"
            ),
            action: format!(
                "check by hand that {iface}'s `{member}` gives what the browser gives; answering it through {iface}.prototype's getter, as the browser does, lets the probe watch it"
            ),
            divergence: None,
            follows: Vec::new(),
            lacks: None,
        };
    }
    let reached = |r: &Reached| json!({"item": r.item, "api": r.api, "accessType": r.access_type});
    let mut divergence = serde_json::Map::new();
    let mut words = String::new();
    match &progress.last_reached {
        Some(last) => {
            divergence.insert("lastReached".into(), reached(last));
            words.push_str(&format!(
                "; the last item both runtimes reached before it is {} ({})",
                last.api, last.access_type
            ));
        }
        None => words.push_str("; it is before every item both runtimes reached"),
    }
    // Where the script was last seen at an object whose named properties come before its
    // members, a read the probe cannot see may have turned it.
    let shadowed = progress
        .last_reached
        .as_ref()
        .and_then(|last| named_properties_first(&last.receiver).map(|what| (last, what)));
    if let Some((last, what)) = shadowed {
        words.push_str(&format!(
            " on {}, whose named properties ({what}) answer a read before its own members in the browser ([LegacyOverrideBuiltIns]), with no access the probe can see: where the page read a member of it that one of them shadows, the browser gave the named property",
            with_article(&last.receiver)
        ));
    }
    let answered = progress.answered_by(item);
    let lead = answered
        .as_ref()
        .map(|(d, _)| *d)
        .or_else(|| progress.lead(item));
    if let Some(d) = lead {
        divergence.insert(
            "differed".into(),
            json!({"item": d.at.item, "api": d.at.api, "accessType": d.at.access_type,
                   "dimension": d.dimension, "expected": d.expected, "observed": d.observed,
                   "givenOther": d.given_other}),
        );
    }
    if let Some((d, member)) = &answered {
        words.push_str(&format!(
            ", and the script's read of `{member}` had nothing to reach: {} ({}) gave {} here, whose own data property `{member}` answers the read without a getter, where the browser's gave {}, whose `{member}` is this getter",
            d.at.api,
            d.at.access_type,
            short(&d.observed),
            with_article(&item.receiver)
        ));
    } else if let Some(d) = lead {
        words.push_str(&format!(
            ", and the closest value before it that differed on a related API, else on any, is {} ({}) {}: {} here, {} in the browser (ordered by time: a lead, not proof of cause)",
            d.at.api,
            d.at.access_type,
            d.dimension,
            short(&d.observed),
            short(&d.expected)
        ));
    }
    if let Some(error) = &progress.page_error {
        divergence.insert("pageError".into(), json!(error));
        words.push_str(&format!(
            "; the environment reported an error of the page's script, {error}, after which the script did not go on there"
        ));
    }
    if let Some(lacking) = &progress.last_lacking {
        divergence.insert("lacking".into(), reached(lacking));
        words.push_str(&format!(
            "; before it the browser reached {} ({}), which the environment lacks",
            lacking.api, lacking.access_type
        ));
    }
    Explanation {
        cause: NOT_REACHED,
        // Said only where the browser's path is not there: a member the environment holds where
        // the browser does is reached by the receiver's path too (jsdom's `textContent` is on
        // `Node.prototype`, as Chromium's, and `HTMLHeadingElement.prototype.textContent` resolves).
        message: match receiver_path(item).filter(|_| on_the_receiver && !absent.is_empty()) {
            Some(path) => format!(
                "the environment has {path} (not {}, where the browser has it) and the probe watched it, but the script did not reach it there{words}",
                item.api
            ),
            None => format!(
                "the environment has {} and the probe watched it, but the script did not reach it there{words}",
                item.api
            ),
        },
        // A member the environment lacks is the likelier turn where the browser reached it after
        // the value that differed, or where that value was an object either way, only of another
        // class (DOMPurify reads `trustedTypes` and takes another way where it is missing; its
        // `ownerDocument` being a `Document`, not an `HTMLDocument`, turns nothing).
        action: match (lead, &progress.last_lacking) {
            (Some(d), _) if answered.is_some() => format!(
                "make {} give {} as the browser does: the object it gives here answers `{}` from an own data property, so the browser's getter is never reached",
                d.at.api,
                with_article(&item.receiver),
                answered.as_ref().map_or("", |(_, m)| m.as_str())
            ),
            // The page's script threw there: a fact, where the rest are leads.
            _ if let Some(error) = &progress.page_error => format!(
                "find why the page's script throws there ({error}) and not in the browser: the script did not go on there after it"
            ),
            (_, Some(lacking))
                if lead.is_none_or(|d| lacking.index > d.at.index || d.objects_alike()) =>
            {
                format!(
                    "provide {} as the browser does if the script takes another way without it: the environment lacks it, and the browser reached it before this item (ordered by time: a lead, not proof of cause)",
                    lacking.api
                )
            }
            (Some(d), _) if d.given_other => format!(
                "find where the values the script passed to {} came from: it was given other arguments than in the browser, and what it gave may follow from them; what the script read before it differs, possibly where the probe cannot see (a computed style's property, an own data property) (ordered by time: a lead, not proof of cause)",
                d.at.api
            ),
            (Some(d), _) => format!(
                "make {} give what the browser gave if the script's way turns on it: its value is the closest before this item that differed (ordered by time: a lead, not proof of cause)",
                d.at.api
            ),
            (None, _) => "compare what the script did before this point in both runtimes".into(),
        },
        divergence: Some(Value::Object(divergence)),
        follows: Vec::new(),
        lacks: None,
    }
    .shadowed_by(shadowed.map(|(last, _)| last.receiver.as_str()))
}

/// What the named properties of an object of `class` are, where they come before its members
/// (WebIDL's `[LegacyOverrideBuiltIns]`) and a script is known to test them: a form's controls
/// by name (`form.nodeName` with an `<input name="nodeName">` in it is that input: DOMPurify's
/// clobbering test). Neither a named property nor its read is a wrapped member: the probe sees
/// neither. A document's named properties are left out: nearly every script's last access before
/// a turn is on `document`, and a lead named there would say nothing.
fn named_properties_first(class: &str) -> Option<&'static str> {
    match class {
        "HTMLFormElement" => Some("its controls, by their `name` and `id`"),
        _ => None,
    }
}

impl Explanation {
    /// The action, with the named properties of `class` to check where the script was last seen
    /// at such an object (see [`named_properties_first`]).
    fn shadowed_by(mut self, class: Option<&str>) -> Explanation {
        if let Some(class) = class {
            self.action.push_str(&format!(
                "; or check that the environment gives {} its named properties before its members, as the browser does: a read the probe cannot see may have sent the script another way",
                with_article(class)
            ));
        }
        self
    }
}

/// A class name with its article: `a DOMRect`, `an Object`.
pub fn with_article(class: &str) -> String {
    // An initialism is read letter by letter: an HTMLElement, an SVGElement, an XMLDocument.
    let vowel = class
        .chars()
        .next()
        .is_some_and(|c| "AEIOUaeiou".contains(c))
        || ["HTML", "SVG", "XML", "XPath", "RTC"]
            .iter()
            .any(|initialism| class.starts_with(initialism));
    format!("{} {class}", if vowel { "an" } else { "a" })
}

/// A value list in a few words: its first value, and how many more.
fn short(values: &Value) -> String {
    let (first, more) = match values {
        Value::Array(list) => (
            list.first().cloned().unwrap_or(Value::Null),
            list.len().saturating_sub(1),
        ),
        other => (other.clone(), 0),
    };
    let mut text = crate::conformance::finding::clipped(&first, 80);
    if more > 0 {
        text.push_str(&format!(" (+{more} more)"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::audit_format::{AbsentPath, RecordedRealm};

    fn item(api: &str, access_type: &str) -> Item {
        serde_json::from_value(json!({
            "accessType": access_type, "api": api, "count": 1, "firstSeq": 9, "id": "c-1",
            "lastSeq": 9, "navs": [0], "pending": [], "phase": "init", "priority": "P1",
            "realm": "main", "receiver": "X", "stackSample": [], "tags": [],
            "expected": {"owner": ["X.prototype"], "returnValue": [1]}
        }))
        .unwrap()
    }

    fn recording(absent: &[(&str, &str)], unwatched: &[&str]) -> Recording {
        Recording {
            realms: vec![RecordedRealm {
                name: "VM Context 1".into(),
                probed_before: Some("https://a.test/".into()),
                kind: Some("main".into()),
                absent: absent
                    .iter()
                    .map(|(path, missing)| AbsentPath {
                        path: path.to_string(),
                        missing: missing.to_string(),
                    })
                    .collect(),
                unwatched: unwatched.iter().map(|s| s.to_string()).collect(),
                ..RecordedRealm::default()
            }],
            ..Recording::default()
        }
    }

    /// happy-dom lacks the `DOMTokenList` global, and its `classList` gives such objects: where the
    /// page's script threw there first (Preact's UMD build), the browser's `classList` reads count
    /// as given, where the check once said "no object of it exists there".
    #[test]
    fn a_class_the_browser_s_script_got_from_an_api_the_environment_has_may_be_there_too() {
        let mut class_list = item("Element.prototype.classList", "get");
        class_list.expected.insert(
            "returnValue".into(),
            vec![json!({"$object": "DOMTokenList", "id": "o4"})],
        );
        let add = item("DOMTokenList.prototype.add", "call");
        let lacking = recording(&[("DOMTokenList.prototype.add", "DOMTokenList")], &[]);
        let progress = Progress {
            classes_given: classes_the_browser_got(
                &[class_list.clone(), add.clone()],
                &lacking,
                &[],
            ),
            ..Progress::default()
        };
        let why = explain(&add, &lacking, &progress);
        assert_eq!(why.cause, PROBE_BLIND, "{}", why.message);
        assert!(
            why.message.contains("the browser's script got DOMTokenList objects from Element.prototype.classList, which the environment has"),
            "{}",
            why.message
        );
        // An API the environment lacks gave it nothing.
        let both = recording(
            &[
                ("DOMTokenList.prototype.add", "DOMTokenList"),
                ("Element.prototype.classList", "Element.prototype.classList"),
            ],
            &[],
        );
        assert!(classes_the_browser_got(&[class_list, add], &both, &[]).is_empty());
    }

    /// happy-dom's `<textarea>` carries `type` as its own data property, and its prototype has
    /// none where other members of it ran: "lacks … reading it gives `undefined`" was false (it
    /// gives "textarea"). An object the environment gave with that class and that own name makes
    /// the read one that cannot be told.
    #[test]
    fn a_member_an_object_given_carries_as_its_own_is_not_lacking() {
        let api = "HTMLTextAreaElement.prototype.type";
        let lacking = item(api, "get");
        let mut took = Observation {
            api: "Node.prototype.lastChild".into(),
            access_type: "get".into(),
            ..Observation::default()
        };
        took.observations
            .insert("constructorName".into(), vec![json!("HTMLTextAreaElement")]);
        took.observations
            .insert("ownNames".into(), vec![json!(["type", "value"])]);
        let explain_with = |observations: &[Observation]| {
            let progress = Progress {
                own_names_given: own_names_given(observations),
                ..Progress::default()
            };
            explain(&lacking, &recording(&[(api, api)], &[]), &progress)
        };
        let why = explain_with(std::slice::from_ref(&took));
        assert_eq!(why.cause, PROBE_BLIND, "{}", why.message);
        assert!(
            why.message.contains(
                "handed the script HTMLTextAreaElement objects (Node.prototype.lastChild gave one)"
            ),
            "{}",
            why.message
        );
        took.observations
            .insert("ownNames".into(), vec![json!(["value"])]);
        assert_eq!(explain_with(&[took]).cause, ENVIRONMENT_LACKS);
    }

    #[test]
    fn a_path_that_does_not_resolve_is_lacking_and_says_what_follows() {
        let why = explain(
            &item("x.y", "get"),
            &recording(&[("x.y", "x.y")], &[]),
            &Progress::default(),
        );
        assert_eq!(why.cause, ENVIRONMENT_LACKS);
        assert_eq!(why.lacks.as_deref(), Some("x.y"));
        assert!(why.message.contains("`undefined`"), "{}", why.message);
        assert_eq!(
            why.follows,
            vec![
                ("owner", Value::Null),
                ("returnValue", json!({"$undefined": true}))
            ]
        );
    }

    /// happy-dom's `clientWidth` is on HTMLElement.prototype, not Element.prototype, where
    /// Chromium has it: a `<div>`'s read gives 0 there. Where the page's script stopped before it,
    /// the check once said the environment lacked it and "reading it gives `undefined`" (Vue's
    /// page in happy-dom); the path on the receiver's class resolves, so it is not lacking.
    #[test]
    fn a_member_the_receiver_s_class_has_on_another_prototype_is_not_lacking() {
        let mut div = item("Element.prototype.clientWidth", "get");
        div.receiver = "HTMLDivElement".into();
        assert_eq!(
            receiver_path(&div).as_deref(),
            Some("HTMLDivElement.prototype.clientWidth")
        );
        let on_element = (
            "Element.prototype.clientWidth",
            "Element.prototype.clientWidth",
        );
        let mut asked = recording(&[on_element], &[]);
        asked.receiver_paths_checked = true;
        let why = explain(&div, &asked, &Progress::default());
        assert_eq!(why.cause, NOT_REACHED, "{}", why.message);
        assert_eq!(why.lacks, None);
        assert!(
            why.message.starts_with("the environment has HTMLDivElement.prototype.clientWidth (not Element.prototype.clientWidth, where the browser has it)"),
            "{}",
            why.message
        );
        // Where the browser's path is there too, the message says nothing of another one (jsdom's
        // `textContent` on `Node.prototype` was once "not Node.prototype.textContent").
        let mut there = recording(&[], &[]);
        there.receiver_paths_checked = true;
        let why = explain(&div, &there, &Progress::default());
        assert_eq!(why.cause, NOT_REACHED, "{}", why.message);
        assert!(!why.message.contains("(not "), "{}", why.message);
        // Lacking on the receiver's class too: lacking.
        let on_div = (
            "HTMLDivElement.prototype.clientWidth",
            "HTMLDivElement.prototype.clientWidth",
        );
        let mut both = recording(&[on_element, on_div], &[]);
        both.receiver_paths_checked = true;
        let why = explain(&div, &both, &Progress::default());
        assert_eq!(why.cause, ENVIRONMENT_LACKS);
        // A recording that never asked about the receiver's class says nothing of it.
        let why = explain(&div, &recording(&[on_element], &[]), &Progress::default());
        assert_eq!(why.cause, ENVIRONMENT_LACKS);
    }

    /// happy-dom's events carry `button` and `relatedTarget` as their own data properties, and
    /// `MouseEvent.prototype` has neither: a listener's `e.button` gives 0 as in Chromium, where
    /// the check once said the environment lacked it and "reading it gives `undefined`" (jQuery's
    /// event handling). The event reaches the script as its listener's argument, which the probe
    /// does not record.
    #[test]
    fn a_member_lacking_on_an_event_prototype_is_probe_blind_where_the_script_listens() {
        let api = "MouseEvent.prototype.button";
        let mut lacking = item(api, "get");
        lacking.receiver = "PointerEvent".into();
        let added = Observation {
            api: "EventTarget.prototype.addEventListener".into(),
            access_type: "call".into(),
            ..Observation::default()
        };
        let explain_with = |observations: &[Observation]| {
            let progress = Progress {
                classes_given: classes_given(observations, ["PointerEvent", "MouseEvent"], false),
                ..Progress::default()
            };
            explain(&lacking, &recording(&[(api, api)], &[]), &progress)
        };
        let why = explain_with(std::slice::from_ref(&added));
        assert_eq!(why.cause, PROBE_BLIND, "{}", why.message);
        assert!(why.follows.is_empty());
        assert!(
            why.message.contains("the script added an event listener, and the environment hands a listener its events (MouseEvent objects in the browser)"),
            "{}",
            why.message
        );
        // An `on…` handler is a listener too.
        let handler = Observation {
            api: "HTMLElement.prototype.onclick".into(),
            access_type: "set".into(),
            ..Observation::default()
        };
        assert_eq!(explain_with(&[handler]).cause, PROBE_BLIND);
        // A script that listens for nothing is handed no event.
        assert_eq!(explain_with(&[]).cause, ENVIRONMENT_LACKS);
        // Where only the browser's run added a listener (happy-dom's never got that far: the
        // page's UMD build threw first), its events are the script's as it runs there.
        let progress = Progress {
            classes_given: classes_given(&[], ["KeyboardEvent"], true),
            ..Progress::default()
        };
        let key = "KeyboardEvent.prototype.key";
        let why = explain(&item(key, "get"), &recording(&[(key, key)], &[]), &progress);
        assert_eq!(why.cause, PROBE_BLIND, "{}", why.message);
        assert!(
            why.message
                .contains("the script adds an event listener in the browser"),
            "{}",
            why.message
        );
        // Nor is the member probe-blind where another of the prototype's members ran.
        let other = Observation {
            api: "MouseEvent.prototype.clientX".into(),
            access_type: "get".into(),
            ..Observation::default()
        };
        assert_eq!(explain_with(&[added, other]).cause, ENVIRONMENT_LACKS);
    }

    #[test]
    fn a_member_lacking_on_the_prototype_of_objects_the_script_was_given_is_probe_blind() {
        // happy-dom's `takeRecords()` gives `MutationRecord`s that carry `target` as their own
        // data property, where the browser's prototype has a getter: the read gives the node,
        // not `undefined` (the check once said so, and that the owner was `null`).
        let api = "MutationRecord.prototype.target";
        let mut lacking = item(api, "get");
        lacking.receiver = "MutationRecord".into();
        let took = Observation {
            api: "MutationObserver.prototype.takeRecords".into(),
            access_type: "call".into(),
            observations: [(
                "returnValue".to_owned(),
                vec![json!([{"$object": "MutationRecord", "id": "o5"}])],
            )]
            .into(),
            ..Observation::default()
        };
        let progress = Progress {
            classes_given: classes_given(std::slice::from_ref(&took), [], false),
            ..Progress::default()
        };
        let why = explain(&lacking, &recording(&[(api, api)], &[]), &progress);
        assert_eq!(why.cause, PROBE_BLIND, "{}", why.message);
        assert!(why.follows.is_empty());
        assert!(
            why.message
                .contains("MutationObserver.prototype.takeRecords gave one"),
            "{}",
            why.message
        );
        // An observer's callback is handed them as its argument, and the script reads them there.
        let called = Observation {
            api: "MutationObserver.event:callback".into(),
            access_type: "event".into(),
            ..Observation::default()
        };
        let progress = Progress {
            classes_given: classes_given(std::slice::from_ref(&called), [], false),
            ..Progress::default()
        };
        let why = explain(&lacking, &recording(&[(api, api)], &[]), &progress);
        assert_eq!(why.cause, PROBE_BLIND, "{}", why.message);
        assert!(
            why.message
                .contains("a MutationObserver callback's argument gave one"),
            "{}",
            why.message
        );
        // Without such an object, the member is lacking.
        let why = explain(
            &lacking,
            &recording(&[(api, api)], &[]),
            &Progress::default(),
        );
        assert_eq!(why.cause, ENVIRONMENT_LACKS);
        // So it is where other members of its prototype ran: the objects answer through it.
        let other = Observation {
            api: "MutationRecord.prototype.type".into(),
            access_type: "get".into(),
            ..Observation::default()
        };
        let progress = Progress {
            classes_given: classes_given(&[took, other], [], false),
            ..Progress::default()
        };
        let why = explain(&lacking, &recording(&[(api, api)], &[]), &progress);
        assert_eq!(why.cause, ENVIRONMENT_LACKS);
    }

    #[test]
    fn a_lacking_interface_whose_objects_the_script_was_given_is_probe_blind() {
        // happy-dom has no `DOMTokenList` global, and its `classList` gives DOMTokenLists: the
        // check once said no object of it existed for the script to reach `add` on.
        let api = "DOMTokenList.prototype.add";
        let lacking = item(api, "call");
        let gave = Observation {
            api: "Element.prototype.classList".into(),
            access_type: "get".into(),
            observations: [(
                "returnValue".to_owned(),
                vec![json!({"$object": "DOMTokenList", "id": "o9"})],
            )]
            .into(),
            ..Observation::default()
        };
        let progress = Progress {
            classes_given: classes_given(&[gave], [], false),
            ..Progress::default()
        };
        let absent = recording(&[(api, "DOMTokenList")], &[]);
        let why = explain(&lacking, &absent, &progress);
        assert_eq!(why.cause, PROBE_BLIND, "{}", why.message);
        assert!(
            why.message.contains("Element.prototype.classList gave one"),
            "{}",
            why.message
        );
        assert!(
            why.action.starts_with("expose DOMTokenList"),
            "{}",
            why.action
        );
        let why = explain(&lacking, &absent, &Progress::default());
        assert_eq!(why.cause, ENVIRONMENT_LACKS);
        assert_eq!(why.lacks.as_deref(), Some("DOMTokenList"));
    }

    #[test]
    fn a_lacking_interface_is_named_and_nothing_is_said_to_follow_for_its_members() {
        let api = "CanvasRenderingContext2D.prototype.font";
        let why = explain(
            &item(api, "set"),
            &recording(&[(api, "CanvasRenderingContext2D")], &[]),
            &Progress::default(),
        );
        assert_eq!(why.cause, ENVIRONMENT_LACKS);
        assert_eq!(why.lacks.as_deref(), Some("CanvasRenderingContext2D"));
        assert!(why.follows.is_empty());
        assert!(
            why.message.contains("no object of it exists"),
            "{}",
            why.message
        );
    }

    /// DOMPurify's clobbering test reads `form.nodeName`, which in the browser is the form's
    /// `<input name="nodeName">` (a named property, unseen by the probe), in jsdom the form's own
    /// name: the script took another way there, and the lead once named only a value that
    /// differed earlier (`parseFromString`'s document).
    #[test]
    fn a_script_last_seen_at_a_form_is_told_of_the_form_s_named_properties() {
        let at = |receiver: &str| Reached {
            item: "c-0".into(),
            api: "Node.prototype.nodeName".into(),
            access_type: "get".into(),
            receiver: receiver.into(),
            index: 0,
        };
        let explain_after = |receiver: &str| {
            let progress = Progress {
                last_reached: Some(at(receiver)),
                ..Progress::default()
            };
            explain(
                &item("Node.prototype.removeChild", "call"),
                &recording(&[], &[]),
                &progress,
            )
        };
        let why = explain_after("HTMLFormElement");
        assert_eq!(why.cause, NOT_REACHED);
        assert!(
            why.message
                .contains("on an HTMLFormElement, whose named properties (its controls"),
            "{}",
            why.message
        );
        assert!(
            why.action.ends_with("or check that the environment gives an HTMLFormElement its named properties before its members, as the browser does: a read the probe cannot see may have sent the script another way"),
            "{}",
            why.action
        );
        let why = explain_after("HTMLDocument");
        assert!(!why.message.contains("named properties"), "{}", why.message);
        assert!(!why.action.contains("named properties"), "{}", why.action);
    }

    /// Vue in jsdom computes a transition's end from `Math.max` of the durations it read in
    /// computed styles, which are empty there: `Math.max` gave 0 because it was given 0, and the
    /// action once said to make `Math.max` give what the browser gave.
    #[test]
    fn a_lead_that_was_given_other_arguments_points_before_itself() {
        let max = Differed {
            at: Reached {
                item: "c".into(),
                api: "Math.max".into(),
                access_type: "call".into(),
                receiver: "X".into(),
                index: 0,
            },
            dimension: "returnValue".into(),
            expected: json!([50, 0]),
            observed: json!([0]),
            given_other: true,
            until: 0,
        };
        let progress = Progress {
            differences: vec![max],
            ..Progress::default()
        };
        let why = explain(
            &item("EventTarget.prototype.addEventListener", "call"),
            &recording(&[], &[]),
            &progress,
        );
        assert_eq!(why.cause, NOT_REACHED);
        assert!(
            why.action
                .starts_with("find where the values the script passed to Math.max came from"),
            "{}",
            why.action
        );
        assert_eq!(why.divergence.unwrap()["differed"]["givenOther"], true);
    }

    #[test]
    fn the_lead_is_the_closest_difference_on_a_related_api() {
        let differed = |api: &str| Differed {
            at: Reached {
                item: "c".into(),
                api: api.into(),
                access_type: "get".into(),
                receiver: "X".into(),
                index: 0,
            },
            dimension: "returnValue".into(),
            expected: json!([2]),
            observed: json!([0]),
            given_other: false,
            until: 0,
        };
        let progress = Progress {
            last_reached: None,
            differences: vec![
                differed("MimeTypeArray.prototype.length"),
                differed("HTMLCanvasElement.prototype.getContext"),
            ],
            last_lacking: None,
            entry_ended: None,
            page_error: None,
            own_names_given: HashMap::new(),
            collections_answering_themselves: Vec::new(),
            classes_given: Vec::new(),
        };
        let why = explain(
            &item("MimeType.prototype.description", "get"),
            &recording(&[], &[]),
            &progress,
        );
        assert_eq!(
            why.divergence.unwrap()["differed"]["api"],
            "MimeTypeArray.prototype.length"
        );
        let why = explain(
            &item("Date.prototype.getDay", "call"),
            &recording(&[], &[]),
            &progress,
        );
        assert_eq!(
            why.divergence.unwrap()["differed"]["api"],
            "HTMLCanvasElement.prototype.getContext"
        );
        // A closer value that differed only in its objects' class (`removeChild` gave a `<body>`
        // where the browser's gave a `<script>`) leads only where nothing else differed.
        let mut progress = progress;
        let mut removed = differed("Node.prototype.removeChild");
        removed.expected = json!([{"$object": "HTMLScriptElement"}]);
        removed.observed = json!([{"$object": "HTMLBodyElement"}]);
        let mut next = differed("NodeIterator.prototype.nextNode");
        next.expected = json!([{"$object": "HTMLScriptElement"}]);
        next.observed = json!([{"$object": "HTMLBodyElement"}, null]);
        progress.differences = vec![next, removed];
        let lead = |progress: &Progress| {
            let why = explain(
                &item("Node.prototype.parentNode", "get"),
                &recording(&[], &[]),
                progress,
            );
            why.divergence.unwrap()["differed"]["api"].clone()
        };
        assert_eq!(lead(&progress), "NodeIterator.prototype.nextNode");
        progress.differences.remove(0);
        assert_eq!(lead(&progress), "Node.prototype.removeChild");
    }

    /// A call of `api` both runtimes reached, the `index`th item.
    fn at(api: &str, index: usize) -> Reached {
        Reached {
            item: "c".into(),
            api: api.into(),
            access_type: "call".into(),
            receiver: "X".into(),
            index,
        }
    }

    /// d3 read `getPropertyValue("display")` (equal) before the SVG items and
    /// `getPropertyValue("opacity")` (differs) after them: the item's one difference was given
    /// after, and a value every access of which came before leads.
    #[test]
    fn a_value_the_browser_gave_only_after_the_item_is_no_lead_before_one_given_before() {
        let differed = |api: &str, index, until| Differed {
            at: at(api, index),
            dimension: "returnValue".into(),
            expected: json!(["block", "1"]),
            observed: json!(["block", ""]),
            given_other: false,
            until,
        };
        let progress = Progress {
            differences: vec![
                differed("HTMLElement.prototype.offsetWidth", 1, 4),
                differed("SVGRect.prototype.height", 2, 30),
            ],
            ..Progress::default()
        };
        let mut x = item("SVGRect.prototype.x", "get");
        x.first_seq = 10;
        let why = explain(&x, &recording(&[], &[]), &progress);
        assert_eq!(
            why.divergence.unwrap()["differed"]["api"],
            "HTMLElement.prototype.offsetWidth",
            "{}",
            why.message
        );
        // With none given before, none leads.
        let progress = Progress {
            differences: vec![differed("SVGRect.prototype.height", 2, 30)],
            ..Progress::default()
        };
        let why = explain(&x, &recording(&[], &[]), &progress);
        assert!(
            why.divergence.unwrap().get("differed").is_none(),
            "{}",
            why.message
        );
        assert!(
            !why.message.contains("closest value before it"),
            "{}",
            why.message
        );
        // A call whose every value differed (ClientJS's `getContext`: `null` for each context)
        // differed at its first, before the item, however long the browser went on calling it.
        let mut context = differed("HTMLCanvasElement.prototype.getContext", 2, 30);
        context.expected = json!([{"$object": "CanvasRenderingContext2D", "id": "o4"}]);
        context.observed = json!([null]);
        let progress = Progress {
            differences: vec![context],
            ..Progress::default()
        };
        let why = explain(&x, &recording(&[], &[]), &progress);
        assert_eq!(
            why.divergence.unwrap()["differed"]["api"],
            "HTMLCanvasElement.prototype.getContext"
        );
    }

    #[test]
    fn a_getter_a_plain_object_answers_from_its_own_property_leads_to_what_gave_the_object() {
        // jsdom's `getBoundingClientRect` returns an Object with its own `width`: the script's
        // read of `width` runs no getter; a later difference (`offsetWidth`) is not the lead.
        let rect = Differed {
            at: at("Element.prototype.getBoundingClientRect", 1),
            dimension: "returnValue".into(),
            expected: json!([{"$object": "DOMRect", "id": "o2"}]),
            observed: json!([{"$object": "Object", "id": "o3", "props": {"width": 0, "height": 0}}]),
            given_other: false,
            until: 0,
        };
        let offset = Differed {
            at: at("HTMLElement.prototype.offsetWidth", 2),
            dimension: "returnValue".into(),
            expected: json!([130]),
            observed: json!([0]),
            given_other: false,
            until: 0,
        };
        let progress = Progress {
            last_reached: None,
            differences: vec![rect, offset],
            last_lacking: None,
            entry_ended: None,
            page_error: None,
            own_names_given: HashMap::new(),
            collections_answering_themselves: Vec::new(),
            classes_given: Vec::new(),
        };
        let mut width = item("DOMRect.prototype.width", "get");
        width.receiver = "DOMRect".into();
        let why = explain(&width, &recording(&[], &[]), &progress);
        assert_eq!(why.cause, NOT_REACHED);
        assert_eq!(
            why.divergence.unwrap()["differed"]["api"],
            "Element.prototype.getBoundingClientRect"
        );
        assert!(
            why.message.contains("own data property `width`"),
            "{}",
            why.message
        );
        assert!(
            why.action.starts_with(
                "make Element.prototype.getBoundingClientRect give a DOMRect as the browser does"
            ),
            "{}",
            why.action
        );
        // A member the plain object does not have is led as before.
        let mut x = item("DOMRect.prototype.x", "get");
        x.receiver = "DOMRect".into();
        let why = explain(&x, &recording(&[], &[]), &progress);
        assert_eq!(
            why.divergence.unwrap()["differed"]["api"],
            "HTMLElement.prototype.offsetWidth"
        );
    }

    #[test]
    fn an_unwatched_property_or_an_unprobed_realm_is_probe_blind() {
        let why = explain(
            &item("x.y", "get"),
            &recording(&[], &["x.y"]),
            &Progress::default(),
        );
        assert_eq!(why.cause, PROBE_BLIND);
        let mut iframe = item("x.y", "get");
        iframe.realm = "iframe".into();
        let mut unprobed = recording(&[], &[]);
        unprobed.realms.push(RecordedRealm {
            name: "VM Context 2".into(),
            ..RecordedRealm::default()
        });
        let why = explain(&iframe, &unprobed, &Progress::default());
        assert_eq!(why.cause, PROBE_BLIND);
        assert!(why.message.contains("VM Context 2"), "{}", why.message);
        // No realm of that kind at all, and none left unprobed: the environment has none.
        let why = explain(&iframe, &recording(&[], &[]), &Progress::default());
        assert_eq!(why.cause, ENVIRONMENT_LACKS);
        assert_eq!(why.lacks.as_deref(), Some("a `iframe` realm"));
    }

    /// A member another window's probe watches (happy-dom's classes are one for every window) is
    /// named as such, not as a property the probe cannot watch.
    #[test]
    fn a_member_every_window_shares_is_probe_blind_and_says_so() {
        let mut shared = recording(&[], &[]);
        shared.realms[0].shared = vec!["document.createElement".into()];
        let why = explain(
            &item("document.createElement", "call"),
            &shared,
            &Progress::default(),
        );
        assert_eq!(why.cause, PROBE_BLIND);
        assert!(
            why.message
                .contains("every window of the environment shares"),
            "{}",
            why.message
        );
    }

    #[test]
    fn a_member_the_environment_has_is_not_reached_with_the_divergence() {
        let at = Reached {
            item: "c-0".into(),
            api: "c.getContext".into(),
            access_type: "call".into(),
            receiver: "X".into(),
            index: 0,
        };
        let progress = Progress {
            last_reached: Some(at.clone()),
            differences: vec![Differed {
                at,
                dimension: "returnValue".into(),
                expected: json!([{"$object": "CanvasRenderingContext2D"}]),
                observed: json!([null]),
                given_other: false,
                until: 0,
            }],
            last_lacking: None,
            entry_ended: None,
            page_error: None,
            own_names_given: HashMap::new(),
            collections_answering_themselves: Vec::new(),
            classes_given: Vec::new(),
        };
        let why = explain(&item("x.y", "call"), &recording(&[], &[]), &progress);
        assert_eq!(why.cause, NOT_REACHED);
        let d = why.divergence.unwrap();
        assert_eq!(d["lastReached"]["api"], "c.getContext");
        assert_eq!(d["differed"]["observed"], json!([null]));
        assert!(why.message.contains("null here"), "{}", why.message);
    }

    /// The lacking member closest before the item is what the action names (DOMPurify in jsdom:
    /// the action once said to make `ownerDocument` give `HTMLDocument`, a difference before the
    /// `trustedTypes` the environment lacks, after which DOMPurify took another way).
    #[test]
    fn an_item_the_environment_lacks_before_one_not_reached_is_named_and_never_a_lead() {
        let order = [
            "Node.prototype.ownerDocument",
            "Document.prototype.createElement",
            "trustedTypes",
        ];
        let at = |api: &str| Reached {
            item: format!("c-{api}"),
            api: api.into(),
            access_type: "get".into(),
            receiver: "X".into(),
            index: order.iter().position(|a| *a == api).unwrap(),
        };
        let differed = |api: &str| Differed {
            at: at(api),
            dimension: "returnValue".into(),
            expected: json!([{"$object": "HTMLDocument"}]),
            observed: json!([{"$object": "Document"}]),
            given_other: false,
            until: 0,
        };
        let progress = Progress {
            last_reached: Some(at("Document.prototype.createElement")),
            differences: vec![differed("Node.prototype.ownerDocument")],
            last_lacking: Some(at("trustedTypes")),
            entry_ended: None,
            page_error: None,
            own_names_given: HashMap::new(),
            collections_answering_themselves: Vec::new(),
            classes_given: Vec::new(),
        };
        let why = explain(&item("x.y", "call"), &recording(&[], &[]), &progress);
        assert!(
            why.message.ends_with(
                "; before it the browser reached trustedTypes (get), which the environment lacks"
            ),
            "{}",
            why.message
        );
        assert_eq!(why.divergence.unwrap()["lacking"]["api"], "trustedTypes");
        assert!(
            why.action
                .starts_with("provide trustedTypes as the browser does if the script takes another way without it")
                && why.action.ends_with("(ordered by time: a lead, not proof of cause)"),
            "{}",
            why.action
        );
        // The action, with `reached` last, `differences`, and `lacking` the last lacking member.
        let action = |reached: &str, differences: Vec<Differed>, lacking: &str| {
            let progress = Progress {
                last_reached: Some(at(reached)),
                differences,
                last_lacking: Some(at(lacking)),
                entry_ended: None,
                page_error: None,
                own_names_given: HashMap::new(),
                collections_answering_themselves: Vec::new(),
                classes_given: Vec::new(),
            };
            explain(&item("x.y", "call"), &recording(&[], &[]), &progress).action
        };
        // The same when the value that differed is closer but an object of another class alike
        // (`Document` for `HTMLDocument`).
        let closer = "Document.prototype.createElement";
        let why = action(
            closer,
            vec![differed(closer)],
            "Node.prototype.ownerDocument",
        );
        assert!(
            why.starts_with("provide Node.prototype.ownerDocument as"),
            "{why}"
        );
        // A difference closer to the item than the lacking member, of a value a script branches
        // on (an object there, `null` here), is the action's.
        let mut null_here = differed(closer);
        null_here.observed = json!([null]);
        let why = action(
            "trustedTypes",
            vec![null_here],
            "Node.prototype.ownerDocument",
        );
        assert!(
            why.starts_with("make Document.prototype.createElement give"),
            "{why}"
        );
        // Nothing reached at all: the lacking item is still named, and no lead is made of it.
        let progress = Progress {
            last_reached: None,
            differences: Vec::new(),
            last_lacking: Some(at("trustedTypes")),
            entry_ended: None,
            page_error: None,
            own_names_given: HashMap::new(),
            collections_answering_themselves: Vec::new(),
            classes_given: Vec::new(),
        };
        let why = explain(&item("x.y", "call"), &recording(&[], &[]), &progress);
        let d = why.divergence.unwrap();
        assert_eq!(d["lacking"]["api"], "trustedTypes");
        assert!(d.get("differed").is_none(), "{d:#}");
    }
}
