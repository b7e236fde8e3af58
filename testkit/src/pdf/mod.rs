//! A small PDF builder for tests and benches: hand-written objects, classic xref tables or xref
//! streams with object streams, prior incremental updates, damaged offsets, fonts like those of
//! LibreOffice (Type0, Identity-H, ToUnicode) and reportlab (standard 14, WinAnsi), AcroForms.
//!
//! Test support only: it must stay deterministic (no clock, no randomness without a seed).

pub mod hostile;

use std::fmt::Write as _;
use std::io::Write as _;

pub mod graph;

/// Objects numbered from 1, written in order.
#[derive(Debug, Default, Clone)]
pub struct Builder {
    objects: Vec<Option<Vec<u8>>>,
}

/// How the cross-reference data is written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Layout {
    Classic,
    /// An xref stream (PNG-up predictor, compressed); with `objstm`, non-stream objects go into
    /// one compressed object stream.
    XrefStream {
        objstm: bool,
    },
}

impl Builder {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn reserve(&mut self) -> u32 {
        self.objects.push(None);
        self.objects.len() as u32
    }
    pub fn set(&mut self, num: u32, body: impl Into<Vec<u8>>) {
        self.objects[num as usize - 1] = Some(body.into());
    }
    pub fn add(&mut self, body: impl Into<Vec<u8>>) -> u32 {
        let n = self.reserve();
        self.set(n, body);
        n
    }
    /// A stream object; `dict` is the inside of the dictionary without `/Length`.
    pub fn stream(&mut self, dict: &str, data: &[u8]) -> u32 {
        self.add(stream_body(dict, data))
    }
    /// A flate-compressed stream.
    pub fn zstream(&mut self, dict: &str, data: &[u8]) -> u32 {
        self.stream(&format!("{dict} /Filter /FlateDecode"), &zlib(data))
    }

    /// The whole file.
    pub fn finish(&self, root: u32, layout: Layout) -> Vec<u8> {
        let mut out = b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n".to_vec();
        let n = self.objects.len() as u32;
        let mut entries: Vec<(u8, u64, u64)> = vec![(0, 0, 65535)];
        let in_objstm =
            |body: &[u8]| matches!(layout, Layout::XrefStream { objstm: true }) && !is_stream(body);
        let mut packed: Vec<(u32, &[u8])> = Vec::new();
        for (i, body) in self.objects.iter().enumerate() {
            let num = i as u32 + 1;
            let body = body.as_deref().unwrap_or(b"null");
            if in_objstm(body) {
                packed.push((num, body));
                entries.push((2, 0, 0)); // fixed below
                continue;
            }
            entries.push((1, out.len() as u64, 0));
            writeln!(out, "{num} 0 obj").unwrap();
            out.extend_from_slice(body);
            out.extend_from_slice(b"\nendobj\n");
        }
        let mut next = n + 1;
        if !packed.is_empty() {
            let stm = next;
            next += 1;
            let mut header = String::new();
            let mut data = Vec::new();
            for (idx, (num, body)) in packed.iter().enumerate() {
                write!(header, "{num} {} ", data.len()).unwrap();
                data.extend_from_slice(body);
                data.push(b'\n');
                entries[*num as usize] = (2, u64::from(stm), idx as u64);
            }
            let mut all = header.into_bytes();
            let first = all.len();
            all.extend_from_slice(&data);
            let z = zlib(&all);
            entries.push((1, out.len() as u64, 0));
            writeln!(out, "{stm} 0 obj").unwrap();
            out.extend_from_slice(&stream_body(
                &format!(
                    "/Type /ObjStm /N {} /First {first} /Filter /FlateDecode",
                    packed.len()
                ),
                &z,
            ));
            out.extend_from_slice(b"\nendobj\n");
        }
        let start = out.len();
        match layout {
            Layout::Classic => {
                write!(out, "xref\n0 {}\n", n + 1).unwrap();
                for (t, a, b) in &entries {
                    if *t == 0 {
                        writeln!(out, "{a:010} {b:05} f ").unwrap();
                    } else {
                        writeln!(out, "{a:010} {b:05} n ").unwrap();
                    }
                }
                write!(out, "trailer\n<</Size {} /Root {root} 0 R /ID [<0123456789ABCDEF0123456789ABCDEF> <0123456789ABCDEF0123456789ABCDEF>]>>\n", n + 1).unwrap();
            }
            Layout::XrefStream { .. } => {
                let xref_num = next;
                entries.push((1, start as u64, 0));
                let rows: Vec<[u8; 7]> = entries
                    .iter()
                    .map(|(t, a, b)| {
                        let a = (*a as u32).to_be_bytes();
                        let b = (*b as u16).to_be_bytes();
                        [*t, a[0], a[1], a[2], a[3], b[0], b[1]]
                    })
                    .collect();
                let mut data = Vec::new();
                let mut prev = [0u8; 7];
                for r in &rows {
                    data.push(2);
                    for k in 0..7 {
                        data.push(r[k].wrapping_sub(prev[k]));
                    }
                    prev = *r;
                }
                writeln!(out, "{xref_num} 0 obj").unwrap();
                let dict = format!(
                    "/Type /XRef /Size {} /W [1 4 2] /Root {root} 0 R /Filter /FlateDecode /DecodeParms <</Predictor 12 /Columns 7>>",
                    xref_num + 1
                );
                out.extend_from_slice(&stream_body(&dict, &zlib(&data)));
                out.extend_from_slice(b"\nendobj\n");
            }
        }
        write!(out, "startxref\n{start}\n%%EOF\n").unwrap();
        out
    }
}

