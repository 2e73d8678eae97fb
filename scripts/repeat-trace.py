#!/usr/bin/env python3
"""Repeats a recorded tracer-trace/v1 trace to about MB megabytes, for scripts/bench.sh.

Usage: repeat-trace.py IN OUT [--mb 100]

Writes IN's header once, then IN's access lines again and again, each time with every top-level
`seq` raised past the last one written (so `seq` stays strictly increasing), until OUT reaches
about MB megabytes. Only the digits of `"seq":N` change: every other byte of a line is as
recorded (escapes, numbers, field order). Input may be gzip-compressed (IN ending in .gz).
"""
import argparse
import gzip
import re

SEQ = re.compile(rb'"seq":(\d+)')


def main():
    p = argparse.ArgumentParser()
    p.add_argument("src")
    p.add_argument("out")
    p.add_argument("--mb", type=float, default=100)
    a = p.parse_args()
    opener = gzip.open if a.src.endswith(".gz") else open
    with opener(a.src, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    header, body = lines[0], [l for l in lines[1:] if l.strip()]
    if not body[-1].endswith(b"\n"):
        body[-1] += b"\n"
    seqs = [int(SEQ.search(l).group(1)) for l in body]
    span = max(seqs)
    target = int(a.mb * 1e6)
    written, rounds = len(header), 0
    with open(a.out, "wb") as out:
        out.write(header)
        while written < target:
            offset = rounds * span
            chunk = b"".join(
                SEQ.sub(lambda m: b'"seq":%d' % (int(m.group(1)) + offset), l, count=1) for l in body
            )
            out.write(chunk)
            written += len(chunk)
            rounds += 1
    print(f"{a.out}: {written / 1e6:.1f} MB, {rounds} copies of {len(body)} accesses from {a.src}")


if __name__ == "__main__":
    main()
