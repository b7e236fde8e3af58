//! Fonts for the text the stamper draws: standard-14 fonts (WinAnsi) when every character fits,
//! otherwise DejaVu Sans embedded as a Type0/CIDFontType2 font (Identity-H, subset to the used
//! glyphs, with a `/ToUnicode` map so copied and extracted text stays right).
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
pub static DEJAVU: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

fn dejavu() -> Option<&'static TrueType> {
    static FONT: OnceLock<Option<TrueType>> = OnceLock::new();
    FONT.get_or_init(|| TrueType::parse(DEJAVU)).as_ref()
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

/// The look of a piece of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Face {
    Regular,
    Bold,
    /// Typed signatures and initials: an italic.
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
}

/// The fonts used by one update.
#[derive(Debug, Default)]
pub struct Fonts {
    standard: BTreeSet<Face>,
    /// CID -> character, CIDs from 1.
    cids: Vec<char>,
    by_char: BTreeMap<char, u16>,
}

pub const UNICODE_FONT: &str = "EnvU";

impl Fonts {
    /// Encodes `text` for `face`, choosing the font.
    pub fn shape(&mut self, text: &str, face: Face) -> Shaped {
        let bytes: Option<Vec<u8>> = text.chars().map(metrics::winansi_byte).collect();
        let font = dejavu();
        match (bytes, font) {
            (bytes, None) | (bytes @ Some(_), _) => {
                let bytes = bytes.unwrap_or_else(|| {
                    text.chars()
                        .map(|c| metrics::winansi_byte(c).unwrap_or(b'?'))
                        .collect()
                });
                self.standard.insert(face);
                let (name, base) = face.standard();
                let width = bytes
                    .iter()
                    .map(|&b| metrics::standard_width(base, b))
                    .sum::<f64>()
                    / 1000.0;
                Shaped {
                    font: name,
                    operand: hex(&bytes),
                    width,
                    slant: false,
                }
            }
            (None, Some(tt)) => {
                let mut out = Vec::new();
                let mut width = 0.0;
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
                    width += tt.advance(tt.glyph(c));
                }
                Shaped {
                    font: UNICODE_FONT,
                    operand: hex(&out),
                    width: width / 1000.0,
                    slant: face == Face::Script,
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
        if let (false, Some(tt)) = (self.cids.is_empty(), dejavu()) {
            entries.push((
                UNICODE_FONT.as_bytes().to_vec(),
                Object::Ref(self.unicode_font(tt, up)),
            ));
        }
        entries
    }

    fn unicode_font(&self, tt: &TrueType, up: &mut Update) -> ObjRef {
        let gids: Vec<u16> = self.cids.iter().map(|&c| tt.glyph(c)).collect();
        let file = tt.subset(&gids.iter().copied().collect());
        // A subset tag derived from the content keeps output deterministic.
        let h = self
            .cids
            .iter()
            .fold(0u32, |a, &c| a.wrapping_mul(31).wrapping_add(c as u32));
        let tag: String = (0..6)
            .map(|i| char::from(b'A' + ((h >> (i * 5)) % 26) as u8))
            .collect();
        let base = format!("{tag}+DejaVuSans");
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
            .with(b"Flags", 32i64)
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
            data: self.to_unicode().into_bytes(),
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

    fn to_unicode(&self) -> String {
        let mut s = String::from(
            "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n/CIDSystemInfo <</Registry (Adobe) /Ordering (UCS) /Supplement 0>> def\n/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n",
        );
        for (i, chunk) in self.cids.chunks(100).enumerate() {
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
        assert!(f.to_unicode().contains("<0001> <0141>"));
    }
}
