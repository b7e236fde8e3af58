//! Request parameters: typed, validated, with dotted paths in every error.
//!
//! A front end hands the core either a JSON object or the text parts of a multipart form
//! ([`Params`]); the typed `*Params` structs are parsed from it here, so both forms and Rust
//! callers get the same checks and the same errors. Getters are type-directed: in a form, a
//! string parameter is taken raw and an object/array/boolean/number parameter is parsed from JSON
//! text (decisions.md, "Request bodies").

use std::collections::BTreeMap;

use base64::Engine;
use bytes::Bytes;
use serde_json::{Map, Value};

use super::json::{self, JSON_LIMITS, JsonError, LARGE_MEMBER, LargeText};
use crate::error::{Error, Result};
use crate::store::PageRequest;

/// Documents an envelope may have (extensions E5), a template's included.
pub const MAX_DOCUMENTS: usize = 10;

/// Raw parameters of one request.
#[derive(Debug, Clone)]
pub struct Params {
    source: Source,
    taken: Vec<String>,
    /// The top-level `file_base64` of a JSON body, still in the body's bytes.
    large: Option<Base64Text>,
}

/// The text of a base64 parameter, kept where it arrived (a request body, a form part) so that
/// decoding writes the bytes into the same buffer instead of holding the text and a copy.
#[derive(Clone)]
pub(crate) struct Base64Text {
    buf: Vec<u8>,
    range: std::ops::Range<usize>,
}

impl std::fmt::Debug for Base64Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Base64Text")
            .field("len", &self.range.len())
            .finish()
    }
}

impl Base64Text {
    fn whole(text: String) -> Base64Text {
        let buf = text.into_bytes();
        Base64Text {
            range: 0..buf.len(),
            buf,
        }
    }

    /// Bytes of text, whitespace included.
    pub(crate) fn len(&self) -> usize {
        self.range.len()
    }

    /// Decodes standard base64 (padding required, ASCII whitespace anywhere ignored) into the
    /// buffer that held the text, and frees the rest of it; `None` when the text is not base64.
    pub(crate) fn decode(self) -> Option<Bytes> {
        let Base64Text { mut buf, range } = self;
        let len = decode_in_place(&mut buf, range)?;
        buf.truncate(len);
        // Gives the text's tail back (a large buffer shrinks where it is).
        buf.shrink_to_fit();
        Some(Bytes::from(buf))
    }
}

/// Decodes standard base64 text in its own buffer (see [`Base64Text::decode`]).
pub(crate) fn decode_base64(text: String) -> Option<Bytes> {
    Base64Text::whole(text).decode()
}

/// Decodes `buf[range]` into `buf[..n]` and returns `n`. Writing never overtakes reading: each
/// 4 characters read give at most 3 bytes written, from the start of the buffer.
fn decode_in_place(buf: &mut [u8], range: std::ops::Range<usize>) -> Option<usize> {
    const CHUNK: usize = 1024;
    let engine = &base64::engine::general_purpose::STANDARD;
    let total = buf[range.clone()]
        .iter()
        .filter(|b| !b.is_ascii_whitespace())
        .count();
    let mut chunk = [0u8; CHUNK];
    let mut out = [0u8; CHUNK / 4 * 3];
    let (mut read, mut written, mut seen) = (range.start, 0, 0);
    while seen < total {
        let mut n = 0;
        while n < CHUNK && read < range.end {
            let c = buf[read];
            read += 1;
            if !c.is_ascii_whitespace() {
                chunk[n] = c;
                n += 1;
            }
        }
        seen += n;
        // Padding may only end the text; a middle chunk decodes without any.
        if seen < total && chunk[..n].contains(&b'=') {
            return None;
        }
        let k = engine.decode_slice(&chunk[..n], &mut out).ok()?;
        buf[written..written + k].copy_from_slice(&out[..k]);
        written += k;
    }
    Some(written)
}

