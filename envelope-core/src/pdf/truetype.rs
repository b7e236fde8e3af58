//! Just enough TrueType for embedding the vendored fonts (DejaVu Sans, and Kristi for typed
//! signatures): character -> glyph lookup (`cmap` formats 4 and 12), advance widths, metrics,
//! glyph bounding boxes, and a glyph subsetter that keeps glyph ids (unused
//! glyphs become empty) so `CIDToGIDMap` can point straight at them.
//!
//! It reads a trusted, vendored font but still never panics on short data. It must never change
//! glyph ids, or the CIDToGIDMap written by the stamper would be wrong.

use std::collections::{BTreeSet, HashMap};

fn u16_at(d: &[u8], o: usize) -> u16 {
    d.get(o..o + 2)
        .map_or(0, |b| u16::from_be_bytes([b[0], b[1]]))
}
fn i16_at(d: &[u8], o: usize) -> i16 {
    u16_at(d, o) as i16
}
fn u32_at(d: &[u8], o: usize) -> u32 {
    d.get(o..o + 4)
        .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// A parsed TrueType font.
#[derive(Debug)]
pub struct TrueType {
    data: &'static [u8],
    tables: HashMap<[u8; 4], (usize, usize)>,
    pub units_per_em: f64,
    num_glyphs: u16,
    num_hmetrics: u16,
    loca_long: bool,
    cmap: HashMap<u32, u16>,
    pub ascent: f64,
    pub descent: f64,
    pub bbox: [f64; 4],
}

impl TrueType {
    pub fn parse(data: &'static [u8]) -> Option<TrueType> {
        let n = u16_at(data, 4) as usize;
        let mut tables = HashMap::new();
        for i in 0..n {
            let rec = 12 + i * 16;
            let tag: [u8; 4] = data.get(rec..rec + 4)?.try_into().ok()?;
            let (off, len) = (
                u32_at(data, rec + 8) as usize,
                u32_at(data, rec + 12) as usize,
            );
            if off.checked_add(len)? > data.len() {
                return None;
            }
            tables.insert(tag, (off, len));
        }
        let head = tables.get(b"head")?.0;
        let hhea = tables.get(b"hhea")?.0;
        let maxp = tables.get(b"maxp")?.0;
        let upem = f64::from(u16_at(data, head + 18).max(16));
        let mut t = TrueType {
            data,
            units_per_em: upem,
            num_glyphs: u16_at(data, maxp + 4),
            num_hmetrics: u16_at(data, hhea + 34).max(1),
            loca_long: i16_at(data, head + 50) == 1,
            cmap: HashMap::new(),
            ascent: f64::from(i16_at(data, hhea + 4)) * 1000.0 / upem,
            descent: f64::from(i16_at(data, hhea + 6)) * 1000.0 / upem,
            bbox: [36, 38, 40, 42].map(|o| f64::from(i16_at(data, head + o)) * 1000.0 / upem),
            tables,
        };
        t.cmap = t.read_cmap().unwrap_or_default();
        Some(t)
    }

    fn table(&self, tag: &[u8; 4]) -> &'static [u8] {
        let data: &'static [u8] = self.data;
        self.tables.get(tag).map_or(&[], |&(o, l)| &data[o..o + l])
    }

    fn read_cmap(&self) -> Option<HashMap<u32, u16>> {
        let c = self.table(b"cmap");
        let mut best: Option<(u16, usize)> = None;
        for i in 0..u16_at(c, 2) as usize {
            let (pid, eid, off) = (
                u16_at(c, 4 + i * 8),
                u16_at(c, 6 + i * 8),
                u32_at(c, 8 + i * 8) as usize,
            );
            let format = u16_at(c, off);
            if pid == 3 && eid == 10 && format == 12 {
                best = Some((12, off));
            } else if pid == 3 && eid == 1 && format == 4 && best.is_none() {
                best = Some((4, off));
            }
        }
        let (format, off) = best?;
        let mut map = HashMap::new();
        if format == 12 {
            let groups = u32_at(c, off + 12) as usize;
            for g in 0..groups.min(100_000) {
                let o = off + 16 + g * 12;
                let (start, end, gid) = (u32_at(c, o), u32_at(c, o + 4), u32_at(c, o + 8));
                for (k, ch) in (start..=end.min(start + 0xFFFF)).enumerate() {
                    map.insert(ch, (gid as usize + k) as u16);
                }
            }
        } else {
            let seg = u16_at(c, off + 6) as usize / 2;
            let ends = off + 14;
            let starts = ends + seg * 2 + 2;
            let deltas = starts + seg * 2;
            let ranges = deltas + seg * 2;
            for s in 0..seg {
                let (start, end) = (u16_at(c, starts + s * 2), u16_at(c, ends + s * 2));
                let delta = u16_at(c, deltas + s * 2);
                let ro = u16_at(c, ranges + s * 2) as usize;
                for ch in start..=end {
                    if ch == 0xFFFF {
                        break;
                    }
                    let gid = if ro == 0 {
                        ch.wrapping_add(delta)
                    } else {
                        let at = ranges + s * 2 + ro + (ch - start) as usize * 2;
                        match u16_at(c, at) {
                            0 => 0,
                            g => g.wrapping_add(delta),
                        }
                    };
                    if gid != 0 {
                        map.insert(u32::from(ch), gid);
                    }
                }
            }
        }
        Some(map)
    }

    /// The glyph for `c` (0, `.notdef`, when the font lacks it).
    pub fn glyph(&self, c: char) -> u16 {
        self.cmap.get(&(c as u32)).copied().unwrap_or(0)
    }

    /// Advance width of glyph `gid` in 1/1000 em.
    pub fn advance(&self, gid: u16) -> f64 {
        let h = self.table(b"hmtx");
        let i = gid.min(self.num_hmetrics - 1) as usize;
        f64::from(u16_at(h, i * 4)) * 1000.0 / self.units_per_em
    }

    /// The outline's bounding box of glyph `gid` as `[x_min, y_min, x_max, y_max]` in 1/1000
    /// em (from its `glyf` header), `None` for a glyph without an outline (a space).
    pub fn ink(&self, gid: u16) -> Option<[f64; 4]> {
        let (s, e) = self.glyph_range(gid);
        let data = self.table(b"glyf").get(s..e).filter(|d| d.len() >= 10)?;
        let scale = 1000.0 / self.units_per_em;
        Some([2, 4, 6, 8].map(|o| f64::from(i16_at(data, o)) * scale))
    }

    fn glyph_range(&self, gid: u16) -> (usize, usize) {
        let loca = self.table(b"loca");
        let g = gid as usize;
        if self.loca_long {
            (
                u32_at(loca, g * 4) as usize,
                u32_at(loca, g * 4 + 4) as usize,
            )
        } else {
            (
                u16_at(loca, g * 2) as usize * 2,
                u16_at(loca, g * 2 + 2) as usize * 2,
            )
        }
    }

    /// A font file with only `gids` (plus `.notdef` and composite parts) drawn; glyph ids keep
    /// their numbers. It holds what a PDF viewer draws a CIDFontType2 from: `glyf`, `loca`,
    /// `head`, the metrics and the hinting tables.
    pub fn subset(&self, gids: &BTreeSet<u16>) -> Vec<u8> {
        self.subset_keeping(gids, &[])
    }

    /// [`Self::subset`] that also keeps the `extra` tables present in the font, for a subset
    /// that another program parses before embedding it (the audit trail's printpdf reads `cmap`,
    /// `OS/2` and `name`). A kept `post` is cut to version 3: no glyph names.
    pub fn subset_keeping(&self, gids: &BTreeSet<u16>, extra: &[[u8; 4]]) -> Vec<u8> {
        let glyf = self.table(b"glyf");
        let mut keep: BTreeSet<u16> = BTreeSet::new();
        let mut todo: Vec<u16> = gids.iter().copied().chain([0]).collect();
        while let Some(g) = todo.pop() {
            if g >= self.num_glyphs || !keep.insert(g) {
                continue;
            }
            let (s, e) = self.glyph_range(g);
            let Some(data) = glyf.get(s..e) else { continue };
            if data.len() > 10 && i16_at(data, 0) < 0 {
                // Composite: follow its components.
                let mut o = 10;
                loop {
                    let flags = u16_at(data, o);
                    todo.push(u16_at(data, o + 2));
                    o += 4 + if flags & 1 != 0 { 4 } else { 2 };
                    o += if flags & 8 != 0 {
                        2
                    } else if flags & 0x40 != 0 {
                        4
                    } else if flags & 0x80 != 0 {
                        8
                    } else {
                        0
                    };
                    if flags & 0x20 == 0 || o >= data.len() {
                        break;
                    }
                }
            }
        }
        let mut new_glyf = Vec::new();
        let mut new_loca = Vec::with_capacity((self.num_glyphs as usize + 1) * 4);
        for g in 0..self.num_glyphs {
            new_loca.extend_from_slice(&(new_glyf.len() as u32).to_be_bytes());
            if keep.contains(&g) {
                let (s, e) = self.glyph_range(g);
                new_glyf.extend_from_slice(glyf.get(s..e).unwrap_or(&[]));
                while new_glyf.len() % 4 != 0 {
                    new_glyf.push(0);
                }
            }
        }
        new_loca.extend_from_slice(&(new_glyf.len() as u32).to_be_bytes());
        let mut head = self.table(b"head").to_vec();
        if head.len() >= 54 {
            head[8..12].copy_from_slice(&[0; 4]);
            head[50..52].copy_from_slice(&1i16.to_be_bytes());
        }
        let mut tables: Vec<([u8; 4], Vec<u8>)> =
            vec![(*b"glyf", new_glyf), (*b"head", head), (*b"loca", new_loca)];
        for tag in [*b"cvt ", *b"fpgm", *b"hhea", *b"hmtx", *b"maxp", *b"prep"]
            .iter()
            .chain(extra)
        {
            if !self.tables.contains_key(tag) || tables.iter().any(|t| &t.0 == tag) {
                continue;
            }
            let mut data = self.table(tag).to_vec();
            if tag == b"post" && data.len() >= 32 {
                data.truncate(32);
                data[..4].copy_from_slice(&0x0003_0000u32.to_be_bytes());
            }
            tables.push((*tag, data));
        }
        tables.sort_by_key(|t| t.0);
        write_sfnt(&tables)
    }
}

