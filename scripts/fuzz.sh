#!/usr/bin/env bash
# Runs the property tests of every parser of outside input (tests/fuzz.rs) with many cases.
#
#   scripts/fuzz.sh                 # 10 000 cases per target (about a minute, release build)
#   PROPTEST_CASES=1000000 scripts/fuzz.sh   # 10^6 per in-memory target, 2.5*10^5 per on-disk one
#
# Targets that write a file per case (source maps, raw traces, session/policy files) run a quarter
# of PROPTEST_CASES. A failure prints the minimal failing input; nothing is persisted to disk.
# The cases are generated afresh on every run (no committed corpus): set PROPTEST_RNG_SEED to repeat.
set -euo pipefail
cd "$(dirname "$0")/.."
export PROPTEST_CASES="${PROPTEST_CASES:-10000}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
echo "fuzz: PROPTEST_CASES=$PROPTEST_CASES" >&2
start=$(date +%s)
cargo test --release --test integration -- --exact --test-threads "$(nproc)" \
  fuzz::cdp_parse_never_panics_and_sorts_messages \
  fuzz::cdp_parse_of_any_json_value_never_panics \
  fuzz::inspector_urls_are_accepted_only_for_loopback \
  fuzz::stack_text_frames_never_panic_and_name_absolute_files \
  fuzz::user_path_never_panics_and_is_absolute \
  fuzz::render_never_panics_and_args_stay_bounded \
  fuzz::cap_keeps_at_most_the_limit_and_says_how_much_was_cut \
  fuzz::the_event_log_keeps_its_promises \
  fuzz::any_source_map_file_loads_or_is_a_note \
  fuzz::any_raw_trace_reads_or_is_a_clear_error_naming_the_file \
  fuzz::any_session_or_policy_file_reads_or_names_file_line_and_column
echo "fuzz: done in $(( $(date +%s) - start ))s" >&2
