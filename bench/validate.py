#!/usr/bin/env python3
"""Validates the timing model against published hardware figures.

Compiles the microbenchmarks of bench/ubench/ with the built xgpu-cc (into a temporary
directory), runs every metric on every preset in timing mode and prints one table:
preset, metric, the xgpu value, the published figure it is compared with, their ratio,
the target and whether it is met. docs/validation.md describes each microbenchmark.

Targets:
  lat.*        load-to-use latency, or the dependent latency of an execution unit
               (lat.iadd, lat.imad, lat.fadd, lat.ffma, lat.dfma, lat.sfu), within +-20%
               of the published figure (bench/ubench/published.json: a hardware
               measurement where one exists, else a documented or simulator
               configuration's figure, marked so)
  tput.*       operations per cycle per SM of an execution unit within +-20% of the
               CUDA Programming Guide's throughput for the generation
  bw.<op>.full streaming read/copy at full occupancy reaches 75% of the preset's peak
               DRAM bandwidth, channels x burst_bytes / burst_cycles x DRAM clock
  bw.<op>.*    bandwidth does not fall as occupancy rises (1blk -> quarter -> full):
               each level reaches 99% of the one below
  other rows   reported with the figure they relate to, no target
A preset that reproduces a paper's simulator rather than a GPU (published.json,
"paper_machines") has no target on the execution-unit rows: they are marked "paper
machine".

usage: bench/validate.py [--build DIR] [--presets a,b] [--metrics m1,m2] [--scale F]
                         [--jobs N] [--markdown FILE] [--csv FILE] [--json FILE] [--force]

--metrics takes names or prefixes (lat, bw.read4, atom.same); --scale multiplies every
size and iteration count (0.25 for a quick look; sizes never drop below what the metric
needs). The table is also written as markdown, CSV or JSON on request; an existing file
is replaced only with --force. Every error is one line naming the program and preset,
exit status 1.
"""
import argparse
import concurrent.futures
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import resultfile  # noqa: E402  (bench/resultfile.py)

HERE = os.path.dirname(os.path.abspath(__file__))
UBENCH = os.path.join(HERE, "ubench")
PROGRAMS = ("chase", "stream", "shared", "atomics", "arith")
PRESETS = ("gtx480", "kepler", "maxwell", "rtx2060", "accelsim-rtx2060")
# execution-unit operations of arith.cu, in the order of the table
UNIT_OPS = ("iadd", "imad", "fadd", "ffma", "dfma", "sfu")
OCCUPANCY = ("1blk", "quarter", "full")


class Failure(Exception):
    """An error the user sees as one line."""


def die(msg):
    sys.exit(f"validate.py: error: {msg}")


def preset_config(build, preset):
    """The resolved configuration of a preset, or Failure naming it."""
    run = os.path.join(build, "bin", "xgpu-run")
    try:
        out = subprocess.run([run, "--config", preset, "--dump-config"], capture_output=True,
                             text=True, timeout=60)
    except OSError as e:
        raise Failure(f"cannot run {run}: {e.strerror}")
    if out.returncode:
        why = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise Failure(f"preset '{preset}' is not usable: {why}")
    cfg = {}
    for line in out.stdout.splitlines():
        line = line.split("#", 1)[0].strip()
        if "=" in line:
            k, v = (x.strip() for x in line.split("=", 1))
            cfg[k] = v
    return cfg


def peak_bytes_per_cycle(cfg):
    return (int(cfg["dram.channels"]) * int(cfg["dram.burst_bytes"]) /
            int(cfg["dram.burst_cycles"]) * int(cfg["dram.clock_khz"]) /
            int(cfg["gpu.clock_khz"]))


