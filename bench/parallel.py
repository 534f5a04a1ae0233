#!/usr/bin/env python3
"""Parallel simulation (emu.threads): speedup, and identity of the statistics.

Runs every compiled sample (bench sizes, bench/functional.py) in timing mode with
emu.threads = 1, 2 and 4 on a preset (default accelsim-rtx2060), the three one after the other
for each repetition so that they see the same machine, and prints per sample: the mean
number of busy SMs (core.sm_busy_cycles / cycles), the kernels' wall seconds with one
thread (host_seconds, the fastest of the repetitions), the speedup of 2 and 4 threads
over it (wall clock: threads add CPU time and remove waiting), and whether the
statistics are identical to the one-thread run's (host times and emu.threads aside;
they must be, or the script fails). Then geometric means over all samples and over
those that keep at least 10 SMs busy on average.

Wall-clock speedups need idle cores: on a machine with other work they understate it,
and with more threads than free cores the workers wait for the CPU. Run it with nothing
else running, and with --threads to change the counts.

usage: bench/parallel.py [BUILD_DIR] [--config PRESET] [--reps N] [--threads 1,2,4]
                         [SAMPLE...]
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from functional import geomean, run_sample, sample_names, strip_keys  # noqa: E402

HOST_FIELDS = {"host_seconds", "host_cpu_seconds", "emu.threads", "warp_insns_per_second"}


def wall(data):
    return sum(l["host_seconds"] for l in data["launches"])


def busy_sms(data):
    cycles = sum(l.get("cycles") or 0 for l in data["launches"])
    busy = sum(l["timing"].get("core.sm_busy_cycles", 0) for l in data["launches"])
    return busy / cycles if cycles else 0.0


def option(args, name, default):
    if name in args:
        i = args.index(name)
        value = args[i + 1]
        del args[i:i + 2]
        return value
    return default


def main():
    args = sys.argv[1:]
    build = args.pop(0) if args and not args[0].startswith("-") else "build"
    preset = option(args, "--config", "accelsim-rtx2060")
    reps = int(option(args, "--reps", "1"))
    counts = [int(t) for t in option(args, "--threads", "1,2,4").split(",")]
    if counts[0] != 1:
        counts.insert(0, 1)
    names = sample_names(args)
    print(f"timing mode, preset {preset}, emu.threads = {', '.join(map(str, counts))}, "
          f"fastest of {reps}, wall-clock seconds of the kernels; {os.cpu_count()} host cores")
    print(f"{'sample':12} {'busy SMs':>9} {'1 thread s':>11} " +
          " ".join(f"{f'x{t}':>7}" for t in counts[1:]) + "  statistics")
    speed = {t: [] for t in counts[1:]}
    busy_speed = {t: [] for t in counts[1:]}
    for name in names:
        best = {t: float("inf") for t in counts}
        ref = None
        for _ in range(reps):
            for t in counts:
                _, _, _, data, _ = run_sample(build, name, "timing",
                                              {"XGPU_CONFIG": preset,
                                               "XGPU_SET": f"emu.threads={t}"})
                best[t] = min(best[t], wall(data))
                stats = strip_keys(data, HOST_FIELDS)
                if ref is None:
                    ref, busy = stats, busy_sms(data)
                elif stats != ref:
                    sys.exit(f"{name}: the statistics with emu.threads = {t} differ from "
                             "those with 1 thread")
        ups = {t: best[1] / best[t] if best[t] > 0 else float("nan") for t in counts[1:]}
        for t, u in ups.items():
            speed[t].append(u)
            if busy >= 10:
                busy_speed[t].append(u)
        print(f"{name:12} {busy:9.1f} {best[1]:11.3f} " +
              " ".join(f"{ups[t]:6.2f}x" for t in counts[1:]) + "  identical")
    print(f"{'geomean':12} {'':9} {'':11} " +
          " ".join(f"{geomean(speed[t]):6.2f}x" for t in counts[1:]))
    print(f"{'>= 10 busy':12} {'':9} {'':11} " +
          " ".join(f"{geomean(busy_speed[t]):6.2f}x" for t in counts[1:]))


if __name__ == "__main__":
    main()
