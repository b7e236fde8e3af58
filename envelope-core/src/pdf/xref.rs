//! Cross-reference data: classic tables, xref streams, the `/Prev` chain, hybrid files, and the
//! recovery scan used when offsets are damaged.
//!
//! This module only maps object numbers to places in the file. It must never parse objects other
//! than xref streams (and, during recovery, object headers and object streams' indexes), so that
//! opening a large file costs only its xref. Every row read and every object parsed is charged
//! to the document's [`Budget`]; when a function here fails because the budget is spent, the
//! caller finds out through [`Budget::check`].

use std::collections::{HashMap, HashSet};

use super::PdfError;
use super::budget::Budget;
use super::filter;
use super::lexer::{Lexer, Token, find, is_white, rfind};
use super::object::{Dict, Object};

/// Where an object lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    Free,
    /// At this byte offset, with this generation.
    InFile {
        offset: usize,
        generation: u16,
    },
    /// Object `index` of the object stream `stream`.
    InStream {
        stream: u32,
        index: u32,
    },
}

/// The merged xref of a document.
#[derive(Debug, Default)]
pub struct Xref {
    pub entries: HashMap<u32, Entry>,
    /// The newest trailer, with `/Root`, `/Info`, `/ID`, `/Encrypt` filled from older ones when it
    /// lacks them.
    pub trailer: Dict,
    /// Offset of the newest xref section (`startxref`): the `/Prev` of our update.
    pub startxref: usize,
    /// The newest section is an xref stream.
    pub is_stream: bool,
    /// Some trailer of the chain names `/Encrypt`.
    pub encrypted: bool,
}

/// Most sections followed in a `/Prev` chain (hostile loops are also caught by offset).
const MAX_SECTIONS: usize = 512;

/// Where `endstream` occurs in the file, found by one scan the first time a stream's `/Length` is
/// wrong: searching forward from every such stream would be quadratic on a file of streams that
/// never end.
#[derive(Debug, Default)]
pub struct Ends {
    at: Option<Vec<usize>>,
}

impl Ends {
    /// The first `endstream` at or after `from`.
    fn after(&mut self, bytes: &[u8], from: usize, budget: &mut Budget) -> Option<usize> {
        if self.at.is_none() {
            let mut v = Vec::new();
            let mut i = 0;
            while let Some(p) = find(bytes, b"endstream", i) {
                v.push(p);
                i = p + 9;
            }
            // An index is a map too; a failed charge leaves the budget spent for the caller.
            let _ = budget.entries(v.len() as u64);
            self.at = Some(v);
        }
        let v = self.at.as_deref().unwrap_or(&[]);
        v.get(v.partition_point(|&p| p < from)).copied()
    }
}

/// Decodes a stream of the xref machinery within the budget.
fn decode(dict: &Dict, data: &[u8], budget: &mut Budget) -> Result<Vec<u8>, String> {
    let cap = budget.stream_cap();
    let mut spent = 0;
    let r = filter::decode(dict, data, cap, &mut spent);
    budget.decoded(spent).map_err(|e| e.to_string())?;
    match r {
        Err(filter::FilterError::TooLarge) => Err(budget.stream_too_large(cap).to_string()),
        Err(e) => Err(format!("xref stream: {e}")),
        Ok(v) => Ok(v),
    }
}

/// Reads the xref chain from the `startxref` at the end of the file.
pub fn read_chain(bytes: &[u8], budget: &mut Budget, ends: &mut Ends) -> Result<Xref, String> {
    let tail_start = bytes.len().saturating_sub(4096);
    let at = rfind(&bytes[tail_start..], b"startxref")
        .ok_or("no startxref: the file is truncated")?
        + tail_start;
    let mut lx = Lexer::new(bytes, at + 9);
    let start = match lx.next_token() {
        Some(Token::Int(i)) if i >= 0 => i as usize,
        _ => return Err("startxref has no offset".into()),
    };
    let mut x = Xref {
        startxref: start,
        ..Xref::default()
    };
    let mut seen = HashSet::new();
    let mut next = Some(start);
    let mut first = true;
    while let Some(off) = next.take() {
        if !seen.insert(off) || seen.len() > MAX_SECTIONS {
            break;
        }
        let (trailer, is_stream) = read_section(bytes, off, &mut x.entries, budget, ends)?;
        if let Some(stm) = trailer.get(b"XRefStm").and_then(Object::as_i64) {
            // Hybrid file: the hidden stream lists objects the table marks free or omits.
            let mut hidden = HashMap::new();
            if let Ok(_t) = read_section(bytes, stm.max(0) as usize, &mut hidden, budget, ends) {
                for (k, v) in hidden {
                    let e = x.entries.entry(k).or_insert(v);
                    if *e == Entry::Free {
                        *e = v;
                    }
                }
            }
        }
        if first {
            x.is_stream = is_stream;
            first = false;
        }
        merge_trailer(&mut x, &trailer);
        next = trailer
            .get(b"Prev")
            .and_then(Object::as_i64)
            .filter(|&p| p >= 0)
            .map(|p| p as usize);
    }
    Ok(x)
}

