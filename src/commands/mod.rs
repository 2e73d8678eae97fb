//! One function per subcommand. Each returns the exit code to use, or an error that knows its own.

pub mod check;
pub mod contract;
pub mod list;
pub mod record;
pub mod run;
pub mod show;
