//! Envelope actions after create: send, void, remind, signing links, download links, and the
//! optimistic-concurrency loop every transition goes through.

use serde::{Deserialize, Serialize};

use super::{AuthContext, Params, SigningService};
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::i18n::Locale;
use crate::ids::{self, EnvelopeId, SignerId};
use crate::model::reach::{self, IssuedLink, LinkVia};
use crate::model::{
    Delivery, Envelope, EnvelopeRecord, EnvelopeStatus, EventRecord, EventType, SignerStatus,
};
use crate::rules::{self, mark_turns};
use crate::store::{AllowanceDebit, FileLink, PurgeBefore, Purged, SigningToken, StoreError};

/// Days an expired signing or download link is kept before [`SigningService::purge_expired`]
/// deletes it.
pub const EXPIRED_LINKS_KEPT_DAYS: i64 = 30;

/// How many times a transition is retried when another writer got there first.
const MAX_ATTEMPTS: usize = 8;

/// The signing URL object (interface.md 2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SigningUrl {
    /// Always `signing_url`.
    pub object: String,
    /// The ID of the signer the link is for.
    pub signer: String,
    /// The signer's role.
    pub role: String,
    /// The signing URL to hand to the signer.
    pub url: String,
    /// When the link stops working.
    pub expires_at: Timestamp,
}

/// A signing link: the token a signer's page is opened with, and its URL.
///
/// The token is what [`open_signing_link`](SigningService::open_signing_link),
/// [`sign`](SigningService::sign) and [`decline`](SigningService::decline) take;
/// an embedding application that shows its own signing page uses it directly. It is a secret
/// (anyone holding it acts as the signer): `Debug` does not show it. The API's `signing_url`
/// object is its wire view ([`SigningLink::view`]).
#[derive(Clone, PartialEq, Eq)]
pub struct SigningLink {
    /// The signer's ID (`sgn_...`).
    pub signer: String,
    /// The signer's role.
    pub role: String,
    /// The secret token of the link.
    pub token: String,
    /// `{signing_host}/sign/{token}`.
    pub url: String,
    /// When the link stops working (capped by the envelope's expiry).
    pub expires_at: Timestamp,
}

impl std::fmt::Debug for SigningLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningLink")
            .field("signer", &self.signer)
            .field("role", &self.role)
            .field("token", &"[redacted]")
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

impl SigningLink {
    /// The API's `signing_url` object (interface.md 2.4).
    pub fn view(&self) -> SigningUrl {
        SigningUrl {
            object: "signing_url".into(),
            signer: self.signer.clone(),
            role: self.role.clone(),
            url: self.url.clone(),
            expires_at: self.expires_at,
        }
    }
}

/// `{object:"file_link", kind, url, expires_at}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileLinkView {
    /// Always `file_link`.
    pub object: String,
    /// Which file the link downloads: `original`, `signed`, `audit_trail` or `archive`.
    pub kind: String,
    /// The temporary download URL.
    pub url: String,
    /// When the URL stops working.
    pub expires_at: Timestamp,
}

/// Which file of an envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// The document as uploaded.
    Original,
    /// The signed document, available once the envelope is completed.
    Signed,
    /// The audit trail certificate of the envelope.
    AuditTrail,
    /// A ZIP of every signed copy and the audit trail (extensions E5).
    Archive,
    /// A signer's file for an `attachment` field, named by `?field=KEY` (extensions E14).
    Attachment,
}

impl FileKind {
    /// Parses the `kind` request key; an unknown value is a `parameter_invalid` error.
    pub fn parse(s: &str) -> Result<FileKind> {
        match s {
            "original" => Ok(FileKind::Original),
            "signed" => Ok(FileKind::Signed),
            "audit_trail" => Ok(FileKind::AuditTrail),
            "archive" => Ok(FileKind::Archive),
            "attachment" => Ok(FileKind::Attachment),
            _ => Err(Error::invalid(
                "kind",
                "must be original, signed, audit_trail, archive or attachment",
            )),
        }
    }
    /// The name used in the API for this kind.
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Original => "original",
            FileKind::Signed => "signed",
            FileKind::AuditTrail => "audit_trail",
            FileKind::Archive => "archive",
            FileKind::Attachment => "attachment",
        }
    }
}

