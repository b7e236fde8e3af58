//! Field discovery: `{{type:role[:key]}}`, `{{radio:role:key:A|B}}`, `{{select:role:key:A|B}}`
//! and `{{data:key}}` tags in page text, plus AcroForm fields, turned into [`PlacedField`]s in document order with unique keys.
//! A tag with a key may go on with a condition and, for a number, a formula (extensions E14):
//! `{{text:Client:why:if accept=No}}`, `{{number:Client:total:=round(qty * price, 2)}}`
//! ([`parse_logic`]).
//!
//! The naming rules live here (decisions.md, "Templates and fields"). This module must never
//! write anything; it reads through the lazy reader only.

use std::collections::{HashMap, HashSet};

use super::geometry_box;
use super::pages::Page;
use super::text::Glyph;
use crate::field::{Condition, ConditionValue, Field, FieldSource, FieldType, PlacedField, SENDER};

/// Longest tag considered, in characters.
const MAX_TAG: usize = 200;

/// A tag found in text, before keys are made unique.
#[derive(Debug, Clone, PartialEq)]
pub struct Tag {
    pub kind: FieldType,
    /// `None` for `{{data:key}}`.
    pub role: Option<String>,
    /// The explicit key, if the tag has one.
    pub key: Option<String>,
    /// The options of a `radio` or `select` tag.
    pub options: Option<Vec<String>>,
    /// The tag's condition and formula (extensions E14).
    pub logic: TagLogic,
    /// Union of the tag's glyph boxes, user space.
    pub rect: [f64; 4],
    /// The tag's glyphs: indexes `first..=last` into the page's glyphs.
    pub glyphs: (usize, usize),
}

/// What the inside of a tag says: type, role (`None` for data), key, options, condition and
/// formula.
pub type TagParts = (
    FieldType,
    Option<String>,
    Option<String>,
    Option<Vec<String>>,
    TagLogic,
);

/// A tag's condition and formula (extensions E14), in the forms of explicit fields.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TagLogic {
    /// `if KEY=VALUE` (equals), `if KEY` (filled), `if !KEY` (empty).
    pub condition: Option<Condition>,
    /// `=FORMULA`, field keys written bare (`qty * price`), turned into the `{qty} * {price}`
    /// of explicit fields.
    pub formula: Option<String>,
}

/// The segments after a tag's key (one or two): `if ...` and, for a `number`, `=...`. `None`
/// when one is neither, or says the same thing twice: the tag is then plain text, like one
/// with an unknown type. Keys named in them are checked against the document's fields later,
/// as explicit fields' are.
pub fn parse_logic(kind: FieldType, segments: &[&str]) -> Option<TagLogic> {
    let mut logic = TagLogic::default();
    for seg in segments {
        if let Some(test) = seg.strip_prefix("if ") {
            if logic.condition.is_some() {
                return None;
            }
            let test = test.trim();
            let key_ok = |k: &str| !k.is_empty() && !k.contains(['=', '!']);
            logic.condition = Some(match test.split_once('=') {
                Some((k, v)) if key_ok(k.trim()) => Condition {
                    field: k.trim().to_string(),
                    equals: Some(ConditionValue::Text(v.trim().to_string())),
                    filled: None,
                },
                Some(_) => return None,
                None => {
                    let (k, filled) = match test.strip_prefix('!') {
                        Some(k) => (k.trim(), false),
                        None => (test, true),
                    };
                    if !key_ok(k) {
                        return None;
                    }
                    Condition {
                        field: k.to_string(),
                        equals: None,
                        filled: Some(filled),
                    }
                }
            });
        } else if let Some(src) = seg.strip_prefix('=') {
            if logic.formula.is_some() || kind != FieldType::Number {
                return None;
            }
            let src = braced(src.trim());
            crate::formula::Formula::parse(&src).ok()?;
            logic.formula = Some(src);
        } else {
            return None;
        }
    }
    Some(logic)
}

