//! A lazy PDF reader: it parses the xref chain up front and everything else only on request.
//!
//! Opening a document costs its xref; resolving an object costs that object (and, for objects in
//! object streams, that stream once). This is what keeps stamping a 24 MB file near the cost of
//! hashing it. The reader must never modify the bytes, never panic on hostile input, and never
//! decode more than [`MAX_STREAM`] bytes from one stream.

use std::collections::HashMap;

use super::PdfError;
use super::filter;
use super::lexer::{Lexer, Token};
use super::object::{Dict, ObjRef, Object, Stream};
use super::xref::{self, Entry, Xref};

/// Largest decoded stream (content streams, object streams, CMaps, fonts).
pub const MAX_STREAM: usize = 64 << 20;
/// Deepest chain of references followed while resolving `/Length` and the like.
const MAX_RESOLVE_DEPTH: usize = 16;

/// A document opened for reading.
#[derive(Debug)]
pub struct Document<'a> {
    pub bytes: &'a [u8],
    pub xref: Xref,
    /// The xref was rebuilt by scanning because offsets were damaged.
    pub recovered: bool,
    objstms: HashMap<u32, ObjStm>,
}

#[derive(Debug)]
struct ObjStm {
    data: Vec<u8>,
    /// (object number, offset in `data`) per index.
    offsets: Vec<(u32, usize)>,
}

