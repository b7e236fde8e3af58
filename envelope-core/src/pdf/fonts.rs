//! Fonts for the text the stamper draws: standard-14 fonts (WinAnsi) when every character of a
//! regular or bold text fits, otherwise the faces of [`shape`](super::shape) (DejaVu Sans, Noto
//! Sans for Arabic, Hebrew, Devanagari and Thai, Noto Sans CJK when installed), each embedded
//! as a Type0 font (Identity-H), subset to the glyphs used by the `subsetter` crate. Typed
//! signatures and initials are drawn in Kristi ([`SIGNATURE_FONT`]) when it has every
//! character; otherwise in the regular faces (slanted where they are DejaVu's).
//!
//! Codes are the subset's glyph ids (the subsetter makes them the CIDs of both TrueType and CFF
//! programs). What a glyph stands for reaches text extraction in one of two ways: a cluster of
//! one glyph whose text is the one that glyph already stands for goes in the `/ToUnicode` map;
//! any other cluster (a reordered Devanagari vowel sign, several glyphs, or a glyph met before
//! with another text) is wrapped in a marked-content span with `/ActualText`. This module must
//! never emit a code outside such a span that the `/ToUnicode` map does not explain.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use subsetter::GlyphRemapper;

use super::PdfError;
use super::filter::deflate;
use super::metrics;
use super::object::{Dict, ObjRef, Object, Stream, fmt_num};
pub use super::shape::Style;
use super::shape::{self, FaceId, GlyphTexts, Line, library};
use super::writer::Update;

pub use super::shape::SIGNATURE_FONT;

/// Why a character cannot go into a stamped value. The stamper draws one line; this names what
/// that cannot show faithfully.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undrawable {
    /// A control character or a line or paragraph separator: values are one line.
    Control(char),
    /// A character that draws nothing but changes how text around it reads (direction
    /// overrides, zero-width spaces...): what is shown would not be what is stored. The
    /// joiners ZWJ and ZWNJ and the variation selectors, which shaping uses, are allowed.
    Invisible(char),
    /// No face has it (see docs/FONTS.md): it would be drawn as an empty box.
    NoGlyph(char),
}

impl std::fmt::Display for Undrawable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (what, c) = match *self {
            Undrawable::Control(c) => ("a control character or line break", c),
            Undrawable::Invisible(c) => ("an invisible formatting character", c),
            Undrawable::NoGlyph(c) => ("a character the document's fonts cannot draw", c),
        };
        write!(f, "contains {what} (U+{:04X})", u32::from(c))
    }
}

impl std::error::Error for Undrawable {}

/// Whether the stamper can draw `c` faithfully (see [`Undrawable`]).
pub fn check_char(c: char) -> Result<(), Undrawable> {
    let u = u32::from(c);
    if c.is_control() || matches!(u, 0x2028 | 0x2029) {
        return Err(Undrawable::Control(c));
    }
    if matches!(u,
        0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F
        | 0x200B | 0x200E | 0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164
        | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFFB | 0xE0000..=0xE0FFF)
    {
        return Err(Undrawable::Invisible(c));
    }
    // Private-use code points mean whatever a font says; ours would draw someone else's icon.
    let private = matches!(u, 0xE000..=0xF8FF | 0xF0000..=0x10FFFF);
    let drawable = metrics::winansi_byte(c).is_some() || library().covers(c);
    if private || !drawable {
        return Err(Undrawable::NoGlyph(c));
    }
    Ok(())
}

/// The first character of `text` the stamper cannot draw faithfully, if any.
pub fn check_drawable(text: &str) -> Result<(), Undrawable> {
    text.chars().try_for_each(check_char)
}

/// `text` cut to what can be recorded and drawn: whitespace of any kind becomes a space, other
/// characters [`check_char`] refuses are dropped, and at most `max_chars` are kept. For values
/// that are recorded rather than refused (a user agent, a decline reason).
pub fn keep_drawable(text: &str, max_chars: usize) -> String {
    text.chars()
        .filter_map(|c| match check_char(c) {
            Ok(()) => Some(c),
            Err(_) if c.is_whitespace() => Some(' '),
            Err(_) => None,
        })
        .take(max_chars)
        .collect()
}

