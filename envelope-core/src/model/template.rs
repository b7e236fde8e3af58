//! Templates: a PDF with fields that belong to signer roles.

use serde::{Deserialize, Serialize};

use super::{Mode, StoredFile};
use crate::clock::Timestamp;
use crate::field::{Field, PlacedField};
use crate::ids::TemplateId;

/// The wire template of decisions.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Template {
    pub id: TemplateId,
    pub object: String,
    pub name: String,
    pub description: Option<String>,
    pub livemode: bool,
    pub roles: Vec<String>,
    pub fields: Vec<Field>,
    pub page_count: u32,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub archived: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemplateRecord {
    pub id: TemplateId,
    pub account: String,
    pub mode: Mode,
    pub version: u64,
    pub name: String,
    pub description: Option<String>,
    /// Signer roles in signing order.
    pub roles: Vec<String>,
    pub fields: Vec<PlacedField>,
    pub page_count: u32,
    /// Page sizes as displayed, for validating explicit fields of envelopes made from it.
    pub page_sizes: Vec<(f64, f64)>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub archived: bool,
    pub file: StoredFile,
}

impl TemplateRecord {
    /// The stored files whose blobs this record needs.
    pub fn held_files(&self) -> Vec<&StoredFile> {
        vec![&self.file]
    }

    pub fn view(&self) -> Template {
        Template {
            id: self.id.clone(),
            object: "template".into(),
            name: self.name.clone(),
            description: self.description.clone(),
            livemode: self.mode.is_live(),
            roles: self.roles.clone(),
            fields: self.fields.iter().map(|f| f.field.clone()).collect(),
            page_count: self.page_count,
            created_at: self.created_at,
            updated_at: self.updated_at,
            archived: self.archived,
        }
    }
}
