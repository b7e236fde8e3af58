//! Emails to signers: who gets which email on each change (signing requests when it is their
//! turn, reminders, void and completion notices), queued in the envelope record by the same store
//! write as the change, and what each one says when it is sent. Sending, retrying and recording
//! the outcome is `service/outbox/email.rs`.

use super::SigningService;
use super::email_content::{self as content, Content, Context};
use crate::clock::Timestamp;
use crate::error::Result;
use crate::i18n::Lang;
use crate::ids::EmailId;
use crate::mail::{Attachment, Email, EmailKind, Mailbox};
use crate::model::{
    CcRecipient, Delivery, EmailRecord, EmailStatus, EnvelopeRecord, EnvelopeStatus, SignerKind,
    SignerStatus, StoredFile,
};

/// Signed copies up to this size are attached to the completion email.
const MAX_ATTACHMENT: u64 = 10 * 1024 * 1024;

/// How long a download link in an email works (files too large to attach).
pub const EMAILED_LINK_DAYS: i64 = 7;

/// The emails that the change from `prev` (none for a new envelope) to `next` causes, as
/// `(kind, recipient ID)`. Pure: the rules of who hears of what, in one place.
///
/// - a signer whose turn came (`sent_at` newly set) gets the signing request, and so does the
///   new person of a reassigned signer whose turn it is;
/// - a signer reminded (`last_reminded_at` changed) gets a reminder;
/// - when the envelope becomes voided, every signer who was sent a link and did not decline
///   hears why;
/// - when it becomes completed, every signer gets the signed copy.
///
/// A signer who asked for a code (`identity.code_requested_at` changed: opening the page or
/// "send a new code", extensions E2) gets a code email whatever the delivery: an embedded
/// signer needs the code as much.
///
/// Embedded delivery emails no signer otherwise. Carbon-copy recipients (extensions E1) get the voided
/// notice and the completed email (with the signed copy and the audit trail) whatever the
/// delivery.
pub(crate) fn emails_for(
    prev: Option<&EnvelopeRecord>,
    next: &EnvelopeRecord,
) -> Vec<(EmailKind, String)> {
    let mut out = Vec::new();
    let became =
        |status: EnvelopeStatus| next.status == status && prev.is_none_or(|p| p.status != status);
    let to_signers = next.delivery == Delivery::Email;
    for s in next.signers.iter().filter(|_| to_signers) {
        let id = &s.signer.id;
        let before = prev.and_then(|p| p.signers.iter().find(|b| b.signer.id == *id));
        let reassigned = before.is_some_and(|b| b.reassignments.len() != s.reassignments.len());
        if s.sent_at.is_some() && (reassigned || before.is_none_or(|b| b.sent_at.is_none())) {
            out.push((EmailKind::SigningRequest, id.to_string()));
        }
        if s.last_reminded_at.is_some()
            && s.last_reminded_at != before.and_then(|b| b.last_reminded_at)
        {
            out.push((EmailKind::Reminder, id.to_string()));
        }
    }
    for s in &next.signers {
        let before = prev.and_then(|p| p.signers.iter().find(|b| b.signer.id == s.signer.id));
        let asked = s.identity.as_ref().and_then(|i| i.code_requested_at);
        let asked_before = before
            .and_then(|b| b.identity.as_ref())
            .and_then(|i| i.code_requested_at);
        if asked.is_some() && asked != asked_before {
            out.push((EmailKind::Code, s.signer.id.to_string()));
        }
    }
    let copies = next.cc.iter().map(|c| c.id.to_string());
    if became(EnvelopeStatus::Voided) {
        for s in next.signers.iter().filter(|_| to_signers) {
            if s.sent_at.is_some() && s.signer.status != SignerStatus::Declined {
                out.push((EmailKind::Voided, s.signer.id.to_string()));
            }
        }
        out.extend(copies.clone().map(|id| (EmailKind::Voided, id)));
    }
    if became(EnvelopeStatus::Completed) {
        for s in next.signers.iter().filter(|_| to_signers) {
            out.push((EmailKind::Completed, s.signer.id.to_string()));
        }
        out.extend(copies.map(|id| (EmailKind::Completed, id)));
    }
    out
}

