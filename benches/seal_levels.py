#!/usr/bin/env python3
"""Bytes added and completion time per PAdES level (B-B, B-T, B-LT, B-LTA) for a 24 MiB PDF.

Starts certomancer's PKI once (`testkit/pki/certomancer.yml`, `certomancer animate` on a free
port: root, intermediate, the sealing certificate `seal` with OCSP and a CRL, a TSA; see
`testkit/src/pki.rs`). Then, for each level, starts the release `envelope-server serve` on a
fresh data directory with the PKI's sealing key and chain as the test-mode identity
(`--test-signing-key`, `--test-signing-cert`), `--tsa-url` and `--pades-level LEVEL`, and for
each of RUNS envelopes (default 5):

- creates an envelope of the 24 MiB PDF (one signer, multipart) with the printed test key;
- times `POST /v1/test_helpers/envelopes/{id}/complete`: the whole completion (stamping,
  sealing, the TSA's timestamps, the OCSP answers and CRLs for the DSS, the document timestamp,
  storing the signed copy and the audit trail);
- checks that `seal.level` and `seal.target_level` are the level, downloads the signed copy and
  the audit trail (`GET /v1/envelopes/{id}/files/{kind}` gives `{url}`), checks that the
  original is the byte prefix of the signed copy, and records the bytes added;
- counts the requests the PKI answered during the completion (its access log), by service.

The first envelope of a server fetches every OCSP answer and CRL; the later ones reuse what the
server cached until its `nextUpdate`, so the first envelope's time is reported apart from the
median of the others. Bytes of the signed copy are reported as its size minus the original's
(what stamping, sealing and the level add) and as the increment over the B-B figure.

A server with `--tsa-url` keeps room for a timestamp in every seal's `/Contents`, B-B too (the
room is reserved before the sealer knows whether it will get one), so the bench also runs B-B
on a server without `--tsa-url` (`b-b-no-tsa`): the B-B a deployment without a TSA makes.

    cargo build --release -p envelope-server
    pip install 'certomancer[web-api]'              # or scripts/install-test-deps.sh
    python3 benches/seal_levels.py                  # 5 envelopes per level, every level and b-b-no-tsa
    python3 benches/seal_levels.py 3 b-b b-lta      # 3 envelopes per level, two levels
    ENVELOPE_BIN=/path/to/envelope-server python3 benches/seal_levels.py

Prints one line per envelope and a markdown table. Exits non-zero when a completion does not
answer 200, when a seal is not at its level, when a download fails or the original is not the
signed copy's prefix, or when the PKI or a server does not start. Figures: docs/PERFORMANCE.md,
"Seal levels: bytes and time per level (24 MB file)".
"""
import http.client
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
spec = importlib.util.spec_from_file_location(
    "upload_memory", os.path.join(ROOT, "scripts", "upload-memory.py"))
um = importlib.util.module_from_spec(spec)
spec.loader.exec_module(um)

MIB = 1024 * 1024
PDF_BYTES = 24 * MIB
LEVELS = ["b-b", "b-t", "b-lt", "b-lta"]
# B-B as a server without `--tsa-url` makes it: its `/Contents` has no room kept for a timestamp.
NO_TSA = "b-b-no-tsa"
PKI_DIR = os.path.join(ROOT, "testkit", "pki")
ARCH = "envelope"


class Failure(Exception):
    """A check of the bench failed; its text says which."""


def request(base, method, path, key=None, body=None, headers=None, timeout=600):
    """(status, body bytes) of one request to `base` (`http://host:port`)."""
    u = urllib.parse.urlsplit(base)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    try:
        h = dict(headers or {})
        if key:
            h["Authorization"] = f"Bearer {key}"
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def get_url(url):
    u = urllib.parse.urlsplit(url)
    path = u.path + (f"?{u.query}" if u.query else "")
    return request(f"{u.scheme}://{u.netloc}", "GET", path)


