//! The PDF object model the engine reads and writes, and its serialisation.
//!
//! Deliberately tiny: dictionaries keep their key order (so rewritten objects look like the
//! originals), streams keep their *encoded* bytes. This module must never touch the file: it only
//! holds values and turns them into bytes.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt::Write as _;
use std::hash::{BuildHasherDefault, Hasher};

/// An indirect reference `num gen R`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjRef {
    pub num: u32,
    pub generation: u16,
}

impl ObjRef {
    pub fn new(num: u32, generation: u16) -> Self {
        ObjRef { num, generation }
    }
}

/// A PDF object.
#[derive(Debug, Clone, PartialEq)]
pub enum Object {
    Null,
    Bool(bool),
    Int(i64),
    Real(f64),
    /// A string's bytes (literal and hex strings alike).
    Str(Vec<u8>),
    /// A name without its slash, `#xx` escapes decoded.
    Name(Vec<u8>),
    Array(Vec<Object>),
    Dict(Dict),
    Stream(Stream),
    Ref(ObjRef),
}

/// A dictionary in file order, with a hash index once it is large: lookups stay O(1) on hostile
/// dictionaries with a million keys, and small ones (nearly all) pay nothing for it.
#[derive(Debug, Clone, Default)]
pub struct Dict {
    entries: Vec<(Vec<u8>, Object)>,
    index: Option<Box<Index>>,
}

type Index = HashMap<Vec<u8>, usize, BuildHasherDefault<Fnv>>;

/// FNV-1a: keys are short names, and a million of them must hash in milliseconds. Collisions
/// crafted against it cost the attacker's own budget only (a dictionary's size is bounded by
/// the object limit).
#[derive(Debug, Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// Entries above which a dictionary keeps a hash index.
const INDEX_FROM: usize = 16;

impl PartialEq for Dict {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

/// A stream: its dictionary and its encoded data.
#[derive(Debug, Clone, PartialEq)]
pub struct Stream {
    pub dict: Dict,
    pub data: Vec<u8>,
}

impl Dict {
    pub fn new() -> Self {
        Dict::default()
    }
    /// A dictionary of `pairs` in their order (a repeated key keeps its first place, last value).
    pub fn from_pairs(pairs: impl IntoIterator<Item = (Vec<u8>, Object)>) -> Self {
        let mut d = Dict::new();
        for (k, v) in pairs {
            d.set(&k, v);
        }
        d
    }
    fn position(&self, key: &[u8]) -> Option<usize> {
        match &self.index {
            Some(ix) => ix.get(key).copied(),
            None => self.entries.iter().position(|(k, _)| k == key),
        }
    }
    pub fn get(&self, key: &[u8]) -> Option<&Object> {
        self.position(key).map(|i| &self.entries[i].1)
    }
    /// Sets `key`, replacing an existing entry in place.
    pub fn set(&mut self, key: &[u8], value: impl Into<Object>) {
        let value = value.into();
        let at = self.entries.len();
        if let Some(ix) = &mut self.index {
            match ix.entry(key.to_vec()) {
                Entry::Occupied(e) => self.entries[*e.get()].1 = value,
                Entry::Vacant(e) => {
                    e.insert(at);
                    self.entries.push((key.to_vec(), value));
                }
            }
            return;
        }
        if let Some(i) = self.position(key) {
            self.entries[i].1 = value;
            return;
        }
        self.entries.push((key.to_vec(), value));
        if self.entries.len() > INDEX_FROM {
            let ix = self
                .entries
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.clone(), i))
                .collect();
            self.index = Some(Box::new(ix));
        }
    }
    pub fn with(mut self, key: &[u8], value: impl Into<Object>) -> Self {
        self.set(key, value);
        self
    }
    /// The name stored at `key`, if it is a name.
    pub fn name(&self, key: &[u8]) -> Option<&[u8]> {
        self.get(key).and_then(Object::as_name)
    }
    /// The entries in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &Object)> {
        self.entries.iter().map(|(k, v)| (k.as_slice(), v))
    }
}