/// Where `text` puts ink at 1 pt when set in `face` (slant included), as [`Fonts::shape`]
/// draws it with the embedded faces.
pub fn shaped_ink(text: &str, face: Style) -> Ink {
    ink_of(&shape::set(text, face))
}

/// The ink of a set line, slant included.
fn ink_of(line: &Line) -> Ink {
    let mut ink = line_ink(line);
    if line.slant {
        // The text matrix shears x by SLANT * y.
        ink.left += SLANT * ink.bottom.min(0.0);
        ink.right += SLANT * ink.top.max(0.0);
    }
    ink
}

/// Standard-14 font resource names and base fonts.
fn standard(face: Style) -> (&'static str, &'static [u8]) {
    match face {
        Style::Regular => ("EnvH", b"Helvetica"),
        Style::Bold => ("EnvHB", b"Helvetica-Bold"),
        Style::Script => ("EnvTI", b"Times-Italic"),
    }
}

/// Ascender and descender (1/1000 em) of the standard font (Adobe AFM data).
fn standard_extent(face: Style) -> (f64, f64) {
    match face {
        Style::Regular | Style::Bold => (718.0, -207.0),
        Style::Script => (683.0, -217.0),
    }
}

/// Where drawn text puts ink at 1 pt, relative to its start on the baseline (y up): the glyph
/// outlines' bounding box for embedded fonts, advance width and ascender/descender for the
/// standard ones.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ink {
    pub left: f64,
    pub right: f64,
    pub bottom: f64,
    pub top: f64,
}

impl Ink {
    pub fn width(&self) -> f64 {
        self.right - self.left
    }

    pub fn height(&self) -> f64 {
        self.top - self.bottom
    }
}

/// The ink of a set line at 1 pt (its advance and the faces' extent when it draws nothing).
fn line_ink(line: &Line) -> Ink {
    let k = 1.0 / 1000.0;
    match line.ink() {
        Some([x0, y0, x1, y1]) => Ink {
            left: x0 * k,
            right: x1 * k,
            bottom: y0 * k,
            top: y1 * k,
        },
        None => {
            let (ascent, descent) = line.extent();
            Ink {
                left: 0.0,
                right: line.width * k,
                bottom: descent * k,
                top: ascent * k,
            }
        }
    }
}

/// One step of drawing a set line (see [`Shaped::show`]).
#[derive(Debug, Clone, PartialEq)]
enum Step {
    /// Switch to the font with this resource name.
    Font(String),
    /// A glyph by code, its origin `x`, `y` (1/1000 em) and its `/W` width.
    Glyph {
        code: u16,
        x: f64,
        y: f64,
        w: f64,
    },
    /// Begin a span whose extracted text is this (`/ActualText`).
    Begin(String),
    End,
}

/// Text ready for a content stream.
#[derive(Debug)]
pub struct Shaped {
    /// Width at 1 pt.
    pub width: f64,
    /// Draw slanted (an upright face standing for an italic).
    pub slant: bool,
    /// Where the text puts ink at 1 pt (slant included).
    pub ink: Ink,
    body: Body,
}

#[derive(Debug)]
enum Body {
    /// A standard font and its WinAnsi bytes.
    Standard(&'static str, Vec<u8>),
    Set(Vec<Step>),
}

impl Shaped {
    /// The resource names of the fonts drawn with, in order of first use.
    #[cfg(test)]
    pub fn fonts(&self) -> Vec<String> {
        match &self.body {
            Body::Standard(name, _) => vec![name.to_string()],
            Body::Set(steps) => steps
                .iter()
                .filter_map(|s| match s {
                    Step::Font(name) => Some(name.clone()),
                    _ => None,
                })
                .fold(Vec::new(), |mut v, n| {
                    if !v.contains(&n) {
                        v.push(n);
                    }
                    v
                }),
        }
    }

