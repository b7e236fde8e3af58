//! Writes a [`Graph`] as PDF bytes: object numbers by pool, streams with the chosen `/Length` and
//! filter, then the file plan (layout, updates, damage).

use std::fmt::Write as _;

use super::super::{Builder, append_update, last_startxref, lit, zlib};
use super::{
    CMap, CMapLine, Enc, FieldNode, Font, FontKind, Graph, Length, Link, Num, Op, PageNode, Pool,
    Resources, Val, file,
};

impl Graph {
    /// The whole file.
    pub fn to_pdf(&self) -> Vec<u8> {
        let mut w = Writer {
            g: self,
            b: Builder::new(),
        };
        for _ in 0..self.pooled() {
            w.b.reserve();
        }
        w.write_all();
        let layout = self.file.layout;
        let mut bytes = w.b.finish(1, layout);
        for update in &self.file.updates {
            let objects: Vec<(u32, Vec<u8>)> = update
                .iter()
                .map(|(l, v)| (self.resolve(Pool::Junk, l), w.val_bytes(v)))
                .collect();
            bytes = append_update(&bytes, &objects, 1);
        }
        let start = last_startxref(&bytes);
        file::damage(bytes, start, &self.file.damage)
    }
}

/// Writes a graph's objects into a [`Builder`].
struct Writer<'g> {
    g: &'g Graph,
    b: Builder,
}

