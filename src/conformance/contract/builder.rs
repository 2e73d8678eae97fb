//! Building a contract from access lines: one accumulator per item and per dimension, the
//! stateful families' timelines folded, the requests.

use super::*;

/// Builds a folded timeline and its hash from events given in raw order. `sequenceHash` is the
/// sha256 over, for each event, `item id` TAB `event` LF, in order, unfolded.
#[derive(Clone, Default)]
pub struct TimelineBuilder {
    folded: Vec<Fold>,
    hasher: Hasher,
    events: u64,
}

impl TimelineBuilder {
    pub fn push(&mut self, item: &str, event: &str) {
        self.hasher.update(item.as_bytes());
        self.hasher.update(b"\t");
        self.hasher.update(event.as_bytes());
        self.hasher.update(b"\n");
        self.events += 1;
        match self.folded.last_mut() {
            Some(last) if last.item == item && last.event == event => last.times += 1,
            _ => self.folded.push(Fold {
                item: item.to_owned(),
                event: event.to_owned(),
                times: 1,
            }),
        }
    }

    pub fn finish(self, family: String, object: String, source: String) -> Timeline {
        Timeline {
            family,
            object,
            folded: self.folded,
            sequence_hash: self.hasher.finish(),
            events: self.events,
            source,
        }
    }
}

struct ItemAcc {
    item: Item,
    /// The dimensions the item's lines had, in the order they were first seen.
    dims: Vec<DimAcc>,
    tags: BTreeSet<String>,
    navs: BTreeSet<u64>,
    /// The objects its reads returned (see `identity`).
    objects: Option<Objects>,
    /// In a part's builder, the first line's `stack` as written: the id and the stack sample are
    /// made only once the item is joined as new (see [`Builder::absorb`]).
    stack_text: Option<Box<str>>,
}

/// The objects an item's reads returned: the first (realm instance and `$object` id), whether every
/// later one was that same object, and how many reads returned an object; and, where every read
/// names its receiver (`receiverId`: an environment under audit), the first object of each receiver
/// and whether each receiver's reads all returned it.
struct Objects {
    first: String,
    same: bool,
    reads: u64,
    by_receiver: Option<HashMap<String, String>>,
    same_per_receiver: bool,
}

/// Receivers whose first object is kept for `identityPerReceiver`; reads on receivers past them
/// are not compared.
const RECEIVERS_KEPT: usize = 1024;

impl Objects {
    fn new(object: String, receiver: Option<String>) -> Self {
        Objects {
            by_receiver: receiver.map(|r| HashMap::from([(r, object.clone())])),
            first: object,
            same: true,
            reads: 1,
            same_per_receiver: true,
        }
    }

    fn read(&mut self, object: String, receiver: Option<String>) {
        self.reads += 1;
        self.same &= self.first == object;
        self.of_receiver(object, receiver);
    }

    fn of_receiver(&mut self, object: String, receiver: Option<String>) {
        match (&mut self.by_receiver, receiver) {
            (Some(firsts), Some(receiver)) => match firsts.get(&receiver) {
                Some(first) => self.same_per_receiver &= *first == object,
                None if firsts.len() < RECEIVERS_KEPT => {
                    firsts.insert(receiver, object);
                }
                None => {}
            },
            // A read that names no receiver: nothing is known per receiver.
            (by_receiver, _) => *by_receiver = None,
        }
    }

    fn absorb(&mut self, later: Objects) {
        self.same = self.same && later.same && self.first == later.first;
        self.reads += later.reads;
        self.same_per_receiver &= later.same_per_receiver;
        match later.by_receiver {
            Some(firsts) => {
                for (receiver, object) in firsts {
                    self.of_receiver(object, Some(receiver));
                }
            }
            None => self.by_receiver = None,
        }
    }
}

/// How many distinct values of a dimension are compared one by one before a hash set is built.
const FEW_VALUES: usize = 8;

/// One dimension of one item: its distinct values in first-seen order, each with its canonical
/// JSON (which decides whether two values are the same), and the JSON texts already seen that are
/// not canonical, so that a value written the same way again is not parsed again. Memory: the
/// values, plus the sets only once a dimension has many values or non-canonical texts.
///
/// In a part's builder (`raw`), nothing is parsed: `values` holds the distinct texts as written,
/// first seen first, with `Value::Null` beside them, and the joined builder parses those it has
/// not seen (see [`ItemAcc::absorb`]).
struct DimAcc {
    d: usize,
    raw: bool,
    values: Vec<(Box<str>, Value)>,
    /// The texts of `values`, once there are more than [`FEW_VALUES`].
    canonical: FxHashSet<Box<str>>,
    /// Texts seen that differ from their canonical form.
    texts: FxHashSet<Box<str>>,
}

