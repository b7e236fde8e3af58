#!/usr/bin/env python3
"""Whole-process figures beside the Python tools people use for the same jobs, in one run on one
generated file (docs/PERFORMANCE.md, "Beside pypdf and pyHanko").

    python3 -m pip install pypdf pyhanko      # once
    python3 benches/compare.py [--runs 5] [--pages 200]

It builds `examples/stamp.rs` in release mode, writes a 200-page PDF of about 24 MB (a noise
image on every page, so nothing compresses it away, and a `{{signature:Client}}` tag on every
20th page: 10 tags), an ECDSA P-256 key and a self-signed certificate (openssl), then times, as
whole processes, alternating A B A B after one warm-up run of each:

- stamping: our `stamp` (discovers the tags, then paints the 10 stamps into one incremental
  update) against pypdf's incremental writer painting the same 10 stamps at the positions our
  discovery printed (pypdf gets the positions for free);
- sealing: our `stamp --seal` (discovery, the 10 stamps and a PAdES seal in one update) against
  pyHanko sealing the same file with the same key (a seal alone, no stamps).

Before the pairs it prints the floor of any such tool as whole processes of the system's own
`openssl dgst -sha256` (read and hash; coreutils' sha256sum uses no SHA instructions), `cp`
(read and write) and `true` (start a process).

It prints the median wall time of each and the ratio (theirs / ours), and checks each output:
ours and pypdf's keep the original as their byte prefix; the sealed ones are validated by
pyHanko. The tools' own modes are the subcommands `pypdf-stamp` and `pyhanko-seal`, run as
processes by the timing loop.
"""
import argparse
import hashlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def big_document(path, pages, image_bytes):
    """The same shape as the Rust benches' `big_document`, with 10 tags instead of one a page."""
    side = int(image_bytes ** 0.5)
    objects = []  # bodies, object number = index + 1

    def add(body):
        objects.append(body)
        return len(objects)

    helv = add(b"<</Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding>>")
    pages_id = add(None)
    kids = []
    rng = random.Random(1)
    for i in range(pages):
        noise = rng.randbytes(side * side)
        img = add(b"<</Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                  b"/BitsPerComponent 8 /Length %d>>\nstream\n" % (side, side, len(noise))
                  + noise + b"\nendstream")
        text = f"BT /F1 12 Tf 72 720 Td (Page {i + 1} of the big document.) Tj ET\n"
        if i % (pages // 10 or 1) == 0:
            text += "BT /F1 11 Tf 72 100 Td (Signed: {{signature:Client}}) Tj ET\n"
        text += "q 200 0 0 200 72 300 cm /Im0 Do Q\n"
        content = zlib.compress(text.encode())
        c = add(b"<</Length %d /Filter /FlateDecode>>\nstream\n" % len(content) + content + b"\nendstream")
        kids.append(add(
            b"<</Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources <</Font <</F1 %d 0 R>> "
            b"/XObject <</Im0 %d 0 R>>>> /Contents %d 0 R>>" % (pages_id, helv, img, c)))
    objects[pages_id - 1] = b"<</Type /Pages /Kids [%s] /Count %d>>" % (
        b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    root = add(b"<</Type /Catalog /Pages %d 0 R>>" % pages_id)
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<</Size %d /Root %d 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, root, xref)
    Path(path).write_bytes(out)


FIELD_LINE = re.compile(r"^\s+page (\d+) \(([-\d.]+), ([-\d.]+), ([-\d.]+) x ([-\d.]+)\) (\S+) \w+ <- \w+\(\"(.*)\"\)$")


def fields_from(stamp_output):
    """The fields our `stamp` printed: page, box and the value it painted."""
    fields = []
    for line in stamp_output.splitlines():
        m = FIELD_LINE.match(line)
        if m:
            page, x, y, w, h, key, value = m.groups()
            fields.append({"page": int(page), "x": float(x), "y": float(y), "width": float(w),
                           "height": float(h), "key": key, "value": value})
    return fields


def pypdf_stamp(src, dst, fields_json):
    """pypdf's incremental writer: per field, a white box over the tag and the value in
    Helvetica, appended to the page's contents, as our stamp paints it."""
    from pypdf import PdfWriter
    from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, NameObject

    fields = json.loads(Path(fields_json).read_text())
    writer = PdfWriter(src, incremental=True)
    font = writer._add_object(DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica"),
        NameObject("/Encoding"): NameObject("/WinAnsiEncoding")}))
    for f in fields:
        page = writer.pages[f["page"] - 1]
        size = max(4.0, min(f["height"] * 0.8, 24.0))
        text = f["value"].replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        ops = (f"q 1 1 1 rg {f['x']:.2f} {f['y']:.2f} {f['width']:.2f} {f['height']:.2f} re f Q "
               f"BT /FStamp {size:.1f} Tf 0 0 0 rg {f['x']:.2f} {f['y'] + f['height'] * 0.2:.2f} Td "
               f"({text}) Tj ET\n")
        stream = DecodedStreamObject()
        stream.set_data(ops.encode("latin-1"))
        ref = writer._add_object(stream)
        contents = page.get("/Contents")
        if isinstance(contents.get_object(), ArrayObject):
            contents.get_object().append(ref)
        else:
            page[NameObject("/Contents")] = ArrayObject([contents, ref])
        resources = page["/Resources"].get_object()
        fonts = resources.get("/Font")
        if fonts is None:
            resources[NameObject("/Font")] = DictionaryObject({NameObject("/FStamp"): font})
        else:
            fonts.get_object()[NameObject("/FStamp")] = font
    with open(dst, "wb") as out:
        writer.write(out)


