#!/usr/bin/env python3
"""Memento evaluation: every sample under the baseline and each register-file policy.

Runs every compiled sample in timing mode on a preset (default accelsim-rtx2060) under each
policy below, with the compiler's static reuse bits and (unless --no-profile) with
profiled ones, and writes to OUT (default BUILD/memento-eval):

  results.json   every run's figures (IPC, cycles, bank reads, CT hit ratio, RF energy)
  table.md       per-sample table and the averages beside the paper's headline numbers
  *.svg, *.pdf   IPC normalized to the baseline, bank-read reduction, CT hit ratio, RF
                 dynamic energy (and with --sweeps the sensitivity curves), drawn with
                 matplotlib

Each run must print PASS and issue exactly the warp instructions of the baseline run of
the same binary (timing never changes what executes). A policy the emulator rejects
(not implemented in this build) is reported and left out. With profiled bits only the
policies whose timing reads the bits run (USES_BITS). The two-level policies (rfc,
swrfc) also report the share of issue slots lost while a pending warp was ready.

Profiled bits: the static binary runs once in functional mode with XGPU_REUSE_PROFILE,
then the sample is recompiled with `xgpu-cc --reuse-profile`.

--sweeps adds, under memento with static bits: collectors (CCUs) per sub-core 2..8,
cache-table entries 6/8/12, a fixed STHLD 0..8, RTHLD 4..20 (recompiling), the STHLD
interval 5k..20k cycles and the S/L boundary 0.01..0.05; and the baseline with 2, 4 and 8
plain collectors per sub-core (the paper's motivation).

The runs go through xgpu-sweep (docs/sweeps.md): each group of runs is a sweep file
OUT/sweeps/NAME.toml run into OUT/sweeps/NAME, so an interrupted evaluation rerun skips
what is complete, and --backend slurm sends every group to a Slurm cluster as an array
job (--sweep-arg ARG passes ARG on to `xgpu-sweep run`, e.g. --sweep-arg=--partition=gpu).
Compiling and profiling stay on this machine.

With --docs the charts docs/memento.md shows are also copied into docs/ (memento-*.svg).

usage: bench/memento_eval.py [BUILD_DIR] [--out DIR] [--config PRESET] [--no-profile]
                             [--sweeps] [--docs] [--jobs N] [--backend local|slurm]
                             [--sweep-arg ARG]... [SAMPLE...]
"""
import concurrent.futures
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plots as mpl  # noqa: E402
from functional import geomean, sample_names  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

MEMENTO = "rf.collector=ccu;core.sched=memento"
# name -> XGPU_SET overrides on top of the preset (the preset is the baseline: 2 OCUs, GTO)
POLICIES = [
    ("baseline", ""),
    ("memento", MEMENTO),
    ("memento-pr", "rf.collector=ccu;core.sched=memento-pr"),
    ("bow", "rf.collector=bow"),
    ("rfc", "core.sched=rfc;core.sched_active=2"),
    ("swrfc", "core.sched=swrfc;core.sched_active=2"),
    # Memento variants (docs/memento.md): the paper's STHLD state machine without xgpu's
    # knee detector, a fixed STHLD of 0 (never wait for an old owner), and a CT write
    # port that takes one register per cycle (half of a 64-bit result)
    ("memento-fsm", f"{MEMENTO};memento.sthld_knee=false"),
    ("memento-sthld0", f"{MEMENTO};memento.sthld=0"),
    ("memento-regport", f"{MEMENTO};rf.ct_write_port=register"),
]
# Policies whose timing reads the reuse bits; the others run with static bits only (their
# runs with profiled bits would repeat them exactly).
USES_BITS = {"baseline", "memento", "memento-pr", "swrfc", "memento-fsm", "memento-sthld0",
             "memento-regport"}

# The paper's headline figures (docs/memento.md), against ours.
PAPER = {
    "bank reads vs baseline (memento)": "-46.4%",
    "CT hit ratio (memento)": "46.4%",
    "IPC vs baseline (memento)": "+6.1%",
    "RF dynamic energy vs baseline (memento)": "-28.3%",
    "IPC vs baseline (bow)": "2.43% above Memento (about +8.7%)",
    "IPC vs baseline (memento-pr)": "3.3% above BOW (about +12%)",
    "IPC vs baseline (rfc)": "-9.9%",
    "IPC vs baseline (swrfc)": "-12.9%",
    "issue slots lost with a ready warp pending (rfc)": "37.6% of cycles",
    "issue slots lost with a ready warp pending (swrfc)": "43.8% of cycles",
}

