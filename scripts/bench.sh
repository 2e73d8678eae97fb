#!/usr/bin/env bash
# Measures tracer's overhead as ratios against plain node, measured in the same run:
#   1. start-up: `tracer run examples/hello/hello.js` vs `node examples/hello/hello.js`, with both
#      commands' stdout /dev/null, and again with both writing to a pipe; then the floor Node's
#      inspector sets, the same program run by scripts/min-client.c (needs gcc) against plain node;
#      then plain node, the C client and tracer interleaved, one run of each in turn, the order
#      alternating (python3; PAIRED rounds, default RUNS), with the median of each round's
#      differences and tracer's paired ratio with its 95% interval; and, inside Node, what
#      building the bootloader's console capture costs (scripts/console-capture-cost.js)
#   2. a flood: 100 000 console.log calls under tracer vs plain node, and under tracer with
#      TRACER_CONSOLE_CAPTURE=inspector (every call reported by the inspector itself, the path
#      before the bootloader recorded the console)
#   3. optional (BENCH_CONTRACT=1 or --contract): `tracer contract build` vs one
#      `jq -c . FILE > /dev/null` pass over the same file, on two traces: a generated
#      tracer-trace/v1 trace of TRACE_MB megabytes (default 200; TRACE_ITEMS distinct items, default
#      10 000; written by scripts/gen-trace.py), and a real recording (REAL_TRACE, default
#      scripts/bench-data/thumbmark-chromium.ndjson.gz: `tracer record` of ThumbmarkJS in
#      Chromium) repeated to REAL_MB megabytes (default 100; scripts/repeat-trace.py). Each is
#      measured in CONTRACT_RUNS pairs (default 3) of a jq pass and a build: the median wall
#      times, the median ratio (jq's time / tracer's: 10x means tracer takes a tenth of jq's
#      time) and the build's peak RSS (`/usr/bin/time -v`). BENCH_CONTRACT_ONLY=1 (or
#      --contract-only) skips parts 1 and 2.
#   4. optional (BENCH_RECORD=1): `tracer record` in headless Chromium on a page making ACCESSES
#      (default 100 000) watched accesses (`navigator.userAgent`), against the same page making 1,
#      and against the page loaded by Chromium without tracer: recorded accesses per second and the
#      time per access beyond the unprobed page. BENCH_RECORD_ONLY=1 runs this part alone.
#   5. optional (BENCH_AUDIT=1): `tracer audit` of a jsdom environment (examples/jsdom's node_modules,
#      `npm ci` there first) running a page script that makes AUDIT_ACCESSES (default 2 000) watched
#      accesses, against the same environment run by plain `node`: the ratio (target <= 1.5x), the
#      accesses recorded, and the peak RSS of tracer and of the audited node (`/usr/bin/time -v`).
#      The reference trace is the environment's own recording (so the audit is `matched`).
#      BENCH_AUDIT_ONLY=1 runs this part alone.
#   6. optional (BENCH_TREE=1): `tracer run -- npm test` on examples/test-suite (its `npm test` runs
#      `node --test`: npm, a shell, the test runner and one test file's process) vs plain `npm test`
#      in the same run: the ratio (target <= 1.3x). BENCH_TREE_ONLY=1 runs this part alone.
#   7. optional (BENCH_WIDE=1): what the default watch of every interface and namespace costs on a
#      real fingerprinting page: ClientJS 0.2.1 (npm `clientjs`, fetched with `npm pack` unless
#      CLIENTJS names its dist/client.min.js) computes its fingerprint and 28 components, timed by
#      the page itself (performance.now around the computation), WIDE_RUNS times (default 5) each
#      without tracer, under `tracer record` (the default walk) and under `tracer record --no-walk`
#      (the curated list alone), interleaved: median in-page times and their ratio to the unprobed
#      page (target <= 1.3x), the accesses recorded, the time per access beyond the unprobed page,
#      and the members watched and the install time of the main realm (start-up per realm).
#      BENCH_WIDE_ONLY=1 runs this part alone. Needs npm (or CLIENTJS) and jq.
#   8. optional (BENCH_TELLS=1): the two timing tells a detection script uses, measured by a page
#      on itself, without tracer and under `tracer record`, TELLS_RUNS times each (default 5),
#      interleaved: the time of 20 000 `navigator.userAgent` reads (the median of three loops in
#      the page; target <= 2x the unprobed page) and the recursion depth the page reaches through
#      `Date.now` and through `navigator.userAgent` against a function that calls nothing (target
#      >= 95 % of the unprobed page's). BENCH_TELLS_ONLY=1 runs this part alone. Needs jq.
#   9. optional (BENCH_AUDIT_REAL=1): `tracer audit` of a real library in both environments, against
#      the same entry run by plain `node`: ClientJS 0.2.1 computing its fingerprint and components
#      (examples/patched-jsdom's page, its reference recorded in Chromium, committed) in jsdom 29
#      (examples/patched-jsdom's entry, `npm ci` there first) and in happy-dom (examples/jsdom's
#      node_modules, `npm ci` there first; the page's two scripts run as inline scripts of a happy-dom
#      Window): the median wall times and their ratio (target <= 1.5x each), AUDIT_REAL_RUNS runs
#      each (default 5). Then the same for fingerprintjs2 2.1.4 and detectIncognito 1.9.0 (npm),
#      each page recorded in Chromium by this run (scripts/bench-data/audit-libs) and audited in
#      jsdom 28 and happy-dom (examples/jsdom's node_modules). BENCH_AUDIT_REAL_ONLY=1 runs this
#      part alone. Needs npm and Chromium.
# Needs hyperfine (apt-get install hyperfine) and a release build. Prints medians and ratios.
# Part 3 needs jq, python3 and GNU time (apt-get install jq time), and TRACE_MB of space in TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
contract=${BENCH_CONTRACT:-0}
contract_only=${BENCH_CONTRACT_ONLY:-0}
for arg in "$@"; do
  case "$arg" in
    --contract) contract=1 ;;
    --contract-only) contract=1 contract_only=1 ;;
    *) echo "usage: $0 [--contract | --contract-only]" >&2; exit 2 ;;
  esac
