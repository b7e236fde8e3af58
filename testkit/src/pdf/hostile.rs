//! Hostile PDFs, one generator per class of issue 11 ("Hostile input cannot stall the service").
//! Each stands for a way a small upload used to cost unbounded work; `tests/pdf_hostile.rs`
//! checks the reader's answer and `examples/hostile.rs` writes them out and measures them.
//!
//! Sizes are parameters so that the tests (debug builds) can use smaller ones with
//! proportionally smaller limits; [`corpus`] gives the full-size files measured in
//! docs/ROBUSTNESS.md. Deterministic: no clock, no randomness.

use std::fmt::Write as _;
use std::io::Write as _;

use super::{Builder, Layout, lit, stream_body};

/// One page with `content`, Helvetica as `/F1` and `xobjects` as the page's `/XObject` entries.
fn one_page(b: &mut Builder, content: &str, xobjects: &str) -> Vec<u8> {
    let helv =
        b.add("<</Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding>>");
    let c = b.stream("", content.as_bytes());
    let pages = b.reserve();
    let page = b.add(format!(
        "<</Type /Page /Parent {pages} 0 R /MediaBox [0 0 612 792] /Resources <</Font <</F1 {helv} 0 R>> /XObject <<{xobjects}>>>> /Contents {c} 0 R>>"
    ));
    b.set(
        pages,
        format!("<</Type /Pages /Kids [{page} 0 R] /Count 1>>"),
    );
    let root = b.add(format!("<</Type /Catalog /Pages {pages} 0 R>>"));
    b.finish(root, Layout::Classic)
}

/// The 706-byte file of the issue: form `F` draws itself 20 times.
pub fn self_drawing_form() -> Vec<u8> {
    let mut b = Builder::new();
    let f = b.reserve();
    let body = "/F Do ".repeat(20);
    b.set(
        f,
        stream_body(
            &format!("/Type /XObject /Subtype /Form /BBox [0 0 9 9] /Resources <</XObject <</F {f} 0 R>>>>"),
            body.as_bytes(),
        ),
    );
    one_page(&mut b, "/F Do", &format!("/F {f} 0 R"))
}

/// Forms `F0..F{levels}`: each draws the next `fanout` times (moved a little each time), the
/// last shows `text`. Unique forms, so memoising alone cannot help: the glyphs multiply.
pub fn fan_out_forms(levels: usize, fanout: usize, text: &str) -> Vec<u8> {
    let mut b = Builder::new();
    let helv =
        b.add("<</Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding>>");
    let mut next = b.stream(
        &format!("/Type /XObject /Subtype /Form /BBox [0 0 600 20] /Resources <</Font <</F1 {helv} 0 R>>>>"),
        format!("BT /F1 10 Tf 0 0 Td {} Tj ET", lit(text)).as_bytes(),
    );
    for _ in 0..levels {
        let mut body = String::new();
        for i in 0..fanout {
            write!(body, "q 1 0 0 1 0 {i} cm /N Do Q ").unwrap();
        }
        next = b.stream(
            &format!("/Type /XObject /Subtype /Form /BBox [0 0 600 800] /Resources <</XObject <</N {next} 0 R>>>>"),
            body.as_bytes(),
        );
    }
    one_page(&mut b, "/F Do", &format!("/F {next} 0 R"))
}

/// A chain of `depth` forms, each drawing the next once.
pub fn deep_forms(depth: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let mut next = b.stream("/Type /XObject /Subtype /Form /BBox [0 0 9 9]", b"");
    for _ in 0..depth {
        next = b.stream(
            &format!("/Type /XObject /Subtype /Form /BBox [0 0 9 9] /Resources <</XObject <</N {next} 0 R>>>>"),
            b"/N Do",
        );
    }
    one_page(&mut b, "/F Do", &format!("/F {next} 0 R"))
}

/// A page-tree node with `kids` entries in `/Kids` (all the same page) under a root whose
/// inherited `/Resources` has `resources` font entries; `/Count` claims one page.
pub fn huge_kids(kids: usize, resources: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let helv =
        b.add("<</Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding>>");
    let mut fonts = String::new();
    for i in 0..resources {
        write!(fonts, "/F{i} {helv} 0 R ").unwrap();
    }
    let c = b.stream("", b"BT /F0 10 Tf 72 700 Td (hello) Tj ET");
    let root_pages = b.reserve();
    let node = b.reserve();
    let page = b.add(format!(
        "<</Type /Page /Parent {node} 0 R /Contents {c} 0 R>>"
    ));
    let refs = format!("{page} 0 R ").repeat(kids);
    b.set(
        node,
        format!("<</Type /Pages /Parent {root_pages} 0 R /Kids [{refs}] /Count 1>>"),
    );
    b.set(
        root_pages,
        format!("<</Type /Pages /Kids [{node} 0 R] /Count 1 /MediaBox [0 0 612 792] /Resources <</Font <<{fonts}>>>>>>"),
    );
    let root = b.add(format!("<</Type /Catalog /Pages {root_pages} 0 R>>"));
    b.finish(root, Layout::Classic)
}

