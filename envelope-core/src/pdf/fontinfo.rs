//! What the text extractor needs to know about a font: how its codes split (one or two bytes),
//! which Unicode text each code stands for (`/ToUnicode`, `/Encoding` + `/Differences`), glyph
//! widths (`/Widths`, `/W`, standard-14 metrics) and the vertical extent of its glyphs.
//!
//! It reads fonts only through the lazy reader and must never trust sizes in the file: every
//! entry put into a map is charged to the document's budget, and one range adds at most
//! [`MAX_RANGE`] entries.

use std::collections::HashMap;

use super::PdfError;
use super::budget::Budget;
use super::lexer::{Lexer, Token};
use super::metrics;
use super::object::{Dict, Object};
use super::reader::Document;

/// Most entries taken from one CMap or `/W` range (a hostile range could name 2^32 codes).
const MAX_RANGE: u32 = 1 << 16;

/// A font, as far as text extraction cares.
#[derive(Debug, Default)]
pub struct FontInfo {
    two_byte: bool,
    to_unicode: HashMap<u32, String>,
    /// Simple fonts: the character for each byte from `/Encoding`.
    simple: Option<Vec<Option<char>>>,
    first_char: u32,
    widths: Vec<f64>,
    cid_widths: HashMap<u32, f64>,
    cid_ranges: Vec<(u32, u32, f64)>,
    default_width: f64,
    base: Vec<u8>,
    standard: bool,
    /// Glyph extent above and below the baseline, in 1/1000 em.
    pub ascent: f64,
    pub descent: f64,
}

/// One decoded code.
#[derive(Debug)]
pub struct Code {
    pub text: String,
    /// Advance width in 1/1000 em.
    pub width: f64,
    /// A one-byte code 32 (word spacing applies).
    pub is_space: bool,
    /// Bytes of the shown string this code took.
    pub bytes: usize,
}

impl FontInfo {
    /// Reads the font dictionary `font`.
    pub fn load(doc: &mut Document<'_>, font: &Dict) -> Result<FontInfo, PdfError> {
        let mut f = FontInfo {
            ascent: 800.0,
            descent: -200.0,
            default_width: 1000.0,
            ..FontInfo::default()
        };
        f.base = font.name(b"BaseFont").unwrap_or(b"").to_vec();
        let subtype = font.name(b"Subtype").unwrap_or(b"");
        if let Some(tu) = font.get(b"ToUnicode") {
            let data = doc.stream_bytes(tu)?;
            f.to_unicode = parse_to_unicode(&data, &mut doc.budget)?;
        }
        let mut descriptor = doc.dict(font.get(b"FontDescriptor"))?;
        if subtype == b"Type0" {
            f.two_byte = true;
            if let Some(enc) = font.get(b"Encoding")
                && let Object::Stream(_) = doc.resolve(enc)?
            {
                let data = doc.stream_bytes(enc)?;
                f.two_byte = codespace_bytes(&data) != 1;
            }
            let desc = match font.get(b"DescendantFonts") {
                Some(d) => doc.resolve(d)?.as_array().and_then(|a| a.first().cloned()),
                None => None,
            };
            if let Some(cid) = doc.dict(desc.as_ref())? {
                f.default_width = cid.get(b"DW").and_then(Object::as_f64).unwrap_or(1000.0);
                if let Some(w) = cid.get(b"W") {
                    let w = doc.resolve(w)?;
                    f.load_w(doc, w.as_array().unwrap_or(&[]))?;
                }
                descriptor = doc.dict(cid.get(b"FontDescriptor"))?;
            }
        } else {
            f.simple = Some(simple_encoding(doc, font)?);
            match font.get(b"Widths") {
                Some(w) => {
                    f.first_char = font
                        .get(b"FirstChar")
                        .and_then(Object::as_i64)
                        .unwrap_or(0)
                        .clamp(0, 255) as u32;
                    let w = doc.resolve(w)?;
                    for o in w.as_array().unwrap_or(&[]).iter().take(256) {
                        let v = doc.resolve(o)?.as_f64().unwrap_or(0.0);
                        f.widths.push(v);
                    }
                }
                None => f.standard = true,
            }
            f.default_width = descriptor
                .as_ref()
                .and_then(|d| d.get(b"MissingWidth"))
                .and_then(Object::as_f64)
                .unwrap_or(0.0);
        }
        if let Some(d) = descriptor {
            if let Some(a) = d
                .get(b"Ascent")
                .and_then(Object::as_f64)
                .filter(|a| (100.0..=2000.0).contains(a))
            {
                f.ascent = a;
            }
            if let Some(a) = d
                .get(b"Descent")
                .and_then(Object::as_f64)
                .filter(|a| (-1000.0..=0.0).contains(a))
            {
                f.descent = a;
            }
        }
        Ok(f)
    }

