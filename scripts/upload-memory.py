#!/usr/bin/env python3
"""Peak memory of the release server under ten concurrent 25 MB uploads.

Starts `envelope-server serve` (the release binary) on a fresh data directory, creates one
account per upload with `envelope-server accounts create` (one account may hold only half of the
upload memory budget: docs/HTTP.md, "Memory"), fires CONCURRENCY simultaneous POST /v1/envelopes
with a PDF of just under 25 MiB, each with its own account's test key, and reads the server's VmHWM
(peak resident set) from /proc/PID/status once every answer is in, then its VmRSS SETTLE seconds
later (default 15: what the allocator gives back once the burst is over). Each mode runs against
its own fresh server, because VmHWM is a high-water mark over the life of the process.

    cargo build --release -p envelope-server
    python3 scripts/upload-memory.py                 # modes multipart, json, mixed
    python3 scripts/upload-memory.py json            # one mode
    ENVELOPE_BIN=/path/to/envelope-server CONCURRENCY=10 python3 scripts/upload-memory.py

Figures and their meaning: docs/PERFORMANCE.md, "Memory under concurrent uploads".
"""
import base64
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

MIB = 1024 * 1024
PDF_BYTES = 25 * MIB - 4096
CONCURRENCY = int(os.environ.get("CONCURRENCY", "10"))
SETTLE = float(os.environ.get("SETTLE", "15"))


def binary():
    if "ENVELOPE_BIN" in os.environ:
        return os.environ["ENVELOPE_BIN"]
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "target")
    return os.path.join(target, "release", "envelope-server")


def read_test_key(proc, seconds=60):
    """The test key a starting `envelope-server serve` prints on its standard output, or None
    when it printed none within `seconds` (or exited)."""
    deadline = time.time() + seconds
    for line in proc.stdout:
        m = re.search(r"test key \S+: (sk_test_\w+)", line)
        if m:
            return m.group(1)
        if time.time() > deadline:
            return None
    return None


def pdf_from_objects(objs):
    """A PDF of these object bodies (numbered from 1; the first is the catalog), with its
    cross-reference table."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def big_pdf(size):
    """A valid one-page PDF with a tag, padded to `size` bytes by an unreferenced stream."""
    content = b"BT /F1 12 Tf 72 700 Td (Sign here: {{signature:Client}}) Tj ET\n"
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        None,  # the padding stream, sized below
    ]

    def render(pad_len):
        pad = b"% padding\n" * (pad_len // 10) + b" " * (pad_len % 10)
        objs[5] = b"<< /Length %d >>\nstream\n" % len(pad) + pad + b"\nendstream"
        return pdf_from_objects(objs)

    first = render(0)
    pdf = render(size - len(first))
    assert abs(len(pdf) - size) < 64, len(pdf)
    return pdf


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_server(data_dir):
    port = free_port()
    proc = subprocess.Popen(
        [binary(), "serve", "--data-dir", data_dir, "--listen", f"127.0.0.1:{port}",
         "--rate-limit", "100000"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    key = read_test_key(proc)
    if key is None:
        proc.kill()
        sys.exit("the server did not print a test key")
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    return proc, base, key


def account_keys(data_dir, n):
    """Test keys of `n` new accounts, made by the admin CLI beside the running server."""
    keys = []
    for i in range(n):
        out = subprocess.run(
            [binary(), "accounts", "create", "--name", f"upload {i}", "--data-dir", data_dir],
            check=True, capture_output=True, text=True).stdout
        m = re.search(r"test key \S+: (sk_test_\w+)", out)
        if m is None:
            sys.exit(f"accounts create printed no test key: {out!r}")
        keys.append(m.group(1))
    return keys


def multipart_request(base, key, pdf):
    boundary = "----upload-memory-boundary"
    head = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"signers\"\r\n\r\n"
        '[{"name":"Ann","email":"ann@example.com"}]\r\n'
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"send\"\r\n\r\nfalse\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.pdf\"\r\n"
        "Content-Type: application/pdf\r\n\r\n").encode()
    body = head + pdf + f"\r\n--{boundary}--\r\n".encode()
    return urllib.request.Request(
        base + "/v1/envelopes", data=body, method="POST",
        headers={"Authorization": f"Bearer {key}",
                 "Content-Type": f"multipart/form-data; boundary={boundary}"})


def json_request(base, key, pdf_b64):
    body = (b'{"signers":[{"name":"Ann","email":"ann@example.com"}],"send":false,'
            b'"file_name":"big.pdf","file_base64":"' + pdf_b64 + b'"}')
    return urllib.request.Request(
        base + "/v1/envelopes", data=body, method="POST",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})


def vm(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) // 1024
    return None


def run(mode, pdf, pdf_b64):
    with tempfile.TemporaryDirectory() as data_dir:
        proc, base, _ = start_server(data_dir)
        try:
            keys = account_keys(data_dir, CONCURRENCY)
            idle = vm(proc.pid, "VmRSS")
            reqs = []
            for i, key in enumerate(keys):
                as_json = mode == "json" or (mode == "mixed" and i % 2 == 1)
                reqs.append(json_request(base, key, pdf_b64) if as_json
                            else multipart_request(base, key, pdf))
            statuses = [None] * len(reqs)
            barrier = threading.Barrier(len(reqs))

            def send(i):
                barrier.wait()
                try:
                    with urllib.request.urlopen(reqs[i], timeout=300) as r:
                        statuses[i] = r.status
                except urllib.error.HTTPError as e:
                    statuses[i] = e.code
                except OSError as e:
                    statuses[i] = str(e)

            started = time.time()
            threads = [threading.Thread(target=send, args=(i,)) for i in range(len(reqs))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.time() - started
            peak = vm(proc.pid, "VmHWM")
            time.sleep(SETTLE)
            after = vm(proc.pid, "VmRSS")
            # Heap (anonymous) apart from the file pages mapped in (SQLite's memory map).
            anon, file = vm(proc.pid, "RssAnon"), vm(proc.pid, "RssFile")
            print(f"{mode:9} {CONCURRENCY} uploads: statuses {sorted(map(str, statuses))}, "
                  f"{elapsed:.1f} s, idle RSS {idle} MB, peak RSS (VmHWM) {peak} MB, "
                  f"RSS {SETTLE:g} s later {after} MB ({anon} MB anonymous, {file} MB file)",
                  flush=True)
            return peak
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def main():
    modes = sys.argv[1:] or ["multipart", "json", "mixed"]
    pdf = big_pdf(PDF_BYTES)
    pdf_b64 = base64.b64encode(pdf)
    print(f"binary {binary()}; PDF {len(pdf)} bytes, base64 {len(pdf_b64)} bytes", flush=True)
    for mode in modes:
        run(mode, pdf, pdf_b64)


if __name__ == "__main__":
    main()
