//! Templates: a PDF with fields that belong to signer roles.

use serde::{Deserialize, Serialize};

use super::{Mode, StoredFile};
use crate::clock::Timestamp;
use crate::field::{Field, PlacedField};
use crate::ids::AccountId;
use crate::ids::TemplateId;

/// The wire template of decisions.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Template {
    /// The template's ID, `tmpl_...`.
    pub id: TemplateId,
    /// Always `template`.
    pub object: String,
    /// The name the sender gave it.
    pub name: String,
    /// A free-text description; `null` if none was given.
    pub description: Option<String>,
    /// `true` if made with a live key, `false` in test mode.
    pub livemode: bool,
    /// Signer roles in signing order; each field belongs to one of them.
    pub roles: Vec<String>,
    /// The fields placed on the PDF, each for one role.
    pub fields: Vec<Field>,
    /// Pages in the template's PDF.
    pub page_count: u32,
    /// When the template was created.
    pub created_at: Timestamp,
    /// When the template was last changed.
    pub updated_at: Timestamp,
    /// `true` once archived: no new envelopes can be made from it.
    pub archived: bool,
}

/// A template as stored: the wire template plus its scope, version, page sizes and PDF.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemplateRecord {
    /// The template's ID, `tmpl_...`.
    pub id: TemplateId,
    /// The owning account's ID, `acct_...`.
    pub account: AccountId,
    /// Test or live: the mode of the key that made it.
    pub mode: Mode,
    /// Bumped on every change, for optimistic concurrency.
    pub version: u64,
    /// The name the sender gave it.
    pub name: String,
    /// A free-text description; `None` if none was given.
    pub description: Option<String>,
    /// Signer roles in signing order.
    pub roles: Vec<String>,
    /// The fields placed on the PDF, each for one role, with their resolved positions.
    pub fields: Vec<PlacedField>,
    /// Pages in the template's PDF.
    pub page_count: u32,
    /// Page sizes as displayed, for validating explicit fields of envelopes made from it.
    pub page_sizes: Vec<(f64, f64)>,
    /// When the template was created.
    pub created_at: Timestamp,
    /// When the template was last changed.
    pub updated_at: Timestamp,
    /// `true` once archived: no new envelopes can be made from it.
    pub archived: bool,
    /// The template's PDF.
    pub file: StoredFile,
}

impl TemplateRecord {
    /// The stored files whose blobs this record needs.
    pub fn held_files(&self) -> Vec<&StoredFile> {
        vec![&self.file]
    }

    /// The wire template.
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