# (title, key, values, what the key is set on top of): Memento's parameters, and the
# baseline's collectors (the paper's motivation: 2 -> 8 OCUs gives +7.1%)
SWEEPS = [
    ("collectors per sub-core (CCUs)", "rf.collectors_per_subcore", [2, 4, 6, 8], MEMENTO),
    ("cache-table entries", "rf.ct_entries", [6, 8, 12], MEMENTO),
    ("fixed STHLD", "memento.sthld", [0, 1, 2, 4, 8], MEMENTO),
    ("STHLD interval (cycles)", "memento.interval", [5000, 10000, 20000], MEMENTO),
    ("S/L boundary", "memento.sl_boundary", [0.01, 0.02, 0.05], MEMENTO),
    ("baseline collectors per sub-core (OCUs)", "rf.collectors_per_subcore", [2, 4, 8], ""),
]
RTHLDS = [4, 8, 12, 16, 20]
# --docs: (chart in OUT, its copy in docs/)
DOC_PLOTS = [("ipc-static.svg", "memento-ipc.svg"),
             ("ct_hits-static.svg", "memento-hits.svg"),
             ("sweep-baseline_collectors_per_sub-core.svg", "memento-ocus.svg"),
             ("sweep-fixed_STHLD.svg", "memento-sthld.svg")]


