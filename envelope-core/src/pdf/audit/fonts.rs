//! The faces the audit trail is set in (DejaVu Sans, DejaVu Sans Bold and Kristi): parsed once,
//! measured, wrapped to a width, and subset for embedding.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use printpdf::{FontId, ParsedFont};
use sha2::{Digest, Sha256};

use crate::pdf::truetype::TrueType;

/// The stamping font (`fonts::DEJAVU`): included once in the binary.
pub(super) static REGULAR_TTF: &[u8] = crate::pdf::fonts::DEJAVU;
static BOLD_TTF: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans-Bold.ttf");
/// The signature face (`fonts::SIGNATURE_FONT`): included once in the binary.
static SCRIPT_TTF: &[u8] = crate::pdf::fonts::SIGNATURE_FONT;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    Regular = 0,
    Bold = 1,
    /// Typed signatures (Kristi).
    Script = 2,
}

impl Style {
    pub(super) fn font_id(self) -> FontId {
        FontId(
            match self {
                Style::Regular => "F1",
                Style::Bold => "F2",
                Style::Script => "F3",
            }
            .into(),
        )
    }
}

#[derive(Debug)]
pub(super) struct Face {
    pub(super) parsed: ParsedFont,
    /// The font file (compiled in).
    pub(super) file: &'static [u8],
    pub(super) name: &'static str,
    units_per_em: f32,
}

#[derive(Debug)]
pub(super) struct Fonts {
    pub(super) regular: Face,
    pub(super) bold: Face,
    pub(super) script: Face,
}

impl Fonts {
    pub(super) fn face(&self, style: Style) -> &Face {
        match style {
            Style::Regular => &self.regular,
            Style::Bold => &self.bold,
            Style::Script => &self.script,
        }
    }
}

/// The parsed vendored fonts, parsed once per process.
pub(super) fn fonts() -> &'static Fonts {
    static FONTS: OnceLock<Fonts> = OnceLock::new();
    FONTS.get_or_init(|| {
        let load = |bytes: &'static [u8], name| {
            let mut warnings = Vec::new();
            // The fonts are compiled in; the tests render them, so this cannot fail at run time.
            let parsed =
                ParsedFont::from_bytes(bytes, 0, &mut warnings).expect("the vendored fonts parse");
            let units_per_em = f32::from(parsed.units_per_em.max(1));
            Face {
                parsed,
                file: bytes,
                name,
                units_per_em,
            }
        };
        Fonts {
            regular: load(REGULAR_TTF, "DejaVuSans"),
            bold: load(BOLD_TTF, "DejaVuSans-Bold"),
            script: load(SCRIPT_TTF, "Kristi"),
        }
    })
}

impl Face {
    pub(super) fn glyph(&self, c: char) -> Option<u16> {
        self.parsed
            .lookup_glyph_index(u32::from(c))
            .filter(|&g| g != 0)
    }

    fn char_width(&self, c: char, size: f32) -> f32 {
        let units = self
            .glyph(c)
            .and_then(|g| self.parsed.get_glyph_width(g))
            .unwrap_or(0);
        f32::from(units) * size / self.units_per_em
    }

    pub(super) fn width(&self, s: &str, size: f32) -> f32 {
        s.chars().map(|c| self.char_width(c, size)).sum()
    }

    /// `s` with every character this face can draw kept, whitespace made plain spaces, and each
    /// run of other characters replaced by its code points, `[U+674E U+96F7]`. Also says whether
    /// anything was replaced.
    pub(super) fn displayable(&self, s: &str) -> (String, bool) {
        fn flush(out: &mut String, missing: &mut Vec<char>) {
            if missing.is_empty() {
                return;
            }
            out.push('[');
            for (i, c) in missing.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(&format!("U+{:04X}", u32::from(*c)));
            }
            out.push(']');
            missing.clear();
        }
        let mut out = String::with_capacity(s.len());
        let mut missing = Vec::new();
        let mut replaced = false;
        for c in s.chars() {
            let c = if c.is_whitespace() { ' ' } else { c };
            if c == ' ' || (!c.is_control() && self.glyph(c).is_some()) {
                flush(&mut out, &mut missing);
                out.push(c);
            } else {
                replaced = true;
                missing.push(c);
            }
        }
        flush(&mut out, &mut missing);
        (out, replaced)
    }

    /// Greedy word wrap of displayable text into lines no wider than `max`. A word wider than
    /// `max` is broken between characters. Always at least one line.
    pub(super) fn wrap(&self, s: &str, size: f32, max: f32) -> Vec<String> {
        let space = self.char_width(' ', size);
        let mut lines = Vec::new();
        let mut line = String::new();
        let mut line_w = 0.0;
        for word in s.split_whitespace() {
            let word_w = self.width(word, size);
            if !line.is_empty() && line_w + space + word_w <= max {
                line.push(' ');
                line.push_str(word);
                line_w += space + word_w;
                continue;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
                line_w = 0.0;
            }
            if word_w <= max {
                line.push_str(word);
                line_w = word_w;
                continue;
            }
            for c in word.chars() {
                let cw = self.char_width(c, size);
                if !line.is_empty() && line_w + cw > max {
                    lines.push(std::mem::take(&mut line));
                    line_w = 0.0;
                }
                line.push(c);
                line_w += cw;
            }
        }
        if !line.is_empty() || lines.is_empty() {
            lines.push(line);
        }
        lines
    }

    /// One line of at most `max`, cut with an ellipsis when needed.
    pub(super) fn truncate(&self, s: &str, size: f32, max: f32) -> String {
        if self.width(s, size) <= max {
            return s.to_string();
        }
        let budget = max - self.char_width('…', size);
        let mut out = String::new();
        let mut w = 0.0;
        for c in s.chars() {
            let cw = self.char_width(c, size);
            if w + cw > budget {
                break;
            }
            out.push(c);
            w += cw;
        }
        out.push('…');
        out
    }
}

/// A deterministic six-letter subset tag (ISO 32000-1, 9.6.4) from the glyphs kept.
pub(super) fn subset_tag(style: Style, used: &BTreeSet<u16>) -> String {
    let mut h = Sha256::new();
    h.update([style as u8]);
    for g in used {
        h.update(g.to_be_bytes());
    }
    h.finalize()
        .iter()
        .take(6)
        .map(|b| char::from(b'A' + b % 26))
        .collect()
}

/// `font` with only the `used` glyphs' outlines (see [`TrueType::subset_keeping`]), keeping
/// the tables printpdf parses when it embeds the font.
pub(super) fn subset(font: &'static [u8], used: &BTreeSet<u16>) -> Vec<u8> {
    const PRINTPDF_READS: [[u8; 4]; 4] = [*b"OS/2", *b"cmap", *b"name", *b"post"];
    // The vendored fonts parse; the tests embed all three.
    let parsed = TrueType::parse(font).expect("the vendored fonts parse");
    parsed.subset_keeping(used, &PRINTPDF_READS)
}