impl Writer<'_> {
    fn write_all(&mut self) {
        let g = self.g;
        let mut cat = format!("<</Type /Catalog /Pages {} 0 R", g.base(Pool::Node));
        if let Some(roots) = &g.form_roots {
            cat.push_str(" /AcroForm <</DA (/Helv 0 Tf 0 g) /Fields [");
            for l in roots {
                write!(cat, "{} 0 R ", g.resolve(Pool::Field, l)).unwrap();
            }
            cat.push_str("]>>");
        }
        if !g.junk.is_empty() {
            write!(cat, " /Junk [").unwrap();
            for i in 0..g.junk.len() {
                write!(cat, "{} 0 R ", g.base(Pool::Junk) + i as u32).unwrap();
            }
            cat.push(']');
        }
        cat.push_str(">>");
        self.b.set(1, cat);
        for (i, n) in g.nodes.iter().enumerate() {
            let body = self.page_node(n);
            self.b.set(g.base(Pool::Node) + i as u32, body);
        }
        for (i, c) in g.contents.iter().enumerate() {
            let num = g.base(Pool::Content) + i as u32;
            let body = self.stream(num, "", &ops_bytes(&c.ops), &c.enc);
            self.b.set(num, body);
        }
        for (i, f) in g.forms.iter().enumerate() {
            let num = g.base(Pool::Form) + i as u32;
            let mut dict = String::from("/Type /XObject /BBox [0 0 100 100]");
            dict.push_str(if f.is_form {
                " /Subtype /Form"
            } else {
                " /Subtype /Image"
            });
            if let Some(m) = &f.matrix {
                write!(dict, " /Matrix {}", nums_str(m)).unwrap();
            }
            if let Some(r) = &f.resources {
                write!(dict, " /Resources {}", self.resources(r)).unwrap();
            }
            let body = self.stream(num, &dict, &ops_bytes(&f.ops), &f.enc);
            self.b.set(num, body);
        }
        for (i, f) in g.fonts.iter().enumerate() {
            let body = self.font(f);
            self.b.set(g.base(Pool::Font) + i as u32, body);
        }
        for (i, c) in g.cmaps.iter().enumerate() {
            let num = g.base(Pool::CMap) + i as u32;
            let body = self.stream(num, "", &cmap_bytes(c), &c.enc);
            self.b.set(num, body);
        }
        for (i, f) in g.fields.iter().enumerate() {
            let body = self.field(f);
            self.b.set(g.base(Pool::Field) + i as u32, body);
        }
        for (i, v) in g.junk.iter().enumerate() {
            let body = self.val_bytes(v);
            self.b.set(g.base(Pool::Junk) + i as u32, body);
        }
    }

    fn refs(&self, pool: Pool, ls: &[Link]) -> String {
        let mut s = String::from("[");
        for l in ls {
            write!(s, "{} 0 R ", self.g.resolve(pool, l)).unwrap();
        }
        s.push(']');
        s
    }

    fn page_node(&mut self, n: &PageNode) -> String {
        let g = self.g;
        let mut d = String::from("<<");
        if n.typed {
            d.push_str(if n.leaf {
                "/Type /Page"
            } else {
                "/Type /Pages"
            });
        }
        if !n.leaf || !n.kids.is_empty() && !n.typed {
            let one = self.refs(Pool::Node, &n.kids);
            let inner = &one[1..one.len() - 1];
            write!(
                d,
                " /Kids [{}] /Count {}",
                inner.repeat(n.fan_out as usize),
                num_str(&n.count)
            )
            .unwrap();
        }
        if let Some(p) = &n.parent {
            write!(d, " /Parent {} 0 R", g.resolve(Pool::Node, p)).unwrap();
        }
        let inh = &n.inherit;
        if let Some(r) = &inh.resources {
            write!(d, " /Resources {}", self.resources(r)).unwrap();
        }
        if let Some(m) = &inh.media {
            write!(d, " /MediaBox {}", nums_str(m)).unwrap();
        }
        if let Some(m) = &inh.crop {
            write!(d, " /CropBox {}", nums_str(m)).unwrap();
        }
        if let Some(r) = &inh.rotate {
            write!(d, " /Rotate {}", num_str(r)).unwrap();
        }
        if n.leaf {
            match n.contents.as_slice() {
                [] => {}
                [one] => write!(d, " /Contents {} 0 R", g.resolve(Pool::Content, one)).unwrap(),
                many => write!(d, " /Contents {}", self.refs(Pool::Content, many)).unwrap(),
            }
            if !n.annots.is_empty() {
                write!(d, " /Annots {}", self.refs(Pool::Field, &n.annots)).unwrap();
            }
        }
        d.push_str(">>");
        d
    }

    fn resources(&mut self, r: &Resources) -> String {
        let g = self.g;
        let mut s = String::from("<</Font <<");
        for (i, l) in r.fonts.iter().enumerate() {
            write!(s, "/F{i} {} 0 R ", g.resolve(Pool::Font, l)).unwrap();
        }
        s.push_str(">> /XObject <<");
        for (i, l) in r.xobjects.iter().enumerate() {
            write!(s, "/X{i} {} 0 R ", g.resolve(Pool::Form, l)).unwrap();
        }
        s.push_str(">>");
        for i in 0..r.padding {
            write!(s, " /Pad{i} [{i} 0 0 1]").unwrap();
        }
        s.push_str(">>");
        if r.indirect {
            let n = self.b.add(s);
            format!("{n} 0 R")
        } else {
            s
        }
    }

    fn font(&mut self, f: &Font) -> String {
        let tu = f
            .to_unicode
            .as_ref()
            .map(|l| format!(" /ToUnicode {} 0 R", self.g.resolve(Pool::CMap, l)))
            .unwrap_or_default();
        match &f.kind {
            FontKind::Helvetica => format!(
                "<</Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding{tu}>>"
            ),
            FontKind::Simple(diffs) => {
                let mut d = String::from("[");
                for (code, name) in diffs {
                    write!(d, "{code} /{name} ").unwrap();
                }
                d.push(']');
                format!(
                    "<</Type /Font /Subtype /TrueType /BaseFont /Fuzz /FirstChar 32 /LastChar 40 /Widths [500 600 -1 99999] /Encoding <</Differences {d}>>{tu}>>"
                )
            }
            FontKind::Type0 { widths } => {
                let mut w = String::from("[");
                for (lo, hi, v) in widths {
                    write!(w, "{lo} {hi} {} {lo} [{}] ", num_str(v), num_str(v)).unwrap();
                }
                w.push(']');
                let cid = self.b.add(format!(
                    "<</Type /Font /Subtype /CIDFontType2 /BaseFont /Fuzz /DW 1000 /W {w}>>"
                ));
                format!(
                    "<</Type /Font /Subtype /Type0 /BaseFont /Fuzz /Encoding /Identity-H /DescendantFonts [{cid} 0 R]{tu}>>"
                )
            }
        }
    }

    fn field(&mut self, f: &FieldNode) -> String {
        let g = self.g;
        let mut d = String::from("<<");
        if let Some(n) = &f.name {
            write!(d, "/T {}", lit(n)).unwrap();
        }
        if let Some(ft) = f.ft {
            write!(d, " /FT /{ft}").unwrap();
        }
        if !f.kids.is_empty() {
            write!(d, " /Kids {}", self.refs(Pool::Field, &f.kids)).unwrap();
        }
        if let Some(p) = &f.parent {
            write!(d, " /Parent {} 0 R", g.resolve(Pool::Field, p)).unwrap();
        }
        if let Some(r) = &f.rect {
            write!(d, " /Type /Annot /Subtype /Widget /Rect {}", nums_str(r)).unwrap();
        }
        if let Some(p) = &f.page {
            write!(d, " /P {} 0 R", g.resolve(Pool::Node, p)).unwrap();
        }
        if let Some(ff) = f.flags {
            write!(d, " /Ff {ff}").unwrap();
        }
        d.push_str(">>");
        d
    }

    /// A stream object `num` with `dict` (without `/Length` and `/Filter`) and `data`.
    fn stream(&mut self, num: u32, dict: &str, data: &[u8], enc: &Enc) -> Vec<u8> {
        let data = if enc.flate { zlib(data) } else { data.to_vec() };
        let mut d = format!("<<{dict}");
        if enc.flate {
            d.push_str(" /Filter /FlateDecode");
        }
        let n = data.len() as i64;
        match enc.length {
            Length::Exact => write!(d, " /Length {n}").unwrap(),
            Length::Off(k) => write!(d, " /Length {}", n + i64::from(k)).unwrap(),
            Length::Missing => {}
            Length::Indirect => {
                let l = self.b.add(n.to_string());
                write!(d, " /Length {l} 0 R").unwrap();
            }
            Length::SelfRef => write!(d, " /Length {num} 0 R").unwrap(),
            Length::Huge => d.push_str(" /Length 999999999999999"),
        }
        d.push_str(">>\nstream\n");
        let mut out = d.into_bytes();
        out.extend_from_slice(&data);
        out.extend_from_slice(b"\nendstream");
        out
    }

    fn val_bytes(&self, v: &Val) -> Vec<u8> {
        let mut s = Vec::new();
        self.val(v, &mut s);
        s
    }

    fn val(&self, v: &Val, out: &mut Vec<u8>) {
        match v {
            Val::Null => out.extend_from_slice(b"null"),
            Val::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            Val::Num(n) => out.extend_from_slice(num_str(n).as_bytes()),
            Val::Name(n) => {
                out.push(b'/');
                out.extend_from_slice(n.as_bytes());
            }
            Val::Str(s) => out.extend_from_slice(&lit_bytes(s)),
            Val::Ref(l) => {
                let n = self.g.resolve(Pool::Junk, l);
                out.extend_from_slice(format!("{n} 0 R").as_bytes());
            }
            Val::Array(items) => {
                out.push(b'[');
                for i in items {
                    self.val(i, out);
                    out.push(b' ');
                }
                out.push(b']');
            }
            Val::Dict(entries) => {
                out.extend_from_slice(b"<<");
                for (k, v) in entries {
                    out.push(b'/');
                    out.extend_from_slice(k.as_bytes());
                    out.push(b' ');
                    self.val(v, out);
                    out.push(b' ');
                }
                out.extend_from_slice(b">>");
            }
            Val::Deep(n) => {
                out.extend(std::iter::repeat_n(b'[', *n as usize));
                out.extend(std::iter::repeat_n(b']', *n as usize));
            }
            Val::Wide(n) => {
                out.extend_from_slice(b"<<");
                for i in 0..*n {
                    out.extend_from_slice(format!("/K{i} {i} ").as_bytes());
                }
                out.extend_from_slice(b">>");
            }
        }
    }
}