/// Whether an email of this kind carries a signing link.
fn carries_link(kind: EmailKind) -> bool {
    matches!(kind, EmailKind::SigningRequest | EmailKind::Reminder)
}

/// Whether an email of this kind is only worth sending while the signer can sign (a link, or a
/// code to use on the page).
fn for_signing(kind: EmailKind) -> bool {
    carries_link(kind) || kind == EmailKind::Code
}

/// Queues in `next` the emails of the change from `prev`, each held by this process until
/// `lease_until` (the first attempt is made right after the write commits; if this process dies
/// first, the email worker takes it over once the lease ends). Returns their IDs.
///
/// A new email with a signing link supersedes that signer's pending ones with a link: one
/// working link is enough, and a backlog during a mail outage must not become a burst.
pub(crate) fn queue_emails(
    prev: Option<&EnvelopeRecord>,
    next: &mut EnvelopeRecord,
    now: Timestamp,
    lease_until: Timestamp,
) -> Vec<EmailId> {
    let mut ids = Vec::new();
    for (kind, signer) in emails_for(prev, next) {
        if carries_link(kind) {
            for e in next.emails.iter_mut().filter(|e| {
                e.recipient == signer && e.status == EmailStatus::Pending && carries_link(e.kind)
            }) {
                e.status = EmailStatus::Canceled;
                e.next_attempt_at = None;
                e.finished_at = Some(now);
                e.last_error = Some("superseded by a newer email with a signing link".into());
            }
        }
        if kind == EmailKind::Code {
            // Only the newest code works: an older code email still waiting is pointless.
            for e in next.emails.iter_mut().filter(|e| {
                e.recipient == signer && e.status == EmailStatus::Pending && e.kind == kind
            }) {
                e.status = EmailStatus::Canceled;
                e.next_attempt_at = None;
                e.finished_at = Some(now);
                e.last_error = Some("superseded by a newer code".into());
            }
        }
        let id = EmailId::new();
        next.emails.push(EmailRecord {
            id: id.clone(),
            kind,
            recipient: signer,
            status: EmailStatus::Pending,
            attempts: 0,
            created_at: now,
            next_attempt_at: Some(lease_until),
            finished_at: None,
            last_error: None,
            failure_reason: None,
            budget_taken: false,
        });
        ids.push(id);
    }
    if next.status != EnvelopeStatus::Sent {
        // Nobody can sign any more: links not sent yet never will be.
        for e in next
            .emails
            .iter_mut()
            .filter(|e| e.status == EmailStatus::Pending && for_signing(e.kind))
        {
            e.status = EmailStatus::Canceled;
            e.next_attempt_at = None;
            e.finished_at = Some(now);
            e.last_error = Some("the signer can no longer sign".into());
        }
    }
    prune(next);
    ids
}

/// Keeps what the outbox needs: every pending email, and the newest finished one of each signer
/// (the API shows it as `last_email`). Bounds the record however many emails an envelope sends.
pub(crate) fn prune(rec: &mut EnvelopeRecord) {
    let mut keep = vec![false; rec.emails.len()];
    let mut seen: Vec<&str> = Vec::new();
    for (k, e) in rec.emails.iter().enumerate().rev() {
        let newest = !seen.contains(&e.recipient.as_str());
        if newest {
            seen.push(&e.recipient);
        }
        keep[k] = newest || e.status == EmailStatus::Pending;
    }
    let mut k = 0;
    rec.emails.retain(|_| {
        k += 1;
        keep[k - 1]
    });
}