fn is_stream(body: &[u8]) -> bool {
    body.windows(6).any(|w| w == b"stream")
}

pub fn stream_body(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut v = format!("<<{dict} /Length {}>>\nstream\n", data.len()).into_bytes();
    v.extend_from_slice(data);
    v.extend_from_slice(b"\nendstream");
    v
}

pub fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Appends an incremental update replacing/adding `objects` (number, body), classic xref.
pub fn append_update(original: &[u8], objects: &[(u32, Vec<u8>)], root: u32) -> Vec<u8> {
    let prev = last_startxref(original);
    let mut out = original.to_vec();
    let mut offsets = Vec::new();
    for (num, body) in objects {
        offsets.push((*num, out.len()));
        writeln!(out, "{num} 0 obj").unwrap();
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let start = out.len();
    out.extend_from_slice(b"xref\n0 1\n0000000000 65535 f \n");
    for (num, off) in &offsets {
        write!(out, "{num} 1\n{off:010} 00000 n \n").unwrap();
    }
    let size = objects.iter().map(|o| o.0).max().unwrap_or(0) + 1;
    let size = size.max(size_of(original));
    write!(
        out,
        "trailer\n<</Size {size} /Root {root} 0 R /Prev {prev}>>\nstartxref\n{start}\n%%EOF\n"
    )
    .unwrap();
    out
}

pub fn last_startxref(bytes: &[u8]) -> usize {
    let at = bytes.windows(9).rposition(|w| w == b"startxref").unwrap();
    let s = std::str::from_utf8(&bytes[at + 9..]).unwrap();
    s.split_whitespace().next().unwrap().parse().unwrap()
}

fn size_of(bytes: &[u8]) -> u32 {
    let at = bytes.windows(5).rposition(|w| w == b"/Size").unwrap();
    let s = std::str::from_utf8(&bytes[at + 5..at + 20]).unwrap_or("0");
    s.split(|c: char| !c.is_ascii_digit())
        .find(|p| !p.is_empty())
        .unwrap()
        .parse()
        .unwrap()
}

/// Inserts bytes after the header so that every offset in the file is wrong.
pub fn shift_offsets(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes[..9].to_vec();
    out.extend_from_slice(b"% padding that breaks every offset\n");
    out.extend_from_slice(&bytes[9..]);
    out
}

/// PDF literal string escaping.
pub fn lit(s: &str) -> String {
    let mut o = String::from("(");
    for c in s.chars() {
        match c {
            '(' | ')' | '\\' => {
                o.push('\\');
                o.push(c);
            }
            _ => o.push(c),
        }
    }
    o.push(')');
    o
}

/// The characters the test Type0 font covers.
pub const TYPE0_CHARS: &str = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~ÄÖÜäöüéèЖДмитрий";

/// A LibreOffice-like font's code for `c`: glyph ids of a subset font, not Unicode.
pub fn type0_code(c: char) -> u16 {
    let i = TYPE0_CHARS
        .chars()
        .position(|x| x == c)
        .expect("char in the test font") as u16;
    3 + i * 2
}

/// A hex string for the test Type0 font.
pub fn type0_hex(s: &str) -> String {
    let mut o = String::from("<");
    for c in s.chars() {
        write!(o, "{:04X}", type0_code(c)).unwrap();
    }
    o.push('>');
    o
}

/// Adds a LibreOffice-like Type0/Identity-H font with a ToUnicode map and widths; returns its number.
pub fn add_type0_font(b: &mut Builder) -> u32 {
    let mut cmap = String::from(
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Adobe-Identity-UCS def\n1 begincodespacerange <0000> <FFFF> endcodespacerange\n",
    );
    let chars: Vec<char> = TYPE0_CHARS.chars().collect();
    for chunk in chars.chunks(90) {
        writeln!(cmap, "{} beginbfchar", chunk.len()).unwrap();
        for &c in chunk {
            let mut buf = [0u16; 2];
            let units = c.encode_utf16(&mut buf);
            let hex: String = units.iter().map(|u| format!("{u:04X}")).collect();
            writeln!(cmap, "<{:04X}> <{hex}>", type0_code(c)).unwrap();
        }
        cmap.push_str("endbfchar\n");
    }
    cmap.push_str("endcmap CMapName currentdict /CMap defineresource pop end end\n");
    let tu = b.zstream("", cmap.as_bytes());
    let mut w = String::from("[");
    for c in TYPE0_CHARS.chars() {
        write!(
            w,
            "{} [{}] ",
            type0_code(c),
            if c == ' ' { 250 } else { 560 }
        )
        .unwrap();
    }
    w.push(']');
    let desc = b.add("<</Type /FontDescriptor /FontName /BAAAAA+LiberationSerif /Flags 6 /FontBBox [-543 -303 1278 981] /ItalicAngle 0 /Ascent 891 /Descent -216 /CapHeight 981 /StemV 80>>");
    let cid = b.add(format!(
        "<</Type /Font /Subtype /CIDFontType2 /BaseFont /BAAAAA+LiberationSerif /CIDSystemInfo <</Registry (Adobe) /Ordering (Identity) /Supplement 0>> /FontDescriptor {desc} 0 R /DW 1000 /W {w}>>"
    ));
    b.add(format!("<</Type /Font /Subtype /Type0 /BaseFont /BAAAAA+LiberationSerif /Encoding /Identity-H /DescendantFonts [{cid} 0 R] /ToUnicode {tu} 0 R>>"))
}

/// One page of a test document.
#[derive(Debug, Clone)]
pub struct PageSpec {
    pub media: [f64; 4],
    pub rotate: i32,
    pub content: Vec<u8>,
    /// Extra entries for the page dictionary (e.g. `/Annots [..]`).
    pub extra: String,
}

impl PageSpec {
    pub fn letter(content: impl Into<Vec<u8>>) -> Self {
        PageSpec {
            media: [0.0, 0.0, 612.0, 792.0],
            rotate: 0,
            content: content.into(),
            extra: String::new(),
        }
    }
}

/// A document with /F1 Helvetica (WinAnsi, no widths: reportlab-like) and /F2 the Type0 font on
/// every page, plus extra objects the caller added to `b` before calling.
pub fn document(
    b: &mut Builder,
    pages: &[PageSpec],
    catalog_extra: &str,
    layout: Layout,
) -> Vec<u8> {
    let helv =
        b.add("<</Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding>>");
    let t0 = add_type0_font(b);
    let pages_id = b.reserve();
    let mut kids = Vec::new();
    for p in pages {
        let c = b.zstream("", &p.content);
        let m = p.media;
        kids.push(b.add(format!(
            "<</Type /Page /Parent {pages_id} 0 R /MediaBox [{} {} {} {}] /Rotate {} /Resources <</Font <</F1 {helv} 0 R /F2 {t0} 0 R>>>> /Contents {c} 0 R {}>>",
            m[0], m[1], m[2], m[3], p.rotate, p.extra
        )));
    }
    let kids_s: String = kids.iter().map(|k| format!("{k} 0 R ")).collect();
    b.set(
        pages_id,
        format!("<</Type /Pages /Kids [{kids_s}] /Count {}>>", kids.len()),
    );
    let root = b.add(format!(
        "<</Type /Catalog /Pages {pages_id} 0 R {catalog_extra}>>"
    ));
    b.finish(root, layout)
}

/// `BT /F1 size Tf x y Td (text) Tj ET`
pub fn helv_text(size: f64, x: f64, y: f64, text: &str) -> String {
    format!("BT /F1 {size} Tf {x} {y} Td {} Tj ET\n", lit(text))
}

/// The same with the Type0 font.
pub fn type0_text(size: f64, x: f64, y: f64, text: &str) -> String {
    format!("BT /F2 {size} Tf {x} {y} Td {} Tj ET\n", type0_hex(text))
}

/// A one-page contract with the usual tags, as LibreOffice writes it (Type0 font, one TJ per
/// line with kerning).
pub fn libreoffice_contract(layout: Layout) -> Vec<u8> {
    let mut c = String::new();
    c.push_str(&type0_text(
        12.0,
        72.0,
        720.0,
        "Service agreement between the parties.",
    ));
    c.push_str("BT /F2 11 Tf 72 600 Td [");
    for (i, part) in ["Client: {{sig", "nature:Cli", "ent}}"].iter().enumerate() {
        write!(c, "{} {} ", type0_hex(part), if i == 0 { -12 } else { 8 }).unwrap();
    }
    c.push_str("] TJ ET\n");
    c.push_str(&type0_text(11.0, 72.0, 560.0, "Date: {{date:Client}}"));
    c.push_str(&type0_text(11.0, 320.0, 600.0, "{{signature:Provider}}"));
    c.push_str(&type0_text(11.0, 72.0, 520.0, "Company: {{data:company}}"));
    c.push_str(&type0_text(
        11.0,
        72.0,
        480.0,
        "{{initials:Client}} {{checkbox:Client:agree}}",
    ));
    let mut b = Builder::new();
    document(&mut b, &[PageSpec::letter(c)], "", layout)
}

/// A page with a text field `Client.name`, a check box `Client.agree`, a signature field `Client`
/// (no period), a sender field `company`, and a field tree `Provider` -> `title`.
pub fn form_pdf(rotate: i32) -> Vec<u8> {
    let mut b = Builder::new();
    let yes = b.stream(
        "/Type /XObject /Subtype /Form /BBox [0 0 12 12]",
        b"0 0 12 12 re f",
    );
    let off = b.stream("/Type /XObject /Subtype /Form /BBox [0 0 12 12]", b"");
    let name = b.add("<</FT /Tx /T (Client.name) /Ff 2 /Type /Annot /Subtype /Widget /Rect [72 700 272 720] /F 4>>");
    let agree = b.add(format!("<</FT /Btn /T (Client.agree) /Type /Annot /Subtype /Widget /Rect [72 660 84 672] /AP <</N <</On {yes} 0 R /Off {off} 0 R>>>> /AS /Off /V /Off>>"));
    let sig =
        b.add("<</FT /Sig /T (Client) /Type /Annot /Subtype /Widget /Rect [300 600 500 650]>>");
    let company =
        b.add("<</FT /Tx /T (company) /Type /Annot /Subtype /Widget /Rect [72 560 272 580]>>");
    let parent = b.reserve();
    let kid = b.add(format!(
        "<</T (title) /Parent {parent} 0 R /Type /Annot /Subtype /Widget /Rect [300 560 500 580]>>"
    ));
    b.set(
        parent,
        format!("<</FT /Tx /T (Provider) /Kids [{kid} 0 R]>>"),
    );
    let annots = format!("/Annots [{name} 0 R {agree} 0 R {sig} 0 R {company} 0 R {kid} 0 R]");
    let mut p = PageSpec::letter(helv_text(12.0, 72.0, 740.0, "A form."));
    p.extra = annots;
    p.rotate = rotate;
    let form = format!(
        "/AcroForm <</Fields [{name} 0 R {agree} 0 R {sig} 0 R {company} 0 R {parent} 0 R] /DA (/Helv 0 Tf 0 g)>>"
    );
    document(&mut b, &[p], &form, Layout::Classic)
}

/// A deterministic pseudo-random byte source (xorshift).
pub fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut s = seed | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect()
}