done
[ "$contract_only" = 1 ] && contract=1
# BENCH_AUDIT_ONLY=1: part 5 alone (parts 1 to 3 skipped); BENCH_WIDE_ONLY=1: part 7 alone.
if [ "${BENCH_AUDIT_ONLY:-0}" = 1 ]; then BENCH_AUDIT=1; contract=0; contract_only=1; fi
if [ "${BENCH_TREE_ONLY:-0}" = 1 ]; then BENCH_TREE=1; contract=0; contract_only=1; fi
if [ "${BENCH_RECORD_ONLY:-0}" = 1 ]; then BENCH_RECORD=1; BENCH_AUDIT=0; BENCH_TREE=0; BENCH_WIDE=0; contract=0; contract_only=1; fi
if [ "${BENCH_TELLS_ONLY:-0}" = 1 ]; then BENCH_TELLS=1; BENCH_AUDIT=0; BENCH_RECORD=0; BENCH_TREE=0; BENCH_WIDE=0; contract=0; contract_only=1; fi
if [ "${BENCH_WIDE_ONLY:-0}" = 1 ]; then BENCH_WIDE=1; BENCH_AUDIT=0; BENCH_RECORD=0; BENCH_TREE=0; contract=0; contract_only=1; fi
if [ "${BENCH_AUDIT_REAL_ONLY:-0}" = 1 ]; then BENCH_AUDIT_REAL=1; BENCH_AUDIT=0; BENCH_RECORD=0; BENCH_TREE=0; BENCH_WIDE=0; BENCH_TELLS=0; contract=0; contract_only=1; fi
if [ "$contract_only" != 1 ]; then
  command -v hyperfine >/dev/null || { echo "bench.sh needs hyperfine: apt-get install -y hyperfine" >&2; exit 2; }
fi
if [ "$contract" = 1 ]; then
  for tool in jq python3 /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "bench.sh --contract needs $tool (apt-get install -y jq time python3)" >&2; exit 2; }
  done
fi
cargo build --release --quiet --bin tracer
tracer="${CARGO_TARGET_DIR:-$PWD/target}/release/tracer"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# BENCH_SAVE=1: the run's output is also kept as a dated file, bench/runs/DATE-HOST/bench-TIME.txt.
if [ "${BENCH_SAVE:-0}" = 1 ]; then
  saved="bench/runs/$(date +%F)-$(hostname -s 2>/dev/null || echo host)"
  mkdir -p "$saved"
  exec > >(tee "$saved/bench-$(date +%H%M%S).txt")
fi
runs=${RUNS:-30}

median() { jq -r ".results[$1].median" "$2"; }
# The median of the numbers on stdin, one per line.
med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# Chromium's flags for a page loaded without tracer (tracer record's own, less remote debugging).
flags="--headless=new --no-sandbox --disable-gpu --disable-quic --disable-background-networking --disable-component-update --disable-sync --no-first-run"
# Sets `browser` for a part that drives Chromium ($1: the part's variable), with jq when $2 is `jq`.
need_browser() {
  browser=${TRACER_CHROMIUM:-$(command -v chromium || command -v google-chrome || true)}
  [ -n "$browser" ] || { echo "$1 needs Chromium: apt-get install -y chromium" >&2; exit 2; }
  if [ "${2:-}" = jq ]; then
    command -v jq >/dev/null || { echo "$1 needs jq: apt-get install -y jq" >&2; exit 2; }
  fi
}

