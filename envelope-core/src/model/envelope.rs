//! Envelopes and signers: records and wire views.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Mode;
use crate::clock::Timestamp;
use crate::field::PlacedField;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EnvelopeStatus {
    Draft,
    Sent,
    Completed,
    Voided,
}

impl EnvelopeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            EnvelopeStatus::Draft => "draft",
            EnvelopeStatus::Sent => "sent",
            EnvelopeStatus::Completed => "completed",
            EnvelopeStatus::Voided => "voided",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SignerStatus {
    Pending,
    Viewed,
    Completed,
    Declined,
}

impl SignerStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SignerStatus::Pending => "pending",
            SignerStatus::Viewed => "viewed",
            SignerStatus::Completed => "completed",
            SignerStatus::Declined => "declined",
        }
    }
    /// Completed or declined: nothing more will happen for this signer.
    pub fn is_done(self) -> bool {
        matches!(self, SignerStatus::Completed | SignerStatus::Declined)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    #[default]
    Email,
    Embedded,
}

impl Delivery {
    pub fn as_str(self) -> &'static str {
        match self {
            Delivery::Email => "email",
            Delivery::Embedded => "embedded",
        }
    }
}

/// The wire signer (interface.md 2.2, plus `declined_at` and `decline_reason`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signer {
    pub id: String,
    pub role: String,
    pub name: String,
    pub email: String,
    pub order: u32,
    pub status: SignerStatus,
    pub viewed_at: Option<Timestamp>,
    pub signed_at: Option<Timestamp>,
    pub declined_at: Option<Timestamp>,
    pub decline_reason: Option<String>,
}

/// `files` of the wire envelope: whether each file is ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvelopeFiles {
    pub signed: bool,
    pub audit_trail: bool,
}

/// The wire envelope (interface.md 2.1, plus `void_reason`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    pub id: String,
    pub object: String,
    pub livemode: bool,
    pub status: EnvelopeStatus,
    pub name: String,
    pub template: Option<String>,
    pub delivery: Delivery,
    pub signing_order: bool,
    pub signers: Vec<Signer>,
    pub files: EnvelopeFiles,
    pub metadata: BTreeMap<String, String>,
    pub void_reason: Option<String>,
    pub created_at: Timestamp,
    pub sent_at: Option<Timestamp>,
    pub completed_at: Option<Timestamp>,
    pub voided_at: Option<Timestamp>,
    pub expires_at: Option<Timestamp>,
}

/// A value a signer gave for one field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum SignerValue {
    /// Typed signature or initials.
    Typed(String),
    /// Drawn signature or initials: PNG bytes, base64 (standard alphabet) for storage.
    Drawn(String),
    Text(String),
    Checkbox(bool),
}

/// A signer with what only the service sees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignerRecord {
    #[serde(flatten)]
    pub signer: Signer,
    /// When the signing request went out (email delivery) or the first link was made.
    pub sent_at: Option<Timestamp>,
    pub last_reminded_at: Option<Timestamp>,
    /// When the signer agreed to sign electronically (set when they sign).
    #[serde(default)]
    pub consented_at: Option<Timestamp>,
    pub ip_address: Option<String>,
    pub user_agent: Option<String>,
    /// Field key -> value, set when the signer signs.
    #[serde(default)]
    pub values: BTreeMap<String, SignerValue>,
}

/// A stored PDF: where the bytes are and what they are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredFile {
    /// Key in the [`crate::BlobStore`].
    pub blob: String,
    pub file_name: String,
    pub size: u64,
    /// Lowercase hex.
    pub sha256: String,
}

/// The envelope as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvelopeRecord {
    pub id: String,
    pub account: String,
    pub mode: Mode,
    /// Incremented by every write; the store refuses a write whose previous version is stale.
    pub version: u64,
    pub status: EnvelopeStatus,
    pub name: String,
    pub template: Option<String>,
    pub delivery: Delivery,
    pub signing_order: bool,
    pub signers: Vec<SignerRecord>,
    pub metadata: BTreeMap<String, String>,
    pub void_reason: Option<String>,
    pub created_at: Timestamp,
    pub sent_at: Option<Timestamp>,
    pub completed_at: Option<Timestamp>,
    pub voided_at: Option<Timestamp>,
    pub expires_at: Option<Timestamp>,
    /// Days until expiry, counted from the moment the envelope is sent.
    pub expires_in_days: Option<u32>,
    pub subject: Option<String>,
    pub message: Option<String>,
    /// Fields of the document, signer and sender fields alike.
    pub fields: Vec<PlacedField>,
    /// Sender data by field key: text, or "true"/"false" for check boxes.
    pub data: BTreeMap<String, SignerValue>,
    /// Whether the signed copy gets an appended signature page.
    pub signature_page: bool,
    pub original: StoredFile,
    pub signed: Option<StoredFile>,
    pub audit_trail: Option<StoredFile>,
}

impl EnvelopeRecord {
    /// The wire envelope.
    pub fn view(&self) -> Envelope {
        Envelope {
            id: self.id.clone(),
            object: "envelope".into(),
            livemode: self.mode.is_live(),
            status: self.status,
            name: self.name.clone(),
            template: self.template.clone(),
            delivery: self.delivery,
            signing_order: self.signing_order,
            signers: self.signers.iter().map(|s| s.signer.clone()).collect(),
            files: EnvelopeFiles {
                signed: self.signed.is_some(),
                audit_trail: self.audit_trail.is_some(),
            },
            metadata: self.metadata.clone(),
            void_reason: self.void_reason.clone(),
            created_at: self.created_at,
            sent_at: self.sent_at,
            completed_at: self.completed_at,
            voided_at: self.voided_at,
            expires_at: self.expires_at,
        }
    }

    pub fn scope(&self) -> super::Scope {
        super::Scope {
            account: self.account.clone(),
            mode: self.mode,
        }
    }

    pub fn signer_index(&self, id: &str) -> Option<usize> {
        self.signers.iter().position(|s| s.signer.id == id)
    }
}
