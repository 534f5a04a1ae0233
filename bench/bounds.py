#!/usr/bin/env python3
"""Compares the timing model's cycles with first-principles bounds of a preset.

Compiles bench/bounds.cu with the built xgpu-cc and runs its three kernels in timing
mode with the preset's configuration. For every kernel it computes four lower bounds on
the cycles from the launch's own counts and the preset's peak rates:
  issue   warp instructions / (SMs * sub-cores): one issue per sub-core per cycle
  rf      (register bank reads + writes) / (SMs * sub-cores * rf.banks_per_subcore):
          every bank is single-ported, one read or one write per cycle
  smem    warp-level shared accesses / SMs: one conflict-free access per SM per cycle
  dram    bytes moved by DRAM / peak DRAM bytes per core cycle,
          peak = channels * burst_bytes / burst_cycles * dram_clock / core_clock
and prints the model's cycles, the largest bound (the kernel's limit), and the fraction
of it achieved. The kernels are built to hit one limit each: stream (DRAM), fma (issue),
shared (shared memory; with two register banks per sub-core the register file binds
first).

usage: bench/bounds.py [BUILD_DIR] [PRESET]     (default: build accelsim-rtx2060)
"""
import json
import os
import subprocess
import sys
import tempfile


def config(build, preset):
    out = subprocess.run([os.path.join(build, "bin", "xgpu-run"), "--config", preset,
                          "--dump-config"], capture_output=True, text=True, check=True).stdout
    cfg = {}
    for line in out.splitlines():
        line = line.split("#", 1)[0].strip()
        if "=" in line:
            k, v = (x.strip() for x in line.split("=", 1))
            cfg[k] = v
    return cfg


def run(exe, kernel, preset):
    with tempfile.NamedTemporaryFile(suffix=".json") as stats:
        env = dict(os.environ, XGPU_CONFIG=preset, XGPU_MODE="timing", XGPU_STATS=stats.name)
        out = subprocess.run([exe, kernel], env=env, capture_output=True, text=True)
        if out.returncode or "PASS" not in out.stdout:
            sys.exit(f"bounds {kernel} failed:\n{out.stdout}{out.stderr}")
        return json.load(open(stats.name))["launches"][0]


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    preset = sys.argv[2] if len(sys.argv) > 2 else "accelsim-rtx2060"
    here = os.path.dirname(os.path.abspath(__file__))
    exe = os.path.join(tempfile.mkdtemp(), "bounds")
    subprocess.run([os.path.join(build, "bin", "xgpu-cc"), "-O2",
                    os.path.join(here, "bounds.cu"), "-o", exe], check=True)
    c = config(build, preset)
    sms, subcores = int(c["gpu.sm_count"]), int(c["core.subcores"])
    peak_bytes = (int(c["dram.channels"]) * int(c["dram.burst_bytes"]) /
                  int(c["dram.burst_cycles"]) * int(c["dram.clock_khz"]) / int(c["gpu.clock_khz"]))
    print(f"preset {preset}: {sms} SMs x {subcores} sub-cores, "
          f"DRAM peak {peak_bytes:.1f} bytes per core cycle")
    banks = int(c["rf.banks_per_subcore"])
    print(f"{'kernel':8} {'model cycles':>13} {'issue':>9} {'rf':>9} {'smem':>9} {'dram':>9} "
          f"{'of bound':>9}  limit")
    for kernel in ("stream", "fma", "shared"):
        l = run(exe, kernel, preset)
        t, w = l["timing"], l["warp_instructions"]
        bounds = {
            "issue": w / (sms * subcores),
            "rf": (t["rf.bank_reads"] + t["rf.bank_writes"]) / (sms * subcores * banks),
            "smem": t["smem.accesses"] / sms,
            "dram": t["dram.bytes"] / peak_bytes,
        }
        what = max(bounds, key=bounds.get)
        print(f"{kernel:8} {l['cycles']:13d} " +
              " ".join(f"{bounds[k]:9.0f}" for k in ("issue", "rf", "smem", "dram")) +
              f" {bounds[what] / l['cycles']:8.0%}  {what}")

if __name__ == "__main__":
    main()
