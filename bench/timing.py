#!/usr/bin/env python3
"""Timing-mode speed of the emulator over the sample suite, measured in one run.

Runs every compiled sample twice, in functional mode and in timing mode with a preset
(default accelsim-rtx2060), and prints per sample: warp instructions, simulated cycles, IPC,
timing-mode CPU seconds and millions of warp instructions per CPU second, and the
slowdown of timing mode over functional mode (the kernels' emulation CPU seconds,
host_cpu_seconds of the statistics of the same run); then geometric means. Both runs
must print PASS. --instructions counts host instructions per warp instruction in timing
mode under callgrind instead (bench/functional.py).

usage: bench/timing.py [BUILD_DIR] [--config PRESET] [--instructions] [SAMPLE...]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from functional import geomean, print_instructions, run_sample, sample_names  # noqa: E402


def main():
    args = sys.argv[1:]
    build = args.pop(0) if args and not args[0].startswith("-") else "build"
    preset = "accelsim-rtx2060"
    if args[:1] == ["--config"]:
        preset = args[1]
        args = args[2:]
    counting = "--instructions" in args
    names = sample_names([a for a in args if a != "--instructions"])
    env = {"XGPU_CONFIG": preset}
    if counting:
        print(f"timing mode, preset {preset}, host instructions per warp instruction "
              "(callgrind)")
        print_instructions(build, names, "timing", env)
        return
    print(f"timing mode, preset {preset}")
    print(f"{'sample':12} {'warp insns':>11} {'cycles':>11} {'IPC':>7} {'cpu s':>9} "
          f"{'Mwarp-insn/s':>13} {'func s':>8} {'slowdown':>9}")
    rates, slows = [], []
    for name in names:
        f_insns, f_secs, _, _, _ = run_sample(build, name, "functional", env)
        t_insns, t_secs, _, data, _ = run_sample(build, name, "timing", env)
        if f_insns != t_insns:
            sys.exit(f"{name}: {f_insns} warp instructions in functional mode, "
                     f"{t_insns} in timing mode")
        cycles = sum(l.get("cycles") or 0 for l in data["launches"])
        rate = t_insns / t_secs / 1e6 if t_secs > 0 else float("nan")
        slow = t_secs / f_secs if f_secs > 0 else float("nan")
        rates.append(rate)
        slows.append(slow)
        ipc = t_insns / cycles if cycles else float("nan")
        print(f"{name:12} {t_insns:11d} {cycles:11d} {ipc:7.2f} {t_secs:9.3f} {rate:13.2f} "
              f"{f_secs:8.3f} {slow:8.1f}x")
    print(f"{'geomean':12} {'':11} {'':11} {'':7} {'':9} {geomean(rates):13.2f} {'':8} "
          f"{geomean(slows):8.1f}x")


if __name__ == "__main__":
    main()
