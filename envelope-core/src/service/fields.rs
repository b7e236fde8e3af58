//! Field lists: parsing explicit `fields`, key numbering, and the roles a document defines.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::params::{Obj, check_text};
use crate::error::{Error, Result};
use crate::field::{
    Condition, ConditionValue, Field, FieldSource, FieldType, MAX_CONDITION_TEXT, MAX_LABEL_CHARS,
    MAX_OPTIONS, PlacedField, SENDER,
};
use crate::formula::Formula;
use crate::pdf::{self, OptionsProblem};

/// Parses the `fields` parameter (decisions.md's field object). Keys left out get
/// `<role>_<type>` (numbered from `_2`), unique against `taken`. `found` are the fields the
/// documents already have (tags, form fields, a template's), which conditions and formulas may
/// read.
pub(crate) fn parse_fields(
    v: &Value,
    max: usize,
    taken: &mut HashSet<String>,
    found: &[PlacedField],
) -> Result<Vec<Field>> {
    let Value::Array(items) = v else {
        return Err(Error::invalid(
            "fields",
            "expected an array of field objects",
        ));
    };
    if items.len() > max {
        return Err(Error::invalid(
            "fields",
            format!("at most {max} fields are allowed"),
        ));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("fields.{i}");
        let mut o = Obj::new(&path, item)?;
        let kind_s = o.required_string("type")?;
        let kind = FieldType::parse(&kind_s).ok_or_else(|| {
            Error::invalid(
                o.at("type"),
                "must be one of signature, initials, date, text, checkbox, radio, select, number, \
                 attachment",
            )
        })?;
        let role = o.string("role")?;
        if let Some(r) = &role {
            check_role(&o.at("role"), r)?;
        }
        let filled_by = match (o.string("filled_by")?, &role) {
            (None, Some(r)) => r.clone(),
            (None, None) => SENDER.to_string(),
            (Some(f), Some(r)) if &f == r => f,
            (Some(f), None) if f == SENDER => f,
            (Some(_), _) => {
                return Err(Error::invalid(
                    o.at("filled_by"),
                    "must be the field's role, or \"sender\" for a field without role",
                ));
            }
        };
        if role.is_none() && matches!(kind, FieldType::Signature | FieldType::Initials) {
            return Err(Error::invalid(
                o.at("role"),
                "signature and initials fields need a role",
            ));
        }
        // A file comes from a signer's upload; the sender has no way to give one.
        if role.is_none() && kind == FieldType::Attachment {
            return Err(Error::invalid(
                o.at("role"),
                "attachment fields need a role: a signer uploads the file",
            ));
        }
        let required = o
            .boolean("required")?
            .unwrap_or(kind != FieldType::Checkbox);
        let page = o
            .integer("page")?
            .ok_or_else(|| Error::missing(o.at("page")))?;
        if !(1..=100_000).contains(&page) {
            return Err(Error::invalid(o.at("page"), "must be a page number from 1"));
        }
        let x = o.required_number("x")?;
        let y = o.required_number("y")?;
        let width = o.required_number("width")?;
        let height = o.required_number("height")?;
        let options = parse_options(&o.at("options"), kind, o.value("options"))?;
        let key = match o.string("key")? {
            Some(k) => {
                check_key(&o.at("key"), &k)?;
                if !taken.insert(k.clone()) {
                    return Err(Error::invalid(
                        o.at("key"),
                        format!("the key '{k}' is used by another field"),
                    ));
                }
                k
            }
            None => next_key(taken, role.as_deref().unwrap_or(SENDER), kind),
        };
        let document = match o.integer("document")? {
            None => 1,
            Some(n) if (1..=super::params::MAX_DOCUMENTS as i64).contains(&n) => n as u32,
            Some(_) => {
                return Err(Error::invalid(
                    o.at("document"),
                    format!(
                        "must be a document number from 1 to {}",
                        super::params::MAX_DOCUMENTS
                    ),
                ));
            }
        };
        let label = o.string("label")?;
        if let Some(l) = &label {
            check_text(&o.at("label"), l, MAX_LABEL_CHARS)?;
        }
        let condition = match o.value("condition") {
            None | Some(Value::Null) => None,
            Some(v) => Some(parse_condition(&o.at("condition"), v)?),
        };
        let formula = match o.value("formula") {
            None | Some(Value::Null) => None,
            Some(Value::String(src)) if kind == FieldType::Number => {
                Formula::parse(src).map_err(|e| Error::invalid(o.at("formula"), e.to_string()))?;
                Some(src.clone())
            }
            Some(Value::String(_)) => {
                return Err(Error::invalid(
                    o.at("formula"),
                    "only number fields take a formula",
                ));
            }
            Some(_) => {
                return Err(Error::invalid(
                    o.at("formula"),
                    "expected a string such as \"{qty} * {price}\"",
                ));
            }
        };
        o.finish()?;
        out.push(Field {
            key,
            kind,
            role,
            filled_by,
            required,
            page: page as u32,
            x,
            y,
            width,
            height,
            document,
            options,
            label,
            condition,
            formula,
        });
    }
    check_conditions(&out, taken)?;
    check_formulas(&out, found)?;
    Ok(out)
}

