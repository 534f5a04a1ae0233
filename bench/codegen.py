#!/usr/bin/env python3
"""xgpu-cc's device code beside NVIDIA's ptxas, kernel by kernel.

For every kernel of every sample (and of any further .cu file named on the command line)
prints one row: whether xgpu's code has a loop, xgpu's static instruction count and
registers, ptxas's for sm_75 when a CUDA toolkit is there, their ratios, and the
kernel's launches and warp instructions per launch in one functional-mode run of the
program at its default input; then the geometric means of the ratios and, over the
straight-line kernels, how many of xgpu's instructions each known pattern accounts for.
docs/codegen.md describes the method and the results.

  xgpu static count  the kernel's code_count in `xgpu-objdump --json`: every instruction
                     of the kernel, its `exit` included; the CABA assist routines that
                     every device binary carries are not part of any kernel
  ptxas static count `nvcc -cubin -arch=sm_75 -O3`: the size of the cubin's
                     .text.<kernel> section / 16 bytes, less ptxas's padding at the end
                     (the NOPs, opcode 0x918, and before them the branch to itself,
                     opcode 0x947, that ends every function); the opcode is the low 12
                     bits of each instruction's first 64-bit little-endian word
  ptxas registers    `-Xptxas -v`'s "Used N registers" for the entry function
  class              "loop" when xgpu's code has a backward branch (a bra or brc whose
                     target pc <= its own pc), else "straight"

Kernels are matched by their mangled names. The toolkit is looked for in --cuda DIR, or
else in $CUDA_HOME, $CUDA_PATH, the directory above the nvcc on PATH and /usr/local/cuda;
without one (or with --no-ptxas) the ptxas columns are left out with a note. nvcc
failing on a program is shown in its rows, and the run goes on.

usage: bench/codegen.py [--build DIR] [--samples a,b | --samples none] [--no-ptxas]
                        [--cuda DIR] [--no-run] [--jobs N] [--timeout S]
                        [--markdown FILE] [--json FILE] [--force] [FILE.cu ...]
       bench/codegen.py --cubin FILE

--cubin prints, for a cubin made by nvcc for sm_75, each function's instruction count by
the method above and its registers (from the section header), and nothing else.

A .cu file is compiled with the build's xgpu-cc (-O2 -g, as the samples are) and run
without arguments. An existing output file is replaced only with --force. Every error is
one line naming the program (and the kernel, where there is one); exit status 1.
"""
import argparse
import concurrent.futures
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import resultfile  # noqa: E402  (bench/resultfile.py)

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
PROG = "codegen.py"
ARCH = "sm_75"
NVCC_FLAGS = ["-cubin", f"-arch={ARCH}", "-O3", "-Xptxas", "-v"]

# sm_75 opcodes (low 12 bits of an instruction's first word) of ptxas's padding
SASS_NOP, SASS_BRA = 0x918, 0x947
SASS_SELF_OFFSET = 0xfffffff0  # BRA's offset field (bits 32-63): -16, the branch itself


class Failure(Exception):
    """An error the user sees as one line."""


def die(msg):
    sys.exit(f"{PROG}: error: {msg}")


def last_line(text):
    lines = [l.strip() for l in (text or "").splitlines() if l.strip()]
    return lines[-1] if lines else "no output"


def first_error(text):
    """The first line of a compiler's output that says error, else its last line."""
    for line in (text or "").splitlines():
        if "error" in line:
            return line.strip()
    return last_line(text)


def run_cmd(argv, timeout, **kw):
    """subprocess.run with an argument list; Failure with one line when it cannot start
    or runs past timeout."""
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)
    except OSError as e:
        raise Failure(f"cannot run {argv[0]}: {e.strerror}")
    except subprocess.TimeoutExpired:
        raise Failure(f"{os.path.basename(argv[0])} ran past {timeout} s")


# ---------------------------------------------------------------------------- ptxas


