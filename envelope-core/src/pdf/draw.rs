//! Content-stream drawing for stamped values: text fitted to a box, typed signatures sized to
//! theirs, images, the "Signed by" frame of signature fields, check marks, the white boxes
//! that hide `{{...}}` tags, and the test-mode mark across the top of a page.
//!
//! Coordinates here are "displayed, y up": the stamper's `cm` maps them onto the page whatever its
//! rotation or origin. This module only produces operators and records the resources they use; it
//! must never touch the document.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::SignedBy;
use super::fonts::{Fonts, Ink, SLANT, Style};
use super::image::{Png, add_image};
use super::object::{ObjRef, fmt_num};
use super::writer::Update;

/// A box in displayed, y-up coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// Ink for signatures, black for everything else.
const INK: &str = "0.05 0.12 0.45 rg";
const BLACK: &str = "0 g";
/// The "Signed by" frame: its bracket and its two small lines of text.
const FRAME_STROKE: &str = "0.05 0.12 0.45 RG";
const FRAME_TEXT: &str = "0.3 g";
/// The test-mode mark: dark red text on a pale red band.
const MARK_BAND: &str = "1 0.9 0.9 rg";
const MARK_TEXT: &str = "0.75 0 0 rg";

/// Typed signatures and initials are never drawn larger than this, however large their box.
pub const MAX_SIGNATURE_SIZE: f64 = 40.0;
/// Signature boxes lower than this (points) get the signature alone, without the frame: its
/// two lines of text would leave the signature too little room, or be too small to read.
pub const FRAME_MIN_HEIGHT: f64 = 30.0;
/// ... and narrower than this.
pub const FRAME_MIN_WIDTH: f64 = 60.0;

/// The size-to-box rule of typed signatures: the largest size, at most `max`, at which text
/// whose ink at 1 pt is `ink` fits `avail_w` by `avail_h` points (at least 0.1, so a box too small
/// for anything still gets the value, tiny, rather than nothing).
pub fn fit_size(ink: &Ink, avail_w: f64, avail_h: f64, max: f64) -> f64 {
    let mut size = max;
    if ink.width() > 0.0 {
        size = size.min(avail_w / ink.width());
    }
    if ink.height() > 0.0 {
        size = size.min(avail_h / ink.height());
    }
    size.max(0.1)
}

/// Draws values and remembers which fonts and images they need.
#[derive(Debug, Default)]
pub struct Painter {
    pub fonts: Fonts,
    /// Resource name -> image object.
    pub images: Vec<(String, ObjRef)>,
    by_png: HashMap<Vec<u8>, String>,
}

impl Painter {
    /// `text` on one line, as large as fits in `r` (at most `max_size` points), left aligned and
    /// vertically centred.
    pub fn text(&mut self, ops: &mut String, text: &str, face: Style, r: Rect, max_size: f64) {
        let text = text.trim();
        if text.is_empty() || r.w <= 0.0 || r.h <= 0.0 {
            return;
        }
        let shaped = self.fonts.shape(text, face);
        let pad = (r.h * 0.1).min(2.0);
        let avail_w = (r.w - 2.0 * pad).max(r.w * 0.5);
        let mut size = (r.h * 0.8).min(max_size);
        if shaped.width > 0.0 {
            size = size.min(avail_w / shaped.width);
        }
        let size = size.max(0.1);
        let baseline = r.y + (r.h - 0.72 * size) / 2.0;
        let slant = if shaped.slant { 0.2 } else { 0.0 };
        let color = if face == Style::Script { INK } else { BLACK };
        let _ = writeln!(
            ops,
            "q {color} BT 1 0 {} 1 {} {} Tm {} ET Q",
            fmt_num(slant),
            fmt_num(r.x + pad),
            fmt_num(baseline),
            shaped.show(size)
        );
    }

