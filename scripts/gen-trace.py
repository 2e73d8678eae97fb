#!/usr/bin/env python3
"""Writes a synthetic tracer-trace/v1 trace for scripts/bench.sh (not a recording).

Usage: gen-trace.py OUT [--mb 200] [--items 10000]

Lines cycle over ITEMS distinct (api, accessType, realm, receiver, phase) items, each line with
owner, getterOwner, a returnValue out of 4 per item, exception and a 3-frame stack, until the file
reaches about MB megabytes. No `state`, so the contract's memory is bounded by the items alone.
"""
import argparse
import json


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--mb", type=float, default=200)
    p.add_argument("--items", type=int, default=10000)
    a = p.parse_args()
    target = int(a.mb * 1024 * 1024)
    kinds = ["get", "call", "set", "has"]
    phases = ["init", "challenge-init", "writer"]
    templates = []
    for i in range(a.items):
        iface = f"Iface{i % 700}"
        kind = kinds[i % len(kinds)]
        member = f"m{i // 700}"
        api = f"{iface}.prototype.{member}" if kind == "call" else f"{iface.lower()}.{member}"
        prefix = {"type": "access", "seq": 0}
        rest = {
            "t": 0,
            "realm": "main",
            "realmId": "main#0",
            "nav": 0,
            "phase": phases[i % len(phases)],
            "api": api,
            "accessType": kind,
            "receiver": iface,
            "owner": f"{iface}.prototype",
            "getterOwner": f"{iface}.prototype",
            "exception": None,
            "stack": [
                {"url": "https://bench.test/app.js", "line": 10 + j, "column": 4 * j + 1,
                 "functionName": f"f{i % 97}_{j}"}
                for j in range(3)
            ],
        }
        head = json.dumps(prefix, separators=(",", ":"))[:-2]  # ..."seq":
        body = json.dumps(rest, separators=(",", ":"))[1:-1]
        templates.append((head, body))
    header = {
        "type": "header",
        "schema": "tracer-trace/v1",
        "baselineId": "bench",
        "recorder": {"name": "scripts/gen-trace.py (synthetic, for the benchmark)", "version": "0"},
        "startedAt": "2026-11-30T00:00:00Z",
    }
    written = 0
    seq = 0
    n = len(templates)
    with open(a.out, "w", encoding="utf-8", newline="\n") as f:
        line = json.dumps(header, separators=(",", ":")) + "\n"
        f.write(line)
        written += len(line)
        chunk = []
        while written < target:
            seq += 1
            head, body = templates[seq % n]
            rv = (seq // n) % 4
            line = f'{head}{seq},{body},"returnValue":{rv}}}\n'
            chunk.append(line)
            written += len(line)
            if len(chunk) >= 10000:
                f.write("".join(chunk))
                chunk.clear()
        f.write("".join(chunk))
    print(f"{a.out}: {written / 1e6:.1f} MB, {seq} accesses, {n} items")


if __name__ == "__main__":
    main()