if [ "$contract_only" != 1 ]; then
# Start-up in ROUNDS rounds (default 5) of runs/ROUNDS pairs each (at least 5): the VM drifts
# between hyperfine's blocks of runs, so each round's ratio compares two blocks run back to back;
# the median of the rounds' ratios is reported, with their range and the median times.
rounds=${ROUNDS:-5}
per_round=$(( runs / rounds > 5 ? runs / rounds : 5 ))
startup() { # $1: name, $2: hyperfine's --output, $3: the command measured against plain node, $4: its label
  local name=$1 output=$2 command=${3:-$tracer -q run --out $out/t examples/hello/hello.js} label=${4:-tracer} r
  : > "$out/rounds.txt"
  for ((r = 0; r < rounds; r++)); do
    hyperfine -N --warmup 2 --runs "$per_round" --output="$output" --export-json "$out/round.json" \
      "node examples/hello/hello.js" \
      "$command" >&2
    echo "$(median 0 "$out/round.json") $(median 1 "$out/round.json")" >> "$out/rounds.txt"
  done
  awk -v n="$name" -v l="$label" '
    { b[NR] = $1; t[NR] = $2; r[NR] = $2 / $1 }
    END {
      for (x = 1; x <= NR; x++) for (y = x + 1; y <= NR; y++) {
        if (b[y] < b[x]) { s = b[x]; b[x] = b[y]; b[y] = s }
        if (t[y] < t[x]) { s = t[x]; t[x] = t[y]; t[y] = s }
        if (r[y] < r[x]) { s = r[x]; r[x] = r[y]; r[y] = s }
      }
      m = int((NR + 1) / 2)
      printf "%-28s node %7.1f ms   %-6s %7.1f ms   ratio %.2fx (rounds %.2f..%.2fx)\n", n, b[m]*1000, l, t[m]*1000, r[m], r[1], r[NR]
    }' "$out/rounds.txt" >> "$out/startup.txt"
}
: > "$out/startup.txt"
startup "hello (start-up)" null
# The same with both commands' stdout a pipe: under tracer, Node's stdout is always a pipe (to
# tracer), which costs Node about 1.6 ms more than /dev/null (it loads its stream modules).
startup "  the same, stdout a pipe" pipe
# The floor: scripts/min-client.c, the least a client does to run the program under tracer's
# bootloader and console binding (the same setup and release in one write, nothing else), in C.
if command -v gcc >/dev/null; then
  gcc -O2 -o "$out/min-client" scripts/min-client.c
  # The bootloader as tracer writes it: its two files, one after the other.
  cat src/inspector/bootloader/boot.js src/inspector/bootloader/console.js > "$out/boot.js"
  startup "  floor: a minimal C client" pipe "$out/min-client $out/boot.js node examples/hello/hello.js" client
  # The same three interleaved, one run of each in turn (RUNS of each; all three writing to a
  # pipe): the VM's drift between blocks falls on all three alike.
  # PAIRED=N sets how many such rounds (default RUNS): the paired ratio's interval narrows with
  # them (1000 rounds: +-0.5 ms on this VM).
  python3 - "${PAIRED:-$runs}" "$out/min-client" "$tracer" "$out/t" "$out/boot.js" >> "$out/startup.txt" <<'PY'
import random, statistics, subprocess, sys, time
runs, client, tracer, store, boot = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
commands = [
    ["node", "examples/hello/hello.js"],
    [client, boot, "node", "examples/hello/hello.js"],
    [tracer, "-q", "run", "--out", store, "examples/hello/hello.js"],
]
times = [[] for _ in commands]
for round in range(runs + 2):
    # The order alternates from one round to the next, so that neither command always runs first.
    order = range(len(commands)) if round % 2 == 0 else reversed(range(len(commands)))
    for i in order:
        start = time.perf_counter()
        subprocess.run(commands[i], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
        times[i].append(time.perf_counter() - start)
node, floor, traced = (statistics.median(t[2:]) * 1000 for t in times)
print("  interleaved, %d of each     node %7.1f ms   client %5.1f ms (%.2fx)   tracer %5.1f ms (%.2fx)"
      % (runs, node, floor, floor / node, traced, traced / node))
# The same rounds as differences within each round (median of the per-round differences): the
# VM's drift between rounds cancels out.
def above(a, b):
    return statistics.median(x - y for x, y in zip(times[a][2:], times[b][2:])) * 1000
print("    per round, median         client %+.2f ms, tracer %+.2f ms above node; tracer %+.2f ms above the client"
      % (above(1, 0), above(2, 0), above(2, 1)))
# tracer's paired difference as a ratio to plain node, with a bootstrap 95% interval of its median.
differences = [x - y for x, y in zip(times[2][2:], times[0][2:])]
random.seed(1)
medians = sorted(statistics.median(random.choices(differences, k=len(differences))) for _ in range(400))
print("    paired ratio              tracer %.3fx of node (95%%: %.3f..%.3fx)"
      % tuple(1 + d / (node / 1000) for d in (statistics.median(differences), medians[10], medians[389])))
PY
fi
# Inside Node, what the bootloader does between its report and its wait: building the console
# capture (scripts/console-capture-cost.js, 5 fresh processes; medians).
for _ in 1 2 3 4 5; do node scripts/console-capture-cost.js; done |
  awk '{ f[NR] = $3; c[NR] = $9; s[NR] = $13 }
    function med(a,  n, i, j, t) { n = NR; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((n + 1) / 2)] }
    END { printf "  console capture, in Node    first call %d us (compiling %d us), second call %d us\n", med(f), med(c), med(s) }' \
  >> "$out/startup.txt"
hyperfine -N --warmup 1 --runs "$(( runs / 3 > 3 ? runs / 3 : 3 ))" --export-json "$out/flood.json" \
  --output=null \
  "node examples/hello/flood.js 100000" \
  "$tracer -q run --out $out/t examples/hello/flood.js 100000" \
  "env TRACER_CONSOLE_CAPTURE=inspector $tracer -q run --out $out/t examples/hello/flood.js 100000" >&2

