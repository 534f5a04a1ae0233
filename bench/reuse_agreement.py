#!/usr/bin/env python3
"""How often Memento's static reuse estimate agrees with the profile (docs/hints.md).

For every compiled sample: runs it in functional mode with XGPU_REUSE_PROFILE, reads the
static bits from `xgpu-objdump --json` of the same binary, and compares, over every
operand the profile counted with a majority (near != far), the profile's majority with
the static bit. Prints per sample the operands compared, the agreement, and the two
kinds of disagreement (static near / profile far, static far / profile near).

usage: bench/reuse_agreement.py [BUILD_DIR] [SAMPLE...]
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from functional import sample_names  # noqa: E402


def static_bits(build, exe):
    out = subprocess.run([os.path.join(build, "bin", "xgpu-objdump"), "--json", exe],
                         capture_output=True, text=True, check=True).stdout
    bits = {}
    for inp in json.loads(out)["inputs"]:
        for mod in inp["modules"]:
            for k in mod["kernels"]:
                bits[k["name"]] = [i.get("reuse", 0) for i in k["instructions"]]
    return bits


def profile(exe):
    with tempfile.NamedTemporaryFile(suffix=".prof") as f:
        env = dict(os.environ, XGPU_MODE="functional", XGPU_REUSE_PROFILE=f.name)
        run = subprocess.run([exe], env=env, capture_output=True, text=True)
        if run.returncode or "PASS" not in run.stdout:
            sys.exit(f"{exe} failed:\n{run.stdout}{run.stderr}")
        counts, kernel = {}, None
        for line in open(f.name).read().splitlines()[2:]:
            w = line.split()
            if w[0] == "kernel":
                kernel = w[1]
                counts.setdefault(kernel, [])
            else:
                counts[kernel].append(tuple(int(x) for x in w))
        return counts


def main():
    args = sys.argv[1:]
    build = args.pop(0) if args and not args[0].startswith("-") else "build"
    print(f"{'sample':12} {'operands':>9} {'agree':>7} {'static near':>12} {'static far':>11}")
    total = agree_all = 0
    for name in sample_names(args):
        exe = os.path.join(build, "samples", name)
        bits, counts = static_bits(build, exe), profile(exe)
        n = agree = snear = sfar = 0
        for kernel, recs in counts.items():
            for pc, slot, near, far in recs:
                if near == far:
                    continue
                n += 1
                s = bits[kernel][pc] >> slot & 1
                if s == (near > far):
                    agree += 1
                elif s:
                    snear += 1
                else:
                    sfar += 1
        total += n
        agree_all += agree
        print(f"{name:12} {n:9d} {agree / n if n else 0:7.1%} {snear:12d} {sfar:11d}")
    print(f"{'all':12} {total:9d} {agree_all / total if total else 0:7.1%}")


if __name__ == "__main__":
    main()