def find_nvcc(cuda_dir):
    """(nvcc path, toolkit directory) or (None, where it was looked for)."""
    if cuda_dir:
        nvcc = os.path.join(cuda_dir, "bin", "nvcc")
        if not os.access(nvcc, os.X_OK):
            die(f"--cuda {cuda_dir}: no bin/nvcc there")
        return nvcc, cuda_dir
    places = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    on_path = shutil.which("nvcc")
    if on_path:
        places.append(os.path.dirname(os.path.dirname(os.path.realpath(on_path))))
    places.append("/usr/local/cuda")
    for d in places:
        if d and os.access(os.path.join(d, "bin", "nvcc"), os.X_OK):
            return os.path.join(d, "bin", "nvcc"), d
    return None, "$CUDA_HOME, $CUDA_PATH, PATH or /usr/local/cuda"


def nvcc_version(nvcc):
    try:
        out = run_cmd([nvcc, "--version"], 60)
    except Failure:
        return None
    m = re.search(r"release ([0-9.]+), (V[0-9.]+)", out.stdout)
    return f"{m.group(1)} ({m.group(2)})" if m else None


def make_shim(tmp):
    """An include directory that lets nvcc read xgpu's annotation headers (<xgpu/xmem.h>,
    <xgpu/ldesc.h>): copies of them whose own include of xgpu's cuda_runtime_api.h reaches
    the toolkit's instead. The samples' host code also uses clang's __builtin_COLUMN,
    which nvcc's front end lacks; NVCC_SHIM_DEFINES stands it in."""
    shim = os.path.join(tmp, "nvcc-include")
    os.makedirs(os.path.join(shim, "xgpu", "cuda"))
    src = os.path.join(SOURCE, "include", "xgpu")
    for name in ("xmem.h", "ldesc.h"):
        if os.path.isfile(os.path.join(src, name)):
            shutil.copy(os.path.join(src, name), os.path.join(shim, "xgpu", name))
    with open(os.path.join(shim, "xgpu", "cuda", "cuda_runtime_api.h"), "w") as f:
        f.write("#include <cuda_runtime_api.h>\n")
    return shim


NVCC_SHIM_DEFINES = ["-D__builtin_COLUMN()=0"]


def elf_sections(data, what):
    """{name: (sh_info, bytes)} of a 64-bit little-endian ELF file; Failure when it is not
    one or its section table does not fit."""
    if data[:6] != b"\x7fELF\x02\x01" or len(data) < 64:
        raise Failure(f"{what}: not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    if shentsize < 64 or shstrndx >= shnum or shoff + shnum * shentsize > len(data):
        raise Failure(f"{what}: truncated ELF section table")
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
             for i in range(shnum)]
    def body(h):
        if h[1] == 8:  # SHT_NOBITS
            return b""
        if h[4] + h[5] > len(data):
            raise Failure(f"{what}: a section lies past the end of the file")
        return data[h[4]:h[4] + h[5]]
    names = body(heads[shstrndx])
    out = {}
    for h in heads:
        end = names.find(b"\0", h[0])
        if h[0] >= len(names) or end < 0:
            raise Failure(f"{what}: a section name lies outside the string table")
        out[names[h[0]:end].decode("latin-1")] = (h[7], body(h))
    return out


def sass_count(code, what):
    """Instructions of one sm_75 function, ptxas's padding at its end left out."""
    if len(code) % 16:
        raise Failure(f"{what}: code size {len(code)} is not a multiple of 16 bytes")
    words = [struct.unpack_from("<Q", code, i)[0] for i in range(0, len(code), 16)]
    n = len(words)
    while n and words[n - 1] & 0xfff == SASS_NOP:
        n -= 1
    if n and words[n - 1] & 0xfff == SASS_BRA and words[n - 1] >> 32 == SASS_SELF_OFFSET:
        n -= 1
    return n