    /// A typed signature or initials: in Kristi (or the fallback face, see `fonts.rs`), at the
    /// size [`fit_size`] gives for `r` less a padding, left aligned and vertically centred on the
    /// text's ink, so that no stroke leaves the box.
    pub fn signature(&mut self, ops: &mut String, text: &str, r: Rect, max_size: f64) {
        let text = text.trim();
        if text.is_empty() || r.w <= 0.0 || r.h <= 0.0 {
            return;
        }
        let shaped = self.fonts.shape(text, Style::Script);
        let pad = (r.h * 0.1).min(2.0);
        let (avail_w, avail_h) = (r.w - 2.0 * pad, r.h - 2.0 * pad);
        let size = fit_size(&shaped.ink, avail_w.max(0.1), avail_h.max(0.1), max_size);
        let ink = shaped.ink;
        let x = r.x + pad - ink.left * size;
        let baseline = r.y + (r.h - ink.height() * size) / 2.0 - ink.bottom * size;
        let slant = if shaped.slant { SLANT } else { 0.0 };
        let _ = writeln!(
            ops,
            "q {INK} BT 1 0 {} 1 {} {} Tm {} ET Q",
            fmt_num(slant),
            fmt_num(x),
            fmt_num(baseline),
            shaped.show(size)
        );
    }

    /// The "Signed by" frame of a signature field in `r`: a bracket with rounded corners on the
    /// left, "Signed by: <name>" on its top arm and the signer's reference on its bottom one.
    /// Returns the box left for the signature inside it, or `None` (nothing drawn) when `r` is
    /// too small for the frame ([`FRAME_MIN_HEIGHT`], [`FRAME_MIN_WIDTH`]). Everything stays
    /// inside `r`.
    pub fn frame(&mut self, ops: &mut String, r: Rect, by: &SignedBy) -> Option<Rect> {
        if r.h < FRAME_MIN_HEIGHT || r.w < FRAME_MIN_WIDTH {
            return None;
        }
        let size = (r.h * 0.16).clamp(5.0, 8.0);
        let line_h = size * 1.3;
        let x0 = r.x + 0.5;
        let (top, bottom) = (r.y + r.h - line_h / 2.0, r.y + line_h / 2.0);
        let radius = (size * 0.8).min((top - bottom) / 4.0);
        let arm = size * 1.2;
        // Quarter circles as Bézier curves (control points at 0.5523 of the radius).
        let k = radius * (1.0 - 0.5523);
        let p = |x: f64, y: f64| format!("{} {}", fmt_num(x), fmt_num(y));
        let _ = writeln!(
            ops,
            "q {FRAME_STROKE} 0.75 w 1 J {} m {} l {} {} {} c {} l {} {} {} c {} l S Q",
            p(x0 + arm, top),
            p(x0 + radius, top),
            p(x0 + k, top),
            p(x0, top - k),
            p(x0, top - radius),
            p(x0, bottom + radius),
            p(x0, bottom + k),
            p(x0 + k, bottom),
            p(x0 + radius, bottom),
            p(x0 + arm, bottom),
        );
        let label_x = x0 + arm + size * 0.4;
        let label_w = r.x + r.w - label_x - 0.5;
        let name = by.name.trim();
        let signed_by = format!("Signed by: {name}");
        let top_label = if name.is_empty() || !self.label_fits(&signed_by, size, label_w) {
            "Signed by:"
        } else {
            &signed_by
        };
        self.label(ops, top_label, label_x, top, size, label_w);
        self.label(ops, by.reference.trim(), label_x, bottom, size, label_w);
        // Between the top label's descenders (0.57 em under its line) and the bottom label's
        // capitals (0.36 em over its line), with a little air.
        let inner_x = x0 + size;
        let (inner_top, inner_bottom) = (top - 0.7 * size, bottom + 0.5 * size);
        Some(Rect {
            x: inner_x,
            y: inner_bottom,
            w: r.x + r.w - inner_x - 0.5,
            h: inner_top - inner_bottom,
        })
    }

    /// Whether `text` fits `w` in the frame's labels, allowing them to shrink to 80 %.
    fn label_fits(&self, text: &str, size: f64, w: f64) -> bool {
        Fonts::measure(text, Style::Regular) * size * 0.8 <= w
    }

    /// One small line of the frame, vertically centred on `y`, shrunk to `w` when needed.
    fn label(&mut self, ops: &mut String, text: &str, x: f64, y: f64, size: f64, w: f64) {
        if text.is_empty() || w <= 0.0 {
            return;
        }
        let shaped = self.fonts.shape(text, Style::Regular);
        let size = if shaped.width > 0.0 {
            size.min(w / shaped.width)
        } else {
            size
        };
        // Helvetica's capitals are 0.72 em high: centre them on the line.
        let baseline = y - 0.36 * size;
        let _ = writeln!(
            ops,
            "q {FRAME_TEXT} BT {} {} Td {} ET Q",
            fmt_num(x),
            fmt_num(baseline),
            shaped.show(size)
        );
    }

