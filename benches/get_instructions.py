#!/usr/bin/env python3
"""User-space instructions per `GET /v1/envelopes/{id}`, against bare hyper serving the same bytes.

A measure that does not move with a noisy machine (issue 31, docs/PERFORMANCE.md): each server
runs under `valgrind --tool=callgrind` twice, answering N1 and then N2 keep-alive GETs on one
connection after the same start-up, and the difference of the two totals divided by N2 - N1 is
what one GET costs, start-up and shutdown cancelled out. The same is done for
`examples/bare_hyper.rs` answering the envelope's own JSON, and the ratio is printed with the
functions where the server's instructions go (callgrind_annotate of the larger run).

    python3 benches/get_instructions.py [--n1 500] [--n2 2500] [--top 25]

Needs valgrind (`apt-get install -y valgrind`), curl, and a release build, which it makes:
`cargo build --release -p envelope-server --bin envelope-server --example bare_hyper`.
"""

import argparse
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(ROOT, "target", "release")
PDF = os.path.join(ROOT, "examples", "contract.pdf")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port, path, headers=None, timeout=300):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            c.request("GET", path, headers=headers or {})
            r = c.getresponse()
            r.read()
            c.close()
            if r.status < 500:
                return
        except OSError:
            pass
        time.sleep(0.5)
    sys.exit(f"nothing answered on port {port} within {timeout} s")


def gets(port, path, n, headers):
    """N keep-alive GETs on one connection; the bytes of the last answer."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    body = b""
    for _ in range(n):
        c.request("GET", path, headers=headers)
        r = c.getresponse()
        body = r.read()
        if r.status != 200:
            sys.exit(f"GET {path}: {r.status} {body[:200]!r}")
    c.close()
    return body


def callgrind(cmd, out, env=None):
    return subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )


def total(out):
    with open(out) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    sys.exit(f"{out}: no summary line")


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=300)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def server_run(n, workdir, tag):
    """Starts envelope-server under callgrind on a fresh data dir, makes one envelope from the
    contract, answers N GETs of it; returns (instructions, the GET's body)."""
    data = os.path.join(workdir, f"data-{tag}")
    port = free_port()
    out = os.path.join(workdir, f"server-{tag}.out")
    env = dict(os.environ, RUST_LOG="warn")
    proc = callgrind(
        [os.path.join(RELEASE, "envelope-server"), "--data-dir", data,
         "--listen", f"127.0.0.1:{port}", "--rate-limit", "1000000"],
        out,
        env,
    )
    key = None
    for line in proc.stdout:
        m = re.search(r"(sk_test_[A-Za-z0-9]+)", line)
        if m:
            key = m.group(1)
            break
    if key is None:
        sys.exit("the server printed no test key")
    auth = {"Authorization": f"Bearer {key}"}
    wait_for(port, "/healthz")
    api = f"http://127.0.0.1:{port}/v1"
    made = subprocess.run(
        ["curl", "-s", f"{api}/templates", "-H", f"Authorization: Bearer {key}",
         "-F", "name=Services agreement", "-F", f"file=@{PDF}"],
        capture_output=True, text=True, check=True,
    )
    template = json.loads(made.stdout)["id"]
    body = json.dumps({
        "template": template,
        "signers": {"Client": {"name": "Zoe Client", "email": "zoe@example.com"},
                    "Provider": {"name": "Paul Provider", "email": "paul@example.com"}},
        "data": {"start_date": "2027-01-01"},
        "delivery": "embedded",
    })
    made = subprocess.run(
        ["curl", "-s", f"{api}/envelopes", "-H", f"Authorization: Bearer {key}",
         "-H", "Content-Type: application/json", "-d", body],
        capture_output=True, text=True, check=True,
    )
    envelope = json.loads(made.stdout)["id"]
    answer = gets(port, f"/v1/envelopes/{envelope}", n, auth)
    stop(proc)
    return total(out), answer, out


def bare_run(n, workdir, tag, body_file):
    port = free_port()
    out = os.path.join(workdir, f"bare-{tag}.out")
    proc = callgrind(
        [os.path.join(RELEASE, "examples", "bare_hyper"), f"127.0.0.1:{port}", body_file], out
    )
    wait_for(port, "/")
    gets(port, "/", n, {})
    stop(proc)
    return total(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n1", type=int, default=500)
    p.add_argument("--n2", type=int, default=2500)
    p.add_argument("--top", type=int, default=25, help="functions of the breakdown to show")
    p.add_argument("--keep", help="a directory to keep callgrind's outputs in")
    p.add_argument("--no-build", action="store_true", help="use the release build as it is")
    args = p.parse_args()
    if not args.no_build:
        subprocess.run(
            ["cargo", "build", "--release", "-p", "envelope-server",
             "--bin", "envelope-server", "--example", "bare_hyper"],
            cwd=ROOT, check=True,
        )
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        s1, body, small = server_run(args.n1, work, "n1")
        s2, _, big = server_run(args.n2, work, "n2")
        body_file = os.path.join(work, "body.json")
        with open(body_file, "wb") as f:
            f.write(body)
        b1 = bare_run(args.n1, work, "n1", body_file)
        b2 = bare_run(args.n2, work, "n2", body_file)
        per_get = (s2 - s1) / (args.n2 - args.n1)
        per_bare = (b2 - b1) / (args.n2 - args.n1)
        print(f"GET /v1/envelopes/{{id}} ({len(body)}-byte body), keep-alive, {args.n1} and {args.n2} requests")
        print(f"  envelope-server: {per_get:,.0f} instructions per GET ({s1:,} / {s2:,} in all)")
        print(f"  bare hyper:      {per_bare:,.0f} instructions per GET ({b1:,} / {b2:,} in all)")
        print(f"  ratio:           {per_get / per_bare:.1f}x")
        n = args.n2 - args.n1
        for inclusive in (False, True):
            kind = "inclusive" if inclusive else "self"
            print(f"\nwhere one GET's instructions go ({kind} cost per GET: the difference of the two runs / {n}):")
            rows = sorted(
                per_function(big, inclusive, small, n).items(), key=lambda kv: -kv[1]
            )
            for name, cost in rows[: args.top]:
                print(f"  {cost:>9,.0f}  {cost / per_get:6.1%}  {name[:130]}")


def costs(out, inclusive):
    """Instructions by function, as callgrind_annotate counts them over the whole run."""
    text = subprocess.run(
        ["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}",
         "--threshold=100", "--auto=no", "--tree=none", out],
        capture_output=True, text=True, check=True,
    ).stdout
    found = {}
    for line in text.splitlines():
        m = re.match(r"^\s*([\d,]+) \([^)]*\)\s+(?:\*\s+)?(.*)$", line)
        if m:
            found[m.group(2).strip()] = found.get(m.group(2).strip(), 0) + int(m.group(1).replace(",", ""))
    return found


def per_function(big, inclusive, small, n):
    """Per GET: what each function cost in the larger run less the smaller, over the GETs
    between them, so that start-up falls out."""
    b, s = costs(big, inclusive), costs(small, inclusive)
    return {k: (v - s.get(k, 0)) / n for k, v in b.items() if v - s.get(k, 0) > 0}


if __name__ == "__main__":
    main()
