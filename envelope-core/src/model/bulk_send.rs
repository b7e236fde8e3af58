//! Bulk sends (extensions E12): one template, up to 1,000 rows of signers and data, each row an
//! envelope made and sent in the background.
//!
//! [`BulkSendRecord`] is what a store keeps of a bulk send (counters, the cursor, the lease);
//! the checked rows ([`BulkRow`]: names and emails, personal data) are kept beside it until it
//! completes, never in the record. [`BulkSend`] is the wire object.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{CcRecipient, Delivery, Mode, Scope, SignerRecord};
use crate::clock::Timestamp;
use crate::ids::{AccountId, BulkSendId, TemplateId};

/// Where a bulk send stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BulkSendStatus {
    /// Rows are still being made into envelopes.
    Processing,
    /// Every row was made into an envelope or failed.
    Completed,
}

impl BulkSendStatus {
    /// The wire value: `processing` or `completed`.
    pub fn as_str(self) -> &'static str {
        match self {
            BulkSendStatus::Processing => "processing",
            BulkSendStatus::Completed => "completed",
        }
    }
}

/// A row that passed the checks of the create but could not be made into an envelope when its
/// turn came (the template was deleted or archived since, the storage quota is full).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BulkFailure {
    /// The row's index, from 0, in the order given.
    pub row: u32,
    /// The error code `POST /v1/envelopes` would have answered.
    pub code: String,
    /// Its message.
    pub message: String,
}

/// The wire bulk send.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BulkSend {
    /// The bulk send's ID, `bulk_...`.
    pub id: BulkSendId,
    /// Always `bulk_send`.
    pub object: String,
    /// `true` for live mode, `false` for test mode.
    pub livemode: bool,
    /// `processing` or `completed`.
    pub status: BulkSendStatus,
    /// The template every envelope is made from, `tmpl_...`.
    pub template: TemplateId,
    /// How many rows were given (each one envelope).
    pub total: u32,
    /// How many envelopes were made so far.
    pub created: u32,
    /// How many rows failed when their turn came (see `failures`).
    pub failed: u32,
    /// The rows that failed, at most one entry per row, in row order.
    pub failures: Vec<BulkFailure>,
    /// When the bulk send was created.
    pub created_at: Timestamp,
    /// When the last row was done; `null` while processing.
    pub completed_at: Option<Timestamp>,
}

/// One checked row, kept until the bulk send completes: the signers as the envelope will have
/// them (their IDs, and access codes already hashed), the sender data as given (checked again
/// against the template when the row is made), metadata and carbon copies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BulkRow {
    /// The envelope's signers.
    pub signers: Vec<SignerRecord>,
    /// Values for sender data fields, in the order given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub data: Vec<(String, Value)>,
    /// The envelope's metadata.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
    /// The envelope's carbon-copy recipients.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cc: Vec<CcRecipient>,
}

/// A bulk send as stored (without its rows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BulkSendRecord {
    /// The bulk send's ID, `bulk_...`.
    pub id: BulkSendId,
    /// The owning account's ID, `acct_...`.
    pub account: AccountId,
    /// Test or live: the mode of the key that made it.
    pub mode: Mode,
    /// Incremented by every write (a claim too); the store refuses a write whose previous
    /// version is stale.
    pub version: u64,
    /// `processing` or `completed`.
    pub status: BulkSendStatus,
    /// The template every envelope is made from.
    pub template: TemplateId,
    /// How many rows were given.
    pub total: u32,
    /// How many envelopes were made.
    pub created: u32,
    /// How many rows failed.
    pub failed: u32,
    /// The next row to make (rows before it are made or failed).
    pub next_row: u32,
    /// The rows that failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<BulkFailure>,
    /// When the bulk send was created.
    pub created_at: Timestamp,
    /// When the last row was done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<Timestamp>,
    /// Until when the process that claimed it works it; another may claim it after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_until: Option<Timestamp>,
    /// The allowance period (`YYYY-MM`) its creation debited, in live mode: a row that fails
    /// gives its unit back to this period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<String>,
    /// How the signers receive their links.
    pub delivery: Delivery,
    /// The subject of the signing emails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// A message included in the signing emails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Days until each envelope expires, from its sending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in_days: Option<u32>,
}

impl BulkSendRecord {
    /// The account and mode the bulk send belongs to.
    pub fn scope(&self) -> Scope {
        Scope {
            account: self.account.clone(),
            mode: self.mode,
        }
    }

    /// The wire bulk send.
    pub fn view(&self) -> BulkSend {
        BulkSend {
            id: self.id.clone(),
            object: "bulk_send".into(),
            livemode: self.mode.is_live(),
            status: self.status,
            template: self.template.clone(),
            total: self.total,
            created: self.created,
            failed: self.failed,
            failures: self.failures.clone(),
            created_at: self.created_at,
            completed_at: self.completed_at,
        }
    }
}