def run(exe, preset, overrides, mode="timing", profile=None):
    """One run of a sample binary; returns the stats JSON, or raises RuntimeError with the
    program's output (a rejected configuration shows up here)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as stats:
        env = dict(os.environ, XGPU_STATS=stats.name, XGPU_MODE=mode, XGPU_CONFIG=preset,
                   XGPU_SET=overrides)
        if profile:
            env["XGPU_REUSE_PROFILE"] = profile
        out = subprocess.run([exe], env=env, capture_output=True, text=True)
        if out.returncode != 0 or "PASS" not in out.stdout:
            raise RuntimeError(f"{exe} [{overrides}]: exit {out.returncode}\n"
                               f"{out.stdout[-2000:]}{out.stderr[-2000:]}")
        return json.load(open(stats.name))


def figures(data):
    t = data["totals"]
    tm = t.get("timing") or {}
    return {
        "warp_instructions": t["warp_instructions"],
        "cycles": t["cycles"],
        "ipc": t["ipc"],
        "bank_reads": tm.get("rf.bank_reads"),
        "ct_hit_rate": tm.get("rf.ct_hit_rate"),
        "rf_energy": tm.get("energy.rf_dynamic"),
        "energy_placeholder": tm.get("energy.placeholder"),
        "pending_ready": tm.get("twolevel.pending_ready_fraction"),
    }


def compile_sample(build, name, out_exe, flags):
    cc = os.path.join(build, "bin", "xgpu-cc")
    src = os.path.join(ROOT, "samples", name + ".cu")
    r = subprocess.run([cc, "-O2", "-g"] + flags + [src, "-o", out_exe], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError(f"xgpu-cc {' '.join(flags)} {name}:\n{r.stderr[-2000:]}")
    return out_exe


def profiled_binary(build, out, name, preset):
    prof = os.path.join(out, "prof", name + ".prof")
    run(os.path.join(build, "samples", name), preset, "", mode="functional", profile=prof)
    return compile_sample(build, name, os.path.join(out, "bin", name + "-prof"),
                          ["--reuse-profile=" + prof])


def pct(new, old):
    return (new / old - 1.0) * 100.0 if old else None


def toml_str(v):
    return json.dumps(str(v))  # a JSON string is a TOML basic string


class Eval:
    """Runs the evaluation's runs as sweeps (tools/xgpu-sweep, docs/sweeps.md): locally
    on `jobs` workers, or with --backend slurm as Slurm array jobs."""

    def __init__(self, build, out, preset, jobs, sweep_args):
        self.build, self.out, self.preset = build, out, preset
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
        self.jobs, self.sweep_args = jobs, sweep_args
        self.rejected = {}

    def runs(self, label, jobs):
        """jobs: list of (key, exe, overrides); returns {key: figures or None}. The runs
        are the sweep OUT/sweeps/LABEL.toml, run into OUT/sweeps/LABEL (a rerun of the
        evaluation skips the runs already complete there)."""
        progs = {}  # exe -> its points
        for _, exe, ov in jobs:
            point = dict(kv.split("=", 1) for kv in ov.split(";") if kv)
            pts = progs.setdefault(exe, [])
            if point not in pts:
                pts.append(point)
        lines = [f"mode = \"timing\"", "[axes]", f"preset = [{toml_str(self.preset)}]"]
        for exe, pts in progs.items():
            lines += ["", "[[program]]", f"name = {toml_str(os.path.basename(exe))}",
                      f"command = [{toml_str(os.path.abspath(exe))}]"]
            for pt in pts:
                lines.append("[[program.point]]")
                lines += [f"{toml_str(k)} = {toml_str(v)}" for k, v in pt.items()]
        sweep_dir = os.path.join(self.out, "sweeps")
        os.makedirs(sweep_dir, exist_ok=True)
        path = os.path.join(sweep_dir, label + ".toml")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        res_dir = os.path.join(sweep_dir, label)
        cmd = [os.path.join(self.build, "bin", "xgpu-sweep"), "run", path, "--out", res_dir]
        cmd += self.sweep_args
        r = subprocess.run(cmd)
        if r.returncode not in (0, 1):  # 1: some runs failed, looked at below
            sys.exit(f"{' '.join(cmd)}: exit {r.returncode}")
        results = {}
        for rd in glob.glob(os.path.join(res_dir, "runs", "*", "result.json")):
            with open(rd) as f:
                result = json.load(f)
            params = {k: v for k, v in result["params"].items() if k != "preset"}
            results[(result["program"], json.dumps(params, sort_keys=True))] = \
                (result, os.path.dirname(rd))
        res = {}
        for key, exe, ov in jobs:
            point = dict(kv.split("=", 1) for kv in ov.split(";") if kv)
            found = results.get((os.path.basename(exe), json.dumps(point, sort_keys=True)))
            if not found:
                sys.exit(f"{label}: no result for {exe} [{ov}] in {res_dir}")
            result, rd = found
            stdout = open(os.path.join(rd, "stdout.txt"), errors="replace").read()
            if result["status"] == 0 and "PASS" in stdout:
                res[key] = figures(result["stats"])
                continue
            msg = result.get("stderr_tail") or ""
            why = [l for l in msg.splitlines() if "cannot create the device" in l]
            if why:  # the configuration was refused before anything ran
                self.rejected[ov] = why[0].split("device: ", 1)[-1]
                res[key] = None
            else:
                sys.exit(f"{exe} [{ov}]: exit {result['status']} "
                         f"{result.get('error', '')}\n{stdout[-2000:]}{msg}")
        return res


def check_counts(results, names, bits):
    for name in names:
        base = results[(name, bits, "baseline")]
        for (n, b, pol), fig in results.items():
            if n == name and b == bits and fig and \
                    fig["warp_instructions"] != base["warp_instructions"]:
                sys.exit(f"{name} ({bits} bits) under {pol}: {fig['warp_instructions']} warp "
                         f"instructions, baseline {base['warp_instructions']}")


def averages(results, names, bits, pol):
    rows = [(results.get((n, bits, pol)), results[(n, bits, "baseline")]) for n in names]
    rows = [(f, b) for f, b in rows if f]
    if not rows:
        return None
    ipc = geomean([f["ipc"] / b["ipc"] for f, b in rows if f["ipc"] and b["ipc"]])
    reads = [pct(f["bank_reads"], b["bank_reads"]) for f, b in rows if b["bank_reads"]]
    energy = [pct(f["rf_energy"], b["rf_energy"]) for f, b in rows
              if f["rf_energy"] is not None and b["rf_energy"]]
    hits = [f["ct_hit_rate"] for f, _ in rows if f["ct_hit_rate"] is not None]
    pend = [f["pending_ready"] for f, _ in rows if f.get("pending_ready") is not None]
    return {
        "pending_ready": sum(pend) / len(pend) if pend else None,
        "ipc_vs_baseline": (ipc - 1.0) * 100.0,
        "bank_reads_vs_baseline": sum(reads) / len(reads) if reads else None,
        "rf_energy_vs_baseline": sum(energy) / len(energy) if energy else None,
        "ct_hit_rate": sum(hits) / len(hits) if hits else None,
    }


def fmt(v, unit="%", signed=True):
    if v is None:
        return "n/a"
    return f"{v:+.1f}{unit}" if signed else f"{v:.1f}{unit}"


def write_table(path, results, names, policies, bits_list, avgs, preset, rejected):
    lines = [f"# Memento evaluation (preset {preset})", ""]
    for bits in bits_list:
        lines += [f"## {bits} reuse bits", "",
                  "| sample | " + " | ".join(f"{p} IPC / base" for p in policies) +
                  " | memento bank reads | memento CT hits | memento RF energy |",
                  "|---" * (len(policies) + 4) + "|"]
        for n in names:
            b = results[(n, bits, "baseline")]
            cells = []
            for p in policies:
                f = results.get((n, bits, p))
                cells.append(f"{f['ipc'] / b['ipc']:.3f}" if f and b["ipc"] else "n/a")
            m = results.get((n, bits, "memento"))
            cells.append(fmt(pct(m["bank_reads"], b["bank_reads"])) if m else "n/a")
            cells.append(fmt(m["ct_hit_rate"] * 100, signed=False)
                         if m and m["ct_hit_rate"] is not None else "n/a")
            cells.append(fmt(pct(m["rf_energy"], b["rf_energy"]))
                         if m and m["rf_energy"] is not None and b["rf_energy"] else "n/a")
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
        lines.append("")
        lines += ["| average | IPC vs baseline (geomean) | bank reads | RF energy | "
                  "register-cache hit ratio | slots lost, ready warp pending |",
                  "|---|---|---|---|---|---|"]
        for p in policies[1:]:
            a = avgs.get((bits, p))
            if a:
                pend = a["pending_ready"] if p in ("rfc", "swrfc") else None
                lines.append(f"| {p} | {fmt(a['ipc_vs_baseline'])} | "
                             f"{fmt(a['bank_reads_vs_baseline'])} | "
                             f"{fmt(a['rf_energy_vs_baseline'])} | "
                             f"{fmt(a['ct_hit_rate'] and a['ct_hit_rate'] * 100, signed=False)} | "
                             f"{fmt(pend and pend * 100, signed=False)} |")
        lines.append("")
    a = avgs.get(("static", "memento")) or {}
    ours = {
        "bank reads vs baseline (memento)": fmt(a.get("bank_reads_vs_baseline")),
        "CT hit ratio (memento)": fmt(a.get("ct_hit_rate") and a["ct_hit_rate"] * 100,
                                      signed=False),
        "IPC vs baseline (memento)": fmt(a.get("ipc_vs_baseline")),
        "RF dynamic energy vs baseline (memento)": fmt(a.get("rf_energy_vs_baseline")),
    }
    for p in ("bow", "memento-pr", "rfc", "swrfc"):
        ap = avgs.get(("static", p))
        ours[f"IPC vs baseline ({p})"] = fmt(ap["ipc_vs_baseline"]) if ap else "not run"
        if p in ("rfc", "swrfc") and ap:
            ours[f"issue slots lost with a ready warp pending ({p})"] = \
                fmt(ap["pending_ready"] and ap["pending_ready"] * 100, signed=False)
    lines += ["## Beside the paper (static bits)", "", "| figure | paper | ours |",
              "|---|---|---|"]
    lines += [f"| {k} | {v} | {ours.get(k, 'n/a')} |" for k, v in PAPER.items()]
    if rejected:
        lines += ["", "Policies the emulator rejected (left out):", ""]
        lines += [f"- `{ov}`: {msg}" for ov, msg in sorted(rejected.items())]
    open(path, "w").write("\n".join(lines) + "\n")


def plots(out, results, names, policies, bits):
    shown = [p for p in policies[1:] if any(results.get((n, bits, p)) for n in names)]

    def series(fn):
        vals = []
        for p in shown:
            row = []
            for n in names:
                f, b = results.get((n, bits, p)), results[(n, bits, "baseline")]
                row.append(fn(f, b) if f else None)
            vals.append(row)
        return vals

    charts = {
        "ipc": ("IPC normalized to the baseline", "IPC / baseline",
                lambda f, b: f["ipc"] / b["ipc"] if b["ipc"] else None, 1.0),
        "bank_reads": ("RF bank reads against the baseline", "change (%)",
                       lambda f, b: pct(f["bank_reads"], b["bank_reads"]), None),
        "ct_hits": ("Cache-table hit ratio", "hit ratio (%)",
                    lambda f, b: f["ct_hit_rate"] * 100 if f["ct_hit_rate"] is not None
                    else None, None),
        "energy": ("RF dynamic energy against the baseline (placeholder energies)",
                   "change (%)", lambda f, b: pct(f["rf_energy"], b["rf_energy"])
                   if f["rf_energy"] is not None and b["rf_energy"] else None, None),
    }
    for key, (title, ylabel, fn, base) in charts.items():
        mpl.bars(os.path.join(out, f"{key}-{bits}.svg"), f"{title} ({bits} bits)", ylabel,
                   names, shown, series(fn), base)


def sweeps(ev, names, base_results):
    curves = {}
    for title, key, values, on in SWEEPS:
        jobs = [((n, v), os.path.join(ev.build, "samples", n), f"{on};{key}={v}" if on
                 else f"{key}={v}") for n in names for v in values]
        slug = title.split(" (")[0].replace(" ", "_").replace("/", "")
        res = ev.runs(f"sweep-{slug}", jobs)
        curves[title] = (values, res)
    exes = {}
    for r in RTHLDS:
        for n in names:
            exes[(n, r)] = compile_sample(ev.build, n, os.path.join(ev.out, "bin",
                                                                    f"{n}-rthld{r}"),
                                          [f"--rthld={r}"])
    jobs = [((n, r), exes[(n, r)], MEMENTO) for n in names for r in RTHLDS]
    curves["RTHLD"] = (RTHLDS, ev.runs("sweep-RTHLD", jobs))
    summary = {}
    for title, (values, res) in curves.items():
        ipc, reads = [], []
        for v in values:
            pts = [(res[(n, v)], base_results[(n, "static", "baseline")]) for n in names
                   if res.get((n, v))]
            ipc.append(geomean([f["ipc"] / b["ipc"] for f, b in pts]))
            rd = [pct(f["bank_reads"], b["bank_reads"]) for f, b in pts if b["bank_reads"]]
            reads.append(sum(rd) / len(rd) if rd else None)
        summary[title] = {"values": values, "ipc_vs_baseline": ipc,
                          "bank_reads_vs_baseline": reads}
        slug = title.split(" (")[0].replace(" ", "_").replace("/", "")
        mpl.lines(os.path.join(ev.out, f"sweep-{slug}.svg"),
                  title if title.startswith("baseline") else f"memento: {title}", title,
                    "IPC / baseline (geomean)", values, ["IPC / baseline"], [ipc])
    return summary


def main():
    args = sys.argv[1:]
    build = args.pop(0) if args and not args[0].startswith("-") else "build"
    out, preset, profile, do_sweeps, jobs = None, "accelsim-rtx2060", True, False, os.cpu_count()
    docs = False
    sweep_args = []
    rest = []
    while args:
        a = args.pop(0)
        if a == "--out":
            out = args.pop(0)
        elif a == "--config":
            preset = args.pop(0)
        elif a == "--no-profile":
            profile = False
        elif a == "--sweeps":
            do_sweeps = True
        elif a == "--docs":
            docs = True
        elif a == "--jobs":
            jobs = int(args.pop(0))
        elif a == "--backend":
            sweep_args += ["--backend", args.pop(0)]
        elif a == "--sweep-arg":
            sweep_args.append(args.pop(0))
        elif a.startswith("--sweep-arg="):
            sweep_args.append(a.split("=", 1)[1])
        elif a.startswith("-"):
            sys.exit(f"unknown option {a}\n{__doc__}")
        else:
            rest.append(a)
    out = out or os.path.join(build, "memento-eval")
    for d in ("", "prof", "bin"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    names = sample_names(rest)
    if "slurm" not in sweep_args:
        sweep_args += ["--jobs", str(jobs)]
    ev = Eval(build, out, preset, jobs, sweep_args)
    binaries = {(n, "static"): os.path.join(build, "samples", n) for n in names}
    bits_list = ["static"]
    if profile:
        bits_list.append("profiled")
        futs = {n: ev.pool.submit(profiled_binary, build, out, n, preset) for n in names}
        for n, f in futs.items():
            binaries[(n, "profiled")] = f.result()
    jobs_ = [((n, b, p), binaries[(n, b)], ov) for n in names for b in bits_list
             for p, ov in POLICIES if b == "static" or p in USES_BITS]
    results = ev.runs("policies", jobs_)
    policies = [p for p, _ in POLICIES]
    avgs = {}
    for b in bits_list:
        check_counts(results, names, b)
        for p in policies[1:]:
            avgs[(b, p)] = averages(results, names, b, p)
        plots(out, results, names, policies, b)
    summary = sweeps(ev, names, results) if do_sweeps else None
    write_table(os.path.join(out, "table.md"), results, names, policies, bits_list, avgs,
                preset, ev.rejected)
    json.dump({"preset": preset,
               "runs": [{"sample": n, "bits": b, "policy": p, **f}
                        for (n, b, p), f in sorted(results.items()) if f],
               "averages": [{"bits": b, "policy": p, **a} for (b, p), a in sorted(avgs.items())
                            if a],
               "sweeps": summary, "rejected": ev.rejected},
              open(os.path.join(out, "results.json"), "w"), indent=1)
    if docs:  # the charts docs/memento.md shows
        for src, dst in DOC_PLOTS:
            if os.path.exists(os.path.join(out, src)):
                shutil.copyfile(os.path.join(out, src), os.path.join(ROOT, "docs", dst))
    print(open(os.path.join(out, "table.md")).read())
    print(f"written to {out}")


if __name__ == "__main__":
    main()
