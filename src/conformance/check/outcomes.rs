//! An item's outcomes by arguments (`outcomesByArgs`), the runtime's against the contract's:
//! which arguments the environment answered otherwise than the browser did.

use super::*;
use crate::conformance::random_names;

/// Arguments both runtimes gave an item, answered otherwise here: the arguments, the browser's
/// outcomes for them that never came here (all of them where every one did) and the environment's
/// that the browser never gave for them.
pub(super) struct Answered {
    args: Value,
    browser: Vec<Value>,
    here: Vec<Value>,
}

/// The arguments given in both runtimes whose outcomes here include one the browser never gave
/// for them. Arguments only one side gave are not compared (not sampled), nor fewer outcomes
/// here (the environment made fewer calls); a library's random names in them are compared
/// without their random part.
pub(super) fn differing(expected: &[Value], seen: &[Value]) -> Vec<Answered> {
    // Each argument list's outcomes, in first-seen order, and where each list is by its key.
    let by_args = |pairs: &[Value]| {
        let mut out: Vec<(Value, Vec<Value>)> = Vec::new();
        let mut at: HashMap<String, usize> = HashMap::new();
        for pair in pairs {
            let (Some(args), Some(outcome)) = (pair.get(0), pair.get(1)) else {
                continue;
            };
            let key = hash::canonical_json(&random_names::in_values(std::slice::from_ref(args))[0]);
            match at.get(&key) {
                Some(&i) => out[i].1.push(outcome.clone()),
                None => {
                    at.insert(key, out.len());
                    out.push((args.clone(), vec![outcome.clone()]));
                }
            }
        }
        (out, at)
    };
    let (browser, browser_at) = by_args(expected);
    let (here, here_at) = by_args(seen);
    let mut keys: Vec<(&String, usize)> = here_at.iter().map(|(k, &i)| (k, i)).collect();
    keys.sort_by_key(|(_, i)| *i);
    keys.into_iter()
        .filter_map(|(key, i)| {
            let (args, here) = here[i].clone();
            let browser = &browser[*browser_at.get(key)?].1;
            // What the browser never gave for these arguments, and what it gave that never came
            // here: the difference, where the rest both gave is the same.
            let novel: Vec<Value> = here
                .iter()
                .filter(|o| !covered(std::slice::from_ref(*o), browser))
                .cloned()
                .collect();
            if novel.is_empty() {
                return None;
            }
            let unmet: Vec<Value> = browser
                .iter()
                .filter(|o| !covered(std::slice::from_ref(*o), &here))
                .cloned()
                .collect();
            // Objects of another class on both sides (jsdom's `getClientRects()` an array where
            // Chromium's is a `DOMRectList`) are the value's class finding, one change for every
            // argument: said there once.
            // Arrays on both sides (`getAttributeNames()` in another order) are values, told here.
            let class_only = !unmet.is_empty()
                && novel.iter().chain(&unmet).all(returned_an_object)
                && novel
                    .iter()
                    .chain(&unmet)
                    .any(|o| o["value"].get("$object").is_some());
            if class_only {
                return None;
            }
            Some(Answered {
                args,
                browser: if unmet.is_empty() {
                    browser.clone()
                } else {
                    unmet
                },
                here: novel,
            })
        })
        .collect()
}

/// What the browser's calls gave for the argument lists the environment also gave, where the
/// browser gave some the environment never did (`None` otherwise, or where either side kept no
/// pairs): the environment made fewer of the calls, and what the browser gave only for the others
/// was not sampled here.
pub(super) struct FewerCalls {
    /// The values returned for the shared argument lists.
    pub values: Vec<Value>,
    /// The exceptions thrown for them, by name and type.
    pub exceptions: Vec<Value>,
}

pub(super) fn fewer_calls(expected: &[Value], seen: &[Value]) -> Option<FewerCalls> {
    let key = |pair: &Value| {
        pair.get(0).map(|args| {
            hash::canonical_json(&random_names::in_values(std::slice::from_ref(args))[0])
        })
    };
    let here: HashSet<String> = seen.iter().filter_map(key).collect();
    if here.is_empty() || expected.is_empty() {
        return None;
    }
    let mut fewer = FewerCalls {
        values: Vec::new(),
        exceptions: Vec::new(),
    };
    let mut only_browser = false;
    for pair in expected {
        let (Some(args_key), Some(outcome)) = (key(pair), pair.get(1)) else {
            continue;
        };
        if !here.contains(&args_key) {
            only_browser = true;
            continue;
        }
        match outcome.get("threw") {
            Some(Value::Object(e)) => fewer.exceptions.push(Value::Object(e.clone())),
            _ => fewer.values.extend(outcome.get("value").cloned()),
        }
    }
    only_browser.then_some(fewer)
}