def cubin_functions(path):
    """[(function, instructions, registers)] of every .text.<function> section of an
    sm_75 cubin; the registers from the section's sh_info (bits 24-31), where ptxas
    records the count that -v prints."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Failure(f"{path}: {e.strerror}")
    out = []
    for name, (info, code) in elf_sections(data, path).items():
        if name.startswith(".text."):
            out.append((name[6:], sass_count(code, f"{path}: {name}"), info >> 24))
    return out


def ptxas_kernels(nvcc, shim, src, tmp, timeout):
    """{mangled kernel: {"insns", "regs"}} of src compiled by nvcc for sm_75; Failure
    with nvcc's first error line when it fails."""
    name = os.path.basename(src)
    cubin = os.path.join(tmp, os.path.splitext(name)[0] + f".{ARCH}.cubin")
    argv = [nvcc] + NVCC_FLAGS + ["-I", shim] + NVCC_SHIM_DEFINES + [src, "-o", cubin]
    out = run_cmd(argv, timeout, cwd=tmp)
    if out.returncode:
        raise Failure(f"nvcc failed: {first_error(out.stderr + out.stdout)}")
    regs, current = {}, None
    for line in (out.stdout + out.stderr).splitlines():
        m = re.search(r"Compiling entry function '([^']+)' for", line)
        if m:
            current = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            regs[current] = int(m.group(1))
            current = None
    with open(cubin, "rb") as f:
        sections = elf_sections(f.read(), f"{name}: cubin")
    kernels = {}
    for kernel, r in regs.items():
        sec = sections.get(".text." + kernel)
        if sec is None:
            raise Failure(f"kernel {kernel}: no .text.{kernel} section in the cubin")
        kernels[kernel] = {"insns": sass_count(sec[1], f"kernel {kernel}"), "regs": r}
    return kernels


# ---------------------------------------------------------------------------- xgpu

BRANCHES = {"bra": 0, "brc": 1}  # opcode: which operand is the target


def operands(text):
    parts = text.split(None, 1)
    return parts[0], [o.strip() for o in parts[1].split(",")] if len(parts) > 1 else []


def is_loop(insns, count):
    """Whether the code has a backward branch (target pc <= the branch's pc)."""
    for ins in insns:
        op, ops = operands(ins["text"])
        which = BRANCHES.get(op.split(".")[0])
        if which is None or which >= len(ops):
            continue
        target = ops[which]
        pc = count if target == "exit" else int(target[1:]) if re.fullmatch(r"L\d+", target) else None
        if pc is None:
            raise Failure(f"cannot read the branch target of '{ins['text']}'")
        if pc <= ins["pc"]:
            return True
    return False


def xgpu_kernels(objdump, exe, timeout):
    """[{name, regs, insns, loop, code}] of every kernel of a program, from xgpu-objdump."""
    out = run_cmd([objdump, "--json", "--section", "kernels", "--section", "text", exe],
                  timeout)
    if out.returncode:
        raise Failure(f"xgpu-objdump: {last_line(out.stderr)}")
    try:
        doc = json.loads(out.stdout)
    except ValueError as e:
        raise Failure(f"xgpu-objdump printed no JSON: {e}")
    kernels = []
    for inp in doc.get("inputs", []):
        for mod in inp.get("modules", []):
            for k in mod.get("kernels", []):
                code = k.get("instructions", [])
                try:
                    loop = is_loop(code, k["code_count"])
                except Failure as e:
                    raise Failure(f"kernel {k['name']}: {e}")
                kernels.append({"name": k["name"], "regs": k["regs"],
                                "insns": k["code_count"], "loop": loop,
                                "code": [c["text"] for c in code]})
    if not kernels:
        raise Failure("no kernels in its device code")
    return kernels