    /// The image, scaled to fit `r` keeping its aspect ratio, left aligned, vertically centred.
    pub fn image(
        &mut self,
        up: &mut Update,
        ops: &mut String,
        png_bytes: &[u8],
        png: &Png,
        r: Rect,
    ) {
        let name = match self.by_png.get(png_bytes) {
            Some(n) => n.clone(),
            None => {
                let name = format!("EnvIm{}", self.images.len() + 1);
                let obj = add_image(up, png);
                self.images.push((name.clone(), obj));
                self.by_png.insert(png_bytes.to_vec(), name.clone());
                name
            }
        };
        let scale = (r.w / f64::from(png.width)).min(r.h / f64::from(png.height));
        let (w, h) = (f64::from(png.width) * scale, f64::from(png.height) * scale);
        let y = r.y + (r.h - h) / 2.0;
        let _ = writeln!(
            ops,
            "q {} 0 0 {} {} {} cm /{name} Do Q",
            fmt_num(w),
            fmt_num(h),
            fmt_num(r.x),
            fmt_num(y)
        );
    }

    /// A check mark in the square at the left of `r`.
    pub fn check(ops: &mut String, r: Rect) {
        let s = r.w.min(r.h);
        let (x, y) = (r.x, r.y + (r.h - s) / 2.0);
        let p = |fx: f64, fy: f64| format!("{} {}", fmt_num(x + fx * s), fmt_num(y + fy * s));
        let _ = writeln!(
            ops,
            "q {BLACK} 0 G {} w 1 J 1 j {} m {} l {} l S Q",
            fmt_num((s * 0.1).max(0.5)),
            p(0.15, 0.5),
            p(0.4, 0.2),
            p(0.85, 0.85)
        );
    }

    /// A white box over `r` (slightly larger, so anti-aliased glyph edges disappear too).
    pub fn cover(ops: &mut String, r: Rect) {
        let _ = writeln!(
            ops,
            "q 1 g {} {} {} {} re f Q",
            fmt_num(r.x - 1.0),
            fmt_num(r.y - 1.0),
            fmt_num(r.w + 2.0),
            fmt_num(r.h + 2.0)
        );
    }

    /// The test-mode mark: `text` in bold red, centred on a pale red band across the top of a
    /// page of `size` (displayed), as large as fits its width up to 11 points. The band is
    /// opaque, so the mark stays legible over whatever the page has there.
    pub fn mark(&mut self, ops: &mut String, text: &str, size: super::PageSize) {
        let text = text.trim();
        if text.is_empty() || size.width <= 0.0 || size.height <= 0.0 {
            return;
        }
        let shaped = self.fonts.shape(text, Style::Bold);
        let band_h = (size.height * 0.05).clamp(4.0, 18.0);
        let band_y = size.height - band_h;
        let avail_w = size.width * 0.9;
        let mut font_size = (band_h * 0.65).min(11.0);
        if shaped.width > 0.0 {
            font_size = font_size.min(avail_w / shaped.width);
        }
        let font_size = font_size.max(0.1);
        let x = (size.width - shaped.width * font_size) / 2.0;
        let baseline = band_y + (band_h - 0.72 * font_size) / 2.0;
        let _ = writeln!(
            ops,
            "q {MARK_BAND} 0 {} {} {} re f {MARK_TEXT} BT {} {} Td {} ET Q",
            fmt_num(band_y),
            fmt_num(size.width),
            fmt_num(band_h),
            fmt_num(x),
            fmt_num(baseline),
            shaped.show(font_size)
        );
    }