#[derive(Debug, Clone)]
enum Source {
    Json(Map<String, Value>),
    Form(Vec<(String, String)>),
}

/// A PDF given by the caller: a multipart `file` part, or decoded from `file_base64`.
#[derive(Clone)]
pub struct Upload {
    /// The file name sent with the upload.
    pub file_name: String,
    /// The content of the file.
    pub bytes: Bytes,
}

impl std::fmt::Debug for Upload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upload")
            .field("file_name", &self.file_name)
            .field("len", &self.bytes.len())
            .finish()
    }
}

impl Params {
    /// Parameters from a JSON body; anything but an object is refused.
    pub fn json(value: Value) -> Result<Params> {
        match value {
            Value::Object(map) => Ok(Params {
                source: Source::Json(map),
                taken: Vec::new(),
                large: None,
            }),
            Value::Null => Ok(Params::empty()),
            _ => Err(Error::InvalidBody {
                message: "The request body must be a JSON object.".into(),
            }),
        }
    }

    /// Parameters from the bytes of a JSON body, read into bounded values (see
    /// `JSON_LIMITS`): a body past a limit is refused with a message naming it, before
    /// it costs more than its own size. A top-level `file_base64` stays in `body` and is later
    /// decoded there. Whitespace only is no parameters.
    pub fn json_body(body: Vec<u8>) -> Result<Params> {
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Params::empty());
        }
        let parsed = json::parse_body(&body, JSON_LIMITS).map_err(|e| Error::InvalidBody {
            message: match e {
                JsonError::Limit(m) => m,
                JsonError::Syntax(m) => format!("The request body is not valid JSON: {m}."),
                JsonError::NotAnObject => "The request body must be a JSON object.".into(),
            },
        })?;
        let large = parsed.large.map(|text| match text {
            LargeText::InBody(range) => Base64Text { buf: body, range },
            LargeText::Unescaped(s) => Base64Text::whole(s),
        });
        Ok(Params {
            source: Source::Json(parsed.members),
            taken: Vec::new(),
            large,
        })
    }

    /// Parameters from the text parts of a multipart form (or a query string).
    pub fn form(parts: Vec<(String, String)>) -> Params {
        Params {
            source: Source::Form(parts),
            taken: Vec::new(),
            large: None,
        }
    }

    /// Parameters with no keys, for requests without a body.
    pub fn empty() -> Params {
        Params {
            source: Source::Json(Map::new()),
            taken: Vec::new(),
            large: None,
        }
    }

    /// True when the parameters came from the text parts of a multipart form (or a query
    /// string), false for a JSON body.
    pub fn is_form(&self) -> bool {
        matches!(self.source, Source::Form(_))
    }

    /// True when no parameter was given at all.
    pub fn is_empty(&self) -> bool {
        self.large.is_none()
            && match &self.source {
                Source::Json(m) => m.is_empty(),
                Source::Form(p) => p.is_empty(),
            }
    }

    /// A base64 parameter, taken without copying its text.
    pub(crate) fn base64(&mut self, name: &str) -> Result<Option<Base64Text>> {
        if name == LARGE_MEMBER
            && let Some(text) = self.large.take()
        {
            self.taken.push(name.to_string());
            return Ok(Some(text));
        }
        Ok(self.string(name)?.map(Base64Text::whole))
    }

    fn raw(&mut self, name: &str) -> Result<Option<Raw>> {
        if name == LARGE_MEMBER
            && let Some(text) = self.large.take()
        {
            self.taken.push(name.to_string());
            let bytes = text.buf[text.range].to_vec();
            return String::from_utf8(bytes)
                .map(|s| Some(Raw::Text(s)))
                .map_err(|_| Error::invalid(name, "expected a string"));
        }
        self.taken.push(name.to_string());
        Ok(match &self.source {
            Source::Json(m) => match m.get(name) {
                None | Some(Value::Null) => None,
                Some(v) => Some(Raw::Json(v.clone())),
            },
            Source::Form(parts) => {
                let mut found = parts.iter().filter(|(k, _)| k == name);
                let first = found.next();
                if found.next().is_some() {
                    return Err(Error::invalid(
                        name,
                        "the parameter is given more than once",
                    ));
                }
                first.map(|(_, v)| Raw::Text(v.clone()))
            }
        })
    }

    /// Takes the key `name` as a string, `None` if absent; a value of another type is a
    /// `parameter_invalid` error.
    pub fn string(&mut self, name: &str) -> Result<Option<String>> {
        match self.raw(name)? {
            None => Ok(None),
            Some(Raw::Json(Value::String(s))) | Some(Raw::Text(s)) => Ok(Some(s)),
            Some(Raw::Json(_)) => Err(Error::invalid(name, "expected a string")),
        }
    }

    /// Takes the key `name` as a string; absent is a `parameter_missing` error.
    pub fn required_string(&mut self, name: &str) -> Result<String> {
        self.string(name)?.ok_or_else(|| Error::missing(name))
    }

    /// Takes the key `name` as a boolean, `None` if absent; a value of another type is a
    /// `parameter_invalid` error.
    pub fn boolean(&mut self, name: &str) -> Result<Option<bool>> {
        match self.raw(name)? {
            None => Ok(None),
            Some(Raw::Json(Value::Bool(b))) => Ok(Some(b)),
            Some(Raw::Text(t)) if t == "true" => Ok(Some(true)),
            Some(Raw::Text(t)) if t == "false" => Ok(Some(false)),
            Some(_) => Err(Error::invalid(name, "expected a boolean (true or false)")),
        }
    }

    /// Takes the key `name` as an integer, `None` if absent; a value of another type is a
    /// `parameter_invalid` error.
    pub fn integer(&mut self, name: &str) -> Result<Option<i64>> {
        match self.raw(name)? {
            None => Ok(None),
            Some(Raw::Json(Value::Number(n))) => n
                .as_i64()
                .map(Some)
                .ok_or_else(|| Error::invalid(name, "expected an integer")),
            Some(Raw::Text(t)) => t
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| Error::invalid(name, "expected an integer")),
            Some(_) => Err(Error::invalid(name, "expected an integer")),
        }
    }

    /// An object or array parameter (JSON text in a form).
    pub fn json_value(&mut self, name: &str) -> Result<Option<Value>> {
        match self.raw(name)? {
            None => Ok(None),
            Some(Raw::Json(v)) => Ok(Some(v)),
            Some(Raw::Text(t)) => {
                json::parse_value(&t, JSON_LIMITS)
                    .map(Some)
                    .map_err(|e| match e {
                        JsonError::Limit(m) => Error::invalid(name, m.trim_end_matches('.')),
                        _ => Error::invalid(name, "expected JSON text in this form part"),
                    })
            }
        }
    }

    /// Refuses every parameter that was not asked for.
    pub fn finish(self) -> Result<()> {
        if self.large.is_some() {
            return Err(Error::ParameterUnknown {
                param: LARGE_MEMBER.into(),
            });
        }
        let unknown = match &self.source {
            Source::Json(m) => m
                .keys()
                .find(|k| !self.taken.iter().any(|t| t == *k))
                .cloned(),
            Source::Form(p) => p
                .iter()
                .map(|(k, _)| k)
                .find(|k| !self.taken.iter().any(|t| t == *k))
                .cloned(),
        };
        match unknown {
            Some(param) => Err(Error::ParameterUnknown { param }),
            None => Ok(()),
        }
    }
}