impl Object {
    pub fn name(n: &[u8]) -> Object {
        Object::Name(n.to_vec())
    }
    pub fn as_name(&self) -> Option<&[u8]> {
        match self {
            Object::Name(n) => Some(n),
            _ => None,
        }
    }
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Object::Int(i) => Some(*i),
            Object::Real(r) if r.is_finite() && r.fract() == 0.0 && r.abs() < 1e15 => {
                Some(*r as i64)
            }
            _ => None,
        }
    }
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Object::Int(i) => Some(*i as f64),
            Object::Real(r) if r.is_finite() => Some(*r),
            _ => None,
        }
    }
    pub fn as_dict(&self) -> Option<&Dict> {
        match self {
            Object::Dict(d) => Some(d),
            Object::Stream(s) => Some(&s.dict),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&[Object]> {
        match self {
            Object::Array(a) => Some(a),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&[u8]> {
        match self {
            Object::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_ref(&self) -> Option<ObjRef> {
        match self {
            Object::Ref(r) => Some(*r),
            _ => None,
        }
    }

    /// Appends the PDF syntax of this object to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            Object::Null => out.extend_from_slice(b"null"),
            Object::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            Object::Int(i) => out.extend_from_slice(i.to_string().as_bytes()),
            Object::Real(r) => out.extend_from_slice(fmt_num(*r).as_bytes()),
            Object::Str(s) => write_string(s, out),
            Object::Name(n) => write_name(n, out),
            Object::Array(a) => {
                out.push(b'[');
                for (i, o) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(b' ');
                    }
                    o.write(out);
                }
                out.push(b']');
            }
            Object::Dict(d) => write_dict(d, out),
            Object::Stream(s) => {
                let mut d = s.dict.clone();
                d.set(b"Length", Object::Int(s.data.len() as i64));
                write_dict(&d, out);
                out.extend_from_slice(b"\nstream\n");
                out.extend_from_slice(&s.data);
                out.extend_from_slice(b"\nendstream");
            }
            Object::Ref(r) => {
                out.extend_from_slice(format!("{} {} R", r.num, r.generation).as_bytes())
            }
        }
    }
}

impl From<Dict> for Object {
    fn from(d: Dict) -> Self {
        Object::Dict(d)
    }
}
impl From<ObjRef> for Object {
    fn from(r: ObjRef) -> Self {
        Object::Ref(r)
    }
}
impl From<i64> for Object {
    fn from(i: i64) -> Self {
        Object::Int(i)
    }
}
impl From<f64> for Object {
    fn from(r: f64) -> Self {
        Object::Real(r)
    }
}
impl From<Vec<Object>> for Object {
    fn from(a: Vec<Object>) -> Self {
        Object::Array(a)
    }
}
impl From<Stream> for Object {
    fn from(s: Stream) -> Self {
        Object::Stream(s)
    }
}

fn write_dict(d: &Dict, out: &mut Vec<u8>) {
    out.extend_from_slice(b"<<");
    for (k, v) in d.iter() {
        write_name(k, out);
        out.push(b' ');
        v.write(out);
    }
    out.extend_from_slice(b">>");
}

fn write_name(n: &[u8], out: &mut Vec<u8>) {
    out.push(b'/');
    for &b in n {
        if b.is_ascii_alphanumeric() || b"-_.+*".contains(&b) {
            out.push(b);
        } else {
            out.extend_from_slice(format!("#{b:02X}").as_bytes());
        }
    }
}

fn write_string(s: &[u8], out: &mut Vec<u8>) {
    out.push(b'(');
    for &b in s {
        match b {
            b'(' | b')' | b'\\' => {
                out.push(b'\\');
                out.push(b);
            }
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\n' => out.extend_from_slice(b"\\n"),
            _ => out.push(b),
        }
    }
    out.push(b')');
}

/// Formats a number the way content streams want it: no exponent, at most 4 decimals.
pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return "0".into();
    }
    let mut s = String::new();
    let _ = write!(s, "{:.4}", v);
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    if s == "-0" { "0".into() } else { s }
}

/// Encodes text for a PDF text string (`/V`, `/T`): PDFDocEncoding when ASCII, UTF-16BE otherwise.
pub fn text_string(s: &str) -> Vec<u8> {
    if s.is_ascii() {
        return s.as_bytes().to_vec();
    }
    let mut out = vec![0xFE, 0xFF];
    for u in s.encode_utf16() {
        out.extend_from_slice(&u.to_be_bytes());
    }
    out
}

/// Decodes a PDF text string (UTF-16BE with BOM, UTF-8 with BOM, or PDFDocEncoding ~ Latin-1).
pub fn decode_text_string(b: &[u8]) -> String {
    if let Some(rest) = b.strip_prefix(&[0xFE, 0xFF]) {
        let units: Vec<u16> = rest
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        return String::from_utf16_lossy(&units);
    }
    if let Some(rest) = b.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return String::from_utf8_lossy(rest).into_owned();
    }
    b.iter().map(|&c| c as char).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_objects() {
        let d = Dict::new().with(b"Type", Object::name(b"Page")).with(
            b"A b",
            Object::Array(vec![
                Object::Int(1),
                Object::Real(0.5),
                Object::Str(b"a(b)".to_vec()),
            ]),
        );
        let mut out = Vec::new();
        Object::Dict(d).write(&mut out);
        assert_eq!(out, b"<</Type /Page/A#20b [1 0.5 (a\\(b\\))]>>");
    }

    #[test]
    fn large_dicts_keep_order_and_find_every_key() {
        let mut d = Dict::new();
        for i in 0..1000i64 {
            d.set(format!("K{}", 999 - i).as_bytes(), i);
        }
        d.set(b"K500", Object::Null);
        assert_eq!(d.get(b"K999"), Some(&Object::Int(0)));
        assert_eq!(d.get(b"K500"), Some(&Object::Null));
        assert_eq!(d.get(b"K1000"), None);
        let keys: Vec<&[u8]> = d.iter().map(|(k, _)| k).take(2).collect();
        assert_eq!(keys, [&b"K999"[..], b"K998"]);
        assert_eq!(d.iter().count(), 1000);
        assert_eq!(
            Dict::from_pairs(d.iter().map(|(k, v)| (k.to_vec(), v.clone()))),
            d
        );
    }

    #[test]
    fn formats_numbers() {
        assert_eq!(fmt_num(1.0), "1");
        assert_eq!(fmt_num(-0.00001), "0");
        assert_eq!(fmt_num(12.34567), "12.3457");
    }

    #[test]
    fn text_strings_round_trip() {
        for s in ["abc", "Zoë Ångström", "李雷"] {
            assert_eq!(decode_text_string(&text_string(s)), s);
        }
    }
}
