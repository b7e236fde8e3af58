#!/usr/bin/env python3
"""A 1,000-row bulk send (extensions E12) on SQLite: how long from the POST until it is
`completed` (every envelope made and sent, every signing request queued), and how many bytes
the database grows by per envelope (the template's PDF is shared, never copied).

It starts the release `envelope-server serve` on a fresh data directory, makes a template of a
one-page PDF padded to PDF_KB (default 100) KiB with two roles, then for each of RUNS bulk sends
(default 3):

- reads the database's pages (SQLite's dbstat, through a read-only connection beside the
  running server: WAL readers see what is committed) and its blob count;
- `POST /v1/bulk_sends` with ROWS (default 1000) JSON rows, then `GET /v1/bulk_sends/{id}` every
  10 ms until `completed`: "POST to completed" is that wall-clock time;
- lists the bulk send's envelopes (`?bulk_send=`) and checks each is `sent` with every signer's
  `last_email` a queued or sent `signing_request` (not timed);
- once every signing request has gone out (its outcome and the link it carried are written
  after the send), reads the pages again: the growth divided by the rows is "bytes per
  envelope"; the blob count must not change (the PDF is shared).

    cargo build --release -p envelope-server
    python3 benches/bulk_send.py              # 3 bulk sends of 1,000 rows
    RUNS=1 ROWS=500 python3 benches/bulk_send.py
    KEEP_DATA=1 RUNS=1 python3 benches/bulk_send.py   # prints the data dir, for
                                                      # scripts/storage-breakdown.py
    ENVELOPE_BIN=/path/to/envelope-server python3 benches/bulk_send.py

Exits non-zero when a request fails or a check does not hold. Figures: docs/PERFORMANCE.md,
"Bulk send: 1,000 rows".
"""
import base64
import http.client
import importlib.util
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
spec = importlib.util.spec_from_file_location(
    "upload_memory", os.path.join(ROOT, "scripts", "upload-memory.py"))
um = importlib.util.module_from_spec(spec)
spec.loader.exec_module(um)

ROWS = int(os.environ.get("ROWS", "1000"))
RUNS = int(os.environ.get("RUNS", "3"))
PDF_KB = int(os.environ.get("PDF_KB", "100"))


def request(base, method, path, key, body=None):
    u = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
    headers = {"Authorization": f"Bearer {key}"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=headers)
    resp = conn.getresponse()
    got = resp.read()
    conn.close()
    if resp.status not in (200, 201, 202):
        sys.exit(f"{method} {path}: {resp.status} {got[:300]!r}")
    return json.loads(got)


