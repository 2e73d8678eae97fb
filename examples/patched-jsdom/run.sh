#!/usr/bin/env bash
# The conformance loop closed on a real library: ClientJS 0.2.1, recorded in Chromium
# (case/ruyi-trace/logs/current.ndjson, committed), audited in jsdom 29.1.1 patched by
# case/result/patches.js. Redoes the last round: builds the contract, audits, and exits with the
# audit's code (0 matched, 3 not conformant). Needs Node 20.19+ and npm; no browser.
# Usage: ./run.sh [path/to/tracer]   (default: tracer on PATH, else ../../target/release/tracer)
set -euo pipefail
cd "$(dirname "$0")"
tracer="${1:-$(command -v tracer || echo ../../target/release/tracer)}"
[ -d node_modules/jsdom ] || npm ci --no-audit --no-fund
"$tracer" contract build --case-dir case --markdown
"$tracer" audit --case-dir case --entry case/result/final.js --markdown