def metrics(scale):
    """Every metric: name -> (program, args(cfg), field, unit). Sizes scale with `scale`."""
    def n(base, least=1):
        return str(max(least, int(base * scale)))
    m = {}
    # pointer chases: L1 (4 KB), L2 (256 KB: over every preset's L1, under its L2),
    # DRAM (16 MB, cold: the timed hops are the first touch)
    for level, fp, warm in (("l1", 4096, 1), ("l2", 262144, 1), ("dram", 16 << 20, 0)):
        for order in ("seq", "rand"):
            m[f"lat.{level}.{order}"] = ("chase", lambda c, o=order, f=fp, w=warm:
                                         [o, str(f), "128", n(2048, 64), str(w)],
                                         "latency", "cycles")
    m["lat.shared"] = ("shared", lambda c: ["lat", n(1024, 64)], "latency", "cycles")
    # execution units: one warp's dependent chain (256 operations a loop iteration), and
    # every warp the SM holds with 8 independent chains per thread
    for op in UNIT_OPS:
        m[f"lat.{op}"] = ("arith", lambda c, op=op: ["lat", op, n(8)], "latency", "cycles")
    for op in UNIT_OPS:
        m[f"tput.{op}"] = ("arith", lambda c, op=op: ["tput", op, "0", n(8)],
                           "ops_per_cycle_per_sm", "ops/cycle/SM")
    mbytes = n(8, 2)
    for op in ("read", "copy"):
        for width in ("4", "16"):
            for occ in OCCUPANCY:
                m[f"bw.{op}{width}.{occ}"] = (
                    "stream", lambda c, op=op, w=width, occ=occ:
                    [op, w, str(warps(c, occ)), mbytes], "bytes_per_cycle", "B/cycle")
    m["bw.l2"] = ("stream", lambda c: ["l2", "16", "0", "256", n(4)], "bytes_per_cycle",
                  "B/cycle")
    m["bw.shared"] = ("shared", lambda c: ["bw", "0", n(64, 8)], "bytes_per_cycle_per_sm",
                      "B/cycle/SM")
    for kind in ("same", "distinct"):
        m[f"atom.{kind}"] = ("atomics", lambda c, k=kind: [k, "0", n(32, 4)],
                             "atomics_per_cycle", "atomics/cycle")
    # set conflicts: 2 x ways lines 4 KB or 8 KB apart, read round and round
    for kb in (4, 8):
        m[f"l1sets.{kb}k"] = ("chase", lambda c, kb=kb:
                              ["sets", str(kb * 1024), str(2 * int(c["l1.ways"])),
                               n(1024, 64)], "l1.hit_rate", "L1 hit rate")
    return m