def run_functional(exe, tmp, timeout):
    """{kernel: [launches, warp instructions]} of one functional-mode run."""
    stats = os.path.join(tmp, os.path.basename(exe) + ".stats.json")
    env = dict(os.environ, XGPU_MODE="functional", XGPU_STATS=stats)
    out = run_cmd([exe], timeout, env=env, cwd=tmp)
    if out.returncode:
        raise Failure(f"exits with status {out.returncode}: "
                      f"{last_line(out.stderr or out.stdout)}")
    try:
        with open(stats) as f:
            launches = json.load(f)["launches"]
    except (OSError, ValueError, KeyError) as e:
        raise Failure(f"no statistics from the run ({e})")
    per = {}
    for l in launches:
        if l.get("status") != "ok":
            raise Failure(f"kernel {l.get('name')}: launch ended with '{l.get('status')}'")
        n = per.setdefault(l["name"], [0, 0])
        n[0] += 1
        n[1] += l["warp_instructions"]
    return per


# ---------------------------------------------------------------------------- patterns

# What each pattern is, and what ptxas does instead (docs/codegen.md has the details).
PATTERNS = [
    ("param", "a kernel parameter copied into a register (ld.param, or mov from c[...])",
     "reads it as a c[0x0][...] operand: 0 instructions"),
    ("s2r.shape", "s2r of %ntid or %nctaid (blockDim, gridDim)",
     "reads c[0x0][0x0..0x14] as an operand: 0 instructions"),
    ("gaddr", "the address of a __device__ or __constant__ variable",
     "reads it from the constant bank as an operand: 0 instructions"),
    ("mov.imm", "mov of an immediate",
     "an immediate operand of the instruction using it (mostly): 0 instructions"),
    ("addr64.global", "64-bit address arithmetic of a global access (cvt to 64 bits, "
     "shl, add, mul, lea on 64 bits)", "one IMAD.WIDE or LEA per address: the excess"),
    ("addr64.shared", "64-bit arithmetic of a shared-memory address",
     "32-bit shared addresses, the index scale folded: one instruction per address at most"),
    ("mul+add", "mul whose only use is an add (32-bit integer, or fmul into fadd)",
     "one IMAD or FFMA: the excess is 1 per pair"),
    ("div.math", "division, remainder, square root or a math function (div, rem, fdiv, "
     "frem, fsqrt, math1, math2): one xgpu instruction each",
     "expands it inline, often with a slow-path subroutine in the same section: "
     "ptxas has more (not counted)"),
]
EXPANDED = {"div", "rem", "fdiv", "frem", "fsqrt", "math1", "math2"}

NODEST = {"st", "bra", "brc", "bar", "exit", "membar", "trap", "gsync", "wsync", "nop"}
REG = re.compile(r"^r(\d+)$")
MEM = re.compile(r"^\[(r\d+)?[^\]]*\]$")


def parse(text):
    """(base opcode, its suffixes, dest registers, source registers, memory base, the
    operands) of one instruction's text."""
    op, ops = operands(text)
    parts = op.split(".")
    ndst = 0 if parts[0] in NODEST else 2 if parts[0] in ("shfl", "hmma") else 1
    dsts, srcs, mem = [], [], None
    for i, o in enumerate(ops):
        m = MEM.match(o)
        if m:
            mem = m.group(1)
            if mem:
                srcs.append(mem)
        elif REG.match(o):
            (dsts if i < ndst else srcs).append(o)
    return parts[0], parts[1:], dsts, srcs, mem, ops


def wide_int(base, suffixes):
    """A 64-bit integer arithmetic instruction (its destination type is 64 bits)."""
    if base not in ("add", "sub", "shl", "mul", "mad", "lea", "cvt"):
        return False
    types = [s for s in suffixes if re.fullmatch(r"[usb](8|16|32|64)", s)]
    return bool(types) and types[0] in ("u64", "s64", "b64")