/// A field's `condition` (extensions E14): `field` (a key), and exactly one of `equals` (a
/// string of at most [`MAX_CONDITION_TEXT`] characters, or a boolean) and `filled` (a boolean).
fn parse_condition(path: &str, v: &Value) -> Result<Condition> {
    let mut o = Obj::new(path, v)?;
    let field = o.required_string("field")?;
    check_key(&o.at("field"), &field)?;
    let equals = match o.value("equals") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(ConditionValue::Bool(*b)),
        Some(Value::String(t)) => {
            if t.chars().count() > MAX_CONDITION_TEXT {
                return Err(Error::invalid(
                    o.at("equals"),
                    format!("at most {MAX_CONDITION_TEXT} characters"),
                ));
            }
            Some(ConditionValue::Text(t.trim().to_string()))
        }
        Some(_) => {
            return Err(Error::invalid(
                o.at("equals"),
                "expected a string, or a boolean for a check box",
            ));
        }
    };
    let filled = o.boolean("filled")?;
    o.finish()?;
    if equals.is_some() == filled.is_some() {
        return Err(Error::invalid(
            path,
            "give exactly one of `equals` and `filled`",
        ));
    }
    Ok(Condition {
        field,
        equals,
        filled,
    })
}

/// How many conditions a chain may hold (c reads b, b reads a, ...).
pub const MAX_CONDITION_DEPTH: usize = 10;

/// Every condition reads another field the envelope has (`known`: every key, these fields'
/// included), not its own, and conditions do not go round in a circle (each would wait on the
/// other). Errors name `fields.N.condition.field`.
fn check_conditions(fields: &[Field], known: &HashSet<String>) -> Result<()> {
    let on: std::collections::HashMap<&str, &str> = fields
        .iter()
        .filter_map(|f| {
            f.condition
                .as_ref()
                .map(|c| (f.key.as_str(), c.field.as_str()))
        })
        .collect();
    for (i, f) in fields.iter().enumerate() {
        let Some(c) = &f.condition else { continue };
        let param = format!("fields.{i}.condition.field");
        if c.field == f.key {
            return Err(Error::invalid(
                param,
                "a field's condition cannot read the field itself",
            ));
        }
        if !known.contains(&c.field) {
            return Err(Error::invalid(
                param,
                format!("no field of this envelope has the key '{}'", c.field),
            ));
        }
        // Follow the chain: it must end within MAX_CONDITION_DEPTH steps, so that judging a
        // condition costs a few lookups, whatever the number of fields.
        let mut at = c.field.as_str();
        for step in 1.. {
            match on.get(at) {
                Some(_) if step >= MAX_CONDITION_DEPTH => {
                    return Err(Error::invalid(
                        param,
                        format!(
                            "a condition may read a field with a condition, {MAX_CONDITION_DEPTH} deep at most"
                        ),
                    ));
                }
                Some(&next) if next == f.key => {
                    return Err(Error::invalid(
                        param,
                        format!(
                            "the conditions of '{}' and '{at}' wait on each other",
                            f.key
                        ),
                    ));
                }
                Some(&next) => at = next,
                None => break,
            }
        }
    }
    Ok(())
}

/// How long a chain of reads through conditions and formulas may be (a total that reads line
/// totals that read quantities is 2).
pub const MAX_CHAIN: usize = 10;