def warps(cfg, occ):
    most = int(cfg["gpu.max_threads_per_sm"]) // 32
    return {"1blk": 4, "quarter": max(4, most // 4), "full": 0}[occ]


def compile_all(build, tmp, programs):
    cc = os.path.join(build, "bin", "xgpu-cc")
    if not os.access(cc, os.X_OK):
        raise Failure(f"no xgpu-cc in {build}/bin (build it, or pass --build DIR)")

    def one(prog):
        src = os.path.join(UBENCH, prog + ".cu")
        out = subprocess.run([cc, "-O2", src, "-o", os.path.join(tmp, prog)],
                             capture_output=True, text=True)
        if out.returncode:
            first = (out.stderr.strip().splitlines() or ["no output"])[0]
            raise Failure(f"xgpu-cc failed on bench/ubench/{prog}.cu: {first}")
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for f in [pool.submit(one, p) for p in programs]:
            f.result()


def run_metric(tmp, preset, cfg, name, spec):
    """Runs one metric; returns (value, printed fields, the last launch's timing counters)."""
    prog, args, field, _ = spec
    argv = [os.path.join(tmp, prog)] + args(cfg)
    fd, stats = tempfile.mkstemp(suffix=".json", dir=tmp)
    os.close(fd)
    env = dict(os.environ, XGPU_CONFIG=preset, XGPU_MODE="timing", XGPU_STATS=stats)
    env.pop("XGPU_SET", None)
    try:
        out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800)
    except subprocess.TimeoutExpired:
        raise Failure(f"{prog} ({name}) on {preset} ran over 30 minutes")
    fields = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                fields[parts[0]] = float(parts[1])
            except ValueError:
                pass
    if out.returncode or "PASS" not in out.stdout.split():
        why = (out.stderr.strip().splitlines() or out.stdout.strip().splitlines() or
               [f"exit status {out.returncode}"])[-1]
        raise Failure(f"{prog} {' '.join(argv[1:])} ({name}) failed on {preset}: {why}")
    try:
        with open(stats) as f:
            timing = json.load(f)["launches"][-1]["timing"]
    except (OSError, ValueError, KeyError, IndexError) as e:
        raise Failure(f"{prog} ({name}) on {preset}: no statistics ({e})")
    finally:
        os.unlink(stats)
    if field in fields:
        value = fields[field]
    elif timing.get(field) is not None:
        value = float(timing[field])
    else:
        raise Failure(f"{prog} ({name}) on {preset} printed no '{field}'")
    return value, fields, timing


def load_published():
    path = os.path.join(UBENCH, "published.json")
    try:
        with open(path) as f:
            doc = json.load(f)
        return doc["figures"], doc["sources"], doc.get("paper_machines", {})
    except (OSError, ValueError, KeyError) as e:
        die(f"{path}: {e}")


def unit_metric(metric):
    """True for the execution-unit rows (arith.cu)."""
    return metric.split(".")[0] in ("lat", "tput") and metric.split(".")[-1] in UNIT_OPS


def published_for(figures, preset, metric):
    """The figure a metric is compared with: hw first, then any other kind."""
    hits = [f for f in figures if f["preset"] in (preset, "*") and
            (metric == f["metric"] or metric.startswith(f["metric"] + "."))]
    hits.sort(key=lambda f: f["kind"] != "hw")
    return hits[0] if hits else None


def counters_note(name, timing, fields):
    """What the counters say about a row, briefly."""
    def pct(key):
        v = timing.get(key)
        return "-" if v is None else f"{100 * v:.0f}%"
    if unit_metric(name):
        return unit_note(name, timing, fields)
    if name.startswith("lat.") and name != "lat.shared":
        return f"L1 hits {pct('l1.hit_rate')}, L2 hits {pct('l2.hit_rate')}, " \
               f"DRAM row hits {pct('dram.row_hit_rate')}"
    if name.startswith("bw.") and name not in ("bw.shared", "bw.l2"):
        return f"DRAM row hits {pct('dram.row_hit_rate')}, occupancy {pct('occupancy')}, " \
               f"{fields.get('gbps', 0):.0f} GB/s"
    if name.startswith("l1sets."):
        return f"{fields.get('latency', 0):.0f} cycles per load"
    if name == "bw.l2":
        return f"L2 hits {pct('l2.hit_rate')}, L1 hits {pct('l1.hit_rate')}"
    return ""


def unit_note(name, timing, fields):
    """An execution-unit row's counters: register-bank conflicts and unit-busy stalls per
    warp instruction, and the warps per SM of a throughput row."""
    insns = timing.get("core.warp_instructions") or 0
    parts = []
    if name.startswith("tput."):
        parts.append(f"{fields.get('warps_per_sm', 0):.0f} warps/SM")
    for key, what in (("rf.bank_conflicts", "bank conflicts"),
                      ("stall.unit_busy", "unit-busy stalls")):
        v = timing.get(key)
        if v is not None and insns:
            parts.append(f"{what} {v / insns:.2f}/insn")
    return ", ".join(parts)


def judge(rows):
    """Fills ratio, target and result of every row (needs all rows of a preset)."""
    by = {(r["preset"], r["metric"]): r for r in rows}
    for r in rows:
        name, ref = r["metric"], r["published"]
        r["ratio"] = r["xgpu"] / ref if ref else None
        r["target"], r["ok"] = "", None
        if (name.startswith("lat.") or name.startswith("tput.")) and ref:
            r["target"] = "+-20%"
            r["ok"] = 0.8 <= r["ratio"] <= 1.2
        elif name.startswith("bw.") and name.split(".")[-1] in OCCUPANCY:
            occ = name.split(".")[-1]
            checks, parts = [], []
            if occ == "full":
                checks.append(r["ratio"] >= 0.75)
                parts.append(">=75% of peak")
            if occ != "1blk":
                below = OCCUPANCY[OCCUPANCY.index(occ) - 1]
                lower = by.get((r["preset"], name.rsplit(".", 1)[0] + "." + below))
                if lower:
                    checks.append(r["xgpu"] >= 0.99 * lower["xgpu"])
                    parts.append(f">= {below}")
            r["target"] = ", ".join(parts)
            r["ok"] = all(checks) if checks else None


def fmt(v, digits=3):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return f"{v:.0f}"
    return f"{v:.{digits}g}"


COLUMNS = ("preset", "metric", "unit", "xgpu", "published", "ratio", "target", "result",
           "compared with", "counters")


def cells(r):
    result = {True: "ok", False: "MISS", None: "-"}[r["ok"]]
    return [r["preset"], r["metric"], r["unit"], fmt(r["xgpu"]), fmt(r["published"]),
            fmt(r["ratio"], 2), r["target"] or "-", result, r["ref"] or "-", r["note"]]


def text_table(rows):
    table = [list(COLUMNS)] + [cells(r) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(COLUMNS))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip()
                     for row in table)