impl DimAcc {
    fn new(d: usize, raw: bool) -> DimAcc {
        DimAcc {
            d,
            raw,
            values: Vec::new(),
            canonical: FxHashSet::default(),
            texts: FxHashSet::default(),
        }
    }

    fn has_canonical(&self, text: &str) -> bool {
        if self.values.len() <= FEW_VALUES {
            // The first byte tells most values apart without a call to compare them whole.
            let first = text.as_bytes().first();
            self.values
                .iter()
                .any(|(c, _)| c.as_bytes().first() == first && &**c == text)
        } else {
            self.canonical.contains(text)
        }
    }

    /// Keeps `value` (with its canonical text) unless an equal value is already kept.
    fn keep(&mut self, canonical: Box<str>, value: Value) {
        if self.has_canonical(&canonical) {
            return;
        }
        if self.values.len() == FEW_VALUES {
            self.canonical = self.values.iter().map(|(c, _)| c.clone()).collect();
        }
        if self.values.len() >= FEW_VALUES {
            self.canonical.insert(canonical.clone());
        }
        self.values.push((canonical, value));
    }

    /// One line's JSON text for this dimension.
    fn add(&mut self, text: &str) {
        if self.has_canonical(text) || self.texts.contains(text) {
            return;
        }
        if self.raw {
            self.keep(text.into(), Value::Null);
            return;
        }
        let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let canonical = hash::canonical_json(&value);
        if canonical != text {
            self.texts.insert(text.into());
        }
        self.keep(canonical.into_boxed_str(), value);
    }

    /// Joins the same dimension from the part that follows.
    fn absorb(&mut self, later: DimAcc) {
        if later.raw {
            for (text, _) in later.values {
                self.add(&text);
            }
        } else {
            for (canonical, value) in later.values {
                self.keep(canonical, value);
            }
            self.texts.extend(later.texts);
        }
    }
}

impl ItemAcc {
    /// The item's accumulator of dimension `d`, made on its first value.
    fn dim(&mut self, d: usize, raw: bool) -> &mut DimAcc {
        let at = match self.dims.iter().position(|dim| dim.d == d) {
            Some(at) => at,
            None => {
                self.dims.push(DimAcc::new(d, raw));
                self.dims.len() - 1
            }
        };
        &mut self.dims[at]
    }

    /// Joins the same item's accumulator from the part of the trace that follows.
    fn absorb(&mut self, later: ItemAcc) {
        self.item.count += later.item.count;
        self.item.last_seq = later.item.last_seq;
        if self.item.family.is_none() {
            self.item.family = later.item.family;
        }
        self.tags.extend(later.tags);
        self.navs.extend(later.navs);
        self.objects = match (self.objects.take(), later.objects) {
            (None, theirs) => theirs,
            (mine, None) => mine,
            (Some(mut mine), Some(theirs)) => {
                mine.absorb(theirs);
                Some(mine)
            }
        };
        for dim in later.dims {
            match self.dims.iter_mut().find(|mine| mine.d == dim.d) {
                Some(mine) => mine.absorb(dim),
                None => {
                    let mut mine = DimAcc::new(dim.d, false);
                    mine.absorb(dim);
                    self.dims.push(mine);
                }
            }
        }
    }

    /// A part's item, joined as new: its id and stack sample made, its values parsed.
    fn adopt(mut self) -> ItemAcc {
        let it = &mut self.item;
        if it.id.is_empty() {
            it.id = hash::item_id(&it.api, &it.access_type, &it.realm, &it.receiver, &it.phase);
        }
        if let Some(text) = self.stack_text.take() {
            it.stack_sample = stack_sample(serde_json::from_str(&text).ok());
        }
        if self.dims.iter().any(|dim| dim.raw) {
            let dims = std::mem::take(&mut self.dims);
            for dim in dims {
                let mut mine = DimAcc::new(dim.d, false);
                mine.absorb(dim);
                self.dims.push(mine);
            }
        }
        self
    }
}

