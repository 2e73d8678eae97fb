#!/usr/bin/env bash
# Fuzzes every parser of outside input, two ways.
#
# Property tests (tests/fuzz.rs, stable Rust, the default):
#   scripts/fuzz.sh                          # 10 000 cases per property (about a minute, release build)
#   PROPTEST_CASES=1000000 scripts/fuzz.sh   # 10^6 per in-memory property, 2.5*10^5 per on-disk one
# Properties that write a file per case (source maps, raw traces, session/policy files, contracts,
# audits) run a quarter of PROPTEST_CASES. A failure prints the minimal failing input; nothing is
# persisted. The cases are generated afresh on every run: set PROPTEST_RNG_SEED to repeat.
#
# Coverage-guided, with cargo-fuzz and libFuzzer (needs nightly and cargo-fuzz; the targets are in
# fuzz/fuzz_targets, their committed seeds in fuzz/corpus/TARGET):
#   scripts/fuzz.sh --cargo-fuzz                        # every target for 60 s, one after the other
#   scripts/fuzz.sh --cargo-fuzz --runs 1000000         # every target for 10^6 inputs
#   scripts/fuzz.sh --cargo-fuzz --seconds 600 contract audit
#   scripts/fuzz.sh --cargo-fuzz --list                 # the targets
# Each target runs alone (one libFuzzer process at a time) with -rss_limit_mb=512 and -timeout=10
# (a slower input is a hang and fails the run), and -len_control=0 (mutations may grow to the size
# of the largest seed at once: contracts and sessions are kilobytes). The table at the end gives,
# per target, the inputs run, the wall time, crashes, libFuzzer's peak RSS and the code edges reached. New inputs go to a temporary folder that is removed
# (only the seeds are committed); a crashing input is kept in fuzz/artifacts/TARGET/ (ignored by git):
# reproduce it with `cargo +nightly fuzz run -s none TARGET fuzz/artifacts/TARGET/crash-…`.
#
#   scripts/fuzz.sh --refresh-case   # rebuild fuzz/case (the contract and audit of the example)
set -euo pipefail
cd "$(dirname "$0")/.."

# The temporary folder of a run (global: the EXIT trap removes it).
work=""
TARGETS=(cdp_message inspector_url source_map raw_trace contract audit policy session)

proptest_mode() {
  export PROPTEST_CASES="${PROPTEST_CASES:-10000}"
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
  echo "fuzz: PROPTEST_CASES=$PROPTEST_CASES" >&2
  local start
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
    fuzz::any_session_or_policy_file_reads_or_names_file_line_and_column \
    fuzz::any_contract_is_checked_or_refused_with_a_blocking_finding \
    fuzz::any_audit_is_checked_or_refused_with_a_blocking_finding
  echo "fuzz: done in $(($(date +%s) - start))s" >&2
}

need_cargo_fuzz() {
  if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz: cargo-fuzz needs a nightly toolchain, and there is none." >&2
    echo "      install it with: rustup toolchain install nightly" >&2
    echo "      (the property tests need only stable: scripts/fuzz.sh without --cargo-fuzz)" >&2
    exit 2
  fi
  if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz: cargo-fuzz is not installed." >&2
    echo "      install it with: cargo install cargo-fuzz --locked" >&2
    exit 2
  fi
}

