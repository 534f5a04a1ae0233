#!/usr/bin/env python3
"""Functional-mode speed of the emulator over the sample suite, measured in one run.

Every sample times its own CPU reference (the same work as its kernels, in plain C on
the host, in process CPU seconds) and prints `cpu_reference_seconds: T`. This script runs
each compiled sample with XGPU_STATS, takes the emulated kernels' warp instructions and
CPU seconds (host_cpu_seconds: not inflated by other work on a loaded machine) from the
statistics, and prints per sample: warp instructions, emulation CPU seconds, millions of
warp instructions per CPU second, the CPU reference seconds, and the slowdown (emulation
seconds / CPU reference seconds); then the geometric means over the suite.

--instructions counts instead, under callgrind, the host instructions executed inside
emu_launch per warp instruction, at the samples' test sizes: a repeatable figure on a
noisy machine (valgrind must be installed; about 50 times slower).

usage: bench/functional.py [BUILD_DIR] [--instructions] [SAMPLE...]
       (default: build, every sample)
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


def run_sample(build, name, mode, extra_env=None, prefix=(), args=None):
    """Runs one sample (under the command prefix, with args, default BENCH_ARGS);
    returns (warp instructions, emulation CPU seconds, CPU reference seconds, the stats
    JSON, the run's stderr)."""
    exe = os.path.join(build, "samples", name)
    with tempfile.NamedTemporaryFile(suffix=".json") as stats:
        env = dict(os.environ, XGPU_STATS=stats.name, XGPU_MODE=mode, **(extra_env or {}))
        argv = list(prefix) + [exe] + (BENCH_ARGS.get(name, []) if args is None else args)
        out = subprocess.run(argv, env=env, capture_output=True, text=True)
        if out.returncode != 0 or "PASS" not in out.stdout:
            sys.exit(f"{name} failed:\n{out.stdout}{out.stderr}")
        data = json.load(open(stats.name))
    m = re.search(r"cpu_reference_seconds:\s*([0-9.eE+-]+)", out.stdout)
    if not m:
        sys.exit(f"{name} printed no cpu_reference_seconds")
    launches = data["launches"]
    insns = sum(l["warp_instructions"] for l in launches)
    seconds = sum(l["host_cpu_seconds"] for l in launches)
    return insns, seconds, float(m.group(1)), data, out.stderr


def host_instructions(build, name, mode, extra_env=None):
    """Callgrind's count of host instructions inside emu_launch for one run of the sample
    at its test size; returns (warp instructions, host instructions)."""
    with tempfile.NamedTemporaryFile(suffix=".callgrind") as cg:
        prefix = ["valgrind", "--tool=callgrind", "--toggle-collect=emu_launch",
                  f"--callgrind-out-file={cg.name}"]
        insns, _, _, _, err = run_sample(build, name, mode, extra_env, prefix, args=[])
    m = re.search(r"Collected\s*:\s*(\d+)", err)
    if not m:
        sys.exit(f"{name}: no instruction count from callgrind:\n{err}")
    return insns, int(m.group(1))


def strip_keys(v, keys):
    """v (statistics JSON) without the keys in `keys`, at any depth."""
    if isinstance(v, dict):
        return {k: strip_keys(x, keys) for k, x in v.items() if k not in keys}
    if isinstance(v, list):
        return [strip_keys(x, keys) for x in v]
    return v


def geomean(xs):
    xs = [x for x in xs if x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def sample_names(args):
    return args or sorted(
        f[:-3] for f in os.listdir(os.path.join(os.path.dirname(__file__), "..", "samples"))
        if f.endswith(".cu"))


def print_instructions(build, names, mode, extra_env=None):
    """--instructions: host instructions per warp instruction, per sample and geomean."""
    print(f"{'sample':12} {'warp insns':>12} {'host insns':>14} {'per warp insn':>14}")
    per = []
    for name in names:
        insns, host = host_instructions(build, name, mode, extra_env)
        per.append(host / insns if insns else float("nan"))
        print(f"{name:12} {insns:12d} {host:14d} {per[-1]:14.0f}")
    print(f"{'geomean':12} {'':12} {'':14} {geomean(per):14.0f}")


def main():
    args = sys.argv[1:]
    build = args.pop(0) if args and not args[0].startswith("-") else "build"
    counting = "--instructions" in args
    names = sample_names([a for a in args if a != "--instructions"])
    if counting:
        print("functional mode, host instructions per warp instruction (callgrind)")
        print_instructions(build, names, "functional")
        return
    print(f"{'sample':12} {'warp insns':>12} {'cpu s':>11} {'Mwarp-insn/s':>13} "
          f"{'cpu ref s':>10} {'slowdown':>10}")
    rates, slows = [], []
    for name in names:
        insns, secs, ref, _, _ = run_sample(build, name, "functional")
        rate = insns / secs / 1e6 if secs > 0 else float("nan")
        slow = secs / ref if ref > 0 else float("nan")
        rates.append(rate)
        slows.append(slow)
        print(f"{name:12} {insns:12d} {secs:11.4f} {rate:13.2f} {ref:10.6f} {slow:9.0f}x")
    print(f"{'geomean':12} {'':12} {'':11} {geomean(rates):13.2f} {'':10} "
          f"{geomean(slows):9.0f}x")


if __name__ == "__main__":
    main()
