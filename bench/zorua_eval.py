#!/usr/bin/env python3
"""Zorua evaluation: how much performance depends on the resource specification.

For each workload, every resource specification (5 block sizes x 3 register counts:
xgpu-cc's own allocation, --regs=48 and --regs=64) runs on the gtx480, kepler and
maxwell presets under core.resource_mgr = static, wlm and zorua (docs/zorua.md). The
runs are one sweep (tools/xgpu-sweep, docs/sweeps.md): every (workload, specification)
is a program compiled by xgpu-cc from its source, the axes are the preset and the
policy, so `--backend slurm` sends the whole evaluation to a cluster and a rerun skips
what is complete. Writes to OUT (default BUILD/zorua-eval):

  results.json   every run's cycles, schedulable warps, swap traffic and hit rates
  table.md       per workload and averaged: performance range, best specification,
                 porting loss, schedulable warps, beside the paper's headline numbers
  spread.svg/.pdf, spread-GPU.svg/.pdf
                 box plots of each workload's performance over its specifications,
                 normalized to its best point (as the paper's Fig. 36)

Definitions (per workload, preset and policy; performance = 1 / cycles):
  range     best / worst performance over the specifications - 1
  best      the best specification's performance against static's best, same preset
  porting   for every ordered pair of presets (source, target): the specifications
            within 5% of the best on the source; the largest drop, on the target, of
            their performance normalized to the target's best; the maximum over pairs
  warps     mean schedulable warps per SM (core.schedulable_warps), over specifications

A specification a GPU cannot launch (a CTA larger than an SM) is left out on that GPU,
under every policy alike. Every run must print PASS and issue the same warp
instructions under the three policies.

usage: bench/zorua_eval.py [BUILD_DIR] [--out DIR] [--jobs N] [--backend local|slurm]
                           [--sweep-arg ARG]... [WORKLOAD...]
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plots as mpl  # noqa: E402
import sweeprun  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

PRESETS = ["gtx480", "kepler", "maxwell"]
POLICIES = ["static", "wlm", "zorua"]
REGS = [0, 48, 64]  # 0: xgpu-cc's own allocation; else xgpu-cc --regs=N (given N)

# name -> (sample, block sizes, how a block size becomes flags and arguments)
WORKLOADS = {
    "dct8x8": ("dct8x8", [64, 128, 256, 512, 1024],
               lambda b: ([], ["128", "128", str(b // 64)])),
    "nqueens": ("nqueens", [32, 64, 128, 192, 256], lambda b: ([], ["11", str(b), "5"])),
    "reduction": ("reduction", [64, 128, 256, 512, 1024],
                  lambda b: ([f"-DBLOCK={b}"], ["65536"])),
    "scan": ("scan", [64, 128, 256, 512, 1024], lambda b: ([f"-DBLOCK={b}"], ["65536"])),
    "spmv": ("spmv", [64, 128, 256, 512, 1024], lambda b: ([f"-DBLOCK={b}"], ["1500", "2"])),
    "sssp": ("sssp", [64, 128, 256, 512, 1024], lambda b: ([], ["20000", "6", str(b)])),
    "mst": ("mst", [64, 128, 256, 512, 1024], lambda b: ([], ["20000", "4", str(b)])),
    # 32 stack entries per thread: the scratchpad per block grows with the block
    "barneshut": ("barneshut", [32, 64, 128, 256, 384],
                  lambda b: ([], ["8192", str(b), "32"])),
}

# How the runtime refuses a launch that does not fit an SM (docs/runtime.md).
REFUSED = re.compile(r"xgpu: kernel \S+: .* exceeds? .*")

# The paper's headline figures (Vijaykumar et al., MICRO 2016; docs/zorua.md).
PAPER = {
    "range": {"static": 96.6, "wlm": 88.3, "zorua": 48.2},
    "porting": {"static": 52.7, "wlm": 51.0, "zorua": 23.9},
    "best": {"zorua": 12.8},
    "warps": {"wlm": 8.1, "zorua": 32.8},
}


def program_name(w, block, regs):
    return f"{w}.b{block}.r{regs or 'auto'}"


def sweep_file(path, workloads):
    lines = ['mode = "timing"', "timeout = 1800", "[axes]",
             "preset = [" + ", ".join(json.dumps(p) for p in PRESETS) + "]",
             '"core.resource_mgr" = [' + ", ".join(json.dumps(p) for p in POLICIES) + "]"]
    for w in workloads:
        sample, blocks, spec = WORKLOADS[w]
        for b in blocks:
            for r in REGS:
                flags, args = spec(b)
                flags = ["-O2"] + flags + ([f"--regs={r}"] if r else [])
                lines += ["", "[[program]]", f"name = {json.dumps(program_name(w, b, r))}",
                          f"source = {json.dumps(os.path.join(ROOT, 'samples', sample + '.cu'))}",
                          f"flags = {json.dumps(flags)}", f"args = {json.dumps(args)}"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def load_runs(res_dir):
    """{(program, preset, policy): figures, or a string saying why it could not run}."""
    out = {}
    for r, stdout in sweeprun.results(res_dir):
        key = (r["program"], r["params"]["preset"], r["params"]["core.resource_mgr"])
        if r["status"] == 0 and "PASS" in stdout:
            t = r["stats"]["totals"]
            tm = t.get("timing") or {}
            out[key] = {"cycles": t["cycles"], "warp_instructions": t["warp_instructions"],
                        "warps": tm.get("core.schedulable_warps"),
                        "occupancy": tm.get("occupancy"),
                        "swap_bytes": tm.get("zorua.swap_bytes"),
                        "rf_hit_rate": tm.get("zorua.rf_hit_rate"),
                        "smem_hit_rate": tm.get("zorua.smem_hit_rate"),
                        "forced": tm.get("zorua.forced_oversubscriptions")}
        elif REFUSED.search(r.get("stderr_tail") or ""):
            # the launch was refused: the specification does not fit this GPU
            out[key] = REFUSED.search(r["stderr_tail"]).group(0)
        else:
            sys.exit(f"{key}: failed\n{stdout[-2000:]}{r.get('stderr_tail') or ''}")
    return out


def per_workload(runs, w):
    """The figures of workload w: {policy: {preset: {spec: cycles}}}, and the figures."""
    _, blocks, _ = WORKLOADS[w]
    specs = [program_name(w, b, r) for b in blocks for r in REGS]
    cyc = {p: {g: {} for g in PRESETS} for p in POLICIES}
    warps = {p: [] for p in POLICIES}
    hits = {"rf_hit_rate": [], "smem_hit_rate": []}
    for s in specs:
        for g in PRESETS:
            got = {p: runs.get((s, g, p)) for p in POLICIES}
            if any(v is None for v in got.values()):
                sys.exit(f"{s} on {g}: missing runs")
            ok = [p for p in POLICIES if isinstance(got[p], dict)]
            if ok and len(ok) != len(POLICIES):
                sys.exit(f"{s} on {g}: runs under {ok} only: {got}")
            if not ok:
                continue
            insns = {got[p]["warp_instructions"] for p in POLICIES}
            if len(insns) != 1:
                sys.exit(f"{s} on {g}: warp instructions differ between policies: {got}")
            for p in POLICIES:
                cyc[p][g][s] = got[p]["cycles"]
                if got[p]["warps"] is not None:
                    warps[p].append(got[p]["warps"])
            for h in hits:
                if got["zorua"].get(h) is not None:
                    hits[h].append(got["zorua"][h])
    fig = {}
    for p in POLICIES:
        rng, best, norm = [], [], {}
        for g in PRESETS:
            c = cyc[p][g]
            if not c:
                continue
            rng.append(max(c.values()) / min(c.values()) - 1)
            best.append(min(cyc["static"][g].values()) / min(c.values()) - 1)
            norm[g] = {s: min(c.values()) / v for s, v in c.items()}  # 1 = best
        port = 0.0
        for src in norm:
            for dst in norm:
                if src == dst:
                    continue
                good = [s for s, v in norm[src].items() if v >= 0.95 and s in norm[dst]]
                for s in good:
                    port = max(port, 1 - norm[dst][s])
        fig[p] = {"range": 100 * sum(rng) / len(rng), "best": 100 * sum(best) / len(best),
                  "porting": 100 * port,
                  "warps": sum(warps[p]) / len(warps[p]) if warps[p] else None,
                  "norm": norm}
    for h, v in hits.items():  # zorua's on-chip hit rates, over its specifications
        fig["zorua"][h] = 100 * sum(v) / len(v) if v else None
    return fig


def fmt(v, signed=False):
    if v is None:
        return "n/a"
    return f"{v:+.1f}%" if signed else f"{v:.1f}%"


def write_table(path, figs, infeasible):
    avg = {p: {k: sum(f[p][k] for f in figs.values()) / len(figs)
               for k in ("range", "best", "porting")} for p in POLICIES}
    for p in POLICIES:
        ws = [f[p]["warps"] / f["static"]["warps"] - 1 for f in figs.values()
              if f[p]["warps"] and f["static"]["warps"]]
        avg[p]["warps"] = 100 * sum(ws) / len(ws) if ws else None
    lines = ["# Zorua evaluation", "",
             "Generated by `bench/zorua_eval.py` (docs/zorua.md). Specifications: "
             f"{len(REGS)} register counts x 5 block sizes per workload; presets "
             f"{', '.join(PRESETS)}.", "",
             "## Averages over the workloads", "",
             "| figure | paper static | static | paper wlm | wlm | paper zorua | zorua |",
             "|---|---|---|---|---|---|---|"]
    names = {"range": "performance range (best / worst - 1)",
             "porting": "maximum porting performance loss",
             "best": "best specification vs static's best",
             "warps": "schedulable warps vs static"}
    for k in ("range", "porting", "best", "warps"):
        cells = []
        for p in POLICIES:
            paper = PAPER[k].get(p)
            cells += [fmt(paper, k in ("best", "warps")) if paper is not None else "—",
                      fmt(avg[p][k], k in ("best", "warps"))]
        lines.append(f"| {names[k]} | " + " | ".join(cells) + " |")
    rates = []
    for h in ("rf_hit_rate", "smem_hit_rate"):
        v = [f["zorua"][h] for f in figs.values() if f["zorua"].get(h) is not None]
        rates.append(sum(v) / len(v) if v else None)
    lines.append(f"| on-chip hit rate, registers / scratchpad | — | — | — | — | 98.9% / 99.6% "
                 f"| {' / '.join('n/a' if r is None else f'{r:.3f}%' for r in rates)} |")
    lines += ["", "## Per workload", "",
              "| workload | " + " | ".join(f"{p} range" for p in POLICIES) + " | " +
              " | ".join(f"{p} porting" for p in POLICIES) +
              " | wlm best | zorua best | static warps | wlm warps | zorua warps |",
              "|---" * 12 + "|"]
    for w, f in figs.items():
        lines.append(f"| {w} | " + " | ".join(fmt(f[p]["range"]) for p in POLICIES) + " | " +
                     " | ".join(fmt(f[p]["porting"]) for p in POLICIES) + " | " +
                     fmt(f["wlm"]["best"], True) + " | " + fmt(f["zorua"]["best"], True) +
                     " | " + " | ".join(f"{f[p]['warps']:.1f}" if f[p]["warps"] else "n/a"
                                        for p in POLICIES) + " |")
    if infeasible:
        lines += ["", "Specifications a preset cannot launch (left out there):", ""]
        lines += [f"* {s} on {g}" for s, g in sorted(infeasible)]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return avg


def boxes(path, title, figs, presets):
    import matplotlib.pyplot as plt  # plots (imported above) chose the backend
    fig, ax = plt.subplots(figsize=(10, 4.2))
    data, pos, ticks = [], [], []
    for i, w in enumerate(figs):
        for j, p in enumerate(POLICIES):
            vals = [v for g in presets for v in figs[w][p]["norm"].get(g, {}).values()]
            data.append(vals or [float("nan")])
            pos.append(i * (len(POLICIES) + 1) + j)
        ticks.append(i * (len(POLICIES) + 1) + 1)
    bp = ax.boxplot(data, positions=pos, widths=0.8, patch_artist=True)
    colors = ["#4477aa", "#ddaa33", "#bb5566"]
    for k, b in enumerate(bp["boxes"]):
        b.set_facecolor(colors[k % len(POLICIES)])
    ax.set_xticks(ticks, list(figs), rotation=30, ha="right")
    ax.set_ylabel("performance / best specification")
    ax.set_title(title)
    ax.legend([bp["boxes"][k] for k in range(len(POLICIES))], POLICIES, fontsize="small")
    mpl._save(fig, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"))
    ap.add_argument("workloads", nargs="*")
    ap.add_argument("--out")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--backend", choices=["local", "slurm"], default="local")
    ap.add_argument("--sweep-arg", action="append", default=[])
    a = ap.parse_args()
    if a.build in WORKLOADS:  # a workload given without a build directory
        a.workloads.insert(0, a.build)
        a.build = os.path.join(ROOT, "build")
    workloads = a.workloads or list(WORKLOADS)
    for w in workloads:
        if w not in WORKLOADS:
            sys.exit(f"zorua_eval: unknown workload '{w}' (known: {', '.join(WORKLOADS)})")
    out = os.path.abspath(a.out or os.path.join(a.build, "zorua-eval"))
    os.makedirs(out, exist_ok=True)
    sweep = os.path.join(out, "zorua.toml")
    sweep_file(sweep, workloads)
    res_dir = os.path.join(out, "sweep")
    # status 1: some runs failed (specifications that do not fit)
    sweeprun.run(a.build, sweep, res_dir, a.jobs, a.backend, a.sweep_arg, accept=(0, 1))
    runs = load_runs(res_dir)
    infeasible = {(k[0], k[1]) for k, v in runs.items() if isinstance(v, str)}
    figs = {w: per_workload(runs, w) for w in workloads}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"runs": {"|".join(k): v for k, v in sorted(runs.items())},
                   "figures": {w: {p: {k: v for k, v in f[p].items() if k != "norm"}
                                   for p in POLICIES} for w, f in figs.items()}},
                  f, indent=1, sort_keys=True)
    avg = write_table(os.path.join(out, "table.md"), figs, infeasible)
    boxes(os.path.join(out, "spread.svg"), "performance over the specifications, all presets",
          figs, PRESETS)
    for g in PRESETS:
        boxes(os.path.join(out, f"spread-{g}.svg"), f"performance over the specifications, {g}",
              figs, [g])
    for p in POLICIES:
        print(f"{p:7s} range {fmt(avg[p]['range'])}  porting {fmt(avg[p]['porting'])}  "
              f"best {fmt(avg[p]['best'], True)}  warps {fmt(avg[p]['warps'], True)}")
    print(f"table: {os.path.join(out, 'table.md')}")


if __name__ == "__main__":
    main()
