//! Text with positions: a content-stream interpreter that tracks the graphics and text state and
//! yields every shown glyph's Unicode text and box in user space, in content order.
//!
//! It only reads: it must never change a stream. It is bounded by the document's budget (every
//! operator and operand, every glyph, form nesting) and by its own small stacks (operands, `q`
//! nesting; inline images are skipped without interpretation). A form XObject is interpreted once
//! per text state it is drawn with: its glyphs are kept relative to the caller's matrix and
//! replayed at each later use, and a form that draws itself (directly or through others) is cut.

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

/// A glyph of a form, with its box's corners in the space of the form's caller.
#[derive(Debug, Clone)]
struct FormGlyph {
    text: String,
    corners: [(f64, f64); 4],
}

/// Where the resources of a content stream come from: a form's own, or those of the run (page)
/// that a form without `/Resources` inherits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum ResKey {
    Run(u32),
    Form(ObjRef),
}

/// A font compared by identity (the extractor keeps every font it loaded alive).
#[derive(Debug, Clone)]
struct FontKey(Rc<FontInfo>);

impl PartialEq for FontKey {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}
impl Eq for FontKey {}
impl std::hash::Hash for FontKey {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (Rc::as_ptr(&self.0) as usize).hash(h);
    }
}

/// What a form's glyphs depend on besides the caller's matrix: the form, its resources, and the
/// text state it inherits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct FormKey {
    form: ObjRef,
    res: ResKey,
    font: Option<FontKey>,
    state: [u64; 6],
}

/// What an XObject is, as far as text goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum XKind {
    /// An image, or not a readable form.
    Other,
    /// A form with its own `/Resources`.
    OwnResources,
    /// A form that uses its caller's resources.
    Inherits,
}

/// The resources of one content stream, with the dictionaries the operators look up resolved once.
#[derive(Debug)]
struct Scope {
    res: Dict,
    key: ResKey,
    fonts: Option<Option<Dict>>,
    xobjects: Option<Option<Dict>>,
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
    forms: HashMap<FormKey, Rc<Vec<FormGlyph>>>,
    /// What each XObject drawn so far is, so that a repeated `Do` never parses it again.
    kinds: HashMap<ObjRef, XKind>,
    /// Forms being interpreted, innermost last (a form among them drawing again is cut).
    active: Vec<ObjRef>,
    /// Glyph buffers of the forms being recorded, innermost last; empty at the top level.
    recording: Vec<Vec<FormGlyph>>,
    runs: u32,
}

impl<'d, 'a> Extractor<'d, 'a> {
    pub fn new(doc: &'d mut Document<'a>) -> Self {
        Extractor {
            doc,
            fonts: HashMap::new(),
            glyphs: Vec::new(),
            shows: Vec::new(),
            current: None,
            forms: HashMap::new(),
            kinds: HashMap::new(),
            active: Vec::new(),
            recording: Vec::new(),
            runs: 0,
        }
    }