/// A large document: `pages` pages, each with a tag line and an uncompressed image of about
/// `image_bytes` bytes (so the file is big but its content streams are small).
pub fn big_document(pages: usize, image_bytes: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let side = (image_bytes as f64).sqrt() as usize;
    let mut specs = Vec::new();
    let mut images = Vec::new();
    for i in 0..pages {
        images.push(b.stream(&format!("/Type /XObject /Subtype /Image /Width {side} /Height {side} /ColorSpace /DeviceGray /BitsPerComponent 8"), &noise(i as u64 + 1, side * side)));
    }
    for (i, img) in images.iter().enumerate() {
        let mut c = helv_text(
            12.0,
            72.0,
            720.0,
            &format!("Page {} of the big document.", i + 1),
        );
        c.push_str(&helv_text(
            11.0,
            72.0,
            100.0,
            "Signed: {{signature:Client}}",
        ));
        c.push_str("q 200 0 0 200 72 300 cm /Im0 Do Q\n");
        let _ = img;
        specs.push(PageSpec::letter(c));
    }
    // Put each image into its page's resources (document() writes /Font only), by rewriting.
    let helv =
        b.add("<</Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding>>");
    let pages_id = b.reserve();
    let mut kids = Vec::new();
    for (p, img) in specs.iter().zip(&images) {
        let c = b.zstream("", &p.content);
        kids.push(b.add(format!(
            "<</Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 612 792] /Resources <</Font <</F1 {helv} 0 R>> /XObject <</Im0 {img} 0 R>>>> /Contents {c} 0 R>>"
        )));
    }
    let kids_s: String = kids.iter().map(|k| format!("{k} 0 R ")).collect();
    b.set(
        pages_id,
        format!("<</Type /Pages /Kids [{kids_s}] /Count {}>>", kids.len()),
    );
    let root = b.add(format!("<</Type /Catalog /Pages {pages_id} 0 R>>"));
    b.finish(root, Layout::Classic)
}