    /// The operators that show the text at `size` points, from the current text position, for
    /// use between `BT` and `ET` (they set the font; they leave the text rise at 0).
    pub fn show(&self, size: f64) -> String {
        let size_s = fmt_num(size);
        let steps = match &self.body {
            Body::Standard(font, bytes) => return format!("/{font} {size_s} Tf {} Tj", hex(bytes)),
            Body::Set(steps) => steps,
        };
        let mut out = String::new();
        let mut tj = String::new();
        let (mut pen, mut rise) = (0.0, 0.0);
        let flush = |out: &mut String, tj: &mut String| {
            if !tj.is_empty() {
                let _ = write!(out, "[{tj}] TJ ");
                tj.clear();
            }
        };
        for step in steps {
            match step {
                Step::Font(name) => {
                    flush(&mut out, &mut tj);
                    let _ = write!(out, "/{name} {size_s} Tf ");
                }
                Step::Glyph { code, x, y, w } => {
                    if (y - rise).abs() > 0.001 {
                        flush(&mut out, &mut tj);
                        let _ = write!(out, "{} Ts ", fmt_num(y / 1000.0 * size));
                        rise = *y;
                    }
                    let adjust = pen - x;
                    if adjust.abs() > 0.001 {
                        let _ = write!(tj, "{} ", fmt_num(adjust));
                    }
                    let _ = write!(tj, "<{code:04X}>");
                    pen = x + w;
                }
                Step::Begin(text) => {
                    flush(&mut out, &mut tj);
                    let _ = write!(out, "/Span <</ActualText {}>> BDC ", utf16_hex(text));
                }
                Step::End => {
                    flush(&mut out, &mut tj);
                    out.push_str("EMC ");
                }
            }
        }
        flush(&mut out, &mut tj);
        if rise != 0.0 {
            out.push_str("0 Ts ");
        }
        out.trim_end().to_string()
    }
}

/// A text string operand in UTF-16BE with its byte order mark, as hex.
fn utf16_hex(text: &str) -> String {
    let mut s = String::from("<FEFF");
    for u in text.encode_utf16() {
        let _ = write!(s, "{u:04X}");
    }
    s.push('>');
    s
}

/// What one embedded face has drawn: the glyphs kept (old id -> code) and their widths.
#[derive(Debug, Default)]
struct Used {
    remapper: GlyphRemapper,
    /// Code -> `/W` width.
    widths: BTreeMap<u16, f64>,
}

/// The fonts used by one update.
#[derive(Debug, Default)]
pub struct Fonts {
    standard: BTreeSet<Style>,
    used: BTreeMap<FaceId, Used>,
    texts: GlyphTexts,
}

/// The resource name of DejaVu Sans.
#[cfg(test)]
pub const UNICODE_FONT: &str = "EnvU";
/// The resource name of Kristi.
#[cfg(test)]
pub const SCRIPT_FONT: &str = "EnvK";

/// The slant of text drawn in an upright font to stand for an italic.
pub const SLANT: f64 = 0.2;

/// The WinAnsi bytes of `text` when a standard font can draw it in `face`.
fn standard_bytes(text: &str, face: Style) -> Option<Vec<u8>> {
    if face == Style::Script {
        return None;
    }
    text.chars().map(metrics::winansi_byte).collect()
}

impl Fonts {
    /// The width of `text` in `face` at 1 pt, as [`Self::shape`] would draw it, without
    /// recording anything for the update.
    pub fn measure(text: &str, face: Style) -> f64 {
        match standard_bytes(text, face) {
            Some(bytes) => standard_width(face, &bytes),
            None => shape::set(text, face).width / 1000.0,
        }
    }

    /// Sets `text` in `face`, choosing the fonts, and records the glyphs for embedding.
    pub fn shape(&mut self, text: &str, face: Style) -> Shaped {
        if let Some(bytes) = standard_bytes(text, face) {
            self.standard.insert(face);
            let (name, _) = standard(face);
            let width = standard_width(face, &bytes);
            let (ascent, descent) = standard_extent(face);
            return Shaped {
                width,
                slant: false,
                ink: Ink {
                    left: 0.0,
                    right: width,
                    bottom: descent / 1000.0,
                    top: ascent / 1000.0,
                },
                body: Body::Standard(name, bytes),
            };
        }
        let line = shape::set(text, face);
        let ink = ink_of(&line);
        let steps = self.encode(&line);
        Shaped {
            width: line.width / 1000.0,
            slant: line.slant,
            ink,
            body: Body::Set(steps),
        }
    }

