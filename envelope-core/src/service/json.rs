//! JSON parameters read straight into bounded values.
//!
//! `serde_json::from_slice::<Value>` builds whatever a body describes: a 35 MB array of zeros
//! becomes 17 million `Value`s, gigabytes of memory. Here a [`DeserializeSeed`] builds the same
//! `Value`s while counting them, and refuses a body as soon as it has more values, deeper
//! nesting or longer strings than [`JsonLimits`] allow. The one top-level member that may be as
//! long as the body, `file_base64`, is never copied: it stays a range of the body's bytes and is
//! decoded in place later (`params::Base64Text`).
//!
//! This module must never buffer what it is told to refuse: it stops at the first value past a
//! limit.

use std::cell::Cell;
use std::fmt;
use std::ops::Range;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Limits of a JSON body or a JSON form part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonLimits {
    /// Values in total (every number, string, boolean, null, array, object and object key).
    pub max_values: usize,
    /// Arrays and objects inside each other.
    pub max_depth: usize,
    /// Bytes of one string (keys included), except the top-level `file_base64`.
    pub max_string_bytes: usize,
}

/// The limits of every request: far above what the largest valid request needs (500 fields of
/// about a dozen members each, 10 signers, 20 metadata keys), far below what costs memory.
pub const JSON_LIMITS: JsonLimits = JsonLimits {
    max_values: 100_000,
    max_depth: 32,
    max_string_bytes: 1024 * 1024,
};

/// The top-level member kept as a range of the body instead of a `String`.
pub(crate) const LARGE_MEMBER: &str = "file_base64";

/// The top-level list of documents (extensions E5): `files: [{file_name, file_base64}]`. Its
/// entries' `file_base64` may be as long as the body (each is copied once, then decoded in its
/// own buffer); every other string in it keeps the limit.
pub(crate) const FILES_MEMBER: &str = "files";

/// Where a value is, as far as string limits care.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Other,
    /// The top-level `files` list.
    Files,
    /// One entry of `files`.
    FilesEntry,
    /// `files[i].file_base64`: no length limit but the body's.
    Document,
}

/// The text of the large member: a range of the body (no escapes in it), or the unescaped
/// text when the body escaped some of it (`\/`, which some encoders write for every `/`).
#[derive(Clone)]
pub(crate) enum LargeText {
    InBody(Range<usize>),
    Unescaped(String),
}

/// What a JSON body parsed into.
pub(crate) struct Parsed {
    pub members: Map<String, Value>,
    pub large: Option<LargeText>,
}

/// Why a body was refused.
pub(crate) enum JsonError {
    /// Past one of the limits; the message names it.
    Limit(String),
    /// Not JSON, or not an object (serde_json's message, which never holds Debug output).
    Syntax(String),
    NotAnObject,
}

struct Budget {
    limits: JsonLimits,
    values: Cell<usize>,
    exceeded: Cell<Option<String>>,
}

impl Budget {
    fn new(limits: JsonLimits) -> Budget {
        Budget {
            limits,
            values: Cell::new(0),
            exceeded: Cell::new(None),
        }
    }

    fn refuse<E: de::Error>(&self, message: String) -> E {
        self.exceeded.set(Some(message));
        E::custom("limit exceeded")
    }

    fn count<E: de::Error>(&self) -> Result<(), E> {
        let n = self.values.get() + 1;
        self.values.set(n);
        if n > self.limits.max_values {
            return Err(self.refuse(format!(
                "The JSON has more than {} values; that is more than any request needs.",
                self.limits.max_values
            )));
        }
        Ok(())
    }

    fn string<E: de::Error>(&self, s: &str) -> Result<String, E> {
        self.count()?;
        if s.len() > self.limits.max_string_bytes {
            return Err(self.refuse(format!(
                "The JSON has a string longer than {} bytes.",
                self.limits.max_string_bytes
            )));
        }
        Ok(s.to_string())
    }

    fn finish(self, e: serde_json::Error) -> JsonError {
        match self.exceeded.take() {
            Some(message) => JsonError::Limit(message),
            None => JsonError::Syntax(e.to_string()),
        }
    }
}

/// Parses a request body that must be a JSON object (or `null`, no parameters).
pub(crate) fn parse_body(body: &[u8], limits: JsonLimits) -> Result<Parsed, JsonError> {
    let budget = Budget::new(limits);
    let mut de = serde_json::Deserializer::from_slice(body);
    let top = TopSeed {
        budget: &budget,
        body,
    };
    let parsed = top
        .deserialize(&mut de)
        .and_then(|p| de.end().map(|()| p))
        .map_err(|e| budget.finish(e))?;
    parsed.ok_or(JsonError::NotAnObject)
}

