#!/usr/bin/env python3
"""Issue 12's check of `tracer record`'s default watch on a page (a file or a loopback URL):

1. the exhaustive `--api` list: every own property of a Chromium window that is not the language's
   (each interface by name, `Math`, `Intl` and `CSS`, Intl's interfaces, each function-valued
   global and accessor as `window.NAME`), read from Chromium itself;
2. the page recorded by default, and with `--no-walk --api-file` of that list;
3. the items (api, accessType, receiver) of the second recording that the first lacks, or has
   fewer accesses of;
4. when the page writes `<pre id="seen">{"seen": {...}}</pre>` and the same entries into
   sessionStorage as `seen:KEY`, what it computed with tracer (from the trace) against without
   (`--dump-dom`).

Usage: scripts/record-coverage.py [--tracer PATH] [--browser PATH] PAGE
Exit 0 when nothing is missing and the results agree, 1 otherwise.
"""
import argparse
import collections
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

LANGUAGE = set("""Object Function Array Number parseFloat parseInt Infinity NaN undefined Boolean String
Symbol Promise RegExp Error AggregateError EvalError RangeError ReferenceError SyntaxError TypeError
URIError SuppressedError globalThis JSON ArrayBuffer SharedArrayBuffer Atomics Uint8Array Int8Array
Uint16Array Int16Array Uint32Array Int32Array Float16Array Float32Array Float64Array Uint8ClampedArray
BigUint64Array BigInt64Array DataView Map BigInt Set WeakMap WeakSet Proxy Reflect FinalizationRegistry
WeakRef decodeURI decodeURIComponent encodeURI encodeURIComponent escape unescape eval isFinite isNaN
Iterator DisposableStack AsyncDisposableStack console""".split())
INTL = ["DateTimeFormat", "NumberFormat", "Collator", "PluralRules", "RelativeTimeFormat", "ListFormat",
        "DisplayNames", "Locale", "Segmenter", "DurationFormat"]
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

NAMES_PAGE = """<pre id="seen"></pre><script>
const language = new Set(%s);
const out = [];
for (const name of Object.getOwnPropertyNames(window)) {
  if (language.has(name)) continue;
  const d = Object.getOwnPropertyDescriptor(window, name);
  if (!d.configurable) continue;
  if (!("value" in d)) { out.push("window." + name); continue; }
  const v = d.value;
  if (typeof v === "function") {
    out.push(v.prototype && Object.getOwnPropertyDescriptor(v.prototype, "constructor") ? name : "window." + name);
  } else if (["Math", "Intl", "CSS"].includes(name)) out.push(name);
}
document.getElementById("seen").textContent = JSON.stringify(out);
</script>"""


def dump(browser, url, profile):
    """The JSON text of the page's <pre id="seen"> once Chromium has run it, or None. An
    asynchronous page may not have written it when the DOM is dumped: tried three times."""
    for attempt in range(3):
        out = subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}-{attempt}",
                              "--virtual-time-budget=10000", "--dump-dom", url],
                             capture_output=True, text=True, timeout=120).stdout
        m = re.search(r'<pre id="seen">(.*?)</pre>', out, re.S)
        if m and m.group(1).strip():
            return json.loads(html.unescape(m.group(1)))
    return None


def record(tracer, browser, page, case, extra):
    run = subprocess.run([tracer, "record", "-q", "--case-dir", case, "--baseline-id", "coverage",
                          "--browser", browser, "--timeout", "120", *extra, page],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"tracer record {' '.join(extra)} failed ({run.returncode}): {run.stderr}")
    items, seen = collections.Counter(), {}
    with open(os.path.join(case, "ruyi-trace/logs/current.ndjson")) as trace:
        for line in trace:
            r = json.loads(line)
            if r.get("type") != "access":
                continue
            items[(r["api"], r["accessType"], r["receiver"])] += 1
            if r["api"] == "sessionStorage.setItem" and r["accessType"] == "call":
                key = r["args"][0]
                if isinstance(key, str) and key.startswith("seen:"):
                    seen[key[5:]] = r["args"][1]
    return items, seen


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tracer", default=shutil.which("tracer") or "target/release/tracer")
    parser.add_argument("--browser", default=shutil.which("chromium") or "google-chrome")
    parser.add_argument("page")
    args = parser.parse_args()
    page = args.page if "://" in args.page else os.path.abspath(args.page)
    url = page if "://" in page else "file://" + page
    with tempfile.TemporaryDirectory() as tmp:
        names_page = os.path.join(tmp, "names.html")
        with open(names_page, "w") as f:
            f.write(NAMES_PAGE % json.dumps(sorted(LANGUAGE)))
        names = dump(args.browser, "file://" + names_page, os.path.join(tmp, "p1"))
        names += ["Intl." + n for n in INTL]
        api_file = os.path.join(tmp, "apis.txt")
        with open(api_file, "w") as f:
            f.write("\n".join(names) + "\n")
        default, seen_d = record(args.tracer, args.browser, page, os.path.join(tmp, "default"), [])
        exhaustive, seen_e = record(args.tracer, args.browser, page, os.path.join(tmp, "exhaustive"),
                                    ["--no-walk", "--api-file", api_file])
        listed, _ = record(args.tracer, args.browser, page, os.path.join(tmp, "list"), ["--no-walk"])
        without = dump(args.browser, url, os.path.join(tmp, "p2"))
    ok = bool(default)
    if not default:
        print("the default recording holds no access: is the page there?")
    print(f"exhaustive --api list: {len(names)} names")
    for name, items in (("default", default), ("exhaustive --api", exhaustive), ("--no-walk", listed)):
        print(f"{name:17} {sum(items.values()):7} accesses on {len(items):4} items")
    missing = [(k, n) for k, n in exhaustive.items() if default[k] < n]
    print(f"items of the exhaustive recording with fewer accesses (or none) by default: {len(missing)}")
    for (api, access, receiver), n in missing:
        print(f"  {api} {access} on {receiver}: {default[(api, access, receiver)]} by default, {n} exhaustive")
    ok &= not missing
    if without is None or not isinstance(without.get("seen"), dict):
        print("the page wrote no <pre id=\"seen\">{\"seen\": ...}</pre> without tracer: results not compared")
    else:
        for name, seen in (("default", seen_d), ("exhaustive --api", seen_e)):
            differ = [k for k, v in without["seen"].items() if seen.get(k) != v]
            print(f"{name}: {len(without['seen'])} results, differing from the page without tracer: {differ}")
            ok &= not differ
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