enum Raw {
    Json(Value),
    Text(String),
}

/// Reads the members of a JSON object parameter with dotted paths.
pub(crate) struct Obj<'a> {
    path: String,
    map: &'a Map<String, Value>,
    taken: Vec<&'static str>,
}

impl<'a> Obj<'a> {
    pub(crate) fn new(path: impl Into<String>, v: &'a Value) -> Result<Obj<'a>> {
        let path = path.into();
        match v {
            Value::Object(map) => Ok(Obj {
                path,
                map,
                taken: Vec::new(),
            }),
            _ => Err(Error::invalid(path, "expected an object")),
        }
    }

    pub(crate) fn at(&self, name: &str) -> String {
        format!("{}.{name}", self.path)
    }

    fn get(&mut self, name: &'static str) -> Option<&'a Value> {
        self.taken.push(name);
        self.map.get(name).filter(|v| !v.is_null())
    }

    /// A member as JSON (`null` counts as not given).
    pub(crate) fn value(&mut self, name: &'static str) -> Option<&'a Value> {
        self.get(name)
    }

    pub(crate) fn string(&mut self, name: &'static str) -> Result<Option<String>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(Error::invalid(self.at(name), "expected a string")),
        }
    }

    pub(crate) fn required_string(&mut self, name: &'static str) -> Result<String> {
        self.string(name)?
            .ok_or_else(|| Error::missing(self.at(name)))
    }

    pub(crate) fn boolean(&mut self, name: &'static str) -> Result<Option<bool>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(Error::invalid(self.at(name), "expected a boolean")),
        }
    }

    pub(crate) fn number(&mut self, name: &'static str) -> Result<Option<f64>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_f64()
                .filter(|f| f.is_finite())
                .map(Some)
                .ok_or_else(|| Error::invalid(self.at(name), "expected a number")),
            Some(_) => Err(Error::invalid(self.at(name), "expected a number")),
        }
    }