/// The stored file `kind` of `document` names (`None` for the archive, which is every
/// document's), or why it cannot be had: a `document` that does not fit the kind or the
/// envelope, a file not made yet, files deleted by retention.
fn pick_file(
    rec: &EnvelopeRecord,
    kind: FileKind,
    document: Option<u32>,
) -> Result<Option<&crate::model::StoredFile>> {
    if matches!(kind, FileKind::AuditTrail | FileKind::Archive) && document.is_some() {
        return Err(Error::invalid(
            "document",
            format!(
                "the {} covers every document; leave document out",
                kind.as_str().replace('_', " ")
            ),
        ));
    }
    let Some((original, signed)) = rec.document(document.unwrap_or(1)) else {
        return Err(Error::invalid(
            "document",
            format!(
                "must be a document of the envelope, from 1 to {}",
                rec.document_count()
            ),
        ));
    };
    let file = match kind {
        FileKind::Original => Some(original),
        FileKind::Signed => signed,
        FileKind::AuditTrail | FileKind::Archive => rec.audit_trail.as_ref(),
        // Named by a field, not a document (`envelope_download_link`).
        FileKind::Attachment => return Err(Error::missing("field")),
    };
    let file = file.ok_or(Error::FileNotReady {
        kind: kind.as_str(),
    })?;
    if let Some(deleted_at) = rec.files_deleted_at {
        return Err(Error::FileDeleted {
            kind: kind.as_str(),
            deleted_at,
        });
    }
    Ok((kind != FileKind::Archive).then_some(file))
}

/// The archive's file name: the first document's, `-signed.zip` instead of `.pdf`.
fn archive_name(rec: &EnvelopeRecord) -> String {
    let stem = rec
        .original
        .file_name
        .trim_end_matches(".pdf")
        .trim_end_matches(".PDF");
    format!("{stem}-signed.zip")
}

/// `?document=N` of a file download (extensions E5): an integer from 1 to
/// [`super::params::MAX_DOCUMENTS`], `None` when absent. Whether the envelope has that
/// document is checked by [`SigningService::envelope_document_link`].
pub fn document_param(p: &mut Params) -> Result<Option<u32>> {
    let max = super::params::MAX_DOCUMENTS as i64;
    match p.integer("document")? {
        None => Ok(None),
        Some(n) if (1..=max).contains(&n) => Ok(Some(n as u32)),
        Some(_) => Err(Error::invalid(
            "document",
            format!("must be a document number from 1 to {max}"),
        )),
    }
}

/// `?field=KEY` of a file download: the `attachment` field whose file a link of kind
/// `attachment` gives (extensions E14); `None` when absent. Whether it fits the kind and the
/// envelope is checked by [`SigningService::envelope_download_link`].
pub fn field_param(p: &mut Params) -> Result<Option<String>> {
    p.string("field")
}

/// The signer's file of the `attachment` field `field` (extensions E14), or why it cannot be
/// had: a key that is no attachment field of the envelope (`parameter_invalid`, `field`), a
/// field without a file (not signed yet, or left empty: `file_not_ready`), files deleted by
/// retention.
fn pick_attachment<'a>(
    rec: &'a EnvelopeRecord,
    field: &str,
) -> Result<&'a crate::model::AttachedFile> {
    let is_attachment_field = rec
        .fields
        .iter()
        .any(|f| f.field.key == field && f.field.kind == crate::field::FieldType::Attachment);
    if !is_attachment_field {
        return Err(Error::invalid(
            "field",
            "must be the key of an attachment field of the envelope",
        ));
    }
    if let Some(deleted_at) = rec.files_deleted_at {
        return Err(Error::FileDeleted {
            kind: FileKind::Attachment.as_str(),
            deleted_at,
        });
    }
    rec.attached_files()
        .find(|(_, k, _)| *k == field)
        .map(|(_, _, a)| a)
        .ok_or(Error::FileNotReady {
            kind: FileKind::Attachment.as_str(),
        })
}