/// What sending one queued email comes to, before the mailer is asked.
pub(crate) enum Rendered {
    Send(Email),
    /// Not worth sending any more, and why.
    Cancel(&'static str),
}

impl SigningService {
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
            lang: Lang::for_email(rec.signers[i].signer.locale.as_ref()),
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
            mode: rec.mode,
        }
    }

    /// The message of a queued email, made now from the envelope as it stands: a signing link is
    /// issued only at this point (the record never holds one), and a link email whose signer can
    /// no longer sign is canceled. An `Err` is a store failure, worth a retry.
    ///
    /// Every email of a test envelope, whatever its kind and recipient, has a subject that
    /// starts with [`content::TEST_SUBJECT_PREFIX`]: nobody can take it for a live request.
    pub(crate) async fn render_email(
        &self,
        rec: &EnvelopeRecord,
        queued: &EmailRecord,
        now: Timestamp,
    ) -> Result<Rendered> {
        let rendered = self.compose_email(rec, queued, now).await?;
        Ok(match rendered {
            Rendered::Send(mut email) if !rec.mode.is_live() => {
                email.subject = content::test_mode_subject(&email.subject);
                Rendered::Send(email)
            }
            other => other,
        })
    }

    /// [`Self::render_email`] before the subject is marked for test mode.
    async fn compose_email(
        &self,
        rec: &EnvelopeRecord,
        queued: &EmailRecord,
        now: Timestamp,
    ) -> Result<Rendered> {
        if let Some(cc) = rec.cc.iter().find(|c| c.id == queued.recipient) {
            return self.render_copy(rec, cc, queued.kind).await;
        }
        let Some(i) = rec.signer_index(&queued.recipient) else {
            return Ok(Rendered::Cancel(
                "the recipient is no longer on the envelope",
            ));
        };
        if queued.kind == EmailKind::Code {
            return self.render_code(rec, &queued.recipient, now).await;
        }
        let until = expiry(rec);
        let ctx = self.context(rec, i);
        let c = match queued.kind {
            EmailKind::Code => unreachable!("rendered above"),
            EmailKind::SigningRequest | EmailKind::Reminder => {
                if rec.status != EnvelopeStatus::Sent
                    || rec.signers[i].signer.status.is_done()
                    || rec.expires_at.is_some_and(|e| e <= now)
                {
                    return Ok(Rendered::Cancel("the signer can no longer sign"));
                }
                let url = self
                    .issue_signing_token(rec, i, crate::model::LinkVia::Email, now)
                    .await?
                    .url;
                let s = &rec.signers[i].signer;
                // An in-person signer's link goes to the host (extensions E13), in the
                // signer's language, greeting the host.
                let (ctx, ask) = match &s.in_person {
                    Some(host) => (
                        Context {
                            signer: &host.host_name,
                            ..ctx
                        },
                        content::Ask::Host { signer: &s.name },
                    ),
                    None => (
                        ctx,
                        match s.kind {
                            SignerKind::Signer => content::Ask::Sign,
                            SignerKind::Approver => content::Ask::Approve,
                            SignerKind::Viewer => content::Ask::View,
                        },
                    ),
                };
                let c = if queued.kind == EmailKind::SigningRequest {
                    content::request(
                        &ctx,
                        ask,
                        rec.subject.as_deref(),
                        rec.message.as_deref(),
                        &url,
                        until.as_deref(),
                    )
                } else {
                    content::reminder(&ctx, ask, &url, until.as_deref())
                };
                if let Some(host) = &s.in_person {
                    let mut email = Self::email(rec, i, queued.kind, c);
                    email.to = Mailbox {
                        name: host.host_name.clone(),
                        email: host.host_email.clone(),
                    };
                    return Ok(Rendered::Send(email));
                }
                c
            }
            EmailKind::Voided => {
                content::voided(&ctx, rec.void_reason.as_deref().unwrap_or_default())
            }
            EmailKind::Completed => {
                let attachments = self.signed_copy_attachment(rec).await;
                let names: Vec<&str> = attachments.iter().map(|a| a.file_name.as_str()).collect();
                let attached = (!names.is_empty()).then(|| names.join(", "));
                let c = content::completed(&ctx, attached.as_deref());
                return Ok(Rendered::Send(Email {
                    attachments,
                    ..Self::email(rec, i, EmailKind::Completed, c)
                }));
            }
        };
        Ok(Rendered::Send(Self::email(rec, i, queued.kind, c)))
    }

    /// An email to a carbon-copy recipient: the voided notice, or the completed envelope with
    /// the signed copy and the audit trail attached (each as a download link valid
    /// [`EMAILED_LINK_DAYS`] days when it is over 10 MB).
    async fn render_copy(
        &self,
        rec: &EnvelopeRecord,
        cc: &CcRecipient,
        kind: EmailKind,
    ) -> Result<Rendered> {
        let ctx = Context {
            service: &self.inner.settings.service_name,
            signer: &cc.name,
            document: &rec.name,
            // Carbon-copy recipients have no locale: English (docs/API.md).
            lang: Lang::En,
        };
        let mut attachments = Vec::new();
        let c = match kind {
            EmailKind::Voided => {
                content::voided(&ctx, rec.void_reason.as_deref().unwrap_or_default())
            }
            EmailKind::Completed => {
                let mut links = Vec::new();
                // Live retention may have deleted the PDFs before a late retry: the email then
                // says the envelope completed, without them.
                let kept = rec.files_deleted_at.is_none();
                // Every document's signed copy (extensions E5), then the audit trail.
                let mut files = vec![("signed", rec.signed.as_ref())];
                for d in &rec.more_documents {
                    files.push(("signed", d.signed.as_ref()));
                }
                files.push(("audit_trail", rec.audit_trail.as_ref()));
                for (label, file) in files.into_iter().filter(|_| kept) {
                    let Some(f) = file else { continue };
                    match self.attachment(rec, f).await? {
                        Some(a) => attachments.push(a),
                        None => {
                            let ttl = chrono::Duration::days(EMAILED_LINK_DAYS);
                            let link = self.file_link_for(label, f, ttl).await?;
                            links.push((f.file_name.clone(), link.url));
                        }
                    }
                }
                let names: Vec<&str> = attachments.iter().map(|a| a.file_name.as_str()).collect();
                content::copy_completed(&ctx, &names, &links, EMAILED_LINK_DAYS)
            }
            EmailKind::SigningRequest | EmailKind::Reminder | EmailKind::Code => {
                return Ok(Rendered::Cancel("carbon-copy recipients sign nothing"));
            }
        };
        Ok(Rendered::Send(Email {
            kind,
            to: Mailbox {
                name: cc.name.clone(),
                email: cc.email.clone(),
            },
            subject: c.subject,
            text: c.text,
            html: Some(c.html),
            attachments,
            envelope: rec.id.clone(),
            mode: rec.mode,
        }))
    }

    /// `file` as an attachment when it is at most [`MAX_ATTACHMENT`] bytes; `None` when larger.
    /// A missing blob is an error (retried: blobs are written before their records).
    async fn attachment(&self, rec: &EnvelopeRecord, f: &StoredFile) -> Result<Option<Attachment>> {
        if f.size > MAX_ATTACHMENT {
            return Ok(None);
        }
        let bytes = self.read_file(f).await?.ok_or_else(|| {
            crate::error::Error::Internal(format!("{} of {} is missing", f.blob, rec.id))
        })?;
        Ok(Some(Attachment {
            file_name: f.file_name.clone(),
            content_type: "application/pdf".into(),
            bytes: bytes.to_vec(),
        }))
    }

    /// The signed copies as attachments, in document order (extensions E5): those that fit
    /// together in [`MAX_ATTACHMENT`] bytes and are readable.
    async fn signed_copy_attachment(&self, rec: &EnvelopeRecord) -> Vec<Attachment> {
        let mut out = Vec::new();
        let mut total = 0u64;
        let mut copies: Vec<&StoredFile> = rec.signed.iter().collect();
        for d in &rec.more_documents {
            copies.extend(d.signed.as_ref());
        }
        for f in copies {
            if total.saturating_add(f.size) > MAX_ATTACHMENT {
                break;
            }
            match self.read_file(f).await {
                Ok(Some(bytes)) => {
                    total += f.size;
                    out.push(Attachment {
                        file_name: f.file_name.clone(),
                        content_type: "application/pdf".into(),
                        bytes: bytes.to_vec(),
                    });
                }
                Ok(None) | Err(_) => {
                    tracing::warn!(envelope = %rec.id, "signed copy not attached");
                    break;
                }
            }
        }
        out
    }
}