fn merge_trailer(x: &mut Xref, t: &Dict) {
    if t.get(b"Encrypt").is_some() {
        x.encrypted = true;
    }
    for key in [&b"Root"[..], b"Info", b"ID", b"Size"] {
        if x.trailer.get(key).is_none()
            && let Some(v) = t.get(key)
        {
            x.trailer.set(key, v.clone());
        }
    }
}

/// Reads one section at `off` (table or stream); entries already present are kept (newer wins).
fn read_section(
    bytes: &[u8],
    off: usize,
    entries: &mut HashMap<u32, Entry>,
    budget: &mut Budget,
    ends: &mut Ends,
) -> Result<(Dict, bool), String> {
    if off >= bytes.len() {
        return Err("xref offset past the end".into());
    }
    let mut lx = Lexer::new(bytes, off);
    match lx.next_token() {
        Some(Token::Keyword(b"xref")) => read_table(&mut lx, entries, budget).map(|t| (t, false)),
        Some(Token::Int(_)) => {
            let (dict, data) =
                read_stream_at(bytes, off, budget, ends).ok_or("xref stream unreadable")?;
            if dict.name(b"Type") != Some(b"XRef") {
                return Err("startxref does not point at an xref".into());
            }
            read_xref_stream(&dict, &data, entries, budget)?;
            Ok((dict, true))
        }
        _ => Err("startxref does not point at an xref".into()),
    }
}

fn read_table(
    lx: &mut Lexer<'_>,
    entries: &mut HashMap<u32, Entry>,
    budget: &mut Budget,
) -> Result<Dict, String> {
    let max_entries = lx.data.len() / 10 + 1;
    loop {
        match lx.next_token() {
            Some(Token::Keyword(b"trailer")) => {
                return match budget.parse(lx).map_err(|e| e.to_string())? {
                    Some(Object::Dict(d)) => Ok(d),
                    _ => Err("bad trailer".into()),
                };
            }
            Some(Token::Int(first)) => {
                let Some(Token::Int(count)) = lx.next_token() else {
                    return Err("bad xref subsection".into());
                };
                if first < 0 || count < 0 || count as usize > max_entries || first > u32::MAX as i64
                {
                    return Err("bad xref subsection".into());
                }
                for i in 0..count {
                    budget.entries(1).map_err(|e| e.to_string())?;
                    let (Some(Token::Int(o)), Some(Token::Int(g)), Some(Token::Keyword(k))) =
                        (lx.next_token(), lx.next_token(), lx.next_token())
                    else {
                        return Err("bad xref entry".into());
                    };
                    let Ok(num) = u32::try_from(first + i) else {
                        break;
                    };
                    let e = match k {
                        b"n" if o > 0 => Entry::InFile {
                            offset: o as usize,
                            generation: g.clamp(0, 65535) as u16,
                        },
                        _ => Entry::Free,
                    };
                    entries.entry(num).or_insert(e);
                }
            }
            _ => return Err("bad xref table".into()),
        }
    }
}

