#!/usr/bin/env bash
# Issue 12's check on two fingerprinting libraries from npm: each page recorded by default and with
# an exhaustive --api list (scripts/record-coverage.py), and what each library computed with and
# without tracer. gbf.html is an ES module, served on 127.0.0.1 for the run. Needs Chromium,
# python3 and npm. Usage: ./run.sh [path/to/tracer]   (default: tracer on PATH, else
# ../../target/debug/tracer). Exit 0 when nothing is missing and every result agrees.
set -euo pipefail
cd "$(dirname "$0")"
tracer="${1:-$(command -v tracer || echo ../../target/debug/tracer)}"
[ -d node_modules/clientjs ] || npm install --no-audit --no-fund
port=${PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
sleep 1
status=0
echo "== ClientJS 0.2.1"
python3 ../../scripts/record-coverage.py --tracer "$tracer" clientjs.html || status=1
echo "== get-browser-fingerprint 5.2.4"
python3 ../../scripts/record-coverage.py --tracer "$tracer" "http://127.0.0.1:$port/gbf.html" || status=1
exit "$status"