/// Parses one JSON value (a form part holding JSON text).
pub(crate) fn parse_value(text: &str, limits: JsonLimits) -> Result<Value, JsonError> {
    let budget = Budget::new(limits);
    let mut de = serde_json::Deserializer::from_str(text);
    ValueSeed {
        budget: &budget,
        depth: 0,
        place: Place::Other,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v))
    .map_err(|e| budget.finish(e))
}

/// The top level: an object (`Some`), `null` (no members) or anything else (`None`, refused
/// without reading further).
struct TopSeed<'a> {
    budget: &'a Budget,
    body: &'a [u8],
}

impl<'de> DeserializeSeed<'de> for TopSeed<'_> {
    type Value = Option<Parsed>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopSeed<'_> {
    type Value = Option<Parsed>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Some(Parsed {
            members: Map::new(),
            large: None,
        }))
    }

    // Anything but an object or null: answered without reading the rest.
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(self
            .budget
            .refuse("The request body must be a JSON object.".into()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Map::new();
        let mut large = None;
        while let Some(key) = map.next_key_seed(KeySeed(self.budget))? {
            if key == LARGE_MEMBER {
                self.budget.count()?;
                match map.next_value_seed(LargeSeed { body: self.body })? {
                    // Not a string: kept as a value, so that the parameter's check names it.
                    Err(value) => {
                        large = None;
                        members.insert(key, value);
                    }
                    Ok(text) => {
                        members.remove(&key);
                        large = Some(text);
                    }
                }
                continue;
            }
            let place = if key == FILES_MEMBER {
                Place::Files
            } else {
                Place::Other
            };
            let value = map.next_value_seed(ValueSeed {
                budget: self.budget,
                depth: 1,
                place,
            })?;
            members.insert(key, value);
        }
        Ok(Some(Parsed { members, large }))
    }
}

struct KeySeed<'a>(&'a Budget);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = String;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<String, E> {
        self.0.string(s)
    }
}

/// The large member: its place in the body when it is a string without escapes.
struct LargeSeed<'a> {
    body: &'a [u8],
}