def kernel_patterns(code):
    """{pattern: [instructions in xgpu's code, excess over what ptxas needs]} of one
    kernel's code, by the definitions of PATTERNS. A register's definition is the last
    one before the use in program order, which is exact for straight-line code."""
    insns = [parse(t) for t in code]
    counts = {p[0]: [0, 0] for p in PATTERNS}
    last_def, def_of, uses = {}, [], {}
    for i, (base, suf, dsts, srcs, mem, ops) in enumerate(insns):
        def_of.append({r: last_def.get(r) for r in srcs})
        for r in srcs:
            d = last_def.get(r)
            if d is not None:
                uses.setdefault(d, []).append(i)
        for r in dsts:
            last_def[r] = i
    def bump(name, n=1, excess=1):
        counts[name][0] += n
        counts[name][1] += excess
    for i, (base, suf, dsts, srcs, mem, ops) in enumerate(insns):
        if (base == "ld" and suf[:1] == ["param"]) or (base == "mov" and ops[-1:] and
                                                        ops[-1].startswith("c[")):
            bump("param")
        elif base == "s2r" and ops[-1:] and re.match(r"%n(ctaid|tid)\.", ops[-1]):
            bump("s2r.shape")
        elif base == "gaddr":
            bump("gaddr")
        elif base in EXPANDED:
            bump("div.math", 1, 0)
        elif base == "mov" and ops and not REG.match(ops[-1]) and not ops[-1].startswith("%"):
            bump("mov.imm")
        elif base in ("mul", "fmul") and dsts and not wide_int(base, suf):
            u = uses.get(i, [])
            add = "add" if base == "mul" else "fadd"
            if len(u) == 1 and insns[u[0]][0] == add and not wide_int(*insns[u[0]][:2]):
                bump("mul+add", 2, 1)
    for space in ("global", "shared"):
        slice_, roots = set(), set()
        for i, (base, suf, dsts, srcs, mem, ops) in enumerate(insns):
            in_space = suf[:1] == [space] or (space == "global" and suf[:1] == ["generic"])
            if mem and base in ("ld", "st", "atom", "atomcas") and in_space:
                d = def_of[i].get(mem)
                if d is not None and wide_int(*insns[d][:2]):
                    roots.add(d)
                    work = [d]
                    while work:
                        j = work.pop()
                        if j in slice_ or not wide_int(*insns[j][:2]):
                            continue
                        slice_.add(j)
                        work += [k for k in def_of[j].values() if k is not None]
        counts["addr64." + space] = [len(slice_), len(slice_) - len(roots)]
    return counts


# ---------------------------------------------------------------------------- programs


def program_list(a, tmp):
    """[(name, source .cu, executable or None to compile)] in order; input errors die."""
    samples_dir = os.path.join(SOURCE, "samples")
    every = sorted(f[:-3] for f in os.listdir(samples_dir) if f.endswith(".cu"))
    if a.samples is None:
        chosen = every
    elif a.samples == "none":
        chosen = []
    else:
        chosen = [s for s in a.samples.split(",") if s]
        for s in chosen:
            if s not in every:
                die(f"--samples: no sample '{s}' in samples/")
    progs = []
    for s in chosen:
        exe = os.path.join(a.build, "samples", s)
        if not os.path.isfile(exe):
            die(f"{s}: {exe} does not exist (cmake --build {a.build} --target samples)")
        progs.append((s, os.path.join(samples_dir, s + ".cu"), os.path.abspath(exe)))
    names = {p[0] for p in progs}
    for f in a.files:
        if not f.endswith(".cu"):
            die(f"{f}: not a .cu file")
        if not os.path.exists(f):
            die(f"{f}: No such file or directory")
        if not os.path.isfile(f):
            die(f"{f}: not a regular file")
        name = os.path.basename(f)[:-3]
        while name in names:
            name += "_"
        names.add(name)
        progs.append((name, os.path.abspath(f), None))
    if not progs:
        die("nothing to measure (no sample chosen, no .cu file given)")
    return progs


