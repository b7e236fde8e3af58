//! Emails to signers: signing requests when it is their turn, reminders, void and completion
//! notices. Emails go out after the transition has committed; a mailer failure is logged and does
//! not undo the transition (the caller can `remind`).

use super::SigningService;
use super::email_content::{self as content, Content, Context};
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

    fn context<'a>(&'a self, rec: &'a EnvelopeRecord, i: usize) -> Context<'a> {
        Context {
            service: &self.inner.settings.service_name,
            signer: &rec.signers[i].signer.name,
            document: &rec.name,
        }
    }

    fn email(rec: &EnvelopeRecord, i: usize, kind: EmailKind, c: Content) -> Email {
        Email {
            kind,
            to: Self::mailbox(rec, i),
            subject: c.subject,
            text: c.text,
            html: Some(c.html),
            attachments: vec![],
            envelope: rec.id.clone(),
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
        let until = expiry(rec);
        for &i in idx {
            let Some(url) = self.link_or_log(rec, i, now).await else {
                continue;
            };
            let c = content::signing_request(
                &self.context(rec, i),
                rec.subject.as_deref(),
                rec.message.as_deref(),
                &url,
                until.as_deref(),
            );
            self.deliver(Self::email(rec, i, EmailKind::SigningRequest, c))
                .await;
        }
    }

    pub(crate) async fn notify_reminder(&self, rec: &EnvelopeRecord, idx: &[usize]) {
        let now = self.now();
        let until = expiry(rec);
        for &i in idx {
            let Some(url) = self.link_or_log(rec, i, now).await else {
                continue;
            };
            let c = content::reminder(&self.context(rec, i), &url, until.as_deref());
            self.deliver(Self::email(rec, i, EmailKind::Reminder, c))
                .await;
        }
    }

    /// Tells signers who were sent a link that the envelope is void, with the reason.
    pub(crate) async fn notify_voided(&self, rec: &EnvelopeRecord) {
        if rec.delivery != Delivery::Email {
            return;
        }
        let reason = rec.void_reason.as_deref().unwrap_or_default();
        for (i, s) in rec.signers.iter().enumerate() {
            if s.sent_at.is_none() || s.signer.status == SignerStatus::Declined {
                continue;
            }
            let c = content::voided(&self.context(rec, i), reason);
            self.deliver(Self::email(rec, i, EmailKind::Voided, c))
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
        let attached = attachments.first().map(|a| a.file_name.as_str());
        for i in 0..rec.signers.len() {
            let c = content::completed(&self.context(rec, i), attached);
            let email = Email {
                attachments: attachments.clone(),
                ..Self::email(rec, i, EmailKind::Completed, c)
            };
            self.deliver(email).await;
        }
    }
}

/// When the signing links stop working, as the emails say it.
fn expiry(rec: &EnvelopeRecord) -> Option<String> {
    rec.expires_at
        .map(|e| e.datetime().format("%Y-%m-%d %H:%M UTC").to_string())
}

#[cfg(test)]
mod tests {
    //! Who gets which email is covered end to end in tests/service.rs; these check what the
    //! emails carry, on a hand-made record (no PDF work needed).
    use std::sync::Arc;

    use bytes::Bytes;

    use super::*;
    use crate::mail::MemoryMailer;
    use crate::model::{EnvelopeStatus, Mode, Signer, SignerRecord, StoredFile};
    use crate::store::{BlobStore, MemoryBlobStore};

    fn record(signers: &[&str]) -> EnvelopeRecord {
        let file = |name: &str| StoredFile {
            blob: name.into(),
            file_name: name.into(),
            size: 9,
            sha256: "0".into(),
        };
        EnvelopeRecord {
            id: "env_1".into(),
            account: "acct_1".into(),
            mode: Mode::Test,
            version: 1,
            status: EnvelopeStatus::Sent,
            name: "NDA".into(),
            template: None,
            delivery: Delivery::Email,
            signing_order: false,
            signers: signers
                .iter()
                .enumerate()
                .map(|(i, name)| SignerRecord {
                    signer: Signer {
                        id: format!("sgn_{i}"),
                        role: format!("Role{i}"),
                        name: (*name).into(),
                        email: format!("s{i}@example.com"),
                        order: i as u32 + 1,
                        status: SignerStatus::Pending,
                        viewed_at: None,
                        signed_at: None,
                        declined_at: None,
                        decline_reason: None,
                    },
                    sent_at: None,
                    last_reminded_at: None,
                    consented_at: None,
                    ip_address: None,
                    user_agent: None,
                    values: Default::default(),
                })
                .collect(),
            metadata: Default::default(),
            void_reason: None,
            created_at: Timestamp::from_millis(1_800_000_000_000).unwrap(),
            sent_at: None,
            completed_at: None,
            voided_at: None,
            expires_at: None,
            expires_in_days: None,
            subject: Some("Please sign our NDA".into()),
            message: Some("Thanks, <b>Ann</b>".into()),
            fields: vec![],
            data: Default::default(),
            signature_page: true,
            original: file("nda.pdf"),
            signed: Some(file("nda-signed.pdf")),
            audit_trail: None,
            files_deleted_at: None,
        }
    }

    fn service() -> (SigningService, Arc<MemoryMailer>, Arc<MemoryBlobStore>) {
        let mail = Arc::new(MemoryMailer::new());
        let blobs = Arc::new(MemoryBlobStore::new());
        let svc = SigningService::builder()
            .mailer(mail.clone())
            .blobs(blobs.clone())
            .build();
        (svc, mail, blobs)
    }

    #[tokio::test]
    async fn every_email_has_text_and_escaped_html() {
        let (svc, mail, blobs) = service();
        blobs
            .put(
                "nda-signed.pdf",
                Bytes::from_static(b"%PDF-1.7"),
                Timestamp::from_millis(1_800_000_000_000).unwrap(),
            )
            .await
            .unwrap();
        let mut rec = record(&["<script>alert(1)</script>", "Zoë"]);
        svc.notify_turn(&rec, &[0, 1]).await;
        svc.notify_reminder(&rec, &[0]).await;
        for s in &mut rec.signers {
            s.sent_at = Some(rec.created_at);
        }
        rec.void_reason = Some("declined by Role1: <wrong>".into());
        svc.notify_voided(&rec).await;
        svc.notify_completed(&rec).await;

        let sent = mail.sent();
        let kinds: Vec<EmailKind> = sent.iter().map(|e| e.kind).collect();
        use EmailKind::*;
        let expected = [SigningRequest, SigningRequest, Reminder, Voided, Voided];
        assert_eq!(kinds[..5], expected);
        assert_eq!(kinds[5..], [Completed, Completed]);
        for e in &sent {
            let html = e.html.as_deref().expect("an HTML part");
            assert!(!html.contains("<script>"), "{:?}", e.kind);
            assert!(!e.text.is_empty());
        }
        let request = &sent[0];
        assert_eq!(request.subject, "Please sign our NDA");
        assert!(request.text.contains("Thanks, <b>Ann</b>"));
        assert!(
            request
                .html
                .as_deref()
                .unwrap()
                .contains("Thanks, &lt;b&gt;Ann&lt;/b&gt;")
        );
        assert!(
            request
                .text
                .lines()
                .any(|l| l.contains("/sign/") && !l.contains(' '))
        );
        assert!(sent[3].html.as_deref().unwrap().contains("&lt;wrong&gt;"));
        let done = &sent[5];
        assert_eq!(done.attachments.len(), 1);
        assert_eq!(done.attachments[0].content_type, "application/pdf");
        assert!(done.text.contains("is attached (nda-signed.pdf)"));
    }

    #[tokio::test]
    async fn a_signed_copy_over_the_limit_is_not_attached_and_the_email_says_so() {
        let (svc, mail, _) = service();
        let mut rec = record(&["Zoë"]);
        if let Some(f) = rec.signed.as_mut() {
            f.size = MAX_ATTACHMENT + 1;
        }
        svc.notify_completed(&rec).await;
        let sent = mail.sent();
        assert!(sent[0].attachments.is_empty());
        assert!(sent[0].text.contains("could not be attached"));
    }
}
