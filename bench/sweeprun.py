"""What the evaluation scripts share (docs/sweeps.md): running their sweep with
xgpu-sweep, and reading every run's result back.

  run(build, sweep, res_dir, jobs, backend, extra, accept=(0,))
      runs BUILD/bin/xgpu-sweep on the sweep file into res_dir (--backend slurm sends it
      to a cluster; extra: more xgpu-sweep arguments); exits unless its status is in
      accept
  results(res_dir)
      every run of the sweep: (its result.json as a dict, its stdout as text)
  passing(res_dir, key)
      every run as (key(result), result), exiting with the run's output unless it exited 0
      and printed PASS (every sample does when its results are right)
"""
import glob
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