    pub(crate) fn required_number(&mut self, name: &'static str) -> Result<f64> {
        self.number(name)?
            .ok_or_else(|| Error::missing(self.at(name)))
    }

    pub(crate) fn integer(&mut self, name: &'static str) -> Result<Option<i64>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .map(Some)
                .ok_or_else(|| Error::invalid(self.at(name), "expected an integer")),
            Some(_) => Err(Error::invalid(self.at(name), "expected an integer")),
        }
    }

    pub(crate) fn finish(self) -> Result<()> {
        match self.map.keys().find(|k| !self.taken.contains(&k.as_str())) {
            Some(k) => Err(Error::ParameterUnknown {
                param: format!("{}.{k}", self.path),
            }),
            None => Ok(()),
        }
    }
}

/// Checks a name-like string: trimmed non-empty, at most `max` characters, no control characters.
pub(crate) fn check_text(param: &str, s: &str, max: usize) -> Result<()> {
    if s.trim().is_empty() {
        return Err(Error::invalid(param, "must not be empty"));
    }
    if s.chars().count() > max {
        return Err(Error::invalid(
            param,
            format!("must be at most {max} characters"),
        ));
    }
    if s.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return Err(Error::invalid(param, "must not contain control characters"));
    }
    Ok(())
}

/// `description` (templates, webhook endpoints): at most 5,000 characters.
pub(crate) fn check_description(d: Option<&str>) -> Result<()> {
    match d {
        Some(d) if d.chars().count() > 5000 => Err(Error::invalid(
            "description",
            "must be at most 5000 characters",
        )),
        _ => Ok(()),
    }
}

/// A pragmatic email check: one `@`, a non-empty local part, a domain with a dot, no spaces,
/// at most 254 characters. Deliverability is the mail system's business.
pub(crate) fn check_email(param: &str, s: &str) -> Result<()> {
    let ok = s.len() <= 254
        && !s
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '<' || c == '>' || c == ',')
        && match s.split_once('@') {
            Some((local, domain)) => {
                !local.is_empty()
                    && !domain.contains('@')
                    && domain.contains('.')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
                    && !domain.contains("..")
            }
            None => false,
        };
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(param, "must be an email address"))
    }
}