/// A page tree `depth` levels deep.
pub fn deep_page_tree(depth: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let c = b.stream("", b"");
    let nodes: Vec<u32> = (0..depth).map(|_| b.reserve()).collect();
    let page = b.add(format!(
        "<</Type /Page /Parent {} 0 R /MediaBox [0 0 612 792] /Contents {c} 0 R>>",
        nodes[depth - 1]
    ));
    for (i, &n) in nodes.iter().enumerate() {
        let kid = nodes.get(i + 1).copied().unwrap_or(page);
        let parent = if i == 0 {
            String::new()
        } else {
            format!("/Parent {} 0 R", nodes[i - 1])
        };
        b.set(
            n,
            format!("<</Type /Pages {parent} /Kids [{kid} 0 R] /Count 1>>"),
        );
    }
    let root = b.add(format!("<</Type /Catalog /Pages {} 0 R>>", nodes[0]));
    b.finish(root, Layout::Classic)
}

/// A file whose only xref is a stream with `/W [1 0 0]` and `/Size 50000000`, holding `rows`
/// one-byte rows (compressed to almost nothing).
pub fn xref_stream_rows(rows: usize) -> Vec<u8> {
    let mut out = b"%PDF-1.7\n".to_vec();
    out.extend_from_slice(b"1 0 obj\n<</Type /Catalog /Pages 2 0 R>>\nendobj\n");
    out.extend_from_slice(b"2 0 obj\n<</Type /Pages /Kids [3 0 R] /Count 1>>\nendobj\n");
    out.extend_from_slice(
        b"3 0 obj\n<</Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]>>\nendobj\n",
    );
    let start = out.len();
    let z = zlib_of_repeated(0, rows);
    let dict = format!(
        "/Type /XRef /Size 50000000 /W [1 0 0] /Root 1 0 R /Filter /FlateDecode /Length {}",
        z.len()
    );
    write!(out, "4 0 obj\n<<{dict}>>\nstream\n").unwrap();
    out.extend_from_slice(&z);
    write!(out, "\nendstream\nendobj\nstartxref\n{start}\n%%EOF\n").unwrap();
    out
}

/// A Type0 font whose ToUnicode CMap has `lines` full-range `bfrange` lines, shown on a page.
pub fn cmap_full_ranges(lines: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let mut cmap = format!(
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n1 begincodespacerange <0000> <FFFF> endcodespacerange\n{lines} beginbfrange\n"
    );
    for _ in 0..lines {
        cmap.push_str("<0000> <FFFF> <0041>\n");
    }
    cmap.push_str("endbfrange\nendcmap end end\n");
    let tu = b.zstream("", cmap.as_bytes());
    let cid = b.add("<</Type /Font /Subtype /CIDFontType2 /BaseFont /X /CIDSystemInfo <</Registry (Adobe) /Ordering (Identity) /Supplement 0>> /DW 500>>");
    let font = b.add(format!("<</Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [{cid} 0 R] /ToUnicode {tu} 0 R>>"));
    let c = b.stream("", b"BT /T 10 Tf 72 700 Td <00410042> Tj ET");
    let pages = b.reserve();
    let page = b.add(format!(
        "<</Type /Page /Parent {pages} 0 R /MediaBox [0 0 612 792] /Resources <</Font <</T {font} 0 R>>>> /Contents {c} 0 R>>"
    ));
    b.set(
        pages,
        format!("<</Type /Pages /Kids [{page} 0 R] /Count 1>>"),
    );
    let root = b.add(format!("<</Type /Catalog /Pages {pages} 0 R>>"));
    b.finish(root, Layout::Classic)
}

/// `pages` pages, each with its own stream of `size` spaces as content, deflated twice (so that
/// hundreds of 64 MB streams fit in an upload of a few hundred kilobytes).
pub fn many_deflate_streams(pages: usize, size: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let z = super::zlib(&zlib_of_repeated(b' ', size));
    let pages_id = b.reserve();
    let mut kids = String::new();
    for _ in 0..pages {
        let c = b.stream("/Filter [/FlateDecode /FlateDecode]", &z);
        let p = b.add(format!(
            "<</Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 612 792] /Contents {c} 0 R>>"
        ));
        write!(kids, "{p} 0 R ").unwrap();
    }
    b.set(
        pages_id,
        format!("<</Type /Pages /Kids [{kids}] /Count {pages}>>"),
    );
    let root = b.add(format!("<</Type /Catalog /Pages {pages_id} 0 R>>"));
    b.finish(root, Layout::Classic)
}