/// Every formula of `fields` reads number fields the envelope has (`found` and `fields`), not
/// its own; a sender field's formula reads sender fields, a signer's reads the sender's and its
/// own role's (those are known when its owner finishes, and on the page). Formulas and
/// conditions together form no circle and no chain deeper than [`MAX_CHAIN`]. Errors name
/// `fields.N.formula`.
fn check_formulas(fields: &[Field], found: &[PlacedField]) -> Result<()> {
    if fields
        .iter()
        .all(|f| f.formula.is_none() && f.condition.is_none())
    {
        return Ok(());
    }
    let all: HashMap<&str, &Field> = found
        .iter()
        .map(|p| &p.field)
        .chain(fields)
        .map(|f| (f.key.as_str(), f))
        .collect();
    // What each field reads: its condition's field and its formula's keys.
    let reads: HashMap<&str, Vec<String>> = all
        .values()
        .map(|f| {
            let mut r: Vec<String> = f.condition.iter().map(|c| c.field.clone()).collect();
            if let Some(formula) = f.formula.as_deref().and_then(|s| Formula::parse(s).ok()) {
                r.extend(formula.fields().into_iter().map(String::from));
            }
            (f.key.as_str(), r)
        })
        .collect();
    for (i, f) in fields.iter().enumerate() {
        let Some(src) = &f.formula else { continue };
        let param = format!("fields.{i}.formula");
        let formula = Formula::parse(src).map_err(|e| Error::invalid(&param, e.to_string()))?;
        for k in formula.fields() {
            let why = match all.get(k) {
                _ if k == f.key => "a formula cannot read its own field".to_string(),
                None => format!("no field of this envelope has the key '{k}'"),
                Some(t) if t.kind != FieldType::Number => format!(
                    "'{k}' is a {} field; a formula reads number fields",
                    t.kind.as_str()
                ),
                Some(t) if f.is_sender_field() && !t.is_sender_field() => format!(
                    "a sender field's formula reads sender fields only ('{k}' is filled by {})",
                    t.filled_by
                ),
                Some(t) if !t.is_sender_field() && t.filled_by != f.filled_by => format!(
                    "a formula reads the sender's number fields and its own role's ('{k}' is \
                     filled by {})",
                    t.filled_by
                ),
                Some(_) => continue,
            };
            return Err(Error::invalid(param, why));
        }
    }
    // Circles and depth through formulas and conditions together, from every field that reads
    // another (conditions alone were followed by `check_conditions`).
    let mut known = HashMap::new();
    for (i, f) in fields.iter().enumerate() {
        let param = match (&f.formula, &f.condition) {
            (Some(_), _) => format!("fields.{i}.formula"),
            (None, Some(_)) => format!("fields.{i}.condition.field"),
            (None, None) => continue,
        };
        chain_depth(&f.key, &reads, &mut Vec::new(), &mut known)
            .map_err(|why| Error::invalid(param, why))?;
    }
    Ok(())
}

/// The conditions and formulas of fields found in a document (text tags: extensions E14), with
/// the checks explicit fields get on create; `all` is every field of the envelope or template.
/// A problem is named by `param` (the document's) and the tag's key.
pub(crate) fn check_found(all: &[PlacedField], param: &str) -> Result<()> {
    let found: Vec<Field> = all
        .iter()
        .filter(|p| p.source != FieldSource::Explicit)
        .filter(|p| p.field.condition.is_some() || p.field.formula.is_some())
        .map(|p| p.field.clone())
        .collect();
    if found.is_empty() {
        return Ok(());
    }
    let known: HashSet<String> = all.iter().map(|p| p.field.key.clone()).collect();
    let others: Vec<PlacedField> = all
        .iter()
        .filter(|p| !found.iter().any(|f| f.key == p.field.key))
        .cloned()
        .collect();
    check_conditions(&found, &known)
        .and_then(|()| check_formulas(&found, &others))
        .map_err(|e| match e {
            Error::ParameterInvalid { param: at, message } => {
                let i: usize = at
                    .strip_prefix("fields.")
                    .and_then(|r| r.split('.').next())
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
                let key = found.get(i).map(|f| f.key.as_str()).unwrap_or_default();
                Error::invalid(param, format!("the tag of field '{key}': {message}"))
            }
            other => other,
        })
}