def measure(a, tools, prog, tmp):
    """The rows of one program: [(row, None)] or [(None, error line)] entries."""
    name, src, exe = prog
    work = tempfile.mkdtemp(prefix=name + "-", dir=tmp)
    errors = []
    if exe is None:
        exe = os.path.join(work, name)
        out = run_cmd([tools["xgpu-cc"], "-O2", "-g", src, "-o", exe], a.timeout)
        if out.returncode:
            return [], [f"{name}: xgpu-cc failed: {first_error(out.stderr)}"]
    kernels = xgpu_kernels(tools["xgpu-objdump"], exe, a.timeout)
    dyn, ptx, ptx_note = None, {}, None
    if not a.no_run:
        try:
            dyn = run_functional(exe, work, a.timeout)
        except Failure as e:
            errors.append(f"{name}: {e}")
    if tools.get("nvcc"):
        try:
            ptx = ptxas_kernels(tools["nvcc"], tools["shim"], src, work, a.timeout)
        except Failure as e:
            ptx_note = str(e)
    rows = []
    for k in kernels:
        p = ptx.get(k["name"])
        d = dyn.get(k["name"], [0, 0]) if dyn is not None else None
        note = ptx_note or ""
        if tools.get("nvcc") and not p and not ptx_note:
            note = "not in nvcc's cubin"
        row = {"program": name, "kernel": k["name"], "name": short_name(k["name"]),
               "class": "loop" if k["loop"] else "straight",
               "expanded": sum(1 for t in k["code"] if t.split(".")[0] in EXPANDED),
               "xgpu_insns": k["insns"], "xgpu_regs": k["regs"],
               "ptxas_insns": p["insns"] if p else None,
               "ptxas_regs": p["regs"] if p else None,
               "insn_ratio": k["insns"] / p["insns"] if p else None,
               "reg_ratio": k["regs"] / p["regs"] if p and p["regs"] else None,
               "launches": d[0] if d else None,
               "warp_insns_per_launch": round(d[1] / d[0]) if d and d[0] else None,
               "note": note,
               "patterns": kernel_patterns(k["code"])}
        rows.append(row)
    return rows, errors


def short_name(mangled):
    """The source name of a kernel mangled as _Z<len><name>..., else the mangled name."""
    m = re.match(r"_Z(\d+)", mangled)
    if m:
        n, start = int(m.group(1)), m.end()
        if start + n <= len(mangled):
            return mangled[start:start + n]
    return mangled


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def summarize(rows, have_ptxas):
    s = {"kernels": len(rows)}
    if not have_ptxas:
        return s
    for cls in ("straight", "loop"):
        r = [x["insn_ratio"] for x in rows if x["class"] == cls and x["insn_ratio"]]
        s[cls] = {"kernels": len(r), "insn_ratio_geomean": geomean(r)}
    regs = [x["reg_ratio"] for x in rows if x["reg_ratio"]]
    s["regs"] = {"kernels": len(regs), "ratio_geomean": geomean(regs),
                 "ratio_min": min(regs) if regs else None,
                 "ratio_max": max(regs) if regs else None}
    straight = [x for x in rows if x["class"] == "straight" and x["insn_ratio"]]
    plain = [x for x in straight if not x["expanded"]]
    s["straight_plain"] = {"kernels": len(plain),
                           "insn_ratio_geomean": geomean([x["insn_ratio"] for x in plain])}
    for key, use in (("straight_totals", straight), ("straight_plain_totals", plain)):
        s[key] = {"xgpu": sum(x["xgpu_insns"] for x in use),
                  "ptxas": sum(x["ptxas_insns"] for x in use)}
    return s


def pattern_totals(rows):
    """The patterns summed over the straight-line kernels that ptxas compiled (over all
    straight-line kernels when there is no ptxas column)."""
    use = [x for x in rows if x["class"] == "straight"]
    if any(x["ptxas_insns"] is not None for x in rows):
        use = [x for x in use if x["ptxas_insns"] is not None]
    tot = {p[0]: [0, 0] for p in PATTERNS}
    for x in use:
        for k, (n, e) in x["patterns"].items():
            tot[k][0] += n
            tot[k][1] += e
    return tot, len(use)


# ---------------------------------------------------------------------------- output


