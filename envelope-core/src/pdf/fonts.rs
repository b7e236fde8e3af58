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
