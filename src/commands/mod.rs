//! One function per subcommand. Each returns the exit code to use, or an error that knows its own.

pub mod capabilities;
pub mod completions;
pub mod export;
pub mod list;
pub mod replay;
pub mod run;
pub mod schema;
pub mod show;
pub mod verify;