/// One page whose content is `q Q ` repeated to `size` bytes (each `q` and `Q` an operator).
pub fn operator_flood(size: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let c = b.zstream("", "q Q ".repeat(size / 4).as_bytes());
    let pages = b.reserve();
    let page = b.add(format!(
        "<</Type /Page /Parent {pages} 0 R /MediaBox [0 0 612 792] /Contents {c} 0 R>>"
    ));
    b.set(
        pages,
        format!("<</Type /Pages /Kids [{page} 0 R] /Count 1>>"),
    );
    let root = b.add(format!("<</Type /Catalog /Pages {pages} 0 R>>"));
    b.finish(root, Layout::Classic)
}

/// A catalog with `keys` extra keys.
pub fn dict_with_keys(keys: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let mut d = String::with_capacity(keys * 12);
    for i in 0..keys {
        write!(d, "/K{i} 1 ").unwrap();
    }
    let c = b.stream("", b"");
    let pages = b.reserve();
    let page = b.add(format!(
        "<</Type /Page /Parent {pages} 0 R /MediaBox [0 0 612 792] /Contents {c} 0 R>>"
    ));
    b.set(
        pages,
        format!("<</Type /Pages /Kids [{page} 0 R] /Count 1>>"),
    );
    let root = b.add(format!("<</Type /Catalog /Pages {pages} 0 R {d}>>"));
    b.finish(root, Layout::Classic)
}

/// No xref (`startxref` points nowhere, so the reader must scan), a readable one-page document,
/// then `count` streams with a wrong `/Length` that never reach an `endstream`.
pub fn endless_streams(count: usize) -> Vec<u8> {
    let mut out = b"%PDF-1.7\n".to_vec();
    out.extend_from_slice(b"1 0 obj\n<</Type /Catalog /Pages 2 0 R>>\nendobj\n");
    out.extend_from_slice(b"2 0 obj\n<</Type /Pages /Kids [3 0 R] /Count 1>>\nendobj\n");
    out.extend_from_slice(
        b"3 0 obj\n<</Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources <</Font <</F1 5 0 R>>>>>>\nendobj\n",
    );
    out.extend_from_slice(b"4 0 obj\n");
    out.extend_from_slice(&stream_body(
        "",
        b"BT /F1 10 Tf 72 700 Td ({{signature:Client}}) Tj ET",
    ));
    out.extend_from_slice(b"\nendobj\n");
    out.extend_from_slice(
        b"5 0 obj\n<</Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding>>\nendobj\n",
    );
    for i in 0..count {
        write!(
            out,
            "{} 0 obj\n<</Length 99999999>>\nstream\nBT ET BT ET BT ET BT ET\n",
            i + 6
        )
        .unwrap();
    }
    out.extend_from_slice(b"startxref\n0\n%%EOF\n");
    out
}

/// One page whose text is `(` followed by `n` braces: `{{{{...`.
pub fn brace_run(n: usize) -> Vec<u8> {
    let mut b = Builder::new();
    one_page(
        &mut b,
        &format!("BT /F1 10 Tf 72 700 Td ({}) Tj ET", "{".repeat(n)),
        "",
    )
}

/// Arrays nested `depth` deep, in the catalog.
pub fn deep_arrays(depth: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let c = b.stream("", b"");
    let pages = b.reserve();
    let page = b.add(format!(
        "<</Type /Page /Parent {pages} 0 R /MediaBox [0 0 612 792] /Contents {c} 0 R>>"
    ));
    b.set(
        pages,
        format!("<</Type /Pages /Kids [{page} 0 R] /Count 1>>"),
    );
    let root = b.add(format!(
        "<</Type /Catalog /Pages {pages} 0 R /X {}1{}>>",
        "[".repeat(depth),
        "]".repeat(depth)
    ));
    b.finish(root, Layout::Classic)
}

/// Dictionaries nested `depth` deep as an operand in page content.
pub fn deep_content(depth: usize) -> Vec<u8> {
    let mut b = Builder::new();
    one_page(
        &mut b,
        &format!("{}1{} pop", "<</A ".repeat(depth), ">>".repeat(depth)),
        "",
    )
}

