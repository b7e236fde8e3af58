//! The faces the audit trail is set in: those of [`shape`](crate::pdf::shape) (DejaVu Sans and
//! its bold, Noto Sans for Arabic, Hebrew, Devanagari, Thai and, when installed, CJK, and
//! Kristi for typed signatures), measured as set, wrapped to a width, and subset for embedding.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use printpdf::FontId;
use subsetter::GlyphRemapper;

use crate::pdf::shape::{self, FaceId, library};

pub(super) use crate::pdf::shape::Style;

/// The printpdf font of a face: its resource name.
pub(super) fn font_id(face: FaceId) -> FontId {
    FontId(library().face(face).resource.clone())
}

thread_local! {
    static WIDTHS: RefCell<HashMap<(u8, String), f32>> = RefCell::new(HashMap::new());
}

/// Empties the widths remembered on this thread: each trail is measured from scratch.
pub(super) fn forget_widths() {
    WIDTHS.with(|m| m.borrow_mut().clear());
}

/// Measuring and wrapping in one style.
#[derive(Debug, Clone, Copy)]
pub(super) struct Face {
    style: Style,
}

/// Measuring and wrapping in `style`.
pub(super) fn face(style: Style) -> Face {
    Face { style }
}

/// The glyphs the trail draws with one face: original id -> code (the subset's glyph id).
pub(super) type Used = BTreeMap<FaceId, GlyphRemapper>;

/// A deterministic six-letter subset tag (ISO 32000-1, 9.6.4) from the glyphs kept.
pub(super) fn subset_tag(face: FaceId, remapper: &GlyphRemapper) -> String {
    crate::pdf::fonts::subset_tag(&library().face(face).name, remapper.remapped_gids())
}

impl Face {
    fn set(&self, s: &str) -> shape::Line {
        shape::set(s, self.style)
    }

    pub(super) fn width(&self, s: &str, size: f32) -> f32 {
        self.width_at_1pt(s) * size
    }

    /// The set width of `s` at 1 pt, remembered for the trail being rendered (see
    /// [`forget_widths`]): a trail measures the same words (dates, user agents, labels) many
    /// times while wrapping.
    fn width_at_1pt(&self, s: &str) -> f32 {
        let key = (self.style as u8, s.to_string());
        if let Some(w) = WIDTHS.with(|m| m.borrow().get(&key).copied()) {
            return w;
        }
        let w = (self.set(s).width / 1000.0) as f32;
        WIDTHS.with(|m| {
            let mut m = m.borrow_mut();
            // Bounded, whatever one trail holds.
            if m.len() >= 4096 {
                m.clear();
            }
            m.insert(key, w);
        });
        w
    }

    /// `s` with every character some face can draw kept, whitespace made plain spaces, and each
    /// run of other characters replaced by its code points, `[U+E000 U+E001]`. Also says
    /// whether anything was replaced.
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
        let lib = library();
        let mut out = String::with_capacity(s.len());
        let mut missing = Vec::new();
        let mut replaced = false;
        for c in s.chars() {
            let c = if c.is_whitespace() { ' ' } else { c };
            let private = matches!(u32::from(c), 0xE000..=0xF8FF | 0xF0000..=0x10FFFF);
            if c == ' ' || (!c.is_control() && !private && lib.covers(c)) {
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

    /// `s` cut into clusters (a character with its marks), for breaking inside a word.
    fn clusters(s: &str) -> Vec<&str> {
        let mut starts: Vec<usize> = s
            .char_indices()
            .filter(|&(i, c)| i == 0 || !shape::extends(c))
            .map(|(i, _)| i)
            .collect();
        starts.push(s.len());
        starts.windows(2).map(|w| &s[w[0]..w[1]]).collect()
    }

    /// Greedy word wrap of displayable text into lines no wider than `max`. A word wider than
    /// `max` is broken between clusters. Always at least one line.
    pub(super) fn wrap(&self, s: &str, size: f32, max: f32) -> Vec<String> {
        let space = self.width(" ", size);
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
            }
            if word_w <= max {
                line.push_str(word);
                line_w = word_w;
                continue;
            }
            // Broken between clusters, each measured alone (a word this long is cut anyway).
            line_w = 0.0;
            for cluster in Self::clusters(word) {
                let w = self.width(cluster, size);
                if !line.is_empty() && line_w + w > max {
                    lines.push(std::mem::take(&mut line));
                    line_w = 0.0;
                }
                line.push_str(cluster);
                line_w += w;
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
        let budget = max - self.width("…", size);
        let mut out = String::new();
        let mut w = 0.0;
        for cluster in Self::clusters(s) {
            let cw = self.width(cluster, size);
            if w + cw > budget {
                break;
            }
            out.push_str(cluster);
            w += cw;
        }
        out.push('…');
        out
    }
}