/// Whether an outcome is a return of an object (an array too).
fn returned_an_object(outcome: &Value) -> bool {
    outcome.get("threw") == Some(&Value::Bool(false))
        && outcome
            .get("value")
            .is_some_and(|v| v.get("$object").is_some() || v.is_array())
}

/// The finding for an item's arguments answered otherwise (`answered` not empty).
pub(super) fn finding(item: &contract::Item, answered: &[Answered]) -> Finding {
    let first = &answered[0];
    let more = match answered.len() - 1 {
        0 => String::new(),
        1 => " (and 1 other argument list)".to_owned(),
        n => format!(" (and {n} other argument lists)"),
    };
    let pairs = |side: fn(&Answered) -> &Vec<Value>| -> Vec<Value> {
        answered
            .iter()
            .flat_map(|a| {
                side(a)
                    .iter()
                    .map(|outcome| Value::Array(vec![a.args.clone(), outcome.clone()]))
            })
            .collect()
    };
    Finding::new(
        code::DIMENSION_MISMATCH,
        format!(
            "{}({}): the browser {}, the environment {}{more}",
            item.api,
            shown_args(&first.args),
            said(&first.browser),
            said(&first.here)
        ),
        format!(
            "make {} answer these arguments as the browser does (each pair: the arguments, then what came of them in that runtime)",
            item.api
        ),
    )
    .on(item)
    .dimension(
        contract::OUTCOMES_BY_ARGS,
        Some(Value::from(pairs(|a| &a.browser))),
        Some(Value::from(pairs(|a| &a.here))),
    )
}

/// Arguments as a reader writes them: JSON values, objects by class, cut after 80 characters.
fn shown_args(args: &Value) -> String {
    let shown: Vec<String> = match args.as_array() {
        Some(values) => values.iter().map(shown_value).collect(),
        None => vec![shown_value(args)],
    };
    let text = shown.join(", ");
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

fn shown_value(value: &Value) -> String {
    if let Some(class) = value.get("$object").and_then(Value::as_str) {
        return missing::with_article(class);
    }
    if let Some(name) = value.get("$function").and_then(Value::as_str) {
        return format!("function {name}");
    }
    if let Some(preview) = value.get("preview").and_then(Value::as_str) {
        return format!("{}…", Value::from(preview));
    }
    value.to_string()
}

/// What came of the calls: "threw a SyntaxError (DOMException)", "returned a NodeList", …
fn said(outcomes: &[Value]) -> String {
    let mut threw: Vec<String> = Vec::new();
    let mut returned: Vec<String> = Vec::new();
    for outcome in outcomes {
        let (list, text) = match outcome.get("threw") {
            Some(Value::Object(e)) => {
                let name = e.get("name").and_then(Value::as_str).unwrap_or("exception");
                let text = match e.get("type").and_then(Value::as_str) {
                    Some(kind) if kind != name => {
                        format!("{} ({kind})", missing::with_article(name))
                    }
                    _ => missing::with_article(name),
                };
                (&mut threw, text)
            }
            _ => match outcome.get("value") {
                Some(value) if value.get("$undefined").is_some() => {
                    (&mut returned, "undefined".into())
                }
                Some(value) => (&mut returned, shown_value(value)),
                None => (&mut returned, String::new()),
            },
        };
        if !list.contains(&text) {
            list.push(text);
        }
    }
    let listed = |verb: &str, texts: &[String]| -> Option<String> {
        let texts: Vec<&str> = texts
            .iter()
            .map(String::as_str)
            .filter(|t| !t.is_empty())
            .collect();
        match texts.as_slice() {
            [] => None,
            [one] => Some(format!("{verb} {one}")),
            [init @ .., last] => Some(format!("{verb} {} or {last}", init.join(", "))),
        }
    };
    let threw = listed("threw", &threw);
    let returned = listed("returned", &returned)
        .or_else(|| (!returned.is_empty()).then(|| "returned".to_owned()));
    match (threw, returned) {
        (Some(t), Some(r)) => format!("{t} or {r}"),
        (Some(t), None) => t,
        (None, Some(r)) => r,
        (None, None) => "did nothing recorded".into(),
    }
}
