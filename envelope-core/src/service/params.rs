//! Request parameters: typed, validated, with dotted paths in every error.
//!
//! A front end hands the core either a JSON object or the text parts of a multipart form
//! ([`Params`]); the typed `*Params` structs are parsed from it here, so both forms and Rust
//! callers get the same checks and the same errors. Getters are type-directed: in a form, a
//! string parameter is taken raw and an object/array/boolean/number parameter is parsed from JSON
//! text (decisions.md, "Request bodies").

use std::collections::BTreeMap;

use bytes::Bytes;
use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// Raw parameters of one request.
#[derive(Debug, Clone)]
pub struct Params {
    source: Source,
    taken: Vec<String>,
}

#[derive(Debug, Clone)]
enum Source {
    Json(Map<String, Value>),
    Form(Vec<(String, String)>),
}

/// A PDF given by the caller: a multipart `file` part, or decoded from `file_base64`.
#[derive(Clone)]
pub struct Upload {
    pub file_name: String,
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
            }),
            Value::Null => Ok(Params::empty()),
            _ => Err(Error::InvalidBody {
                message: "The request body must be a JSON object.".into(),
            }),
        }
    }

    /// Parameters from the text parts of a multipart form (or a query string).
    pub fn form(parts: Vec<(String, String)>) -> Params {
        Params {
            source: Source::Form(parts),
            taken: Vec::new(),
        }
    }

    pub fn empty() -> Params {
        Params {
            source: Source::Json(Map::new()),
            taken: Vec::new(),
        }
    }

    /// True when no parameter was given at all.
    pub fn is_empty(&self) -> bool {
        match &self.source {
            Source::Json(m) => m.is_empty(),
            Source::Form(p) => p.is_empty(),
        }
    }

    fn raw(&mut self, name: &str) -> Result<Option<Raw>> {
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

    pub fn string(&mut self, name: &str) -> Result<Option<String>> {
        match self.raw(name)? {
            None => Ok(None),
            Some(Raw::Json(Value::String(s))) | Some(Raw::Text(s)) => Ok(Some(s)),
            Some(Raw::Json(_)) => Err(Error::invalid(name, "expected a string")),
        }
    }

    pub fn required_string(&mut self, name: &str) -> Result<String> {
        self.string(name)?.ok_or_else(|| Error::missing(name))
    }

    pub fn boolean(&mut self, name: &str) -> Result<Option<bool>> {
        match self.raw(name)? {
            None => Ok(None),
            Some(Raw::Json(Value::Bool(b))) => Ok(Some(b)),
            Some(Raw::Text(t)) if t == "true" => Ok(Some(true)),
            Some(Raw::Text(t)) if t == "false" => Ok(Some(false)),
            Some(_) => Err(Error::invalid(name, "expected a boolean (true or false)")),
        }
    }

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
            Some(Raw::Text(t)) => serde_json::from_str(&t)
                .map(Some)
                .map_err(|_| Error::invalid(name, "expected JSON text in this form part")),
        }
    }

    /// Refuses every parameter that was not asked for.
    pub fn finish(self) -> Result<()> {
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
    pub limit: usize,
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
