#!/usr/bin/env python3
"""Checks the workspace's declared `rust-version` against the toolchain and the dependencies.

- The installed rustc is at least the declared version (else the declared one is a guess: this
  machine could not have built it).
- No resolved dependency declares a newer `rust-version` than ours (else a user on our declared
  version could not build us). The dependency graph comes from `cargo metadata --locked`, so it
  is exactly Cargo.lock's.

Our own code's use of newer APIs is clippy's `incompatible_msrv` lint (on by default, it reads
the same `rust-version`). Exit status 1 with one line per problem; 0 with a summary.
"""

import json
import re
import subprocess
import sys


def version(text):
    """`1.94`, `1.94.1` or `rustc 1.95.0 (...)` as a comparable tuple of three numbers."""
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    if not m:
        return None
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))


def shown(v):
    return ".".join(map(str, v))


def main():
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    members = set(meta["workspace_members"])
    packages = {p["id"]: p for p in meta["packages"]}
    resolved = {node["id"] for node in meta["resolve"]["nodes"]}

    declared = {}
    for pid in members:
        p = packages[pid]
        v = version(p.get("rust_version"))
        if v is None:
            print(f"{p['name']}: no rust-version declared")
            return 1
        declared[p["name"]] = v
    ours = min(declared.values())

    problems = []
    rustc = version(
        subprocess.run(["rustc", "--version"], check=True, capture_output=True, text=True).stdout
    )
    if rustc is None or rustc < ours:
        problems.append(
            f"the installed rustc ({shown(rustc) if rustc else '?'}) is older than the declared "
            f"rust-version {shown(ours)}"
        )

    checked = 0
    for pid in sorted(resolved - members):
        p = packages[pid]
        v = version(p.get("rust_version"))
        if v is None:
            continue
        checked += 1
        if v > ours:
            problems.append(
                f"{p['name']} {p['version']} needs Rust {shown(v)}, newer than our "
                f"rust-version {shown(ours)}"
            )

    for line in problems:
        print(line)
    if problems:
        return 1
    print(
        f"rust-version {shown(ours)}: rustc {shown(rustc)} is new enough, and none of the "
        f"{len(resolved - members)} resolved dependencies ({checked} declare one) needs a newer Rust"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