def fmt(v, digits=2):
    if v is None:
        return "-"
    return f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def columns(have_ptxas, have_run):
    cols = [("program", "program"), ("kernel", "name"), ("class", "class"),
            ("xgpu insns", "xgpu_insns")]
    if have_ptxas:
        cols += [("ptxas insns", "ptxas_insns"), ("insn ratio", "insn_ratio")]
    cols += [("xgpu regs", "xgpu_regs")]
    if have_ptxas:
        cols += [("ptxas regs", "ptxas_regs"), ("reg ratio", "reg_ratio")]
    if have_run:
        cols += [("launches", "launches"), ("warp insns/launch", "warp_insns_per_launch")]
    if have_ptxas:
        cols += [("note", "note")]
    return cols


def table(rows, cols):
    return [[h for h, _ in cols]] + [[fmt(r[k]) for _, k in cols] for r in rows]


def summary_lines(s, tot, nstraight, have_ptxas):
    out = []
    if have_ptxas:
        for cls, what in (("straight", "straight-line"), ("loop", "loop")):
            c = s[cls]
            out.append(f"{what} kernels: {c['kernels']}, xgpu/ptxas static instructions, "
                       f"geometric mean {fmt(c['insn_ratio_geomean'])}")
        r = s["regs"]
        out.append(f"registers xgpu/ptxas over {r['kernels']} kernels: geometric mean "
                   f"{fmt(r['ratio_geomean'])}, min {fmt(r['ratio_min'])}, "
                   f"max {fmt(r['ratio_max'])}")
        p = s["straight_plain"]
        out.append(f"straight-line kernels without div.math: {p['kernels']}, geometric mean "
                   f"{fmt(p['insn_ratio_geomean'])}")
        for key, what in (("straight_totals", "straight-line kernels"),
                          ("straight_plain_totals", "those without div.math")):
            t = s[key]
            out.append(f"{what} in all: xgpu {t['xgpu']} instructions, ptxas "
                       f"{t['ptxas']}, difference {t['xgpu'] - t['ptxas']}")
    out.append(f"patterns in xgpu's code of the {nstraight} straight-line kernels "
               "(instructions; of them, more than ptxas needs):")
    for key, what, _ in PATTERNS:
        out.append(f"  {key:14} {tot[key][0]:5} {tot[key][1]:5}  {what}")
    return out


def text_out(rows, cols, lines):
    t = table(rows, cols)
    widths = [max(len(r[i]) for r in t) for i in range(len(cols))]
    body = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in t]
    return "\n".join(body + [""] + lines)


def markdown_out(rows, cols, s, tot, nstraight, meta, have_ptxas):
    def esc(v):
        return v.replace("|", "\\|")
    out = [f"Measured at commit {meta['commit']}"
           + (f", nvcc {meta['nvcc']} for {ARCH}" if meta["nvcc"] else "") + ".", ""]
    t = table(rows, cols)
    out += ["| " + " | ".join(t[0]) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in t[1:]]
    out += [""]
    if have_ptxas:
        out += ["| class | kernels | xgpu/ptxas static instructions, geometric mean |",
                "|---|---|---|"]
        for cls, what in (("straight", "straight-line"), ("straight_plain",
                          "straight-line without `div.math`"), ("loop", "loop")):
            out.append(f"| {what} | {s[cls]['kernels']} | {fmt(s[cls]['insn_ratio_geomean'])} |")
        out += ["", "| sums | xgpu | ptxas | difference |", "|---|---|---|---|"]
        for key, what in (("straight_totals", "straight-line kernels"),
                          ("straight_plain_totals", "straight-line without `div.math`")):
            t = s[key]
            out.append(f"| {what} | {t['xgpu']} | {t['ptxas']} | {t['xgpu'] - t['ptxas']} |")
        r = s["regs"]
        out += ["", "| registers xgpu/ptxas | geometric mean | min | max |", "|---|---|---|---|",
                f"| {r['kernels']} kernels | {fmt(r['ratio_geomean'])} | "
                f"{fmt(r['ratio_min'])} | {fmt(r['ratio_max'])} |", ""]
    out += [f"| pattern, over the {nstraight} straight-line kernels | xgpu instructions | "
            "more than ptxas needs | what ptxas does |", "|---|---|---|---|"]
    for key, what, ptxas in PATTERNS:
        out.append(f"| `{key}`: {esc(what)} | {tot[key][0]} | {tot[key][1]} | {esc(ptxas)} |")
    return "\n".join(out) + "\n"