report() { # $3: which of the file's commands is tracer's (default 1; 0 is plain node)
  local name=$1 file=$2
  local base traced
  base=$(median 0 "$file")
  traced=$(median "${3:-1}" "$file")
  awk -v n="$name" -v b="$base" -v t="$traced" \
    'BEGIN { printf "%-28s node %7.1f ms   tracer %7.1f ms   ratio %.2fx\n", n, b*1000, t*1000, t/b }'
}
echo "node $(node --version), $(nproc) cores, start-up: $rounds rounds of $per_round runs; flood: median of $(( runs / 3 > 3 ? runs / 3 : 3 )) runs"
cat "$out/startup.txt"
report "100k console.log (flood)" "$out/flood.json"
report "  the same, inspector's path" "$out/flood.json" 2
fi

if [ "$contract" = 1 ]; then
  trace_mb=${TRACE_MB:-200}
  items=${TRACE_ITEMS:-10000}
  real_mb=${REAL_MB:-100}
  real_src=${REAL_TRACE:-scripts/bench-data/thumbmark-chromium.ndjson.gz}
  pairs=${CONTRACT_RUNS:-3}
  synthetic="$out/synthetic.ndjson"
  real="$out/real.ndjson"
  python3 scripts/gen-trace.py "$synthetic" --mb "$trace_mb" --items "$items" >&2
  python3 scripts/repeat-trace.py "$real_src" "$real" --mb "$real_mb" >&2
  mkdir -p "$out/case"
  # GNU time: elapsed wall clock (m:ss.ss or h:mm:ss) and maximum resident set size (KB).
  measure() {
    /usr/bin/time -v -o "$out/time.txt" "$@" >/dev/null
    awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }
                /Maximum resident set size/ { print $2 }' "$out/time.txt" | paste -sd' '
  }
  # CONTRACT_RUNS pairs (default 3), each a jq pass then a contract build over the same file, so
  # that each ratio compares two runs made under the same load; the median of the ratios is
  # reported, with the median times and the largest peak RSS.
  contract_case() { # $1: label, $2: trace file
    local label=$1 trace=$2 i jq_s build_s build_kb
    cat "$trace" >/dev/null # both passes read from the page cache
    : > "$out/pairs.txt"
    for ((i = 0; i < pairs; i++)); do
      read -r jq_s _ < <(measure jq -c . "$trace")
      read -r build_s build_kb < <(measure "$tracer" -q contract build --case-dir "$out/case" --trace "$trace")
      echo "$jq_s $build_s $build_kb" >> "$out/pairs.txt"
    done
    sort -n -k1 "$out/pairs.txt" | awk -v label="$label" -v bytes="$(stat -c %s "$trace")" '
      { j[NR] = $1; b[NR] = $2; r[NR] = $1 / $2; if ($3 > kb) kb = $3 }
      END {
        n = NR; mb = bytes / 1e6
        # medians: sort each column on its own
        for (x = 1; x <= n; x++) for (y = x + 1; y <= n; y++) {
          if (j[y] < j[x]) { t = j[x]; j[x] = j[y]; j[y] = t }
          if (b[y] < b[x]) { t = b[x]; b[x] = b[y]; b[y] = t }
          if (r[y] < r[x]) { t = r[x]; r[x] = r[y]; r[y] = t }
        }
        m = int((n + 1) / 2)
        printf "contract build, %s, %.0f MB (median of %d pairs):\n", label, mb, n
        printf "  jq -c . pass          %7.2f s  %6.1f MB/s\n", j[m], mb / j[m]
        printf "  tracer contract build %7.2f s  %6.1f MB/s  peak RSS %.0f MB\n", b[m], mb / b[m], kb / 1024
        printf "  ratio                 %.1fx (jq time / tracer time; pairs %.1f..%.1fx; target >= 10x, peak RSS <= 200 MB)\n", r[m], r[1], r[n]
      }'
  }
  echo "load average before part 3: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
  contract_case "synthetic, $items items" "$synthetic"
  contract_case "real recording ($(basename "$real_src")) repeated" "$real"
fi

if [ "${BENCH_RECORD:-0}" = 1 ]; then
  need_browser BENCH_RECORD
  accesses=${ACCESSES:-100000}
  mkdir -p "$out/record"
  page() { # $1: file, $2: how many accesses
    printf '<!doctype html><html><body><script>\nlet s = 0;\nfor (let i = 0; i < %d; i++) s += navigator.userAgent.length;\nperformance.mark("tracer:done");\n</script></body></html>\n' "$2" > "$1"
  }
  page "$out/record/many.html" "$accesses"
  page "$out/record/one.html" 1
  hyperfine -N --warmup 1 --runs 3 --export-json "$out/record.json" \
    "$browser $flags --user-data-dir=$out/record/profile --dump-dom file://$out/record/many.html" \
    "$tracer -q record --case-dir $out/record/one --baseline-id bench --browser $browser --timeout 600 $out/record/one.html" \
    "$tracer -q record --case-dir $out/record/many --baseline-id bench --browser $browser --timeout 600 $out/record/many.html" \
    "$tracer -q record --no-batch --case-dir $out/record/each --baseline-id bench --browser $browser --timeout 600 $out/record/many.html" >&2
  # Each iteration reads `navigator` (the walk watches the global's members) and its `userAgent`:
  # every read of the loop must be in the trace; the time per access counts both.
  recorded=$(( $(wc -l < "$out/record/many/ruyi-trace/logs/current.ndjson") - 1 ))
  each=$(( $(wc -l < "$out/record/each/ruyi-trace/logs/current.ndjson") - 1 ))
  agent=$(grep -c '"api":"navigator.userAgent"' "$out/record/many/ruyi-trace/logs/current.ndjson" || true)
  agent_each=$(grep -c '"api":"navigator.userAgent"' "$out/record/each/ruyi-trace/logs/current.ndjson" || true)
  [ "$agent" = "$accesses" ] && [ "$agent_each" = "$accesses" ] || {
    echo "bench.sh: expected $accesses reads of navigator.userAgent, recorded $agent (batched) and $agent_each (--no-batch)" >&2; exit 1; }
  awk -v n="$recorded" -v p="$(median 0 "$out/record.json")" -v one="$(median 1 "$out/record.json")" \
      -v many="$(median 2 "$out/record.json")" -v each="$(median 3 "$out/record.json")" 'BEGIN {
    printf "record, %d accesses recorded:\n", n
    printf "  page without tracer   %7.2f s\n  record, 1 access      %7.2f s\n  record, all accesses  %7.2f s\n  record --no-batch     %7.2f s\n", p, one, many, each
    printf "  %.0f recorded accesses/s (target >= 100000/s); %.1f us per access beyond the unprobed page\n", n / (many - one), (many - p) / n * 1e6
    printf "  --no-batch: %.0f recorded accesses/s\n", n / (each - one)
  }'
