//! Fields: the places in a document where a signer (or the sender) puts a value.
//!
//! [`Field`] is the wire object of decisions.md (`{key, type, role, filled_by, required, page, x, y,
//! width, height}`, plus `options` for `radio` and `select` fields, extensions E6);
//! [`PlacedField`] is what records keep: the field plus where it came from, which
//! the PDF engine needs when it stamps (a text tag is painted over, a form field gets its value).

use serde::{Deserialize, Serialize};

/// What kind of value a field takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldType {
    /// Where the signer draws or types their signature (`signature`).
    Signature,
    /// Where the signer puts their initials (`initials`).
    Initials,
    /// The date of signing, filled in by the service (`date`).
    Date,
    /// Free text (`text`).
    Text,
    /// A box that is ticked or not (`checkbox`).
    Checkbox,
    /// One choice of [`Field::options`], shown as radio buttons (extensions E6).
    Radio,
    /// One choice of [`Field::options`], shown as a drop-down (extensions E6).
    Select,
    /// A plain decimal number ([`parse_number`]).
    Number,
    /// A file the signer uploads: a PDF, PNG or JPEG, embedded in the signed copy (extensions
    /// E14).
    Attachment,
}

impl FieldType {
    /// The wire name (`signature`, `initials`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::Signature => "signature",
            FieldType::Initials => "initials",
            FieldType::Date => "date",
            FieldType::Text => "text",
            FieldType::Checkbox => "checkbox",
            FieldType::Radio => "radio",
            FieldType::Select => "select",
            FieldType::Number => "number",
            FieldType::Attachment => "attachment",
        }
    }

    /// Parses a wire name; `None` for anything else.
    pub fn parse(s: &str) -> Option<FieldType> {
        Some(match s {
            "signature" => FieldType::Signature,
            "initials" => FieldType::Initials,
            "date" => FieldType::Date,
            "text" => FieldType::Text,
            "checkbox" => FieldType::Checkbox,
            "radio" => FieldType::Radio,
            "select" => FieldType::Select,
            "number" => FieldType::Number,
            "attachment" => FieldType::Attachment,
            _ => return None,
        })
    }

    /// True for the types whose value is one of [`Field::options`] (`radio`, `select`).
    pub fn has_options(self) -> bool {
        matches!(self, FieldType::Radio | FieldType::Select)
    }
}

/// Most `attachment` fields one envelope may have (extensions E14): each takes a file of up to
/// 10 MB, and the signing form carries them all in one post.
pub const MAX_ATTACHMENT_FIELDS: usize = 5;

/// Most options a `radio` or `select` field may have.
pub const MAX_OPTIONS: usize = 500;
/// Longest option, in characters.
pub const MAX_OPTION_CHARS: usize = 200;
/// Longest value of a `number` field, in characters.
pub const MAX_NUMBER_CHARS: usize = 40;
/// The form of a `number` field's value: an optional minus, digits, and an optional fraction
/// after a point (`-12`, `3.50`). As an HTML `pattern` it is matched against the whole value;
/// [`parse_number`] applies the same rule.
pub const NUMBER_PATTERN: &str = "-?[0-9]+([.][0-9]+)?";

/// A `number` field's value as stored: `text` without surrounding spaces when it matches
/// [`NUMBER_PATTERN`] and has at most [`MAX_NUMBER_CHARS`] characters; `None` otherwise. The
/// digits are kept as written (`007` stays `007`): the signed copy shows what was entered.
pub fn parse_number(text: &str) -> Option<&str> {
    let t = text.trim();
    if t.is_empty() || t.len() > MAX_NUMBER_CHARS {
        return None;
    }
    let digits = t.strip_prefix('-').unwrap_or(t);
    let (whole, fraction) = match digits.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (digits, None),
    };
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (all_digits(whole) && fraction.is_none_or(all_digits)).then_some(t)
}

/// The value of `filled_by` for fields that the sender fills through `data` on create.
pub const SENDER: &str = "sender";

