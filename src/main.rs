//! The `tracer` binary: hands the command line to the library and returns its exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    tracer::run(std::env::args_os())
}