fn read_xref_stream(
    dict: &Dict,
    data: &[u8],
    entries: &mut HashMap<u32, Entry>,
    budget: &mut Budget,
) -> Result<(), String> {
    let w: Vec<usize> = dict
        .get(b"W")
        .and_then(Object::as_array)
        .map(|a| {
            a.iter()
                .map(|o| o.as_i64().unwrap_or(0).clamp(0, 8) as usize)
                .collect()
        })
        .unwrap_or_default();
    if w.len() != 3 || w.iter().sum::<usize>() == 0 {
        return Err("xref stream /W".into());
    }
    let size = dict.get(b"Size").and_then(Object::as_i64).unwrap_or(0);
    let index: Vec<i64> = match dict.get(b"Index").and_then(Object::as_array) {
        Some(a) => a.iter().filter_map(Object::as_i64).collect(),
        None => vec![0, size],
    };
    let row = w.iter().sum::<usize>();
    // Decode no more rows than the map limit allows: a stream claiming tens of millions of
    // entries stops at the limit instead of inflating them all first.
    let rows_left = budget.entries_left().saturating_add(1);
    let room = usize::try_from(rows_left.saturating_mul(row as u64)).unwrap_or(usize::MAX);
    let data = if room < budget.stream_cap() {
        let mut spent = 0;
        let r = filter::decode(dict, data, room, &mut spent);
        budget.decoded(spent).map_err(|e| e.to_string())?;
        match r {
            Ok(v) => v,
            Err(filter::FilterError::TooLarge) => {
                let max = budget.limits().max_map_entries;
                return Err(budget.trip(super::Limit::MapEntries(max)).to_string());
            }
            Err(e) => return Err(format!("xref stream: {e}")),
        }
    } else {
        decode(dict, data, budget)?
    };
    let mut rows = data.chunks_exact(row);
    let field = |b: &[u8]| b.iter().fold(0u64, |a, &c| a << 8 | u64::from(c));
    for pair in index.chunks_exact(2) {
        let (first, count) = (pair[0], pair[1]);
        if first < 0 || count < 0 {
            return Err("xref stream /Index".into());
        }
        for i in 0..count {
            let Some(r) = rows.next() else { return Ok(()) };
            budget.entries(1).map_err(|e| e.to_string())?;
            let Ok(num) = u32::try_from(first + i) else {
                return Ok(());
            };
            let t = if w[0] == 0 { 1 } else { field(&r[..w[0]]) };
            let a = field(&r[w[0]..w[0] + w[1]]);
            let b = field(&r[w[0] + w[1]..]);
            let e = match t {
                1 if a > 0 => Entry::InFile {
                    offset: a as usize,
                    generation: b.min(65535) as u16,
                },
                2 => Entry::InStream {
                    stream: a.min(u32::MAX as u64) as u32,
                    index: b.min(u32::MAX as u64) as u32,
                },
                _ => Entry::Free,
            };
            entries.entry(num).or_insert(e);
        }
    }
    Ok(())
}

/// Parses `num gen obj` at `off`; returns the object number and the position after `obj`.
pub fn object_header(bytes: &[u8], off: usize) -> Option<(u32, u16, usize)> {
    let mut lx = Lexer::new(bytes, off);
    let (Some(Token::Int(n)), Some(Token::Int(g)), Some(Token::Keyword(b"obj"))) =
        (lx.next_token(), lx.next_token(), lx.next_token())
    else {
        return None;
    };
    Some((u32::try_from(n).ok()?, u16::try_from(g).ok()?, lx.pos))
}

/// Reads a stream object at `off` whose `/Length` is direct (xref streams, recovery). Returns its
/// dictionary and raw data.
pub fn read_stream_at(
    bytes: &[u8],
    off: usize,
    budget: &mut Budget,
    ends: &mut Ends,
) -> Option<(Dict, Vec<u8>)> {
    let (_, _, pos) = object_header(bytes, off)?;
    let mut lx = Lexer::new(bytes, pos);
    let Some(Object::Dict(d)) = budget.parse(&mut lx).ok()? else {
        return None;
    };
    let len = d.get(b"Length").and_then(Object::as_i64);
    let data = stream_data(bytes, lx.pos, len, budget, ends)?;
    Some((d, data.to_vec()))
}

/// Finds the data of a stream whose dictionary ends at `pos`. `len` is `/Length` when known; when
/// it is wrong or missing, the next `endstream` ends it.
pub fn stream_data<'b>(
    bytes: &'b [u8],
    pos: usize,
    len: Option<i64>,
    budget: &mut Budget,
    ends: &mut Ends,
) -> Option<&'b [u8]> {
    let mut lx = Lexer::new(bytes, pos);
    if lx.next_token() != Some(Token::Keyword(b"stream")) {
        return None;
    }
    let mut start = lx.pos;
    if bytes.get(start) == Some(&b'\r') {
        start += 1;
    }
    if bytes.get(start) == Some(&b'\n') {
        start += 1;
    }
    if let Some(len) = len
        .filter(|&l| l >= 0)
        .and_then(|l| usize::try_from(l).ok())
        && let Some(end) = start.checked_add(len).filter(|&e| e <= bytes.len())
    {
        let mut after = end;
        while after < bytes.len() && is_white(bytes[after]) {
            after += 1;
        }
        if bytes[after..].starts_with(b"endstream") {
            return Some(&bytes[start..end]);
        }
    }
    let mut end = ends.after(bytes, start, budget)?;
    if end > start && bytes[end - 1] == b'\n' {
        end -= 1;
    }
    if end > start && bytes[end - 1] == b'\r' {
        end -= 1;
    }
    Some(&bytes[start..end])
}