fi

if [ "${BENCH_AUDIT:-0}" = 1 ]; then
  modules=$PWD/examples/jsdom/node_modules
  [ -d "$modules/jsdom" ] || { echo "BENCH_AUDIT needs jsdom: (cd examples/jsdom && npm ci)" >&2; exit 2; }
  accesses=${AUDIT_ACCESSES:-2000}
  case=$out/audit/case
  mkdir -p "$case/result" "$case/ruyi-trace/logs"
  ln -s "$modules" "$out/audit/node_modules"
  # The page script: AUDIT_ACCESSES reads spread over eight watched APIs, then a summary line.
  cat > "$out/audit/app.js" <<EOF
var s = 0;
for (var i = 0; i < $accesses / 8; i++) {
  s += navigator.userAgent.length + navigator.language.length + screen.width + screen.height;
  s += document.title.length + document.cookie.length + window.innerWidth + (document.hidden ? 1 : 0);
}
console.log("sum " + s);
EOF
  cat > "$case/result/final.js" <<'EOF'
// The environment under audit: jsdom running ../../app.js as the page's script.
const fs = require("node:fs");
const path = require("node:path");
const { JSDOM } = require("jsdom");
const code = fs.readFileSync(path.join(__dirname, "..", "..", "app.js"), "utf8");
const dom = new JSDOM("<!doctype html><title>bench</title><body><script>" + code + "</script></body>",
  { url: "https://bench.test/", runScripts: "dangerously" });
dom.window.close();
EOF
  printf '{"type":"header","schema":"tracer-trace/v1","baselineId":"bench"}\n' > "$case/ruyi-trace/logs/current.ndjson"
  cd "$out/audit"
  "$tracer" -q contract build --case-dir case
  "$tracer" -q audit --case-dir case --entry case/result/final.js > /dev/null || true
  cp case/tmp/node-trace.ndjson case/ruyi-trace/logs/current.ndjson
  "$tracer" -q contract build --case-dir case
  hyperfine -N --warmup 1 --runs "$(( runs / 3 > 5 ? runs / 3 : 5 ))" --export-json "$out/audit.json" \
    "node case/result/final.js" \
    "$tracer -q audit --case-dir case --entry case/result/final.js" >&2
  recorded=$(( $(wc -l < "$case/tmp/node-trace.ndjson") - 1 ))
  rss() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk '/Maximum resident/ { print $6 }'; }
  node_rss=$(rss node case/result/final.js)
  tracer_rss=$(rss "$tracer" -q audit --case-dir case --entry case/result/final.js)
  awk -v n="$recorded" -v p="$(median 0 "$out/audit.json")" -v a="$(median 1 "$out/audit.json")" \
      -v nr="$node_rss" -v tr="$tracer_rss" 'BEGIN {
    printf "audit of jsdom, %d accesses recorded:\n", n
    printf "  node final.js         %7.3f s\n  tracer audit          %7.3f s   (%.2fx; target <= 1.5x)\n", p, a, a / p
    printf "  peak RSS: node alone %d MB; tracer audit (tracer + its children, the largest) %d MB\n", nr / 1024, tr / 1024
  }'
fi
if [ "${BENCH_TREE:-0}" = 1 ]; then
  command -v npm >/dev/null || { echo "BENCH_TREE needs npm" >&2; exit 2; }
  command -v hyperfine >/dev/null || { echo "bench.sh needs hyperfine: apt-get install -y hyperfine" >&2; exit 2; }
  suite=$out/suite
  mkdir -p "$suite"
  cp -r examples/test-suite/package.json examples/test-suite/lib examples/test-suite/test "$suite/"
  # The suite fails on purpose (exit 1): -i keeps hyperfine going.
  hyperfine -N -i --warmup 2 --runs "$(( runs / 2 > 5 ? runs / 2 : 5 ))" --export-json "$out/tree.json" \
    --output=null \
    "npm --prefix $suite test" \
    "$tracer -q run --out $out/t --cwd $suite --workspace $suite -- npm --prefix $suite test" >&2
  awk -v p="$(median 0 "$out/tree.json")" -v t="$(median 1 "$out/tree.json")" 'BEGIN {
    printf "npm test (node --test, 4 processes):\n  npm test              %7.3f s\n  tracer run -- npm test %6.3f s   (%.2fx; target <= 1.3x)\n", p, t, t / p
  }'
