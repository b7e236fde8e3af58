//! Fonts for the text the stamper draws: standard-14 fonts (WinAnsi) when every character fits,
//! otherwise DejaVu Sans embedded as a Type0/CIDFontType2 font (Identity-H, subset to the used
//! glyphs, with a `/ToUnicode` map so copied and extracted text stays right). Typed signatures
//! and initials are drawn in Kristi ([`SIGNATURE_FONT`]), embedded the same way, when it has
//! every character of the value; otherwise the whole value falls back to the faces above
//! (Times-Italic, or DejaVu Sans slanted), so no character is ever dropped.
//!
//! CIDs are handed out per character in order of first use; a character DejaVu lacks still gets
//! its own CID (drawn as `.notdef`) so text extraction keeps it. This module must never emit a
//! code that the `/ToUnicode` map does not explain.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::OnceLock;

use super::filter::deflate;
use super::metrics;
use super::object::{Dict, ObjRef, Object, Stream};
use super::truetype::TrueType;
use super::writer::Update;

/// The vendored font (DejaVu Sans, see assets/fonts/LICENSE-DejaVu.txt).
pub static DEJAVU: &[u8] = &DEJAVU_TTF;

/// The one copy of DejaVu Sans's bytes, a static array for the reason given at `KRISTI`.
static DEJAVU_TTF: [u8; 759_720] = *include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// The signature face: **Kristi**, a handwriting TrueType font by Birgit Pulk (SIL Open Font
/// License 1.1, `assets/fonts/LICENSE-Kristi.txt`; from Debian's `fonts-kristi`). Typed
/// signatures and initials are stamped in it; these are the font file's bytes, for a server
/// that shows typed names in the same face (CSS `font-family: "Kristi"`, `format("truetype")`).
pub const SIGNATURE_FONT: &[u8] = &KRISTI;

/// The one copy of Kristi's bytes. A static array (its length checked by the compiler against
/// the file): the bytes behind an `include_bytes!` reference are an anonymous constant, which
/// every codegen unit that uses it may copy into the binary; a static is one symbol.
static KRISTI: [u8; 47_476] = *include_bytes!("../../assets/fonts/Kristi.ttf");

fn dejavu() -> Option<&'static TrueType> {
    static FONT: OnceLock<Option<TrueType>> = OnceLock::new();
    FONT.get_or_init(|| TrueType::parse(DEJAVU)).as_ref()
}

fn kristi() -> Option<&'static TrueType> {
    static FONT: OnceLock<Option<TrueType>> = OnceLock::new();
    FONT.get_or_init(|| TrueType::parse(SIGNATURE_FONT))
        .as_ref()
}

/// Whether Kristi can draw every character of `text`. The fallback rule for typed values: a
/// value Kristi cannot draw whole (it has Latin-1, not Latin Extended-A: no `ł`, `ő`, `č`) is
/// drawn whole in the fallback face rather than mixing two faces in one name.
pub fn script_covers(text: &str) -> bool {
    kristi().is_some_and(|tt| text.chars().all(|c| tt.glyph(c) != 0))
}

/// Why a character cannot go into a stamped value. The stamper draws one line, left to right,
/// one glyph per character, without shaping; this names what that cannot show faithfully.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undrawable {
    /// A control character or a line or paragraph separator: values are one line.
    Control(char),
    /// A character that draws nothing but changes how text around it reads (direction
    /// overrides, zero-width joiners, variation selectors...): what is shown would not be what
    /// is stored.
    Invisible(char),
    /// Right-to-left scripts would come out in reverse order and unjoined.
    RightToLeft(char),
    /// Neither WinAnsi nor DejaVu Sans has it: it would be drawn as an empty box.
    NoGlyph(char),
}

impl std::fmt::Display for Undrawable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (what, c) = match *self {
            Undrawable::Control(c) => ("a control character or line break", c),
            Undrawable::Invisible(c) => ("an invisible formatting character", c),
            Undrawable::RightToLeft(c) => ("right-to-left text, which cannot be laid out yet", c),
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
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
        | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFFB | 0xE0000..=0xE0FFF)
    {
        return Err(Undrawable::Invisible(c));
    }
    if matches!(u,
        0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFE | 0x10800..=0x10FFF
        | 0x1E800..=0x1EFFF)
    {
        return Err(Undrawable::RightToLeft(c));
    }
    // Private-use code points mean whatever a font says; ours would draw someone else's icon.
    let private = matches!(u, 0xE000..=0xF8FF | 0xF0000..=0x10FFFF);
    let drawable = metrics::winansi_byte(c).is_some() || dejavu().is_some_and(|f| f.glyph(c) != 0);
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

