//! A lazy PDF reader: it parses the xref chain up front and everything else only on request.
//!
//! Opening a document costs its xref; resolving an object costs that object (and, for objects in
//! object streams, that stream once). This is what keeps stamping a 24 MB file near the cost of
//! hashing it. The reader must never modify the bytes, never panic on hostile input, and never do
//! work its [`Budget`] does not allow: every object parsed and every byte decoded is charged, and
//! once the budget is spent every read fails with the limit's error.

use std::collections::HashMap;

use super::budget::{Budget, PdfLimits};
use super::filter;
use super::lexer::{Lexer, Token};
use super::object::{Dict, ObjRef, Object, Stream};
use super::xref::{self, Ends, Entry, Xref};
use super::{Limit, PdfError};

/// Deepest chain of references followed while resolving `/Length` and the like.
const MAX_RESOLVE_DEPTH: usize = 16;
/// Highest object number the format allows (ISO 32000-1, Annex C: 8,388,607 indirect objects).
/// A file that claims more is refused on load, which also leaves an update room to number its
/// new objects without overflow.
pub const MAX_OBJECT_NUMBER: u32 = 8_388_607;

/// A document opened for reading.
#[derive(Debug)]
pub struct Document<'a> {
    pub bytes: &'a [u8],
    pub xref: Xref,
    /// The xref was rebuilt by scanning because offsets were damaged.
    pub recovered: bool,
    objstms: HashMap<u32, ObjStm>,
    /// What reading this document may still cost.
    pub budget: Budget,
    ends: Ends,
}

#[derive(Debug)]
struct ObjStm {
    data: Vec<u8>,
    /// (object number, offset in `data`) per index.
    offsets: Vec<(u32, usize)>,
}

impl<'a> Document<'a> {
    /// [`Document::open`] with the limits for documents already inspected (stamping, sealing).
    pub fn load(bytes: &'a [u8]) -> Result<Document<'a>, PdfError> {
        Self::open(bytes, &PdfLimits::for_stamping())
    }

    /// Opens `bytes`: checks the header, reads the xref chain (or recovers it), refuses encrypted
    /// files, and checks that the catalog can be read. All later reads share one budget.
    pub fn open(bytes: &'a [u8], limits: &PdfLimits) -> Result<Document<'a>, PdfError> {
        let mut budget = Budget::new(limits);
        let mut ends = Ends::default();
        let head = &bytes[..bytes.len().min(1024)];
        if super::lexer::find(head, b"%PDF-", 0).is_none() {
            return Err(PdfError::Invalid("no %PDF- header".into()));
        }
        // A truncated file has lost its tail; refuse it rather than guess.
        let chain = xref::read_chain(bytes, &mut budget, &mut ends);
        budget.check()?;
        if let Err(e) = &chain
            && e.contains("truncated")
        {
            return Err(PdfError::Invalid(e.clone()));
        }
        let (x, recovered) = match chain {
            Ok(x) if offsets_ok(bytes, &x) => (x, false),
            Ok(x) if x.encrypted => return Err(PdfError::Encrypted),
            _ => {
                let x = xref::recover(bytes, &mut budget, &mut ends);
                budget.check()?;
                (x.map_err(PdfError::Invalid)?, true)
            }
        };
        if x.encrypted {
            return Err(PdfError::Encrypted);
        }
        let mut doc = Document {
            bytes,
            xref: x,
            recovered,
            objstms: HashMap::new(),
            budget,
            ends,
        };
        if doc.next_object_number() > MAX_OBJECT_NUMBER + 1 {
            return Err(PdfError::Invalid(format!(
                "the PDF numbers its objects past {MAX_OBJECT_NUMBER}, the format's limit"
            )));
        }
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
        self.budget.check()?;
        if depth > MAX_RESOLVE_DEPTH {
            return Ok(Object::Null);
        }
        let o = match self.xref.entries.get(&r.num).copied() {
            Some(Entry::InFile { offset, .. }) => self.parse_at(offset, depth),
            Some(Entry::InStream { stream, index }) => self.in_objstm(stream, index, depth),
            _ => None,
        };
        // Failures above become null, except a spent budget.
        self.budget.check()?;
        Ok(o.unwrap_or(Object::Null))
    }

    fn parse_at(&mut self, offset: usize, depth: usize) -> Option<Object> {
        let (_, _, pos) = xref::object_header(self.bytes, offset)?;
        let mut lx = Lexer::new(self.bytes, pos);
        let obj = self.budget.parse(&mut lx).ok()??;
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
        let data = xref::stream_data(self.bytes, lx.pos, len, &mut self.budget, &mut self.ends)?;
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
            let data = self.decode_with(&s.dict, &s.data).ok()?;
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
                self.budget.entries(1).ok()?;
                offsets.push((
                    u32::try_from(num).ok()?,
                    first.saturating_add(off.max(0) as usize),
                ));
            }
            self.objstms.insert(stream, ObjStm { data, offsets });
        }
        let os = self.objstms.get(&stream)?;
        let &(_, off) = os.offsets.get(index as usize)?;
        let mut lx = Lexer::new(&os.data, off);
        self.budget.parse(&mut lx).ok()?
    }

    /// Decodes within the budget: the cap is the per-stream limit or what is left of the total.
    fn decode_with(&mut self, dict: &Dict, data: &[u8]) -> Result<Vec<u8>, PdfError> {
        let cap = self.budget.stream_cap();
        let mut spent = 0;
        let r = filter::decode(dict, data, cap, &mut spent);
        self.budget.decoded(spent)?;
        match r {
            Ok(v) => Ok(v),
            Err(filter::FilterError::TooLarge) => Err(self.budget.stream_too_large(cap)),
            Err(e) => Err(PdfError::Invalid(format!(
                "a stream cannot be decoded: {e}"
            ))),
        }
    }

    /// The decoded data of a stream (within the budget).
    pub fn decode(&mut self, s: &Stream) -> Result<Vec<u8>, PdfError> {
        let mut dict = s.dict.clone();
        // Filter parameters may be indirect.
        for key in [&b"Filter"[..], b"DecodeParms"] {
            if let Some(v) = dict.get(key).cloned() {
                let v = self.resolve(&v)?;
                dict.set(key, v);
            }
        }
        self.decode_with(&dict, &s.data)
    }

    /// The decoded data of the stream `o` refers to; empty when it is not a readable stream. Fails
    /// only when the budget is spent.
    pub fn stream_bytes(&mut self, o: &Object) -> Result<Vec<u8>, PdfError> {
        let r = match self.resolve(o)? {
            Object::Stream(s) => self.decode(&s),
            _ => Ok(Vec::new()),
        };
        match r {
            Err(e @ PdfError::TooComplex(_)) => Err(e),
            r => Ok(r.unwrap_or_default()),
        }
    }

    /// The largest decoded stream the limits allow (also the joined content of one page).
    pub fn max_stream_bytes(&self) -> usize {
        self.budget.limits().max_stream_bytes
    }

    /// Fails with the stream limit (for content joined from several streams).
    pub fn stream_limit_passed(&mut self) -> PdfError {
        let max = self.max_stream_bytes();
        self.budget.trip(Limit::StreamBytes(max))
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