/// A tag's formula with its bare keys in braces: a word that starts with a letter or `_` and
/// goes on with letters, digits, `_` and `.` is a key, unless it is `round` before `(`.
fn braced(src: &str) -> String {
    let chars: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphabetic() || c == '_' {
            let from = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '.')) {
                i += 1;
            }
            let word: String = chars[from..i].iter().collect();
            let next = chars[i..].iter().find(|c| !c.is_whitespace());
            if word == "round" && next == Some(&'(') {
                out.push_str(&word);
            } else {
                out.push('{');
                out.push_str(&word);
                out.push('}');
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Parses the inside of `{{...}}`. Unknown types are plain text (`None`), and so are `radio` and
/// `select` tags without a key and options, or whose options break the rules of
/// [`check_options`](super::check_options) (options are separated by `|`; they may contain `:`).
pub fn parse_tag(inner: &str) -> Option<TagParts> {
    let kind = FieldType::parse(inner.split(':').next()?.trim());
    let parts: Vec<&str> = match kind {
        Some(k) if k.has_options() => inner.splitn(4, ':').map(str::trim).collect(),
        _ => inner.split(':').map(str::trim).collect(),
    };
    if parts
        .iter()
        .any(|p| p.is_empty() || p.chars().any(|c| c.is_control() || c == '{' || c == '}'))
    {
        return None;
    }
    match parts.as_slice() {
        ["data", key] => Some((
            FieldType::Text,
            None,
            Some((*key).to_string()),
            None,
            TagLogic::default(),
        )),
        [_, role, key, options] if kind?.has_options() => {
            let options: Vec<String> = options.split('|').map(|o| o.trim().to_string()).collect();
            super::check_options(&options).ok()?;
            Some((
                kind?,
                Some((*role).to_string()),
                Some((*key).to_string()),
                Some(options),
                TagLogic::default(),
            ))
        }
        _ if kind?.has_options() => None,
        [_, role] => Some((
            kind?,
            Some((*role).to_string()),
            None,
            None,
            TagLogic::default(),
        )),
        [_, role, key, logic @ ..] if logic.len() <= 2 => Some((
            kind?,
            Some((*role).to_string()),
            Some((*key).to_string()),
            None,
            parse_logic(kind?, logic)?,
        )),
        _ => None,
    }
}

/// Finds the tags in a page's glyphs (content order; a tag may span many show operators).
pub fn find_tags(glyphs: &[Glyph]) -> Vec<Tag> {
    // One entry per character, pointing back at its glyph.
    let mut chars: Vec<(char, usize)> = Vec::new();
    for (i, g) in glyphs.iter().enumerate() {
        for c in g.text.chars() {
            chars.push((c, i));
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < chars.len() {
        if !(chars[i].0 == '{' && chars[i + 1].0 == '{') {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + 2;
        // "{{{" : the tag starts at the last pair of braces.
        while j < chars.len() && chars[j].0 == '{' {
            j += 1;
        }
        let open = j - 2;
        let mut end = None;
        while j + 1 < chars.len() && j - open <= MAX_TAG {
            if chars[j].0 == '{' {
                break;
            }
            if chars[j].0 == '}' && chars[j + 1].0 == '}' {
                end = Some(j + 1);
                break;
            }
            j += 1;
        }
        let Some(end) = end else {
            // Every start up to `j` would find the same opening and fail the same way (no `{` lies
            // between `open + 2` and `j`), so resume at `j`: the scan stays linear on long runs.
            i = j.max(start + 2);
            continue;
        };
        let inner: String = chars[open + 2..end - 1].iter().map(|c| c.0).collect();
        if let Some((kind, role, key, options, logic)) = parse_tag(&inner) {
            let mut rect = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
            let (first, last) = (chars[open].1, chars[end].1);
            for g in &glyphs[first..=last] {
                rect = [
                    rect[0].min(g.rect[0]),
                    rect[1].min(g.rect[1]),
                    rect[2].max(g.rect[2]),
                    rect[3].max(g.rect[3]),
                ];
            }
            out.push(Tag {
                kind,
                role,
                key,
                options,
                logic,
                rect,
                glyphs: (first, last),
            });
        }
        i = end + 1;
    }
    out
}

/// The field a tag makes (its key not yet unique).
pub fn tag_field(tag: &Tag, page_no: u32, page: &Page) -> PlacedField {
    let (x, y, width, height) = geometry_box(&page.geometry, tag.rect);
    let (filled_by, required) = match &tag.role {
        Some(r) => (r.clone(), tag.kind != FieldType::Checkbox),
        None => (SENDER.to_string(), true),
    };
    let key = match (&tag.key, &tag.role) {
        (Some(k), _) => k.clone(),
        (None, Some(r)) => format!("{r}_{}", tag.kind.as_str()),
        (None, None) => "data".into(),
    };
    PlacedField {
        field: Field {
            key,
            kind: tag.kind,
            role: tag.role.clone(),
            filled_by,
            required,
            page: page_no,
            x,
            y,
            width,
            height,
            document: 1,
            options: tag.options.clone(),
            label: None,
            condition: tag.logic.condition.clone(),
            formula: tag.logic.formula.clone(),
        },
        source: FieldSource::Tag,
    }
}

/// [`order_and_name_after`] for a first document.
#[cfg(test)]
pub fn order_and_name(fields: Vec<PlacedField>) -> Vec<PlacedField> {
    order_and_name_after(fields, HashSet::new())
}

/// Sorts fields into document order (page, then rows top to bottom, then left to right) and makes
/// keys unique: a repeated key gets `_2`, `_3`, ... in that order. The keys in `used` (the
/// earlier documents' of an envelope, extensions E5) count as taken, so a key repeated in this
/// document is numbered on.
pub fn order_and_name_after(
    mut fields: Vec<PlacedField>,
    mut used: HashSet<String>,
) -> Vec<PlacedField> {
    fields.sort_by(|a, b| {
        (a.field.page, a.field.y)
            .partial_cmp(&(b.field.page, b.field.y))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    // Fields whose tops are within a few points share a row and go left to right.
    let mut ordered: Vec<PlacedField> = Vec::with_capacity(fields.len());
    let mut row: Vec<PlacedField> = Vec::new();
    for f in fields {
        if let Some(first) = row.first()
            && (first.field.page != f.field.page || (f.field.y - first.field.y).abs() > 3.0)
        {
            row.sort_by(|a, b| {
                a.field
                    .x
                    .partial_cmp(&b.field.x)
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            ordered.append(&mut row);
        }
        row.push(f);
    }
    row.sort_by(|a, b| {
        a.field
            .x
            .partial_cmp(&b.field.x)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    ordered.append(&mut row);
    // The next suffix to try per base key: `used` only grows, so the first free suffix of a base
    // never goes down, and starting where the last search ended gives the same keys in linear
    // time (thousands of tags with one key were quadratic).
    let mut next_suffix: HashMap<String, u32> = HashMap::new();
    for f in &mut ordered {
        let base = f.field.key.clone();
        let mut key = base.clone();
        if used.contains(&key) {
            let n = next_suffix.entry(base.clone()).or_insert(2);
            loop {
                key = format!("{base}_{n}");
                *n += 1;
                if !used.contains(&key) {
                    break;
                }
            }
        }
        used.insert(key.clone());
        f.field.key = key;
    }
    ordered
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glyphs(s: &str) -> Vec<Glyph> {
        s.chars()
            .enumerate()
            .map(|(i, c)| Glyph {
                src: None,
                text: c.to_string(),
                rect: [i as f64 * 5.0, 0.0, i as f64 * 5.0 + 5.0, 10.0],
            })
            .collect()
    }

    #[test]
    fn duplicate_keys_are_numbered_from_2_skipping_taken_ones() {
        use crate::field::{Field, FieldSource, FieldType, PlacedField};
        let at = |key: &str, x: f64| PlacedField {
            field: Field {
                key: key.into(),
                kind: FieldType::Text,
                role: Some("A".into()),
                filled_by: "A".into(),
                required: true,
                page: 1,
                x,
                y: 10.0,
                width: 5.0,
                height: 5.0,
                document: 1,
                options: None,
                label: None,
                condition: None,
                formula: None,
            },
            source: FieldSource::Tag,
        };
        let keys = |fields: Vec<PlacedField>| -> Vec<String> {
            order_and_name(fields)
                .into_iter()
                .map(|f| f.field.key)
                .collect()
        };
        assert_eq!(
            keys(vec![
                at("a", 1.0),
                at("a", 2.0),
                at("a_2", 3.0),
                at("a", 4.0),
                at("a_3", 5.0)
            ]),
            ["a", "a_2", "a_2_2", "a_3", "a_3_2"]
        );
        // Many tags with one key: every key distinct, numbered in order.
        let many = keys((0..5000).map(|i| at("k", f64::from(i))).collect());
        assert_eq!(many[0], "k");
        assert_eq!(many[4999], "k_5000");
        assert_eq!(many.iter().collect::<HashSet<_>>().len(), 5000);
    }

    #[test]
    fn tag_grammar() {
        type Want<'a> = Option<(FieldType, Option<&'a str>, Option<&'a str>)>;
        let plain = |inner: &str| parse_tag(inner).map(|(k, r, key, _, _)| (k, r, key));
        let cases: &[(&str, Want)] = &[
            (
                "signature:Client",
                Some((FieldType::Signature, Some("Client"), None)),
            ),
            (
                "date:Client:when",
                Some((FieldType::Date, Some("Client"), Some("when"))),
            ),
            (
                "data:company",
                Some((FieldType::Text, None, Some("company"))),
            ),
            (
                "checkbox:Buyer",
                Some((FieldType::Checkbox, Some("Buyer"), None)),
            ),
            ("foo:Client", None),
            ("data:a:b", None),
            ("signature", None),
            ("signature::x", None),
            (
                "number:Client",
                Some((FieldType::Number, Some("Client"), None)),
            ),
            (
                "number:Client:qty",
                Some((FieldType::Number, Some("Client"), Some("qty"))),
            ),
            ("radio:Client", None),
            ("radio:Client:plan", None),
            ("select:Client:color:", None),
            ("radio:Client:plan:a||b", None),
            ("radio:Client:plan:a|b|a", None),
            ("data:x:y:z", None),
        ];
        for (inner, want) in cases {
            let got = plain(inner);
            let want = want.map(|(k, r, key)| (k, r.map(String::from), key.map(String::from)));
            assert_eq!(got, want, "{inner}");
        }
    }

    #[test]
    fn tags_carry_conditions_and_formulas() {
        let logic = |inner: &str| parse_tag(inner).map(|t| t.4);
        let when = |field: &str, equals: Option<&str>, filled: Option<bool>| Condition {
            field: field.into(),
            equals: equals.map(|e| ConditionValue::Text(e.into())),
            filled,
        };
        assert_eq!(
            logic("text:Client:why:if accept = No").unwrap().condition,
            Some(when("accept", Some("No"), None))
        );
        assert_eq!(
            logic("text:Client:why:if terms").unwrap().condition,
            Some(when("terms", None, Some(true)))
        );
        assert_eq!(
            logic("text:Client:why:if !terms").unwrap().condition,
            Some(when("terms", None, Some(false)))
        );
        let both = logic("number:Client:fee:=9.90:if express").unwrap();
        assert_eq!(both.formula.as_deref(), Some("9.90"));
        assert_eq!(both.condition, Some(when("express", None, Some(true))));
        assert_eq!(
            logic("number:Client:total:=round(qty * unit_price, 2) - disc.1")
                .unwrap()
                .formula
                .as_deref(),
            Some("round({qty} * {unit_price}, 2) - {disc.1}")
        );
        // Plain text: a formula on another type, a bad formula, two conditions, an unknown
        // segment, a test without a key, logic on a data tag.
        for inner in [
            "text:Client:t:=1 + 1",
            "number:Client:t:=qty *",
            "number:Client:t:if a:if b",
            "number:Client:t:when a",
            "text:Client:t:if =No",
            "text:Client:t:if !",
            "data:x:if a",
            "number:Client:t:=1:=2",
            "number:Client:t:=1:if a:if b",
        ] {
            assert_eq!(logic(inner), None, "{inner}");
        }
        assert_eq!(logic("text:A:k"), Some(TagLogic::default()));
    }

    #[test]
    fn choice_tags_carry_their_options() {
        let (kind, role, key, options, _) = parse_tag("radio:Client:plan: Yes | No ").unwrap();
        assert_eq!(
            (kind, role.as_deref(), key.as_deref()),
            (FieldType::Radio, Some("Client"), Some("plan"))
        );
        assert_eq!(options.unwrap(), ["Yes", "No"]);
        // Options may hold colons: only the first three separate.
        let (kind, _, _, options, _) = parse_tag("select:A:time:9:00|10:30").unwrap();
        assert_eq!(kind, FieldType::Select);
        assert_eq!(options.unwrap(), ["9:00", "10:30"]);
        // Other types have none.
        assert_eq!(parse_tag("text:A:k").unwrap().3, None);
        let tags = find_tags(&glyphs("{{select:Buyer:color:Red|Green|Blue}}"));
        assert_eq!(tags[0].options.as_ref().unwrap().len(), 3);
    }

    #[test]
    fn finds_tags_and_their_boxes() {
        let tags = find_tags(&glyphs(
            "Sign: {{signature:Client}} and {{foo:x}} {{{data:co}}",
        ));
        assert_eq!(tags.len(), 2);
        assert_eq!(tags[0].rect[0], 30.0);
        assert_eq!(tags[0].rect[2], 30.0 + 20.0 * 5.0);
        assert_eq!(tags[1].key.as_deref(), Some("co"));
    }

    #[test]
    fn unterminated_tags_are_text() {
        assert!(find_tags(&glyphs("{{signature:Client and more {{ }}")).is_empty());
    }

    #[test]
    fn a_tag_after_failed_openings_is_still_found() {
        let s = format!(
            "{}{{{{x {} {{{{text:A}}}} {{{{ {{{{data:k}}}}",
            "{".repeat(5000),
            "y".repeat(300)
        );
        let tags = find_tags(&glyphs(&s));
        assert_eq!(tags.len(), 2);
        assert_eq!(tags[0].role.as_deref(), Some("A"));
        assert_eq!(tags[1].key.as_deref(), Some("k"));
    }
}
