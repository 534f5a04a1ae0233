#!/usr/bin/env python3
"""Locality Descriptor and XMem evaluation, on gtx480.

Every run is timing mode on the gtx480 preset (the papers' single-chip GPU,
docs/presets.md) with the hints observer (mem.observer = hints: per-structure hit rates
and each SM's working set; it changes no cycle). Three parts, one sweep
(tools/xgpu-sweep, docs/sweeps.md), so `--backend slurm` sends the whole evaluation to a
cluster and a rerun skips what is complete:

  ldesc   every Locality Descriptor sample, at two input sizes, under ldesc.mode = off
          (baseline), cta, cache and all (docs/ldesc.md)
  tiling  XMem's tiling experiment: xmem_tile over tile sizes from well inside to well
          beyond the 16 KB L1, xmem.mode = off and cache (docs/xmem.md)
  dram    XMem's DRAM placement: the atom-annotated streaming kernels, xmem.mode = off and
          dram

Writes to OUT (default BUILD/locality-eval): results.json (every run's figures),
ldesc.md and xmem.md (tables beside the papers' numbers), and the plots
ldesc-speedup.svg/.pdf, ldesc-l1.svg/.pdf, xmem-tiling.svg/.pdf (with --docs the SVGs are also
copied into docs/, where docs/ldesc.md and docs/xmem.md show them).

Definitions: speedup = baseline cycles / cycles - 1 (geometric mean over workloads); L1
hit rate = l1.hits / (l1.hits + l1.misses + l1.mshr_merges) (demand reads), its change in
percentage points (a relative change explodes on a near-zero baseline); MSHR hits =
l1.mshr_merges; working set = distinct lines per SM (hints.working_set.lines / .sms);
prefetch accuracy = l1.prefetch_hits / l1.prefetches, coverage = l1.prefetch_hits /
(l1.prefetch_hits + l1.misses); pinned share = l1.pinned_line_cycles / (cycles x the L1s'
lines); row-buffer hit rate = dram.row_hits / (dram.row_hits +
dram.row_misses); DRAM read latency = dram.read_cycles / dram.reads; channel balance = the busiest
channel's DRAM bursts over the mean channel's (stats.per_unit); tiling slowdown = the best
IPC over the tile sizes (the baseline's) / IPC - 1, averaged over the tile sizes beyond
the L1. Every run must print PASS and
issue the baseline's warp instructions.

usage: bench/locality_eval.py [BUILD_DIR] [--out DIR] [--jobs N] [--backend local|slurm]
                              [--sweep-arg ARG]... [--quick] [--docs]
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plots as mpl  # noqa: E402
import sweeprun  # noqa: E402
from sweeprun import geomean_change, mean, pct, ratio  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PRESET = "gtx480"

# size -> name -> (sample, arguments): the Locality Descriptor samples (docs/samples.md)
# at their default inputs (seconds each) and at 4-16 times the data (images of 1024 x
# 1024 floats, whose 4 KB rows are the 16 KB 4-way L1's way size)
LDESC = {
    "small": {
        "histo": ("ldesc_histo", ["4"]),
        "stencil": ("ld_stencil", []),
        "spmv": ("ld_spmv", []),
        "conv": ("ld_conv", []),
        "state": ("ld_state", []),
        "stream": ("ld_stream", []),
    },
    "large": {
        "histo": ("ldesc_histo", ["8"]),
        "stencil": ("ld_stencil", ["1024", "1024"]),
        "spmv": ("ld_spmv", ["65536", "2"]),
        "conv": ("ld_conv", ["1024", "1024"]),
        "state": ("ld_state", ["16384", "32"]),
        "stream": ("ld_stream", ["2048", "8192"]),
    },
}
LDESC_MODES = ["cta", "cache", "all"]

# XMem's tiling experiment: tile sizes in KB (the L1 is 16 KB), xmem_tile's reps and tiles
TILES_KB = [2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128]
TILE_ARGS = ["8", "4"]
L1_KB = 16

# XMem's DRAM placement: atom-annotated programs with several hot arrays
DRAM = {
    "streams": ("xmem_streams", ["262144", "2"]),
    "tiled": ("xmem_tiled", []),
}

# The papers' figures (docs/ldesc.md, docs/xmem.md): Locality Descriptor (ISCA 2018)
# cache mode +26.6% (up to 46.6%), L1 hit rate +41.1% (up to 57.7%), CTA scheduling alone
# +2.1% with working set -67.8% and MSHR hits +17%; XMem (ISCA 2018) tiling thrash
# slowdown 64.8% -> 26.9% on average (up to 7.6x -> 4.6x), DRAM placement +8.5% (up to
# 31.9%, ideal 24.4%), read latency -12.6%.
PAPER = {"cache": 26.6, "cache_max": 46.6, "l1": 41.1, "l1_max": 57.7, "cta": 2.1,
         "ws": -67.8, "mshr": 17.0, "thrash_base": 64.8, "thrash_xmem": 26.9,
         "thrash_base_max": 7.6, "thrash_xmem_max": 4.6, "dram": 8.5, "dram_max": 31.9,
         "dram_ideal": 24.4}


def programs(quick):
    """(name, command arguments after the sample path, sample, points) of every program."""
    out = []
    for size, ws in LDESC.items():
        for w, (s, args) in ws.items():
            pts = [{}] + [{"ldesc.mode": m} for m in LDESC_MODES]
            out.append((f"ld-{size}-{w}", s, args, pts))
    for kb in (TILES_KB[::2] if quick else TILES_KB):
        out.append((f"tile-{kb}", "xmem_tile", [str(kb)] + TILE_ARGS,
                    [{}, {"xmem.mode": "cache"}]))
    for w, (s, args) in DRAM.items():
        out.append((f"dram-{w}", s, args, [{}, {"xmem.mode": "dram"}]))
    return out


def sweep_file(path, build, quick):
    lines = ['mode = "timing"', "timeout = 3600", "[axes]", f"preset = [{json.dumps(PRESET)}]",
             "[set]", '"mem.observer" = "hints"', '"stats.per_unit" = true']
    for name, sample, args, pts in programs(quick):
        lines += ["", "[[program]]", f"name = {json.dumps(name)}",
                  f"command = {json.dumps([os.path.join(build, 'samples', sample)] + args)}",
                  f"cwd = {json.dumps(ROOT)}"]
        for p in pts:
            lines.append("[[program.point]]")
            lines += [f"{json.dumps(k)} = {json.dumps(v)}" for k, v in p.items()]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def label_of(params):
    return params.get("ldesc.mode") or params.get("xmem.mode") or "baseline"


def channel_imbalance(stats):
    """The busiest DRAM channel's bursts over the mean channel's, over all launches."""
    per = []
    for launch in stats.get("launches", []):
        for i, ch in enumerate((launch.get("units") or {}).get("dram", [])):
            per += [0] * (i + 1 - len(per))
            per[i] += ch.get("dram.bursts", 0)
    return ratio(max(per), sum(per) / len(per)) if per and sum(per) else None


def load_runs(res_dir):
    """{(program, design label): figures}."""
    out = {}
    for key, r in sweeprun.passing(res_dir, lambda r: (r["program"], label_of(r["params"]))):
        t, cfg = r["stats"]["totals"], r["stats"]["config"]
        tm, ob = t.get("timing") or {}, t.get("observed") or {}
        l1_lines = cfg["gpu.sm_count"] * cfg["l1.bytes"] // cfg["l1.line"]
        l1 = tm.get("l1.hits", 0) + tm.get("l1.misses", 0) + tm.get("l1.mshr_merges", 0)
        rows = tm.get("dram.row_hits", 0) + tm.get("dram.row_misses", 0)
        l2 = tm.get("l2.hits", 0) + tm.get("l2.misses", 0) + tm.get("l2.mshr_merges", 0)
        alb = tm.get("xmem.alb_hits", 0) + tm.get("xmem.alb_misses", 0)
        out[key] = {"cycles": t["cycles"], "warp_instructions": t["warp_instructions"],
                    "ipc": ratio(t["warp_instructions"], t["cycles"]),
                    "l1_hit_rate": ratio(tm.get("l1.hits", 0), l1),
                    "l1_misses": tm.get("l1.misses", 0),
                    "l2_hit_rate": ratio(tm.get("l2.hits", 0), l2),
                    "mshr_hits": tm.get("l1.mshr_merges", 0),
                    "prefetches": tm.get("l1.prefetches", 0),
                    "prefetch_hits": tm.get("l1.prefetch_hits", 0),
                    "prefetch_late": tm.get("l1.prefetch_late", 0),
                    "prefetch_evicted": tm.get("l1.prefetch_evicted", 0),
                    "pins": tm.get("l1.pins_soft", 0) + tm.get("l1.pins_hard", 0),
                    "bypasses": tm.get("l1.bypasses", 0),
                    "pinned_share": ratio(tm.get("l1.pinned_line_cycles", 0),
                                          t["cycles"] * l1_lines),
                    "row_hit_rate": ratio(tm.get("dram.row_hits", 0), rows),
                    "read_latency": ratio(tm.get("dram.read_cycles", 0), tm.get("dram.reads", 0)),
                    "alb_hit_rate": ratio(tm.get("xmem.alb_hits", 0), alb),
                    "working_set": ratio(ob.get("hints.working_set.lines", 0),
                                         ob.get("hints.working_set.sms", 0)),
                    "clusters": tm.get("ldesc.clusters", 0),
                    "imbalance": channel_imbalance(r["stats"])}
    return out


def check_same_work(runs, prog, labels):
    base = runs[(prog, "baseline")]
    for lab in labels:
        if (prog, lab) not in runs:
            sys.exit(f"{prog}: missing run {lab}")
        if runs[(prog, lab)]["warp_instructions"] != base["warp_instructions"]:
            sys.exit(f"{prog} under {lab}: {runs[(prog, lab)]['warp_instructions']} warp "
                     f"instructions, baseline {base['warp_instructions']}")


def ldesc_figures(runs, size):
    """The figures of one input size: workloads, runs by mode, speedups, their means."""
    ws = list(LDESC[size])
    for w in ws:
        check_same_work(runs, f"ld-{size}-{w}", LDESC_MODES)
    f = {w: {lab: runs[(f"ld-{size}-{w}", lab)] for lab in ["baseline"] + LDESC_MODES}
         for w in ws}
    sp = {lab: {w: f[w]["baseline"]["cycles"] / f[w][lab]["cycles"] - 1 for w in ws}
          for lab in LDESC_MODES}
    return ws, f, sp, {lab: geomean_change(sp[lab].values()) for lab in LDESC_MODES}


def ldesc_summary(ws, f, sp, avg):
    """The comparison with the paper's figures, one value per row."""
    l1_pp = {w: f[w]["cache"]["l1_hit_rate"] - f[w]["baseline"]["l1_hit_rate"] for w in ws}
    wset = {w: ratio(f[w]["cta"]["working_set"], f[w]["baseline"]["working_set"]) for w in ws}
    mshr = {w: ratio(f[w]["cta"]["mshr_hits"], f[w]["baseline"]["mshr_hits"]) for w in ws}
    rel = lambda d: mean([v - 1 for v in d.values() if v is not None])  # noqa: E731
    return [f"{pct(avg['cache'])} (up to {pct(max(sp['cache'].values()))})", pct(avg["all"]),
            pct(avg["cta"]), pct(rel(wset)), pct(rel(mshr)),
            f"{100 * mean(l1_pp.values()):+.1f} points (up to "
            f"{100 * max(l1_pp.values()):+.1f})"]


