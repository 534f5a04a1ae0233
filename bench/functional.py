#!/usr/bin/env python3
"""Functional-mode speed of the emulator, measured in one run.

For each workload, runs the compiled sample with XGPU_STATS, takes the emulated kernels'
warp instructions and host seconds from the statistics, runs the native C reference
(bench/native_ref) doing the same work, and prints warp-instructions per second and the
slowdown (emulated kernel time / native time).

usage: bench/functional.py [BUILD_DIR]     (default: build)
"""
import json
import os
import subprocess
import sys
import tempfile

WORKLOADS = [
    # name, sample arguments, native_ref arguments
    ("vecadd", ["1048576"], ["vecadd", "1048576"]),
    ("matmul", ["256", "256", "256"], ["matmul", "256", "256", "256"]),
]


def emulate(build, name, args):
    with tempfile.NamedTemporaryFile(suffix=".json") as stats:
        env = dict(os.environ, XGPU_STATS=stats.name, XGPU_MODE="functional")
        out = subprocess.run([os.path.join(build, "samples", name)] + args, env=env,
                             capture_output=True, text=True)
        if out.returncode != 0 or "PASS" not in out.stdout:
            sys.exit(f"{name} failed:\n{out.stdout}{out.stderr}")
        data = json.load(open(stats.name))
    launches = data["launches"]
    insns = sum(l["warp_instructions"] for l in launches)
    seconds = sum(l["host_seconds"] for l in launches)
    return insns, seconds


def native(build, args):
    out = subprocess.run([os.path.join(build, "bin", "native_ref")] + args,
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    print(f"{'workload':10} {'warp insns':>12} {'emulated s':>11} {'Mwarp-insn/s':>13} "
          f"{'native s':>10} {'slowdown':>9}")
    for name, sargs, nargs in WORKLOADS:
        insns, secs = emulate(build, name, sargs)
        nat = native(build, nargs)
        rate = insns / secs / 1e6 if secs > 0 else float("nan")
        slow = secs / nat if nat > 0 else float("nan")
        print(f"{name:10} {insns:12d} {secs:11.4f} {rate:13.2f} {nat:10.6f} {slow:8.0f}x")


if __name__ == "__main__":
    main()