fi

if [ "${BENCH_WIDE:-0}" = 1 ]; then
  need_browser BENCH_WIDE jq
  wide=$out/wide
  mkdir -p "$wide"
  if [ -n "${CLIENTJS:-}" ]; then
    cp "$CLIENTJS" "$wide/client.min.js"
  else
    command -v npm >/dev/null || { echo "BENCH_WIDE needs npm, or CLIENTJS=path/to/client.min.js" >&2; exit 2; }
    (cd "$wide" && npm pack --silent clientjs@0.2.1 >/dev/null && tar xzf clientjs-0.2.1.tgz)
    cp "$wide/package/dist/client.min.js" "$wide/client.min.js"
  fi
  # The page: ClientJS's fingerprint and components, the computation timed by the page itself,
  # the time written into <pre id="ms"> (read from --dump-dom) and into sessionStorage (read
  # from the trace).
  cat > "$wide/page.html" <<'EOF'
<!doctype html><html><head><meta charset="utf-8"><title>clientjs</title></head>
<body><pre id="ms"></pre><script src="client.min.js"></script><script>
const started = performance.now();
const c = new ClientJS();
const out = [c.getFingerprint(), c.getBrowser(), c.getOS(), c.getDevice(), c.getCPU(), c.isMobile(),
  c.getScreenPrint(), c.getColorDepth(), c.getCurrentResolution(), c.getAvailableResolution(),
  c.getDeviceXDPI(), c.getDeviceYDPI(), c.getPlugins(), c.getMimeTypes(), c.getFonts(),
  c.isLocalStorage(), c.isSessionStorage(), c.isCookie(), c.getTimeZone(), c.getLanguage(),
  c.getSystemLanguage(), c.getCanvasPrint().length, c.isJava(), c.isFlash(), c.isSilverlight(),
  c.getBrowserVersion(), c.getEngine(), c.getOSVersion()];
const ms = (performance.now() - started).toFixed(1);
document.getElementById("ms").textContent = ms;
sessionStorage.setItem("ms", ms);
performance.mark("tracer:done");
</script></body></html>
EOF
  : > "$wide/without"; : > "$wide/default"; : > "$wide/nowalk"; : > "$wide/default.install"; : > "$wide/nowalk.install"
  for i in $(seq "${WIDE_RUNS:-5}"); do
    # shellcheck disable=SC2086
    "$browser" $flags --user-data-dir="$wide/profile-$i" --dump-dom "file://$wide/page.html" 2>/dev/null \
      | sed -n 's/.*<pre id="ms">\([0-9.]*\)<.*/\1/p' >> "$wide/without"
    for mode in default nowalk; do
      extra=""
      [ "$mode" = nowalk ] && extra="--no-walk"
      rm -rf "$wide/$mode-case"
      # shellcheck disable=SC2086
      "$tracer" record $extra --case-dir "$wide/$mode-case" --baseline-id bench --browser "$browser" \
        --timeout 600 "$wide/page.html" 2> "$wide/$mode.err"
      jq -r 'select(.api == "sessionStorage.setItem" and .args[0] == "ms") | .args[1]' \
        "$wide/$mode-case/ruyi-trace/logs/current.ndjson" >> "$wide/$mode"
      sed -n 's/^record: probe in main: \([0-9]*\) members watched (installed in \([0-9]*\) ms).*/\1 \2/p' \
        "$wide/$mode.err" >> "$wide/$mode.install"
    done
  done
  n=$(( $(wc -l < "$wide/default-case/ruyi-trace/logs/current.ndjson") - 1 ))
  nl=$(( $(wc -l < "$wide/nowalk-case/ruyi-trace/logs/current.ndjson") - 1 ))
  awk -v p="$(med < "$wide/without")" -v d="$(med < "$wide/default")" -v l="$(med < "$wide/nowalk")" \
      -v n="$n" -v nl="$nl" -v runs="${WIDE_RUNS:-5}" \
      -v m="$(awk '{ print $1 }' "$wide/default.install" | med)" -v mi="$(awk '{ print $2 }' "$wide/default.install" | med)" \
      -v ml="$(awk '{ print $1 }' "$wide/nowalk.install" | med)" -v mli="$(awk '{ print $2 }' "$wide/nowalk.install" | med)" 'BEGIN {
    printf "record, ClientJS 0.2.1 fingerprint (in-page time, median of %d runs):\n", runs
    printf "  page without tracer     %7.1f ms\n", p
    printf "  record (default walk)   %7.1f ms  %.2fx (target <= 1.3x)  %d accesses, %.1f us each beyond the unprobed page\n", d, d / p, n, (d - p) / n * 1000
    printf "  record --no-walk        %7.1f ms  %.2fx                   %d accesses, %.1f us each beyond the unprobed page\n", l, l / p, nl, (l - p) / nl * 1000
    printf "  start-up, main realm: the walk, %d members installed in %d ms; --no-walk, %d members in %d ms\n", m, mi, ml, mli
  }'
fi

