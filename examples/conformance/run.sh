#!/usr/bin/env bash
# The conformance loop on a small hand-written case, in under a minute: copy one environment into
# case/result/final.js, build the contract from case/ruyi-trace/logs/current.ndjson, audit the
# environment (no-send), and show the verdict. Needs Node 20+.
# Usage: ./run.sh wrong|fixed [path/to/tracer]
#        (default tracer: on PATH, else ../../target/release/tracer, else ../../target/debug/tracer)
set -euo pipefail
cd "$(dirname "$0")"
which=${1:-wrong}
case "$which" in wrong | fixed) ;; *) echo "usage: $0 wrong|fixed [tracer]" >&2; exit 2 ;; esac
tracer=${2:-$(command -v tracer || true)}
for t in ../../target/release/tracer ../../target/debug/tracer; do
  [ -n "$tracer" ] || { [ -x "$t" ] && tracer=$t; }
done
[ -n "$tracer" ] || { echo "no tracer binary: cargo build --release --bin tracer" >&2; exit 2; }

rm -rf case/notes case/tmp case/result .tracer
mkdir -p case/result
cp "result-$which/final.js" case/result/final.js
echo "== environment: result-$which/final.js -> case/result/final.js"

"$tracer" contract build --case-dir case --markdown
status=0
"$tracer" audit --case-dir case --entry case/result/final.js --markdown || status=$?

echo
echo "== verdict: exit $status ($( [ "$status" = 0 ] && echo matched || echo 'not conformant / see above' ))"
node -e '
  const d = JSON.parse(require("fs").readFileSync("case/notes/trace-runtime-diff.json", "utf8"));
  console.log(`matched: ${d.matched}, requestsMatched: ${d.requestsMatched}, counts: ${JSON.stringify(d.counts)}`);
  for (const f of d.blocking) {
    const what = f.dimension ? ` ${f.dimension}: expected ${JSON.stringify(f.expected)}, observed ${JSON.stringify(f.observed)}` : "";
    console.log(`  ${f.code} ${f.api ?? ""} ${f.accessType ?? ""}${what}`.slice(0, 300));
  }
  for (const r of d.risks) console.log(`  risk: ${r.code} ${r.api ?? ""} ${r.dimension ?? ""}`);
  for (const r of d.requests.differences) console.log(`  request: ${r.message}`);
'
echo "full diff: case/notes/trace-runtime-diff.md"
exit "$status"
