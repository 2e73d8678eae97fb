//! Which contract item an access recorded in the environment is: matched by what it touched, not
//! by how a recorder spelled its path, and given the reference recorder's phase.
//!
//! - What an access touched: its realm, its receiver, the property key (the last segment of its
//!   `api`: `length` for `navigator.plugins.length` and `PluginArray.prototype.length`, the
//!   constructor for a `construct`) and its access type. A receiver that differs from every
//!   reference access of that key (jsdom's plain `Element` for Chromium's `MathMLElement`) is
//!   matched on the rest: the receiver whose path is spelled the same, else the only one if the
//!   property is defined where it was there (its owner), unless the environment reached that
//!   receiver on the key itself (then the access is one the browser did not make); where
//!   several receivers' items share the path, the class the browser's call with the same
//!   arguments gave where the environment's call made the object (see [`Matcher::made_as`]), else
//!   the one this receiver's values name most often over
//!   the whole recording (a primitive value that only one receiver's items gave: `"math"` for a
//!   `nodeName`), and first the one the object's own values name where the recorder numbers its
//!   receivers (`receiverId`: jsdom's `SVGElement` is a `circle` on one object, a `rect` on
//!   another), else the one whose value the access gave, else the only receiver left that the
//!   environment never reached itself; else the access is no item's (the check says which
//!   receivers it could have stood for). The receiver is then a finding on the item, never a
//!   reason to re-key it. The owner is a dimension, never part of the identity.
//! - A phase is the reference recorder's attribution: where the reference has the same thing under
//!   several phases, the access takes the phase of the reference access made from the same script
//!   position (the nearest frame: script file name, line, column), else of the same ordinal
//!   occurrence (the n-th access of the thing here is the n-th there, counting the phases in the
//!   order the reference first reached them), counted among the items spelled as the access is
//!   where the thing's items are spelled several ways and the access's spelling is some of them
//!   (`document.createElement` on the page's document beside `Document.prototype.createElement`
//!   on another).
//!
//! It only reads; the observations are built by [`crate::conformance::observed`].

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::Value;

use crate::conformance::contract::{Contract, OUTCOMES_BY_ARGS};
use crate::conformance::raw_trace::{self, AccessLine};

/// The property key an api path ends in: `userAgent` for `navigator.userAgent`, `iterator` for
/// `Array.prototype[Symbol.iterator]`, the name itself for a global (`name`, `XMLHttpRequest`).
pub fn property_key(api: &str) -> &str {
    if let Some(open) = api.rfind('[')
        && api.ends_with(']')
    {
        return &api[open..];
    }
    api.rsplit('.').next().unwrap_or(api)
}

/// A script position: the file name of the frame's URL, its line and column.
type Position = (String, u64, u64);

/// The nearest frame of a `stack` (the JSON text of a trace line's field).
fn nearest_frame(stack: Option<&str>) -> Option<Position> {
    let frames: Value = serde_json::from_str(stack?).ok()?;
    let frame = frames.as_array()?.first()?;
    let url = frame.get("url")?.as_str()?;
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let file = path.rsplit('/').next().unwrap_or(path).to_owned();
    Some((
        file,
        frame.get("line")?.as_u64()?,
        frame.get("column")?.as_u64()?,
    ))
}

/// The contract items that are one thing in several phases (or spellings), with what picks one.
#[derive(Debug, Default)]
struct Group {
    /// Indices into the contract's items, in order of their first access.
    items: Vec<usize>,
    /// Where the reference made each access: position -> the items seen there, first seen first
    /// (one script position can reach the thing spelled two ways: jQuery's `buildFragment`
    /// calls `context.createElement` on the page's document and on others).
    at: HashMap<Position, Vec<usize>>,
    /// Accesses of this group matched so far in the environment.
    seen: u64,
    /// The same, by the path the environment's recorder spelled (see [`Matcher::resolve`]).
    seen_as: HashMap<String, u64>,
}