    fn load_w(&mut self, doc: &mut Document<'_>, w: &[Object]) -> Result<(), PdfError> {
        let mut i = 0;
        while i < w.len() {
            let Some(first) = w[i].as_i64().filter(|v| *v >= 0) else {
                break;
            };
            let first = first.min(u32::MAX as i64) as u32;
            match w.get(i + 1) {
                Some(o @ (Object::Array(_) | Object::Ref(_))) => {
                    let arr = doc.resolve(o)?;
                    for (k, v) in arr
                        .as_array()
                        .unwrap_or(&[])
                        .iter()
                        .take(MAX_RANGE as usize)
                        .enumerate()
                    {
                        if let Some(v) = v.as_f64() {
                            doc.budget.entries(1)?;
                            self.cid_widths.insert(first.saturating_add(k as u32), v);
                        }
                    }
                    i += 2;
                }
                Some(last) => {
                    let last = last.as_i64().unwrap_or(0).clamp(0, u32::MAX as i64) as u32;
                    let v = w
                        .get(i + 2)
                        .and_then(Object::as_f64)
                        .unwrap_or(self.default_width);
                    doc.budget.entries(1)?;
                    self.cid_ranges.push((first, last, v));
                    i += 3;
                }
                None => break,
            }
        }
        Ok(())
    }

    /// Splits a shown string into codes.
    pub fn decode(&self, bytes: &[u8]) -> Vec<Code> {
        let mut out = Vec::with_capacity(bytes.len());
        let step = if self.two_byte { 2 } else { 1 };
        for c in bytes.chunks(step) {
            let code = c.iter().fold(0u32, |a, &b| a << 8 | u32::from(b));
            let text = match self.to_unicode.get(&code) {
                Some(t) => t.clone(),
                None if self.two_byte => String::new(),
                None => match self
                    .simple
                    .as_ref()
                    .and_then(|s| s.get(code as usize).copied().flatten())
                {
                    Some(ch) => ch.to_string(),
                    None => metrics::winansi_char(code as u8)
                        .map(String::from)
                        .unwrap_or_default(),
                },
            };
            out.push(Code {
                text,
                width: self.width(code),
                is_space: !self.two_byte && code == 32,
                bytes: c.len(),
            });
        }
        out
    }

    fn width(&self, code: u32) -> f64 {
        if self.two_byte {
            if let Some(w) = self.cid_widths.get(&code) {
                return *w;
            }
            return self
                .cid_ranges
                .iter()
                .find(|(a, b, _)| (*a..=*b).contains(&code))
                .map_or(self.default_width, |r| r.2);
        }
        if self.standard {
            return metrics::standard_width(&self.base, code as u8);
        }
        match code
            .checked_sub(self.first_char)
            .and_then(|i| self.widths.get(i as usize))
        {
            Some(w) => *w,
            None => self.default_width,
        }
    }
}

