//! Stream filters: FlateDecode (with PNG/TIFF predictors), ASCIIHex, ASCII85.
//!
//! Decoding is capped: no filter stage produces more than the caller's limit (decompression
//! bombs), the bytes of every stage are reported so that the document's budget counts them, a
//! chain holds at most [`MAX_FILTERS`] stages, and a damaged stream yields what could be decoded.
//! It must never allocate more than the cap.

use std::io::Read;

use super::object::{Dict, Object};

/// Most filters in one stream's chain (real files use one or two).
pub const MAX_FILTERS: usize = 8;

/// Why a stream could not be decoded.
#[derive(Debug, PartialEq)]
pub enum FilterError {
    Unsupported(String),
    TooLarge,
    Corrupt,
}

impl std::fmt::Display for FilterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FilterError::Unsupported(name) => write!(f, "the filter {name} is not supported"),
            FilterError::TooLarge => f.write_str("the stream decodes to too many bytes"),
            FilterError::Corrupt => f.write_str("the stream's compressed data is damaged"),
        }
    }
}

/// Decodes `data` through the filters named in `dict`; no stage produces more than `cap` bytes.
/// `spent` grows by the bytes every stage produced (even when a later stage fails).
pub fn decode(
    dict: &Dict,
    data: &[u8],
    cap: usize,
    spent: &mut u64,
) -> Result<Vec<u8>, FilterError> {
    let filters: Vec<&[u8]> = match dict.get(b"Filter") {
        None if data.len() > cap => return Err(FilterError::TooLarge),
        None => {
            *spent += data.len() as u64;
            return Ok(data.to_vec());
        }
        Some(Object::Name(n)) => vec![n.as_slice()],
        Some(Object::Array(a)) => a.iter().filter_map(Object::as_name).collect(),
        Some(_) => return Err(FilterError::Unsupported("named oddly".into())),
    };
    if filters.len() > MAX_FILTERS {
        return Err(FilterError::Unsupported(format!(
            "chain of {} stages",
            filters.len()
        )));
    }
    let parms: Vec<Option<&Dict>> = match dict.get(b"DecodeParms") {
        Some(Object::Array(a)) => a.iter().map(Object::as_dict).collect(),
        Some(o) => vec![o.as_dict()],
        None => vec![],
    };
    let mut cur = data.to_vec();
    for (i, f) in filters.iter().enumerate() {
        cur = match *f {
            b"FlateDecode" | b"Fl" => {
                let raw = inflate(&cur, cap)?;
                match parms.get(i).copied().flatten() {
                    Some(p) => predict(p, raw, cap)?,
                    None => raw,
                }
            }
            b"ASCIIHexDecode" | b"AHx" => ascii_hex(&cur),
            b"ASCII85Decode" | b"A85" => ascii85(&cur)?,
            other => {
                let other = &other[..other.len().min(64)];
                return Err(FilterError::Unsupported(
                    String::from_utf8_lossy(other).into_owned(),
                ));
            }
        };
        *spent += cur.len() as u64;
        if cur.len() > cap {
            return Err(FilterError::TooLarge);
        }
    }
    Ok(cur)
}

/// Inflates zlib data (raw deflate as a fallback), keeping what decodes before an error.
pub fn inflate(data: &[u8], cap: usize) -> Result<Vec<u8>, FilterError> {
    let mut out = Vec::new();
    let limit = cap as u64 + 1;
    let res = flate2::read::ZlibDecoder::new(data)
        .take(limit)
        .read_to_end(&mut out);
    if res.is_err() && out.is_empty() {
        out.clear();
        let _ = flate2::read::DeflateDecoder::new(data)
            .take(limit)
            .read_to_end(&mut out);
        if out.is_empty() {
            return Err(FilterError::Corrupt);
        }
    }
    if out.len() > cap {
        return Err(FilterError::TooLarge);
    }
    Ok(out)
}