/// `metadata`: at most `max_keys` keys of at most 40 characters, string values of at most 500.
pub(crate) fn metadata(v: Option<Value>, max_keys: usize) -> Result<BTreeMap<String, String>> {
    let Some(v) = v else {
        return Ok(BTreeMap::new());
    };
    let Value::Object(map) = v else {
        return Err(Error::invalid(
            "metadata",
            "expected an object of string values",
        ));
    };
    if map.len() > max_keys {
        return Err(Error::invalid(
            "metadata",
            format!("at most {max_keys} keys are allowed"),
        ));
    }
    let mut out = BTreeMap::new();
    for (k, v) in map {
        let param = format!("metadata.{k}");
        if k.is_empty() || k.chars().count() > 40 {
            return Err(Error::invalid(param, "keys must be 1 to 40 characters"));
        }
        match v {
            Value::String(s) if s.chars().count() <= 500 => {
                out.insert(k, s);
            }
            Value::String(_) => {
                return Err(Error::invalid(
                    param,
                    "values must be at most 500 characters",
                ));
            }
            _ => return Err(Error::invalid(param, "values must be strings")),
        }
    }
    Ok(out)
}

/// `limit` and `starting_after` of a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListParams {
    /// How many items to return (key `limit`), at most `Limits::max_list_limit`.
    pub limit: usize,
    /// The ID after which the page starts (key `starting_after`), for cursor pagination.
    pub starting_after: Option<String>,
}

impl Default for ListParams {
    fn default() -> Self {
        ListParams {
            limit: 10,
            starting_after: None,
        }
    }
}

impl ListParams {
    /// Takes `limit` and `starting_after` out of `params` (1 to `max`, default 10).
    pub fn take(params: &mut Params, max: usize) -> Result<ListParams> {
        let limit = match params.integer("limit")? {
            None => 10,
            Some(n) if n >= 1 && n as u64 <= max as u64 => n as usize,
            Some(_) => {
                return Err(Error::invalid(
                    "limit",
                    format!("must be between 1 and {max}"),
                ));
            }
        };
        let starting_after = params.string("starting_after")?;
        if let Some(s) = &starting_after
            && (s.is_empty() || s.len() > 64)
        {
            return Err(Error::invalid("starting_after", "must be an ID"));
        }
        Ok(ListParams {
            limit,
            starting_after,
        })
    }
}