    /// The steps that draw `line`, recording its glyphs and their texts.
    fn encode(&mut self, line: &Line) -> Vec<Step> {
        let lib = library();
        let mut steps = Vec::new();
        let mut font: Option<FaceId> = None;
        for cluster in &line.clusters {
            let glyphs = &line.glyphs[cluster.glyphs.clone()];
            let mut codes = Vec::with_capacity(glyphs.len());
            for g in glyphs {
                let face = lib.face(g.face);
                let used = self.used.entry(g.face).or_default();
                let code = used.remapper.remap(g.gid);
                used.widths
                    .entry(code)
                    .or_insert_with(|| (face.advance(g.gid) * 100.0).round() / 100.0);
                codes.push((g.face, code));
            }
            let plain = self.texts.record(cluster, &codes);
            if !plain {
                steps.push(Step::Begin(cluster.extracted()));
            }
            for (g, (_, code)) in glyphs.iter().zip(codes) {
                if font != Some(g.face) {
                    steps.push(Step::Font(lib.face(g.face).resource.clone()));
                    font = Some(g.face);
                }
                let w = self.used[&g.face].widths[&code];
                steps.push(Step::Glyph {
                    code,
                    x: g.x,
                    y: g.y,
                    w,
                });
            }
            if !plain {
                steps.push(Step::End);
            }
        }
        steps
    }