/// A field as the API shows it. Coordinates are PDF points with the origin at the top-left corner
/// of the page as displayed (after `/Rotate`), `page` counts from 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Field {
    /// The field's name, unique within its document; the key of its value in `data` or in a
    /// signer's input.
    pub key: String,
    /// What kind of value the field takes (`type` on the wire).
    #[serde(rename = "type")]
    pub kind: FieldType,
    /// The signer role the field belongs to; `None` for sender data fields.
    pub role: Option<String>,
    /// A role name, or [`SENDER`].
    pub filled_by: String,
    /// True when the field must have a value before the signer (or the create, for sender
    /// fields) can finish.
    pub required: bool,
    /// The page the field is on, from 1.
    pub page: u32,
    /// Distance of the box's left edge from the page's left edge, in points.
    pub x: f64,
    /// Distance of the box's top edge from the page's top edge, in points.
    pub y: f64,
    /// Width of the box, in points.
    pub width: f64,
    /// Height of the box, in points.
    pub height: f64,
    /// The envelope's document the field is in, from 1 (extensions E5).
    #[serde(default = "first_document")]
    pub document: u32,
    /// The choices of a `radio` or `select` field, in order; `None` (and absent from the wire
    /// object) for the other types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<String>>,
    /// What the signing page calls the field (extensions E11: set in the builder or on create),
    /// at most [`MAX_LABEL_CHARS`] characters; `None` (and absent from the wire object): a name
    /// made from its type or key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// When the field applies (extensions E14): shown, required and stamped only while the
    /// condition holds; `None` (and absent from the wire object): always.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<Condition>,
    /// How a `number` field is computed (extensions E14), over other number fields' keys:
    /// `"{qty} * {price}"` ([`crate::formula`]). The field is read-only for signers and gets its
    /// value when its owner finishes; `None` (and absent from the wire object): entered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formula: Option<String>,
}

/// A field's `condition` (extensions E14): `{field: KEY, equals: VALUE}` or
/// `{field: KEY, filled: true|false}`, over another field of the envelope. Exactly one of
/// `equals` and `filled` is set (checked on create).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Condition {
    /// The key of the field the condition reads.
    pub field: String,
    /// Holds when the value is this text (text, radio, select and number fields: as entered,
    /// compared after trimming), or this boolean (a check box ticked or not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equals: Option<ConditionValue>,
    /// True: holds when the field has a value (a ticked check box); false: when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filled: Option<bool>,
}

/// The value of `equals`: a string, or a boolean for check boxes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ConditionValue {
    /// A check box's state.
    Bool(bool),
    /// A text, choice or number value.
    Text(String),
}

/// The longest `equals` text of a condition.
pub const MAX_CONDITION_TEXT: usize = 1000;

/// The longest `label` of a field.
pub const MAX_LABEL_CHARS: usize = 100;

/// The document of a field that names none: the first.
pub(crate) fn first_document() -> u32 {
    1
}

impl Field {
    /// True when the sender fills this field through `data`.
    pub fn is_sender_field(&self) -> bool {
        self.filled_by == SENDER
    }

    /// True when `value` is one of the field's options.
    pub fn is_option(&self, value: &str) -> bool {
        self.options
            .as_ref()
            .is_some_and(|o| o.iter().any(|x| x == value))
    }
}

/// Where a field was found; decides how the stamper fills it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FieldSource {
    /// Given by the caller in `fields`: the value is drawn in the box.
    #[default]
    Explicit,
    /// A `{{...}}` text tag: the box covers the tag text, which is painted over before the value is
    /// drawn.
    Tag,
    /// An AcroForm field with this fully qualified name (`T` entries joined by `.`): the form field
    /// gets the value (and an appearance).
    Form {
        /// The fully qualified name of the form field.
        name: String,
    },
}

/// A field together with its source, as templates and envelopes keep it: one flat JSON object,
/// the field's keys plus `source`. Stored records are most of a database's bytes per envelope,
/// so what reading puts back by itself is left out (docs/STORAGE.md, "Bytes per envelope"):
/// `document` when it is 1, `role` when there is none, `source` when it is `explicit`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(from = "FlatPlacedField")]
pub struct PlacedField {
    /// The field as the API shows it.
    pub field: Field,
    /// Where the field was found; absent in stored JSON means [`FieldSource::Explicit`].
    pub source: FieldSource,
}