fn predict(parms: &Dict, data: Vec<u8>, cap: usize) -> Result<Vec<u8>, FilterError> {
    let get = |k: &[u8], d: i64| parms.get(k).and_then(Object::as_i64).unwrap_or(d);
    let predictor = get(b"Predictor", 1);
    if predictor < 10 {
        return Ok(data); // TIFF predictor 2 is not used for the streams we decode.
    }
    let colors = get(b"Colors", 1).clamp(1, 32) as usize;
    let bpc = get(b"BitsPerComponent", 8).clamp(1, 16) as usize;
    let columns = get(b"Columns", 1).clamp(1, 1 << 20) as usize;
    let bpp = (colors * bpc).div_ceil(8).max(1);
    let row_len = (colors * bpc * columns).div_ceil(8);
    // A short stream must not claim one huge row (the output is at least a row).
    if row_len > cap {
        return Err(FilterError::TooLarge);
    }
    let mut out = Vec::with_capacity(data.len());
    let mut prev = vec![0u8; row_len];
    for chunk in data.chunks(row_len + 1) {
        let Some((&kind, row)) = chunk.split_first() else {
            break;
        };
        let mut cur = row.to_vec();
        cur.resize(row_len, 0);
        for i in 0..row_len {
            let left = if i >= bpp { cur[i - bpp] } else { 0 };
            let up = prev[i];
            let ul = if i >= bpp { prev[i - bpp] } else { 0 };
            cur[i] = match kind {
                0 => cur[i],
                1 => cur[i].wrapping_add(left),
                2 => cur[i].wrapping_add(up),
                3 => cur[i].wrapping_add(((u16::from(left) + u16::from(up)) / 2) as u8),
                4 => cur[i].wrapping_add(paeth(left, up, ul)),
                _ => return Err(FilterError::Corrupt),
            };
        }
        out.extend_from_slice(&cur);
        prev = cur;
    }
    Ok(out)
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = i16::from(a) + i16::from(b) - i16::from(c);
    let (pa, pb, pc) = (
        (p - i16::from(a)).abs(),
        (p - i16::from(b)).abs(),
        (p - i16::from(c)).abs(),
    );
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

fn ascii_hex(data: &[u8]) -> Vec<u8> {
    let mut wrapped = Vec::with_capacity(data.len() + 2);
    wrapped.push(b'<');
    wrapped.extend(data.iter().take_while(|&&b| b != b'>'));
    wrapped.push(b'>');
    match super::lexer::Lexer::new(&wrapped, 0).next_token() {
        Some(super::lexer::Token::Str(s)) => s,
        _ => Vec::new(),
    }
}

fn ascii85(data: &[u8]) -> Result<Vec<u8>, FilterError> {
    let mut out = Vec::new();
    let mut group = [0u32; 5];
    let mut n = 0;
    for &c in data {
        match c {
            b'~' => break,
            b'z' if n == 0 => out.extend_from_slice(&[0, 0, 0, 0]),
            b'!'..=b'u' => {
                group[n] = u32::from(c - b'!');
                n += 1;
                if n == 5 {
                    let v = group.iter().fold(0u64, |a, &d| a * 85 + u64::from(d));
                    out.extend_from_slice(&(v as u32).to_be_bytes());
                    n = 0;
                }
            }
            _ if super::lexer::is_white(c) => {}
            _ => return Err(FilterError::Corrupt),
        }
    }
    if n > 1 {
        for g in group.iter_mut().skip(n) {
            *g = 84;
        }
        let v = group.iter().fold(0u64, |a, &d| a * 85 + u64::from(d));
        out.extend_from_slice(&(v as u32).to_be_bytes()[..n - 1]);
    }
    Ok(out)
}

/// Compresses with zlib (for the streams the stamper writes).
pub fn deflate(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    let _ = e.write_all(data);
    e.finish().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flate_round_trip_and_cap() {
        let data = vec![7u8; 100_000];
        let z = deflate(&data);
        let d = Dict::new().with(b"Filter", Object::name(b"FlateDecode"));
        let mut spent = 0;
        assert_eq!(decode(&d, &z, 1 << 20, &mut spent), Ok(data));
        assert_eq!(spent, 100_000);
        assert_eq!(decode(&d, &z, 1000, &mut spent), Err(FilterError::TooLarge));
        let long = Dict::new().with(
            b"Filter",
            Object::Array(vec![Object::name(b"FlateDecode"); MAX_FILTERS + 1]),
        );
        assert!(matches!(
            decode(&long, &z, 1 << 20, &mut spent),
            Err(FilterError::Unsupported(_))
        ));
    }

    #[test]
    fn png_up_predictor() {
        let rows = [2u8, 1, 1, 2, 1, 1];
        let p = Dict::new().with(b"Predictor", 12i64).with(b"Columns", 2i64);
        assert_eq!(predict(&p, rows.to_vec(), 100), Ok(vec![1, 1, 2, 2]));
    }

    #[test]
    fn ascii_filters() {
        assert_eq!(ascii_hex(b"48 69>"), b"Hi");
        assert_eq!(ascii85(b"87cURD]j7BEbo7~>"), Ok(b"Hello world".to_vec()));
    }
}
