//! One function per subcommand. Each returns the exit code to use, or an error that knows its own.

pub mod audit;
pub mod capabilities;
pub mod check;
pub mod completions;
pub mod contract;
pub mod export;
pub mod list;
pub mod record;
pub mod replay;
pub mod run;
pub mod schema;
pub mod show;
pub mod verify;
