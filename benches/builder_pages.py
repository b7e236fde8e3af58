#!/usr/bin/env python3
"""How soon the builder (extensions E11) can show the first page of a 200-page document.

The builder page lays out every page's box from `GET /v1/templates/{id}/pages` at once, then
fetches pictures as pages come near the viewport (docs/BUILDER.md). What stands between opening
the link and seeing page 1 is therefore the page itself, its script, the layout, and one
picture. This bench starts the release `envelope-server serve` on a fresh data directory and,
for each of RUNS templates (default 5) made from a fresh 200-page PDF (each page different, so
that no picture is cached from an earlier run):

- `POST /v1/templates/{id}/builder_url` with the printed test key;
- `GET /build/{token}` (the page), `GET /assets/builder.js`, `GET /assets/builder.css`;
- `GET /v1/templates/{id}/pages` with the link's token (200 pages' sizes and the fields);
- `GET /v1/templates/{id}/pages/1` (the first picture, drawn now: a worker process) and again
  (from the cache), then page 200 (drawn now).

Times are wall-clock from this client over loopback, one request at a time. "first page" is the
sum of the page, script, style, layout and first picture requests: what the browser waits for
before page 1 shows (it fetches the script and style in parallel, so this overstates it).

    cargo build --release -p envelope-server
    python3 benches/builder_pages.py          # 5 templates
    python3 benches/builder_pages.py 10       # 10 templates
    ENVELOPE_BIN=/path/to/envelope-server python3 benches/builder_pages.py

Exits non-zero when a request does not answer 200 or a picture is not a PNG. Figures:
docs/PERFORMANCE.md, "Builder: the first page of a 200-page document".
"""
import http.client
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.parse
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
spec = importlib.util.spec_from_file_location(
    "upload_memory", os.path.join(ROOT, "scripts", "upload-memory.py"))
um = importlib.util.module_from_spec(spec)
spec.loader.exec_module(um)

PAGES = 200


def pdf_of(pages, tag):
    """A PDF of `pages` Letter pages of text, each naming `tag` and its number."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", None,
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"]
    kids = []
    for i in range(pages):
        page_no, contents_no = len(objs) + 1, len(objs) + 2
        kids.append(b"%d 0 R" % page_no)
        lines = b"".join(
            b"BT /F1 11 Tf 72 %d Td (%s page %d, line %d: the parties agree to the terms.) Tj ET\n"
            % (720 - 14 * n, tag.encode(), i + 1, n + 1) for n in range(40))
        objs.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                    b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % contents_no)
        objs.append(b"<< /Length %d >>\nstream\n" % len(lines) + lines + b"\nendstream")
    objs[1] = b"<< /Type /Pages /Kids [" + b" ".join(kids) + b"] /Count %d >>" % pages
    return um.pdf_from_objects(objs)

def request(base, method, path, token=None, body=None):
    """(status, body bytes, seconds)."""
    u = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    start = time.perf_counter()
    conn.request(method, path, body=data, headers=headers)
    resp = conn.getresponse()
    got = resp.read()
    took = time.perf_counter() - start
    conn.close()
    if resp.status != 200 and resp.status != 201:
        sys.exit(f"{method} {path}: {resp.status} {got[:300]!r}")
    return got, took


def template(base, key, pdf):
    import base64
    got, _ = request(base, "POST", "/v1/templates", key, {
        "name": "Two hundred pages", "file_name": "long.pdf", "roles": ["Client"],
        "file_base64": base64.b64encode(pdf).decode(),
        "fields": [{"type": "signature", "role": "Client", "page": 200, "x": 72, "y": 600,
                    "width": 200, "height": 40}]})
    return json.loads(got)["id"]


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    rows = []
    with tempfile.TemporaryDirectory() as data:
        proc, base, key = um.start_server(data)
        try:
            for run in range(runs):
                tid = template(base, key, pdf_of(PAGES, uuid.uuid4().hex[:8]))
                got, _ = request(base, "POST", f"/v1/templates/{tid}/builder_url", key, {})
                url = json.loads(got)["url"]
                token = url.rsplit("/", 1)[1]
                path = urllib.parse.urlparse(url).path
                _, t_page = request(base, "GET", path)
                _, t_js = request(base, "GET", "/assets/builder.js")
                _, t_css = request(base, "GET", "/assets/builder.css")
                layout, t_layout = request(base, "GET", f"/v1/templates/{tid}/pages", token)
                assert len(json.loads(layout)["documents"][0]["pages"]) == PAGES
                png, t_first = request(base, "GET", f"/v1/templates/{tid}/pages/1", token)
                assert png.startswith(b"\x89PNG"), png[:16]
                _, t_cached = request(base, "GET", f"/v1/templates/{tid}/pages/1", token)
                _, t_last = request(base, "GET", f"/v1/templates/{tid}/pages/{PAGES}", token)
                first = t_page + t_js + t_css + t_layout + t_first
                row = {"page": t_page, "layout": t_layout, "first picture": t_first,
                       "cached picture": t_cached, "page 200 picture": t_last,
                       "first page": first, "layout bytes": len(layout), "png bytes": len(png)}
                rows.append(row)
                print(f"run {run + 1}: " + ", ".join(
                    f"{k} {v * 1000:.1f} ms" if isinstance(v, float) else f"{k} {v}"
                    for k, v in row.items()), flush=True)
        finally:
            proc.terminate()
            proc.wait()
    print()
    print("| step | median | max |")
    print("|---|---|---|")
    for k in rows[0]:
        vals = [r[k] for r in rows]
        if isinstance(vals[0], float):
            print(f"| {k} | {statistics.median(vals) * 1000:.1f} ms | {max(vals) * 1000:.1f} ms |")
        else:
            print(f"| {k} | {statistics.median(vals):.0f} | {max(vals)} |")


if __name__ == "__main__":
    main()
