//! The page tree and page geometry: which objects are the pages, what each page inherits, and the
//! mapping between PDF user space and the API's coordinates (points, origin at the top-left of the
//! page as displayed).
//!
//! The walk is bounded (loops in `/Kids`, depth by the budget's nesting limit, node count); it
//! must never follow a node twice. Inherited attributes are shared (`Rc`), never copied per kid:
//! a node with a million kids and a large `/Resources` must cost a million pointers, not a
//! million dictionaries.

use std::collections::HashSet;
use std::rc::Rc;

use super::PageSize;
use super::PdfError;
use super::object::{Dict, ObjRef, Object};
use super::reader::Document;

/// Most page-tree nodes visited; far above any page limit, a guard against absurd trees.
const MAX_NODES: usize = 200_000;

/// One page: its object and its (inherited) attributes.
#[derive(Debug, Clone)]
pub struct Page {
    pub id: ObjRef,
    /// The page dictionary as stored.
    pub dict: Dict,
    /// `/Resources`, inherited when the page has none (shared with the node it comes from).
    pub resources: Option<Rc<Object>>,
    pub geometry: Geometry,
}

/// Walks the page tree in order, stopping once `stop_at` pages are found (the caller refuses
/// that many). Fails on a document without pages.
pub fn pages(doc: &mut Document<'_>, stop_at: Option<usize>) -> Result<Vec<Page>, PdfError> {
    let catalog = doc.catalog()?;
    let root = catalog
        .get(b"Pages")
        .cloned()
        .ok_or_else(|| PdfError::Invalid("no page tree".into()))?;
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    // (node, inherited Resources, MediaBox, CropBox, Rotate, depth)
    let mut stack = vec![(root, Inherited::default(), 0usize)];
    while let Some((node, inh, depth)) = stack.pop() {
        doc.budget.depth(depth)?;
        if seen.len() > MAX_NODES {
            return Err(PdfError::Invalid("the page tree is too large".into()));
        }
        if stop_at.is_some_and(|n| out.len() >= n) {
            break;
        }
        let id = node.as_ref();
        if let Some(id) = id
            && !seen.insert(id)
        {
            continue; // a loop or a shared node: each node counts once
        }
        let Some(dict) = doc.dict(Some(&node))? else {
            continue;
        };
        let mut inh = inh;
        for (key, slot) in [
            (&b"Resources"[..], &mut inh.resources),
            (b"MediaBox", &mut inh.media),
            (b"CropBox", &mut inh.crop),
            (b"Rotate", &mut inh.rotate),
        ] {
            if let Some(v) = dict.get(key) {
                *slot = Some(Rc::new(v.clone()));
            }
        }
        let kids = match dict.get(b"Kids") {
            Some(k) => match doc.resolve(k)? {
                Object::Array(a) => Some(a),
                _ => None,
            },
            None => None,
        };
        match (kids, dict.name(b"Type")) {
            (Some(kids), t) if t != Some(b"Page") => {
                // Cheap per kid: the inherited values are reference-counted.
                doc.budget.entries(kids.len() as u64)?;
                for k in kids.into_iter().rev() {
                    stack.push((k, inh.clone(), depth + 1));
                }
            }
            (None, Some(b"Pages")) => {}
            _ => {
                let Some(id) = id else { continue };
                let geometry = Geometry::new(doc, &inh)?;
                out.push(Page {
                    id,
                    dict,
                    resources: inh.resources.clone(),
                    geometry,
                });
            }
        }
    }
    if out.is_empty() {
        return Err(PdfError::Invalid("the document has no pages".into()));
    }
    Ok(out)
}

/// The page count the root of the page tree claims.
pub fn claimed_count(doc: &mut Document<'_>) -> Result<i64, PdfError> {
    let catalog = doc.catalog()?;
    let root = doc.dict(catalog.get(b"Pages"))?;
    Ok(root
        .and_then(|r| r.get(b"Count").and_then(Object::as_i64))
        .unwrap_or(0))
}

#[derive(Debug, Clone, Default)]
struct Inherited {
    resources: Option<Rc<Object>>,
    media: Option<Rc<Object>>,
    crop: Option<Rc<Object>>,
    rotate: Option<Rc<Object>>,
}

/// The visible box of a page (CropBox within MediaBox) and its rotation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometry {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
    /// 0, 90, 180 or 270: clockwise on display.
    pub rotate: i32,
}