if [ "${BENCH_TELLS:-0}" = 1 ]; then
  need_browser BENCH_TELLS jq
  tells=$out/tells
  mkdir -p "$tells"
  # The page times its own reads and measures its own recursion depth, as a detection script
  # would; the result goes into <pre id="out"> (read from --dump-dom) and into sessionStorage
  # (read from the trace).
  cat > "$tells/page.html" <<'EOF'
<!doctype html><html><head><meta charset="utf-8"><title>tells</title></head>
<body><pre id="out"></pre><script>
function reads(n) { const t0 = performance.now(); let s = 0; for (let i = 0; i < n; i++) s += navigator.userAgent.length; return performance.now() - t0; }
function depthVia(f) { let d = 0; function r() { d++; f(); r(); } try { r(); } catch (e) {} return d; }
const times = [reads(20000), reads(20000), reads(20000)].sort((a, b) => a - b);
const text = JSON.stringify({
  reads: +times[1].toFixed(2),
  depthPlain: Math.max(depthVia(function () {}), depthVia(function () {})),
  depthDate: Math.max(depthVia(function () { Date.now(); }), depthVia(function () { Date.now(); })),
  depthUA: Math.max(depthVia(function () { navigator.userAgent; }), depthVia(function () { navigator.userAgent; })),
});
document.getElementById("out").textContent = text;
sessionStorage.setItem("tells", text);
performance.mark("tracer:done");
</script></body></html>
EOF
  : > "$tells/without"; : > "$tells/record"
  for i in $(seq "${TELLS_RUNS:-5}"); do
    # shellcheck disable=SC2086
    "$browser" $flags --user-data-dir="$tells/profile-$i" --dump-dom "file://$tells/page.html" 2>/dev/null \
      | sed -n 's/.*<pre id="out">\(.*\)<\/pre>.*/\1/p' >> "$tells/without"
    rm -rf "$tells/case"
    "$tracer" -q record --case-dir "$tells/case" --baseline-id bench --browser "$browser" --timeout 600 \
      "$tells/page.html" 2>/dev/null || true
    jq -r 'select(.api == "sessionStorage.setItem" and .args[0] == "tells") | .args[1]' \
      "$tells/case/ruyi-trace/logs/current.ndjson" >> "$tells/record"
  done
  field() { jq -r ".$2" "$tells/$1" | med; }
  awk -v pr="$(field without reads)" -v rr="$(field record reads)" \
      -v pp="$(field without depthPlain)" -v pd="$(field without depthDate)" -v pu="$(field without depthUA)" \
      -v rp="$(field record depthPlain)" -v rd="$(field record depthDate)" -v ru="$(field record depthUA)" \
      -v runs="${TELLS_RUNS:-5}" 'BEGIN {
    printf "record, what a page measures of the probe (median of %d runs each, interleaved):\n", runs
    printf "  20 000 navigator.userAgent reads  %8.1f ms plain  %8.1f ms recorded  %.1fx (target <= 2x)\n", pr, rr, rr / pr
    printf "  recursion depth, calling nothing  %8d plain  %8d recorded  %5.1f %%\n", pp, rp, rp / pp * 100
    printf "  recursion depth, through Date.now %8d plain  %8d recorded  %5.1f %% (target >= 95 %%)\n", pd, rd, rd / pd * 100
    printf "  recursion depth, through a getter %8d plain  %8d recorded  %5.1f %% (target >= 95 %%)\n", pu, ru, ru / pu * 100
  }'
fi
if [ "${BENCH_AUDIT_REAL:-0}" = 1 ]; then
  command -v hyperfine >/dev/null || { echo "bench.sh needs hyperfine: apt-get install -y hyperfine" >&2; exit 2; }
  example=$PWD/examples/patched-jsdom
  [ -d "$example/node_modules/jsdom" ] || { echo "BENCH_AUDIT_REAL needs jsdom: (cd examples/patched-jsdom && npm ci)" >&2; exit 2; }
  [ -d "$PWD/examples/jsdom/node_modules/happy-dom" ] || { echo "BENCH_AUDIT_REAL needs happy-dom: (cd examples/jsdom && npm ci)" >&2; exit 2; }
  real=$out/audit-real
  for env in jsdom happy-dom; do
    mkdir -p "$real/$env/case/result" "$real/$env/case/ruyi-trace/logs"
    cp "$example/case/ruyi-trace/logs/current.ndjson" "$real/$env/case/ruyi-trace/logs/"
    cp "$example/page.html" "$example/app.js" "$real/$env/"
  done
  ln -s "$example/node_modules" "$real/jsdom/node_modules"
  cp -r "$example/case/result/." "$real/jsdom/case/result/"
  ln -s "$PWD/examples/jsdom/node_modules" "$real/happy-dom/node_modules"
  cp "$example/node_modules/clientjs/dist/client.min.js" "$real/happy-dom/client.min.js"
  # happy-dom runs the page's two scripts inline (it would fetch a script's src: a request).
  cat > "$real/happy-dom/case/result/final.js" <<'EOF'
// The environment under audit: page.html's scripts (ClientJS, then app.js) run in a happy-dom Window.
const fs = require("node:fs");
const path = require("node:path");
const { Window } = require("happy-dom");
const here = path.join(__dirname, "..", "..");
const window = new Window({ url: "http://127.0.0.1:8765/page.html",
  settings: { enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true } });
