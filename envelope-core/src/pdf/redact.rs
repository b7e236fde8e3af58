//! Removing tag text from page content: the `{{...}}` glyphs' codes are cut out of their show
//! operations, replaced by TJ adjustments of the same width, so the rest of the line stays put
//! and text extraction of the signed copy no longer finds the tags.
//!
//! Only the spans of the affected show operations change; every other byte of the content is
//! copied. It must never move text that is not removed.

use std::fmt::Write as _;

use super::object::{Object, fmt_num};
use super::text::{Glyph, ShowOp};

/// `content` without the glyphs whose `remove` flag is set.
pub fn remove_glyphs(
    content: &[u8],
    shows: &[ShowOp],
    glyphs: &[Glyph],
    remove: &[bool],
) -> Vec<u8> {
    // Per show op: (item, start, end, advance) of removed codes.
    let mut cuts: Vec<Vec<(usize, usize, usize, f64)>> = vec![Vec::new(); shows.len()];
    for (g, &r) in glyphs.iter().zip(remove) {
        if let (true, Some(src)) = (r, g.src)
            && let Some(c) = cuts.get_mut(src.op)
        {
            c.push((src.item, src.start, src.end, src.advance));
        }
    }
    let mut out = Vec::with_capacity(content.len());
    let mut at = 0;
    for (show, cut) in shows.iter().zip(&cuts) {
        if cut.is_empty() || show.start < at || show.end > content.len() {
            continue;
        }
        out.extend_from_slice(&content[at..show.start]);
        out.extend_from_slice(rewrite(show, cut).as_bytes());
        at = show.end;
    }
    out.extend_from_slice(&content[at..]);
    out
}

fn rewrite(show: &ShowOp, cut: &[(usize, usize, usize, f64)]) -> String {
    let mut s = String::from(" ");
    match (show.op.as_slice(), show.spacing) {
        (b"\"", Some((aw, ac))) => {
            let _ = write!(s, "{} Tw {} Tc T* ", fmt_num(aw), fmt_num(ac));
        }
        (b"'", _) => s.push_str("T* "),
        _ => {}
    }
    s.push('[');
    for (i, item) in show.items.iter().enumerate() {
        match item {
            Object::Str(bytes) => {
                let mut pos = 0;
                let mut removed = 0.0;
                let mut kept = Vec::new();
                let mut cuts: Vec<_> = cut.iter().filter(|c| c.0 == i).collect();
                cuts.sort_by_key(|c| c.1);
                for &&(_, start, end, adv) in &cuts {
                    if start < pos || end > bytes.len() {
                        continue;
                    }
                    kept.extend_from_slice(&bytes[pos..start]);
                    if !kept.is_empty() {
                        if removed != 0.0 {
                            let _ = write!(s, "{} ", fmt_num(-removed));
                            removed = 0.0;
                        }
                        push_hex(&mut s, &kept);
                        kept.clear();
                    }
                    removed += adv;
                    pos = end;
                }
                kept.extend_from_slice(&bytes[pos.min(bytes.len())..]);
                if removed != 0.0 {
                    let _ = write!(s, "{} ", fmt_num(-removed));
                }
                if !kept.is_empty() {
                    push_hex(&mut s, &kept);
                }
            }
            other => {
                let _ = write!(s, "{} ", fmt_num(other.as_f64().unwrap_or(0.0)));
            }
        }
    }
    s.push_str("] TJ\n");
    s
}

fn push_hex(s: &mut String, b: &[u8]) {
    s.push('<');
    for x in b {
        let _ = write!(s, "{x:02X}");
    }
    s.push_str("> ");
}