/// The longest chain of reads from `key` (0: it reads nothing), or why it is refused: a circle,
/// or more than [`MAX_CHAIN`] steps.
fn chain_depth<'a>(
    key: &'a str,
    reads: &'a HashMap<&'a str, Vec<String>>,
    path: &mut Vec<&'a str>,
    known: &mut HashMap<&'a str, usize>,
) -> std::result::Result<usize, String> {
    if let Some(&d) = known.get(key) {
        return Ok(d);
    }
    if let Some(at) = path.iter().position(|&p| p == key) {
        let circle: Vec<String> = path[at..].iter().map(|k| format!("'{k}'")).collect();
        return Err(format!(
            "the formulas and conditions of {} read each other in a circle",
            circle.join(", ")
        ));
    }
    if path.len() > MAX_CHAIN {
        return Err(format!(
            "formulas and conditions read computed or conditional fields {MAX_CHAIN} deep at most"
        ));
    }
    path.push(key);
    let mut d = 0;
    for next in reads.get(key).into_iter().flatten() {
        if reads.contains_key(next.as_str()) {
            d = d.max(1 + chain_depth(next, reads, path, known)?);
        }
    }
    path.pop();
    // Checked on the depth too, not only on the path: a chain whose lower part was measured
    // from another field comes back from `known` without walking it again.
    if d > MAX_CHAIN {
        return Err(format!(
            "formulas and conditions read computed or conditional fields {MAX_CHAIN} deep at most"
        ));
    }
    known.insert(key, d);
    Ok(d)
}

/// `options` of an explicit field: required for `radio` and `select` (an array of 1 to
/// [`MAX_OPTIONS`] distinct strings, counted before any is read; see [`pdf::check_options`]),
/// refused for other types. A bad entry is named by its index (`fields.0.options.2`).
fn parse_options(param: &str, kind: FieldType, v: Option<&Value>) -> Result<Option<Vec<String>>> {
    let items = match (kind.has_options(), v) {
        (false, None) => return Ok(None),
        (false, Some(_)) => {
            return Err(Error::invalid(
                param,
                "only radio and select fields take options",
            ));
        }
        (true, None) => return Err(Error::missing(param)),
        (true, Some(Value::Array(items))) => items,
        (true, Some(_)) => return Err(Error::invalid(param, "expected an array of strings")),
    };
    if items.len() > MAX_OPTIONS {
        return Err(Error::invalid(param, OptionsProblem::TooMany.to_string()));
    }
    let mut options = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item {
            Value::String(s) => options.push(s.clone()),
            _ => return Err(Error::invalid(format!("{param}.{i}"), "expected a string")),
        }
    }
    pdf::check_options(&options).map_err(|p| match p {
        OptionsProblem::Bad(i, _) | OptionsProblem::Duplicate(i) => {
            Error::invalid(format!("{param}.{i}"), p.to_string())
        }
        OptionsProblem::Empty | OptionsProblem::TooMany => Error::invalid(param, p.to_string()),
    })?;
    Ok(Some(options))
}

/// `<base>_<type>`, then `_2`, `_3`... until unused; records the key as taken.
pub(crate) fn next_key(taken: &mut HashSet<String>, base: &str, kind: FieldType) -> String {
    let first = format!("{base}_{}", kind.as_str());
    let mut key = first.clone();
    let mut n = 2;
    while taken.contains(&key) {
        key = format!("{first}_{n}");
        n += 1;
    }
    taken.insert(key.clone());
    key
}

pub(crate) fn check_role(param: &str, role: &str) -> Result<()> {
    super::params::check_text(param, role, 100)?;
    if role == SENDER {
        return Err(Error::invalid(
            param,
            "\"sender\" is reserved for sender data fields",
        ));
    }
    Ok(())
}

fn check_key(param: &str, key: &str) -> Result<()> {
    if key.is_empty() || key.chars().count() > 100 || key.chars().any(|c| c.is_control()) {
        return Err(Error::invalid(param, "must be 1 to 100 characters"));
    }
    Ok(())
}