/// The byte length of the first code space range of an embedded CMap (2 when unknown).
fn codespace_bytes(data: &[u8]) -> usize {
    let mut lx = Lexer::new(data, 0);
    while let Some(t) = lx.next_token() {
        if t == Token::Keyword(b"begincodespacerange")
            && let Some(Token::Str(s)) = lx.next_token()
        {
            return s.len().clamp(1, 4);
        }
    }
    2
}

/// Parses the `bfchar`/`bfrange` sections of a ToUnicode CMap, charging every entry.
pub fn parse_to_unicode(
    data: &[u8],
    budget: &mut Budget,
) -> Result<HashMap<u32, String>, PdfError> {
    let mut map = HashMap::new();
    let mut lx = Lexer::new(data, 0);
    let code = |s: &[u8]| s.iter().take(4).fold(0u32, |a, &b| a << 8 | u32::from(b));
    let utf16 = |s: &[u8]| {
        let units: Vec<u16> = s
            .chunks(2)
            .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))
            .collect();
        String::from_utf16_lossy(&units)
    };
    while let Some(t) = lx.next_token() {
        match t {
            Token::Keyword(b"beginbfchar") => loop {
                match (lx.next_token(), lx.next_token()) {
                    (Some(Token::Str(src)), Some(Token::Str(dst))) => {
                        budget.entries(1)?;
                        map.insert(code(&src), utf16(&dst));
                    }
                    (Some(Token::Str(src)), Some(Token::Name(n))) => {
                        budget.entries(1)?;
                        if let Some(c) = glyph_char(&n) {
                            map.insert(code(&src), c.to_string());
                        }
                    }
                    _ => break,
                }
            },
            Token::Keyword(b"beginbfrange") => {
                while let (Some(Token::Str(lo)), Some(Token::Str(hi))) =
                    (lx.next_token(), lx.next_token())
                {
                    let (lo, hi) = (code(&lo), code(&hi));
                    let dst = lx.next_token();
                    if hi < lo || hi - lo > MAX_RANGE {
                        if dst == Some(Token::ArrayStart) {
                            while let Some(Token::Str(_)) = lx.next_token() {}
                        }
                        continue;
                    }
                    match dst {
                        Some(Token::Str(dst)) => {
                            budget.entries(u64::from(hi - lo) + 1)?;
                            let base = utf16(&dst);
                            let mut chars: Vec<char> = base.chars().collect();
                            for c in lo..=hi {
                                map.insert(c, chars.iter().collect());
                                if let Some(last) = chars.last_mut() {
                                    *last = char::from_u32(*last as u32 + 1).unwrap_or(*last);
                                }
                            }
                        }
                        Some(Token::ArrayStart) => {
                            let mut c = lo;
                            while let Some(Token::Str(dst)) = lx.next_token() {
                                budget.entries(1)?;
                                if c <= hi {
                                    map.insert(c, utf16(&dst));
                                }
                                c = c.saturating_add(1);
                            }
                        }
                        _ => break,
                    }
                }
            }
            _ => {}
        }
    }
    Ok(map)
}

fn simple_encoding(doc: &mut Document<'_>, font: &Dict) -> Result<Vec<Option<char>>, PdfError> {
    let mut table: Vec<Option<char>> = (0..=255u8).map(metrics::winansi_char).collect();
    let enc = match font.get(b"Encoding") {
        Some(e) => doc.resolve(e)?,
        None => return Ok(table),
    };
    if let Some(d) = enc.as_dict() {
        let diffs = match d.get(b"Differences") {
            Some(x) => doc.resolve(x)?,
            None => Object::Null,
        };
        let mut code = 0usize;
        for o in diffs.as_array().unwrap_or(&[]) {
            match o {
                Object::Int(i) => code = (*i).clamp(0, 256) as usize,
                Object::Name(n) => {
                    if let Some(slot) = table.get_mut(code) {
                        *slot = glyph_char(n);
                    }
                    code += 1;
                }
                _ => {}
            }
        }
    }
    Ok(table)
}