def two_role_pdf(size):
    """A one-page PDF with a signature tag for `Employee` and one for `Manager`, padded."""
    content = (b"BT /F1 12 Tf 72 700 Td (Employee: {{signature:Employee}}) Tj ET\n"
               b"BT /F1 12 Tf 72 600 Td (Manager: {{signature:Manager}}) Tj ET\n")
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        None,
    ]

    def render(pad_len):
        pad = b"% padding\n" * (pad_len // 10) + b" " * (pad_len % 10)
        objs[5] = b"<< /Length %d >>\nstream\n" % len(pad) + pad + b"\nendstream"
        return um.pdf_from_objects(objs)

    return render(max(0, size - len(render(0))))


def pages_and_blobs(db_path):
    """(bytes of every page in use, number of blobs), as a reader sees the database now."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        pages = db.execute("SELECT sum(pgsize) FROM dbstat").fetchone()[0]
        blobs = db.execute("SELECT count(*) FROM blobs").fetchone()[0]
    finally:
        db.close()
    return pages, blobs


def rows(run):
    return [{
        "signers": {
            "Employee": {"name": f"Employee {run}-{i}", "email": f"e{run}.{i}@example.com"},
            "Manager": {"name": "Morgan Manager", "email": "morgan@example.com"},
        },
        "metadata": {"employee": str(i)},
    } for i in range(ROWS)]


def envelopes_of(base, key, bulk):
    out, after = [], ""
    while True:
        page = request(base, "GET", f"/v1/envelopes?bulk_send={bulk}&limit=100{after}", key)
        out += page["data"]
        if not page["has_more"]:
            return out
        after = f"&starting_after={page['data'][-1]['id']}"


class _kept:
    """A data dir left in place, for a look at where the bytes went."""

    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="bulk-send-")
        return self.path

    def __exit__(self, *exc):
        print(f"data kept in {self.path}")


def main():
    # Every test email goes out (as `.eml` files in the data dir): the day's default budget of
    # test emails would fail most of 2,000 with `envelope.email_failed` events.
    os.environ["ENVELOPE_TEST_EMAIL_DAILY_LIMIT"] = "unlimited"
    results = []
    keep = os.environ.get("KEEP_DATA")
    with (tempfile.TemporaryDirectory() if not keep else _kept()) as data:
        proc, base, key = um.start_server(data)
        db_path = os.path.join(data, "envelope.sqlite3")
        try:
            pdf = two_role_pdf(PDF_KB * 1024)
            tmpl = request(base, "POST", "/v1/templates", key, {
                "name": "Onboarding", "file_name": "onboarding.pdf",
                "roles": ["Employee", "Manager"],
                "file_base64": base64.b64encode(pdf).decode()})["id"]
            for run in range(RUNS):
                before, blobs_before = pages_and_blobs(db_path)
                body = {"template": tmpl, "rows": rows(run), "subject": "Welcome aboard"}
                start = time.perf_counter()
                bulk = request(base, "POST", "/v1/bulk_sends", key, body)
                accepted = time.perf_counter() - start
                while True:
                    b = request(base, "GET", f"/v1/bulk_sends/{bulk['id']}", key)
                    if b["status"] == "completed":
                        break
                    time.sleep(0.01)
                took = time.perf_counter() - start
                if (b["created"], b["failed"]) != (ROWS, 0):
                    sys.exit(f"bulk send ended with {b}")
                envs = envelopes_of(base, key, bulk["id"])
                if len(envs) != ROWS:
                    sys.exit(f"{len(envs)} envelopes listed, {ROWS} expected")
                for e in envs:
                    assert e["status"] == "sent" and e["bulk_send"] == bulk["id"], e
                    for s in e["signers"]:
                        assert s["last_email"]["kind"] == "signing_request", e
                # The bytes once the emails went out too (their outcomes and the signing links
                # they carried are written after the send): not timed.
                for _ in range(600):
                    if all(s["last_email"]["status"] != "pending"
                           for e in envs for s in e["signers"]):
                        break
                    time.sleep(0.5)
                    envs = envelopes_of(base, key, bulk["id"])
                else:
                    sys.exit("emails still pending after 5 minutes")
                after, blobs_after = pages_and_blobs(db_path)
                if blobs_after != blobs_before:
                    sys.exit(f"blobs went from {blobs_before} to {blobs_after}: the PDF was copied")
                per = (after - before) / ROWS
                results.append((accepted, took, per))
                print(f"run {run + 1}: 202 after {accepted * 1000:.0f} ms, completed after "
                      f"{took:.2f} s, {per:,.0f} bytes per envelope, blobs {blobs_after}",
                      flush=True)
        finally:
            proc.terminate()
            proc.wait()
    print()
    print(f"{ROWS} rows, template PDF {PDF_KB} KiB, {RUNS} runs")
    print("| measure | median | max |")
    print("|---|---|---|")
    for name, i, unit in [("POST answered (202)", 0, "ms"), ("POST to completed", 1, "s"),
                          ("database bytes per envelope", 2, "B")]:
        vals = [r[i] for r in results]
        if unit == "ms":
            print(f"| {name} | {statistics.median(vals) * 1000:.0f} ms | {max(vals) * 1000:.0f} ms |")
        elif unit == "s":
            print(f"| {name} | {statistics.median(vals):.2f} s | {max(vals):.2f} s |")
        else:
            print(f"| {name} | {statistics.median(vals):,.0f} | {max(vals):,.0f} |")


if __name__ == "__main__":
    main()