def pyhanko_seal(src, dst, key, cert):
    """pyHanko's PAdES signature in a new signature field, as its documentation shows."""
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import signers

    signer = signers.SimpleSigner.load(key, cert)
    with open(src, "rb") as inf, open(dst, "wb") as out:
        writer = IncrementalPdfFileWriter(inf)
        signers.sign_pdf(writer, signers.PdfSignatureMetadata(field_name="Seal"), signer=signer, output=out)


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def timed(cmd):
    # Each run starts with the previous outputs on disk: otherwise the 24 MB a run wrote are
    # still being written back during the next one, which then pays for it.
    os.sync()
    start = time.perf_counter()
    run(cmd)
    return time.perf_counter() - start


def pair(name, ours, theirs, runs):
    """A B A B ... after one warm-up of each; medians and the median of the pairwise ratios."""
    timed(ours), timed(theirs)
    a, b = [], []
    for _ in range(runs):
        a.append(timed(ours))
        b.append(timed(theirs))
    ratios = sorted(y / x for x, y in zip(a, b))
    print(f"{name}:")
    print(f"  ours   median {statistics.median(a) * 1000:8.1f} ms  (min {min(a) * 1000:.1f}, max {max(a) * 1000:.1f})")
    print(f"  theirs median {statistics.median(b) * 1000:8.1f} ms  (min {min(b) * 1000:.1f}, max {max(b) * 1000:.1f})")
    print(f"  theirs / ours: {statistics.median(ratios):.1f}x (pairs from {ratios[0]:.1f}x to {ratios[-1]:.1f}x)")
    return statistics.median(ratios)


def check_prefix(original, signed, who):
    a, b = Path(original).read_bytes(), Path(signed).read_bytes()
    if not (len(b) > len(a) and b[: len(a)] == a):
        sys.exit(f"{who}: the output does not keep the original as its prefix")


def validate_seal(path, cert, who):
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko_certvalidator import ValidationContext
    from pyhanko.keys import load_cert_from_pemder

    root = load_cert_from_pemder(cert)
    with open(path, "rb") as f:
        sigs = PdfFileReader(f).embedded_signatures
        if not sigs:
            sys.exit(f"{who}: no signature in the output")
        status = validate_pdf_signature(sigs[-1], ValidationContext(trust_roots=[root]))
        if not (status.intact and status.valid and status.coverage.name == "ENTIRE_FILE"):
            sys.exit(f"{who}: the seal does not validate: {status.pretty_print_details()}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "pypdf-stamp":
        return pypdf_stamp(*sys.argv[2:5])
    if len(sys.argv) > 1 and sys.argv[1] == "pyhanko-seal":
        return pyhanko_seal(*sys.argv[2:6])
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--pages", type=int, default=200)
    p.add_argument("--image-bytes", type=int, default=120_000)
    args = p.parse_args()

    run(["cargo", "build", "--quiet", "--release", "-p", "envelope-core", "--example", "stamp"])
    stamp = ROOT / "target" / "release" / "examples" / "stamp"
    me = [sys.executable, __file__]
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        src = t / "big.pdf"
        big_document(src, args.pages, args.image_bytes)
        size = src.stat().st_size
        key, cert = t / "key.pem", t / "cert.pem"
        run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key])
        run(["openssl", "req", "-x509", "-new", "-key", key, "-out", cert, "-days", "30",
             "-subj", "/CN=envelope compare"])
        # Our discovery tells pypdf where the stamps go.
        fields = fields_from(run([stamp, src, t / "ours.pdf"]))
        if len(fields) != 10:
            sys.exit(f"expected 10 tags, our stamp found {len(fields)}")
        (t / "fields.json").write_text(json.dumps(fields))
        start = time.perf_counter()
        hashlib.sha256(src.read_bytes()).digest()
        sha = time.perf_counter() - start
        print(f"{src.name}: {args.pages} pages, {size / 1e6:.1f} MB, {len(fields)} tags; "
              f"one SHA-256 of it in this process: {sha * 1000:.1f} ms; {args.runs} runs of each")

        # The floor of any tool that must read the file, hash it and write it out again, as
        # whole processes of the system's own tools: what is left beyond it is ours to cut.
        floor = {name: statistics.median(timed(cmd) for _ in range(args.runs))
                 for name, cmd in [("openssl dgst -sha256", ["openssl", "dgst", "-sha256", src]),
                                   ("cp", ["cp", src, t / "copy.pdf"]),
                                   ("true", ["true"])]}
        print("floor, whole processes (median): " + ", ".join(
            f"{name} {ms * 1000:.1f} ms" for name, ms in floor.items()))

        ours_stamp = [stamp, src, t / "ours.pdf"]
        pypdf = me + ["pypdf-stamp", src, t / "pypdf.pdf", t / "fields.json"]
        stamp_ratio = pair("stamp 10 fields", ours_stamp, pypdf, args.runs)
        check_prefix(src, t / "ours.pdf", "ours")
        check_prefix(src, t / "pypdf.pdf", "pypdf")

        ours_seal = [stamp, src, t / "ours-sealed.pdf", "--seal", "--key", key, "--cert", cert]
        pyhanko = me + ["pyhanko-seal", src, t / "pyhanko.pdf", key, cert]
        seal_ratio = pair("seal (ours: discovery + 10 stamps + seal)", ours_seal, pyhanko, args.runs)
        check_prefix(src, t / "ours-sealed.pdf", "ours")
        validate_seal(t / "ours-sealed.pdf", cert, "ours")
        validate_seal(t / "pyhanko.pdf", cert, "pyHanko")
        print(f"summary: stamping {stamp_ratio:.1f}x faster than pypdf (target 5x), "
              f"sealing {seal_ratio:.1f}x faster than pyHanko (target 10x); "
              "every output checked (prefix kept, seals valid)")


if __name__ == "__main__":
    main()
