//! Emails to signers: signing requests when it is their turn, reminders, void and completion
//! notices. Emails go out after the transition has committed; a mailer failure is logged and does
//! not undo the transition (the caller can `remind`).

use super::SigningService;
use crate::clock::Timestamp;
use crate::mail::{Attachment, Email, EmailKind, Mailbox};
use crate::model::{Delivery, EnvelopeRecord, SignerStatus};

/// Signed copies up to this size are attached to the completion email.
const MAX_ATTACHMENT: u64 = 10 * 1024 * 1024;

impl SigningService {
    async fn deliver(&self, email: Email) {
        if let Err(e) = self.inner.mailer.send(&email).await {
            tracing::warn!(envelope = %email.envelope, kind = ?email.kind, error = %e, "email not sent");
        }
    }

    fn mailbox(rec: &EnvelopeRecord, i: usize) -> Mailbox {
        let s = &rec.signers[i].signer;
        Mailbox {
            name: s.name.clone(),
            email: s.email.clone(),
        }
    }

    async fn link_or_log(&self, rec: &EnvelopeRecord, i: usize, now: Timestamp) -> Option<String> {
        match self.issue_signing_token(rec, i, now).await {
            Ok((url, _)) => Some(url),
            Err(e) => {
                tracing::warn!(envelope = %rec.id, error = %e, "signing link not issued; email skipped");
                None
            }
        }
    }

    /// Signing requests to signers `idx` (already marked as sent in the record).
    pub(crate) async fn notify_turn(&self, rec: &EnvelopeRecord, idx: &[usize]) {
        if rec.delivery != Delivery::Email {
            return;
        }
        let now = self.now();
        let service = &self.inner.settings.service_name;
        for &i in idx {
            let Some(url) = self.link_or_log(rec, i, now).await else {
                continue;
            };
            let subject = rec
                .subject
                .clone()
                .unwrap_or_else(|| format!("Please sign: {}", rec.name));
            let mut text = format!("Hello {},\n\n", rec.signers[i].signer.name);
            if let Some(m) = &rec.message {
                text.push_str(m);
                text.push_str("\n\n");
            }
            text.push_str(&format!(
                "You are asked to sign \"{}\". Open this link to review and sign:\n{url}\n",
                rec.name
            ));
            if let Some(e) = rec.expires_at {
                text.push_str(&format!(
                    "\nThe link works until {}.\n",
                    e.datetime().format("%Y-%m-%d %H:%M UTC")
                ));
            }
            text.push_str(&format!("\nSent via {service}.\n"));
            self.deliver(Email {
                kind: EmailKind::SigningRequest,
                to: Self::mailbox(rec, i),
                subject,
                text,
                html: None,
                attachments: vec![],
                envelope: rec.id.clone(),
            })
            .await;
        }
    }

    pub(crate) async fn notify_reminder(&self, rec: &EnvelopeRecord, idx: &[usize]) {
        let now = self.now();
        for &i in idx {
            let Some(url) = self.link_or_log(rec, i, now).await else {
                continue;
            };
            self.deliver(Email {
                kind: EmailKind::Reminder,
                to: Self::mailbox(rec, i),
                subject: format!("Reminder: please sign {}", rec.name),
                text: format!(
                    "Hello {},\n\nThis is a reminder that \"{}\" is waiting for your signature:\n{url}\n",
                    rec.signers[i].signer.name, rec.name
                ),
                html: None,
                attachments: vec![],
                envelope: rec.id.clone(),
            })
            .await;
        }
    }

    /// Tells signers who were sent a link that the envelope is void, with the reason.
    pub(crate) async fn notify_voided(&self, rec: &EnvelopeRecord) {
        if rec.delivery != Delivery::Email {
            return;
        }
        let reason = rec.void_reason.clone().unwrap_or_default();
        for (i, s) in rec.signers.iter().enumerate() {
            if s.sent_at.is_none() || s.signer.status == SignerStatus::Declined {
                continue;
            }
            self.deliver(Email {
                kind: EmailKind::Voided,
                to: Self::mailbox(rec, i),
                subject: format!("Voided: {}", rec.name),
                text: format!(
                    "Hello {},\n\n\"{}\" was voided and can no longer be signed.\nReason: {reason}\n",
                    s.signer.name, rec.name
                ),
                html: None,
                attachments: vec![],
                envelope: rec.id.clone(),
            })
            .await;
        }
    }

    /// Sends every signer the signed copy (attached when small enough).
    pub(crate) async fn notify_completed(&self, rec: &EnvelopeRecord) {
        if rec.delivery != Delivery::Email {
            return;
        }
        let mut attachments = Vec::new();
        if let Some(f) = rec.signed.as_ref().filter(|f| f.size <= MAX_ATTACHMENT) {
            match self.inner.blobs.get(&f.blob).await {
                Ok(Some(bytes)) => attachments.push(Attachment {
                    file_name: f.file_name.clone(),
                    content_type: "application/pdf".into(),
                    bytes: bytes.to_vec(),
                }),
                Ok(None) | Err(_) => tracing::warn!(envelope = %rec.id, "signed copy not attached"),
            }
        }
        for i in 0..rec.signers.len() {
            self.deliver(Email {
                kind: EmailKind::Completed,
                to: Self::mailbox(rec, i),
                subject: format!("Completed: {}", rec.name),
                text: format!(
                    "Hello {},\n\nEveryone has signed \"{}\". The signed copy is attached.\n",
                    rec.signers[i].signer.name, rec.name
                ),
                html: None,
                attachments: attachments.clone(),
                envelope: rec.id.clone(),
            })
            .await;
        }
    }
}
