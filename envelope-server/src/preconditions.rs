//! HTTP's conditional edits (RFC 9110 §8.8.3 `ETag`, §13.1.1 `If-Match`) over the core's record
//! versions (extensions E11).
//!
//! A record's entity tag is its version, quoted: `ETag: "7"`, a strong validator (every write
//! raises the version). `If-Match` becomes a core [`Precondition`]; the core compares it with
//! the record it is about to change. This module only translates syntax: it never decides
//! whether an edit applies.

use hyper::HeaderMap;
use hyper::header::{HeaderValue, IF_MATCH};

use envelope_core::Error;
use envelope_core::service::Precondition;

/// The `ETag` value of a record at `version`: the version in double quotes.
pub fn etag(version: u64) -> HeaderValue {
    // Written by hand, not with `format!`: it is on every GET of an envelope, whose
    // instructions are counted (docs/PERFORMANCE.md, "Instructions per GET").
    let mut buf = [0u8; 22]; // u64::MAX has 20 digits
    let mut at = buf.len() - 1;
    buf[at] = b'"';
    let mut n = version;
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    at -= 1;
    buf[at] = b'"';
    // Digits and quotes only: always a valid header value.
    HeaderValue::from_bytes(&buf[at..]).unwrap_or(HeaderValue::from_static("\"0\""))
}

/// The precondition of the request's `If-Match` header(s), `None` when there is none.
///
/// `*` is [`Precondition::Any`]. A list of entity tags is the versions among them, compared
/// strongly: a weak tag (`W/"7"`) or one that is not a version this server gives (`"abc"`,
/// `"07"`) matches nothing, so a list of only such tags is an empty [`Precondition::Versions`].
/// A value that is not `*` nor a list of entity tags is `parameter_invalid` with the param
/// `If-Match`.
pub fn if_match(headers: &HeaderMap) -> Result<Option<Precondition>, Error> {
    let mut values = headers.get_all(IF_MATCH).iter().peekable();
    if values.peek().is_none() {
        return Ok(None);
    }
    let mut any = false;
    let mut versions = Vec::new();
    let mut tags = 0usize;
    for v in values {
        let v = v.to_str().map_err(|_| invalid("it is not visible ASCII"))?;
        for item in v.split(',') {
            let item = item.trim_matches([' ', '\t']);
            if item.is_empty() {
                // RFC 9110 §5.6.1: empty list elements are ignored.
                continue;
            }
            tags += 1;
            if item == "*" {
                any = true;
                continue;
            }
            let (weak, tag) = match item.strip_prefix("W/") {
                Some(rest) => (true, rest),
                None => (false, item),
            };
            let opaque = tag
                .strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                .filter(|t| t.bytes().all(is_etagc))
                .ok_or_else(|| {
                    invalid("each entity tag must be a quoted string, such as \"3\" (or W/\"3\")")
                })?;
            if !weak && let Some(n) = version(opaque) {
                versions.push(n);
            }
        }
    }
    match (any, tags) {
        (_, 0) => Err(invalid("it is empty")),
        (true, 1) => Ok(Some(Precondition::Any)),
        (true, _) => Err(invalid("`*` cannot be combined with entity tags")),
        (false, _) => Ok(Some(Precondition::Versions(versions))),
    }
}

/// RFC 9110 `etagc`: `%x21 / %x23-7E / obs-text` (header values here are visible ASCII).
fn is_etagc(b: u8) -> bool {
    b == 0x21 || (0x23..=0x7e).contains(&b)
}

/// The version an opaque tag names, when it is one exactly as [`etag`] writes it (strong
/// comparison is character by character: `"07"` is not `"7"`).
fn version(opaque: &str) -> Option<u64> {
    // `u64::from_str` also takes `+7` and `007`: only the canonical spelling is this tag.
    let n: u64 = opaque.parse().ok()?;
    (n.to_string() == opaque).then_some(n)
}

fn invalid(why: &str) -> Error {
    Error::ParameterInvalid {
        param: "If-Match".into(),
        message: format!(
            "The If-Match header must be `*` or a comma-separated list of entity tags as \
             answered in ETag; {why}."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(values: &[&str]) -> Result<Option<Precondition>, Error> {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(IF_MATCH, HeaderValue::from_str(v).unwrap());
        }
        if_match(&h)
    }

    #[test]
    fn if_match_values_become_preconditions() {
        use Precondition::*;
        let cases: &[(&[&str], Option<Precondition>)] = &[
            (&[], None),
            (&["*"], Some(Any)),
            (&["\"3\""], Some(Versions(vec![3]))),
            (&["\"3\", \"5\""], Some(Versions(vec![3, 5]))),
            (&["\"3\"", "\"5\""], Some(Versions(vec![3, 5]))),
            (&[" \"3\" ,, "], Some(Versions(vec![3]))),
            (&["W/\"3\""], Some(Versions(vec![]))),
            (&["W/\"3\", \"4\""], Some(Versions(vec![4]))),
            (&["\"abc\""], Some(Versions(vec![]))),
            (&["\"07\""], Some(Versions(vec![]))),
            (&["\"+7\""], Some(Versions(vec![]))),
            (&["\"\""], Some(Versions(vec![]))),
        ];
        for (values, expected) in cases {
            assert_eq!(parse(values).unwrap(), *expected, "{values:?}");
        }
    }

    #[test]
    fn malformed_if_match_values_are_refused_on_the_header() {
        for bad in [
            "3", "\"3", "3\"", "w/\"3\"", "\"a\"b\"", "\"a b\"", "*, \"3\"", "", " , ",
        ] {
            let e = parse(&[bad]).unwrap_err();
            assert_eq!(e.code(), "parameter_invalid", "{bad:?}");
            assert_eq!(e.param().as_deref(), Some("If-Match"), "{bad:?}");
        }
    }

    #[test]
    fn an_etag_is_the_quoted_version_and_reads_back() {
        let mut h = HeaderMap::new();
        h.insert(IF_MATCH, etag(42));
        assert_eq!(etag(42), "\"42\"");
        assert_eq!(etag(0), "\"0\"");
        assert_eq!(etag(u64::MAX), format!("\"{}\"", u64::MAX).as_str());
        assert_eq!(
            if_match(&h).unwrap(),
            Some(Precondition::Versions(vec![42]))
        );
    }
}
