//! Emails as the envelope record keeps them: the email outbox.
//!
//! Every email a transition causes is written into the envelope record, in the same store write
//! as the transition (`service/notify.rs::queue_emails`), as a [`EmailRecord`] that is `pending`
//! until it is sent. Its words and its signing link are made only when it is sent, so the record
//! never holds a link's secret. The store indexes the earliest `next_attempt_at` of the pending
//! ones (`EnvelopeRecord::next_email_at`), which is how the email worker finds what is due.

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::ids::EmailId;

/// What an email is for: kept in its record, and carried by the message a mailer sends
/// (transports may tag or route by it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EmailKind {
    /// Asks a signer to sign, with their signing link, when the envelope is sent to them (or
    /// they are reassigned).
    SigningRequest,
    /// Reminds a signer who has not finished, with a fresh signing link.
    Reminder,
    /// Tells the signers who were sent the envelope, and the copied recipients, that it was voided.
    Voided,
    /// Tells the signers and the copied recipients that every signer signed.
    Completed,
    /// A code to verify the signer's identity (extensions E2, `email_code`).
    Code,
}

impl EmailKind {
    /// A stable lowercase name (`signing_request`), used in file names and message headers.
    pub fn as_str(self) -> &'static str {
        match self {
            EmailKind::SigningRequest => "signing_request",
            EmailKind::Reminder => "reminder",
            EmailKind::Voided => "voided",
            EmailKind::Completed => "completed",
            EmailKind::Code => "code",
        }
    }
}

/// Where an email stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EmailStatus {
    /// Not sent yet: waiting for its first attempt or for a retry at `next_attempt_at`.
    Pending,
    /// Handed to the mail server (or written, for the `.eml` mailer).
    Sent,
    /// Given up: the retry schedule is used up, or the mail server refused it for good.
    Failed,
    /// No longer worth sending: a signing request or reminder whose signer can no longer sign
    /// (the envelope was completed, voided or expired before it could go out).
    Canceled,
}

impl EmailStatus {
    /// The wire value: `pending`, `sent`, `failed` or `canceled`.
    pub fn as_str(self) -> &'static str {
        match self {
            EmailStatus::Pending => "pending",
            EmailStatus::Sent => "sent",
            EmailStatus::Failed => "failed",
            EmailStatus::Canceled => "canceled",
        }
    }
}

/// Why an email ended `failed`: the machine-readable `failure_reason` beside `last_error`'s
/// words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EmailFailure {
    /// Not sent: the account's daily email budget for the envelope's mode was used up
    /// (docs/MAIL.md, "Daily email budget").
    EmailLimit,
    /// The mail server refused the message for good, or the address is not valid.
    Refused,
    /// Every attempt of the retry schedule failed.
    RetriesExhausted,
}

impl EmailFailure {
    /// The wire value: `email_limit`, `refused` or `retries_exhausted`.
    pub fn as_str(self) -> &'static str {
        match self {
            EmailFailure::EmailLimit => "email_limit",
            EmailFailure::Refused => "refused",
            EmailFailure::RetriesExhausted => "retries_exhausted",
        }
    }
}

/// One email of an envelope, to one recipient. Stored without its empty values (`None` is
/// left out, and read back from a missing key or a `null` alike).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmailRecord {
    /// `eml_...`
    pub id: EmailId,
    /// What the email is for (signing request, reminder, ...).
    pub kind: EmailKind,
    /// Whom it goes to: a signer's ID (`sgn_...`).
    pub recipient: String,
    /// Where its delivery stands.
    pub status: EmailStatus,
    /// Attempts made so far.
    pub attempts: u32,
    /// When the email was queued.
    pub created_at: Timestamp,
    /// While pending: when the next attempt may start (a process that is sending it holds it
    /// until then: the lease).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_attempt_at: Option<Timestamp>,
    /// When it was sent, failed for good or was canceled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Timestamp>,
    /// Why the last attempt did not send it, in plain words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Once `failed`: why, for machines. `None` for emails failed before the reason was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<EmailFailure>,
    /// Whether the email was counted in its account's daily email budget: it is counted once,
    /// before its first send, and a retry does not count it again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub budget_taken: bool,
}

impl EmailRecord {
    /// The wire form (`signers[].last_email`).
    pub fn view(&self) -> SignerEmail {
        SignerEmail {
            id: self.id.clone(),
            kind: self.kind,
            status: self.status,
            attempts: self.attempts,
            created_at: self.created_at,
            next_attempt_at: self
                .next_attempt_at
                .filter(|_| self.status == EmailStatus::Pending),
            finished_at: self.finished_at,
            last_error: self.last_error.clone(),
            failure_reason: self
                .failure_reason
                .filter(|_| self.status == EmailStatus::Failed),
        }
    }
}

/// `last_email` of a wire signer: the newest email to them and where it stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignerEmail {
    /// The email's ID, `eml_...`.
    pub id: EmailId,
    /// What the email is for (signing request, reminder, ...).
    pub kind: EmailKind,
    /// Where its delivery stands: `pending`, `sent`, `failed` or `canceled`.
    pub status: EmailStatus,
    /// Attempts made so far to send it.
    pub attempts: u32,
    /// When the email was queued.
    pub created_at: Timestamp,
    /// While `pending`: when the next attempt may start; `null` otherwise.
    pub next_attempt_at: Option<Timestamp>,
    /// When it was sent, failed for good or was canceled; `null` while pending.
    pub finished_at: Option<Timestamp>,
    /// Why the last attempt did not send it, in plain words; `null` if none failed.
    pub last_error: Option<String>,
    /// Once `failed`: why, for machines (`email_limit`, `refused`, `retries_exhausted`);
    /// absent otherwise, so that answers without a failure are unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<EmailFailure>,
}
