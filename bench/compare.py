#!/usr/bin/env python3
"""Two builds of the emulator against each other over the sample suite, in one run.

Runs every compiled sample of BUILD_A and BUILD_B in turn (A, B, A, B, ... REPS times
each), in timing mode with a preset (default accelsim-rtx2060) or in functional mode, and
prints per sample the median emulation CPU seconds of each (host_cpu_seconds of the
statistics: the kernels only, not the sample's own CPU reference), the median of the
pair-by-pair ratio A/B, and whether the two builds' statistics are identical (host
figures left out); then the geometric mean of the ratios. Alternating the runs keeps the
ratio meaningful when the machine's speed drifts; on a shared machine take the ratio,
not the seconds. Both builds must be built from the same samples (the programs' own
binaries differ only in the runtime they load).

usage: bench/compare.py BUILD_A BUILD_B [--mode timing|functional] [--config PRESET]
                        [--reps N] [SAMPLE...]
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from functional import geomean, run_sample, sample_names, strip_keys  # noqa: E402

HOST_FIELDS = {"host_seconds", "host_cpu_seconds"}


def main():
    args = sys.argv[1:]
    if len(args) < 2 or args[0].startswith("-") or args[1].startswith("-"):
        sys.exit(__doc__)
    a, b = args[0], args[1]
    args = args[2:]
    mode, preset, reps = "timing", "accelsim-rtx2060", 3
    while args[:1] and args[0].startswith("--"):
        flag = args.pop(0)
        if not args:
            sys.exit(f"{flag} needs a value")
        value = args.pop(0)
        if flag == "--mode" and value in ("timing", "functional"):
            mode = value
        elif flag == "--config":
            preset = value
        elif flag == "--reps" and value.isdigit() and int(value) > 0:
            reps = int(value)
        else:
            sys.exit(f"unknown option or value: {flag} {value}")
    env = {"XGPU_CONFIG": preset} if mode == "timing" else {}
    print(f"{mode} mode" + (f", preset {preset}" if mode == "timing" else "") +
          f", {reps} alternating runs each; A = {a}, B = {b}")
    print(f"{'sample':12} {'A cpu s':>9} {'B cpu s':>9} {'A/B':>7}  statistics")
    ratios = []
    for name in sample_names(args):
        secs = {a: [], b: []}
        stats = {}
        for _ in range(reps):
            for build in (a, b):
                _, s, _, data, _ = run_sample(build, name, mode, env)
                secs[build].append(s)
                stats[build] = strip_keys(data, HOST_FIELDS)
        pairs = [x / y for x, y in zip(secs[a], secs[b]) if y > 0]
        ratio = statistics.median(pairs) if pairs else float("nan")
        ratios.append(ratio)
        same = "identical" if stats[a] == stats[b] else "DIFFER"
        print(f"{name:12} {statistics.median(secs[a]):9.3f} {statistics.median(secs[b]):9.3f} "
              f"{ratio:7.3f}  {same}")
    print(f"{'geomean':12} {'':9} {'':9} {geomean(ratios):7.3f}")


if __name__ == "__main__":
    main()
