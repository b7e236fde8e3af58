//! Fields: the places in a document where a signer (or the sender) puts a value.
//!
//! [`Field`] is the wire object of decisions.md (`{key, type, role, filled_by, required, page, x, y,
//! width, height}`); [`PlacedField`] is what records keep: the field plus where it came from, which
//! the PDF engine needs when it stamps (a text tag is painted over, a form field gets its value).

use serde::{Deserialize, Serialize};

/// What kind of value a field takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldType {
    Signature,
    Initials,
    Date,
    Text,
    Checkbox,
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
            _ => return None,
        })
    }
}

/// The value of `filled_by` for fields that the sender fills through `data` on create.
pub const SENDER: &str = "sender";

/// A field as the API shows it. Coordinates are PDF points with the origin at the top-left corner
/// of the page as displayed (after `/Rotate`), `page` counts from 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Field {
    pub key: String,
    #[serde(rename = "type")]
    pub kind: FieldType,
    /// The signer role the field belongs to; `None` for sender data fields.
    pub role: Option<String>,
    /// A role name, or [`SENDER`].
    pub filled_by: String,
    pub required: bool,
    pub page: u32,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    /// The envelope's document the field is in, from 1 (extensions E5).
    #[serde(default = "first_document")]
    pub document: u32,
}

/// The document of a field that names none: the first.
pub(crate) fn first_document() -> u32 {
    1
}

impl Field {
    /// True when the sender fills this field through `data`.
    pub fn is_sender_field(&self) -> bool {
        self.filled_by == SENDER
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
    Form { name: String },
}

/// A field together with its source, as templates and envelopes keep it: one flat JSON object,
/// the field's keys plus `source`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "FlatPlacedField")]
pub struct PlacedField {
    #[serde(flatten)]
    pub field: Field,
    #[serde(default)]
    pub source: FieldSource,
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
            },
            source: f.source,
        }
    }
}
