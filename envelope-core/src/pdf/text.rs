//! Text with positions: a content-stream interpreter that tracks the graphics and text state and
//! yields every shown glyph's Unicode text and box in user space, in content order.
//!
//! It only reads: it must never change a stream, and it is bounded (operand stack, `q` nesting,
//! form XObject depth, inline images skipped without interpretation).

use std::collections::HashMap;
use std::rc::Rc;

use super::PdfError;
use super::fontinfo::FontInfo;
use super::lexer::{Lexer, Token};
use super::object::{Dict, ObjRef, Object};
use super::reader::Document;

pub type Matrix = [f64; 6];
pub const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

const MAX_OPERANDS: usize = 64;
const MAX_Q_DEPTH: usize = 64;
const MAX_FORM_DEPTH: usize = 8;

/// One shown glyph.
#[derive(Debug, Clone)]
pub struct Glyph {
    /// Its Unicode text (may be empty, or several characters for a ligature).
    pub text: String,
    /// Box in user space: `[x0, y0, x1, y1]`.
    pub rect: [f64; 4],
    /// Where the glyph's code sits in the page content (top-level content only).
    pub src: Option<GlyphSrc>,
}

/// The place of a glyph's code: show operation, operand item, byte range in that string, and its
/// advance in TJ units (thousandths of the scaled font size).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GlyphSrc {
    pub op: usize,
    pub item: usize,
    pub start: usize,
    pub end: usize,
    pub advance: f64,
}

/// A text-showing operation of the top-level content: its byte span (operands and operator), the
/// operator, and its operands (`"` keeps its two spacing numbers first).
#[derive(Debug, Clone)]
pub struct ShowOp {
    pub start: usize,
    pub end: usize,
    pub op: Vec<u8>,
    pub spacing: Option<(f64, f64)>,
    /// Strings and TJ adjustments, in order.
    pub items: Vec<Object>,
}

/// `m1` then `m2`.
pub fn mul(m1: &Matrix, m2: &Matrix) -> Matrix {
    [
        m1[0] * m2[0] + m1[1] * m2[2],
        m1[0] * m2[1] + m1[1] * m2[3],
        m1[2] * m2[0] + m1[3] * m2[2],
        m1[2] * m2[1] + m1[3] * m2[3],
        m1[4] * m2[0] + m1[5] * m2[2] + m2[4],
        m1[4] * m2[1] + m1[5] * m2[3] + m2[5],
    ]
}

fn apply(m: &Matrix, x: f64, y: f64) -> (f64, f64) {
    (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])
}

#[derive(Debug, Clone)]
struct GState {
    ctm: Matrix,
    font: Option<Rc<FontInfo>>,
    size: f64,
    char_spacing: f64,
    word_spacing: f64,
    scale: f64,
    leading: f64,
    rise: f64,
}

/// Extracts the glyphs of a page.
#[derive(Debug)]
pub struct Extractor<'d, 'a> {
    doc: &'d mut Document<'a>,
    fonts: HashMap<ObjRef, Rc<FontInfo>>,
    pub glyphs: Vec<Glyph>,
    /// The show operations of the top-level content, when recording.
    pub shows: Vec<ShowOp>,
    current: Option<(usize, usize)>,
}

impl<'d, 'a> Extractor<'d, 'a> {
    pub fn new(doc: &'d mut Document<'a>) -> Self {
        Extractor {
            doc,
            fonts: HashMap::new(),
            glyphs: Vec::new(),
            shows: Vec::new(),
            current: None,
        }
    }