/// Signer roles in order of first appearance among the fields.
pub(crate) fn roles_in_order<'a>(fields: impl IntoIterator<Item = &'a Field>) -> Vec<String> {
    let mut roles: Vec<String> = Vec::new();
    for f in fields {
        if let Some(r) = &f.role
            && !f.is_sender_field()
            && !roles.contains(r)
        {
            roles.push(r.clone());
        }
    }
    roles
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_and_numbering() {
        let mut taken = HashSet::from(["Client_signature".to_string()]);
        let f = parse_fields(
            &json!([
                {"type":"signature","role":"Client","page":1,"x":10,"y":10,"width":100,"height":30},
                {"type":"checkbox","role":"Client","page":1,"x":10,"y":50,"width":10,"height":10},
                {"type":"text","key":"amount","page":1,"x":10,"y":80,"width":100,"height":20}
            ]),
            100,
            &mut taken,
            &[],
        )
        .unwrap();
        assert_eq!(f[0].key, "Client_signature_2");
        assert_eq!((f[0].filled_by.as_str(), f[0].required), ("Client", true));
        assert!(!f[1].required, "check boxes default to optional");
        assert_eq!(
            (f[2].role.as_deref(), f[2].filled_by.as_str()),
            (None, "sender")
        );
        assert_eq!(f[0].options, None);
    }

    #[test]
    fn choice_fields_take_options() {
        let f = parse_fields(
            &json!([
                {"type":"radio","role":"A","page":1,"x":0,"y":0,"width":9,"height":9,"options":["Yes","No"]},
                {"type":"number","role":"A","page":1,"x":0,"y":20,"width":9,"height":9}
            ]),
            100,
            &mut HashSet::new(),
            &[],
        )
        .unwrap();
        assert_eq!(
            f[0].options.as_deref(),
            Some(&["Yes".to_string(), "No".into()][..])
        );
        assert_eq!((f[0].key.as_str(), f[0].required), ("A_radio", true));
        assert_eq!(
            (f[1].key.as_str(), f[1].options.as_ref()),
            ("A_number", None)
        );
    }

    #[test]
    fn errors_have_paths() {
        let cases = [
            (
                json!([{"type":"stamp","role":"A","page":1,"x":0,"y":0,"width":1,"height":1}]),
                "fields.0.type",
            ),
            (
                json!([{"type":"text","role":"A","x":0,"y":0,"width":1,"height":1}]),
                "fields.0.page",
            ),
            (
                json!([{"type":"text","role":"A","page":1,"x":"0","y":0,"width":1,"height":1}]),
                "fields.0.x",
            ),
            (
                json!([{"type":"signature","page":1,"x":0,"y":0,"width":1,"height":1}]),
                "fields.0.role",
            ),
            (
                json!([{"type":"text","role":"A","filled_by":"B","page":1,"x":0,"y":0,"width":1,"height":1}]),
                "fields.0.filled_by",
            ),
            (
                json!([{"type":"text","role":"A","page":1,"x":0,"y":0,"width":1,"height":1,"color":"red"}]),
                "fields.0.color",
            ),
            (json!({"type":"text"}), "fields"),
            (
                json!([{"type":"radio","role":"A","page":1,"x":0,"y":0,"width":1,"height":1}]),
                "fields.0.options",
            ),
            (
                json!([{"type":"select","role":"A","page":1,"x":0,"y":0,"width":1,"height":1,"options":[]}]),
                "fields.0.options",
            ),
            (
                json!([{"type":"select","role":"A","page":1,"x":0,"y":0,"width":1,"height":1,"options":"a|b"}]),
                "fields.0.options",
            ),
            (
                json!([{"type":"radio","role":"A","page":1,"x":0,"y":0,"width":1,"height":1,"options":["a",1]}]),
                "fields.0.options.1",
            ),
            (
                json!([{"type":"radio","role":"A","page":1,"x":0,"y":0,"width":1,"height":1,"options":["a","b","a"]}]),
                "fields.0.options.2",
            ),
            (
                json!([{"type":"radio","role":"A","page":1,"x":0,"y":0,"width":1,"height":1,"options":["a","\u{202e}b"]}]),
                "fields.0.options.1",
            ),
            (
                json!([{"type":"number","role":"A","page":1,"x":0,"y":0,"width":1,"height":1,"options":["1"]}]),
                "fields.0.options",
            ),
            (
                json!([{"type":"radio","role":"A","page":1,"x":0,"y":0,"width":1,"height":1,"options":vec!["x"; MAX_OPTIONS + 1]}]),
                "fields.0.options",
            ),
        ];
        for (v, param) in cases {
            let e = parse_fields(&v, 100, &mut HashSet::new(), &[]).unwrap_err();
            assert_eq!(e.param().as_deref(), Some(param), "{v}");
        }
    }
}
