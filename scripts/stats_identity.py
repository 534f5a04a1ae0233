#!/usr/bin/env python3
"""Snapshot the statistics of every sample under every register-file policy and preset,
or compare two snapshots: the proof that a change to the timing model's structure left
every figure as it was.

  scripts/stats_identity.py snapshot BUILD_DIR OUT_DIR [--jobs N] [--resume] [SAMPLE...]
  scripts/stats_identity.py compare OLD_DIR NEW_DIR [--new-keys]

snapshot runs each compiled sample of BUILD_DIR/samples in timing mode under each policy
of bench/memento_eval.py on its default preset (accelsim-rtx2060), under every other
mechanism (MECHANISMS: CABA, Zorua, WLM, the Locality Descriptor, XMem, HALCONE and the
simpler policies of the remaining slots) and under the baseline on every other preset,
and writes OUT_DIR/SAMPLE.PRESET.POLICY.json: the statistics JSON
with the host's own figures (host_seconds, host_cpu_seconds: this machine, not the model)
removed, keys sorted. With --resume, runs whose file OUT_DIR already holds are skipped
(an interrupted snapshot goes on where it stopped). compare reports every file that differs or exists on one side only
and exits 1 if any does; the files are otherwise byte-identical. With --new-keys, the
configuration keys and counters present on one side only (a change that added a key or
a counter whose default leaves everything as it was) are left out of the comparison;
every other value must still be equal.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
from functional import sample_names, strip_keys  # noqa: E402
from memento_eval import POLICIES  # noqa: E402

DEFAULT_PRESET = "accelsim-rtx2060"
OTHER_PRESETS = ["gtx480", "kepler", "maxwell"]
HOST_FIELDS = {"host_seconds", "host_cpu_seconds"}
# Every other mechanism, each as one (name, preset, settings): together with POLICIES they
# select every choice of every policy slot at least once.
MECHANISMS = [
    ("caba", DEFAULT_PRESET, "mem.transform=caba;caba.mode=caba;core.assist=caba"),
    ("caba-hw", DEFAULT_PRESET, "mem.transform=caba;caba.mode=hw;caba.algo=best"),
    ("zorua", DEFAULT_PRESET, "core.resource_mgr=zorua"),
    ("wlm", DEFAULT_PRESET, "core.resource_mgr=wlm"),
    ("ldesc", DEFAULT_PRESET, "ldesc.mode=all"),
    ("xmem", DEFAULT_PRESET, "xmem.mode=on"),
    ("slots", DEFAULT_PRESET, "l1.prefetch=stride;l2.prefetch=next-line;l1.insertion=bip;"
     "l2.insertion=lip;mem.observer=hints;mem.transform=zero;core.sched=two-level"),
    ("halcone", "halcone-mgpu", ""),
    # the simple coherence policies where programs still pass: a lease within one GPU's
    # L2, L2s emptied between kernels across GPUs (a fixed lease across GPUs' private L2s
    # lets programs read stale data and fail, as such hardware would)
    ("lease", DEFAULT_PRESET, "coherence=lease"),
    ("flush", "halcone-mgpu", "coherence=flush"),
    ("first-touch", "ldesc-numa", "numa.map=first-touch"),
    ("ldesc-numa", "ldesc-numa", "numa.map=ldesc;ldesc.mode=all"),
]


def one(build, name, preset, policy, overrides, out):
    exe = os.path.join(build, "samples", name)
    with tempfile.NamedTemporaryFile(suffix=".json") as stats:
        env = dict(os.environ, XGPU_STATS=stats.name, XGPU_MODE="timing",
                   XGPU_CONFIG=preset, XGPU_SET=overrides)
        r = subprocess.run([exe], env=env, capture_output=True, text=True)
        if r.returncode != 0 or "PASS" not in r.stdout:
            return f"{name} {preset} {policy}: exit {r.returncode}\n{r.stderr[-1000:]}"
        data = strip_keys(json.load(open(stats.name)), HOST_FIELDS)
    with open(os.path.join(out, f"{name}.{preset}.{policy}.json"), "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    return None


def snapshot(argv):
    jobs = os.cpu_count() or 2
    if "--jobs" in argv:
        i = argv.index("--jobs")
        jobs = int(argv[i + 1])
        del argv[i:i + 2]
    resume = "--resume" in argv
    argv = [a for a in argv if a != "--resume"]
    if len(argv) < 2:
        sys.exit(__doc__)
    build, out, names = argv[0], argv[1], sample_names(argv[2:])
    os.makedirs(out, exist_ok=True)
    work = [(n, DEFAULT_PRESET, p, ov) for n in names for p, ov in POLICIES]
    work += [(n, pr, m, ov) for n in names for m, pr, ov in MECHANISMS]
    work += [(n, pr, "baseline", "") for n in names for pr in OTHER_PRESETS]
    if resume:
        work = [w for w in work
                if not os.path.exists(os.path.join(out, f"{w[0]}.{w[1]}.{w[2]}.json"))]
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futs = [pool.submit(one, build, n, pr, p, ov, out) for n, pr, p, ov in work]
        for k, f in enumerate(concurrent.futures.as_completed(futs), 1):
            err = f.result()
            if err:
                failed.append(err)
            print(f"\r{k}/{len(work)} runs", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    for e in failed:
        print(e, file=sys.stderr)
    print(f"{len(work) - len(failed)} snapshots in {out}")
    return 1 if failed else 0


def common(x, y):
    """x and y without the object keys present in only one of them, recursively."""
    if isinstance(x, dict) and isinstance(y, dict):
        keys = x.keys() & y.keys()
        return ({k: common(x[k], y[k])[0] for k in keys},
                {k: common(x[k], y[k])[1] for k in keys})
    if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        pairs = [common(p, q) for p, q in zip(x, y)]
        return [p for p, _ in pairs], [q for _, q in pairs]
    return x, y


def compare(argv):
    new_keys = "--new-keys" in argv
    argv = [a for a in argv if a != "--new-keys"]
    if len(argv) != 2:
        sys.exit(__doc__)
    a, b = (set(os.listdir(d)) for d in argv)
    bad = [f"only in {argv[0]}: {f}" for f in sorted(a - b)]
    bad += [f"only in {argv[1]}: {f}" for f in sorted(b - a)]
    for f in sorted(a & b):
        x = open(os.path.join(argv[0], f), "rb").read()
        y = open(os.path.join(argv[1], f), "rb").read()
        if new_keys and x != y:
            x, y = (json.dumps(v, sort_keys=True).encode()
                    for v in common(json.loads(x), json.loads(y)))
        if x != y:
            bad.append(f"differs: {f}")
    for line in bad:
        print(line)
    print(f"{len(a & b)} files compared, {len(bad)} differences")
    return 1 if bad else 0


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("snapshot", "compare"):
        sys.exit(__doc__)
    return (snapshot if sys.argv[1] == "snapshot" else compare)(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
