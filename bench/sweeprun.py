"""What the evaluation scripts share (docs/sweeps.md): their command line, running their
sweep with xgpu-sweep, reading every run's result back, and the averages and formats of
their tables.

  arguments(doc, root)
      an argparse parser with the options every evaluation takes: BUILD_DIR (default
      root/build), --out, --jobs, --backend, --sweep-arg
  run(build, sweep, res_dir, jobs, backend, extra, accept=(0,))
      runs BUILD/bin/xgpu-sweep on the sweep file into res_dir (--backend slurm sends it
      to a cluster; extra: more xgpu-sweep arguments); exits unless its status is in
      accept
  results(res_dir)
      every run of the sweep: (its result.json as a dict, its stdout as text)
  passing(res_dir, key)
      every run as (key(result), result), exiting with the run's output unless it exited 0
      and printed PASS (every sample does when its results are right)
  ratio(a, b), mean(xs), geomean(xs), geomean_change(xs), pct(v, signed=True)
      a / b (None when b is 0); the arithmetic and geometric means of the values that are
      not None (geomean of ratios, geomean_change of changes such as speedup - 1), None
      when there are none; a change or fraction as "+1.2%" / "1.2%", "—" for None
"""
import argparse
import glob
import math
import json
import os
import subprocess
import sys


def run(build, sweep, res_dir, jobs, backend, extra, accept=(0,)):
    cmd = [os.path.join(build, "bin", "xgpu-sweep"), "run", sweep, "--out", res_dir,
           "--jobs", str(jobs)]
    if backend == "slurm":
        cmd += ["--backend", "slurm"]
    r = subprocess.run(cmd + list(extra))
    if r.returncode not in accept:
        sys.exit(f"{' '.join(cmd)}: exit {r.returncode}")


def results(res_dir):
    for path in sorted(glob.glob(os.path.join(res_dir, "runs", "*", "result.json"))):
        with open(path) as f:
            r = json.load(f)
        with open(os.path.join(os.path.dirname(path), "stdout.txt"), errors="replace") as f:
            yield r, f.read()


def passing(res_dir, key):
    for r, stdout in results(res_dir):
        k = key(r)
        if r["status"] != 0 or "PASS" not in stdout:
            sys.exit(f"{k}: failed\n{stdout[-2000:]}{r.get('stderr_tail') or ''}")
        yield k, r


def arguments(doc, root):
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("build", nargs="?", default=os.path.join(root, "build"))
    ap.add_argument("--out")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--backend", choices=["local", "slurm"], default="local")
    ap.add_argument("--sweep-arg", action="append", default=[])
    return ap


def ratio(a, b):
    return a / b if b else None


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def geomean(xs):
    xs = [x for x in xs if x is not None]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def geomean_change(xs):
    g = geomean([1 + x for x in xs if x is not None])
    return None if g is None else g - 1


def pct(v, signed=True):
    return "—" if v is None else (f"{100 * v:+.1f}%" if signed else f"{100 * v:.1f}%")
