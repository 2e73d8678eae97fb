#!/usr/bin/env python3
"""Where a traced hello world's start-up goes, on one clock: tracer against the C client.

    scripts/startup-timeline.py [ROUNDS] [TRACER]      (defaults: 100, target/release/tracer)

Builds scripts/mark-preload.c (a preloaded library marking when each process starts running code
and when it exits, on CLOCK_MONOTONIC) and scripts/min-client.c (the floor: the least a client does
to run a program under tracer's bootloader), then runs examples/hello/hello.js under each in turn,
ROUNDS times, the order alternating, stdout a pipe. tracer runs with TRACER_TIMINGS=1, which gives
its phases and its start on the same clock. Prints, for each, the median time of each mark since the
command was spawned, and the median paired differences of the three parts of a run: until Node
starts, Node's life, and after Node's exit. Needs gcc and node. The README's Speed section gives
the figures it measured.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    tracer = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "target/release/tracer"))
    if not os.access(tracer, os.X_OK):
        sys.exit(f"startup-timeline: no tracer at {tracer}: cargo build --release first, or pass its path")
    if shutil.which("gcc") is None or shutil.which("node") is None:
        sys.exit("startup-timeline: needs gcc and node")
    work = tempfile.mkdtemp(prefix="tracer-timeline-")
    try:
        preload = os.path.join(work, "mark-preload.so")
        client = os.path.join(work, "min-client")
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", preload,
                        os.path.join(ROOT, "scripts/mark-preload.c")], check=True)
        subprocess.run(["gcc", "-O2", "-o", client, os.path.join(ROOT, "scripts/min-client.c")], check=True)
        hello = os.path.join(ROOT, "examples/hello/hello.js")
        # The bootloader as tracer writes it: its two files, one after the other.
        boot = os.path.join(work, "boot.js")
        with open(boot, "w") as whole:
            for part in ("boot.js", "console.js"):
                with open(os.path.join(ROOT, "src/inspector/bootloader", part)) as f:
                    whole.write(f.read())
        commands = {
            "client": [client, boot, "node", hello],
            "tracer": [tracer, "-q", "run", "--out", os.path.join(work, "out"), hello],
        }
        own = {"client": "min-client", "tracer": os.path.basename(tracer)}
        runs = {name: [] for name in commands}
        marks = os.path.join(work, "marks")
        for k in range(rounds):
            for name in (list(commands) if k % 2 == 0 else list(commands)[::-1]):
                if os.path.exists(marks):
                    os.unlink(marks)
                env = dict(os.environ, MARKS=marks, LD_PRELOAD=preload, TRACER_TIMINGS="1")
                spawned = time.monotonic_ns()
                done = subprocess.run(commands[name], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
                ended = time.monotonic_ns()
                if done.returncode != 0:
                    sys.exit(f"startup-timeline: {name} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
                run = {"end": (ended - spawned) / 1e6}
                with open(marks) as lines:
                    for line in lines:
                        mark, ns = line.rsplit(" ", 1)
                        mark = mark.replace(own[name], name)
                        run.setdefault(mark, (int(ns) - spawned) / 1e6)
                start = re.search(r"timing: started at (\d+) ns", done.stderr.decode())
                if start:
                    base = (int(start.group(1)) - spawned) / 1e6
                    for phase, ms in re.findall(r"timing: (.+?) ([\d.]+) ms", done.stderr.decode()):
                        run["  " + phase] = base + float(ms)
                runs[name].append(run)
        print(f"{rounds} rounds, ms since the command was spawned (medians)")
        for name, those in runs.items():
            print(name)
            keys = sorted(those[0], key=lambda m: those[0][m])
            for key in keys:
                print("  %8.2f  %s" % (statistics.median(r[key] for r in those if key in r), key))
        parts = [
            ("until Node starts", lambda r: r["node-ctor"]),
            ("Node's life", lambda r: r["node-dtor"] - r["node-ctor"]),
            ("after Node's exit", lambda r: r["end"] - r["node-dtor"]),
            ("the whole run", lambda r: r["end"]),
        ]
        print("tracer above the client, median of the paired differences")
        for label, part in parts:
            diffs = [part(t) - part(c) for c, t in zip(runs["client"], runs["tracer"])]
            print("  %+7.2f ms  %s" % (statistics.median(diffs), label))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
