//! The [`Mailer`] seam: how emails to signers leave the service.
//!
//! | implementation | feature | use |
//! |---|---|---|
//! | [`MemoryMailer`] | always | tests and embedding: records every email in memory |
//! | [`FileMailer`] | `smtp` | development and servers without SMTP: one `.eml` file per email |
//! | [`SmtpMailer`] | `smtp` | production: an SMTP relay (`smtp://`, `smtp://...?tls=starttls`, `smtps://`) |
//!
//! The service builds whole messages ([`Email`]); a mailer only transports them. [`FileMailer`]
//! and [`SmtpMailer`] put out the same RFC 5322 bytes (see [`to_rfc5322`]), so what a file shows
//! is what a relay would have received. A mailer must never decide who gets which email, and
//! must never log credentials or message bodies.

use std::sync::Mutex;

use async_trait::async_trait;

use crate::error::BoxError;

#[cfg(feature = "smtp")]
mod error;
#[cfg(feature = "smtp")]
mod file;
#[cfg(feature = "smtp")]
mod message;
#[cfg(feature = "smtp")]
mod smtp;

// The kind belongs to the model (an envelope record keeps it for each queued email); an `Email`
// carries it, so it is named here too.
pub use crate::model::EmailKind;
#[cfg(feature = "smtp")]
pub use error::MailError;
#[cfg(feature = "smtp")]
pub use file::FileMailer;
#[cfg(feature = "smtp")]
pub use message::to_rfc5322;
#[cfg(feature = "smtp")]
pub use smtp::{SmtpCredentials, SmtpMailer, SmtpMailerBuilder};

/// A name and address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mailbox {
    /// The display name, as it appears before the address.
    pub name: String,
    /// The email address.
    pub email: String,
}

/// A file attached to an email.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// The file name the recipient sees.
    pub file_name: String,
    /// The MIME type of `bytes` (`application/pdf` for the service's documents).
    pub content_type: String,
    /// The file's content.
    pub bytes: Vec<u8>,
}

impl Mailbox {
    /// The sender that [`FileMailer`] and [`SmtpMailer`] use unless told otherwise.
    pub fn default_from() -> Self {
        Mailbox {
            name: "Envelope".into(),
            email: "no-reply@localhost".into(),
        }
    }
}

/// A complete message: plain text always, HTML when the service has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email {
    /// What kind of message this is.
    pub kind: EmailKind,
    /// The one recipient.
    pub to: Mailbox,
    /// The subject line.
    pub subject: String,
    /// The plain-text body, which every message has.
    pub text: String,
    /// The HTML body, sent as an alternative to `text` when present.
    pub html: Option<String>,
    /// Files attached to the message (PDFs of the envelope), in order.
    pub attachments: Vec<Attachment>,
    /// The envelope this message is about.
    pub envelope: crate::ids::EnvelopeId,
    /// The mode of that envelope: mailers that keep copies keep them under the retention of
    /// their mode ([`Mailer::forget_before`]).
    pub mode: crate::model::Mode,
}

/// Sends emails.
///
/// Contract: `send` returns `Ok` once the message is handed to a transport that will deliver it
/// (or has written it somewhere durable); an `Err` means it was not sent and may be retried. It
/// must not modify the message, and must be safe to call concurrently.
#[async_trait]
pub trait Mailer: Send + Sync + 'static {
    /// Sends one message, or hands it to a transport that will; `Err` means it was not sent and
    /// the caller may retry.
    async fn send(&self, email: &Email) -> Result<(), BoxError>;

    /// Deletes the copies this mailer keeps of messages of `mode` ([`Email::mode`]) sent
    /// before `before`, and says how many went: the retention sweep calls it with the cutoff
    /// of each mode's retention, because kept messages hold signing links and signed PDFs. The
    /// default, for mailers that keep nothing, deletes nothing.
    async fn forget_before(
        &self,
        mode: crate::model::Mode,
        before: crate::clock::Timestamp,
    ) -> Result<usize, BoxError> {
        let _ = (mode, before);
        Ok(0)
    }
}

/// Why a mailer's `send` failed, in plain words for the API, and whether a retry cannot help
/// (see `MailError::describe`). Errors of other mailers are retried, with generic words.
pub fn describe_failure(err: &(dyn std::error::Error + Send + Sync + 'static)) -> (String, bool) {
    #[cfg(feature = "smtp")]
    if let Some(e) = err.downcast_ref::<MailError>() {
        return e.describe();
    }
    let _ = err;
    ("the mailer could not send the message".into(), false)
}

/// Records emails in memory.
#[derive(Debug, Default)]
pub struct MemoryMailer {
    sent: Mutex<Vec<Email>>,
}

impl MemoryMailer {
    /// A mailer that has sent nothing yet.
    pub fn new() -> Self {
        Self::default()
    }
    /// Every email sent so far, in order.
    pub fn sent(&self) -> Vec<Email> {
        self.sent.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[async_trait]
impl Mailer for MemoryMailer {
    async fn send(&self, email: &Email) -> Result<(), BoxError> {
        self.sent
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(email.clone());
        Ok(())
    }
}