/// Runs `qpdf --check` on `bytes`; fails the test with a clear message when qpdf is missing.
pub fn qpdf_check(bytes: &[u8]) -> String {
    let (out, ok) = run_tool("qpdf", &["--check"], bytes, None);
    assert!(ok, "qpdf --check failed:\n{out}");
    out
}

/// Runs `pdftotext -layout` and returns the text.
pub fn pdftotext(bytes: &[u8]) -> String {
    let (out, ok) = run_tool("pdftotext", &["-enc", "UTF-8"], bytes, Some("-"));
    assert!(ok, "pdftotext failed: {out}");
    out
}

/// Runs `tool args... FILE [tail]` on a temporary copy of `bytes`; returns (stdout+stderr, success).
pub fn run_tool(tool: &str, args: &[&str], bytes: &[u8], tail: Option<&str>) -> (String, bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.pdf");
    std::fs::write(&path, bytes).unwrap();
    let mut cmd = std::process::Command::new(tool);
    cmd.args(args).arg(&path);
    if let Some(t) = tail {
        cmd.arg(t);
    }
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) => panic!(
            "could not run `{tool}` ({e}): install qpdf and poppler-utils (run the install step of .ci/run)"
        ),
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (text, out.status.success())
}

/// Runs a tool that writes an output file (`qpdf in out` style) and returns the output bytes.
pub fn transform(tool: &str, args: &[&str], bytes: &[u8]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pdf");
    let output = dir.path().join("out.pdf");
    std::fs::write(&input, bytes).unwrap();
    let status = std::process::Command::new(tool)
        .args(args)
        .arg(&input)
        .arg(&output)
        .status()
        .unwrap_or_else(|e| {
            panic!("could not run `{tool}` ({e}): install qpdf (run the install step of .ci/run)")
        });
    assert!(
        status.success() || status.code() == Some(3),
        "{tool} {args:?} failed"
    );
    std::fs::read(&output).unwrap()
}