impl Serialize for PlacedField {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let f = &self.field;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("key", &f.key)?;
        m.serialize_entry("type", &f.kind)?;
        if let Some(role) = &f.role {
            m.serialize_entry("role", role)?;
        }
        m.serialize_entry("filled_by", &f.filled_by)?;
        m.serialize_entry("required", &f.required)?;
        m.serialize_entry("page", &f.page)?;
        m.serialize_entry("x", &f.x)?;
        m.serialize_entry("y", &f.y)?;
        m.serialize_entry("width", &f.width)?;
        m.serialize_entry("height", &f.height)?;
        if f.document != first_document() {
            m.serialize_entry("document", &f.document)?;
        }
        if let Some(options) = &f.options {
            m.serialize_entry("options", options)?;
        }
        if let Some(label) = &f.label {
            m.serialize_entry("label", label)?;
        }
        if let Some(condition) = &f.condition {
            m.serialize_entry("condition", condition)?;
        }
        if let Some(formula) = &f.formula {
            m.serialize_entry("formula", formula)?;
        }
        if self.source != FieldSource::Explicit {
            m.serialize_entry("source", &self.source)?;
        }
        m.end()
    }
}

/// How a [`PlacedField`] is read: the same flat object, spelled out. `#[serde(flatten)]` would
/// buffer every field into an intermediate tree first, which made decoding stored envelopes the
/// largest cost of a read.
#[derive(Deserialize)]
struct FlatPlacedField {
    key: String,
    #[serde(rename = "type")]
    kind: FieldType,
    role: Option<String>,
    filled_by: String,
    required: bool,
    page: u32,
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    #[serde(default = "first_document")]
    document: u32,
    #[serde(default)]
    options: Option<Vec<String>>,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    condition: Option<Condition>,
    #[serde(default)]
    formula: Option<String>,
    #[serde(default)]
    source: FieldSource,
}

impl From<FlatPlacedField> for PlacedField {
    fn from(f: FlatPlacedField) -> PlacedField {
        PlacedField {
            field: Field {
                key: f.key,
                kind: f.kind,
                role: f.role,
                filled_by: f.filled_by,
                required: f.required,
                page: f.page,
                x: f.x,
                y: f.y,
                width: f.width,
                height: f.height,
                document: f.document,
                options: f.options,
                label: f.label,
                condition: f.condition,
                formula: f.formula,
            },
            source: f.source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_plain_decimals() {
        let ok = [
            ("12", "12"),
            (" -3.50 ", "-3.50"),
            ("007", "007"),
            ("0.5", "0.5"),
        ];
        for (given, want) in ok {
            assert_eq!(parse_number(given), Some(want), "{given:?}");
        }
        let long = "1".repeat(MAX_NUMBER_CHARS + 1);
        let refused = [
            "", " ", "-", "1.", ".5", "1e5", "1,5", "+1", "--1", "1.2.3", "0x10", "NaN", "inf",
            "١٢", "1 000", &long,
        ];
        for given in refused {
            assert_eq!(parse_number(given), None, "{given:?}");
        }
        assert!(parse_number(&"9".repeat(MAX_NUMBER_CHARS)).is_some());
    }

    #[test]
    fn seed_field_objects_keep_their_keys() {
        let f = Field {
            key: "k".into(),
            kind: FieldType::Text,
            role: None,
            filled_by: SENDER.into(),
            required: true,
            page: 1,
            x: 0.0,
            y: 0.0,
            width: 1.0,
            height: 1.0,
            document: 1,
            options: None,
            label: None,
            condition: None,
            formula: None,
        };
        let v = serde_json::to_value(&f).unwrap();
        assert!(v.get("options").is_none());
        let radio = Field {
            kind: FieldType::Radio,
            options: Some(vec!["a".into()]),
            ..f
        };
        assert_eq!(serde_json::to_value(&radio).unwrap()["options"][0], "a");
    }
}