fn checksum(d: &[u8]) -> u32 {
    d.chunks(4).fold(0u32, |a, c| {
        let mut b = [0u8; 4];
        b[..c.len()].copy_from_slice(c);
        a.wrapping_add(u32::from_be_bytes(b))
    })
}

fn write_sfnt(tables: &[([u8; 4], Vec<u8>)]) -> Vec<u8> {
    let n = tables.len() as u16;
    let mut p = 1u16;
    while p * 2 <= n {
        p *= 2;
    }
    let mut out = Vec::new();
    out.extend_from_slice(&0x0001_0000u32.to_be_bytes());
    out.extend_from_slice(&n.to_be_bytes());
    out.extend_from_slice(&(p * 16).to_be_bytes());
    out.extend_from_slice(&(p.trailing_zeros() as u16).to_be_bytes());
    out.extend_from_slice(&(n * 16 - p * 16).to_be_bytes());
    let mut offset = 12 + 16 * tables.len();
    let mut body = Vec::new();
    for (tag, data) in tables {
        out.extend_from_slice(tag);
        out.extend_from_slice(&checksum(data).to_be_bytes());
        out.extend_from_slice(&(offset as u32).to_be_bytes());
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        body.extend_from_slice(data);
        while body.len() % 4 != 0 {
            body.push(0);
        }
        offset = 12 + 16 * tables.len() + body.len();
    }
    out.extend_from_slice(&body);
    // head.checkSumAdjustment makes the whole file sum to 0xB1B0AFBA.
    let adjust = 0xB1B0_AFBAu32.wrapping_sub(checksum(&out));
    if let Some(i) = tables.iter().position(|t| &t.0 == b"head") {
        let mut at = 12 + 16 * tables.len();
        for t in &tables[..i] {
            at += t.1.len().div_ceil(4) * 4;
        }
        if out.len() >= at + 12 {
            out[at + 8..at + 12].copy_from_slice(&adjust.to_be_bytes());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dejavu_maps_and_subsets() {
        let t = TrueType::parse(super::super::fonts::DEJAVU).expect("font");
        let a = t.glyph('A');
        assert!(a != 0 && t.glyph('Ж') != 0 && t.glyph('Ł') != 0);
        assert_eq!(t.glyph('李'), 0, "DejaVu Sans has no CJK");
        assert!(
            (t.advance(a) - 684.0).abs() < 1.0,
            "A is 684/1000 em, got {}",
            t.advance(a)
        );
        let sub = t.subset(&[a].into_iter().collect());
        assert!(
            sub.len() < super::super::fonts::DEJAVU.len() / 4,
            "subset is {} bytes",
            sub.len()
        );
        let again = TrueType::parse(Box::leak(sub.into_boxed_slice())).expect("subset parses");
        assert_eq!(again.num_glyphs, t.num_glyphs);
        let (s, e) = again.glyph_range(a);
        assert!(e > s, "A keeps its outline");
        let b = t.glyph('B');
        let (s, e) = again.glyph_range(b);
        assert_eq!(e, s, "B is dropped");
    }
}