/// Word boxes from `pdftotext -bbox`: (word, xMin, yMin, xMax, yMax), displayed coordinates.
pub fn words(signed: &[u8]) -> Vec<(String, f64, f64, f64, f64)> {
    let (html, ok) = run_tool("pdftotext", &["-bbox"], signed, Some("-"));
    assert!(ok);
    html.lines()
        .filter(|l| l.trim_start().starts_with("<word"))
        .filter_map(|l| {
            let attr = |k: &str| -> Option<f64> {
                let at = l.find(&format!("{k}=\""))? + k.len() + 2;
                l[at..].split('"').next()?.parse().ok()
            };
            let word = l.split('>').nth(1)?.split('<').next()?.to_string();
            Some((
                word,
                attr("xMin")?,
                attr("yMin")?,
                attr("xMax")?,
                attr("yMax")?,
            ))
        })
        .collect()
}

/// A one-page PDF (Helvetica, classic xref) with one line of text per entry, 30 points apart.
pub fn simple_pdf(lines: &[&str]) -> Vec<u8> {
    let content: String = lines
        .iter()
        .enumerate()
        .map(|(i, l)| helv_text(12.0, 72.0, 700.0 - 30.0 * i as f64, l))
        .collect();
    document(
        &mut Builder::new(),
        &[PageSpec::letter(content)],
        "",
        Layout::Classic,
    )
}

/// Appends one PNG chunk (length, type, data, CRC-32) to `out`: for hand-made, hostile PNGs.
pub fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc = !0u32;
    for &b in &out[start..] {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    out.extend_from_slice(&(!crc).to_be_bytes());
}