class Pki:
    """certomancer animate on a free port; its access log counts the requests it answered."""

    def __init__(self, log_path):
        self.port = um.free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        log = open(log_path, "w")
        try:
            self.proc = subprocess.Popen(
                ["certomancer", "--config", os.path.join(PKI_DIR, "certomancer.yml"),
                 "--service-url-prefix", self.base,
                 "animate", "--port", str(self.port), "--no-web-ui"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        except FileNotFoundError:
            raise Failure("certomancer is not installed: run scripts/install-test-deps.sh "
                          "(pip install 'certomancer[web-api]')")
        finally:
            log.close()
        deadline = time.time() + 60
        while True:
            try:
                if self.get(f"/{ARCH}/certs/root/ca.crt.pem")[0] == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise Failure(f"certomancer exited at start ({self.proc.returncode}): "
                              f"{open(log_path).read()[-2000:]}")
            if time.time() > deadline:
                self.stop()
                raise Failure(f"certomancer did not answer on port {self.port} within 60 s")
            time.sleep(0.1)

    def get(self, path):
        return request(self.base, "GET", path, timeout=10)

    def cert_pem(self, label):
        if label == "root":
            path = f"/{ARCH}/certs/root/ca.crt.pem"
        elif label in ("interm", "tsa", "root-ocsp"):
            path = f"/{ARCH}/certs/root/issued/{label}.crt.pem"
        else:
            path = f"/{ARCH}/certs/interm/issued/{label}.crt.pem"
        status, body = self.get(path)
        if status != 200:
            raise Failure(f"certomancer has no certificate {label} ({status})")
        return body.decode()

    def seal_chain_pem(self):
        """The sealing certificate's chain, leaf first, down to the root."""
        return self.cert_pem("seal") + self.cert_pem("interm") + self.cert_pem("root")

    def requests_so_far(self):
        """Requests the PKI answered so far, by service (`ocsp`, `crls`, `tsa`, `certs`)."""
        counts = {}
        with open(self.log_path, errors="replace") as f:
            for line in f:
                m = re.search(rf'"(?:GET|POST) /{ARCH}/(\w+)/', line)
                if m:
                    counts[m.group(1)] = counts.get(m.group(1), 0) + 1
        return counts

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def start_server(data_dir, pki, level):
    """The release server sealing test-mode files with the PKI's `seal` identity at `level`;
    (process, base URL, test key)."""
    key_path = os.path.join(data_dir, "seal.key.pem")
    chain_path = os.path.join(data_dir, "seal.chain.pem")
    with open(os.path.join(PKI_DIR, "keys", "seal.key.pem")) as src, open(key_path, "w") as dst:
        dst.write(src.read())
    with open(chain_path, "w") as f:
        f.write(pki.seal_chain_pem())
    port = um.free_port()
    seal_args = ["--pades-level", "b-b"] if level == NO_TSA else [
        "--tsa-url", f"{pki.base}/{ARCH}/tsa/tsa", "--pades-level", level]
    env = dict(os.environ, ENVELOPE_LOG="warn", ENVELOPE_TEST_EMAIL_DAILY_LIMIT="unlimited")
    for name in ("ENVELOPE_DATABASE_URL", "ENVELOPE_DATA_DIR", "ENVELOPE_BLOB_URL"):
        env.pop(name, None)
    log = open(os.path.join(data_dir, "server.log"), "w")
    proc = subprocess.Popen(
        [um.binary(), "serve", "--data-dir", os.path.join(data_dir, "data"),
         "--listen", f"127.0.0.1:{port}", "--rate-limit", "100000",
         "--test-signing-key", key_path, "--test-signing-cert", chain_path, *seal_args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    log.close()
    key = um.read_test_key(proc)
    if key is None:
        proc.kill()
        proc.wait()
        raise Failure(f"the {level} server printed no test key; stderr: "
                      f"{open(os.path.join(data_dir, 'server.log')).read()[-2000:]}")
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    for _ in range(400):
        try:
            request(base, "GET", "/healthz", timeout=2)
            break
        except OSError:
            time.sleep(0.05)
    return proc, base, key


def create(base, key, pdf):
    boundary = "----seal-levels-bench-boundary"
    head = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"signers\"\r\n\r\n"
        '[{"name":"Ada Lovelace","email":"ada@example.com","role":"Client"}]\r\n'
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"send\"\r\n\r\ntrue\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.pdf\"\r\n"
        "Content-Type: application/pdf\r\n\r\n").encode()
    body = head + pdf + f"\r\n--{boundary}--\r\n".encode()
    status, answer = request(base, "POST", "/v1/envelopes", key, body,
                             {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    if status != 201:
        raise Failure(f"create answered {status}: {answer[:500]!r}")
    return json.loads(answer)["id"]


def download(base, key, env_id, kind):
    status, answer = request(base, "GET", f"/v1/envelopes/{env_id}/files/{kind}", key)
    if status != 200:
        raise Failure(f"files/{kind} answered {status}: {answer[:500]!r}")
    status, data = get_url(json.loads(answer)["url"])
    if status != 200:
        raise Failure(f"the {kind} download answered {status}")
    return data


def one_envelope(base, key, pdf, level, pki):
    """Completes one envelope: (seconds, signed copy bytes, audit trail bytes, PKI requests)."""
    env_id = create(base, key, pdf)
    before = pki.requests_so_far()
    started = time.perf_counter()
    status, answer = request(base, "POST", f"/v1/test_helpers/envelopes/{env_id}/complete", key)
    elapsed = time.perf_counter() - started
    if status != 200:
        raise Failure(f"complete answered {status}: {answer[:500]!r}")
    # certomancer writes its access log line after it answered: give it a moment.
    time.sleep(0.2)
    after = pki.requests_so_far()
    fetched = {k: after.get(k, 0) - before.get(k, 0) for k in after
               if after.get(k, 0) != before.get(k, 0)}
    env = json.loads(answer)
    seal = env.get("seal") or {}
    level = "b-b" if level == NO_TSA else level
    if env.get("status") != "completed" or seal.get("level") != level \
            or seal.get("target_level") != level:
        raise Failure(f"{env_id}: status {env.get('status')}, seal {seal}, wanted {level}")
    signed = download(base, key, env_id, "signed")
    audit = download(base, key, env_id, "audit_trail")
    if signed[:len(pdf)] != pdf:
        raise Failure(f"{env_id}: the original is not the byte prefix of the signed copy")
    return elapsed, len(signed), len(audit), fetched


def run_level(level, runs, pdf, pki):
    with tempfile.TemporaryDirectory() as tmp:
        proc, base, key = start_server(tmp, pki, level)
        try:
            rows = []
            for i in range(runs):
                elapsed, signed, audit, fetched = one_envelope(base, key, pdf, level, pki)
                rows.append((elapsed, signed, audit, fetched))
                print(f"{level:6} envelope {i + 1}: complete {elapsed * 1000:5.0f} ms, signed copy "
                      f"+{signed - len(pdf):,} bytes over the original, audit trail "
                      f"{audit:,} bytes, PKI requests {fetched or 'none'}", flush=True)
            return rows
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def spread(values, fmt):
    """`median (min to max)`, or the one value when they are all equal."""
    if min(values) == max(values):
        return fmt(values[0])
    return f"{fmt(statistics.median(values))} ({fmt(min(values))} to {fmt(max(values))})"


def requests_text(fetched):
    return ", ".join(f"{v} {k}" for k, v in sorted(fetched.items())) or "none"


def table(results, pdf_len):
    secs = lambda v: f"{v * 1000:.0f} ms"  # noqa: E731
    size = lambda v: f"{v:,.0f}"  # noqa: E731
    base_added = None
    if "b-b" in results:
        base_added = statistics.median(r[1] - pdf_len for r in results["b-b"])
        base_time = statistics.median(r[0] for r in results["b-b"][1:] or results["b-b"])
    lines = [
        "| level | first envelope | later envelopes: median (min to max) | "
        "over B-B (later, median) | signed copy minus original, bytes | over B-B, bytes | "
        "audit trail, bytes | PKI requests: first / each later |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for level, rows in results.items():
        later = [r[0] for r in rows[1:]]
        added = [r[1] - pdf_len for r in rows]
        if level == "b-b":
            over, over_t = "(base)", "(base)"
        else:
            over = "" if base_added is None else \
                f"{statistics.median(added) - base_added:+,.0f}"
            over_t = "" if base_added is None or not later else \
                f"{(statistics.median(later) - base_time) * 1000:+.0f} ms"
        name = "B-B, no `--tsa-url`" if level == NO_TSA else level.upper()
        later_req = sorted({requests_text(r[3]) for r in rows[1:]})
        lines.append(
            f"| {name} | {secs(rows[0][0])} | {spread(later, secs) if later else 'n/a'} "
            f"| {over_t} | {spread(added, size)} | {over} | {spread([r[2] for r in rows], size)} "
            f"| {requests_text(rows[0][3])} / {'; '.join(later_req) or 'n/a'} |")
    return "\n".join(lines)


def main():
    args = sys.argv[1:]
    runs = next((int(a) for a in args if a.isdigit()), 5)
    levels = [a for a in args if not a.isdigit()] or LEVELS + [NO_TSA]
    unknown = [lv for lv in levels if lv not in LEVELS + [NO_TSA]]
    if unknown or runs < 1:
        sys.exit(f"usage: seal_levels.py [RUNS] [{'|'.join(LEVELS + [NO_TSA])} ...]; got {args}")
    if not os.path.exists(um.binary()):
        sys.exit(f"no binary at {um.binary()}: cargo build --release -p envelope-server")
    pdf = um.big_pdf(PDF_BYTES)
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    print(f"binary {um.binary()}; PDF {len(pdf):,} bytes; {runs} envelopes per level; "
          f"load average {' '.join(load)}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            pki = Pki(os.path.join(tmp, "certomancer.log"))
        except Failure as e:
            sys.exit(f"FAILED: {e}")
        try:
            results = {}
            for level in levels:
                results[level] = run_level(level, runs, pdf, pki)
        except (Failure, OSError, http.client.HTTPException, ValueError, KeyError) as e:
            print(f"FAILED: {type(e).__name__}: {e}", file=sys.stderr)
            sys.exit(1)
        finally:
            pki.stop()
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    print(f"\nload average at the end {' '.join(load)}\n")
    print(table(results, len(pdf)))


if __name__ == "__main__":
    main()
