//! The file around a graph: xref layout, incremental updates, and damage done to the written
//! bytes (shifted or wrong offsets, `/Prev` loops, xref streams that claim millions of entries,
//! streams that never end, a `startxref` that points nowhere so the reader must scan).

use std::io::Write as _;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;

use super::super::{Layout, shift_offsets, zlib};
use super::{Link, Val, link, val};

/// How a graph is written.
#[derive(Debug, Clone)]
pub struct FilePlan {
    pub layout: Layout,
    /// Incremental updates, each replacing or adding a few objects (classic xref, `/Prev`).
    pub updates: Vec<Vec<(Link, Val)>>,
    pub damage: Vec<Damage>,
}

/// One change to the written bytes, applied in order.
#[derive(Debug, Clone)]
pub enum Damage {
    /// Bytes inserted after the header: every offset is wrong.
    Shift,
    /// The offset of one classic xref entry replaced.
    Offset(Index, u32),
    /// `startxref` names this offset instead.
    Startxref(u32),
    /// The newest section's `/Prev` names itself.
    PrevLoop,
    /// One `endstream` keyword spoiled (or every one).
    NoEndstream(Option<Index>),
    /// A new xref stream section claiming `size` entries, with `rows` rows of data.
    XrefBomb { size: u32, rows: u32 },
    /// Bytes inserted somewhere.
    Insert(Index, Vec<u8>),
    /// A slice copied elsewhere.
    Splice(Index, Index, u16),
    /// The tail cut off.
    Truncate(Index),
}

fn layouts() -> impl Strategy<Value = Layout> {
    prop_oneof![
        Just(Layout::Classic),
        Just(Layout::XrefStream { objstm: false }),
        Just(Layout::XrefStream { objstm: true }),
    ]
}

fn damage_one(scale: u32) -> impl Strategy<Value = Damage> {
    prop_oneof![
        2 => Just(Damage::Shift),
        2 => (any::<Index>(), any::<u32>()).prop_map(|(i, o)| Damage::Offset(i, o)),
        1 => any::<u32>().prop_map(Damage::Startxref),
        2 => Just(Damage::PrevLoop),
        2 => prop::option::weighted(0.7, any::<Index>()).prop_map(Damage::NoEndstream),
        1 => (prop_oneof![1u32..100, Just(50_000_000), Just(u32::MAX)],
              prop_oneof![4 => 0u32..64, 1 => 0u32..20_000 * scale])
            .prop_map(|(size, rows)| Damage::XrefBomb { size, rows }),
        1 => (any::<Index>(), vec(any::<u8>(), 1..16)).prop_map(|(i, b)| Damage::Insert(i, b)),
        1 => (any::<Index>(), any::<Index>(), any::<u16>()).prop_map(|(a, b, n)| Damage::Splice(a, b, n)),
        1 => any::<Index>().prop_map(Damage::Truncate),
    ]
}

pub fn file_plan(scale: u32) -> impl Strategy<Value = FilePlan> {
    (
        layouts(),
        vec(vec((link(), val(scale)), 1..3), 0..3),
        prop_oneof![2 => Just(Vec::new()), 3 => vec(damage_one(scale), 1..3)],
    )
        .prop_map(|(layout, updates, damage)| FilePlan {
            layout,
            updates,
            damage,
        })
}

/// Applies `damage` to a file whose newest xref section starts at `start`.
pub fn damage(mut bytes: Vec<u8>, start: usize, damage: &[Damage]) -> Vec<u8> {
    for d in damage {
        bytes = match d {
            Damage::Shift => shift_offsets(&bytes),
            Damage::Offset(i, o) => {
                let entries = positions(&bytes, b" 00000 n");
                match entries.get(i.index(entries.len().max(1))) {
                    Some(&at) if at >= 10 => {
                        let mut b = bytes;
                        b.splice(at - 10..at, format!("{o:010}").into_bytes());
                        b
                    }
                    _ => bytes,
                }
            }
            Damage::Startxref(o) => replace_startxref(&bytes, *o as usize),
            Damage::PrevLoop => {
                let key = positions(&bytes, b"/Size").last().copied();
                match key {
                    Some(at) => {
                        let mut b = bytes;
                        b.splice(at..at, format!("/Prev {start} ").into_bytes());
                        b
                    }
                    None => bytes,
                }
            }
            Damage::NoEndstream(which) => {
                let all = positions(&bytes, b"endstream");
                let chosen: Vec<usize> = match which {
                    Some(i) if !all.is_empty() => vec![all[i.index(all.len())]],
                    Some(_) => Vec::new(),
                    None => all,
                };
                for at in chosen {
                    bytes[at + 3] = b'X';
                }
                bytes
            }
            Damage::XrefBomb { size, rows } => xref_bomb(bytes, *size, *rows),
            Damage::Insert(i, junk) => {
                let at = i.index(bytes.len() + 1);
                bytes.splice(at..at, junk.iter().copied());
                bytes
            }
            Damage::Splice(a, b, n) => {
                let from = a.index(bytes.len().max(1));
                let to = b.index(bytes.len() + 1);
                let end = (from + usize::from(*n)).min(bytes.len());
                let piece = bytes.get(from..end).unwrap_or_default().to_vec();
                bytes.splice(to..to, piece);
                bytes
            }
            Damage::Truncate(i) => {
                bytes.truncate(i.index(bytes.len() + 1).max(16));
                bytes
            }
        };
    }
    bytes
}

fn positions(bytes: &[u8], needle: &[u8]) -> Vec<usize> {
    bytes
        .windows(needle.len())
        .enumerate()
        .filter(|(_, w)| *w == needle)
        .map(|(i, _)| i)
        .collect()
}

/// The file with a new tail `startxref <offset>`.
fn replace_startxref(bytes: &[u8], offset: usize) -> Vec<u8> {
    let mut out = match positions(bytes, b"startxref").last() {
        Some(&at) => bytes[..at].to_vec(),
        None => bytes.to_vec(),
    };
    write!(out, "startxref\n{offset}\n%%EOF\n").unwrap();
    out
}

/// Appends an xref stream whose `/Size` and `/Index` claim `size` entries, with `rows` rows of
/// zeros (free entries) as its data, chained to the previous section.
fn xref_bomb(bytes: Vec<u8>, size: u32, rows: u32) -> Vec<u8> {
    let prev = positions(&bytes, b"startxref")
        .last()
        .and_then(|&at| {
            std::str::from_utf8(&bytes[at + 9..])
                .ok()?
                .split_whitespace()
                .next()?
                .parse::<usize>()
                .ok()
        })
        .unwrap_or(0);
    let mut out = bytes;
    let at = out.len();
    let data = zlib(&vec![0u8; rows as usize * 7]);
    write!(
        out,
        "900000 0 obj\n<</Type /XRef /Size {size} /Index [0 {size}] /W [1 4 2] /Root 1 0 R /Prev {prev} /Filter /FlateDecode /Length {}>>\nstream\n",
        data.len()
    )
    .unwrap();
    out.extend_from_slice(&data);
    write!(out, "\nendstream\nendobj\nstartxref\n{at}\n%%EOF\n").unwrap();
    out
}
