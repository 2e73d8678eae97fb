#!/usr/bin/env bash
# The whole conformance loop against software nobody here wrote: record page.html in headless
# Chromium, build the contract, audit the same script under jsdom (case/result/final.js), and show
# the findings. Needs Chromium (`apt-get install -y chromium`), Node 20.19+ and npm.
# Usage: ./run.sh [path/to/tracer]   (default: tracer on PATH, else ../../target/debug/tracer)
set -euo pipefail
cd "$(dirname "$0")"
tracer="${1:-$(command -v tracer || echo ../../target/debug/tracer)}"
[ -d node_modules/jsdom ] || npm install --no-audit --no-fund
rm -rf case/ruyi-trace case/notes case/tmp
"$tracer" record --case-dir case --baseline-id b1 page.html
"$tracer" contract build --case-dir case --markdown
status=0
"$tracer" audit --case-dir case --entry case/result/final.js --markdown || status=$?
echo
echo "DIMENSION_MISMATCH findings (what differs between jsdom and Chromium, measured by the tool):"
node -e '
  const d = JSON.parse(require("fs").readFileSync("case/notes/trace-runtime-diff.json", "utf8"));
  for (const f of d.blocking.filter((f) => f.code === "DIMENSION_MISMATCH")) {
    console.log(`  ${f.api} (${f.accessType}) ${f.dimension}: expected ${JSON.stringify(f.expected)}, observed ${JSON.stringify(f.observed)}`.slice(0, 400));
  }
  const others = {};
  for (const f of d.blocking) if (f.code !== "DIMENSION_MISMATCH") others[f.code] = (others[f.code] || 0) + 1;
  console.log("other blocking findings:", JSON.stringify(others));
'
exit "$status"