window.document.body.innerHTML = '<pre id="seen"></pre>';
for (const file of ["client.min.js", "app.js"]) {
  const script = window.document.createElement("script");
  // A newline after the text: happy-dom wraps it in a try block, which a last-line comment would
  // swallow; and ClientJS's UMD header puts ClientJS on `this`, which happy-dom's wrapper does not
  // make the window.
  const text = fs.readFileSync(path.join(here, file), "utf8");
  script.textContent = file === "app.js" ? text + "\n" : "(function () {" + text + "\n}).call(window);\n";
  window.document.body.appendChild(script);
}
console.log(window.document.getElementById("seen").textContent.length > 0 ? "computed" : "nothing computed");
window.happyDOM.close();
EOF
  for env in jsdom happy-dom; do
    (
      cd "$real/$env"
      "$tracer" -q contract build --case-dir case
      # One audit first: it must have recorded the page's accesses (a broken audit is no figure).
      "$tracer" -q audit --case-dir case --entry case/result/final.js > /dev/null || true
      recorded=$(( $(wc -l < case/tmp/node-trace.ndjson) - 1 ))
      [ "$recorded" -gt 100 ] || { echo "audit of ClientJS in $env recorded $recorded accesses" >&2; exit 1; }
      hyperfine -N -i --warmup 1 --runs "${AUDIT_REAL_RUNS:-5}" --export-json "$real/$env.json" \
        "node case/result/final.js" \
        "$tracer -q audit --case-dir case --entry case/result/final.js" >&2
      awk -v env="$env" -v n="$recorded" -v p="$(median 0 "$real/$env.json")" -v a="$(median 1 "$real/$env.json")" 'BEGIN {
        printf "audit of ClientJS in %s, %d accesses recorded: node %.3f s, tracer audit %.3f s (%.2fx; target <= 1.5x)\n", env, n, p, a, a / p
      }'
    )
  done
  # The issue's own libraries: fingerprintjs2 and detectIncognito from npm, each page recorded in
  # Chromium by this run (served from loopback), then audited in jsdom and in happy-dom.
  need_browser BENCH_AUDIT_REAL
  command -v npm >/dev/null || { echo "BENCH_AUDIT_REAL needs npm" >&2; exit 2; }
  libs=$real/libs
  mkdir -p "$libs"
  (cd "$libs" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund fingerprintjs2@2.1.4 detectincognitojs@1.9.0 >/dev/null)
  data=$PWD/scripts/bench-data/audit-libs
  for lib in fingerprintjs2 detectincognito; do
    page=$libs/$lib
    mkdir -p "$page"
    case $lib in
      fingerprintjs2) cp "$libs/node_modules/fingerprintjs2/dist/fingerprint2.min.js" "$page/lib.js" ;;
      detectincognito) cp "$libs/node_modules/detectincognitojs/dist/es5/detectIncognito.min.js" "$page/lib.js" ;;
    esac
    cp "$data/page.html" "$data/done.js" "$page/"
    cp "$data/$lib.js" "$page/app.js"
    # A loopback port of the kernel's choosing, served until the recording ends.
    python3 -c 'import http.server, socketserver, sys, functools
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
s = socketserver.TCPServer(("127.0.0.1", 0), h)
print(s.server_address[1], flush=True)
s.serve_forever()' "$page" > "$page/port" 2> /dev/null &
    server=$!
    while [ ! -s "$page/port" ]; do sleep 0.1; done
    url="http://127.0.0.1:$(cat "$page/port")/page.html"
    "$tracer" -q record --case-dir "$page/case" --baseline-id "$lib-chromium" --browser "$browser" --timeout 120 "$url" 2>/dev/null || true
    kill "$server"
    for env in jsdom happy-dom; do
      (
        dir=$real/$lib-$env
        mkdir -p "$dir/case/result" "$dir/case/ruyi-trace/logs"
        cp "$page/case/ruyi-trace/logs/current.ndjson" "$dir/case/ruyi-trace/logs/"
        cp "$page/done.js" "$page/lib.js" "$page/app.js" "$dir/"
        echo "$url" > "$dir/page-url.txt"
        cp "$data/$env.js" "$dir/case/result/final.js"
        cp "$data/wait.js" "$dir/case/result/"
        ln -s "$PWD/examples/jsdom/node_modules" "$dir/node_modules"
        cd "$dir"
        "$tracer" -q contract build --case-dir case
        "$tracer" -q audit --case-dir case --entry case/result/final.js > /dev/null 2>&1 || true
        recorded=$(( $(wc -l < case/tmp/node-trace.ndjson) - 1 ))
        [ "$recorded" -gt 0 ] || { echo "audit of $lib in $env recorded nothing" >&2; exit 1; }
        hyperfine -N -i --warmup 1 --runs "${AUDIT_REAL_RUNS:-5}" --export-json "$dir.json" \
          "node case/result/final.js" \
          "$tracer -q audit --case-dir case --entry case/result/final.js" >&2
        awk -v lib="$lib" -v env="$env" -v n="$recorded" -v p="$(median 0 "$dir.json")" -v a="$(median 1 "$dir.json")" 'BEGIN {
          printf "audit of %s in %s, %d accesses recorded: node %.3f s, tracer audit %.3f s (%.2fx; target <= 1.5x)\n", lib, env, n, p, a, a / p
        }'
      )
    done
  done
fi