/// Rebuilds the xref by scanning the whole file for `n g obj` headers and trailers, as qpdf does
/// for damaged files.
pub fn recover(bytes: &[u8], budget: &mut Budget, ends: &mut Ends) -> Result<Xref, String> {
    let spent = |e: PdfError| e.to_string();
    let mut x = Xref::default();
    let mut at = 0;
    let mut objects: Vec<(u32, usize)> = Vec::new();
    while let Some(p) = find(bytes, b"obj", at) {
        at = p + 3;
        if bytes
            .get(p + 3)
            .is_some_and(|&c| !is_white(c) && c != b'<' && c != b'[' && c != b'%')
        {
            continue;
        }
        if let Some(start) = header_start(bytes, p)
            && let Some((num, generation, _)) = object_header(bytes, start)
        {
            budget.entries(1).map_err(spent)?;
            x.entries.insert(
                num,
                Entry::InFile {
                    offset: start,
                    generation,
                },
            );
            objects.push((num, start));
        }
    }
    let mut at = 0;
    while let Some(p) = find(bytes, b"trailer", at) {
        at = p + 7;
        if let Some(Object::Dict(t)) = budget.parse(&mut Lexer::new(bytes, p + 7)).map_err(spent)? {
            if t.get(b"Encrypt").is_some() {
                x.encrypted = true;
            }
            if t.get(b"Root").is_some() {
                x.trailer = t;
            }
        }
    }
    // Xref streams carry trailer keys; object streams hold objects the scan cannot see.
    for &(num, off) in &objects {
        let Some((d, data)) = read_stream_at(bytes, off, budget, ends) else {
            budget.check().map_err(spent)?;
            continue;
        };
        match d.name(b"Type") {
            Some(b"XRef") => {
                if d.get(b"Encrypt").is_some() {
                    x.encrypted = true;
                }
                if d.get(b"Root").is_some() {
                    x.trailer = d.clone();
                }
            }
            Some(b"ObjStm") => {
                let raw = match decode(&d, &data, budget) {
                    Ok(raw) => raw,
                    Err(_) => {
                        budget.check().map_err(spent)?;
                        continue;
                    }
                };
                let n = d
                    .get(b"N")
                    .and_then(Object::as_i64)
                    .unwrap_or(0)
                    .clamp(0, 1 << 20);
                let mut lx = Lexer::new(&raw, 0);
                for index in 0..n as u32 {
                    let (Some(Token::Int(o)), Some(Token::Int(_))) =
                        (lx.next_token(), lx.next_token())
                    else {
                        break;
                    };
                    budget.entries(1).map_err(spent)?;
                    if let Ok(o) = u32::try_from(o) {
                        x.entries
                            .entry(o)
                            .or_insert(Entry::InStream { stream: num, index });
                    }
                }
            }
            _ => {}
        }
    }
    if x.trailer.get(b"Root").is_none() {
        // Last resort: the newest /Catalog object.
        for &(_, off) in objects.iter().rev() {
            if let Some((n, g, pos)) = object_header(bytes, off)
                && let Some(Object::Dict(d)) =
                    budget.parse(&mut Lexer::new(bytes, pos)).map_err(spent)?
                && d.name(b"Type") == Some(b"Catalog")
            {
                x.trailer
                    .set(b"Root", Object::Ref(super::object::ObjRef::new(n, g)));
                break;
            }
        }
    }
    if x.trailer.get(b"Root").is_none() {
        return Err("no catalog found".into());
    }
    Ok(x)
}

/// Walks back from `obj` at `p` over `gen` and `num`; returns where `num` starts.
fn header_start(bytes: &[u8], p: usize) -> Option<usize> {
    let mut i = p;
    let skip_ws = |i: &mut usize| {
        while *i > 0 && is_white(bytes[*i - 1]) {
            *i -= 1;
        }
    };
    let digits = |i: &mut usize| {
        let end = *i;
        while *i > 0 && bytes[*i - 1].is_ascii_digit() {
            *i -= 1;
        }
        end > *i
    };
    skip_ws(&mut i);
    if !digits(&mut i) {
        return None;
    }
    let before_gen = i;
    skip_ws(&mut i);
    if i == before_gen || !digits(&mut i) {
        return None;
    }
    if i > 0 && !is_white(bytes[i - 1]) && !super::lexer::is_delim(bytes[i - 1]) {
        return None;
    }
    Some(i)
}
