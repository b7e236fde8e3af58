#!/usr/bin/env python3
"""Finds import cycles between the modules of each crate (docs/ARCHITECTURE.md, invariant 17).

A module is one source file. File A depends on file B when A's code names a path into B
(`use crate::store::StoreError`, `super::events::record(..)`, `use super::{params::Obj, ..}`):
the path is resolved to the deepest module that has a file. A module's own ancestors and
descendants do not count: a parent declares and re-exports its children, and children use what
their parent defines (`super::SigningService`); the layering is between siblings and cousins.
Unit tests at the end of a file (`#[cfg(test)] mod tests`) and comments are left out.

Prints each cycle with the names that tie it, and exits 1; exits 0 with a summary.

    scripts/check-module-cycles.py [SRC_DIR...]   (default: both crates' src/)
"""

import os
import re
import sys

DEFAULT = ["envelope-core/src", "envelope-server/src"]
PATH = re.compile(r"\b((?:crate|super|self)(?:::(?:super|[A-Za-z_][A-Za-z0-9_]*))+)")
USE = re.compile(r"\buse\s+([^;]+);", re.S)
TESTS = re.compile(r"^#\[cfg\(test\)\]\s*\n\s*mod tests\b", re.M)


def modules(src):
    """{module path tuple: file} for every .rs file under src (a crate root: lib.rs)."""
    out = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(root, f), src).replace(os.sep, "/")
            parts = rel[:-3].split("/")
            if parts == ["lib"]:
                parts = []
            elif parts == ["main"] or parts[-1] == "build":
                continue  # a binary is another crate
            elif parts[-1] == "mod":
                parts = parts[:-1]
            out[tuple(parts)] = rel
    return out


def code_of(text):
    m = TESTS.search(text)
    if m:
        text = text[: m.start()]
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


def expand(tree):
    """`a::{b, c::{d, e}}` -> ["a::b", "a::c::d", "a::c::e"]."""
    tree = re.sub(r"\s+", "", tree)
    i = tree.find("{")
    if i < 0:
        return [tree]
    prefix, inner = tree[:i], tree[i + 1 : tree.rindex("}")]
    items, depth, cur = [], 0, ""
    for c in inner:
        if c == "," and depth == 0:
            items.append(cur)
            cur = ""
            continue
        depth += c == "{"
        depth -= c == "}"
        cur += c
    items.append(cur)
    return [p for item in items if item for p in expand(prefix + item)]


def resolve(path, here, mods):
    """The module a path names, from the module `here`; None for other crates."""
    parts = path.split("::")
    if parts[0] == "crate":
        base, rest = [], parts[1:]
    elif parts[0] in ("super", "self"):
        base = list(here)
        rest = parts
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                base = base[:-1]
            rest = rest[1:]
    else:
        return None
    target = tuple(base)
    for p in rest:
        if p == "self":
            continue
        if tuple(base + [p]) in mods:
            base = base + [p]
            target = tuple(base)
        else:
            break
    return target


def edges_of(src):
    mods = modules(src)
    edges = {}
    for here, rel in mods.items():
        code = code_of(open(os.path.join(src, rel), encoding="utf-8").read())
        paths = []
        for u in USE.findall(code):
            paths += expand(u)
        paths += PATH.findall(USE.sub("", code))
        for path in paths:
            target = resolve(path, here, mods)
            if target is None or target not in mods:
                continue
            n = min(len(target), len(here))
            if target[:n] == here[:n]:
                continue  # an ancestor or a descendant (or itself)
            name = path.split("::")[-1]
            edges.setdefault(here, {}).setdefault(target, set()).add(name)
    return mods, edges


def cycles(nodes, edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
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

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main(dirs):
    found = 0
    for src in dirs:
        mods, edges = edges_of(src)
        n_edges = sum(len(t) for t in edges.values())
        comps = cycles(mods, edges)
        for comp in comps:
            found += 1
            print(f"cycle in {src}: " + ", ".join(mods[m] for m in comp))
            for a in comp:
                for b, names in sorted(edges.get(a, {}).items()):
                    if b in comp:
                        print(f"  {mods[a]} -> {mods[b]}: {', '.join(sorted(names))}")
        if not comps:
            print(f"{src}: {len(mods)} modules, {n_edges} dependencies between them, no cycle")
    return 1 if found else 0


if __name__ == "__main__":
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    sys.exit(main(sys.argv[1:] or DEFAULT))
