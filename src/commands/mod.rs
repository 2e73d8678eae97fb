//! One function per subcommand. Each returns the exit code to use, or an error that knows its own.

pub mod list;
pub mod run;
pub mod show;