/// When the signing links stop working, as the emails say it.
fn expiry(rec: &EnvelopeRecord) -> Option<String> {
    rec.expires_at
        .map(|e| e.datetime().format("%Y-%m-%d %H:%M UTC").to_string())
}

#[cfg(test)]
mod tests {
    //! Who gets which email (the pure rules) and what the emails carry, on hand-made records
    //! (no PDF work needed); sending and retrying are covered in tests/email_outbox.rs.
    use std::sync::Arc;

    use bytes::Bytes;

    use super::*;
    use crate::mail::MemoryMailer;
    use crate::model::{Mode, Signer, SignerRecord, StoredFile};
    use crate::store::{BlobStore, MemoryBlobStore};

    fn record(signers: &[&str]) -> EnvelopeRecord {
        let file = |name: &str| StoredFile {
            blob: name.into(),
            file_name: name.into(),
            size: 9,
            sha256: "0".into(),
            delta: None,
            sha256_state: None,
        };
        EnvelopeRecord {
            id: "env_1".parse().unwrap(),
            account: crate::ids::AccountId::trusted("acct_1"),
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
                        id: format!("sgn_{i}").parse().unwrap(),
                        role: format!("Role{i}"),
                        name: (*name).into(),
                        email: format!("s{i}@example.com"),
                        order: i as u32 + 1,
                        status: SignerStatus::Pending,
                        viewed_at: None,
                        signed_at: None,
                        declined_at: None,
                        decline_reason: None,
                        auth: None,
                        locale: None,
                        last_email: None,
                        kind: Default::default(),
                        in_person: None,
                    },
                    sent_at: None,
                    last_reminded_at: None,
                    consented_at: None,
                    ip_address: None,
                    user_agent: None,
                    values: Default::default(),
                    reassignments: vec![],
                    identity: None,
                    links: Vec::new(),
                    links_not_kept: Default::default(),
                    acted_via: None,
                    locks: Vec::new(),
                    locks_not_kept: 0,
                })
                .collect(),
            cc: vec![],
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
            page_count: None,
            more_documents: vec![],
            emails: vec![],
            files_deleted_at: None,
            seal: None,
            corrections: Vec::new(),
            bulk_send: None,
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

    /// Queues one email of each `(kind, signer)` in `rec` and renders it as the outbox would.
    async fn render_all(
        svc: &SigningService,
        rec: &mut EnvelopeRecord,
        emails: &[(EmailKind, usize)],
    ) -> Vec<Email> {
        let now = rec.created_at;
        let mut out = Vec::new();
        for &(kind, i) in emails {
            let queued = EmailRecord {
                id: crate::ids::EmailId::new(),
                kind,
                recipient: rec.signers[i].signer.id.to_string(),
                status: EmailStatus::Pending,
                attempts: 0,
                created_at: now,
                next_attempt_at: Some(now),
                finished_at: None,
                last_error: None,
                failure_reason: None,
                budget_taken: false,
            };
            match svc.render_email(rec, &queued, now).await.unwrap() {
                Rendered::Send(e) => out.push(e),
                Rendered::Cancel(why) => panic!("{kind:?} canceled: {why}"),
            }
        }
        out
    }

    #[test]
    fn who_hears_of_each_change() {
        use EmailKind::*;
        // Recipient IDs as short names: sgn_0 -> "0", rcp_x -> "cc".
        fn who(v: Vec<(EmailKind, String)>) -> Vec<(EmailKind, String)> {
            v.into_iter()
                .map(|(k, id)| (k, id.replace("sgn_", "").replace("rcp_x", "cc")))
                .collect()
        }
        let e = |k: EmailKind, w: &str| (k, w.to_string());
        let mut draft = record(&["A", "B"]);
        draft.status = EnvelopeStatus::Draft;
        assert!(emails_for(None, &draft).is_empty(), "a draft emails nobody");

        // Sent in order: only the first signer's turn has come.
        let mut sent = draft.clone();
        sent.status = EnvelopeStatus::Sent;
        sent.signers[0].sent_at = Some(sent.created_at);
        assert_eq!(
            who(emails_for(Some(&draft), &sent)),
            [e(SigningRequest, "0")]
        );
        assert_eq!(
            who(emails_for(None, &sent)),
            [e(SigningRequest, "0")],
            "created and sent"
        );
        assert!(
            emails_for(Some(&sent), &sent).is_empty(),
            "no change, no email"
        );

        let mut reminded = sent.clone();
        reminded.signers[0].last_reminded_at = Some(sent.created_at);
        assert_eq!(who(emails_for(Some(&sent), &reminded)), [e(Reminder, "0")]);

        // Voided: those who were sent a link hear why, a decliner does not.
        let mut voided = sent.clone();
        voided.status = EnvelopeStatus::Voided;
        assert_eq!(who(emails_for(Some(&sent), &voided)), [e(Voided, "0")]);
        voided.signers[0].signer.status = SignerStatus::Declined;
        assert!(emails_for(Some(&sent), &voided).is_empty());

        let mut done = sent.clone();
        done.status = EnvelopeStatus::Completed;
        assert_eq!(
            who(emails_for(Some(&sent), &done)),
            [e(Completed, "0"), e(Completed, "1")]
        );

        let mut embedded = done.clone();
        embedded.delivery = Delivery::Embedded;
        assert!(
            emails_for(Some(&sent), &embedded).is_empty(),
            "embedded: no signer"
        );

        // A carbon copy hears of the end, whatever the delivery, and nothing before.
        let cc = CcRecipient {
            id: crate::ids::RecipientId::trusted("rcp_x"),
            name: "Carl".into(),
            email: "carl@example.com".into(),
        };
        for s in [&mut draft, &mut sent, &mut voided, &mut done, &mut embedded] {
            s.cc = vec![cc.clone()];
        }
        assert_eq!(
            who(emails_for(Some(&draft), &sent)),
            [e(SigningRequest, "0")]
        );
        assert_eq!(who(emails_for(Some(&sent), &voided)), [e(Voided, "cc")]);
        assert_eq!(
            who(emails_for(Some(&sent), &done)),
            [e(Completed, "0"), e(Completed, "1"), e(Completed, "cc")]
        );
        assert_eq!(
            who(emails_for(Some(&sent), &embedded)),
            [e(Completed, "cc")]
        );
    }

    #[test]
    fn a_new_link_email_supersedes_a_pending_one_and_history_stays_bounded() {
        let mut prev = record(&["A"]);
        prev.status = EnvelopeStatus::Sent;
        let t0 = prev.created_at;
        let mut next = prev.clone();
        next.signers[0].sent_at = Some(t0);
        let first = queue_emails(Some(&prev), &mut next, t0, t0);
        assert_eq!(first.len(), 1);
        for k in 1..=5 {
            let prev = next.clone();
            let at = t0 + chrono::Duration::hours(k);
            next.signers[0].last_reminded_at = Some(at);
            queue_emails(Some(&prev), &mut next, at, at);
        }
        // Five reminders queued during an outage: the newest is pending, and the record keeps
        // nothing else (superseded emails are finished, and only the newest finished stays).
        assert_eq!(next.emails.len(), 1, "{:?}", next.emails);
        assert_eq!(next.emails[0].kind, EmailKind::Reminder);
        assert_eq!(next.emails[0].status, EmailStatus::Pending);
        assert_eq!(next.next_email_at(), next.emails[0].next_attempt_at);
        let view = next.view();
        assert_eq!(
            view.signers[0].last_email.as_ref().unwrap().kind,
            EmailKind::Reminder
        );
    }

    #[tokio::test]
    async fn every_email_has_text_and_escaped_html() {
        let (svc, _, blobs) = service();
        blobs
            .put(
                "nda-signed.pdf",
                Bytes::from_static(b"%PDF-1.7"),
                Timestamp::from_millis(1_800_000_000_000).unwrap(),
            )
            .await
            .unwrap();
        let mut rec = record(&["<script>alert(1)</script>", "Zoë"]);
        for s in &mut rec.signers {
            s.sent_at = Some(rec.created_at);
        }
        rec.void_reason = Some("declined by Role1: <wrong>".into());
        use EmailKind::*;
        let emails = [
            (SigningRequest, 0),
            (SigningRequest, 1),
            (Reminder, 0),
            (Voided, 0),
            (Voided, 1),
            (Completed, 0),
            (Completed, 1),
        ];
        let sent = render_all(&svc, &mut rec, &emails).await;
        for e in &sent {
            let html = e.html.as_deref().expect("an HTML part");
            assert!(!html.contains("<script>"), "{:?}", e.kind);
            assert!(!e.text.is_empty());
        }
        let request = &sent[0];
        assert_eq!(request.subject, "[Test] Please sign our NDA");
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
    async fn every_test_subject_starts_with_the_mark_and_no_live_one_does() {
        let (svc, _, blobs) = service();
        let at = Timestamp::from_millis(1_800_000_000_000).unwrap();
        blobs
            .put("nda-signed.pdf", Bytes::from_static(b"%PDF-1.7"), at)
            .await
            .unwrap();
        use EmailKind::*;
        for mode in [Mode::Test, Mode::Live] {
            let mut rec = record(&["Ann"]);
            rec.mode = mode;
            rec.signers[0].sent_at = Some(rec.created_at);
            rec.cc = vec![CcRecipient {
                id: crate::ids::RecipientId::trusted("rcp_x"),
                name: "Carl".into(),
                email: "carl@example.com".into(),
            }];
            let mut sent = render_all(
                &svc,
                &mut rec,
                &[
                    (SigningRequest, 0),
                    (Reminder, 0),
                    (Voided, 0),
                    (Completed, 0),
                ],
            )
            .await;
            for kind in [Voided, Completed] {
                let queued = EmailRecord {
                    id: crate::ids::EmailId::new(),
                    kind,
                    recipient: "rcp_x".into(),
                    status: EmailStatus::Pending,
                    attempts: 0,
                    created_at: rec.created_at,
                    next_attempt_at: Some(rec.created_at),
                    finished_at: None,
                    last_error: None,
                    failure_reason: None,
                    budget_taken: false,
                };
                match svc
                    .render_email(&rec, &queued, rec.created_at)
                    .await
                    .unwrap()
                {
                    Rendered::Send(e) => sent.push(e),
                    Rendered::Cancel(why) => panic!("copy {kind:?} canceled: {why}"),
                }
            }
            assert_eq!(sent.len(), 6);
            for e in &sent {
                let marked = e.subject.starts_with("[Test] ");
                assert_eq!(
                    marked,
                    mode == Mode::Test,
                    "{mode:?} {:?}: {}",
                    e.kind,
                    e.subject
                );
                assert!(!e.subject.starts_with("[Test] [Test]"), "{}", e.subject);
            }
            assert_eq!(
                sent[0].subject,
                match mode {
                    Mode::Test => "[Test] Please sign our NDA",
                    Mode::Live => "Please sign our NDA",
                }
            );
        }
    }

    #[tokio::test]
    async fn a_link_email_is_canceled_once_the_signer_cannot_sign() {
        let (svc, _, _) = service();
        let mut rec = record(&["Ann"]);
        rec.status = EnvelopeStatus::Voided;
        let queued = EmailRecord {
            id: crate::ids::EmailId::trusted("eml_1"),
            kind: EmailKind::SigningRequest,
            recipient: rec.signers[0].signer.id.to_string(),
            status: EmailStatus::Pending,
            attempts: 0,
            created_at: rec.created_at,
            next_attempt_at: Some(rec.created_at),
            finished_at: None,
            last_error: None,
            failure_reason: None,
            budget_taken: false,
        };
        assert!(matches!(
            svc.render_email(&rec, &queued, rec.created_at)
                .await
                .unwrap(),
            Rendered::Cancel(_)
        ));
        let voided = EmailRecord {
            kind: EmailKind::Voided,
            ..queued
        };
        assert!(matches!(
            svc.render_email(&rec, &voided, rec.created_at)
                .await
                .unwrap(),
            Rendered::Send(_)
        ));
    }

    #[tokio::test]
    async fn a_signed_copy_over_the_limit_is_not_attached_and_the_email_says_so() {
        let (svc, _, _) = service();
        let mut rec = record(&["Zoë"]);
        if let Some(f) = rec.signed.as_mut() {
            f.size = MAX_ATTACHMENT + 1;
        }
        let sent = render_all(&svc, &mut rec, &[(EmailKind::Completed, 0)]).await;
        assert!(sent[0].attachments.is_empty());
        assert!(sent[0].text.contains("could not be attached"));
    }
}