impl<'a> Document<'a> {
    /// Opens `bytes`: checks the header, reads the xref chain (or recovers it), refuses encrypted
    /// files, and checks that the catalog can be read.
    pub fn load(bytes: &'a [u8]) -> Result<Document<'a>, PdfError> {
        let head = &bytes[..bytes.len().min(1024)];
        if super::lexer::find(head, b"%PDF-", 0).is_none() {
            return Err(PdfError::Invalid("no %PDF- header".into()));
        }
        // A truncated file has lost its tail; refuse it rather than guess.
        let chain = xref::read_chain(bytes);
        if let Err(e) = &chain
            && e.contains("truncated")
        {
            return Err(PdfError::Invalid(e.clone()));
        }
        let (x, recovered) = match chain {
            Ok(x) if offsets_ok(bytes, &x) => (x, false),
            Ok(x) if x.encrypted => return Err(PdfError::Encrypted),
            _ => (xref::recover(bytes).map_err(PdfError::Invalid)?, true),
        };
        if x.encrypted {
            return Err(PdfError::Encrypted);
        }
        let mut doc = Document {
            bytes,
            xref: x,
            recovered,
            objstms: HashMap::new(),
        };
        let root = doc.catalog()?;
        if root.get(b"Pages").is_none() {
            return Err(PdfError::Invalid("the catalog has no page tree".into()));
        }
        Ok(doc)
    }

    /// The document catalog.
    pub fn catalog(&mut self) -> Result<Dict, PdfError> {
        let root = self
            .xref
            .trailer
            .get(b"Root")
            .cloned()
            .unwrap_or(Object::Null);
        match self.resolve(&root)? {
            Object::Dict(d) => Ok(d),
            _ => Err(PdfError::Invalid("no document catalog".into())),
        }
    }

    /// One more than the highest object number in use: where new objects start.
    pub fn next_object_number(&self) -> u32 {
        let size = self
            .xref
            .trailer
            .get(b"Size")
            .and_then(Object::as_i64)
            .unwrap_or(0)
            .clamp(0, u32::MAX as i64) as u32;
        let max = self
            .xref
            .entries
            .keys()
            .max()
            .map_or(0, |m| m.saturating_add(1));
        size.max(max).max(1)
    }

    /// Resolves a reference (other objects are returned as they are). A missing object is null.
    pub fn resolve(&mut self, o: &Object) -> Result<Object, PdfError> {
        match o {
            Object::Ref(r) => self.get(*r),
            other => Ok(other.clone()),
        }
    }

    /// Resolves `o` to a dictionary (a stream's dictionary counts), or `None`.
    pub fn dict(&mut self, o: Option<&Object>) -> Result<Option<Dict>, PdfError> {
        let Some(o) = o else { return Ok(None) };
        Ok(match self.resolve(o)? {
            Object::Dict(d) => Some(d),
            Object::Stream(s) => Some(s.dict),
            _ => None,
        })
    }

    /// The object `r`. Missing, free and unreadable objects are null.
    pub fn get(&mut self, r: ObjRef) -> Result<Object, PdfError> {
        self.get_depth(r, 0)
    }

    fn get_depth(&mut self, r: ObjRef, depth: usize) -> Result<Object, PdfError> {
        if depth > MAX_RESOLVE_DEPTH {
            return Ok(Object::Null);
        }
        match self.xref.entries.get(&r.num).copied() {
            Some(Entry::InFile { offset, .. }) => {
                Ok(self.parse_at(offset, depth).unwrap_or(Object::Null))
            }
            Some(Entry::InStream { stream, index }) => {
                Ok(self.in_objstm(stream, index, depth).unwrap_or(Object::Null))
            }
            _ => Ok(Object::Null),
        }
    }

    fn parse_at(&mut self, offset: usize, depth: usize) -> Option<Object> {
        let (_, _, pos) = xref::object_header(self.bytes, offset)?;
        let mut lx = Lexer::new(self.bytes, pos);
        let obj = lx.parse_object()?;
        let Object::Dict(dict) = obj else {
            return Some(obj);
        };
        let mut peek = lx.clone();
        if peek.next_token() != Some(Token::Keyword(b"stream")) {
            return Some(Object::Dict(dict));
        }
        let len = match dict.get(b"Length") {
            Some(Object::Ref(r)) => self.get_depth(*r, depth + 1).ok().and_then(|o| o.as_i64()),
            Some(o) => o.as_i64(),
            None => None,
        };
        let data = xref::stream_data(self.bytes, lx.pos, len)?;
        Some(Object::Stream(Stream {
            dict,
            data: data.to_vec(),
        }))
    }

    fn in_objstm(&mut self, stream: u32, index: u32, depth: usize) -> Option<Object> {
        if !self.objstms.contains_key(&stream) {
            let Object::Stream(s) = self.get_depth(ObjRef::new(stream, 0), depth + 1).ok()? else {
                return None;
            };
            let data = filter::decode(&s.dict, &s.data, MAX_STREAM).ok()?;
            let n = s
                .dict
                .get(b"N")
                .and_then(Object::as_i64)
                .unwrap_or(0)
                .clamp(0, 1 << 20) as usize;
            let first = s
                .dict
                .get(b"First")
                .and_then(Object::as_i64)
                .unwrap_or(0)
                .max(0) as usize;
            let mut lx = Lexer::new(&data, 0);
            let mut offsets = Vec::with_capacity(n.min(data.len()));
            for _ in 0..n {
                let (Some(Token::Int(num)), Some(Token::Int(off))) =
                    (lx.next_token(), lx.next_token())
                else {
                    break;
                };
                offsets.push((
                    u32::try_from(num).ok()?,
                    first.saturating_add(off.max(0) as usize),
                ));
            }
            self.objstms.insert(stream, ObjStm { data, offsets });
        }
        let os = self.objstms.get(&stream)?;
        let &(_, off) = os.offsets.get(index as usize)?;
        Lexer::new(&os.data, off).parse_object()
    }

    /// The decoded data of a stream (capped at [`MAX_STREAM`]).
    pub fn decode(&mut self, s: &Stream) -> Result<Vec<u8>, PdfError> {
        let mut dict = s.dict.clone();
        // Filter parameters may be indirect.
        for key in [&b"Filter"[..], b"DecodeParms"] {
            if let Some(v) = dict.get(key).cloned() {
                let v = self.resolve(&v)?;
                dict.set(key, v);
            }
        }
        filter::decode(&dict, &s.data, MAX_STREAM)
            .map_err(|e| PdfError::Invalid(format!("stream: {e:?}")))
    }

    /// The decoded data of the stream `o` refers to; empty when it is not a readable stream.
    pub fn stream_bytes(&mut self, o: &Object) -> Vec<u8> {
        match self.resolve(o) {
            Ok(Object::Stream(s)) => self.decode(&s).unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// Every object number that is in use, for a full xref table after recovery.
    pub fn in_use(&self) -> Vec<(u32, Entry)> {
        let mut v: Vec<_> = self
            .xref
            .entries
            .iter()
            .filter(|(_, e)| **e != Entry::Free)
            .map(|(k, e)| (*k, *e))
            .collect();
        v.sort_by_key(|(k, _)| *k);
        v
    }
}

/// True when every in-file xref entry points at the header of the object it names. Cheap: a few
/// bytes per object.
fn offsets_ok(bytes: &[u8], x: &Xref) -> bool {
    x.entries.iter().all(|(num, e)| match e {
        Entry::InFile { offset, .. } => {
            xref::object_header(bytes, *offset).is_some_and(|(n, _, _)| n == *num)
        }
        _ => true,
    }) && x.trailer.get(b"Root").is_some()
}