    /// A thin line (signature lines on the signature page).
    pub fn line(ops: &mut String, x0: f64, y: f64, x1: f64) {
        let _ = writeln!(
            ops,
            "q 0.5 G 0.5 w {} {} m {} {} l S Q",
            fmt_num(x0),
            fmt_num(y),
            fmt_num(x1),
            fmt_num(y)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdf::fonts::{SCRIPT_FONT, UNICODE_FONT};
    use crate::pdf::shape::script_covers;

    fn ink(w: f64, h: f64) -> Ink {
        Ink {
            left: 0.0,
            right: w,
            bottom: -h / 4.0,
            top: h * 3.0 / 4.0,
        }
    }

    #[test]
    fn the_size_is_the_largest_that_fits_both_ways_up_to_the_maximum() {
        // (ink at 1 pt, available width and height, maximum) -> size
        let cases = [
            ((5.0, 1.0), (100.0, 40.0), 40.0, 20.0),  // the width decides
            ((2.0, 1.25), (200.0, 25.0), 40.0, 20.0), // the height decides
            ((1.0, 1.0), (500.0, 500.0), 40.0, 40.0), // the maximum decides
            ((0.0, 0.0), (10.0, 10.0), 40.0, 40.0),   // nothing to measure
            ((5.0, 1.0), (0.0, 40.0), 40.0, 0.1),     // no room: tiny, never nothing
        ];
        for ((w, h), (aw, ah), max, want) in cases {
            let got = fit_size(&ink(w, h), aw, ah, max);
            assert!((got - want).abs() < 1e-9, "{w}x{h} in {aw}x{ah}: {got}");
        }
    }

    /// The font, size, x and baseline of the one text show in `ops`.
    fn shown(ops: &str) -> (String, f64, f64, f64) {
        let words: Vec<&str> = ops.split_whitespace().collect();
        let tf = words.iter().position(|w| *w == "Tf").unwrap();
        let tm = words.iter().position(|w| *w == "Tm").unwrap();
        let num = |i: usize| words[i].parse::<f64>().unwrap();
        (
            words[tf - 2].trim_start_matches('/').to_string(),
            num(tf - 1),
            num(tm - 2),
            num(tm - 1),
        )
    }

    #[test]
    fn typed_signatures_stay_inside_their_box() {
        let boxes = [
            Rect {
                x: 72.0,
                y: 600.0,
                w: 83.0,
                h: 12.0,
            },
            Rect {
                x: 10.0,
                y: 10.0,
                w: 200.0,
                h: 60.0,
            },
            Rect {
                x: 0.0,
                y: 0.0,
                w: 600.0,
                h: 200.0,
            },
            Rect {
                x: 5.0,
                y: 5.0,
                w: 30.0,
                h: 80.0,
            },
        ];
        for text in ["Ada Lovelace", "Łukasz Żółć", "J"] {
            for r in boxes {
                let mut p = Painter::default();
                let mut ops = String::new();
                p.signature(&mut ops, text, r, MAX_SIGNATURE_SIZE);
                let (font, size, x, baseline) = shown(&ops);
                let ink = Fonts::default().shape(text, Style::Script).ink;
                let (x0, x1) = (x + ink.left * size, x + ink.right * size);
                let (y0, y1) = (baseline + ink.bottom * size, baseline + ink.top * size);
                let inside = x0 >= r.x - 1e-6
                    && x1 <= r.x + r.w + 1e-6
                    && y0 >= r.y - 1e-6
                    && y1 <= r.y + r.h + 1e-6;
                assert!(
                    inside,
                    "{text} in {r:?}: {font} {size} pt, ink {x0},{y0} {x1},{y1}"
                );
                assert!(size <= MAX_SIGNATURE_SIZE);
                // As large as the rule allows: one of the three limits is reached.
                let pad = (r.h * 0.1).min(2.0);
                let want = fit_size(&ink, r.w - 2.0 * pad, r.h - 2.0 * pad, MAX_SIGNATURE_SIZE);
                assert!(
                    (size - want).abs() < 0.01,
                    "{text} in {r:?}: {size} vs {want}"
                );
            }
        }
    }

    #[test]
    fn kristi_draws_latin_1_and_the_rest_falls_back_whole() {
        for (text, covered) in [
            ("Ada Lovelace", true),
            ("Zoë Ångström-Øyen", true),
            ("José Müller ß ñ ç", true),
            ("Łukasz", false),
            ("Erdős Pál", false),
            ("Čapek", false),
            ("Дмитрий", false),
        ] {
            assert_eq!(script_covers(text), covered, "{text}");
            let shaped = Fonts::default().shape(text, Style::Script);
            let want = if covered { SCRIPT_FONT } else { UNICODE_FONT };
            assert_eq!(shaped.fonts(), [want], "{text}");
            // The fallback face is slanted DejaVu Sans; Kristi is a script already.
            assert_eq!(shaped.slant, !covered, "{text}");
            // One glyph per character whichever the font (these have no ligatures): nothing
            // is dropped.
            let codes = shaped.show(10.0).matches('<').count();
            assert_eq!(codes, text.chars().count(), "{text}");
        }
    }

    #[test]
    fn the_mark_spans_the_top_of_any_page_and_its_text_fits() {
        let text = crate::pdf::TEST_MODE_MARK;
        let width_at_1pt = Fonts::default().shape(text, Style::Bold).width;
        for (w, h) in [
            (612.0, 792.0),
            (842.0, 595.0),
            (252.0, 144.0),
            (60.0, 40.0),
            (14_400.0, 14_400.0),
        ] {
            let mut ops = String::new();
            Painter::default().mark(
                &mut ops,
                text,
                crate::pdf::PageSize {
                    width: w,
                    height: h,
                },
            );
            let words: Vec<&str> = ops.split_whitespace().collect();
            let num = |i: usize| words[i].parse::<f64>().unwrap();
            let re = words.iter().position(|w| *w == "re").unwrap();
            let (bx, by, bw, bh) = (num(re - 4), num(re - 3), num(re - 2), num(re - 1));
            assert_eq!((bx, bw), (0.0, w), "{w}x{h}: the band spans the page");
            assert!(
                (by + bh - h).abs() < 0.01 && (4.0..=18.0).contains(&bh),
                "{w}x{h}: {ops}"
            );
            let tf = words.iter().position(|w| *w == "Tf").unwrap();
            let td = words.iter().position(|w| *w == "Td").unwrap();
            let (size, x, y) = (num(tf - 1), num(td - 2), num(td - 1));
            assert!(size <= 11.0, "{w}x{h}: {size}");
            let right = x + width_at_1pt * size;
            assert!(
                x >= 0.0 && right <= w + 0.01,
                "{w}x{h}: text from {x} to {right}"
            );
            assert!(
                y >= by && y + 0.72 * size <= h + 0.01,
                "{w}x{h}: baseline {y}"
            );
            assert!(ops.contains(&hex_of(text)) || ops.contains(text), "{ops}");
        }
    }

    fn hex_of(text: &str) -> String {
        let hex: String = text.bytes().map(|b| format!("{b:02X}")).collect();
        format!("<{hex}>")
    }

    #[test]
    fn the_frame_holds_name_and_reference_inside_the_box_or_is_left_out() {
        let by = SignedBy {
            name: "Ada Lovelace".into(),
            reference: "4fA9xQ2z".into(),
        };
        let r = Rect {
            x: 100.0,
            y: 200.0,
            w: 180.0,
            h: 50.0,
        };
        let mut p = Painter::default();
        let mut ops = String::new();
        let inner = p.frame(&mut ops, r, &by).expect("room for a frame");
        assert!(ops.contains(&hex_of("Signed by: Ada Lovelace")), "{ops}");
        assert!(ops.contains(&hex_of("4fA9xQ2z")), "{ops}");
        assert!(
            inner.x > r.x
                && inner.y > r.y
                && inner.x + inner.w < r.x + r.w
                && inner.y + inner.h < r.y + r.h
                && inner.h > r.h / 2.0,
            "{inner:?}"
        );
        // Every point of the bracket is inside the box.
        let coords: Vec<f64> = ops
            .lines()
            .find(|l| l.ends_with(" S Q"))
            .unwrap()
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .skip(5) // colour, width and line cap
            .collect();
        for xy in coords.chunks(2) {
            let inside = xy[0] >= r.x && xy[0] <= r.x + r.w && xy[1] >= r.y && xy[1] <= r.y + r.h;
            assert!(inside, "{xy:?} outside {r:?}");
        }

        // A name too long for the line: the label alone.
        let long = SignedBy {
            name: "Søren Kierkegaard Bartholomew Fitzgerald-Montgomery Vanderbilt".into(),
            ..by.clone()
        };
        let mut ops = String::new();
        p.frame(&mut ops, r, &long).expect("room for a frame");
        assert!(ops.contains(&hex_of("Signed by:")), "{ops}");
        assert!(!ops.contains("Kierkegaard") && !ops.contains(&hex_of("Signed by: S")));

        // Too low or too narrow: no frame, nothing drawn.
        for small in [
            Rect {
                h: FRAME_MIN_HEIGHT - 0.5,
                ..r
            },
            Rect {
                w: FRAME_MIN_WIDTH - 0.5,
                ..r
            },
        ] {
            let mut ops = String::new();
            assert_eq!(p.frame(&mut ops, small, &by), None);
            assert!(ops.is_empty());
        }
    }
}
