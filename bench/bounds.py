#!/usr/bin/env python3
"""Compares the timing model's cycles with first-principles bounds of a preset.

Compiles bench/bounds.cu with the built xgpu-cc and runs its three kernels in timing
mode with the preset's configuration:
  stream  DRAM-bandwidth bound: bytes read from DRAM / peak DRAM bytes per core cycle,
          peak = channels * burst_bytes / burst_cycles * dram_clock / core_clock
  fma     issue bound: warp instructions / (SMs * sub-cores), one issue per sub-core per
          cycle (the fp32 pipe has initiation interval unit.fp.ii = 1)
  shared  the larger of the issue bound and the shared-memory bound: warp-level shared
          accesses / SMs (one conflict-free warp access per SM per cycle)
and prints the model's cycles, the bound, and the fraction of the bound achieved.

usage: bench/bounds.py [BUILD_DIR] [PRESET]     (default: build rtx2060-s)
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
    preset = sys.argv[2] if len(sys.argv) > 2 else "rtx2060-s"
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
    print(f"{'kernel':8} {'model cycles':>13} {'bound':>11} {'of bound':>9}  limit")
    for kernel in ("stream", "fma", "shared"):
        l = run(exe, kernel, preset)
        t, w = l["timing"], l["warp_instructions"]
        issue = w / (sms * subcores)
        if kernel == "stream":
            bound, what = t["dram.bytes"] / peak_bytes, "DRAM bandwidth"
        elif kernel == "fma":
            bound, what = issue, "issue (1 per sub-core per cycle)"
        else:
            smem = t["smem.accesses"] / sms
            bound, what = max(issue, smem), ("issue" if issue >= smem else "shared memory")
        print(f"{kernel:8} {l['cycles']:13d} {bound:11.0f} {bound / l['cycles']:8.0%}  {what}")


if __name__ == "__main__":
    main()
