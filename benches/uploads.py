#!/usr/bin/env python3
"""Peak memory of the release server under concurrent 24 MB uploads from ONE account.

Issue 31's target: 10 concurrent uploads all answer 201 with peak RSS under 250 MB; 50
concurrent: every answer is a 201 or a 503 with Retry-After that the client reads, and every
201 is an envelope (nothing lost). Uploads are spooled to disk as they arrive and read into
memory as many at once as the PDF pool has slots (docs/HTTP.md, "Uploads").

For each count (default 10 and 50) and each mode (multipart, json), it starts the release
`envelope-server serve` on a fresh data directory, fires that many simultaneous
POST /v1/envelopes with a 24 MiB PDF, all with the one test key the server prints, with
Python's http.client (it sends the whole body before it reads the answer), then reads the
server's VmHWM (peak resident set) from /proc/PID/status, counts the envelopes, and checks
that the spool directory is empty. Each run has its own server: VmHWM is a high-water mark.

    cargo build --release -p envelope-server
    python3 benches/uploads.py                     # counts 10 50, modes multipart json
    python3 benches/uploads.py 10 json             # one count, one mode
    ENVELOPE_BIN=/path/to/envelope-server python3 benches/uploads.py

Exits non-zero when an answer is neither a 201 nor a 503 with Retry-After, when the envelopes
are not the 201s, or when the spool is not empty. Figures: docs/PERFORMANCE.md, "Uploads
through the spool".
"""
import base64
import http.client
import importlib.util
import json
import os
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "upload_memory", os.path.join(HERE, "..", "scripts", "upload-memory.py"))
um = importlib.util.module_from_spec(spec)
spec.loader.exec_module(um)

MIB = 1024 * 1024
PDF_BYTES = 24 * MIB


def body_of(mode, pdf, pdf_b64):
    if mode == "json":
        body = (b'{"signers":[{"name":"Ann","email":"ann@example.com"}],"send":false,'
                b'"file_name":"big.pdf","file_base64":"' + pdf_b64 + b'"}')
        return "application/json", body
    boundary = "----uploads-bench-boundary"
    head = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"signers\"\r\n\r\n"
        '[{"name":"Ann","email":"ann@example.com"}]\r\n'
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"send\"\r\n\r\nfalse\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.pdf\"\r\n"
        "Content-Type: application/pdf\r\n\r\n").encode()
    return f"multipart/form-data; boundary={boundary}", head + pdf + f"\r\n--{boundary}--\r\n".encode()


def post(port, key, content_type, body):
    """(status, Retry-After, code) or the exception's text when the client could not finish."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    try:
        c.request("POST", "/v1/envelopes", body=body, headers={
            "Authorization": f"Bearer {key}", "Content-Type": content_type})
        r = c.getresponse()
        data = r.read()
        code = None
        try:
            code = json.loads(data).get("code")
        except ValueError:
            pass
        return (r.status, r.getheader("Retry-After"), code)
    except OSError as e:
        return f"{type(e).__name__}: {e}"
    finally:
        c.close()


def count_envelopes(port, key):
    n, after = 0, None
    while True:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        path = "/v1/envelopes?limit=100" + (f"&starting_after={after}" if after else "")
        c.request("GET", path, headers={"Authorization": f"Bearer {key}"})
        page = json.loads(c.getresponse().read())
        c.close()
        n += len(page["data"])
        if not page.get("has_more") or not page["data"]:
            return n
        after = page["data"][-1]["id"]


def run(count, mode, pdf, pdf_b64):
    with tempfile.TemporaryDirectory() as data_dir:
        proc, base, key = um.start_server(data_dir)
        port = int(base.rsplit(":", 1)[1])
        try:
            idle = um.vm(proc.pid, "VmRSS")
            content_type, body = body_of(mode, pdf, pdf_b64)
            answers = [None] * count
            barrier = threading.Barrier(count)

            def send(i):
                barrier.wait()
                answers[i] = post(port, key, content_type, body)

            started = time.time()
            threads = [threading.Thread(target=send, args=(i,)) for i in range(count)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.time() - started
            peak = um.vm(proc.pid, "VmHWM")
            created = sum(1 for a in answers if isinstance(a, tuple) and a[0] == 201)
            busy = sum(1 for a in answers if isinstance(a, tuple) and a[0] == 503
                       and a[2] == "service_busy" and a[1] and a[1].isdigit())
            other = [a for a in answers if not (isinstance(a, tuple) and (
                a[0] == 201 or (a[0] == 503 and a[2] == "service_busy" and a[1] and a[1].isdigit())))]
            envelopes = count_envelopes(port, key)
            spool = os.listdir(os.path.join(data_dir, "spool"))
            ok = not other and envelopes == created and not spool
            print(f"{mode:9} {count:3} uploads, one account: {created} x 201, {busy} x 503 with "
                  f"Retry-After, other {other}; {envelopes} envelopes; spool files left "
                  f"{len(spool)}; {elapsed:.1f} s; idle RSS {idle} MB, peak RSS (VmHWM) {peak} MB"
                  f"{'' if ok else '  FAILED'}", flush=True)
            return ok
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except Exception:
                proc.kill()


def main():
    args = sys.argv[1:]
    counts = [int(a) for a in args if a.isdigit()] or [10, 50]
    modes = [a for a in args if not a.isdigit()] or ["multipart", "json"]
    pdf = um.big_pdf(PDF_BYTES)
    pdf_b64 = base64.b64encode(pdf)
    print(f"binary {um.binary()}; PDF {len(pdf)} bytes, base64 {len(pdf_b64)} bytes", flush=True)
    ok = True
    for count in counts:
        for mode in modes:
            ok = run(count, mode, pdf, pdf_b64) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