    /// Writes the font objects into `up`; returns the `/Font` entries to add to resources.
    pub fn finish(&self, up: &mut Update) -> Result<Vec<(Vec<u8>, Object)>, PdfError> {
        let mut entries = Vec::new();
        for face in &self.standard {
            let (name, base) = standard(*face);
            let d = Dict::new()
                .with(b"Type", Object::name(b"Font"))
                .with(b"Subtype", Object::name(b"Type1"))
                .with(b"BaseFont", Object::name(base))
                .with(b"Encoding", Object::name(b"WinAnsiEncoding"));
            entries.push((name.as_bytes().to_vec(), Object::Ref(up.add(d.into()))));
        }
        let lib = library();
        for (&id, used) in &self.used {
            let face = lib.face(id);
            let font = embed(face, used, self.texts.of(id), up)?;
            entries.push((face.resource.as_bytes().to_vec(), Object::Ref(font)));
        }
        Ok(entries)
    }
}

fn standard_width(face: Style, bytes: &[u8]) -> f64 {
    let (_, base) = standard(face);
    bytes
        .iter()
        .map(|&b| metrics::standard_width(base, b))
        .sum::<f64>()
        / 1000.0
}

/// A deterministic six-letter subset tag (ISO 32000-1, 9.6.4) from the glyphs kept.
pub(crate) fn subset_tag(name: &str, glyphs: impl Iterator<Item = u16>) -> String {
    let h = glyphs.fold(
        name.bytes()
            .fold(0u32, |a, b| a.wrapping_mul(31).wrapping_add(u32::from(b))),
        |a, g| a.wrapping_mul(31).wrapping_add(u32::from(g)),
    );
    (0..6)
        .map(|i| char::from(b'A' + ((h >> (i * 5)) % 26) as u8))
        .collect()
}

/// Writes `face`, subset to the glyphs of `used`, as a Type0 font named `<tag>+<name>`.
fn embed<'t>(
    face: &shape::FontFace,
    used: &Used,
    texts: impl Iterator<Item = (u16, &'t str)>,
    up: &mut Update,
) -> Result<ObjRef, PdfError> {
    let file = subsetter::subset(face.data, face.index, &used.remapper)
        .map_err(|e| PdfError::Invalid(format!("font {}: cannot subset: {e}", face.name)))?;
    let base = format!(
        "{}+{}",
        subset_tag(&face.name, used.remapper.remapped_gids()),
        face.name
    );
    let file_len = file.len() as i64;
    let mut file_dict = Dict::new().with(b"Filter", Object::name(b"FlateDecode"));
    file_dict = if face.cff {
        file_dict.with(b"Subtype", Object::name(b"OpenType"))
    } else {
        file_dict.with(b"Length1", file_len)
    };
    let font_file = up.add(Object::Stream(Stream {
        dict: file_dict,
        data: deflate(&file),
    }));
    let descriptor = Dict::new()
        .with(b"Type", Object::name(b"FontDescriptor"))
        .with(b"FontName", Object::name(base.as_bytes()))
        .with(b"Flags", face.flags)
        .with(
            b"FontBBox",
            Object::Array(face.bbox.iter().map(|v| Object::Real(v.round())).collect()),
        )
        .with(b"ItalicAngle", 0i64)
        .with(b"Ascent", Object::Real(face.ascent.round()))
        .with(b"Descent", Object::Real(face.descent.round()))
        .with(b"CapHeight", Object::Real(face.ascent.round()))
        .with(b"StemV", 80i64)
        .with(
            if face.cff {
                &b"FontFile3"[..]
            } else {
                &b"FontFile2"[..]
            },
            Object::Ref(font_file),
        );
    let descriptor = up.add(descriptor.into());
    // `/W` as runs of consecutive codes: `first [w1 w2 ...]`.
    let mut w = Vec::new();
    let mut run: Option<(u16, Vec<Object>)> = None;
    for (&code, &width) in &used.widths {
        match &mut run {
            Some((first, ws)) if usize::from(*first) + ws.len() == usize::from(code) => {
                ws.push(Object::Real(width));
            }
            _ => {
                if let Some((first, ws)) = run.take() {
                    w.push(Object::Int(i64::from(first)));
                    w.push(Object::Array(ws));
                }
                run = Some((code, vec![Object::Real(width)]));
            }
        }
    }
    if let Some((first, ws)) = run {
        w.push(Object::Int(i64::from(first)));
        w.push(Object::Array(ws));
    }
    let mut cid_font = Dict::new()
        .with(b"Type", Object::name(b"Font"))
        .with(
            b"Subtype",
            Object::name(if face.cff {
                b"CIDFontType0"
            } else {
                b"CIDFontType2"
            }),
        )
        .with(b"BaseFont", Object::name(base.as_bytes()))
        .with(
            b"CIDSystemInfo",
            Dict::new()
                .with(b"Registry", Object::Str(b"Adobe".to_vec()))
                .with(b"Ordering", Object::Str(b"Identity".to_vec()))
                .with(b"Supplement", 0i64),
        )
        .with(b"FontDescriptor", descriptor)
        .with(b"DW", 1000i64)
        .with(b"W", Object::Array(w));
    if !face.cff {
        cid_font = cid_font.with(b"CIDToGIDMap", Object::name(b"Identity"));
    }
    let cid_font = up.add(cid_font.into());
    let to_unicode = up.add(Object::Stream(Stream {
        dict: Dict::new(),
        data: to_unicode(texts).into_bytes(),
    }));
    let font = Dict::new()
        .with(b"Type", Object::name(b"Font"))
        .with(b"Subtype", Object::name(b"Type0"))
        .with(b"BaseFont", Object::name(base.as_bytes()))
        .with(b"Encoding", Object::name(b"Identity-H"))
        .with(
            b"DescendantFonts",
            Object::Array(vec![Object::Ref(cid_font)]),
        )
        .with(b"ToUnicode", to_unicode);
    Ok(up.add(font.into()))
}

/// The `/ToUnicode` CMap of the codes in `text`.
pub(crate) fn to_unicode<'t>(texts: impl Iterator<Item = (u16, &'t str)>) -> String {
    let mut s = String::from(
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n/CIDSystemInfo <</Registry (Adobe) /Ordering (UCS) /Supplement 0>> def\n/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n",
    );
    let entries: Vec<(u16, &str)> = texts.filter(|(_, t)| !t.is_empty()).collect();
    for chunk in entries.chunks(100) {
        let _ = writeln!(s, "{} beginbfchar", chunk.len());
        for (code, t) in chunk {
            let units: String = t.encode_utf16().map(|u| format!("{u:04X}")).collect();
            let _ = writeln!(s, "<{code:04X}> <{units}>");
        }
        s.push_str("endbfchar\n");
    }
    s.push_str("endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n");
    s
}

fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2 + 2);
    s.push('<');
    for x in b {
        let _ = write!(s, "{x:02X}");
    }
    s.push('>');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_can_be_drawn() {
        for ok in [
            "Zoë Ångström – €5",
            "Łukasz Żółć",
            "Ἀθηνᾶ",
            "Пётр",
            "e\u{301}",
            "™",
            "שלום",
            "سلام",
            "میر\u{200C}حسین",
            "देवनागरी",
            "สมชาย",
        ] {
            assert_eq!(check_drawable(ok), Ok(()), "{ok}");
        }
        let refused = [
            ("a\nb", Undrawable::Control('\n')),
            ("tab\t", Undrawable::Control('\t')),
            ("\u{85}", Undrawable::Control('\u{85}')),
            ("line\u{2028}", Undrawable::Control('\u{2028}')),
            ("abc\u{202E}fed", Undrawable::Invisible('\u{202E}')),
            ("zero\u{200B}width", Undrawable::Invisible('\u{200B}')),
            ("a\u{200F}b", Undrawable::Invisible('\u{200F}')),
            ("\u{10FFFD}", Undrawable::NoGlyph('\u{10FFFD}')),
            ("\u{1F680}", Undrawable::NoGlyph('\u{1F680}')),
            ("\u{E000}", Undrawable::NoGlyph('\u{E000}')),
            ("\u{FFFF}", Undrawable::NoGlyph('\u{FFFF}')),
        ];
        for (text, want) in refused {
            assert_eq!(check_drawable(text), Err(want), "{text:?}");
        }
        assert_eq!(
            Undrawable::NoGlyph('\u{1F680}').to_string(),
            "contains a character the document's fonts cannot draw (U+1F680)"
        );
    }

    #[test]
    fn recorded_text_keeps_only_what_draws() {
        assert_eq!(
            keep_drawable("Mozilla/5.0\r\n\u{202E}(X11)\u{0}\u{1F680} ok", 100),
            "Mozilla/5.0  (X11) ok"
        );
        assert_eq!(keep_drawable("abcdef", 3), "abc");
        let all: String = (0..0x3000u32).filter_map(char::from_u32).collect();
        assert_eq!(check_drawable(&keep_drawable(&all, usize::MAX)), Ok(()));
    }

    #[test]
    fn picks_standard_fonts_for_winansi_and_embedded_faces_otherwise() {
        let mut f = Fonts::default();
        let s = f.shape("Zoë Ångström – €5", Style::Regular);
        assert_eq!(s.fonts(), ["EnvH"]);
        let u = f.shape("Łukasz Żółć", Style::Script);
        assert_eq!((u.fonts(), u.slant), (vec![UNICODE_FONT.to_string()], true));
        let first = u.show(10.0);
        let again = f.shape("Łuk", Style::Regular).show(10.0);
        assert!(
            first.starts_with(again.trim_end_matches(" TJ").trim_end_matches(']')),
            "codes are reused per glyph: {first} / {again}"
        );
        let mixed = f.shape("Signed by: علي", Style::Regular);
        assert_eq!(mixed.fonts(), [UNICODE_FONT, "EnvAr"]);
        let texts = f.texts.of(library().dejavu(false).unwrap());
        assert!(texts.into_iter().any(|(_, t)| t == "Ł"));
    }

    #[test]
    fn clusters_the_map_cannot_explain_get_actual_text() {
        let mut f = Fonts::default();
        // A reordered vowel sign: two glyphs, one cluster.
        let s = f.shape("कि", Style::Regular).show(12.0);
        assert!(
            s.contains("/Span <</ActualText <FEFF0915093F>>> BDC"),
            "{s}"
        );
        assert!(s.ends_with("EMC"), "{s}");
        // A plain Latin word needs none.
        assert!(!f.shape("Łukasz", Style::Regular).show(12.0).contains("BDC"));
    }
}