pub fn num_str(n: &Num) -> String {
    match n {
        Num::Int(i) => i.to_string(),
        Num::Real(r) => format!("{r:.3}"),
        Num::Raw(s) => (*s).to_string(),
    }
}

fn nums_str(ns: &[Num]) -> String {
    let parts: Vec<String> = ns.iter().map(num_str).collect();
    format!("[{}]", parts.join(" "))
}

/// A literal string with every delimiter escaped.
fn lit_bytes(s: &[u8]) -> Vec<u8> {
    let mut o = vec![b'('];
    for &c in s {
        if matches!(c, b'(' | b')' | b'\\') {
            o.push(b'\\');
        }
        o.push(c);
    }
    o.push(b')');
    o
}

fn ops_bytes(ops: &[Op]) -> Vec<u8> {
    let mut o = Vec::new();
    for op in ops {
        match op {
            Op::Text {
                font,
                size,
                at,
                text,
                split,
            } => {
                let head = format!(
                    "BT /F{font} {} Tf {} {} Td ",
                    num_str(size),
                    num_str(&at.0),
                    num_str(&at.1)
                );
                o.extend_from_slice(head.as_bytes());
                if *split == 0 {
                    o.extend_from_slice(&lit_bytes(text));
                    o.extend_from_slice(b" Tj ET\n");
                } else {
                    o.push(b'[');
                    let step = (text.len() / usize::from(*split)).max(1);
                    for (i, part) in text.chunks(step).enumerate() {
                        o.extend_from_slice(&lit_bytes(part));
                        o.extend_from_slice(format!(" {} ", (i as i64 % 3 - 1) * 40).as_bytes());
                    }
                    o.extend_from_slice(b"] TJ ET\n");
                }
            }
            Op::Save(n) => o.extend_from_slice("q ".repeat(*n as usize).as_bytes()),
            Op::Restore(n) => o.extend_from_slice("Q ".repeat(*n as usize).as_bytes()),
            Op::Cm(m) => {
                let parts: Vec<String> = m.iter().map(num_str).collect();
                o.extend_from_slice(format!("{} cm\n", parts.join(" ")).as_bytes());
            }
            Op::Do(x, n) => {
                o.extend_from_slice(format!("/X{x} Do ").repeat(*n as usize).as_bytes())
            }
            Op::Braces(n) => {
                o.extend_from_slice(b"BT /F0 10 Tf (");
                o.extend(std::iter::repeat_n(b'{', *n as usize));
                o.extend_from_slice(b") Tj ET\n");
            }
            Op::InlineImage(data) => {
                o.extend_from_slice(b"BI /W 2 /H 2 /CS /G /BPC 8 ID ");
                o.extend_from_slice(data);
                o.extend_from_slice(b" EI\n");
            }
            Op::Nest(n) => {
                o.extend(std::iter::repeat_n(b'[', *n as usize));
                o.extend(std::iter::repeat_n(b']', *n as usize));
                o.extend_from_slice(b" TJ\n");
            }
            Op::Operands(n) => {
                o.extend_from_slice("1 ".repeat(*n as usize).as_bytes());
                o.extend_from_slice(b"Td\n");
            }
            Op::Raw(bytes) => {
                o.extend_from_slice(bytes);
                o.push(b'\n');
            }
        }
    }
    o
}

fn cmap_bytes(c: &CMap) -> Vec<u8> {
    let mut s = String::from(
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n1 begincodespacerange <0000> <FFFF> endcodespacerange\n",
    );
    let mut body = String::new();
    for line in &c.lines {
        match line {
            CMapLine::Char(src, dst) => {
                writeln!(body, "1 beginbfchar <{src:04X}> <{dst:04X}> endbfchar").unwrap()
            }
            CMapLine::Range(lo, hi, dst) => {
                let width = if *hi > 0xFFFF { 8 } else { 4 };
                writeln!(
                    body,
                    "1 beginbfrange <{lo:0width$X}> <{hi:0width$X}> <{dst:04X}> endbfrange"
                )
                .unwrap()
            }
            CMapLine::RangeArray(lo, hi, dsts) => {
                write!(body, "1 beginbfrange <{lo:04X}> <{hi:04X}> [").unwrap();
                for d in dsts {
                    write!(body, "<{d:04X}> ").unwrap();
                }
                body.push_str("] endbfrange\n");
            }
        }
    }
    s.push_str(&body.repeat(c.repeat as usize));
    s.push_str("endcmap CMapName currentdict /CMap defineresource pop end end\n");
    s.into_bytes()
}