/// Who takes a signer's place (`reassign_signer`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reassign {
    /// The new display name of the signer (key `name`).
    pub name: String,
    /// The new email address of the signer (key `email`), validated.
    pub email: String,
    /// How the new person proves who they are (extensions E2). `None`: no check, whatever the
    /// previous person had (a code given to them out of band is no good for someone else).
    pub auth: Option<super::SignerAuth>,
    /// The new person's language (extensions E4); `None` leaves the signer without one (the
    /// previous person's language is not assumed to be theirs).
    pub locale: Option<Locale>,
}

impl Reassign {
    /// `{name, email, auth?, locale?}` from request parameters; other parameters are unknown.
    pub fn parse(mut p: super::Params) -> Result<Reassign> {
        let name = p.required_string("name")?;
        let email = p.required_string("email")?;
        let auth = p
            .json_value("auth")?
            .map(|v| super::SignerAuth::parse("auth", &v))
            .transpose()?;
        let locale = p
            .string("locale")?
            .map(|t| Locale::parse(&t).map_err(|e| Error::invalid("locale", e.to_string())))
            .transpose()?;
        p.finish()?;
        Ok(Reassign {
            name,
            email,
            auth,
            locale,
        })
    }
}

/// The answer to `remind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reminder {
    /// Always `reminder`.
    pub object: String,
    /// The ID of the envelope.
    pub envelope: String,
    /// The signers a reminder was sent to.
    pub reminded: Vec<ReminderTarget>,
    /// The signers who were not reminded, with the reason.
    pub skipped: Vec<ReminderSkip>,
}

/// A signer a reminder was sent to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReminderTarget {
    /// The signer's ID.
    pub signer: String,
    /// The signer's role.
    pub role: String,
    /// The address the reminder went to.
    pub email: String,
}

/// A signer who was not reminded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReminderSkip {
    /// The signer's ID.
    pub signer: String,
    /// The signer's role.
    pub role: String,
    /// `reminded_recently`, `not_their_turn`, `completed`, `declined` or `embedded`.
    pub reason: String,
}

/// What a transition closure decided.
pub(crate) struct Change<T> {
    pub events: Vec<(EventType, Option<usize>)>,
    pub debit: Option<AllowanceDebit>,
    pub out: T,
}

impl<T> Change<T> {
    pub(crate) fn new(out: T) -> Self {
        Change {
            events: Vec::new(),
            debit: None,
            out,
        }
    }
    pub(crate) fn event(mut self, kind: EventType, signer: Option<usize>) -> Self {
        self.events.push((kind, signer));
        self
    }
}

impl SigningService {
    /// Loads an envelope in scope, voiding it first if it has expired.
    pub(crate) async fn load_envelope(
        &self,
        ctx: &AuthContext,
        id: &EnvelopeId,
    ) -> Result<EnvelopeRecord> {
        let rec = self
            .inner
            .store
            .get_envelope(&ctx.scope(), id)
            .await?
            .ok_or_else(|| Error::not_found("envelope", id))?;
        self.settle_expiry(rec).await
    }

    /// Applies a pending expiry (decisions.md: voided with reason `expired`, `envelope.voided`).
    pub(crate) async fn settle_expiry(&self, mut rec: EnvelopeRecord) -> Result<EnvelopeRecord> {
        for _ in 0..MAX_ATTEMPTS {
            let now = self.now();
            if !rules::is_expired(&rec, now) {
                return Ok(rec);
            }
            let mut next = rec.clone();
            let at = next.expires_at.unwrap_or(now);
            rules::void(&mut next, rules::EXPIRED_REASON, at)?;
            let emails = self.queue_emails(Some(&rec), &mut next, now);
            next.version += 1;
            let ev = super::events::record(&next, EventType::Voided, None, now);
            match self.inner.store.update_envelope(&next, &[ev], None).await {
                Ok(()) => {
                    self.dispatch_emails(&next, emails);
                    return Ok(next);
                }
                Err(StoreError::Conflict) => {
                    // Gone: deleted by retention meanwhile.
                    rec = self
                        .inner
                        .store
                        .get_envelope(&rec.scope(), &rec.id)
                        .await?
                        .ok_or_else(|| Error::not_found("envelope", &rec.id))?;
                }
                Err(e) => return Err(e.into()),
            }
        }
        Err(Error::Internal("expiry kept conflicting".into()))
    }

