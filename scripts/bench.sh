#!/usr/bin/env bash
# Measures tracer's overhead as ratios against plain node, measured in the same run:
#   1. start-up: `tracer run examples/hello/hello.js` vs `node examples/hello/hello.js`
#   2. a flood: 100 000 console.log calls under tracer vs plain node
# Needs hyperfine (apt-get install hyperfine) and a release build. Prints medians and ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "bench.sh needs hyperfine: apt-get install -y hyperfine" >&2; exit 2; }
cargo build --release --quiet
tracer="$PWD/target/release/tracer"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
runs=${RUNS:-30}

median() { jq -r ".results[$1].median" "$2"; }

hyperfine -N --warmup 3 --runs "$runs" --export-json "$out/hello.json" \
  "node examples/hello/hello.js" \
  "$tracer -q run --out $out/t examples/hello/hello.js" >&2
hyperfine -N --warmup 1 --runs "$(( runs / 3 > 3 ? runs / 3 : 3 ))" --export-json "$out/flood.json" \
  --output=null \
  "node examples/hello/flood.js 100000" \
  "$tracer -q run --out $out/t examples/hello/flood.js 100000" >&2

report() {
  local name=$1 file=$2
  local base traced
  base=$(median 0 "$file")
  traced=$(median 1 "$file")
  awk -v n="$name" -v b="$base" -v t="$traced" \
    'BEGIN { printf "%-28s node %7.1f ms   tracer %7.1f ms   ratio %.2fx\n", n, b*1000, t*1000, t/b }'
}
echo "node $(node --version), $(nproc) cores, median of ${runs} runs (flood: fewer)"
report "hello (start-up)" "$out/hello.json"
report "100k console.log (flood)" "$out/flood.json"
