//! The optional policy file `case/notes/trace-runtime-policy.json`: which untagged, stateless
//! items may be lowered to P2, and how host APIs that the trace never recorded are classified
//! (a new dynamic branch, or a Node leak). It only answers questions; the contract and the check
//! decide what follows. The spec names the file but not its shape; the shape below is ours
//! (`trace-runtime-policy/v1`), documented in `docs/conformance.md`.

use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::error::TracerError;

pub const VERSION: &str = "trace-runtime-policy/v1";
/// Where the policy lives, relative to the case folder.
pub const RELATIVE_PATH: &str = "notes/trace-runtime-policy.json";

/// Which items a rule applies to: `api` exactly, or every api starting with the text before a
/// trailing `*`; the other fields, when given, must be equal.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Selector {
    pub api: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub realm: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
}

impl Selector {
    pub fn matches(
        &self,
        api: &str,
        access_type: &str,
        realm: &str,
        receiver: &str,
        phase: &str,
    ) -> bool {
        let api_ok = match self.api.strip_suffix('*') {
            Some(prefix) => api.starts_with(prefix),
            None => api == self.api,
        };
        let eq = |want: &Option<String>, have: &str| want.as_deref().is_none_or(|w| w == have);
        api_ok
            && eq(&self.access_type, access_type)
            && eq(&self.realm, realm)
            && eq(&self.receiver, receiver)
            && eq(&self.phase, phase)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Lower {
    #[serde(flatten)]
    pub select: Selector,
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// A branch the reference runtime did not take in the recorded run: a P2 risk.
    DynamicBranch,
    /// The script reached something only Node has: a P1 finding.
    NodeLeak,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Classify {
    #[serde(flatten)]
    pub select: Selector,
    #[serde(rename = "as")]
    pub class: Class,
    pub reason: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Policy {
    pub version: String,
    /// Untagged, stateless items to lower from P1 to P2.
    #[serde(default)]
    pub lower: Vec<Lower>,
    /// Host APIs seen only in the runtime, classified.
    #[serde(default)]
    pub classify: Vec<Classify>,
}

impl Policy {
    /// Reads the policy of a case; no file means the empty policy.
    pub fn load(case_dir: &Path) -> Result<Option<Policy>> {
        let path = case_dir.join(RELATIVE_PATH);
        if !path.exists() {
            return Ok(None);
        }
        let policy: Policy = crate::files::read_json(&path)?;
        if policy.version != VERSION {
            return Err(TracerError::usage(format!(
                "{}: version `{}` is not `{VERSION}`",
                path.display(),
                policy.version
            ))
            .into());
        }
        Ok(Some(policy))
    }

    pub fn lowered(
        &self,
        api: &str,
        access_type: &str,
        realm: &str,
        receiver: &str,
        phase: &str,
    ) -> Option<&Lower> {
        self.lower
            .iter()
            .find(|l| l.select.matches(api, access_type, realm, receiver, phase))
    }

    pub fn class_of(
        &self,
        api: &str,
        access_type: &str,
        realm: &str,
        receiver: &str,
        phase: &str,
    ) -> Option<&Classify> {
        self.classify
            .iter()
            .find(|c| c.select.matches(api, access_type, realm, receiver, phase))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_match_exactly_or_by_prefix() {
        let exact = Selector {
            api: "performance.now".into(),
            ..Selector::default()
        };
        assert!(exact.matches("performance.now", "call", "main", "Performance", "init"));
        assert!(!exact.matches("performance.nowX", "call", "main", "Performance", "init"));
        let prefix = Selector {
            api: "document.fonts*".into(),
            access_type: Some("get".into()),
            ..Selector::default()
        };
        assert!(prefix.matches("document.fonts.size", "get", "main", "FontFaceSet", "init"));
        assert!(!prefix.matches("document.fonts.size", "call", "main", "FontFaceSet", "init"));
    }
}
