#!/usr/bin/env python3
"""Locality Descriptor NUMA evaluation: where the data of a multi-module GPU lives.

Every run is timing mode on the ldesc-numa preset (docs/presets.md: the Locality
Descriptor paper's multi-chip GPU, 4 modules of 16 SMs, each with a zone of the memory
and its memory-side L2, 192 GB/s links). Every Locality Descriptor sample (docs/samples.md)
at its large input runs under five designs, one sweep (tools/xgpu-sweep, docs/sweeps.md):

  xor          the baseline: 4 KB blocks spread over the zones by a static XOR hash
  first-touch  64 KB pages placed in the zone of the module that touches them first
  placement    numa.map = ldesc: Algorithm 2's per-structure zone bits, CTAs placed as the
               baseline's (the paper's "placement only")
  ldesc-cta    placement and CTA partitioning: each of Algorithm 1's clusters runs on the
               module of its data's zone (ldesc.mode = cta)
  ldesc        all of the Locality Descriptor: placement, partitioning and the cache
               policies of ldesc.mode = all (the paper's NUMA mode)

Writes to OUT (default BUILD/numa-eval): results.json, numa.md (tables beside the paper's
numbers) and the plots numa-speedup.svg/.pdf and numa-efficiency.svg/.pdf (with --docs the
SVGs are also copied into docs/, where docs/ldesc.md shows them).

Definitions: speedup = cycles of the design compared against / cycles - 1 (geometric mean
over the workloads); access efficiency = numa.local_accesses / (numa.local_accesses +
numa.remote_accesses), the fraction of the L1s' requests to the memory side that the
requesting module's own zone serves (mean over the workloads). Every run must print PASS
and issue the baseline's warp instructions.

usage: bench/numa_eval.py [BUILD_DIR] [--out DIR] [--jobs N] [--backend local|slurm]
                          [--sweep-arg ARG]... [--docs]
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
PRESET = "ldesc-numa"

# name -> (sample, arguments): the Locality Descriptor samples at the large inputs of
# bench/locality_eval.py (images of 1024 x 1024 floats)
WORKLOADS = {
    "histo": ("ldesc_histo", ["8"]),
    "stencil": ("ld_stencil", ["1024", "1024"]),
    "spmv": ("ld_spmv", ["65536", "2"]),
    "conv": ("ld_conv", ["1024", "1024"]),
    "state": ("ld_state", ["16384", "32"]),
    "stream": ("ld_stream", ["2048", "8192"]),
}
DESIGNS = {
    "xor": {"numa.map": "xor"},
    "first-touch": {"numa.map": "first-touch"},
    "placement": {"numa.map": "ldesc"},
    "ldesc-cta": {"numa.map": "ldesc", "ldesc.mode": "cta"},
    "ldesc": {"numa.map": "ldesc", "ldesc.mode": "all"},
}

# The paper (Vijaykumar et al., ISCA 2018, NUMA results): +53.7% over the XOR baseline (up
# to 2.8x), +31.2% over FirstTouch (up to 2.3x); access efficiency 22% (baseline), 49.7%
# (FirstTouch), 76% (Locality Descriptor), 32% (placement only).
PAPER = {"vs_xor": 53.7, "vs_xor_max": 2.8, "vs_ft": 31.2, "vs_ft_max": 2.3,
         "eff": {"xor": 22.0, "first-touch": 49.7, "placement": 32.0, "ldesc": 76.0}}


def sweep_file(path, build):
    lines = ['mode = "timing"', "timeout = 3600", "[axes]", f"preset = [{json.dumps(PRESET)}]"]
    for name, (sample, args) in WORKLOADS.items():
        lines += ["", "[[program]]", f"name = {json.dumps(name)}",
                  f"command = {json.dumps([os.path.join(build, 'samples', sample)] + args)}",
                  f"cwd = {json.dumps(ROOT)}"]
        for p in DESIGNS.values():
            lines.append("[[program.point]]")
            lines += [f"{json.dumps(k)} = {json.dumps(v)}" for k, v in p.items()]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def design_of(params):
    got = {k: str(v) for k, v in params.items() if k != "preset"}
    for lab, p in DESIGNS.items():
        if got == {k: str(v) for k, v in p.items()}:
            return lab
    sys.exit(f"a run with unexpected parameters {params}")


def load_runs(res_dir):
    """{(workload, design): figures}."""
    out = {}
    for key, r in sweeprun.passing(res_dir, lambda r: (r["program"], design_of(r["params"]))):
        t = r["stats"]["totals"]
        tm = t.get("timing") or {}
        loc, rem = tm.get("numa.local_accesses", 0), tm.get("numa.remote_accesses", 0)
        l1 = tm.get("l1.hits", 0) + tm.get("l1.misses", 0) + tm.get("l1.mshr_merges", 0)
        out[key] = {"cycles": t["cycles"], "warp_instructions": t["warp_instructions"],
                    "efficiency": ratio(loc, loc + rem), "local": loc, "remote": rem,
                    "l1_hit_rate": ratio(tm.get("l1.hits", 0), l1),
                    "link_bytes": tm.get("link.out_bytes", 0) + tm.get("link.in_bytes", 0),
                    "clusters": tm.get("ldesc.clusters", 0)}
    for w in WORKLOADS:
        for d in DESIGNS:
            if (w, d) not in out:
                sys.exit(f"{w}: missing run {d}")
            if out[(w, d)]["warp_instructions"] != out[(w, "xor")]["warp_instructions"]:
                sys.exit(f"{w} under {d}: {out[(w, d)]['warp_instructions']} warp "
                         f"instructions, baseline {out[(w, 'xor')]['warp_instructions']}")
    return out


def speedups(runs, base):
    return {d: {w: runs[(w, base)]["cycles"] / runs[(w, d)]["cycles"] - 1 for w in WORKLOADS}
            for d in DESIGNS}


def write_table(runs, path):
    ws = list(WORKLOADS)
    sx, sf = speedups(runs, "xor"), speedups(runs, "first-touch")
    eff = {d: mean(runs[(w, d)]["efficiency"] for w in ws) for d in DESIGNS}
    L = ["# Locality Descriptor NUMA evaluation", "",
         f"Generated by `bench/numa_eval.py` (docs/ldesc.md), preset {PRESET}.", "",
         "| figure | paper | ours |", "|---|---|---|",
         f"| Locality Descriptor (all) over the XOR baseline | +{PAPER['vs_xor']}% (up to "
         f"{PAPER['vs_xor_max']}×) | {pct(geomean_change(sx['ldesc'].values()))} (up to "
         f"{1 + max(sx['ldesc'].values()):.2f}×) |",
         f"| Locality Descriptor (all) over FirstTouch | +{PAPER['vs_ft']}% (up to "
         f"{PAPER['vs_ft_max']}×) | {pct(geomean_change(sf['ldesc'].values()))} (up to "
         f"{1 + max(sf['ldesc'].values()):.2f}×) |",
         f"| FirstTouch over the XOR baseline | — | {pct(geomean_change(sx['first-touch'].values()))} |",
         f"| placement only over the XOR baseline | — | {pct(geomean_change(sx['placement'].values()))} |",
         f"| placement and CTA partitioning (ldesc.mode = cta) over the XOR baseline | — | "
         f"{pct(geomean_change(sx['ldesc-cta'].values()))} |"]
    for d, name in [("xor", "XOR baseline"), ("first-touch", "FirstTouch"),
                    ("placement", "placement only"), ("ldesc-cta", "placement + partitioning"),
                    ("ldesc", "Locality Descriptor (all)")]:
        paper = f"{PAPER['eff'][d]}%" if d in PAPER["eff"] else "—"
        L.append(f"| access efficiency, {name} | {paper} | {pct(eff[d], False)} |")
    L += ["", "## Per workload", "",
          "| workload | speedup over XOR: first-touch / placement / ldesc-cta / ldesc | "
          "access efficiency xor / first-touch / placement / ldesc-cta / ldesc | "
          "L1 hit rate xor / ldesc | link bytes xor / ldesc |", "|---|---|---|---|---|"]
    for w in ws:
        r = {d: runs[(w, d)] for d in DESIGNS}
        L.append(f"| {w} | " + " / ".join(pct(sx[d][w]) for d in list(DESIGNS)[1:]) + " | " +
                 " / ".join(pct(r[d]["efficiency"], False) for d in DESIGNS) + " | " +
                 f"{pct(r['xor']['l1_hit_rate'], False)} / {pct(r['ldesc']['l1_hit_rate'], False)}"
                 f" | {r['xor']['link_bytes']} / {r['ldesc']['link_bytes']} |")
    with open(path, "w") as fh:
        fh.write("\n".join(L) + "\n")
    return sx, sf, eff


def main():
    ap = sweeprun.arguments(__doc__, ROOT)
    ap.add_argument("--docs", action="store_true",
                    help="also copy the plots (SVG) into docs/ for docs/ldesc.md")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    out = os.path.abspath(a.out or os.path.join(build, "numa-eval"))
    os.makedirs(out, exist_ok=True)
    sweep = os.path.join(out, "numa.toml")
    sweep_file(sweep, build)
    res_dir = os.path.join(out, "sweep")
    sweeprun.run(build, sweep, res_dir, a.jobs, a.backend, a.sweep_arg)
    runs = load_runs(res_dir)
    with open(os.path.join(out, "results.json"), "w") as fh:
        json.dump({"runs": {f"{k[0]}|{k[1]}": v for k, v in sorted(runs.items())}}, fh,
                  indent=1, sort_keys=True)
    sx, sf, eff = write_table(runs, os.path.join(out, "numa.md"))
    ws, ds = list(WORKLOADS), list(DESIGNS)[1:]
    mpl.bars(os.path.join(out, "numa-speedup.svg"),
             f"NUMA placement: speedup over the XOR baseline, {PRESET}", "speedup", ws, ds,
             [[1 + sx[d][w] for w in ws] for d in ds], baseline=1.0)
    mpl.bars(os.path.join(out, "numa-efficiency.svg"),
             f"Access efficiency (local share of memory-side accesses), {PRESET}",
             "local accesses", ws + ["mean"], list(DESIGNS),
             [[runs[(w, d)]["efficiency"] for w in ws] + [eff[d]] for d in DESIGNS])
    if a.docs:
        for name in ["numa-speedup.svg", "numa-efficiency.svg"]:
            shutil.copyfile(os.path.join(out, name), os.path.join(ROOT, "docs", name))
    for d in ds:
        print(f"{d:12s} over xor {pct(geomean_change(sx[d].values()))}, over first-touch "
              f"{pct(geomean_change(sf[d].values()))}, access efficiency {pct(eff[d], False)}")
    print(f"xor          access efficiency {pct(eff['xor'], False)}")
    print(f"table: {os.path.join(out, 'numa.md')}")


if __name__ == "__main__":
    main()