/// The first [`STACK_SAMPLE`] frames of a line's `stack`.
fn stack_sample(stack: Option<Value>) -> Vec<Value> {
    match stack {
        Some(Value::Array(frames)) => frames.into_iter().take(STACK_SAMPLE).collect(),
        _ => Vec::new(),
    }
}

/// The additive dimension `identity`: whether the reads of an item that returned an object, two
/// or more, returned one object (`"one object"`: `navigator.plugins` in a browser) or not
/// (`"several objects"`: a new one per read, as an environment that builds it each time does).
/// Only what the same code measures in both runtimes: the `$object` ids of one trace, per realm.
pub const IDENTITY: &str = "identity";

/// Beside `identity`, where every read names its receiver (an environment's recording under
/// audit): whether each receiver's reads returned one object. The browser's recording names no
/// receiver, so its `identity` is over every read: a page reading `attributes` of one element
/// there and of two in the environment gives "one object" against "several objects", where each
/// element gave its own one.
pub const IDENTITY_PER_RECEIVER: &str = "identityPerReceiver";

/// The additive dimension `outcomesByArgs`: for a call, a construction or a write, the
/// arguments it was given beside what came of them, `[args, {"threw": {"name", "type"}}]` or
/// `[args, {"threw": false, "value": …}]` (the value where the recorder sampled it), every distinct
/// pair in first-seen order. `args` and `exception` alone are each a set: jQuery's
/// `querySelectorAll('li:contains("t")')` throwing a `SyntaxError` in Chromium and returning a
/// `NodeList` in jsdom hid among seventeen other selectors that throw on both sides with other
/// messages. Objects are named by class (their ids only link lines within one trace), and an
/// exception by its name and type (its message is each engine's own wording).
pub const OUTCOMES_BY_ARGS: &str = "outcomesByArgs";

/// Where `outcomesByArgs` is kept among an item's dimensions: after the spec's.
const OUTCOMES: usize = DIMENSIONS.len();

/// The name of the dimension at `d`.
fn dimension_name(d: usize) -> &'static str {
    DIMENSIONS.get(d).copied().unwrap_or(OUTCOMES_BY_ARGS)
}

/// A JSON text with every `$object`'s `id` left out, parsed only where there is one.
fn without_object_ids(text: &str) -> std::borrow::Cow<'_, str> {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(fields) => {
                if fields.contains_key("$object") {
                    fields.remove("id");
                }
                fields.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    if !text.contains("\"$object\"") {
        return text.into();
    }
    match serde_json::from_str::<Value>(text) {
        Ok(mut value) => {
            strip(&mut value);
            hash::canonical_json(&value).into()
        }
        Err(_) => text.into(),
    }
}

