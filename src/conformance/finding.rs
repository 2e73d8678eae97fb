//! One finding of the check (blocking, or a risk), as the diff carries it, and the clipped value
//! text the diff's summaries use. The check makes findings; the work list arranges them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conformance::audit_format::Observation;
use crate::conformance::contract::Item;
use crate::conformance::hash;

/// One finding: blocking, or a risk when listed under `risks`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub realm: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimension: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<Value>,
    /// Why an item has no observation, as the tool checked it (`environment-lacks`,
    /// `not-reached`, `probe-blind`; see `docs/conformance.md`). Additive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// For `environment-lacks`: the part of the path the environment lacks (the interface, or the
    /// member itself). Additive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lacks: Option<String>,
    /// For `not-reached`: where the two runtimes parted (`lastReached`, `differed`, `lacking`).
    /// Additive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Value>,
    pub message: String,
    pub action: String,
}

impl Finding {
    pub(crate) fn new(code: &str, message: impl Into<String>, action: impl Into<String>) -> Self {
        Finding {
            code: code.to_owned(),
            message: message.into(),
            action: action.into(),
            ..Finding::default()
        }
    }

    pub(crate) fn on(mut self, item: &Item) -> Self {
        self.priority = Some(item.priority.clone());
        self.item = Some(item.id.clone());
        self.api = Some(item.api.clone());
        self.access_type = Some(item.access_type.clone());
        self.realm = Some(item.realm.clone());
        self.receiver = Some(item.receiver.clone());
        self.phase = Some(item.phase.clone());
        self
    }

    pub(crate) fn on_observation(mut self, o: &Observation) -> Self {
        self.item = o.id.clone();
        self.api = Some(o.api.clone());
        self.access_type = Some(o.access_type.clone());
        self.realm = Some(o.realm.clone());
        self.receiver = Some(o.receiver.clone());
        self.phase = Some(o.phase.clone());
        self
    }

    pub(crate) fn dimension(
        mut self,
        dimension: &str,
        expected: Option<Value>,
        observed: Option<Value>,
    ) -> Self {
        self.dimension = Some(dimension.to_owned());
        self.expected = expected;
        self.observed = observed;
        self
    }
}

/// `value` as canonical JSON in at most `max` characters (cut with `…`).
pub fn clipped(value: &Value, max: usize) -> String {
    let text = hash::canonical_json(value);
    if text.chars().count() > max {
        format!("{}…", text.chars().take(max).collect::<String>())
    } else {
        text
    }
}
