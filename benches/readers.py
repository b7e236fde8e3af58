#!/usr/bin/env python3
"""Server memory under slow readers of one large document (issue 31, docs/PERFORMANCE.md,
"Slow readers of a 24 MB document").

    python3 benches/readers.py [--readers 40] [--rate 200k] [--pages 200]

Builds the release server, starts it on a fresh data directory (SQLite, the default), writes the
24 MB PDF of `benches/compare.py` (a noise image on each of 200 pages, 10 signature tags), makes
two envelopes of it for one signer, completes the second (the test-mode helper), and then, for each
of the three bodies a stranger holding one link can ask for,

- the signer's `/sign/{token}/document` (the unsigned one: the original with the values so far),
- the original's download link (`/v1/envelopes/{id}/files/original`),
- the signed copy's download link (`/v1/envelopes/{id}/files/signed`),

starts N `curl --limit-rate` readers at once, samples the server's resident set (VmRSS of
/proc/<pid>/status) every 100 ms while they read, checks that every reader got every byte (and
the bytes of one against the server's own answer read at full speed), and prints the RSS before,
the peak, and the RSS 12 s after the last reader left. Needs curl.
"""

import argparse
import hashlib
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import big_document  # noqa: E402  (the same 24 MB file as the PDF benches)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.environ.get("ENVELOPE_BIN", os.path.join(ROOT, "target", "release", "envelope-server"))
# Seconds between the last reader leaving and the RSS read "after": jemalloc hands freed pages
# back to the system after its dirty-page decay (10 s by default).
AFTER = 12
CLIENT = "curl"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def request(method, url, key=None, data=None, headers=None):
    h = dict(headers or {})
    if key:
        h["Authorization"] = f"Bearer {key}"
    req = urllib.request.Request(url, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=600) as r:
            return r.status, r.read(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers


def create_envelope(api, key, pdf_path):
    out = subprocess.run(
        ["curl", "-s", "-f", f"{api}/envelopes", "-H", f"Authorization: Bearer {key}",
         "-F", "name=Reader test", "-F", "delivery=embedded",
         "-F", 'signers=[{"name":"Ada Reader","email":"ada@example.com","role":"Client"}]',
         "-F", f"file=@{pdf_path};filename=big.pdf;type=application/pdf"],
        capture_output=True, text=True,
    )
    if out.returncode != 0:
        sys.exit(f"creating an envelope failed: {out.stdout} {out.stderr}")
    return json.loads(out.stdout)["id"]


def signing_link(base, api, key, envelope):
    status, body, _ = request("POST", f"{api}/envelopes/{envelope}/signing_url", key,
                              b"{}", {"Content-Type": "application/json"})
    if status != 200:
        sys.exit(f"signing_url: {status} {body[:300]!r}")
    url = json.loads(body)["url"]
    return base + url[url.index("/sign/"):]


def complete(api, key, envelope):
    """Completes the envelope as its signers would (the test-mode helper): stamped and sealed."""
    status, body, _ = request("POST", f"{api}/test_helpers/envelopes/{envelope}/complete", key)
    if status != 200:
        sys.exit(f"complete: {status} {body[:300]!r}")


def download_url(api, key, envelope, kind):
    status, body, _ = request("GET", f"{api}/envelopes/{envelope}/files/{kind}", key)
    if status != 200:
        sys.exit(f"files/{kind}: {status} {body[:300]!r}")
    return json.loads(body)["url"]


def rate_bytes(rate):
    units = {"k": 1024, "m": 1024 * 1024}
    return int(float(rate[:-1]) * units[rate[-1].lower()]) if rate[-1].lower() in units else int(rate)


def steady_readers(url, n, rate):
    """N readers in threads, each reading 16 KiB at a time at `rate` on average, evenly (as a
    browser on a slow link reads), rather than in curl's bursts and pauses."""
    per_sec = rate_bytes(rate)
    parts = urllib.parse.urlsplit(url)
    answers = [None] * n

    def one(i):
        c = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)
        c.request("GET", parts.path + ("?" + parts.query if parts.query else ""))
        r = c.getresponse()
        h = hashlib.sha256()
        got = 0
        start = time.monotonic()
        while True:
            chunk = r.read(16384)
            if not chunk:
                break
            h.update(chunk)
            got += len(chunk)
            ahead = got / per_sec - (time.monotonic() - start)
            if ahead > 0:
                time.sleep(ahead)
        answers[i] = (f"{r.status} {got}", h.hexdigest())
        c.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def readers(pid, label, url, n, rate):
    """N slow readers of `url` at once; returns (before, peak, after) RSS in KiB."""
    status, whole, _ = request("GET", url)
    if status != 200:
        sys.exit(f"{label}: {status}")
    expected = hashlib.sha256(whole).hexdigest()
    size = len(whole)
    del whole
    time.sleep(3)
    before = rss_kib(pid)
    peak = [before]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_kib(pid))
            time.sleep(0.1)

    sampler = threading.Thread(target=sample)
    sampler.start()
    if CLIENT == "steady":
        answers = steady_readers(url, n, rate)
        done.set()
        sampler.join()
        bad = [a for a in answers if a[0] != f"200 {size}"]
        if bad:
            sys.exit(f"{label}: {len(bad)} readers did not get the {size} bytes: {bad[:3]}")
        if answers[0][1] != expected:
            sys.exit(f"{label}: a slow reader got other bytes than a fast one")
        time.sleep(AFTER)
        return size, before, peak[0], rss_kib(pid)
    with tempfile.TemporaryDirectory() as out:
        procs = [
            subprocess.Popen(["curl", "-s", "--limit-rate", rate, "-o", os.path.join(out, str(i)),
                              "-w", "%{http_code} %{size_download}", url],
                             stdout=subprocess.PIPE, text=True)
            for i in range(n)
        ]
        answers = [p.communicate()[0] for p in procs]
        done.set()
        sampler.join()
        bad = [a for a in answers if a != f"200 {size}"]
        if bad:
            sys.exit(f"{label}: {len(bad)} readers did not get the {size} bytes: {bad[:3]}")
        with open(os.path.join(out, "0"), "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != expected:
                sys.exit(f"{label}: a slow reader got other bytes than a fast one")
    time.sleep(AFTER)
    after = rss_kib(pid)
    return size, before, peak[0], after


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--readers", type=int, default=40)
    p.add_argument("--rate", default="200k", help="curl --limit-rate of each reader")
    p.add_argument("--pages", type=int, default=200)
    p.add_argument("--no-build", action="store_true")
    p.add_argument("--client", choices=["curl", "steady"], default="curl",
                   help="curl --limit-rate (bursts, then pauses), or steady 16 KiB reads")
    args = p.parse_args()
    global CLIENT
    CLIENT = args.client
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "-p", "envelope-server",
                        "--bin", "envelope-server"], cwd=ROOT, check=True)
    with tempfile.TemporaryDirectory() as work:
        pdf = os.path.join(work, "big.pdf")
        big_document(pdf, args.pages, 120_000)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        api = f"{base}/v1"
        proc = subprocess.Popen(
            [SERVER, "--data-dir", os.path.join(work, "data"), "--listen", f"127.0.0.1:{port}",
             "--public-url", base, "--rate-limit", "1000000"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=dict(os.environ, ENVELOPE_LOG=os.environ.get("ENVELOPE_LOG", "warn")),
        )
        key = None
        for line in proc.stdout:
            m = re.search(r"(sk_test_[A-Za-z0-9]+)", line)
            if m:
                key = m.group(1)
                break
        if key is None:
            sys.exit("the server printed no test key")
        log_path = os.environ.get("READERS_LOG", os.path.join(work, "server.log"))
        log = open(log_path, "w")
        threading.Thread(target=lambda: [log.write(line) or log.flush() for line in proc.stdout],
                         daemon=True).start()
        try:
            for _ in range(600):
                try:
                    if request("GET", f"{base}/healthz")[0] == 200:
                        break
                except OSError:
                    time.sleep(0.2)
            unsigned = create_envelope(api, key, pdf)
            signed = create_envelope(api, key, pdf)
            complete(api, key, signed)
            targets = [
                ("/sign/{token}/document", signing_link(base, api, key, unsigned) + "/document"),
                ("original download", download_url(api, key, unsigned, "original")),
                ("signed download", download_url(api, key, signed, "signed")),
            ]
            print(f"{args.readers} readers at {args.rate}/s each; server RSS in MB "
                  f"(before / peak / {AFTER} s after they left)")
            for label, url in targets:
                size, before, peak, after = readers(proc.pid, label, url, args.readers, args.rate)
                mb = lambda k: k / 1024  # noqa: E731
                print(f"  {label:24} {size / 1e6:5.1f} MB file: {mb(before):6.1f} / {mb(peak):6.1f} "
                      f"/ {mb(after):6.1f}   growth {mb(peak - before):+6.1f}, "
                      f"left behind {mb(after - before):+5.1f}")
        finally:
            proc.terminate()
            proc.wait(timeout=60)


if __name__ == "__main__":
    main()