/// The answer to a list whose `starting_after` names no object of the list.
pub(crate) fn unknown_cursor(resource: &'static str, page: &PageRequest) -> Error {
    Error::NotFound {
        resource,
        id: page.starting_after.clone().unwrap_or_default(),
        param: Some("starting_after".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn form_strings_are_raw_and_objects_are_json() {
        let mut p = Params::form(vec![
            ("name".into(), "{not json}".into()),
            ("send".into(), "false".into()),
            ("metadata".into(), r#"{"a":"b"}"#.into()),
            ("expires_in_days".into(), "7".into()),
        ]);
        assert_eq!(p.string("name").unwrap().unwrap(), "{not json}");
        assert_eq!(p.boolean("send").unwrap(), Some(false));
        assert_eq!(p.json_value("metadata").unwrap(), Some(json!({"a":"b"})));
        assert_eq!(p.integer("expires_in_days").unwrap(), Some(7));
        p.finish().unwrap();
    }

    #[test]
    fn unknown_and_wrong_types_are_named() {
        let mut p = Params::json(json!({"name": 5, "zzz": 1})).unwrap();
        let e = p.string("name").unwrap_err();
        assert_eq!(
            (e.code(), e.param().as_deref()),
            ("parameter_invalid", Some("name"))
        );
        let e = p.finish().unwrap_err();
        assert_eq!(
            (e.code(), e.param().as_deref()),
            ("parameter_unknown", Some("zzz"))
        );
        assert_eq!(Params::json(json!([1])).unwrap_err().code(), "invalid_body");
    }

    fn decode(text: &str) -> Option<Vec<u8>> {
        Base64Text::whole(text.to_string())
            .decode()
            .map(|b| b.to_vec())
    }

    #[test]
    fn base64_decodes_in_place_like_the_standard_engine() {
        let engine = &base64::engine::general_purpose::STANDARD;
        // Lengths around the chunk size, with padding of every kind.
        for len in [0, 1, 2, 3, 767, 768, 769, 770, 3000] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
            let text = engine.encode(&data);
            assert_eq!(decode(&text).as_deref(), Some(&data[..]), "{len}");
            let spaced: String = text
                .as_bytes()
                .chunks(76)
                .map(|c| format!("{}\r\n ", std::str::from_utf8(c).unwrap()))
                .collect();
            assert_eq!(decode(&spaced).as_deref(), Some(&data[..]), "{len} spaced");
        }
        // The text sits in a larger buffer (a JSON body): decoding starts at its range.
        let body = br#"{"file_base64":"QUJDRA=="}"#.to_vec();
        let text = Base64Text {
            range: 16..24,
            buf: body,
        };
        assert_eq!(text.len(), 8);
        assert_eq!(&text.decode().unwrap()[..], b"ABCD");
    }

    #[test]
    fn base64_refuses_what_the_standard_engine_refuses() {
        let long_then_padding = format!("{}QQ==QUJD", "QUJD".repeat(300));
        for bad in [
            "QQ",
            "QQ=",
            "Q===",
            "QR==",
            "QU*D",
            "QQ==QUJD",
            &long_then_padding,
        ] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn json_bodies_keep_file_base64_for_decoding() {
        let mut p = Params::json_body(br#"{"file_base64":"QUJD","name":"x"}"#.to_vec()).unwrap();
        assert!(!p.is_empty());
        assert_eq!(p.string("name").unwrap().unwrap(), "x");
        let text = p.base64("file_base64").unwrap().unwrap();
        assert_eq!(&text.decode().unwrap()[..], b"ABC");
        p.finish().unwrap();

        let p = Params::json_body(br#"{"file_base64":"QUJD"}"#.to_vec()).unwrap();
        let e = p.finish().unwrap_err();
        assert_eq!(e.param().as_deref(), Some("file_base64"));

        let zeros = format!("{{\"a\":[{}0]}}", "0,".repeat(200_000));
        let e = Params::json_body(zeros.into_bytes()).unwrap_err();
        assert_eq!(e.code(), "invalid_body");
        assert!(e.to_string().contains("more than 100000 values"), "{e}");
    }

    #[test]
    fn json_form_parts_are_bounded_too() {
        let deep = format!("{}{}", "[".repeat(40), "]".repeat(40));
        let mut p = Params::form(vec![("fields".into(), deep)]);
        let e = p.json_value("fields").unwrap_err();
        assert_eq!(e.param().as_deref(), Some("fields"));
        assert!(e.to_string().contains("32 levels"), "{e}");
    }

    #[test]
    fn emails() {
        for ok in ["a@b.co", "first.last+tag@sub.example.org"] {
            check_email("e", ok).unwrap();
        }
        for bad in [
            "", "a", "a@b", "@b.co", "a@.co", "a@b.co.", "a b@c.de", "a@b@c.de", "a@b..c",
        ] {
            assert!(check_email("e", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn metadata_limits() {
        let many: Map<String, Value> = (0..21).map(|i| (format!("k{i}"), json!("v"))).collect();
        assert!(metadata(Some(Value::Object(many)), 20).is_err());
        let e = metadata(Some(json!({"a": 1})), 20).unwrap_err();
        assert_eq!(e.param().as_deref(), Some("metadata.a"));
        assert_eq!(metadata(None, 20).unwrap().len(), 0);
    }

    #[test]
    fn list_limit_range() {
        let mut p = Params::form(vec![("limit".into(), "0".into())]);
        assert!(ListParams::take(&mut p, 100).is_err());
        let mut p = Params::form(vec![("limit".into(), "100".into())]);
        assert_eq!(ListParams::take(&mut p, 100).unwrap().limit, 100);
        let mut p = Params::form(vec![("limit".into(), "101".into())]);
        assert!(ListParams::take(&mut p, 100).is_err());
    }
}