/// Where `text` puts ink in Kristi at 1 pt, `None` when Kristi lacks one of its characters
/// (see [`script_covers`]).
pub fn script_ink(text: &str) -> Option<Ink> {
    let tt = kristi().filter(|_| script_covers(text))?;
    Some(measure_tt(tt, text).1)
}

/// The look of a piece of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Face {
    Regular,
    Bold,
    /// Typed signatures and initials: Kristi, or an italic when Kristi lacks a character.
    Script,
}

impl Face {
    fn standard(self) -> (&'static str, &'static [u8]) {
        match self {
            Face::Regular => ("EnvH", b"Helvetica"),
            Face::Bold => ("EnvHB", b"Helvetica-Bold"),
            Face::Script => ("EnvTI", b"Times-Italic"),
        }
    }

    /// Ascender and descender (1/1000 em) of the standard font (Adobe AFM data).
    fn standard_extent(self) -> (f64, f64) {
        match self {
            Face::Regular | Face::Bold => (718.0, -207.0),
            Face::Script => (683.0, -217.0),
        }
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

/// Text ready for a content stream.
#[derive(Debug)]
pub struct Shaped {
    /// The resource name of the font.
    pub font: &'static str,
    /// A hex string operand.
    pub operand: String,
    /// Width at 1 pt.
    pub width: f64,
    /// Draw slanted (the embedded font has no italic).
    pub slant: bool,
    /// Where the text puts ink at 1 pt (slant included).
    pub ink: Ink,
}

/// One embedded TrueType font's characters, by CID (from 1, in order of first use).
#[derive(Debug, Default)]
struct Embedded {
    cids: Vec<char>,
    by_char: BTreeMap<char, u16>,
}

impl Embedded {
    fn encode(&mut self, text: &str) -> Vec<u8> {
        let mut out = Vec::new();
        for c in text.chars() {
            let cid = match self.by_char.get(&c) {
                Some(&cid) => cid,
                None => {
                    self.cids.push(c);
                    let cid = self.cids.len().min(u16::MAX as usize) as u16;
                    self.by_char.insert(c, cid);
                    cid
                }
            };
            out.extend_from_slice(&cid.to_be_bytes());
        }
        out
    }
}

/// How a text is drawn: which font, before any CID is handed out.
enum Plan {
    Standard(Vec<u8>),
    Unicode(&'static TrueType),
    Script(&'static TrueType),
}

/// Width and ink of `text` in `tt` at 1 pt, one glyph per character.
fn measure_tt(tt: &TrueType, text: &str) -> (f64, Ink) {
    let mut pen = 0.0;
    let mut ink: Option<Ink> = None;
    for c in text.chars() {
        let g = tt.glyph(c);
        if let Some([x0, y0, x1, y1]) = tt.ink(g) {
            let b = Ink {
                left: pen + x0,
                right: pen + x1,
                bottom: y0,
                top: y1,
            };
            ink = Some(match ink {
                None => b,
                Some(a) => Ink {
                    left: a.left.min(b.left),
                    right: a.right.max(b.right),
                    bottom: a.bottom.min(b.bottom),
                    top: a.top.max(b.top),
                },
            });
        }
        pen += tt.advance(g);
    }
    let ink = ink.unwrap_or(Ink {
        left: 0.0,
        right: pen,
        bottom: tt.descent,
        top: tt.ascent,
    });
    let k = 1.0 / 1000.0;
    (
        pen * k,
        Ink {
            left: ink.left * k,
            right: ink.right * k,
            bottom: ink.bottom * k,
            top: ink.top * k,
        },
    )
}

/// The fonts used by one update.
#[derive(Debug, Default)]
pub struct Fonts {
    standard: BTreeSet<Face>,
    unicode: Embedded,
    script: Embedded,
}

pub const UNICODE_FONT: &str = "EnvU";
/// The resource name of Kristi.
pub const SCRIPT_FONT: &str = "EnvK";

/// The slant of text drawn in an upright font to stand for an italic.
pub const SLANT: f64 = 0.2;

impl Fonts {
    fn plan(text: &str, face: Face) -> Plan {
        if face == Face::Script
            && let Some(tt) = kristi().filter(|_| script_covers(text))
        {
            return Plan::Script(tt);
        }
        let bytes: Option<Vec<u8>> = text.chars().map(metrics::winansi_byte).collect();
        match (bytes, dejavu()) {
            (None, Some(tt)) => Plan::Unicode(tt),
            (bytes, _) => Plan::Standard(bytes.unwrap_or_else(|| {
                text.chars()
                    .map(|c| metrics::winansi_byte(c).unwrap_or(b'?'))
                    .collect()
            })),
        }
    }

    /// The width of `text` in `face` at 1 pt, as [`Self::shape`] would draw it, without
    /// recording anything for the update.
    pub fn measure(text: &str, face: Face) -> f64 {
        match Self::plan(text, face) {
            Plan::Standard(bytes) => standard_width(face, &bytes),
            Plan::Unicode(tt) | Plan::Script(tt) => measure_tt(tt, text).0,
        }
    }

    /// Encodes `text` for `face`, choosing the font.
    pub fn shape(&mut self, text: &str, face: Face) -> Shaped {
        match Self::plan(text, face) {
            Plan::Standard(bytes) => {
                self.standard.insert(face);
                let (name, _) = face.standard();
                let width = standard_width(face, &bytes);
                let (ascent, descent) = face.standard_extent();
                Shaped {
                    font: name,
                    operand: hex(&bytes),
                    width,
                    slant: false,
                    ink: Ink {
                        left: 0.0,
                        right: width,
                        bottom: descent / 1000.0,
                        top: ascent / 1000.0,
                    },
                }
            }
            Plan::Script(tt) => {
                let (width, ink) = measure_tt(tt, text);
                Shaped {
                    font: SCRIPT_FONT,
                    operand: hex(&self.script.encode(text)),
                    width,
                    slant: false,
                    ink,
                }
            }
            Plan::Unicode(tt) => {
                let (width, mut ink) = measure_tt(tt, text);
                let slant = face == Face::Script;
                if slant {
                    // The text matrix shears x by SLANT * y.
                    ink.left += SLANT * ink.bottom.min(0.0);
                    ink.right += SLANT * ink.top.max(0.0);
                }
                Shaped {
                    font: UNICODE_FONT,
                    operand: hex(&self.unicode.encode(text)),
                    width,
                    slant,
                    ink,
                }
            }
        }
    }

    /// Writes the font objects into `up`; returns the `/Font` entries to add to resources.
    pub fn finish(&self, up: &mut Update) -> Vec<(Vec<u8>, Object)> {
        let mut entries = Vec::new();
        for face in &self.standard {
            let (name, base) = face.standard();
            let d = Dict::new()
                .with(b"Type", Object::name(b"Font"))
                .with(b"Subtype", Object::name(b"Type1"))
                .with(b"BaseFont", Object::name(base))
                .with(b"Encoding", Object::name(b"WinAnsiEncoding"));
            entries.push((name.as_bytes().to_vec(), Object::Ref(up.add(d.into()))));
        }
        // Flags: nonsymbolic (32), and script (8) for Kristi.
        let embedded = [
            (UNICODE_FONT, &self.unicode, dejavu(), "DejaVuSans", 32),
            (SCRIPT_FONT, &self.script, kristi(), "Kristi", 32 | 8),
        ];
        for (name, chars, tt, base, flags) in embedded {
            if let (false, Some(tt)) = (chars.cids.is_empty(), tt) {
                let font = embed(tt, chars, base, flags, up);
                entries.push((name.as_bytes().to_vec(), Object::Ref(font)));
            }
        }
        entries
    }
}

fn standard_width(face: Face, bytes: &[u8]) -> f64 {
    let (_, base) = face.standard();
    bytes
        .iter()
        .map(|&b| metrics::standard_width(base, b))
        .sum::<f64>()
        / 1000.0
}

/// Writes `tt`, subset to the characters of `chars`, as a Type0 font named `<tag>+<base>`.
fn embed(tt: &TrueType, chars: &Embedded, base: &str, flags: i64, up: &mut Update) -> ObjRef {
    let gids: Vec<u16> = chars.cids.iter().map(|&c| tt.glyph(c)).collect();
    let file = tt.subset(&gids.iter().copied().collect());
    // A subset tag derived from the content keeps output deterministic.
    let h = chars
        .cids
        .iter()
        .fold(0u32, |a, &c| a.wrapping_mul(31).wrapping_add(c as u32));
    let tag: String = (0..6)
        .map(|i| char::from(b'A' + ((h >> (i * 5)) % 26) as u8))
        .collect();
    let base = format!("{tag}+{base}");
    let file_len = file.len() as i64;
    let font_file = up.add(Object::Stream(Stream {
        dict: Dict::new()
            .with(b"Length1", file_len)
            .with(b"Filter", Object::name(b"FlateDecode")),
        data: deflate(&file),
    }));
    let descriptor = Dict::new()
        .with(b"Type", Object::name(b"FontDescriptor"))
        .with(b"FontName", Object::name(base.as_bytes()))
        .with(b"Flags", flags)
        .with(
            b"FontBBox",
            Object::Array(tt.bbox.iter().map(|v| Object::Real(v.round())).collect()),
        )
        .with(b"ItalicAngle", 0i64)
        .with(b"Ascent", Object::Real(tt.ascent.round()))
        .with(b"Descent", Object::Real(tt.descent.round()))
        .with(b"CapHeight", Object::Real(tt.ascent.round()))
        .with(b"StemV", 80i64)
        .with(b"FontFile2", Object::Ref(font_file));
    let descriptor = up.add(descriptor.into());
    let mut map = vec![0u8, 0];
    for g in &gids {
        map.extend_from_slice(&g.to_be_bytes());
    }
    let cid_to_gid = up.add(Object::Stream(Stream {
        dict: Dict::new().with(b"Filter", Object::name(b"FlateDecode")),
        data: deflate(&map),
    }));
    let widths: Vec<Object> = gids
        .iter()
        .map(|&g| Object::Real(tt.advance(g).round()))
        .collect();
    let cid_font = Dict::new()
        .with(b"Type", Object::name(b"Font"))
        .with(b"Subtype", Object::name(b"CIDFontType2"))
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
        .with(
            b"W",
            Object::Array(vec![Object::Int(1), Object::Array(widths)]),
        )
        .with(b"CIDToGIDMap", cid_to_gid);
    let cid_font = up.add(cid_font.into());
    let to_unicode = up.add(Object::Stream(Stream {
        dict: Dict::new(),
        data: to_unicode(&chars.cids).into_bytes(),
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
    up.add(font.into())
}

/// The `/ToUnicode` CMap of CIDs 1.. standing for `cids`.
fn to_unicode(cids: &[char]) -> String {
    let mut s = String::from(
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n/CIDSystemInfo <</Registry (Adobe) /Ordering (UCS) /Supplement 0>> def\n/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n",
    );
    for (i, chunk) in cids.chunks(100).enumerate() {
        let _ = writeln!(s, "{} beginbfchar", chunk.len());
        for (k, c) in chunk.iter().enumerate() {
            let cid = i * 100 + k + 1;
            let mut buf = [0u16; 2];
            let units: String = c
                .encode_utf16(&mut buf)
                .iter()
                .map(|u| format!("{u:04X}"))
                .collect();
            let _ = writeln!(s, "<{cid:04X}> <{units}>");
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
            ("שלום", Undrawable::RightToLeft('ש')),
            ("سلام", Undrawable::RightToLeft('س')),
            ("李雷", Undrawable::NoGlyph('李')),
            ("\u{1F680}", Undrawable::NoGlyph('\u{1F680}')),
            ("\u{E000}", Undrawable::NoGlyph('\u{E000}')),
            ("\u{FFFF}", Undrawable::NoGlyph('\u{FFFF}')),
        ];
        for (text, want) in refused {
            assert_eq!(check_drawable(text), Err(want), "{text:?}");
        }
        assert_eq!(
            Undrawable::NoGlyph('李').to_string(),
            "contains a character the document's fonts cannot draw (U+674E)"
        );
    }

    #[test]
    fn recorded_text_keeps_only_what_draws() {
        assert_eq!(
            keep_drawable("Mozilla/5.0\r\n\u{202E}(X11)\u{0}李 ok", 100),
            "Mozilla/5.0  (X11) ok"
        );
        assert_eq!(keep_drawable("abcdef", 3), "abc");
        let all: String = (0..0x3000u32).filter_map(char::from_u32).collect();
        assert_eq!(check_drawable(&keep_drawable(&all, usize::MAX)), Ok(()));
    }

    #[test]
    fn picks_standard_fonts_for_winansi_and_dejavu_otherwise() {
        let mut f = Fonts::default();
        let s = f.shape("Zoë Ångström – €5", Face::Regular);
        assert_eq!(s.font, "EnvH");
        let u = f.shape("Łukasz Żółć", Face::Script);
        assert_eq!((u.font, u.slant), (UNICODE_FONT, true));
        let again = f.shape("Łuk", Face::Regular);
        assert_eq!(
            again.operand, "<000100020003>",
            "CIDs are reused per character"
        );
        assert!(to_unicode(&f.unicode.cids).contains("<0001> <0141>"));
    }
}