def write_new(path, text, force):
    """Writes a result file (resultfile.py); an existing one is replaced only with --force."""
    err = resultfile.write_new(path, text, force)
    if err:
        die(err)


def commit():
    try:
        out = subprocess.run(["git", "-C", SOURCE, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=30)
        dirty = subprocess.run(["git", "-C", SOURCE, "status", "--porcelain", "--",
                                "passes", "include/xgpu/isa.def"],
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    if out.returncode:
        return "unknown"
    return out.stdout.strip() + (" (with uncommitted compiler changes)"
                                 if dirty.stdout.strip() else "")


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", metavar="FILE.cu")
    ap.add_argument("--build", default="build")
    ap.add_argument("--samples")
    ap.add_argument("--no-ptxas", action="store_true")
    ap.add_argument("--cuda")
    ap.add_argument("--no-run", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--markdown")
    ap.add_argument("--json")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--cubin")
    a = ap.parse_args()
    if a.cubin:
        try:
            for fn, n, regs in cubin_functions(a.cubin):
                print(f"{fn} {n} {regs}")
        except Failure as e:
            die(str(e))
        return
    for out in (a.markdown, a.json):  # before the runs, not after
        if out and os.path.lexists(out) and not a.force:
            die(f"{out}: exists (--force replaces it)")
    if a.jobs < 1 or a.timeout < 1:
        die("--jobs and --timeout must be at least 1")
    tools = {t: os.path.abspath(os.path.join(a.build, "bin", t))
             for t in ("xgpu-cc", "xgpu-objdump")}
    for t, path in tools.items():
        if not os.access(path, os.X_OK):
            die(f"{path}: no {t} in build directory {a.build} (--build DIR)")
    nvcc, where = (None, None) if a.no_ptxas else find_nvcc(a.cuda)
    if not a.no_ptxas and not nvcc:
        print(f"{PROG}: note: no CUDA toolkit (nvcc) in {where}: the ptxas columns are "
              "left out", file=sys.stderr)
    tmp = tempfile.mkdtemp(prefix="xgpu-codegen-")
    try:
        progs = program_list(a, tmp)
        if nvcc:
            tools["nvcc"], tools["shim"] = nvcc, make_shim(tmp)
        rows, errors = [], []
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            futs = [pool.submit(measure, a, tools, p, tmp) for p in progs]
            for p, f in zip(progs, futs):
                try:
                    r, e = f.result()
                except Failure as e1:
                    r, e = [], [f"{p[0]}: {e1}"]
                rows += r
                errors += e
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    have_ptxas = bool(nvcc)
    have_run = not a.no_run
    meta = {"commit": commit(), "nvcc": nvcc_version(nvcc) if nvcc else None,
            "arch": ARCH if nvcc else None}
    s = summarize(rows, have_ptxas)
    tot, nstraight = pattern_totals(rows)
    cols = columns(have_ptxas, have_run)
    lines = summary_lines(s, tot, nstraight, have_ptxas)
    print(text_out(rows, cols, lines), flush=True)
    for e in errors:
        print(f"{PROG}: error: {e}", file=sys.stderr)
    if a.markdown:
        write_new(a.markdown, markdown_out(rows, cols, s, tot, nstraight, meta, have_ptxas),
                  a.force)
    if a.json:
        doc = {"meta": meta, "kernels": rows, "summary": s,
               "patterns": {k: {"instructions": n, "excess": e} for k, (n, e) in tot.items()},
               "errors": errors}
        write_new(a.json, json.dumps(doc, indent=1) + "\n", a.force)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