def ldesc_rows(ws, f, sp):
    L = ["| workload | speedup cta | cache | all | L1 hit rate base / cta / cache / all | "
         "L2 hit rate base / cache | working set per SM (lines) base / cta | "
         "MSHR hits base / cta | prefetches (cache): accuracy / coverage / late / evicted "
         "unread | lines pinned / bypassed; pinned share of the L1s (cache) | "
         "row-buffer hits base / all |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for w in ws:
        b, t, c, a = (f[w][lab] for lab in ["baseline", "cta", "cache", "all"])
        acc = ratio(c["prefetch_hits"], c["prefetches"])
        cov = ratio(c["prefetch_hits"], c["prefetch_hits"] + c["l1_misses"])
        L.append(f"| {w} | {pct(sp['cta'][w])} | {pct(sp['cache'][w])} | {pct(sp['all'][w])} | "
                 f"{pct(b['l1_hit_rate'], False)} / {pct(t['l1_hit_rate'], False)} / "
                 f"{pct(c['l1_hit_rate'], False)} / {pct(a['l1_hit_rate'], False)} | "
                 f"{pct(b['l2_hit_rate'], False)} / {pct(c['l2_hit_rate'], False)} | "
                 f"{b['working_set'] or 0:.0f} / {t['working_set'] or 0:.0f} | "
                 f"{b['mshr_hits']} / {t['mshr_hits']} | {pct(acc, False)} / "
                 f"{pct(cov, False)} / {c['prefetch_late']} / {c['prefetch_evicted']} | "
                 f"{c['pins']} / {c['bypasses']}; {pct(c['pinned_share'], False)} | "
                 f"{pct(b['row_hit_rate'], False)} / {pct(a['row_hit_rate'], False)} |")
    return L


def ldesc_table(runs, path):
    figs = {size: ldesc_figures(runs, size) for size in LDESC}
    rows = {size: ldesc_summary(*figs[size]) for size in LDESC}
    paper = [f"+{PAPER['cache']}% (up to +{PAPER['cache_max']}%)", "—", f"+{PAPER['cta']}%",
             f"{PAPER['ws']}%", f"+{PAPER['mshr']}%",
             f"+{PAPER['l1']}% (up to +{PAPER['l1_max']}%)"]
    names = ["cache mode speedup (geomean)", "all (CTA clustering + cache) speedup",
             "CTA scheduling alone: speedup", "CTA scheduling alone: working set per SM",
             "CTA scheduling alone: MSHR hits", "cache mode: L1 hit rate"]
    L = ["# Locality Descriptor evaluation", "",
         f"Generated by `bench/locality_eval.py` (docs/ldesc.md), preset {PRESET}.", "",
         "| figure | paper | " + " | ".join(f"ours, {size} inputs" for size in LDESC) + " |",
         "|---|---|" + "---|" * len(LDESC)]
    for i, name in enumerate(names):
        L.append(f"| {name} | {paper[i]} | " + " | ".join(rows[size][i] for size in LDESC) + " |")
    for size in LDESC:
        ws, f, sp, _ = figs[size]
        L += ["", f"## {size.capitalize()} inputs", ""] + ldesc_rows(ws, f, sp)
    with open(path, "w") as fh:
        fh.write("\n".join(L) + "\n")
    return figs


def tiling(runs, kbs):
    for kb in kbs:
        check_same_work(runs, f"tile-{kb}", ["cache"])
    ipc = {lab: [runs[(f"tile-{kb}", lab)]["ipc"] for kb in kbs] for lab in ["baseline", "cache"]}
    best = max(ipc["baseline"])
    slow = {lab: [best / v - 1 for v in ipc[lab]] for lab in ipc}
    beyond = [i for i, kb in enumerate(kbs) if kb > L1_KB]
    return ipc, slow, beyond


def xmem_table(runs, path, kbs):
    ipc, slow, beyond = tiling(runs, kbs)
    avg = {lab: mean([slow[lab][i] for i in beyond]) for lab in slow}
    top = {lab: max(slow[lab][i] for i in beyond) for lab in slow}
    ds = list(DRAM)
    for w in ds:
        check_same_work(runs, f"dram-{w}", ["dram"])
    dsp = {w: runs[(f"dram-{w}", "baseline")]["cycles"] / runs[(f"dram-{w}", "dram")]["cycles"] - 1
           for w in ds}
    L = ["# XMem evaluation", "",
         f"Generated by `bench/locality_eval.py` (docs/xmem.md), preset {PRESET} "
         f"(L1 {L1_KB} KB per SM, L2 768 KB).", "",
         "| figure | paper | ours |", "|---|---|---|",
         f"| tiling: slowdown from thrashing, baseline (mean over tiles > L1; max) | "
         f"{PAPER['thrash_base']}% (up to {PAPER['thrash_base_max']}x) | "
         f"{pct(avg['baseline'], False)} "
         f"({1 + top['baseline']:.2f}x) |",
         f"| tiling: the same under XMem (xmem.mode = cache) | {PAPER['thrash_xmem']}% (up to "
         f"{PAPER['thrash_xmem_max']}x) | {pct(avg['cache'], False)} ({1 + top['cache']:.2f}x) |",
         f"| DRAM placement speedup (geomean) | +{PAPER['dram']}% (up to +{PAPER['dram_max']}%; "
         f"ideal +{PAPER['dram_ideal']}%) | {pct(geomean_change(dsp.values()))} |", "",
         "## Tiling", "",
         "| tile | IPC baseline | IPC XMem | slowdown baseline | slowdown XMem | "
         "L1 hit rate baseline / XMem | ALB hit rate |", "|---|---|---|---|---|---|---|"]
    for i, kb in enumerate(kbs):
        b, c = runs[(f"tile-{kb}", "baseline")], runs[(f"tile-{kb}", "cache")]
        L.append(f"| {kb} KB | {ipc['baseline'][i]:.3f} | {ipc['cache'][i]:.3f} | "
                 f"{pct(slow['baseline'][i], False)} | {pct(slow['cache'][i], False)} | "
                 f"{pct(b['l1_hit_rate'], False)} / {pct(c['l1_hit_rate'], False)} | "
                 f"{pct(c['alb_hit_rate'], False)} |")
    L += ["", "## DRAM placement", "",
          "| workload | speedup | row-buffer hit rate baseline / XMem | mean DRAM read "
          "latency (core cycles, queue to data) baseline / XMem | busiest channel / mean, "
          "baseline / XMem |", "|---|---|---|---|---|"]
    for w in ds:
        b, d = runs[(f"dram-{w}", "baseline")], runs[(f"dram-{w}", "dram")]
        L.append(f"| {w} | {pct(dsp[w])} | {pct(b['row_hit_rate'], False)} / "
                 f"{pct(d['row_hit_rate'], False)} | {b['read_latency'] or 0:.0f} / "
                 f"{d['read_latency'] or 0:.0f} | {b['imbalance'] or 0:.2f} / "
                 f"{d['imbalance'] or 0:.2f} |")
    with open(path, "w") as fh:
        fh.write("\n".join(L) + "\n")
    return ipc, slow, avg, dsp


def main():
    ap = sweeprun.arguments(__doc__, ROOT)
    ap.add_argument("--quick", action="store_true", help="every other tile size")
    ap.add_argument("--docs", action="store_true",
                    help="also copy the plots (SVG) into docs/ for docs/ldesc.md and docs/xmem.md")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    out = os.path.abspath(a.out or os.path.join(build, "locality-eval"))
    os.makedirs(out, exist_ok=True)
    sweep = os.path.join(out, "locality.toml")
    sweep_file(sweep, build, a.quick)
    res_dir = os.path.join(out, "sweep")
    sweeprun.run(build, sweep, res_dir, a.jobs, a.backend, a.sweep_arg)
    runs = load_runs(res_dir)
    with open(os.path.join(out, "results.json"), "w") as fh:
        json.dump({"runs": {f"{k[0]}|{k[1]}": v for k, v in sorted(runs.items())}}, fh,
                  indent=1, sort_keys=True)
    kbs = TILES_KB[::2] if a.quick else TILES_KB
    figs = ldesc_table(runs, os.path.join(out, "ldesc.md"))
    ipc, slow, tavg, dsp = xmem_table(runs, os.path.join(out, "xmem.md"), kbs)
    ws = list(LDESC["small"])
    series = [(size, lab) for size in LDESC for lab in LDESC_MODES]
    mpl.bars(os.path.join(out, "ldesc-speedup.svg"),
             f"Locality Descriptor: speedup over the baseline, {PRESET}", "speedup", ws,
             [f"{lab}, {size}" for size, lab in series],
             [[1 + figs[size][2][lab][w] for w in ws] for size, lab in series], baseline=1.0)
    series = [(size, lab) for size in LDESC for lab in ["baseline"] + LDESC_MODES]
    mpl.bars(os.path.join(out, "ldesc-l1.svg"), f"L1 hit rate, {PRESET}", "hit rate", ws,
             [f"{lab}, {size}" for size, lab in series],
             [[figs[size][1][w][lab]["l1_hit_rate"] for w in ws] for size, lab in series])
    mpl.lines(os.path.join(out, "xmem-tiling.svg"),
              f"XMem tiling: slowdown against the best tile, {PRESET} (L1 {L1_KB} KB)",
              "tile size (KB)", "slowdown", kbs, ["baseline", "XMem (xmem.mode = cache)"],
              [slow["baseline"], slow["cache"]])
    if a.docs:
        for name in ["ldesc-speedup.svg", "ldesc-l1.svg", "xmem-tiling.svg"]:
            shutil.copyfile(os.path.join(out, name), os.path.join(ROOT, "docs", name))
    for size in LDESC:
        for lab in LDESC_MODES:
            print(f"ldesc {size} {lab:6s} speedup {pct(figs[size][3][lab])}")
    print(f"xmem tiling slowdown beyond the L1: baseline {pct(tavg['baseline'], False)}, "
          f"xmem {pct(tavg['cache'], False)}")
    print(f"xmem dram placement speedup {pct(geomean_change(dsp.values()))}")
    print(f"tables: {os.path.join(out, 'ldesc.md')}, {os.path.join(out, 'xmem.md')}")


if __name__ == "__main__":
    main()