/// The matcher: built once from the contract (and, where a thing has several phases, from the
/// reference trace it was built from), then asked once per access of the environment.
pub struct Matcher<'c> {
    contract: &'c Contract,
    groups: Vec<Group>,
    /// (realm, receiver, key, accessType) -> group.
    by_thing: HashMap<(String, String, String, String), usize>,
    /// (realm, key, accessType) -> groups, for a receiver the reference never had.
    by_key: HashMap<(String, String, String), Vec<usize>>,
    /// (realm, a receiver the reference never had) -> the reference's receivers its values named,
    /// with how often (see [`Matcher::learn`]): its keys whose value names none go to the most
    /// named one's items too.
    stands_for: HashMap<(String, String), HashMap<String, u64>>,
    /// The same for one object of the environment (its realm instance and its `receiverId`, where
    /// the recorder numbers receivers): jsdom's one `SVGElement` class stands for Chromium's
    /// `SVGCircleElement` on one object and `SVGRectElement` on another, and an object's own
    /// values say which.
    object_stands_for: HashMap<(String, String), HashMap<String, u64>>,
    /// The groups the environment reached on their own receiver (see [`Matcher::learn`]).
    claimed: HashSet<usize>,
}

/// What an access of the environment is in the reference.
#[derive(Debug, Clone, Copy)]
pub struct Match {
    /// Index into the contract's items.
    pub item: usize,
}

