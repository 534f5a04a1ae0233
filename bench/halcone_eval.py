#!/usr/bin/env python3
"""HALCONE evaluation: GPUs that share one memory, kept coherent by timestamps.

Every run is timing mode on the halcone-mgpu preset (docs/presets.md: MGPUSim's R9
Nano-like GPU, several of them around one HBM pool, coherence = halcone), scaled down by
default: 8 CUs per GPU instead of the paper's 32, and inputs sized so that a run takes
seconds (--full: 32 CUs, 48 and 64 in the CU study, inputs 4 times larger and Xtreme up to
the paper's 96 MB; hours on 2 cores, meant for a cluster with --backend slurm). One sweep
(tools/xgpu-sweep, docs/sweeps.md), in five parts:

  scaling   every workload under halcone at 1, 2, 4, 8 and 16 GPUs, and under flush
            (non-coherent caches invalidated at kernel boundaries, as MGPUSim's driver
            does) at the same counts; at 4 GPUs also under none (no coherence at all)
  cus       halcone at 4 GPUs with 1.5 and 2 times the CUs per GPU (the paper's 32 -> 48
            -> 64)
  rdma      the RDMA baseline at 4 GPUs: the same GPUs, each owning a quarter of the
            memory (system.memory = numa, 4 KB blocks spread by the XOR hash, memory-side
            L2s, no coherence), with the shared system's links and with PCIe 3.0 x16-like
            ones (16 bytes/cycle)
  knobs     halcone at 4 GPUs with no progress tick, a 10x slower tick, and 10x longer
            read leases
  xtreme    the Xtreme micro-benchmarks (three sharing patterns; vectors from 192 KB up)
            at 4 GPUs under halcone, flush and none

Writes to OUT (default BUILD/halcone-eval, with --full BUILD/halcone-eval-full):
results.json (every run's figures), halcone.md
(tables beside the paper's numbers) and the plots halcone-scaling.svg/.pdf,
halcone-overhead.svg/.pdf, halcone-xtreme.svg/.pdf (with --docs the SVGs are also copied
into docs/, where docs/halcone.md shows them).

Definitions: speedup at G GPUs = cycles of halcone on 1 GPU / cycles at G (geometric mean
over the workloads); overhead = cycles under halcone / cycles under the baseline - 1;
traffic L1->L2 = the crossbars' flits x icnt.flit_bytes, L2->memory = the links' bytes
both ways (headers and timestamps included; halcone.stamp_bytes are the timestamps');
coherence misses = l2.coherence_invalidations. Every run must print PASS and issue the
warp instructions of halcone on 1 GPU, except under none, where a wrong result (another
GPU's stale data) is what the table reports.

usage: bench/halcone_eval.py [BUILD_DIR] [--out DIR] [--jobs N] [--backend local|slurm]
                             [--sweep-arg ARG]... [--full] [--docs]
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plots as mpl  # noqa: E402
import sweeprun  # noqa: E402
from sweeprun import geomean, pct, ratio  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PRESET = "halcone-mgpu"
GPUS = [1, 2, 4, 8, 16]
G4 = 4

# The paper's workloads (Hetero-Mark, PolyBench, SHOC, DNNMark) as this project's samples
# (docs/samples.md): name -> (sample, arguments by default, arguments with --full).
# atax and bicg are one program here (four launches); km stands for the 11th, unnamed one.
WORKLOADS = {
    "atax+bicg": ("atax_bicg", ["4000", "4000"], ["8000", "8000"]),
    "mp": ("maxpool", ["256", "128", "128"], ["1024", "128", "128"]),
    "relu": ("relu", ["128", "32768"], ["512", "32768"]),
    "bfs": ("bfs", ["200000"], ["800000"]),
    "bs": ("bitonic", ["18"], ["20"]),
    "aes": ("aes", ["262144"], ["1048576"]),
    "fir": ("fir", ["1048576"], ["4194304"]),
    "mm": ("matmul", ["512", "512", "512"], ["1024", "1024", "1024"]),
    "conv": ("conv2d", ["1024", "1024"], ["2048", "2048"]),
    "km": ("kmeans", ["32768"], ["65536", "12", "16"]),
}
XTREME_KB = {False: [192, 768, 3072, 12288], True: [192, 768, 3072, 12288, 49152, 98304]}
XTREME_MODES = ["halcone", "flush", "none"]

# The paper (Mojumder et al., arXiv 2007.04292, 2020): speedup over one coherent GPU at 2,
# 4, 8, 16 GPUs; CU scaling 48 and 64 CUs over 32; under 1% overhead against no coherence;
# about 1% more traffic; 4.6x the 4-GPU RDMA system.
PAPER = {"scaling": {2: 1.76, 4: 2.74, 8: 4.05, 16: 5.43}, "cus": {1.5: 1.12, 2.0: 1.24},
         "overhead": 0.01, "traffic": 0.01, "rdma": 4.6}


def cus_of(full):
    return 32 if full else 8


def points(full):
    """(label, parameters) of every run of a workload."""
    cu = cus_of(full)
    pts = []
    for g in GPUS:
        for c in ["halcone", "flush"]:
            pts.append((f"{c}-{g}", {"system.gpus": g, "coherence": c}))
    pts.append((f"none-{G4}", {"system.gpus": G4, "coherence": "none"}))
    for f in [1.5, 2.0]:
        pts.append((f"cus-{f}", {"system.gpus": G4, "gpu.sm_count": int(cu * f)}))
    rdma = {"system.gpus": G4, "system.memory": "numa", "numa.map": "xor",
            "numa.interleave_bytes": 4096, "coherence": "none"}
    pts.append(("rdma", rdma))
    pts.append(("rdma-pcie", dict(rdma, **{"system.link_bytes_per_cycle": 16})))
    pts.append(("tick-0", {"system.gpus": G4, "halcone.tick": 0}))
    pts.append(("tick-10000", {"system.gpus": G4, "halcone.tick": 10000}))
    pts.append(("lease-100", {"system.gpus": G4, "halcone.read_lease": 100}))
    return [(lab, dict({"gpu.sm_count": cu}, **p)) for lab, p in pts]


def programs(full):
    """(name, sample, arguments, [(label, parameters)]) of every program."""
    out = []
    for w, (s, args, fargs) in WORKLOADS.items():
        out.append((w, s, fargs if full else args, points(full)))
    for kb in XTREME_KB[full]:
        for p in [1, 2, 3]:
            out.append((f"xtreme{p}-{kb}", "xtreme", [str(p), str(kb * 1024)],
                        [(c, {"system.gpus": G4, "gpu.sm_count": cus_of(full), "coherence": c})
                         for c in XTREME_MODES]))
    return out


def label_of(points_of, name, params):
    """The label of the point whose parameters a run has (besides the preset)."""
    got = {k: str(v) for k, v in params.items() if k != "preset"}
    for lab, p in points_of.get(name, []):
        if got == {k: str(v) for k, v in p.items()}:
            return lab
    sys.exit(f"{name}: a run with unexpected parameters {params}")


def sweep_file(path, build, full):
    lines = ['mode = "timing"', "timeout = 7200", "[axes]", f"preset = [{json.dumps(PRESET)}]"]
    for name, sample, args, pts in programs(full):
        lines += ["", "[[program]]", f"name = {json.dumps(name)}",
                  f"command = {json.dumps([os.path.join(build, 'samples', sample)] + args)}",
                  f"cwd = {json.dumps(ROOT)}"]
        for _, p in pts:
            lines.append("[[program.point]]")
            lines += [f"{json.dumps(k)} = {json.dumps(v)}" for k, v in p.items()]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def load_runs(res_dir, full):
    """{(program, label): figures}; a run without PASS is kept only under none."""
    points_of = {n: pts for n, _, _, pts in programs(full)}
    out = {}
    for r, stdout in sweeprun.results(res_dir):
        name = r["program"]
        lab = label_of(points_of, name, r["params"])
        ok = r["status"] == 0 and "PASS" in stdout
        if not ok and not lab.startswith("none"):
            sys.exit(f"{name} under {lab}: failed\n{stdout[-2000:]}{r.get('stderr_tail') or ''}")
        if not ok:
            out[(name, lab)] = {"pass": False}
            continue
        t, cfg = r["stats"]["totals"], r["stats"]["config"]
        tm = t.get("timing") or {}
        l2 = tm.get("l2.hits", 0) + tm.get("l2.misses", 0) + tm.get("l2.mshr_merges", 0)
        l1 = tm.get("l1.hits", 0) + tm.get("l1.misses", 0) + tm.get("l1.mshr_merges", 0)
        flits = tm.get("icnt.request_flits", 0) + tm.get("icnt.response_flits", 0)
        out[(name, lab)] = {
            "pass": True, "cycles": t["cycles"], "warp_instructions": t["warp_instructions"],
            "l1_hit_rate": ratio(tm.get("l1.hits", 0), l1),
            "l2_hit_rate": ratio(tm.get("l2.hits", 0), l2),
            "l2_coherence_misses": tm.get("l2.coherence_invalidations", 0),
            "l1_coherence_misses": tm.get("l1.coherence_invalidations", 0),
            "l1_l2_bytes": flits * cfg["icnt.flit_bytes"],
            "l2_mem_bytes": tm.get("link.out_bytes", 0) + tm.get("link.in_bytes", 0),
            "dram_bytes": tm.get("dram.bytes", 0),
            "stamp_bytes": tm.get("halcone.stamp_bytes", 0),
            "tsu_hits": tm.get("halcone.tsu_hits", 0), "tsu_misses": tm.get("halcone.tsu_misses", 0),
            "tsu_evictions": tm.get("halcone.tsu_evictions", 0),
            "overflows": tm.get("halcone.overflows", 0),
            "link_busy": tm.get("link.busy_cycles", 0),
            "remote": tm.get("numa.remote_accesses", 0), "local": tm.get("numa.local_accesses", 0)}
    return out


def check_work(runs):
    """Every passing run issues the warp instructions of halcone on one GPU."""
    for (name, lab), f in runs.items():
        base = runs.get((name, "halcone-1") if not name.startswith("xtreme") else (name, "halcone"))
        if base is None:
            sys.exit(f"{name}: missing its halcone run")
        if f["pass"] and f["warp_instructions"] != base["warp_instructions"]:
            sys.exit(f"{name} under {lab}: {f['warp_instructions']} warp instructions, "
                     f"halcone {base['warp_instructions']}")


def times(v):
    return "—" if v is None else f"{v:.2f}×"


def over(runs, w, a, b):
    """Workload w's cycles under label b over its cycles under a (a's speedup over b), or
    None where either run is missing or wrong."""
    ra, rb = runs.get((w, a)), runs.get((w, b))
    if not ra or not rb or not ra["pass"] or not rb["pass"]:
        return None
    return rb["cycles"] / ra["cycles"]


def figures(runs):
    ws = list(WORKLOADS)
    f = {}
    f["scaling"] = {c: {g: {w: over(runs, w, f"{c}-{g}", "halcone-1") for w in ws} for g in GPUS}
                    for c in ["halcone", "flush"]}
    f["cus"] = {x: {w: over(runs, w, f"cus-{x}", f"halcone-{G4}") for w in ws} for x in [1.5, 2.0]}
    f["vs_flush"] = {g: {w: ratio(1, over(runs, w, f"halcone-{g}", f"flush-{g}")) for w in ws}
                     for g in GPUS}
    f["vs_none"] = {w: ratio(1, over(runs, w, f"halcone-{G4}", f"none-{G4}")) for w in ws}
    f["rdma"] = {lab: {w: over(runs, w, f"halcone-{G4}", lab) for w in ws}
                 for lab in ["rdma", "rdma-pcie"]}
    f["knobs"] = {lab: {w: ratio(1, over(runs, w, lab, f"halcone-{G4}")) for w in ws}
                  for lab in ["tick-0", "tick-10000", "lease-100"]}

    def traffic(key, base):
        return {w: ratio(runs[(w, f"halcone-{G4}")][key], runs[(w, base)][key])
                if runs[(w, base)]["pass"] else None for w in ws}
    f["traffic"] = {b: {k: traffic(k, b) for k in ["l1_l2_bytes", "l2_mem_bytes"]}
                    for b in [f"flush-{G4}", f"none-{G4}"]}
    f["stamp_share"] = {w: ratio(runs[(w, f"halcone-{G4}")]["stamp_bytes"],
                                 runs[(w, f"halcone-{G4}")]["l2_mem_bytes"]) for w in ws}
    return ws, f


def summary_rows(ws, f):
    g = lambda d: geomean(d.values())  # noqa: E731
    none_ok = [w for w in ws if f["vs_none"][w] is not None]
    rows = []
    for n in GPUS[1:]:
        rows.append((f"speedup over one coherent GPU, {n} GPUs", f"{PAPER['scaling'][n]:.2f}×",
                     times(g(f["scaling"]["halcone"][n]))))
    for x, paper in PAPER["cus"].items():
        rows.append((f"CU scaling ×{x} per GPU (4 GPUs)", f"{paper:.2f}×", times(g(f["cus"][x]))))
    rows.append(("overhead against no coherence (none), 4 GPUs", "< 1%",
                 f"{pct(g({w: f['vs_none'][w] for w in none_ok}) - 1)} over the "
                 f"{len(none_ok)} workloads right under none; "
                 f"{len(ws) - len(none_ok)} are wrong under none"))
    rows.append(("overhead against flush (kernel-boundary invalidation), 4 GPUs", "—",
                 pct(g(f["vs_flush"][G4]) - 1)))
    for b in [f"flush-{G4}", f"none-{G4}"]:
        for k, what in [("l1_l2_bytes", "L1→L2"), ("l2_mem_bytes", "L2→memory")]:
            rows.append((f"traffic {what} against {b.split('-')[0]}, 4 GPUs", "about +1%",
                         pct(g(f["traffic"][b][k]) - 1)))
    rows.append(("4 shared GPUs with HALCONE against 4-GPU RDMA (same links)", "4.6×",
                 times(g(f["rdma"]["rdma"]))))
    rows.append(("the same, RDMA over PCIe 3.0 ×16-like links", "4.6×",
                 times(g(f["rdma"]["rdma-pcie"]))))
    return rows


def write_table(runs, ws, f, path, full):
    L = ["# HALCONE evaluation", "",
         f"Generated by `bench/halcone_eval.py{' --full' if full else ''}` (docs/halcone.md), "
         f"preset {PRESET}, {cus_of(full)} CUs per GPU.", "",
         "| figure | paper | ours |", "|---|---|---|"]
    L += [f"| {a} | {b} | {c} |" for a, b, c in summary_rows(ws, f)]
    L += ["", "## Speedup over one coherent GPU (halcone), by GPUs", "",
          "| workload | " + " | ".join(f"{g} GPUs" for g in GPUS[1:]) + " | flush, 16 GPUs |",
          "|---|" + "---|" * len(GPUS)]
    for w in ws + ["geomean"]:
        val = (lambda c, g: geomean(f["scaling"][c][g].values())) if w == "geomean" else \
              (lambda c, g: f["scaling"][c][g][w])
        L.append(f"| {w} | " + " | ".join(times(val("halcone", g)) for g in GPUS[1:]) +
                 f" | {times(val('flush', 16))} |")
    L += ["", "## Cost of coherence at 4 GPUs", "",
          "| workload | halcone vs none | vs flush | vs flush at 1 / 16 GPUs | L2 hit rate "
          "none / flush / halcone | L2 coherence misses | traffic L1→L2 / L2→memory vs flush | "
          "timestamp share of the link bytes | TSU hits / misses / evictions / overflows |",
          "|---|---|---|---|---|---|---|---|---|"]
    for w in ws:
        h, fl, no = (runs[(w, f"{c}-{G4}")] for c in ["halcone", "flush", "none"])
        none_txt = pct(f["vs_none"][w] - 1) if f["vs_none"][w] else "wrong result"
        L.append(f"| {w} | {none_txt} | {pct(f['vs_flush'][G4][w] - 1)} | "
                 f"{pct(f['vs_flush'][1][w] - 1)} / {pct(f['vs_flush'][16][w] - 1)} | "
                 f"{pct(no.get('l2_hit_rate'), False)} / {pct(fl['l2_hit_rate'], False)} / "
                 f"{pct(h['l2_hit_rate'], False)} | {h['l2_coherence_misses']} | "
                 f"{pct(f['traffic'][f'flush-{G4}']['l1_l2_bytes'][w] - 1)} / "
                 f"{pct(f['traffic'][f'flush-{G4}']['l2_mem_bytes'][w] - 1)} | "
                 f"{pct(f['stamp_share'][w], False)} | {h['tsu_hits']} / {h['tsu_misses']} / "
                 f"{h['tsu_evictions']} / {h['overflows']} |")
    L += ["", "## CUs per GPU, RDMA, and the protocol's knobs (4 GPUs)", "",
          "| workload | ×1.5 CUs | ×2 CUs | vs RDMA | vs RDMA over PCIe | no tick | tick 10000 | "
          "read lease 100 |", "|---|---|---|---|---|---|---|---|"]
    for w in ws:
        L.append(f"| {w} | {times(f['cus'][1.5][w])} | {times(f['cus'][2.0][w])} | "
                 f"{times(f['rdma']['rdma'][w])} | {times(f['rdma']['rdma-pcie'][w])} | " +
                 " | ".join(pct(f["knobs"][k][w] - 1) for k in ["tick-0", "tick-10000", "lease-100"])
                 + " |")
    L.append("| geomean | " + " | ".join(times(geomean(d.values())) for d in
                                         [f["cus"][1.5], f["cus"][2.0], f["rdma"]["rdma"],
                                          f["rdma"]["rdma-pcie"]]) + " | " +
             " | ".join(pct(geomean(f["knobs"][k].values()) - 1)
                        for k in ["tick-0", "tick-10000", "lease-100"]) + " |")
    L += ["", "(knobs: cycles against halcone's defaults, tick 1000 and read lease 10)", "",
          "## Xtreme, 4 GPUs", "",
          "| pattern | vector | halcone cycles | vs flush | vs none | L2 coherence misses | "
          "L2 hit rate flush / halcone |", "|---|---|---|---|---|---|---|"]
    for p in [1, 2, 3]:
        for kb in XTREME_KB[full]:
            n = f"xtreme{p}-{kb}"
            h, fl, no = (runs[(n, c)] for c in XTREME_MODES)
            vn = pct(h["cycles"] / no["cycles"] - 1) if no["pass"] else "wrong result"
            L.append(f"| {p} | {kb} KB | {h['cycles']} | {pct(h['cycles'] / fl['cycles'] - 1)} | "
                     f"{vn} | {h['l2_coherence_misses']} | {pct(fl['l2_hit_rate'], False)} / "
                     f"{pct(h['l2_hit_rate'], False)} |")
    with open(path, "w") as fh:
        fh.write("\n".join(L) + "\n")


def plots(runs, ws, f, out, full):
    mpl.lines(os.path.join(out, "halcone-scaling.svg"),
              f"Speedup over one coherent GPU, {PRESET}, {cus_of(full)} CUs per GPU",
              "GPUs", "speedup", GPUS,
              ws + ["geomean", "paper (geomean)"],
              [[f["scaling"]["halcone"][g][w] if g > 1 else 1.0 for g in GPUS] for w in ws] +
              [[geomean(f["scaling"]["halcone"][g].values()) if g > 1 else 1.0 for g in GPUS],
               [PAPER["scaling"].get(g, 1.0) for g in GPUS]])
    mpl.bars(os.path.join(out, "halcone-overhead.svg"),
             "HALCONE's cycles against no coherence and against flush, 4 GPUs",
             "cycles / baseline", ws, ["vs none", "vs flush", "vs flush, 16 GPUs"],
             [[f["vs_none"][w] for w in ws], [f["vs_flush"][G4][w] for w in ws],
              [f["vs_flush"][16][w] for w in ws]], baseline=1.0)
    kbs = XTREME_KB[full]
    mpl.lines(os.path.join(out, "halcone-xtreme.svg"), "Xtreme: HALCONE's cycles / flush's, 4 GPUs",
              "vector (KB)", "cycles / flush", kbs, [f"Xtreme{p}" for p in [1, 2, 3]],
              [[runs[(f"xtreme{p}-{kb}", "halcone")]["cycles"] /
                runs[(f"xtreme{p}-{kb}", "flush")]["cycles"] for kb in kbs] for p in [1, 2, 3]])


def main():
    ap = sweeprun.arguments(__doc__, ROOT)
    ap.add_argument("--full", action="store_true",
                    help="the paper's 32 CUs per GPU (48, 64), 4x the inputs, Xtreme to 96 MB")
    ap.add_argument("--docs", action="store_true",
                    help="also copy the plots (SVG) into docs/ for docs/halcone.md")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    out = os.path.abspath(a.out or os.path.join(build, "halcone-eval" + ("-full" if a.full else "")))
    os.makedirs(out, exist_ok=True)
    sweep = os.path.join(out, "halcone.toml")
    sweep_file(sweep, build, a.full)
    res_dir = os.path.join(out, "sweep")
    # runs under none may fail (another GPU's stale data): load_runs tells them apart
    sweeprun.run(build, sweep, res_dir, a.jobs, a.backend, a.sweep_arg, accept=(0, 1))
    runs = load_runs(res_dir, a.full)
    missing = [(n, lab) for n, _, _, pts in programs(a.full) for lab, _ in pts
               if (n, lab) not in runs]
    if missing:
        sys.exit(f"runs missing from {res_dir}: {missing[:5]}")
    check_work(runs)
    with open(os.path.join(out, "results.json"), "w") as fh:
        json.dump({"runs": {f"{k[0]}|{k[1]}": v for k, v in sorted(runs.items())}}, fh,
                  indent=1, sort_keys=True)
    ws, f = figures(runs)
    write_table(runs, ws, f, os.path.join(out, "halcone.md"), a.full)
    plots(runs, ws, f, out, a.full)
    if a.docs:
        for name in ["halcone-scaling.svg", "halcone-overhead.svg", "halcone-xtreme.svg"]:
            shutil.copyfile(os.path.join(out, name), os.path.join(ROOT, "docs", name))
    for a_, b_, c_ in summary_rows(ws, f):
        print(f"{a_}: paper {b_}, ours {c_}")
    print(f"table: {os.path.join(out, 'halcone.md')}")


if __name__ == "__main__":
    main()
