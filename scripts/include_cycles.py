#!/usr/bin/env python3
"""List the include cycles among the emulator's modules.

  scripts/include_cycles.py [BUILD_DIR]

A module is a header and the .c file of the same name beside it (timing/l1.h and
timing/l1.c), with its private header NAME_int.h (timing/memsys_int.h, which the files
that implement memsys.h share); a file without a partner is a module of its own. Module
A depends on B when a file of A includes B's header. The cycles printed are the
strongly connected groups of more than one module, each with its dependencies inside
the group. BUILD_DIR (default build) supplies the generated gen/mech_*.def
lists. Exits 1 when a group has more than two modules.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def module(emu, path):
    """The module of a file: its path without extension, a private header's _int dropped."""
    m = os.path.relpath(os.path.splitext(path)[0], emu)
    return m[:-4] if path.endswith("_int.h") else m


def graph(build):
    emu = os.path.join(ROOT, "emulator")
    search = [emu, os.path.join(ROOT, "include"), os.path.join(ROOT, build, "emulator", "gen")]
    deps = {}
    for d, _, files in os.walk(emu):
        for f in files:
            if not f.endswith((".c", ".h", ".def")):
                continue
            path = os.path.join(d, f)
            mod = module(emu, path)
            deps.setdefault(mod, set())
            for name in re.findall(r'#include "([^"]+)"', open(path, errors="replace").read()):
                for base in [d] + search:
                    p = os.path.normpath(os.path.join(base, name))
                    if os.path.exists(p):
                        if p.startswith(emu + os.sep):
                            other = module(emu, p)
                            if other != mod:
                                deps[mod].add(other)
                        break
    return deps


def groups(deps):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], 0
    for root in sorted(deps):
        if root in index:
            continue
        work = [(root, iter(sorted(deps[root])))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                deps.setdefault(w, set())
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(deps[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    deps = graph(build)
    worst = 0
    for g in groups(deps):
        worst = max(worst, len(g))
        print(f"{len(g)} modules:")
        for m in g:
            print(f"  {m} -> {', '.join(sorted(x for x in deps[m] if x in g))}")
    print(f"largest cycle: {worst} modules" if worst else "no include cycle")
    return 1 if worst > 2 else 0


if __name__ == "__main__":
    sys.exit(main())