/// The character a glyph name stands for: `uniXXXX`, `uXXXX[XX]`, single letters, and the names
/// of ASCII punctuation and digits (enough for tags and for most Latin text).
pub fn glyph_char(name: &[u8]) -> Option<char> {
    let name = std::str::from_utf8(name).ok()?;
    let name = name.split('.').next().unwrap_or(name);
    if name.len() == 1 {
        return name.chars().next();
    }
    for prefix in ["uni", "u"] {
        if let Some(hex) = name.strip_prefix(prefix)
            && (4..=6).contains(&hex.len())
            && let Some(c) = u32::from_str_radix(
                &hex[..hex.len().min(if prefix == "uni" { 4 } else { 6 })],
                16,
            )
            .ok()
            .and_then(char::from_u32)
        {
            return Some(c);
        }
    }
    const NAMES: &[(&str, char)] = &[
        ("space", ' '),
        ("exclam", '!'),
        ("quotedbl", '"'),
        ("numbersign", '#'),
        ("dollar", '$'),
        ("percent", '%'),
        ("ampersand", '&'),
        ("quotesingle", '\''),
        ("parenleft", '('),
        ("parenright", ')'),
        ("asterisk", '*'),
        ("plus", '+'),
        ("comma", ','),
        ("hyphen", '-'),
        ("period", '.'),
        ("slash", '/'),
        ("zero", '0'),
        ("one", '1'),
        ("two", '2'),
        ("three", '3'),
        ("four", '4'),
        ("five", '5'),
        ("six", '6'),
        ("seven", '7'),
        ("eight", '8'),
        ("nine", '9'),
        ("colon", ':'),
        ("semicolon", ';'),
        ("less", '<'),
        ("equal", '='),
        ("greater", '>'),
        ("question", '?'),
        ("at", '@'),
        ("bracketleft", '['),
        ("backslash", '\\'),
        ("bracketright", ']'),
        ("asciicircum", '^'),
        ("underscore", '_'),
        ("grave", '`'),
        ("braceleft", '{'),
        ("bar", '|'),
        ("braceright", '}'),
        ("asciitilde", '~'),
        ("quoteright", '\u{2019}'),
        ("quoteleft", '\u{2018}'),
        ("endash", '\u{2013}'),
        ("emdash", '\u{2014}'),
        ("bullet", '\u{2022}'),
        ("fi", '\u{FB01}'),
        ("fl", '\u{FB02}'),
    ];
    NAMES.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_to_unicode_cmaps() {
        let cmap = b"1 beginbfchar <0003> <007B> endbfchar 2 beginbfrange <0010> <0012> <0061> <0020> <0021> [<0041> <00420043>] endbfrange";
        let m = parse_to_unicode(cmap, &mut budget()).expect("within the budget");
        assert_eq!(m.get(&3).map(String::as_str), Some("{"));
        assert_eq!(m.get(&0x12).map(String::as_str), Some("c"));
        assert_eq!(m.get(&0x21).map(String::as_str), Some("BC"));
    }

    #[test]
    fn hostile_ranges_are_bounded() {
        let m = parse_to_unicode(
            b"beginbfrange <00000000> <FFFFFFFF> <0041> endbfrange",
            &mut budget(),
        )
        .expect("within the budget");
        assert!(m.is_empty());
    }

    #[test]
    fn full_range_lines_spend_the_budget() {
        let cmap = "beginbfrange <0000> <FFFF> <0041> endbfrange\n".repeat(100);
        let r = parse_to_unicode(cmap.as_bytes(), &mut budget());
        assert!(matches!(
            r,
            Err(PdfError::TooComplex(super::super::Limit::MapEntries(_)))
        ));
    }

    fn budget() -> Budget {
        Budget::new(&super::super::PdfLimits::default())
    }

    #[test]
    fn glyph_names() {
        assert_eq!(glyph_char(b"braceleft"), Some('{'));
        assert_eq!(glyph_char(b"uni0416"), Some('Ж'));
        assert_eq!(glyph_char(b"a.sc"), Some('a'));
    }
}