/// An access's `outcomesByArgs` pair as JSON text (see [`OUTCOMES_BY_ARGS`]), where it has
/// arguments and a recorded outcome.
fn outcome_by_args(event: &AccessLine) -> Option<String> {
    if !matches!(event.access_type.as_str(), "call" | "construct" | "set") {
        return None;
    }
    let args = without_object_ids(event.raw_field("args")?);
    let exception = event
        .raw_field("exception")
        .map(|text| serde_json::from_str::<Value>(text).unwrap_or(Value::Null));
    let outcome = match exception {
        Some(Value::Object(e)) => {
            let threw: serde_json::Map<String, Value> = ["name", "type"]
                .into_iter()
                .filter_map(|k| Some((k.to_owned(), e.get(k)?.clone())))
                .collect();
            format!(
                r#"{{"threw":{}}}"#,
                hash::canonical_json(&Value::Object(threw))
            )
        }
        exception => match event.raw_field("returnValue") {
            Some(value) => format!(r#"{{"threw":false,"value":{}}}"#, without_object_ids(value)),
            None if exception.is_some() => r#"{"threw":false}"#.to_owned(),
            None => return None,
        },
    };
    Some(format!("[{args},{outcome}]"))
}

struct TimelineAcc {
    family: String,
    object: String,
    source: String,
    builder: TimelineBuilder,
}

/// What a part's builder (see [`Builder::part`]) keeps in line order instead of applying it:
/// the timelines and the requests are sequences, built only once the parts are joined in order.
enum Deferred {
    /// A state event of the part's item at this index.
    State {
        item: usize,
        state: State,
        file: usize,
    },
    /// An event the requests are made of.
    Request(Box<AccessLine>),
}

/// The streaming builder: memory grows with the distinct items, values and timeline events.
///
/// A trace can also be built in consecutive parts, each by a builder of its own made with
/// [`Builder::part`] (on as many threads), then joined in order with [`Builder::absorb`]: the
/// result is the one adding every event to one builder gives, byte for byte.
pub struct Builder {
    items: Vec<ItemAcc>,
    /// The five key fields joined by NUL -> the item's index.
    index: FxHashMap<Box<str>, usize>,
    /// Scratch space for the joined key of the current event (no allocation per event).
    key: String,
    timelines: Vec<TimelineAcc>,
    timeline_index: HashMap<(String, String), usize>,
    global: TimelineBuilder,
    global_source: Option<String>,
    requests: RequestBuilder,
    /// `Some` in a part's builder: the sequences, kept for [`Builder::absorb`].
    deferred: Option<Vec<Deferred>>,
}

/// How many stack frames an item keeps as its sample.
const STACK_SAMPLE: usize = 5;

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

/// The key of an item: its five key fields, each followed by NUL, into `key`.
fn write_key(key: &mut String, parts: [&str; 5]) {
    key.clear();
    for part in parts {
        key.push_str(part);
        key.push('\0');
    }
}

impl Builder {
    pub fn new() -> Self {
        Builder {
            items: Vec::new(),
            index: FxHashMap::default(),
            key: String::new(),
            timelines: Vec::new(),
            timeline_index: HashMap::new(),
            global: TimelineBuilder::default(),
            global_source: None,
            requests: RequestBuilder::default(),
            deferred: None,
        }
    }

    /// A builder for one part of a trace, to be joined to the parts before it with
    /// [`Builder::absorb`]; [`Builder::finish`] only on the joined one.
    pub fn part() -> Self {
        Builder {
            deferred: Some(Vec::new()),
            ..Builder::new()
        }
    }

    /// How many distinct items so far.
    pub fn item_count(&self) -> usize {
        self.items.len()
    }

    /// Adds one event; events must come in global `seq` order (the reader guarantees it).
    pub fn add(&mut self, event: &AccessLine, file_names: &[String]) {
        match &mut self.deferred {
            Some(deferred) => {
                if RequestBuilder::wants(event) {
                    deferred.push(Deferred::Request(Box::new(event.clone())));
                }
            }
            None => self.requests.add(event),
        }
        write_key(
            &mut self.key,
            [
                &event.api,
                &event.access_type,
                &event.realm,
                &event.receiver,
                &event.phase,
            ],
        );
        let index = match self.index.get(self.key.as_str()) {
            Some(&i) => i,
            None => {
                // A part's builder leaves the id and the sample to the join.
                let part = self.deferred.is_some();
                let (id, stack_sample, stack_text) = if part {
                    (
                        String::new(),
                        Vec::new(),
                        event.raw_field("stack").map(Box::from),
                    )
                } else {
                    let id = hash::item_id(
                        &event.api,
                        &event.access_type,
                        &event.realm,
                        &event.receiver,
                        &event.phase,
                    );
                    (id, stack_sample(event.field("stack")), None)
                };
                let (api, access_type, realm, receiver, phase) = (
                    event.api.clone(),
                    event.access_type.clone(),
                    event.realm.clone(),
                    event.receiver.clone(),
                    event.phase.clone(),
                );
                self.items.push(ItemAcc {
                    item: Item {
                        id,
                        api,
                        access_type,
                        realm,
                        receiver,
                        phase,
                        priority: String::new(),
                        family: None,
                        lowered_by: None,
                        tags: Vec::new(),
                        count: 0,
                        first_seq: event.seq,
                        last_seq: event.seq,
                        navs: Vec::new(),
                        expected: BTreeMap::new(),
                        pending: Vec::new(),
                        stack_sample,
                    },
                    dims: Vec::new(),
                    tags: BTreeSet::new(),
                    navs: BTreeSet::new(),
                    objects: None,
                    stack_text,
                });
                self.index
                    .insert(self.key.as_str().into(), self.items.len() - 1);
                self.items.len() - 1
            }
        };
        let acc = &mut self.items[index];
        acc.item.count += 1;
        acc.item.last_seq = event.seq;
        if let Some(nav) = event.nav {
            acc.navs.insert(nav);
        }
        for tag in &event.tags {
            if !acc.tags.contains(tag) {
                acc.tags.insert(tag.clone());
            }
        }
        // Last occurrence first: of a name written twice, only the last counts, as for every
        // reader of the line.
        let mut done = 0u32;
        // Whether the value's own keys are the environment's to compute (not sampled), asked
        // once, at the line's first key list.
        let mut computed = None;
        for (name, text) in event.fields.named_texts_last_first() {
            let Some(d) = dimension_index(name) else {
                continue;
            };
            if done & (1 << d) != 0 {
                continue;
            }
            if KEY_LISTS.contains(&name)
                && *computed.get_or_insert_with(|| {
                    event.raw_field("prototypeChain").is_some_and(keys_computed)
                })
            {
                continue;
            }
            done |= 1 << d;
            acc.dim(d, self.deferred.is_some()).add(text);
        }
        if let Some(pair) = outcome_by_args(event) {
            acc.dim(OUTCOMES, self.deferred.is_some()).add(&pair);
        }
        if let Some(text) = event.raw_field("returnValue")
            && text.contains("\"$object\"")
            && let Ok(Value::Object(value)) = serde_json::from_str::<Value>(text)
            && let Some(id) = value.get("id").and_then(Value::as_str)
        {
            let realm = event.raw_field("realmId").unwrap_or("");
            let object = format!("{realm}/{id}");
            let receiver = event
                .raw_field("receiverId")
                .map(|receiver| format!("{realm}/{receiver}"));
            match &mut acc.objects {
                None => acc.objects = Some(Objects::new(object, receiver)),
                Some(objects) => objects.read(object, receiver),
            }
        }
        if let Some(state) = &event.state {
            if acc.item.family.is_none() {
                acc.item.family = Some(state.family.clone());
            }
            match &mut self.deferred {
                Some(deferred) => deferred.push(Deferred::State {
                    item: index,
                    state: state.clone(),
                    file: event.file,
                }),
                None => self.push_state(index, state, event.file, file_names),
            }
        }
    }

    /// A state event of the item at `index`, onto its object's timeline and the global one.
    fn push_state(&mut self, index: usize, state: &State, file: usize, file_names: &[String]) {
        let source = file_names.get(file).cloned().unwrap_or_default();
        let id = &self.items[index].item.id;
        let tkey = (state.family.clone(), state.object.clone());
        let t = match self.timeline_index.get(&tkey) {
            Some(&t) => t,
            None => {
                self.timelines.push(TimelineAcc {
                    family: state.family.clone(),
                    object: state.object.clone(),
                    source: source.clone(),
                    builder: TimelineBuilder::default(),
                });
                self.timeline_index.insert(tkey, self.timelines.len() - 1);
                self.timelines.len() - 1
            }
        };
        self.timelines[t].builder.push(id, &state.event);
        self.global.push(id, &state.event);
        self.global_source.get_or_insert(source);
    }

    /// Joins `later`, the builder of the part of the trace that follows every event added to
    /// this one (see [`Builder::part`]): items, values and sequences come out as if `later`'s
    /// events had been added here.
    pub fn absorb(&mut self, later: Builder, file_names: &[String]) {
        let mut moved = Vec::with_capacity(later.items.len());
        for acc in later.items {
            let it = &acc.item;
            write_key(
                &mut self.key,
                [&it.api, &it.access_type, &it.realm, &it.receiver, &it.phase],
            );
            let index = match self.index.get(self.key.as_str()) {
                Some(&i) => {
                    self.items[i].absorb(acc);
                    i
                }
                None => {
                    self.index
                        .insert(self.key.as_str().into(), self.items.len());
                    // Joined into a part's builder, an item stays as the part had it.
                    let acc = if self.deferred.is_some() {
                        acc
                    } else {
                        acc.adopt()
                    };
                    self.items.push(acc);
                    self.items.len() - 1
                }
            };
            moved.push(index);
        }
        for deferred in later.deferred.unwrap_or_default() {
            match deferred {
                Deferred::Request(event) => match &mut self.deferred {
                    Some(mine) => mine.push(Deferred::Request(event)),
                    None => self.requests.add(&event),
                },
                Deferred::State { item, state, file } => match &mut self.deferred {
                    Some(mine) => mine.push(Deferred::State {
                        item: moved[item],
                        state,
                        file,
                    }),
                    None => self.push_state(moved[item], &state, file, file_names),
                },
            }
        }
    }

    /// The finished contract, with its `contractHash`.
    pub fn finish(
        self,
        summary: &Summary,
        baseline_id: Option<String>,
        policy: Option<(&Policy, PolicyEntry)>,
    ) -> Contract {
        let mut contract = self.finish_unhashed(summary, baseline_id, policy);
        contract.contract_hash = compute_hash(&contract);
        contract
    }

    /// [`Builder::finish`] and [`to_json_bytes`] of it at once, the same contract and bytes: the
    /// hash is computed on a thread of its own while the bytes are written without it, then put in
    /// its place (`contractHash` is the second key, after `baselineId`).
    pub fn finish_with_json(
        self,
        summary: &Summary,
        baseline_id: Option<String>,
        policy: Option<(&Policy, PolicyEntry)>,
    ) -> (Contract, Vec<u8>) {
        let mut contract = self.finish_unhashed(summary, baseline_id, policy);
        let (digest, bytes) = std::thread::scope(|scope| {
            let hashing = scope.spawn(|| compute_hash(&contract));
            let bytes = to_json_bytes(&contract);
            let digest = hashing.join().unwrap_or_else(|_| compute_hash(&contract));
            (digest, bytes)
        });
        // `{`, then the `baselineId` line: the hash goes after them.
        let at = memchr::memchr_iter(b'\n', &bytes)
            .nth(1)
            .map_or(bytes.len(), |i| i + 1);
        let line = format!("  \"contractHash\": \"{digest}\",\n");
        let mut bytes = bytes;
        // In place (no second copy of the whole text).
        bytes.splice(at..at, line.into_bytes());
        contract.contract_hash = digest;
        (contract, bytes)
    }

    fn finish_unhashed(
        self,
        summary: &Summary,
        baseline_id: Option<String>,
        policy: Option<(&Policy, PolicyEntry)>,
    ) -> Contract {
        let items = self
            .items
            .into_iter()
            .map(|acc| {
                let mut item = acc.item;
                item.tags = acc.tags.into_iter().collect();
                item.navs = acc.navs.into_iter().collect();
                if item.family.is_none() {
                    item.family = family_of_api(&item.api).map(str::to_owned);
                }
                for dim in acc.dims {
                    let values = dim.values.into_iter().map(|(_, value)| value).collect();
                    item.expected
                        .insert(dimension_name(dim.d).to_owned(), values);
                }
                let said = |same: bool| {
                    if same {
                        "one object"
                    } else {
                        "several objects"
                    }
                };
                if let Some(objects) = acc.objects.filter(|o| o.reads >= 2) {
                    item.expected
                        .insert(IDENTITY.to_owned(), vec![Value::from(said(objects.same))]);
                    if objects.by_receiver.is_some() {
                        item.expected.insert(
                            IDENTITY_PER_RECEIVER.to_owned(),
                            vec![Value::from(said(objects.same_per_receiver))],
                        );
                    }
                }
                item.pending = applicable(&item.access_type)
                    .iter()
                    .filter(|dim| !item.expected.contains_key(**dim))
                    .map(|dim| (*dim).to_owned())
                    .collect();
                let protected = !item.tags.is_empty() || item.family.is_some();
                item.priority = if protected { "P0" } else { "P1" }.to_owned();
                if !protected
                    && let Some((policy, _)) = &policy
                    && let Some(rule) = policy.lowered(
                        &item.api,
                        &item.access_type,
                        &item.realm,
                        &item.receiver,
                        &item.phase,
                    )
                {
                    item.priority = "P2".to_owned();
                    item.lowered_by = Some(rule.reason.clone());
                }
                item
            })
            .collect();
        let mut timelines: Vec<Timeline> = self
            .timelines
            .into_iter()
            .map(|t| t.builder.finish(t.family, t.object, t.source))
            .collect();
        if self.global.events > 0 {
            timelines.push(self.global.finish(
                "*".into(),
                "*".into(),
                self.global_source.unwrap_or_default(),
            ));
        }
        Contract {
            version: VERSION.to_owned(),
            baseline_id,
            trace_source_hash: summary.trace_source_hash.clone(),
            contract_hash: String::new(),
            traces: summary
                .files
                .iter()
                .map(|f| TraceEntry {
                    path: f.display.clone(),
                    sha256: f.sha256.clone(),
                    lines: f.lines,
                })
                .collect(),
            policy: policy.map(|(_, entry)| entry),
            generated_by: format!("tracer {}", env!("CARGO_PKG_VERSION")),
            items,
            timelines,
            requests: self.requests.finish(),
        }
    }
}
