//! The incremental update: new and changed objects appended after the original bytes, then an xref
//! section of the same kind as the original's newest one (table or stream) whose `/Prev` points at
//! it, and a new trailer.
//!
//! The original bytes are copied unchanged as the prefix: this module must never rewrite or drop a
//! byte of them. When the original's xref was damaged (recovered by scanning), the new section
//! lists every object instead of chaining to the broken one.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::object::{Dict, ObjRef, Object, Stream};
use super::reader::Document;
use super::xref::Entry;

/// The objects one update writes.
#[derive(Debug)]
pub struct Update {
    next: u32,
    objects: BTreeMap<u32, (u16, Body)>,
}

/// What an object of the update is written from.
#[derive(Debug)]
enum Body {
    Object(Object),
    /// Bytes written as they are: the signature dictionary, whose placeholders are patched in
    /// place after writing, so their positions inside the body must be known exactly.
    Raw(Vec<u8>),
}

/// The written update and where each of its objects' bodies starts in the output.
#[derive(Debug)]
pub struct Written {
    pub bytes: Vec<u8>,
    /// Object number -> offset of the first byte after `n g obj\n`.
    pub bodies: BTreeMap<u32, usize>,
}

impl Update {
    pub fn new(doc: &Document<'_>) -> Self {
        Update {
            next: doc.next_object_number(),
            objects: BTreeMap::new(),
        }
    }

    /// Adds a new object; returns its reference.
    pub fn add(&mut self, o: Object) -> ObjRef {
        let r = ObjRef::new(self.next, 0);
        self.next += 1;
        self.objects.insert(r.num, (0, Body::Object(o)));
        r
    }

    /// Adds a new object whose serialised body is `body`, written byte for byte.
    pub fn add_raw(&mut self, body: Vec<u8>) -> ObjRef {
        let r = ObjRef::new(self.next, 0);
        self.next += 1;
        self.objects.insert(r.num, (0, Body::Raw(body)));
        r
    }

    /// Replaces the object `r` (a new version with the same number and generation).
    pub fn replace(&mut self, r: ObjRef, o: Object) {
        self.objects.insert(r.num, (r.generation, Body::Object(o)));
    }

    /// The replacement already queued for `r`, if any.
    pub fn pending(&self, r: ObjRef) -> Option<&Object> {
        self.objects
            .get(&r.num)
            .filter(|(g, _)| *g == r.generation)
            .and_then(|(_, b)| match b {
                Body::Object(o) => Some(o),
                Body::Raw(_) => None,
            })
    }

    /// The current version of `r`: the queued replacement, else the document's, as a dictionary
    /// (empty when it is not one).
    pub fn current(&self, doc: &mut Document<'_>, r: ObjRef) -> Result<Dict, super::PdfError> {
        if let Some(o) = self.pending(r) {
            return Ok(o.as_dict().cloned().unwrap_or_default());
        }
        Ok(doc.get(r)?.as_dict().cloned().unwrap_or_default())
    }

    /// `original` followed by the update.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))] // tests, benches and examples
    pub fn write(self, doc: &Document<'_>) -> Vec<u8> {
        let original = doc.bytes;
        let update = self.write_update_located(doc).bytes;
        let mut bytes = Vec::with_capacity(original.len() + update.len());
        bytes.extend_from_slice(original);
        bytes.extend_from_slice(&update);
        bytes
    }

    /// The update alone: the bytes that follow `original` (offsets inside it count from the
    /// start of `original`). For callers that keep the original where it is, such as a file
    /// written as `original` then the update, or a signed copy stored as a delta.
    pub fn write_update(self, doc: &Document<'_>) -> Vec<u8> {
        self.write_update_located(doc).bytes
    }