    /// The document being read.
    pub fn doc(&mut self) -> &mut Document<'a> {
        self.doc
    }

    /// Interprets `content` with `resources` and appends its glyphs.
    pub fn run(&mut self, content: &[u8], resources: Option<&Object>) -> Result<(), PdfError> {
        let res = self.doc.dict(resources)?.unwrap_or_default();
        let gs = GState {
            ctm: IDENTITY,
            font: None,
            size: 0.0,
            char_spacing: 0.0,
            word_spacing: 0.0,
            scale: 1.0,
            leading: 0.0,
            rise: 0.0,
        };
        self.interpret(content, &res, gs, 0)
    }

    fn font(&mut self, res: &Dict, name: &[u8]) -> Result<Option<Rc<FontInfo>>, PdfError> {
        let Some(fonts) = self.doc.dict(res.get(b"Font"))? else {
            return Ok(None);
        };
        let Some(f) = fonts.get(name).cloned() else {
            return Ok(None);
        };
        if let Some(r) = f.as_ref()
            && let Some(hit) = self.fonts.get(&r)
        {
            return Ok(Some(hit.clone()));
        }
        let Some(d) = self.doc.dict(Some(&f))? else {
            return Ok(None);
        };
        let info = Rc::new(FontInfo::load(self.doc, &d)?);
        if let Some(r) = f.as_ref() {
            self.fonts.insert(r, info.clone());
        }
        Ok(Some(info))
    }

    fn interpret(
        &mut self,
        content: &[u8],
        res: &Dict,
        mut gs: GState,
        depth: usize,
    ) -> Result<(), PdfError> {
        let mut stack: Vec<GState> = Vec::new();
        let mut tm = IDENTITY;
        let mut tlm = IDENTITY;
        let mut ops: Vec<Object> = Vec::new();
        let mut lx = Lexer::new(content, 0);
        let mut ops_start = 0;
        loop {
            let before = lx.pos;
            let Some(t) = lx.next_token() else { break };
            if ops.is_empty() {
                ops_start = before;
            }
            let op = match t {
                Token::Keyword(k) if !matches!(k, b"true" | b"false" | b"null") => k,
                other => {
                    if let Some(o) = lx.object_from(other, 0) {
                        if ops.len() >= MAX_OPERANDS {
                            ops.remove(0);
                        }
                        ops.push(o);
                    }
                    continue;
                }
            };
            let num = |i: usize| ops.get(i).and_then(Object::as_f64).unwrap_or(0.0);
            match op {
                b"q" if stack.len() < MAX_Q_DEPTH => stack.push(gs.clone()),
                b"Q" => {
                    if let Some(s) = stack.pop() {
                        gs = s;
                    }
                }
                b"cm" if ops.len() >= 6 => {
                    gs.ctm = mul(&[num(0), num(1), num(2), num(3), num(4), num(5)], &gs.ctm)
                }
                b"BT" => {
                    tm = IDENTITY;
                    tlm = IDENTITY;
                }
                b"Tf" => {
                    if let Some(name) = ops.first().and_then(Object::as_name) {
                        let name = name.to_vec();
                        gs.font = self.font(res, &name)?;
                    }
                    gs.size = num(1);
                }
                b"Tc" => gs.char_spacing = num(0),
                b"Tw" => gs.word_spacing = num(0),
                b"Tz" => gs.scale = num(0) / 100.0,
                b"TL" => gs.leading = num(0),
                b"Ts" => gs.rise = num(0),
                b"Td" | b"TD" => {
                    if op == b"TD" {
                        gs.leading = -num(1);
                    }
                    tlm = mul(&[1.0, 0.0, 0.0, 1.0, num(0), num(1)], &tlm);
                    tm = tlm;
                }
                b"Tm" if ops.len() >= 6 => {
                    tlm = [num(0), num(1), num(2), num(3), num(4), num(5)];
                    tm = tlm;
                }
                b"T*" => {
                    tlm = mul(&[1.0, 0.0, 0.0, 1.0, 0.0, -gs.leading], &tlm);
                    tm = tlm;
                }
                b"Tj" | b"'" | b"\"" => {
                    if op != b"Tj" {
                        if op == b"\"" {
                            gs.word_spacing = num(0);
                            gs.char_spacing = num(1);
                        }
                        tlm = mul(&[1.0, 0.0, 0.0, 1.0, 0.0, -gs.leading], &tlm);
                        tm = tlm;
                    }
                    if let Some(s) = ops.last().and_then(Object::as_str) {
                        let s = s.to_vec();
                        if depth == 0 {
                            let spacing = (op == b"\"").then(|| (num(0), num(1)));
                            self.record(
                                ops_start,
                                lx.pos,
                                op,
                                spacing,
                                vec![Object::Str(s.clone())],
                            );
                            self.current = Some((self.shows.len() - 1, 0));
                        }
                        self.show(&s, &gs, &mut tm);
                        self.current = None;
                    }
                }
                b"TJ" => {
                    let items = ops
                        .last()
                        .and_then(Object::as_array)
                        .map(<[Object]>::to_vec)
                        .unwrap_or_default();
                    if depth == 0 {
                        self.record(ops_start, lx.pos, op, None, items.clone());
                    }
                    for (i, item) in items.into_iter().enumerate() {
                        if depth == 0 {
                            self.current = Some((self.shows.len() - 1, i));
                        }
                        match item {
                            Object::Str(s) => self.show(&s, &gs, &mut tm),
                            other => {
                                let adj = other.as_f64().unwrap_or(0.0);
                                let tx = -adj / 1000.0 * gs.size * gs.scale;
                                tm = mul(&[1.0, 0.0, 0.0, 1.0, tx, 0.0], &tm);
                            }
                        }
                    }
                    self.current = None;
                }
                b"Do" if depth < MAX_FORM_DEPTH => {
                    if let Some(name) = ops.first().and_then(Object::as_name) {
                        let name = name.to_vec();
                        self.form(res, &name, &gs, depth)?;
                    }
                }
                b"BI" => skip_inline_image(&mut lx),
                _ => {}
            }
            ops.clear();
        }
        Ok(())
    }

    fn form(&mut self, res: &Dict, name: &[u8], gs: &GState, depth: usize) -> Result<(), PdfError> {
        let Some(xobjects) = self.doc.dict(res.get(b"XObject"))? else {
            return Ok(());
        };
        let Some(x) = xobjects.get(name).cloned() else {
            return Ok(());
        };
        let Object::Stream(s) = self.doc.resolve(&x)? else {
            return Ok(());
        };
        if s.dict.name(b"Subtype") != Some(b"Form") {
            return Ok(());
        }
        let data = self.doc.decode(&s).unwrap_or_default();
        let m = s.dict.get(b"Matrix").and_then(Object::as_array).map(|a| {
            let mut m = IDENTITY;
            for (i, v) in a.iter().take(6).enumerate() {
                m[i] = v.as_f64().unwrap_or(m[i]);
            }
            m
        });
        let mut inner = gs.clone();
        inner.ctm = mul(&m.unwrap_or(IDENTITY), &gs.ctm);
        let own = self.doc.dict(s.dict.get(b"Resources"))?;
        let res = own.unwrap_or_else(|| res.clone());
        self.interpret(&data, &res, inner, depth + 1)
    }

    fn record(
        &mut self,
        start: usize,
        end: usize,
        op: &[u8],
        spacing: Option<(f64, f64)>,
        items: Vec<Object>,
    ) {
        self.shows.push(ShowOp {
            start,
            end,
            op: op.to_vec(),
            spacing,
            items,
        });
    }

    fn show(&mut self, s: &[u8], gs: &GState, tm: &mut Matrix) {
        let Some(font) = gs.font.clone() else { return };
        let base = mul(
            &[gs.size * gs.scale, 0.0, 0.0, gs.size, 0.0, gs.rise],
            &mul(tm, &gs.ctm),
        );
        let mut advance = 0.0;
        let mut at = 0;
        for code in font.decode(s) {
            let w = code.width / 1000.0;
            let corners = [
                (advance, font.descent / 1000.0),
                (advance + w, font.ascent / 1000.0),
                (advance, font.ascent / 1000.0),
                (advance + w, font.descent / 1000.0),
            ];
            let mut rect = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
            for (x, y) in corners {
                let (u, v) = apply(&base, x, y);
                rect = [
                    rect[0].min(u),
                    rect[1].min(v),
                    rect[2].max(u),
                    rect[3].max(v),
                ];
            }
            let spacing = gs.char_spacing + if code.is_space { gs.word_spacing } else { 0.0 };
            let tx = (w * gs.size + spacing) * gs.scale;
            // Advance in unscaled text space, measured in units of the scaled font matrix.
            let unit = gs.size * gs.scale;
            let src = self
                .current
                .filter(|_| unit.abs() > 1e-9)
                .map(|(op, item)| GlyphSrc {
                    op,
                    item,
                    start: at,
                    end: at + code.bytes,
                    advance: tx / unit * 1000.0,
                });
            at += code.bytes;
            if rect.iter().all(|v| v.is_finite()) {
                self.glyphs.push(Glyph {
                    text: code.text,
                    rect,
                    src,
                });
            }
            advance += if unit.abs() > 1e-9 { tx / unit } else { w };
        }
        let total = advance * gs.size * gs.scale;
        *tm = mul(&[1.0, 0.0, 0.0, 1.0, total, 0.0], tm);
    }
}

/// Skips an inline image's dictionary and data, leaving the lexer after `EI`.
fn skip_inline_image(lx: &mut Lexer<'_>) {
    let data = lx.data;
    while let Some(t) = lx.next_token() {
        if t == Token::Keyword(b"ID") {
            break;
        }
    }
    let mut i = lx.pos + 1;
    while i + 2 <= data.len() {
        if &data[i..i + 2] == b"EI"
            && i > 0
            && super::lexer::is_white(data[i - 1])
            && data.get(i + 2).is_none_or(|&c| super::lexer::is_white(c))
        {
            lx.pos = i + 2;
            return;
        }
        i += 1;
    }
    lx.pos = data.len();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrices_compose_like_pdf() {
        let t = [1.0, 0.0, 0.0, 1.0, 10.0, 20.0];
        let s = [2.0, 0.0, 0.0, 2.0, 0.0, 0.0];
        // translate then scale: the translation is scaled too
        assert_eq!(mul(&t, &s), [2.0, 0.0, 0.0, 2.0, 20.0, 40.0]);
        assert_eq!(apply(&mul(&t, &s), 1.0, 1.0), (22.0, 42.0));
    }
}
