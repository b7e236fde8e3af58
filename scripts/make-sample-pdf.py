#!/usr/bin/env python3
"""Writes examples/contract.pdf: a one-page services agreement with text tags.

The README's walkthrough uses it. Kept as a script so the sample can be regenerated and read;
it writes a plain PDF 1.4 with a classic xref table and the standard Helvetica font.
"""
import sys

lines = [
    (72, 740, 18, "Services Agreement"),
    (72, 700, 11, "This agreement is made between the Client and the Provider."),
    (72, 680, 11, "Services start on {{data:start_date}} and are billed monthly."),
    (72, 660, 11, "Client company: {{text:Client:company}}"),
    (72, 600, 11, "Client signature: {{signature:Client}}"),
    (72, 580, 11, "Date: {{date:Client}}"),
    (72, 520, 11, "Provider signature: {{signature:Provider}}"),
    (72, 500, 11, "Date: {{date:Provider}}"),
]

def esc(s):
    return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

content = "".join(f"BT /F1 {size} Tf {x} {y} Td ({esc(text)}) Tj ET\n" for x, y, size, text in lines).encode()
objects = [
    b"<< /Type /Catalog /Pages 2 0 R >>",
    b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    b"<< /Length %d >>\nstream\n" % len(content) + content + b"endstream",
    b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    b"<< /Title (Services Agreement) /Producer (envelope sample script) >>",
]
out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
offsets = []
for i, body in enumerate(objects, 1):
    offsets.append(len(out))
    out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
xref = len(out)
out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
for off in offsets:
    out += b"%010d 00000 n \n" % off
out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
path = sys.argv[1] if len(sys.argv) > 1 else "examples/contract.pdf"
open(path, "wb").write(out)
print(f"wrote {path} ({len(out)} bytes)")
