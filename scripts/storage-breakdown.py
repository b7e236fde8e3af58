#!/usr/bin/env python3
"""Where the bytes of a SQLite data dir go, per envelope (docs/STORAGE.md "Bytes per envelope").

Usage, after a load run that kept its data dir:

    LOAD_ENVELOPES=10000 LOAD_GET_REQUESTS=2000 LOAD_KEEP_DATA=1 \
      cargo bench -p envelope-server --bench load        # prints "data kept in DIR"
    python3 scripts/storage-breakdown.py DIR/envelope.sqlite3

It reads the database only (SQLite's dbstat table: the pages of each table and index), prints
each table and index with its bytes on disk and bytes per envelope, and the average stored
document of each kind. The bench's commit floor writes 1 000 blobs of 1 KB named `floor-*`
before the load: they are counted apart, not per envelope.
"""
import os
import sqlite3
import sys


def main(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    n = db.execute("SELECT count(*) FROM envelopes").fetchone()[0]
    if n == 0:
        sys.exit("no envelopes in this database")
    files = {p: os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p)}
    total = sum(files.values())
    print(f"{n} envelopes; files: " + ", ".join(f"{os.path.basename(p)} {s:,} B" for p, s in files.items()))
    print(f"bytes per envelope (all files): {total / n:,.0f}")
    floor_rows, floor_bytes = db.execute(
        "SELECT count(*), coalesce(sum(size), 0) FROM blobs WHERE blob_key LIKE 'floor-%'"
    ).fetchone()
    print(f"(bench commit floor: {floor_rows} blobs, {floor_bytes:,} B of data, in table blob_chunks)")
    print()
    print(f"{'table or index':<48} {'bytes':>14} {'per envelope':>13} {'unused':>7}")
    rows = db.execute(
        "SELECT name, sum(pgsize), sum(unused) FROM dbstat GROUP BY name ORDER BY sum(pgsize) DESC"
    ).fetchall()
    for name, size, unused in rows:
        print(f"{name:<48} {size:>14,} {size / n:>13,.0f} {100 * unused / max(size, 1):>6.0f}%")
    print(f"{'(all pages)':<48} {sum(r[1] for r in rows):>14,} {sum(r[1] for r in rows) / n:>13,.0f}")
    print()
    docs = [
        ("envelopes.doc", "SELECT count(*), avg(length(doc)) FROM envelopes"),
        # Schema 8 stores events packed (store/sql/packed.rs), with doc left empty; rows written
        # before keep their JSON in doc.
        ("events.doc (JSON, before schema 8)", "SELECT count(*), avg(length(doc)) FROM events WHERE packed IS NULL"),
        ("events.packed", "SELECT count(*), avg(length(packed)) FROM events WHERE packed IS NOT NULL"),
        ("signing_tokens.doc", "SELECT count(*), avg(length(doc)) FROM signing_tokens"),
        # Schema 11 keeps a blob's bytes in 256 KiB rows of blob_chunks and its size in blobs.
        ("blob_chunks.data (PDFs)", "SELECT count(*), avg(size) FROM blobs WHERE blob_key NOT LIKE 'floor-%'"),
        ("webhook_deliveries", "SELECT count(*), 0 FROM webhook_deliveries"),
        ("idempotency_keys.body", "SELECT count(*), avg(length(body)) FROM idempotency_keys"),
        ("held_blobs", "SELECT count(*), 0 FROM held_blobs"),
    ]
    print(f"{'stored values':<48} {'rows':>14} {'per envelope':>13} {'avg bytes':>10}")
    for name, sql in docs:
        try:
            count, avg = db.execute(sql).fetchone()
        except sqlite3.Error as e:
            print(f"{name:<48} ({e})")
            continue
        print(f"{name:<48} {count:>14,} {count / n:>13.2f} {avg or 0:>10,.0f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
