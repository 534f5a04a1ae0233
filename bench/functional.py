#!/usr/bin/env python3
"""Functional-mode speed of the emulator over the sample suite, measured in one run.

Every sample times its own CPU reference (the same work as its kernels, in plain C on
the host) and prints `cpu_reference_seconds: T`. This script runs each compiled sample
with XGPU_STATS, takes the emulated kernels' warp instructions and host seconds from the
statistics, and prints per sample: warp instructions, emulation seconds, millions of
warp instructions per second, the CPU reference seconds, and the slowdown (emulation
seconds / CPU reference seconds); then the geometric means over the suite.

usage: bench/functional.py [BUILD_DIR] [SAMPLE...]     (default: build, every sample)
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

# Larger inputs than the samples' test defaults, where a sample takes a size argument.
BENCH_ARGS = {
    "vecadd": ["4194304"],
    "matmul": ["256", "256", "256"],
    "reduction": ["4194304"],
}


def run_sample(build, name, mode, extra_env=None):
    """Runs one sample; returns (warp instructions, emulation seconds, CPU reference
    seconds, the stats JSON)."""
    exe = os.path.join(build, "samples", name)
    with tempfile.NamedTemporaryFile(suffix=".json") as stats:
        env = dict(os.environ, XGPU_STATS=stats.name, XGPU_MODE=mode, **(extra_env or {}))
        out = subprocess.run([exe] + BENCH_ARGS.get(name, []), env=env,
                             capture_output=True, text=True)
        if out.returncode != 0 or "PASS" not in out.stdout:
            sys.exit(f"{name} failed:\n{out.stdout}{out.stderr}")
        data = json.load(open(stats.name))
    m = re.search(r"cpu_reference_seconds:\s*([0-9.eE+-]+)", out.stdout)
    if not m:
        sys.exit(f"{name} printed no cpu_reference_seconds")
    launches = data["launches"]
    insns = sum(l["warp_instructions"] for l in launches)
    seconds = sum(l["host_seconds"] for l in launches)
    return insns, seconds, float(m.group(1)), data


def geomean(xs):
    xs = [x for x in xs if x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def sample_names(args):
    return args or sorted(
        f[:-3] for f in os.listdir(os.path.join(os.path.dirname(__file__), "..", "samples"))
        if f.endswith(".cu"))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    names = sample_names(sys.argv[2:])
    print(f"{'sample':12} {'warp insns':>12} {'emulated s':>11} {'Mwarp-insn/s':>13} "
          f"{'cpu ref s':>10} {'slowdown':>10}")
    rates, slows = [], []
    for name in names:
        insns, secs, ref, _ = run_sample(build, name, "functional")
        rate = insns / secs / 1e6 if secs > 0 else float("nan")
        slow = secs / ref if ref > 0 else float("nan")
        rates.append(rate)
        slows.append(slow)
        print(f"{name:12} {insns:12d} {secs:11.4f} {rate:13.2f} {ref:10.6f} {slow:9.0f}x")
    print(f"{'geomean':12} {'':12} {'':11} {geomean(rates):13.2f} {'':10} "
          f"{geomean(slows):9.0f}x")


if __name__ == "__main__":
    main()
