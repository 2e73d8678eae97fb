//! Markdown renderings of the conformance files, written beside their JSON: the contract's and the
//! diff's.

pub mod contract;
pub mod diff;

/// Escapes text for a Markdown table cell.
pub fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}