def markdown_table(rows):
    def esc(s):
        return s.replace("|", "\\|")
    out = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    out += ["| " + " | ".join(esc(c) for c in cells(r)) + " |" for r in rows]
    return "\n".join(out) + "\n"


def write_new(path, text, force):
    """Writes a result file (resultfile.py); an existing one is replaced only with --force."""
    err = resultfile.write_new(path, text, force)
    if err:
        die(err)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--metrics", default="")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--markdown")
    ap.add_argument("--csv")
    ap.add_argument("--json")
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    for out in (a.markdown, a.csv, a.json):  # before hours of runs, not after
        if out and os.path.lexists(out) and not a.force:
            die(f"{out}: exists (--force replaces it)")
    if not a.scale > 0 or a.jobs < 1:
        die("--scale must be positive and --jobs at least 1")
    presets = [p for p in a.presets.split(",") if p]
    if not presets:
        die("--presets names no preset")
    table = metrics(a.scale)
    wanted = [w for w in a.metrics.split(",") if w]
    def match(m, w):
        return m == w or m.startswith(w + ".")
    names = [m for m in table if not wanted or any(match(m, w) for w in wanted)]
    unknown = [w for w in wanted if not any(match(m, w) for m in table)]
    if unknown:
        die(f"unknown metric '{unknown[0]}' (metrics: {', '.join(table)})")
    figures, _, paper = load_published()
    tmp = tempfile.mkdtemp(prefix="xgpu-validate-")
    try:
        try:
            cfgs = {p: preset_config(a.build, p) for p in presets}
            compile_all(a.build, tmp, sorted({table[m][0] for m in names}))
            jobs = [(p, m) for p in presets for m in names]
            with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
                futs = {pool.submit(run_metric, tmp, p, cfgs[p], m, table[m]): (p, m)
                        for p, m in jobs}
                results = {}
                for f in concurrent.futures.as_completed(futs):
                    results[futs[f]] = f.result()
        except Failure as e:
            die(str(e))
        rows = []
        for p, m in jobs:
            value, fields, timing = results[(p, m)]
            unit = table[m][3]
            ref, refname = None, ""
            if m.startswith("bw.") and m.split(".")[-1] in OCCUPANCY:
                ref, refname = peak_bytes_per_cycle(cfgs[p]), "config peak DRAM"
            elif p in paper and unit_metric(m):
                refname = f"paper machine: {paper[p]}"
            else:
                fig = published_for(figures, p, m)
                if fig:
                    ref = float(fig["value"])
                    refname = f"{fig['device']} [{fig['source']}, {fig['kind']}]"
            rows.append({"preset": p, "metric": m, "unit": unit, "xgpu": value,
                         "published": ref, "ref": refname,
                         "note": counters_note(m, timing, fields)})
        judge(rows)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(text_table(rows))
    if a.markdown:
        write_new(a.markdown, markdown_table(rows), a.force)
    if a.csv:
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow(cells(r))
        write_new(a.csv, buf.getvalue(), a.force)
    if a.json:
        write_new(a.json, json.dumps(rows, indent=1) + "\n", a.force)
    misses = sum(1 for r in rows if r["ok"] is False)
    print(f"{len(rows)} rows, {sum(1 for r in rows if r['ok'])} within target, "
          f"{misses} missing it")


if __name__ == "__main__":
    main()