    /// The update alone, with the offsets of the new objects' bodies in the whole file (they
    /// count from the start of `original`, as the update's own xref does).
    pub fn write_update_located(self, doc: &Document<'_>) -> Written {
        let original = doc.bytes;
        let base = original.len();
        let extra: usize = self.objects.values().map(|(_, o)| approx_size(o)).sum();
        let mut out = Vec::with_capacity(extra + 4096);
        if !matches!(original.last(), Some(b'\n' | b'\r')) {
            out.push(b'\n');
        }
        let mut offsets: BTreeMap<u32, (usize, u16)> = BTreeMap::new();
        let mut bodies = BTreeMap::new();
        for (num, (generation, o)) in &self.objects {
            offsets.insert(*num, (base + out.len(), *generation));
            let _ = writeln!(Wrap(&mut out), "{num} {generation} obj");
            bodies.insert(*num, base + out.len());
            match o {
                Body::Object(o) => o.write(&mut out),
                Body::Raw(b) => out.extend_from_slice(b),
            }
            out.extend_from_slice(b"\nendobj\n");
        }
        let mut trailer = Dict::new();
        for key in [&b"Root"[..], b"Info", b"ID"] {
            if let Some(v) = doc.xref.trailer.get(key) {
                trailer.set(key, v.clone());
            }
        }
        // Rows: (number, type, field2, field3).
        let mut rows: BTreeMap<u32, (u8, u64, u64)> = BTreeMap::new();
        if doc.recovered {
            rows.insert(0, (0, 0, 65535));
            for (num, e) in doc.in_use() {
                match e {
                    Entry::InFile { offset, generation } => {
                        rows.insert(num, (1, offset as u64, u64::from(generation)))
                    }
                    Entry::InStream { stream, index } => {
                        rows.insert(num, (2, u64::from(stream), u64::from(index)))
                    }
                    Entry::Free => None,
                };
            }
        } else {
            trailer.set(b"Prev", Object::Int(doc.xref.startxref as i64));
        }
        for (num, (off, g)) in &offsets {
            rows.insert(*num, (1, *off as u64, u64::from(*g)));
        }
        let needs_stream = doc.xref.is_stream || rows.values().any(|r| r.0 == 2);
        let start = base + out.len();
        if needs_stream {
            let num = self.next;
            rows.insert(num, (1, start as u64, 0));
            trailer.set(b"Size", Object::Int(i64::from(num) + 1));
            let mut index = Vec::new();
            let mut data = Vec::with_capacity(rows.len() * 7);
            for (first, count) in runs(&rows) {
                index.push(Object::Int(i64::from(first)));
                index.push(Object::Int(count as i64));
            }
            for (t, a, b) in rows.values() {
                data.push(*t);
                data.extend_from_slice(&(*a as u32).to_be_bytes());
                data.extend_from_slice(&(b.min(&65535).to_owned() as u16).to_be_bytes());
            }
            trailer.set(b"Type", Object::name(b"XRef"));
            trailer.set(
                b"W",
                Object::Array(vec![Object::Int(1), Object::Int(4), Object::Int(2)]),
            );
            trailer.set(b"Index", Object::Array(index));
            let _ = writeln!(Wrap(&mut out), "{num} 0 obj");
            Object::Stream(Stream {
                dict: trailer,
                data,
            })
            .write(&mut out);
            out.extend_from_slice(b"\nendobj\n");
        } else {
            trailer.set(b"Size", Object::Int(i64::from(self.next)));
            out.extend_from_slice(b"xref\n");
            for (first, count) in runs(&rows) {
                let _ = writeln!(Wrap(&mut out), "{first} {count}");
                for n in first..first + count as u32 {
                    let (t, a, b) = rows[&n];
                    let _ = writeln!(
                        Wrap(&mut out),
                        "{a:010} {b:05} {} ",
                        if t == 0 { 'f' } else { 'n' }
                    );
                }
            }
            out.extend_from_slice(b"trailer\n");
            Object::Dict(trailer).write(&mut out);
            out.push(b'\n');
        }
        let _ = write!(Wrap(&mut out), "startxref\n{start}\n%%EOF\n");
        Written { bytes: out, bodies }
    }
}

/// Contiguous runs of object numbers: (first, count).
fn runs(rows: &BTreeMap<u32, (u8, u64, u64)>) -> Vec<(u32, usize)> {
    let mut out: Vec<(u32, usize)> = Vec::new();
    for &n in rows.keys() {
        match out.last_mut() {
            Some((first, count)) if *first + *count as u32 == n => *count += 1,
            _ => out.push((n, 1)),
        }
    }
    out
}

fn approx_size(o: &Body) -> usize {
    match o {
        Body::Object(Object::Stream(s)) => s.data.len() + 128,
        Body::Object(_) => 256,
        Body::Raw(b) => b.len() + 32,
    }
}

/// `write!` into a byte vector.
struct Wrap<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Wrap<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}