impl<'de> DeserializeSeed<'de> for LargeSeed<'_> {
    type Value = Result<LargeText, Value>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for LargeSeed<'_> {
    type Value = Result<LargeText, Value>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
        // A borrowed string lies inside the body; its address gives its range.
        let start = (s.as_ptr() as usize).wrapping_sub(self.body.as_ptr() as usize);
        match start.checked_add(s.len()) {
            Some(end) if end <= self.body.len() => Ok(Ok(LargeText::InBody(start..end))),
            _ => Ok(Ok(LargeText::Unescaped(s.to_string()))),
        }
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Ok(LargeText::Unescaped(s.to_string())))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Err(Value::Null))
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Self::Value, E> {
        Ok(Err(Value::Bool(b)))
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Self::Value, E> {
        Ok(Err(Value::from(n)))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Self::Value, E> {
        Ok(Err(Value::from(n)))
    }
    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Self::Value, E> {
        Ok(Err(Number::from_f64(n).map_or(Value::Null, Value::Number)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(de::Error::custom("`file_base64` must be a string"))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(de::Error::custom("`file_base64` must be a string"))
    }
}

/// Any value, counted, at a depth.
struct ValueSeed<'a> {
    budget: &'a Budget,
    depth: usize,
    place: Place,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl ValueSeed<'_> {
    fn nest<E: de::Error>(&self) -> Result<(), E> {
        self.budget.count()?;
        if self.depth >= self.budget.limits.max_depth {
            return Err(self.budget.refuse(format!(
                "The JSON nests arrays and objects more than {} levels deep.",
                self.budget.limits.max_depth
            )));
        }
        Ok(())
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.budget.count()?;
        Ok(Value::Null)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        self.budget.count()?;
        Ok(Value::Bool(b))
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Value, E> {
        self.budget.count()?;
        Ok(Value::from(n))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Value, E> {
        self.budget.count()?;
        Ok(Value::from(n))
    }
    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Value, E> {
        self.budget.count()?;
        Ok(Number::from_f64(n).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        if self.place == Place::Document {
            self.budget.count()?;
            return Ok(Value::String(s.to_string()));
        }
        Ok(Value::String(self.budget.string(s)?))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.nest()?;
        let mut items = Vec::new();
        let place = if self.place == Place::Files {
            Place::FilesEntry
        } else {
            Place::Other
        };
        while let Some(v) = seq.next_element_seed(ValueSeed {
            budget: self.budget,
            depth: self.depth + 1,
            place,
        })? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.nest()?;
        let mut members = Map::new();
        while let Some(key) = map.next_key_seed(KeySeed(self.budget))? {
            let place = if self.place == Place::FilesEntry && key == LARGE_MEMBER {
                Place::Document
            } else {
                Place::Other
            };
            let value = map.next_value_seed(ValueSeed {
                budget: self.budget,
                depth: self.depth + 1,
                place,
            })?;
            members.insert(key, value);
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit_message(r: Result<Value, JsonError>) -> String {
        match r {
            Err(JsonError::Limit(m)) => m,
            Err(JsonError::Syntax(m)) => panic!("syntax error instead of a limit: {m}"),
            Err(JsonError::NotAnObject) => panic!("not an object instead of a limit"),
            Ok(v) => panic!("accepted: {v}"),
        }
    }

    const SMALL: JsonLimits = JsonLimits {
        max_values: 10,
        max_depth: 3,
        max_string_bytes: 5,
    };

    #[test]
    fn values_within_the_limits_are_the_values_serde_json_builds() {
        let text = r#"{"a":[1,-2,3.5,true,null],"b":{"c":"héllo"}}"#;
        let v = parse_value(text, JSON_LIMITS).ok().unwrap();
        assert_eq!(v, serde_json::from_str::<Value>(text).unwrap());
    }

    #[test]
    fn each_limit_is_named() {
        let m = limit_message(parse_value("[0,0,0,0,0,0,0,0,0,0,0]", SMALL));
        assert!(m.contains("more than 10 values"), "{m}");
        let m = limit_message(parse_value("[[[[1]]]]", SMALL));
        assert!(m.contains("more than 3 levels"), "{m}");
        let m = limit_message(parse_value(r#"["abcdef"]"#, SMALL));
        assert!(m.contains("longer than 5 bytes"), "{m}");
        let m = limit_message(parse_value(r#"{"abcdef":1}"#, SMALL));
        assert!(m.contains("longer than 5 bytes"), "{m}");
    }

    #[test]
    fn a_body_must_be_an_object_and_is_refused_at_its_first_byte() {
        // Truncated after the opening bracket: refused before the parser would notice.
        assert!(matches!(
            parse_body(b"[0,0,0", JSON_LIMITS),
            Err(JsonError::Limit(_))
        ));
        assert!(matches!(
            parse_body(b"\"x\"", JSON_LIMITS),
            Err(JsonError::NotAnObject)
        ));
        assert!(matches!(
            parse_body(b"{", JSON_LIMITS),
            Err(JsonError::Syntax(_))
        ));
        let p = parse_body(b"null", JSON_LIMITS).ok().unwrap();
        assert!(p.members.is_empty() && p.large.is_none());
    }

    #[test]
    fn the_large_member_stays_in_the_body() {
        let body = br#"{"name":"x","file_base64":"QUJD","send":false}"#;
        let p = parse_body(body, JSON_LIMITS).ok().unwrap();
        let Some(LargeText::InBody(r)) = p.large else {
            panic!("not in the body")
        };
        assert_eq!(&body[r], b"QUJD");
        assert_eq!(p.members.len(), 2);
        assert!(!p.members.contains_key("file_base64"));

        let escaped = br#"{"file_base64":"QU\/D"}"#;
        let p = parse_body(escaped, JSON_LIMITS).ok().unwrap();
        assert!(matches!(p.large, Some(LargeText::Unescaped(s)) if s == "QU/D"));

        // The documents of `files` may be longer than other strings; their names may not.
        let long = "A".repeat(64);
        let body = format!(r#"{{"files":[{{"file_name":"a.pdf","file_base64":"{long}"}}]}}"#);
        let tight = JsonLimits {
            max_string_bytes: 16,
            ..JSON_LIMITS
        };
        let p = parse_body(body.as_bytes(), tight).ok().unwrap();
        assert_eq!(p.members["files"][0]["file_base64"], long.as_str());
        let body = format!(r#"{{"files":[{{"file_name":"{long}","file_base64":"QUJD"}}]}}"#);
        assert!(matches!(
            parse_body(body.as_bytes(), tight),
            Err(JsonError::Limit(_))
        ));
        let body = format!(r#"{{"other":[{{"file_base64":"{long}"}}]}}"#);
        assert!(matches!(
            parse_body(body.as_bytes(), tight),
            Err(JsonError::Limit(_))
        ));

        // Not a string: a value for the parameter's own check to refuse.
        let p = parse_body(br#"{"file_base64":5}"#, JSON_LIMITS)
            .ok()
            .unwrap();
        assert_eq!(p.members["file_base64"], 5);
    }
}
