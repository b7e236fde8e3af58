//! `multipart/form-data` (RFC 7578) over a body already in memory, without copying the parts.
//!
//! Every part is a [`Bytes`] slice of the body: a 25 MB `file` part costs no memory beyond the
//! body itself. (multer, built for streams, copied the body into its buffer and the part again
//! into the field's bytes: three copies of every upload at once.)
//!
//! Each search for a delimiter is linear: a delimiter starts with the body's only possible CR
//! before it, and a boundary cannot hold a CR (header values cannot), so a failed comparison
//! never reads past the next CR.

use bytes::Bytes;

/// One part: its `name`, its `filename` if any, and its content.
#[derive(Debug)]
pub struct Part {
    pub name: Option<String>,
    pub file_name: Option<String>,
    pub data: Bytes,
}

/// Most parts a form may have; a create needs about a dozen.
pub const MAX_PARTS: usize = 1000;
/// Largest header block of one part.
pub const MAX_PART_HEADERS: usize = 8 * 1024;

/// Splits `body` into its parts; the message says what is wrong, in plain words.
pub fn parts(body: &Bytes, boundary: &str) -> Result<Vec<Part>, String> {
    let malformed = |why: &str| format!("The multipart body is malformed: {why}.");
    let dash_boundary = format!("--{boundary}");
    let delimiter = format!("\r\n{dash_boundary}");
    let mut pos = if body.starts_with(dash_boundary.as_bytes()) {
        dash_boundary.len()
    } else {
        find(body, delimiter.as_bytes(), 0).ok_or_else(|| malformed("no boundary found"))?
            + delimiter.len()
    };
    let mut parts = Vec::new();
    loop {
        let rest = &body[pos..];
        if rest.starts_with(b"--") {
            return Ok(parts);
        }
        // Transport padding (spaces and tabs) may follow a delimiter, then the line ends.
        let pad = rest
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        if !rest[pad..].starts_with(b"\r\n") {
            return Err(malformed("a boundary line does not end where it should"));
        }
        let head_start = pos + pad + 2;
        // A part without headers starts with the blank line at once.
        let head_end = if body[head_start..].starts_with(b"\r\n") {
            head_start
        } else {
            find_limited(body, b"\r\n\r\n", head_start, MAX_PART_HEADERS)
                .ok_or_else(|| malformed("a part's headers do not end (or exceed 8 KiB)"))?
                + 2
        };
        let content_start = head_end + 2;
        let content_end = find(body, delimiter.as_bytes(), content_start)
            .ok_or_else(|| malformed("the closing boundary is missing"))?;
        let head = std::str::from_utf8(&body[head_start..head_end])
            .map_err(|_| malformed("a part's headers are not UTF-8"))?;
        let (name, file_name) = disposition(head);
        if parts.len() == MAX_PARTS {
            return Err(format!(
                "The multipart body has more than {MAX_PARTS} parts."
            ));
        }
        parts.push(Part {
            name,
            file_name,
            data: body.slice(content_start..content_end),
        });
        pos = content_end + delimiter.len();
    }
}

/// `name` and `filename` of the part's Content-Disposition.
fn disposition(head: &str) -> (Option<String>, Option<String>) {
    let Some(value) = head.split("\r\n").find_map(|line| {
        let (k, v) = line.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case("content-disposition")
            .then_some(v.trim())
    }) else {
        return (None, None);
    };
    let (mut name, mut file_name) = (None, None);
    for (k, v) in params(value) {
        if k.eq_ignore_ascii_case("name") {
            name = Some(v);
        } else if k.eq_ignore_ascii_case("filename") {
            file_name = Some(v);
        }
    }
    (name, file_name)
}

/// The `key=value` parameters after the disposition type; values may be quoted, with `\`
/// escaping the next character.
fn params(value: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut chars = value.chars().peekable();
    // Skip the type (`form-data`).
    for c in chars.by_ref() {
        if c == ';' {
            break;
        }
    }
    loop {
        let key: String = chars
            .by_ref()
            .skip_while(|c| c.is_whitespace())
            .take_while(|&c| c != '=')
            .collect();
        if key.is_empty() {
            return out;
        }
        let mut val = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '"' => break,
                    '\\' => val.extend(chars.next()),
                    c => val.push(c),
                }
            }
            for c in chars.by_ref() {
                if c == ';' {
                    break;
                }
            }
        } else {
            for c in chars.by_ref() {
                if c == ';' {
                    break;
                }
                val.push(c);
            }
        }
        out.push((key.trim().to_string(), val.trim_end().to_string()));
    }
}

/// The first `needle` (which starts with CR and holds no other) in `hay` at or after `from`.
fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    find_limited(hay, needle, from, usize::MAX)
}

/// As [`find`], giving up once the match would start more than `limit` bytes after `from`.
fn find_limited(hay: &[u8], needle: &[u8], from: usize, limit: usize) -> Option<usize> {
    let mut i = from;
    while i < hay.len() && i - from <= limit {
        let cr = hay[i..].iter().position(|&b| b == b'\r')? + i;
        if cr - from > limit {
            return None;
        }
        if hay[cr..].starts_with(needle) {
            return Some(cr);
        }
        i = cr + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(s: &str) -> Bytes {
        Bytes::from(s.to_string())
    }

    #[test]
    fn parts_are_slices_of_the_body() {
        let b = body(
            "preamble\r\n--xy\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nNDA\r\n\
             --xy \r\ncontent-disposition: form-data; name=\"file\"; filename=\"a \\\"b\\\".pdf\"\r\n\
             Content-Type: application/pdf\r\n\r\n%PDF\r\n--x\r\n--xy--\r\n",
        );
        let p = parts(&b, "xy").unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].name.as_deref(), Some("name"));
        assert_eq!(&p[0].data[..], b"NDA");
        assert_eq!(p[1].file_name.as_deref(), Some("a \"b\".pdf"));
        // A near-miss of the boundary inside the content is content.
        assert_eq!(&p[1].data[..], b"%PDF\r\n--x");
        let start = p[1].data.as_ptr() as usize - b.as_ptr() as usize;
        assert_eq!(&b[start..start + 4], b"%PDF", "no copy");
    }

    #[test]
    fn empty_parts_and_unnamed_ones() {
        let b = body(
            "--b\r\nContent-Disposition: form-data; name=\"e\"\r\n\r\n\r\n--b\r\n\r\nx\r\n--b--",
        );
        let p = parts(&b, "b").unwrap();
        assert_eq!(&p[0].data[..], b"");
        assert_eq!(p[1].name, None);
        assert_eq!(&p[1].data[..], b"x");
    }

    #[test]
    fn malformed_bodies_say_why() {
        for (b, why) in [
            ("garbage", "no boundary"),
            (
                "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nno end",
                "closing",
            ),
            (
                "--b\r\nContent-Disposition: form-data",
                "headers do not end",
            ),
            ("--bxx", "boundary line"),
        ] {
            let e = parts(&body(b), "b").unwrap_err();
            assert!(e.contains(why), "{b:?}: {e}");
        }
        let many = format!(
            "{}--b--",
            "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n".repeat(MAX_PARTS + 1)
        );
        assert!(parts(&body(&many), "b").unwrap_err().contains("parts"));
    }
}