impl Geometry {
    fn new(doc: &mut Document<'_>, inh: &Inherited) -> Result<Geometry, PdfError> {
        let mut rect = |o: &Option<Rc<Object>>| -> Result<Option<[f64; 4]>, PdfError> {
            let Some(o) = o else { return Ok(None) };
            let a = doc.resolve(o)?;
            let Some(a) = a.as_array() else {
                return Ok(None);
            };
            let mut v = [0.0; 4];
            for (i, slot) in v.iter_mut().enumerate() {
                *slot = match a.get(i) {
                    Some(Object::Ref(r)) => doc.get(*r)?.as_f64().unwrap_or(0.0),
                    Some(o) => o.as_f64().unwrap_or(0.0),
                    None => return Ok(None),
                };
            }
            let r = [
                v[0].min(v[2]),
                v[1].min(v[3]),
                v[0].max(v[2]),
                v[1].max(v[3]),
            ];
            Ok((r[2] - r[0] >= 1.0 && r[3] - r[1] >= 1.0).then_some(r))
        };
        let media = rect(&inh.media)?.unwrap_or([0.0, 0.0, 612.0, 792.0]);
        let crop = rect(&inh.crop)?;
        let b = match crop {
            Some(c) => {
                let i = [
                    c[0].max(media[0]),
                    c[1].max(media[1]),
                    c[2].min(media[2]),
                    c[3].min(media[3]),
                ];
                if i[2] - i[0] >= 1.0 && i[3] - i[1] >= 1.0 {
                    i
                } else {
                    media
                }
            }
            None => media,
        };
        let rotate = match &inh.rotate {
            Some(o) => doc.resolve(o)?.as_i64().unwrap_or(0),
            None => 0,
        };
        let rotate = (rotate.rem_euclid(360) / 90 * 90) as i32;
        Ok(Geometry {
            x0: b[0],
            y0: b[1],
            x1: b[2],
            y1: b[3],
            rotate,
        })
    }

    /// The displayed page size.
    pub fn size(&self) -> PageSize {
        let (w, h) = (self.x1 - self.x0, self.y1 - self.y0);
        if self.rotate % 180 == 0 {
            PageSize {
                width: w,
                height: h,
            }
        } else {
            PageSize {
                width: h,
                height: w,
            }
        }
    }

    /// User space -> displayed coordinates (origin top-left, y down).
    pub fn display_point(self, u: f64, v: f64) -> (f64, f64) {
        match self.rotate {
            90 => (v - self.y0, u - self.x0),
            180 => (self.x1 - u, v - self.y0),
            270 => (self.y1 - v, self.x1 - u),
            _ => (u - self.x0, self.y1 - v),
        }
    }

    /// A user-space rectangle as a displayed box `(x, y, width, height)`.
    pub fn rect_display_point(&self, r: [f64; 4]) -> (f64, f64, f64, f64) {
        let (ax, ay) = self.display_point(r[0], r[1]);
        let (bx, by) = self.display_point(r[2], r[3]);
        (ax.min(bx), ay.min(by), (ax - bx).abs(), (ay - by).abs())
    }

    /// The matrix `[a b c d e f]` taking "displayed, y up, origin bottom-left" coordinates to user
    /// space: what the stamper puts in `cm` so it can draw as if the page were upright.
    pub fn display_matrix(&self) -> [f64; 6] {
        match self.rotate {
            90 => [0.0, 1.0, -1.0, 0.0, self.x1, self.y0],
            180 => [-1.0, 0.0, 0.0, -1.0, self.x1, self.y1],
            270 => [0.0, -1.0, 1.0, 0.0, self.x0, self.y1],
            _ => [1.0, 0.0, 0.0, 1.0, self.x0, self.y0],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(m: [f64; 6], p: f64, q: f64) -> (f64, f64) {
        (m[0] * p + m[2] * q + m[4], m[1] * p + m[3] * q + m[5])
    }

    #[test]
    fn display_matrix_inverts_display_point() {
        for rotate in [0, 90, 180, 270] {
            let g = Geometry {
                x0: 10.0,
                y0: 20.0,
                x1: 610.0,
                y1: 820.0,
                rotate,
            };
            let size = g.size();
            // A displayed point (X, Y) top-left is (X, H - Y) in the y-up display frame.
            for (x, y) in [(0.0, 0.0), (100.0, 50.0), (size.width, size.height)] {
                let (u, v) = apply(g.display_matrix(), x, size.height - y);
                let (bx, by) = g.display_point(u, v);
                assert!(
                    (bx - x).abs() < 1e-9 && (by - y).abs() < 1e-9,
                    "rotate {rotate}: ({x},{y}) -> ({bx},{by})"
                );
            }
        }
    }

    #[test]
    fn rotated_sizes_swap() {
        let g = Geometry {
            x0: 0.0,
            y0: 0.0,
            x1: 612.0,
            y1: 792.0,
            rotate: 90,
        };
        assert_eq!(
            g.size(),
            PageSize {
                width: 792.0,
                height: 612.0
            }
        );
    }
}