    /// Deletes what can no longer be used, in every account: idempotency records more than one
    /// idempotency TTL past their replay window or their start (a claim that old never finished:
    /// its process died), and links that expired more than [`EXPIRED_LINKS_KEPT_DAYS`] days ago
    /// (until then, opening one says it expired rather than that it does not exist). Works in
    /// batches of 1 000 rows; returns what went. For a background task (`serve` runs it with the
    /// expiry sweep).
    pub async fn purge_expired(&self) -> Result<Purged> {
        const BATCH: usize = 1000;
        let now = self.now();
        let before = PurgeBefore {
            idempotency: now - self.inner.settings.idempotency_ttl,
            links: now - chrono::Duration::days(EXPIRED_LINKS_KEPT_DAYS),
        };
        let mut total = Purged::default();
        loop {
            let p = self.inner.store.purge_expired(&before, BATCH).await?;
            total.idempotency_keys += p.idempotency_keys;
            total.signing_tokens += p.signing_tokens;
            total.file_links += p.file_links;
            if p.idempotency_keys < BATCH && p.signing_tokens < BATCH && p.file_links < BATCH {
                return Ok(total);
            }
        }
    }

    /// Voids every expired envelope (all accounts); returns how many. For a background task.
    pub async fn expire_due(&self) -> Result<usize> {
        let mut n = 0;
        loop {
            let due = self.inner.store.expired_envelopes(self.now(), 100).await?;
            if due.is_empty() {
                return Ok(n);
            }
            for rec in due {
                match self.settle_expiry(rec).await {
                    Ok(_) => n += 1,
                    // Deleted by retention since it was listed.
                    Err(Error::NotFound { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
        }
    }

    /// Applies `f` to the current envelope and writes it with its events, retrying from a fresh
    /// read when another writer changed it in between.
    pub(crate) async fn transition<T>(
        &self,
        ctx: &AuthContext,
        id: &EnvelopeId,
        f: impl Fn(&mut EnvelopeRecord, Timestamp) -> Result<Change<T>>,
    ) -> Result<(EnvelopeRecord, T)> {
        for _ in 0..MAX_ATTEMPTS {
            let current = self.load_envelope(ctx, id).await?;
            let now = self.now();
            let mut next = current.clone();
            let change = f(&mut next, now)?;
            let emails = self.queue_emails(Some(&current), &mut next, now);
            next.version = current.version + 1;
            let events: Vec<EventRecord> = change
                .events
                .iter()
                .map(|&(k, s)| super::events::record(&next, k, s, now))
                .collect();
            match self
                .inner
                .store
                .update_envelope(&next, &events, change.debit.as_ref())
                .await
            {
                Ok(()) => {
                    self.dispatch_emails(&next, emails);
                    return Ok((next, change.out));
                }
                Err(StoreError::Conflict) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(Error::Internal("transition kept conflicting".into()))
    }

    /// Sends a draft. In live mode one signature of the allowance is used.
    pub async fn send_envelope(&self, ctx: &AuthContext, id: &EnvelopeId) -> Result<Envelope> {
        let debit = if ctx.mode().is_live() {
            Some(self.allowance_debit(ctx, self.now()).await?)
        } else {
            None
        };
        let (rec, ()) = self
            .transition(ctx, id, |env, now| {
                rules::send(env, now)?;
                mark_turns(env, now);
                let mut c = Change::new(()).event(EventType::Sent, None);
                c.debit = debit.clone();
                Ok(c)
            })
            .await?;
        Ok(rec.view())
    }

    /// Voids a draft or sent envelope; the reason is shown to signers.
    pub async fn void_envelope(
        &self,
        ctx: &AuthContext,
        id: &EnvelopeId,
        reason: Option<&str>,
    ) -> Result<Envelope> {
        let reason = match reason {
            Some(r) => {
                super::params::check_text("reason", r, 1000)?;
                r.trim().to_string()
            }
            None => rules::DEFAULT_VOID_REASON.to_string(),
        };
        let (rec, ()) = self
            .transition(ctx, id, |env, now| {
                rules::void(env, &reason, now)?;
                Ok(Change::new(()).event(EventType::Voided, None))
            })
            .await?;
        Ok(rec.view())
    }

    /// Hands a signer's place to someone else (extensions E3, `POST
    /// /envelopes/{id}/signers/{signer_id}/reassign`): the signer keeps its ID and role, the
    /// previous person's links stop working, and a signing request goes to the new person when
    /// it is their turn (email delivery). Emits `signer.reassigned` with `data.previous`.
    pub async fn reassign_signer(
        &self,
        ctx: &AuthContext,
        id: &EnvelopeId,
        signer_id: &SignerId,
        to: &Reassign,
    ) -> Result<Envelope> {
        super::params::check_text("name", &to.name, 200)?;
        super::params::check_email("email", to.email.trim())?;
        let (name, email) = (to.name.trim().to_string(), to.email.trim().to_string());
        if let Some(a) = &to.auth {
            a.validate("auth")?;
        }
        let (rec, ()) = self
            .transition(ctx, id, |env, now| {
                let i = env
                    .signer_index(signer_id)
                    .ok_or_else(|| Error::not_found("signer", signer_id))?;
                let identity = to.auth.as_ref().map(super::SignerAuth::to_record);
                rules::reassign(env, i, &name, &email, identity, to.locale.as_ref(), now)?;
                if env.status == EnvelopeStatus::Sent {
                    mark_turns(env, now);
                }
                Ok(Change::new(()).event(EventType::SignerReassigned, Some(i)))
            })
            .await?;
        Ok(rec.view())
    }

    /// Lifts the lock of a signer's code step (extensions E8): `POST
    /// /v1/envelopes/{id}/signers/{signer_id}/unlock`. Codes are checked again, and the count of
    /// wrong codes and the lock ladder start again; the audit trail shows the unlock. Refused
    /// ([`Error::InvalidState`], 409) when the envelope is not sent, the signer has signed or
    /// declined, has no identity check, or is not locked; an unknown signer is `NotFound`.
    pub async fn unlock_signer(
        &self,
        ctx: &AuthContext,
        id: &EnvelopeId,
        signer_id: &SignerId,
    ) -> Result<Envelope> {
        let (rec, ()) = self
            .transition(ctx, id, |env, now| {
                let i = env
                    .signer_index(signer_id)
                    .ok_or_else(|| Error::not_found("signer", signer_id))?;
                if env.status != EnvelopeStatus::Sent {
                    return Err(Error::state(format!(
                        "Only signers of sent envelopes can be unlocked; this one is {}.",
                        env.status.as_str()
                    )));
                }
                let s = &mut env.signers[i];
                if s.signer.status.is_done() {
                    return Err(Error::state(format!(
                        "Signer {} has {} and has nothing to unlock.",
                        s.signer.id,
                        s.signer.status.as_str()
                    )));
                }
                let Some(identity) = s.identity.as_mut() else {
                    return Err(Error::state(format!(
                        "Signer {} has no identity check, so no lock.",
                        s.signer.id
                    )));
                };
                rules::identity::unlock(identity, now)?;
                let entry = crate::model::LockEntry::Unlocked {
                    at: now,
                    reassigned: false,
                };
                reach::record_lock(&mut s.locks, &mut s.locks_not_kept, entry);
                Ok(Change::new(()))
            })
            .await?;
        Ok(rec.view())
    }

    /// Emails every signer who can sign now, at most once per reminder interval each.
    pub async fn remind(&self, ctx: &AuthContext, id: &EnvelopeId) -> Result<Reminder> {
        let interval = self.inner.settings.reminder_interval;
        let (rec, (reminded, skipped)) = self
            .transition(ctx, id, |env, now| {
                if env.status != EnvelopeStatus::Sent {
                    return Err(Error::state(format!(
                        "Only sent envelopes can be reminded; this one is {}.",
                        env.status.as_str()
                    )));
                }
                let turn = rules::actionable(env, now);
                let mut reminded = Vec::new();
                let mut skipped = Vec::new();
                for i in rules::signing_sequence(env) {
                    let s = &env.signers[i];
                    let reason = match s.signer.status {
                        SignerStatus::Completed => Some("completed"),
                        SignerStatus::Declined => Some("declined"),
                        _ if env.delivery == Delivery::Embedded => Some("embedded"),
                        _ if !turn.contains(&i) => Some("not_their_turn"),
                        _ if s
                            .last_reminded_at
                            .into_iter()
                            .chain(s.sent_at)
                            .any(|t| now - t < interval) =>
                        {
                            Some("reminded_recently")
                        }
                        _ => None,
                    };
                    match reason {
                        Some(r) => skipped.push(ReminderSkip {
                            signer: s.signer.id.to_string(),
                            role: s.signer.role.clone(),
                            reason: r.into(),
                        }),
                        None => reminded.push(i),
                    }
                }
                for &i in &reminded {
                    env.signers[i].last_reminded_at = Some(now);
                }
                Ok(Change::new((reminded, skipped)))
            })
            .await?;
        Ok(Reminder {
            object: "reminder".into(),
            envelope: rec.id.to_string(),
            reminded: reminded
                .iter()
                .map(|&i| ReminderTarget {
                    signer: rec.signers[i].signer.id.to_string(),
                    role: rec.signers[i].signer.role.clone(),
                    email: rec.signers[i].signer.email.clone(),
                })
                .collect(),
            skipped,
        })
    }

    /// The API's `signing_url` object: the view of [`SigningService::signing_link`].
    pub async fn signing_url(
        &self,
        ctx: &AuthContext,
        id: &EnvelopeId,
        signer: Option<&str>,
    ) -> Result<SigningUrl> {
        Ok(self.signing_link(ctx, id, signer).await?.view())
    }

    /// A new signing link for `signer` (a role or signer ID), or for the only signer who can
    /// sign now. Its token opens the signer's side ([`SigningService::open_signing_link`],
    /// [`SigningService::sign`]).
    pub async fn signing_link(
        &self,
        ctx: &AuthContext,
        id: &EnvelopeId,
        signer: Option<&str>,
    ) -> Result<SigningLink> {
        let rec = self.load_envelope(ctx, id).await?;
        let now = self.now();
        if rec.status != EnvelopeStatus::Sent {
            return Err(Error::state(format!(
                "Signing links exist for sent envelopes; this one is {}.",
                rec.status.as_str()
            )));
        }
        let i = match signer {
            Some(s) => {
                let i = rec
                    .signers
                    .iter()
                    .position(|x| x.signer.id == s || x.signer.role == s)
                    .ok_or_else(|| Error::SignerNotFound {
                        signer: s.chars().take(100).collect(),
                    })?;
                if let Some(reason) = rules::not_actionable_reason(&rec, i, now) {
                    return Err(Error::SignerNotActionable {
                        signer: rec.signers[i].signer.id.to_string(),
                        reason,
                    });
                }
                i
            }
            None => match rules::actionable(&rec, now).as_slice() {
                [only] => *only,
                [] => return Err(Error::state("No signer can sign this envelope now.")),
                _ => return Err(Error::SignerAmbiguous),
            },
        };
        let link = self.issue_signing_token(&rec, i, LinkVia::Api, now).await?;
        // The link is evidence of how the signer could be reached (extensions E8): which key
        // fetched it, from where. Written after the token, so that a link the sender never
        // received (this write failed) is never on the record as issued.
        let issued = IssuedLink {
            via: LinkVia::Api,
            at: now,
            to: None,
            api_key: Some(ctx.key.id.clone()),
            ip_address: ctx.ip_address.map(|ip| ip.to_string()),
        };
        let signer_id = link.signer.clone();
        self.transition(ctx, id, |env, _| {
            let j = env
                .signer_index(&signer_id)
                .ok_or_else(|| Error::not_found("signer", &signer_id))?;
            let s = &mut env.signers[j];
            reach::record_link(&mut s.links, &mut s.links_not_kept, issued.clone());
            Ok(Change::new(()))
        })
        .await?;
        Ok(link)
    }

    /// Stores a new signing token for signer `i`, remembering where it goes (`via`); returns
    /// the link.
    pub(crate) async fn issue_signing_token(
        &self,
        rec: &EnvelopeRecord,
        i: usize,
        via: LinkVia,
        now: Timestamp,
    ) -> Result<SigningLink> {
        let token = ids::new_token();
        let mut expires_at = now + self.inner.settings.signing_link_ttl;
        if let Some(e) = rec.expires_at {
            expires_at = expires_at.min(e);
        }
        self.inner
            .store
            .insert_signing_token(&SigningToken {
                token_hash: ids::digest(&token),
                account: rec.account.clone(),
                mode: rec.mode,
                envelope: rec.id.clone(),
                signer: rec.signers[i].signer.id.clone(),
                created_at: now,
                expires_at,
                issued_via: Some(via),
            })
            .await?;
        let s = &rec.signers[i].signer;
        Ok(SigningLink {
            signer: s.id.to_string(),
            role: s.role.clone(),
            url: format!("{}/sign/{token}", self.inner.settings.signing_base()),
            token,
            expires_at,
        })
    }

    /// A 5-minute download link for one file of an envelope (of its first document).
    pub async fn envelope_file_link(
        &self,
        ctx: &AuthContext,
        id: &EnvelopeId,
        kind: FileKind,
    ) -> Result<FileLinkView> {
        self.envelope_document_link(ctx, id, kind, None).await
    }

    /// A 5-minute download link for one file of an envelope: the original or signed copy of
    /// `document` (from 1, the first when `None`; extensions E5), or the audit trail, which
    /// covers every document and takes no `document`. A number past the envelope's last
    /// document is refused (`parameter_invalid`, `document`).
    pub async fn envelope_document_link(
        &self,
        ctx: &AuthContext,
        id: &EnvelopeId,
        kind: FileKind,
        document: Option<u32>,
    ) -> Result<FileLinkView> {
        let rec = self.load_envelope(ctx, id).await?;
        match pick_file(&rec, kind, document)? {
            Some(file) => self.file_link(kind.as_str(), file).await,
            None => self.archive_link(&rec).await,
        }
    }

    /// A 5-minute download link for one file of an envelope, as `GET
    /// /v1/envelopes/{id}/files/{kind}` names it: [`SigningService::envelope_document_link`]
    /// for `original`, `signed`, `audit_trail` and `archive` (`field` must then be absent), and
    /// for `attachment` the signer's file of the `attachment` field `field` (required; no
    /// `document`), served with its own content type (extensions E14).
    pub async fn envelope_download_link(
        &self,
        ctx: &AuthContext,
        id: &EnvelopeId,
        kind: FileKind,
        document: Option<u32>,
        field: Option<&str>,
    ) -> Result<FileLinkView> {
        if kind != FileKind::Attachment {
            if field.is_some() {
                return Err(Error::invalid(
                    "field",
                    "names the file of an attachment field; use it with kind attachment only",
                ));
            }
            return self.envelope_document_link(ctx, id, kind, document).await;
        }
        if document.is_some() {
            return Err(Error::invalid(
                "document",
                "an attachment is named by its field; leave document out",
            ));
        }
        let field = field.ok_or_else(|| Error::missing("field"))?;
        let rec = self.load_envelope(ctx, id).await?;
        let a = pick_attachment(&rec, field)?;
        self.typed_file_link(
            kind.as_str(),
            &a.file,
            Some(a.content_type.clone()),
            self.inner.settings.download_link_ttl,
        )
        .await
    }

    /// One file of an envelope itself, for Rust callers (the API gives links): the original or
    /// signed copy of `document` (the first when `None`), the audit trail, or the archive as it
    /// is written (extensions E5). Refused exactly like
    /// [`SigningService::envelope_document_link`].
    pub async fn envelope_file(
        &self,
        ctx: &AuthContext,
        id: &EnvelopeId,
        kind: FileKind,
        document: Option<u32>,
    ) -> Result<super::Download> {
        let rec = self.load_envelope(ctx, id).await?;
        match pick_file(&rec, kind, document)? {
            Some(file) => {
                let base = file.delta.as_ref().map(|d| d.base.as_str());
                let stream =
                    self.read_stream(&file.blob, base)
                        .await?
                        .ok_or(Error::FileDeleted {
                            kind: kind.as_str(),
                            deleted_at: self.now(),
                        })?;
                Ok(super::Download::File {
                    file_name: file.file_name.clone(),
                    body: stream.into(),
                })
            }
            None => {
                let of = super::ArchiveOf {
                    account: rec.account.clone(),
                    mode: rec.mode,
                    envelope: rec.id.clone(),
                };
                Ok(super::Download::Archive {
                    file_name: archive_name(&rec),
                    body: self.open_archive(&of).await?,
                })
            }
        }
    }

    /// A 5-minute link to the archive of a completed envelope (checked by [`pick_file`]).
    async fn archive_link(&self, rec: &EnvelopeRecord) -> Result<FileLinkView> {
        let kind = FileKind::Archive.as_str();
        let audit = rec
            .audit_trail
            .as_ref()
            .ok_or(Error::FileNotReady { kind })?;
        let token = ids::new_token();
        let expires_at = self.now() + self.inner.settings.download_link_ttl;
        self.inner
            .store
            .insert_file_link(&FileLink {
                token_hash: ids::digest(&token),
                // The audit trail's blob: the link is deleted with the envelope's files.
                blob: audit.blob.clone(),
                file_name: archive_name(rec),
                expires_at,
                base: None,
                archive: Some(super::ArchiveOf {
                    account: rec.account.clone(),
                    mode: rec.mode,
                    envelope: rec.id.clone(),
                }),
                content_type: None,
            })
            .await?;
        Ok(FileLinkView {
            object: "file_link".into(),
            kind: kind.into(),
            url: format!("{}/files/{token}", self.inner.settings.public_base()),
            expires_at,
        })
    }

    pub(crate) async fn file_link(
        &self,
        kind: &str,
        file: &crate::model::StoredFile,
    ) -> Result<FileLinkView> {
        self.file_link_for(kind, file, self.inner.settings.download_link_ttl)
            .await
    }

    /// A download link that works for `ttl`.
    pub(crate) async fn file_link_for(
        &self,
        kind: &str,
        file: &crate::model::StoredFile,
        ttl: chrono::Duration,
    ) -> Result<FileLinkView> {
        self.typed_file_link(kind, file, None, ttl).await
    }

    /// A download link that works for `ttl`, served as `content_type` (`None`: a PDF).
    async fn typed_file_link(
        &self,
        kind: &str,
        file: &crate::model::StoredFile,
        content_type: Option<String>,
        ttl: chrono::Duration,
    ) -> Result<FileLinkView> {
        let token = ids::new_token();
        let expires_at = self.now() + ttl;
        self.inner
            .store
            .insert_file_link(&FileLink {
                token_hash: ids::digest(&token),
                blob: file.blob.clone(),
                file_name: file.file_name.clone(),
                expires_at,
                base: file.delta.as_ref().map(|d| d.base.clone()),
                archive: None,
                content_type,
            })
            .await?;
        Ok(FileLinkView {
            object: "file_link".into(),
            kind: kind.into(),
            url: format!("{}/files/{token}", self.inner.settings.public_base()),
            expires_at,
        })
    }

    /// The file behind a download link: `(file_name, bytes)`. Unknown and expired links are
    /// `NotFound` alike. The file (or an archive link's ZIP) is collected in memory here:
    /// servers use [`SigningService::open_download`], which streams it.
    pub async fn open_file_link(&self, token: &str) -> Result<(String, bytes::Bytes)> {
        self.open_download(token).await?.collect().await
    }

    /// What a download link gives: a file as it is read from the blob store, or (kind
    /// `archive`, extensions E5) the ZIP of an envelope's signed copies and audit trail,
    /// written as it is read. Unknown and expired links are `NotFound` alike.
    pub async fn open_download(&self, token: &str) -> Result<super::Download> {
        self.resolve_download(token).await?.open().await
    }

    /// The download link of `token`, looked up and checked but not read yet: the caller opens
    /// it ([`super::DownloadLink::open`]) or asks for a URL of the blob store
    /// ([`super::DownloadLink::direct_url`]). Unknown and expired links are `NotFound` alike.
    pub async fn resolve_download(&self, token: &str) -> Result<super::DownloadLink> {
        let gone = || Error::not_found("file", "link");
        if token.is_empty() || token.len() > 64 || !token.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            return Err(gone());
        }
        let link = self
            .inner
            .store
            .file_link(&ids::digest(token))
            .await?
            .ok_or_else(gone)?;
        if link.expires_at <= self.now() {
            return Err(gone());
        }
        Ok(super::DownloadLink::new(self.clone(), link))
    }
}