impl<'c> Matcher<'c> {
    /// The matcher for `contract`, whose traces are read (only when some thing has several
    /// phases) from `case_dir`.
    pub fn new(contract: &'c Contract, case_dir: &Path) -> Result<Matcher<'c>> {
        let mut matcher = Matcher {
            contract,
            groups: Vec::new(),
            by_thing: HashMap::new(),
            by_key: HashMap::new(),
            stands_for: HashMap::new(),
            object_stands_for: HashMap::new(),
            claimed: HashSet::new(),
        };
        let mut order: Vec<usize> = (0..contract.items.len()).collect();
        order.sort_by_key(|&i| contract.items[i].first_seq);
        for i in order {
            let item = &contract.items[i];
            let key = property_key(&item.api).to_owned();
            let thing = (
                item.realm.clone(),
                item.receiver.clone(),
                key.clone(),
                item.access_type.clone(),
            );
            let group = *matcher.by_thing.entry(thing).or_insert_with(|| {
                matcher.groups.push(Group::default());
                matcher
                    .by_key
                    .entry((item.realm.clone(), key, item.access_type.clone()))
                    .or_default()
                    .push(matcher.groups.len() - 1);
                matcher.groups.len() - 1
            });
            matcher.groups[group].items.push(i);
        }
        if matcher.groups.iter().any(|g| g.items.len() > 1) {
            matcher.read_positions(case_dir)?;
        }
        Ok(matcher)
    }

    /// Where the reference made each access of a thing it has under several items.
    fn read_positions(&mut self, case_dir: &Path) -> Result<()> {
        let index: HashMap<&str, usize> = self
            .contract
            .items
            .iter()
            .enumerate()
            .map(|(i, item)| (item.id.as_str(), i))
            .collect();
        let paths: Vec<PathBuf> = self
            .contract
            .traces
            .iter()
            .map(|t| case_dir.join(&t.path))
            .collect();
        if paths.iter().any(|p| !p.is_file()) {
            // The trace moved away: the ordinal rule alone.
            return Ok(());
        }
        let groups = &mut self.groups;
        let by_thing = &self.by_thing;
        raw_trace::read_capture(&paths, case_dir, |event, _| {
            let Some(&group) = by_thing.get(&thing_of(event, property_key(&event.api))) else {
                return Ok(());
            };
            if groups[group].items.len() < 2 {
                return Ok(());
            }
            let id = crate::conformance::hash::item_id(
                &event.api,
                &event.access_type,
                &event.realm,
                &event.receiver,
                &event.phase,
            );
            if let (Some(&item), Some(position)) = (
                index.get(id.as_str()),
                nearest_frame(event.raw_field("stack")),
            ) {
                let seen = groups[group].at.entry(position).or_default();
                if !seen.contains(&item) {
                    seen.push(item);
                }
            }
            Ok(())
        })?;
        Ok(())
    }

    /// The contract item `event` (an access recorded in the environment) is, if any.
    pub fn resolve(&mut self, event: &AccessLine) -> Option<Match> {
        let key = property_key(&event.api);
        let group = match self.by_thing.get(&thing_of(event, key)) {
            Some(&group) => group,
            None => self.other_receiver(event, key)?,
        };
        let items = &self.contract.items;
        let g = &mut self.groups[group];
        g.seen += 1;
        if g.items.len() == 1 {
            return Some(Match { item: g.items[0] });
        }
        // Where the group's items are spelled several ways and this recorder spelled the access
        // as some of them (`document.createElement` on the page's document,
        // `Document.prototype.createElement` on a document `createHTMLDocument` made: one thing
        // for the matcher), those items are the ones it can be: the n-th call on the page's
        // document is not the n-th call of the group, which another document's calls between
        // them would shift, and a script position that reached both is no answer.
        let spelled: Vec<usize> = g
            .items
            .iter()
            .copied()
            .filter(|&i| items[i].api == event.api)
            .collect();
        let by_spelling = !spelled.is_empty() && spelled.len() < g.items.len();
        if let Some(position) = nearest_frame(event.raw_field("stack"))
            && let Some(item) = g.at.get(&position).and_then(|seen| {
                seen.iter()
                    .copied()
                    .find(|i| !by_spelling || spelled.contains(i))
            })
        {
            return Some(Match { item });
        }
        let (candidates, seen) = if !by_spelling {
            (g.items.clone(), g.seen)
        } else {
            let seen = g.seen_as.entry(event.api.clone()).or_default();
            *seen += 1;
            (spelled, *seen)
        };
        // The n-th occurrence: the items' counts, in the order the reference first reached them.
        let mut left = seen;
        for &i in &candidates {
            let count = items[i].count;
            if left <= count {
                return Some(Match { item: i });
            }
            left -= count;
        }
        candidates.last().map(|&item| Match { item })
    }

    /// Learns from one access of the environment (a first pass over all of them, before any
    /// [`Matcher::resolve`]) which reference receiver a receiver the reference never had stands
    /// for (the one whose items alone gave the value it gave), and which receivers the
    /// environment reached itself.
    pub fn learn(&mut self, event: &AccessLine) {
        let key = property_key(&event.api);
        if let Some((object, class)) = self.made_as(event, key) {
            // Where it came from outweighs what its values say (a value several receivers'
            // items gave can vote for another).
            let votes = self.object_stands_for.entry(object).or_default();
            *votes.entry(class).or_default() += MADE_AS_VOTES;
        }
        if let Some(&group) = self.by_thing.get(&thing_of(event, key)) {
            self.claimed.insert(group);
            return;
        }
        let Receivers::Several(candidates) = self.receivers(event, key) else {
            return;
        };
        if let [g] = self.gave_the_value(event, &candidates)[..] {
            let stood_for = self.receiver_of(g).clone();
            if let Some(object) = object_of(event) {
                let votes = self.object_stands_for.entry(object).or_default();
                *votes.entry(stood_for.clone()).or_default() += 1;
            }
            let votes = self
                .stands_for
                .entry((event.realm.clone(), event.receiver.clone()))
                .or_default();
            *votes.entry(stood_for).or_default() += 1;
        }
    }

    /// The group of a key reached on a receiver the reference never had it on: among the
    /// receivers whose path is spelled the same (else all, when there is only one), the one this
    /// receiver stands for most often (see [`Matcher::learn`]), else the only one whose value the
    /// access gave, else (among those that gave it, if several did) the only one the environment
    /// never reached, on its own receiver or through another that stands for it; none when that
    /// does not name one.
    fn other_receiver(&self, event: &AccessLine, key: &str) -> Option<usize> {
        let mut candidates = match self.receivers(event, key) {
            Receivers::None => return None,
            // Where the environment reached that receiver on this key itself, this one stands for
            // no other: an access the browser did not make (lit, without `adoptedStyleSheets` in
            // jsdom, appends a `<style>` to its shadow root besides its element to the body).
            Receivers::One(g) if self.claimed.contains(&g) => return None,
            Receivers::One(g) => return Some(g),
            Receivers::Several(candidates) => candidates,
        };
        // What the object itself stands for decides first, then what its class does.
        let object_votes = object_of(event).and_then(|o| self.object_stands_for.get(&o));
        let class_votes = self
            .stands_for
            .get(&(event.realm.clone(), event.receiver.clone()));
        for votes in [object_votes, class_votes].into_iter().flatten() {
            if let Some(g) = candidates
                .iter()
                .copied()
                .filter(|&g| votes.contains_key(self.receiver_of(g)))
                .max_by_key(|&g| (votes[self.receiver_of(g)], std::cmp::Reverse(g)))
            {
                return Some(g);
            }
        }
        // A value several receivers' items gave (`1` for a `nodeType`) narrows, never decides.
        let by_value = self.gave_the_value(event, &candidates);
        match by_value[..] {
            [g] => return Some(g),
            [] => {}
            _ => candidates = by_value,
        }
        // Else the one receiver left that the environment never reached itself on this key, nor
        // through another receiver that stands for it (it reached every other one): with several
        // left, which one this receiver stands for cannot be told, and the access is no item's
        // (the check names the receivers it could be).
        let stood_for: HashSet<&String> = self
            .stands_for
            .iter()
            .filter(|((realm, receiver), _)| *realm == event.realm && *receiver != event.receiver)
            .filter_map(|(_, votes)| votes.iter().max_by_key(|(_, n)| **n).map(|(r, _)| r))
            .collect();
        match candidates
            .iter()
            .filter(|&&g| !self.claimed.contains(&g) && !stood_for.contains(self.receiver_of(g)))
            .collect::<Vec<_>>()[..]
        {
            [&g] => Some(g),
            _ => None,
        }
    }

    /// The receivers an access on a receiver the reference never had may stand for.
    fn receivers(&self, event: &AccessLine, key: &str) -> Receivers {
        let Some(groups) = self.by_key.get(&(
            event.realm.clone(),
            key.to_owned(),
            event.access_type.clone(),
        )) else {
            return Receivers::None;
        };
        let items = &self.contract.items;
        let same_path: Vec<usize> = groups
            .iter()
            .copied()
            .filter(|&g| {
                self.groups[g]
                    .items
                    .iter()
                    .any(|&i| items[i].api == event.api)
            })
            .collect();
        match (same_path.len(), groups.len()) {
            // Another path and another receiver: the same thing only where the property is
            // defined where the reference's was (jsdom's `style.top` on `CSSStyleDeclaration` is
            // not the reference's `DOMRectReadOnly.prototype.top`, the only `top` it read).
            (0, 1) if self.same_owner(event, groups[0]) => Receivers::One(groups[0]),
            (0, _) => Receivers::None,
            (1, _) => Receivers::One(same_path[0]),
            _ => Receivers::Several(same_path),
        }
    }

    /// Whether the access's property is defined where one of the group's items had it (its
    /// `owner`, as the environment measured it).
    fn same_owner(&self, event: &AccessLine, group: usize) -> bool {
        let Some(owner) = event
            .raw_field("owner")
            .and_then(|text| serde_json::from_str::<Value>(text).ok())
        else {
            return false;
        };
        self.groups[group].items.iter().any(|&i| {
            self.contract.items[i]
                .expected
                .get("owner")
                .is_some_and(|owners| owners.contains(&owner))
        })
    }

    /// The `candidates` whose items gave the value the access gave: a primitive (an object's
    /// `id` is the run's own numbering), equal to one of an item's `returnValue`s.
    fn gave_the_value(&self, event: &AccessLine, candidates: &[usize]) -> Vec<usize> {
        let Some(value) = event
            .raw_field("returnValue")
            .filter(|text| !text.contains("\"$object\""))
            .and_then(|text| serde_json::from_str::<Value>(text).ok())
        else {
            return Vec::new();
        };
        let items = &self.contract.items;
        candidates
            .iter()
            .copied()
            .filter(|&g| {
                self.groups[g].items.iter().any(|&i| {
                    items[i]
                        .expected
                        .get("returnValue")
                        .is_some_and(|values| values.contains(&value))
                })
            })
            .collect()
    }

    /// The object a call or a construction of the environment gave, and the class the browser's
    /// gave for the same arguments where that is another one, the same for every item the call
    /// can be (its `outcomesByArgs`): jsdom's `createElementNS(svg, "line")` gives an `SVGElement`
    /// where Chromium's gives an `SVGLineElement`, and that object then stands for one, whatever
    /// the script later asks of it (a `setAttribute` on it is the `SVGLineElement`'s item, not
    /// the first `SVGElement`-made item's).
    fn made_as(&self, event: &AccessLine, key: &str) -> Option<((String, String), String)> {
        if !matches!(event.access_type.as_str(), "call" | "construct") {
            return None;
        }
        let value: Value = serde_json::from_str(
            event
                .raw_field("returnValue")
                .filter(|t| t.contains("\"$object\""))?,
        )
        .ok()?;
        let (made, id) = (value.get("$object")?.as_str()?, value.get("id")?.as_str()?);
        let args: Value = serde_json::from_str(event.raw_field("args")?).ok()?;
        if args.to_string().contains("\"$object\"") {
            // Objects among the arguments are named by class in the contract: not the same
            // arguments for certain.
            return None;
        }
        let groups = self.by_key.get(&(
            event.realm.clone(),
            key.to_owned(),
            event.access_type.clone(),
        ))?;
        let items = &self.contract.items;
        let mut classes: HashSet<&str> = HashSet::new();
        for &g in groups {
            for &i in &self.groups[g].items {
                let pairs = items[i]
                    .expected
                    .get(OUTCOMES_BY_ARGS)
                    .into_iter()
                    .flatten();
                for pair in pairs.filter(|p| p.get(0) == Some(&args)) {
                    if let Some(class) = pair.pointer("/1/value/$object").and_then(Value::as_str) {
                        classes.insert(class);
                    }
                }
            }
        }
        let [class] = classes.into_iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        if class == made {
            return None;
        }
        let realm = event.raw_field("realmId").unwrap_or(&event.realm);
        Some(((realm.to_owned(), format!("\"{id}\"")), class.to_owned()))
    }

    /// The reference's receiver of a group.
    fn receiver_of(&self, group: usize) -> &String {
        &self.contract.items[self.groups[group].items[0]].receiver
    }
}

/// How much an object's origin weighs among what it stands for (see [`Matcher::made_as`]): more
/// than any count of its values' votes.
const MADE_AS_VOTES: u64 = 1 << 32;

/// The object an access was made on, where the recorder numbered it: (realm instance, `receiverId`).
fn object_of(event: &AccessLine) -> Option<(String, String)> {
    let id = event.raw_field("receiverId")?;
    let realm = event.raw_field("realmId").unwrap_or(&event.realm);
    Some((realm.to_owned(), id.to_owned()))
}

/// What an access touched: (realm, receiver, property key, access type).
fn thing_of(event: &AccessLine, key: &str) -> (String, String, String, String) {
    (
        event.realm.clone(),
        event.receiver.clone(),
        key.to_owned(),
        event.access_type.clone(),
    )
}

/// What an access on a receiver the reference never had may be.
enum Receivers {
    None,
    One(usize),
    Several(Vec<usize>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_the_last_segment_of_the_path() {
        assert_eq!(property_key("navigator.plugins.length"), "length");
        assert_eq!(property_key("PluginArray.prototype.length"), "length");
        assert_eq!(property_key("window.name"), "name");
        assert_eq!(property_key("name"), "name");
        assert_eq!(property_key("Intl.DateTimeFormat"), "DateTimeFormat");
        assert_eq!(
            property_key("XMLHttpRequest.event:readystatechange"),
            "event:readystatechange"
        );
        assert_eq!(
            property_key("Array.prototype[Symbol.iterator]"),
            "[Symbol.iterator]"
        );
    }

    #[test]
    fn the_nearest_frame_is_named_by_its_file() {
        let stack = r#"[{"url":"https://a.test/js/app.js?v=2","line":3,"column":9,"functionName":"f"},{"url":"x.js","line":1,"column":1}]"#;
        assert_eq!(nearest_frame(Some(stack)), Some(("app.js".into(), 3, 9)));
        assert_eq!(nearest_frame(Some("[]")), None);
        assert_eq!(nearest_frame(None), None);
    }
}