    /// The document being read.
    pub fn doc(&mut self) -> &mut Document<'a> {
        self.doc
    }

    /// Interprets `content` with `resources` and appends its glyphs.
    pub fn run(&mut self, content: &[u8], resources: Option<&Object>) -> Result<(), PdfError> {
        let res = self.doc.dict(resources)?.unwrap_or_default();
        self.runs += 1;
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
        let mut scope = Scope {
            res,
            key: ResKey::Run(self.runs),
            fonts: None,
            xobjects: None,
        };
        self.interpret(content, &mut scope, gs, 0)
    }

    fn font(&mut self, scope: &mut Scope, name: &[u8]) -> Result<Option<Rc<FontInfo>>, PdfError> {
        if scope.fonts.is_none() {
            scope.fonts = Some(self.doc.dict(scope.res.get(b"Font"))?);
        }
        let Some(f) = scope
            .fonts
            .as_ref()
            .and_then(Option::as_ref)
            .and_then(|d| d.get(name))
            .cloned()
        else {
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
            self.doc.budget.entries(1)?;
            self.fonts.insert(r, info.clone());
        }
        Ok(Some(info))
    }

    fn interpret(
        &mut self,
        content: &[u8],
        scope: &mut Scope,
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
                    if let Some(o) = self.doc.budget.operand(&mut lx, other)? {
                        if ops.len() >= MAX_OPERANDS {
                            ops.remove(0);
                        }
                        ops.push(o);
                    }
                    continue;
                }
            };
            self.doc.budget.content_ops(1)?;
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
                        gs.font = self.font(scope, &name)?;
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
                        self.show(&s, &gs, &mut tm)?;
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
                            Object::Str(s) => self.show(&s, &gs, &mut tm)?,
                            other => {
                                let adj = other.as_f64().unwrap_or(0.0);
                                let tx = -adj / 1000.0 * gs.size * gs.scale;
                                tm = mul(&[1.0, 0.0, 0.0, 1.0, tx, 0.0], &tm);
                            }
                        }
                    }
                    self.current = None;
                }
                b"Do" => {
                    if let Some(name) = ops.first().and_then(Object::as_name) {
                        let name = name.to_vec();
                        self.form(scope, &name, &gs, depth)?;
                    }
                }
                b"BI" => skip_inline_image(&mut lx),
                _ => {}
            }
            ops.clear();
        }
        Ok(())
    }

    /// Draws the form XObject `name`: from the memo when it was interpreted with this text state
    /// before, otherwise by interpreting it once relative to the caller's matrix.
    fn form(
        &mut self,
        scope: &mut Scope,
        name: &[u8],
        gs: &GState,
        depth: usize,
    ) -> Result<(), PdfError> {
        if scope.xobjects.is_none() {
            scope.xobjects = Some(self.doc.dict(scope.res.get(b"XObject"))?);
        }
        let Some(x) = scope
            .xobjects
            .as_ref()
            .and_then(Option::as_ref)
            .and_then(|d| d.get(name))
            .cloned()
        else {
            return Ok(());
        };
        // Streams are always indirect; anything else is not a form.
        let Some(id) = x.as_ref() else { return Ok(()) };
        if self.active.contains(&id) {
            return Ok(()); // a form drawing itself: cut
        }
        let f = |v: f64| v.to_bits();
        let state = [
            f(gs.size),
            f(gs.char_spacing),
            f(gs.word_spacing),
            f(gs.scale),
            f(gs.leading),
            f(gs.rise),
        ];
        let font = gs.font.clone().map(FontKey);
        // A form without resources inherits the caller's: its result depends on them too.
        let res_key = |kind| match kind {
            XKind::OwnResources => ResKey::Form(id),
            _ => scope.key,
        };
        let known = self.kinds.get(&id).copied();
        if known == Some(XKind::Other) {
            return Ok(());
        }
        if let Some(kind) = known {
            let key = FormKey {
                form: id,
                res: res_key(kind),
                font: font.clone(),
                state,
            };
            if let Some(hit) = self.forms.get(&key).cloned() {
                return self.replay(&hit, &gs.ctm);
            }
        }
        let Object::Stream(s) = self.doc.get(id)? else {
            self.remember(id, XKind::Other)?;
            return Ok(());
        };
        if s.dict.name(b"Subtype") != Some(b"Form") {
            self.remember(id, XKind::Other)?;
            return Ok(());
        }
        self.doc.budget.depth(depth + 1)?;
        let own = self.doc.dict(s.dict.get(b"Resources"))?;
        let kind = if own.is_some() {
            XKind::OwnResources
        } else {
            XKind::Inherits
        };
        self.remember(id, kind)?;
        let key = FormKey {
            form: id,
            res: res_key(kind),
            font,
            state,
        };
        let data = match self.doc.decode(&s) {
            Err(e @ PdfError::TooComplex(_)) => return Err(e),
            r => r.unwrap_or_default(),
        };
        let m = s.dict.get(b"Matrix").and_then(Object::as_array).map(|a| {
            let mut m = IDENTITY;
            for (i, v) in a.iter().take(6).enumerate() {
                m[i] = v.as_f64().unwrap_or(m[i]);
            }
            m
        });
        let mut inner = gs.clone();
        inner.ctm = m.unwrap_or(IDENTITY);
        let mut inner_scope = match own {
            Some(res) => Scope {
                res,
                key: key.res,
                fonts: None,
                xobjects: None,
            },
            None => Scope {
                res: scope.res.clone(),
                key: scope.key,
                fonts: scope.fonts.clone(),
                xobjects: scope.xobjects.clone(),
            },
        };
        self.active.push(id);
        self.recording.push(Vec::new());
        let r = self.interpret(&data, &mut inner_scope, inner, depth + 1);
        self.active.pop();
        let recorded = Rc::new(self.recording.pop().unwrap_or_default());
        r?;
        self.doc.budget.entries(1)?;
        self.forms.insert(key, recorded.clone());
        self.replay(&recorded, &gs.ctm)
    }

    fn remember(&mut self, id: ObjRef, kind: XKind) -> Result<(), PdfError> {
        if self.kinds.insert(id, kind).is_none() {
            self.doc.budget.entries(1)?;
        }
        Ok(())
    }

    /// Emits a form's glyphs under the caller's matrix. Each use costs its glyphs.
    fn replay(&mut self, glyphs: &[FormGlyph], ctm: &Matrix) -> Result<(), PdfError> {
        self.doc.budget.glyphs(glyphs.len() as u64)?;
        for g in glyphs {
            let corners = g.corners.map(|(x, y)| apply(ctm, x, y));
            self.emit(g.text.clone(), corners, None);
        }
        Ok(())
    }

    /// Adds one glyph: to the innermost form being recorded, or to the page's glyphs.
    fn emit(&mut self, text: String, corners: [(f64, f64); 4], src: Option<GlyphSrc>) {
        if let Some(buf) = self.recording.last_mut() {
            buf.push(FormGlyph { text, corners });
            return;
        }
        let mut rect = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
        for (u, v) in corners {
            rect = [
                rect[0].min(u),
                rect[1].min(v),
                rect[2].max(u),
                rect[3].max(v),
            ];
        }
        if rect.iter().all(|v| v.is_finite()) {
            self.glyphs.push(Glyph { text, rect, src });
        }
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

    fn show(&mut self, s: &[u8], gs: &GState, tm: &mut Matrix) -> Result<(), PdfError> {
        let Some(font) = gs.font.clone() else {
            return Ok(());
        };
        let base = mul(
            &[gs.size * gs.scale, 0.0, 0.0, gs.size, 0.0, gs.rise],
            &mul(tm, &gs.ctm),
        );
        let mut advance = 0.0;
        let mut at = 0;
        let codes = font.decode(s);
        self.doc.budget.glyphs(codes.len() as u64)?;
        for code in codes {
            let w = code.width / 1000.0;
            let corners = [
                (advance, font.descent / 1000.0),
                (advance + w, font.ascent / 1000.0),
                (advance, font.ascent / 1000.0),
                (advance + w, font.descent / 1000.0),
            ]
            .map(|(x, y)| apply(&base, x, y));
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
            self.emit(code.text, corners, src);
            advance += if unit.abs() > 1e-9 { tx / unit } else { w };
        }
        let total = advance * gs.size * gs.scale;
        *tm = mul(&[1.0, 0.0, 0.0, 1.0, total, 0.0], tm);
        Ok(())
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