cargo_fuzz_mode() {
  local runs="" seconds="" list=false
  local targets=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --runs) runs=${2:?--runs needs a number}; shift 2 ;;
      --seconds) seconds=${2:?--seconds needs a number}; shift 2 ;;
      --list) list=true; shift ;;
      -*) echo "fuzz: unknown option $1" >&2; exit 2 ;;
      *) targets+=("$1"); shift ;;
    esac
  done
  if $list; then
    printf '%s\n' "${TARGETS[@]}"
    return
  fi
  [ ${#targets[@]} -gt 0 ] || targets=("${TARGETS[@]}")
  for t in "${targets[@]}"; do
    [[ " ${TARGETS[*]} " == *" $t "* ]] || { echo "fuzz: no target $t (see --list)" >&2; exit 2; }
  done
  local limit
  if [ -n "$runs" ]; then
    limit=(-runs="$runs")
  else
    limit=(-max_total_time="${seconds:-60}")
  fi
  need_cargo_fuzz

  # Release with debug assertions and overflow checks (cargo-fuzz's default); no AddressSanitizer:
  # these parsers are safe Rust, and ASan would halve the inputs per second.
  echo "fuzz: building the targets (cargo +nightly fuzz build -s none)" >&2
  (cd fuzz && cargo +nightly fuzz build -s none)

  # Several targets write a file or two per input: on tmpfs (/dev/shm) unless TMPDIR says otherwise.
  local base=${TMPDIR:-/tmp}
  [ -n "${TMPDIR:-}" ] || { [ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm; }
  work=$(mktemp -d "$base/tracer-fuzz.XXXXXX")
  trap '[ -z "$work" ] || rm -rf "$work"' EXIT
  local failed=() rows=()
  for t in "${targets[@]}"; do
    mkdir -p "$work/$t/new" "$work/$t/tmp"
    local log="$work/$t/log" start status=0
    echo "fuzz: $t (${limit[*]})" >&2
    start=$(date +%s)
    # The first folder receives new inputs; the committed seeds are only read. The targets' own
    # temporary folders go under $work (TMPDIR), removed at the end.
    (cd fuzz && TMPDIR="$work/$t/tmp" cargo +nightly fuzz run -s none "$t" \
      "$work/$t/new" "corpus/$t" -- \
      "${limit[@]}" -rss_limit_mb=512 -timeout=10 -len_control=0 -print_final_stats=1 \
      </dev/null >"$log" 2>&1) || status=$?
    local took=$(($(date +%s) - start))
    local inputs rss cov crashes=0
    inputs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    cov=$(sed -n 's/^#[0-9]*[[:space:]]*[A-Z]*[[:space:]]*cov: \([0-9]*\).*/\1/p' "$log" | tail -1)
    if [ "$status" -ne 0 ]; then
      crashes=1
      failed+=("$t")
      echo "fuzz: $t FAILED (exit $status); the end of its log:" >&2
      tail -40 "$log" >&2
      grep -h 'Test unit written to' "$log" >&2 || true
    fi
    rows+=("$(printf '%-14s %12s %8ss %8s %10s %6s' "$t" "${inputs:-?}" "$took" "$crashes" "${rss:-?} MB" "${cov:-?}")")
    echo "${rows[-1]}" >&2
  done
  echo
  printf '%-14s %12s %9s %8s %10s %6s\n' target inputs time crashes "peak RSS" edges
  printf '%s\n' "${rows[@]}"
  if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: FAILED: ${failed[*]} (inputs kept in fuzz/artifacts/)" >&2
    exit 1
  fi
  echo "fuzz: every target ran without a crash, a hang or running out of memory" >&2
}

# Rebuilds fuzz/case and the contract/audit seeds: the example's contract and audit, made by the
# tracer of this checkout (needs Node), so the fuzzed case matches again after a format change.
refresh_case() {
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
  cargo build --bin tracer
  local tracer="$CARGO_TARGET_DIR/debug/tracer"
  work=$(mktemp -d "${TMPDIR:-/tmp}/tracer-fuzz-case.XXXXXX")
  trap '[ -z "$work" ] || rm -rf "$work"' EXIT
  cp -r examples/conformance/. "$work/"
  (cd "$work" && ./run.sh fixed "$tracer" >/dev/null)
  mkdir -p fuzz/case/notes fuzz/case/tmp
  cp "$work/case/notes/trace-runtime-contract.json" fuzz/case/notes/
  cp "$work/case/tmp/node-trace-runtime-audit.json" fuzz/case/tmp/
  cp "$work/case/notes/trace-runtime-contract.json" fuzz/corpus/contract/example.json
  cp "$work/case/tmp/node-trace-runtime-audit.json" fuzz/corpus/audit/example.json
  echo "fuzz: fuzz/case refreshed from examples/conformance (matched)" >&2
}

case "${1:-}" in
  --cargo-fuzz) shift; cargo_fuzz_mode "$@" ;;
  --refresh-case) refresh_case ;;
  "") proptest_mode ;;
  *) echo "usage: scripts/fuzz.sh [--cargo-fuzz [--runs N | --seconds S] [TARGET...] | --refresh-case]" >&2; exit 2 ;;
esac
