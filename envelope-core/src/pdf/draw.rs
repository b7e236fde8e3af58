//! Content-stream drawing for stamped values: text fitted to a box, images, check marks, and the
//! white boxes that hide `{{...}}` tags.
//!
//! Coordinates here are "displayed, y up": the stamper's `cm` maps them onto the page whatever its
//! rotation or origin. This module only produces operators and records the resources they use; it
//! must never touch the document.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::fonts::{Face, Fonts};
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
    pub fn text(&mut self, ops: &mut String, text: &str, face: Face, r: Rect, max_size: f64) {
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
        let color = if face == Face::Script { INK } else { BLACK };
        let _ = writeln!(
            ops,
            "q {color} BT /{} {} Tf 1 0 {} 1 {} {} Tm {} Tj ET Q",
            shaped.font,
            fmt_num(size),
            fmt_num(slant),
            fmt_num(r.x + pad),
            fmt_num(baseline),
            shaped.operand
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