/// A readable document followed by two xref sections whose `/Prev` point at each other: the
/// older one lists every object, the newer (where `startxref` points) nothing.
pub fn prev_loops() -> Vec<u8> {
    let mut b = Builder::new();
    let c = b.stream("", b"BT /F1 10 Tf 72 700 Td ({{text:A}}) Tj ET");
    let helv =
        b.add("<</Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding>>");
    let pages = b.reserve();
    let page = b.add(format!(
        "<</Type /Page /Parent {pages} 0 R /MediaBox [0 0 612 792] /Resources <</Font <</F1 {helv} 0 R>>>> /Contents {c} 0 R>>"
    ));
    b.set(
        pages,
        format!("<</Type /Pages /Kids [{page} 0 R] /Count 1>>"),
    );
    let root = b.add(format!("<</Type /Catalog /Pages {pages} 0 R>>"));
    let mut out = b.finish(root, Layout::Classic);
    let mut table = String::from("xref\n0 1\n0000000000 65535 f \n");
    for num in 1..=root {
        let header = format!("\n{num} 0 obj\n");
        let at = out
            .windows(header.len())
            .position(|w| w == header.as_bytes())
            .map_or(0, |p| p + 1);
        write!(table, "{num} 1\n{at:010} 00000 n \n").unwrap();
    }
    let section = |table: &str, prev: usize| {
        format!(
            "{table}trailer\n<</Size {} /Root {root} 0 R /Prev {prev:010}>>\n",
            root + 1
        )
    };
    // Offsets are written with ten digits, so every length is known before the values are.
    let older = out.len();
    let newer = older + section(&table, 0).len();
    out.extend_from_slice(section(&table, newer).as_bytes());
    out.extend_from_slice(section("xref\n0 1\n0000000000 65535 f \n", older).as_bytes());
    write!(out, "startxref\n{newer}\n%%EOF\n").unwrap();
    out
}

/// zlib data inflating to `n` copies of `byte`, built directly (a literal, then back-references
/// of 258 bytes at distance 1 in a fixed-Huffman block): instant to make even for 64 MB.
pub fn zlib_of_repeated(byte: u8, n: usize) -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u64,
        len: u32,
    }
    impl Bits {
        fn put(&mut self, v: u64, n: u32) {
            self.acc |= v << self.len;
            self.len += n;
            while self.len >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.len -= 8;
            }
        }
        // Huffman codes go most significant bit first.
        fn code(&mut self, c: u64, n: u32) {
            let mut r = 0;
            for i in 0..n {
                r |= ((c >> i) & 1) << (n - 1 - i);
            }
            self.put(r, n);
        }
        fn literal(&mut self, b: u8) {
            if b < 144 {
                self.code(0x30 + u64::from(b), 8);
            } else {
                self.code(0x190 + u64::from(b - 144), 9);
            }
        }
    }
    let mut w = Bits {
        out: vec![0x78, 0x01],
        acc: 0,
        len: 0,
    };
    w.put(1, 1); // final block
    w.put(1, 2); // fixed Huffman codes
    if n > 0 {
        w.literal(byte);
        let matches = (n - 1) / 258;
        for _ in 0..matches {
            w.code(0xC5, 8); // length symbol 285: 258 bytes
            w.code(0, 5); // distance symbol 0: distance 1
        }
        for _ in 0..(n - 1) % 258 {
            w.literal(byte);
        }
    }
    w.code(0, 7); // end of block
    if w.len > 0 {
        w.put(0, 8 - w.len);
    }
    // Adler-32 of n equal bytes, in closed form.
    let m = 65521u128;
    let (nn, v) = (n as u128, u128::from(byte));
    let a = (1 + v * nn) % m;
    let b = (nn + v * (nn * (nn + 1) / 2)) % m;
    let adler = ((b << 16) | a) as u32;
    w.out.extend_from_slice(&adler.to_be_bytes());
    w.out
}

/// Every class at full size, as measured in docs/ROBUSTNESS.md: (file name, bytes).
pub fn corpus() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("self-drawing-form.pdf", self_drawing_form()),
        (
            "fan-out-forms.pdf",
            fan_out_forms(8, 20, "{{text:A}} and more"),
        ),
        ("deep-forms.pdf", deep_forms(200)),
        ("huge-kids.pdf", huge_kids(1_200_000, 50_000)),
        ("deep-page-tree.pdf", deep_page_tree(500)),
        ("xref-stream-rows.pdf", xref_stream_rows(40_000_000)),
        ("cmap-full-ranges.pdf", cmap_full_ranges(2_000)),
        (
            "many-deflate-streams.pdf",
            many_deflate_streams(150, (64 << 20) - 4096),
        ),
        ("million-keys.pdf", dict_with_keys(1_000_000)),
        ("operator-flood.pdf", operator_flood(60 << 20)),
        ("endless-streams.pdf", endless_streams(200_000)),
        ("brace-run.pdf", brace_run(1_000_000)),
        ("deep-arrays.pdf", deep_arrays(1_000_000)),
        ("deep-content.pdf", deep_content(1_000_000)),
        ("prev-loops.pdf", prev_loops()),
    ]
}
