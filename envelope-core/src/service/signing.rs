//! The signer's side, behind a signing link: open (marks `viewed`), sign, decline.
//!
//! A link token maps to one signer of one envelope. It works only while that signer can act:
//! the envelope is `sent`, not expired, it is the signer's turn, and the signer is not done.
//! [`LinkState`] tells a front end which page to show otherwise, without revealing anything to
//! someone holding an unknown token.
//!
//! What a signer submits is checked on arrival (`signing/values.rs`): an accepted submission can
//! always be stamped, so no signer can jam the envelope's completion.

use std::collections::BTreeMap;

use super::SigningService;
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::field::Field;
use crate::ids;
use crate::model::{
    Envelope, EnvelopeRecord, EnvelopeStatus, EventType, SignerKind, SignerStatus, SignerValue,
};
use crate::rules::{self, mark_turns};
use crate::store::{SigningToken, StoreError};

mod attachments;
pub(super) mod identity;
mod pictures;
mod preview;
pub use pictures::DocumentPages;
pub(crate) use pictures::Pictures;
pub(crate) use preview::Previews;
pub(super) mod judge;
pub(super) mod values;

pub use attachments::{AttachmentUpload, attachment_problem};
use identity::check_grant;
pub use identity::{SignerAuth, Verification, VerificationGrant};
pub use values::{ValueProblem, field_value_problem, value_problem};
// What a refused attachment's problem names (extensions E14), and the bounds a file must keep.
pub use crate::pdf::{AttachmentError, AttachmentLimits, AttachmentType};
// What a refused value's problem names: the character that cannot be drawn, or why a drawing was
// refused, and the bounds a drawing must keep.
pub use crate::pdf::{DrawingError, DrawingLimits, Undrawable};
// The size of each page a signer sees (DocumentPages), and the font typed signatures are stamped
// in, for a signing page that shows typed names in the same face.
pub use crate::pdf::{PageSize, SIGNATURE_FONT};
// How long a browser that entered the right identity code may go on without entering it again.
pub use crate::rules::identity::GRANT_HOURS;
// All that the code step may show of the signer's name before the code (extensions E8).
pub use crate::rules::identity::first_name;

use values::{checked_values, signing_date};

const MAX_ATTEMPTS: usize = 8;

/// Who is at the other end of a signing link (for the audit trail).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientInfo {
    /// The signer's IP address, recorded in the audit trail.
    pub ip_address: Option<String>,
    /// The signer's `User-Agent`, recorded in the audit trail.
    pub user_agent: Option<String>,
}

/// What a signing link leads to now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkState {
    /// The signer can sign or decline.
    Ready,
    /// The signer has signed.
    Signed,
    /// Another signer must sign first.
    NotYourTurn,
    /// The signer declined.
    Declined,
    /// The envelope was voided (by the sender or a decline).
    Voided,
    /// The envelope or the link expired.
    Expired,
    /// Everyone signed.
    Completed,
    /// The signer must enter their code first (extensions E2): the session carries no fields
    /// and no message, and the document, signing and declining are refused until then.
    VerificationRequired,
    /// An in-person signing (extensions E13) opened by its host: the page asks the host to hand
    /// the device to the signer ([`SigningService::open_handed_over`] goes on). The session
    /// carries no fields and no message, and the signer is not marked `viewed`.
    HandOver,
}

/// A signing link opened: what the page shows.
#[derive(Debug, Clone)]
pub struct SigningSession {
    /// Whether the link can still be used, and if not why.
    pub state: LinkState,
    /// The envelope the link belongs to.
    pub envelope: Envelope,
    /// Index of the signer in `envelope.signers`.
    pub signer: usize,
    /// The fields this signer fills, in document order.
    pub fields: Vec<Field>,
    /// The fields of other signers who have not signed yet, in document order: where a page
    /// shows "for Client" (issue 18). Values already given are in the document itself.
    pub others: Vec<Field>,
    /// True when the signer signs on an appended signature page (no signature field).
    pub signature_page: bool,
    /// The sender's message to the signers.
    pub message: Option<String>,
    /// Why the envelope was voided, if it was.
    pub void_reason: Option<String>,
    /// The value date fields get if the signer signs now (`YYYY-MM-DD`, the service's clock), so
    /// that a page can show it before signing.
    pub signing_date: String,
    /// Where the signer's identity check stands, when they have one (extensions E2).
    pub verification: Option<Verification>,
    /// The sender's values that this signer's computed fields read (extensions E14), by key, so
    /// that a page can compute them as the signer types; a sender field that does not apply is
    /// left out (it counts as empty).
    pub formula_inputs: BTreeMap<String, String>,
}

/// What a signer submits.
#[derive(Debug, Clone, Default)]
pub struct SignInput {
    /// Field key -> value. Date fields are filled by the service with the signing date. Drawn
    /// values are stored as the service's re-encoding of the PNG, not as given.
    pub values: BTreeMap<String, SignerValue>,
    /// The signature for the appended signature page, when the envelope has one.
    pub signature: Option<SignerValue>,
    /// The signer agreed to sign electronically (ESIGN/eIDAS consent). Required; its time is
    /// kept for the audit trail.
    pub consent: bool,
    /// Files for `attachment` fields, by field key (extensions E14). Each is checked (a PDF, PNG
    /// or JPEG of at most 10 MB, read under the hostile-input budgets; images re-encoded) and
    /// stored as a blob; the field's value is then its description, never its bytes.
    pub attachments: BTreeMap<String, AttachmentUpload>,
}

fn has_drawing(input: &SignInput) -> bool {
    input
        .values
        .values()
        .chain(input.signature.as_ref())
        .any(|v| matches!(v, SignerValue::Drawn(_)))
}

fn unknown_link() -> Error {
    Error::not_found("signing link", "token")
}

impl SigningService {
    async fn resolve_token(&self, token: &str) -> Result<(SigningToken, EnvelopeRecord)> {
        if token.is_empty() || token.len() > 64 || !token.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            return Err(unknown_link());
        }
        let t = self
            .inner
            .store
            .signing_token(&ids::digest(token))
            .await?
            .ok_or_else(unknown_link)?;
        let scope = crate::model::Scope {
            account: t.account.clone(),
            mode: t.mode,
        };
        let rec = self
            .inner
            .store
            .get_envelope(&scope, &t.envelope)
            .await?
            .ok_or_else(unknown_link)?;
        // A reassigned signer's earlier links were the previous person's: they stop working.
        let superseded = rec
            .signers
            .iter()
            .find(|s| s.signer.id == t.signer)
            .and_then(|s| s.reassignments.last())
            .is_some_and(|r| t.created_at < r.at);
        if superseded {
            return Err(unknown_link());
        }
        let rec = self.settle_expiry(rec).await?;
        Ok((t, rec))
    }

    fn link_state(rec: &EnvelopeRecord, t: &SigningToken, i: usize, now: Timestamp) -> LinkState {
        // A link's expiry holds whatever became of the envelope: the link of a completed
        // envelope serves the signed copy, and must stop doing so when it expires.
        if t.expires_at <= now {
            return LinkState::Expired;
        }
        match rec.status {
            EnvelopeStatus::Completed => return LinkState::Completed,
            EnvelopeStatus::Voided if rec.void_reason.as_deref() == Some(rules::EXPIRED_REASON) => {
                return LinkState::Expired;
            }
            EnvelopeStatus::Voided if rec.signers[i].signer.status == SignerStatus::Declined => {
                return LinkState::Declined;
            }
            EnvelopeStatus::Voided => return LinkState::Voided,
            EnvelopeStatus::Draft => return LinkState::Voided,
            EnvelopeStatus::Sent => {}
        }
        match rec.signers[i].signer.status {
            SignerStatus::Completed => LinkState::Signed,
            SignerStatus::Declined => LinkState::Declined,
            _ if rules::actionable(rec, now).contains(&i) => LinkState::Ready,
            _ => LinkState::NotYourTurn,
        }
    }

    fn session(rec: &EnvelopeRecord, i: usize, state: LinkState, now: Timestamp) -> SigningSession {
        let role = &rec.signers[i].signer.role;
        let verification = rec.signers[i]
            .identity
            .as_ref()
            .map(|id| Verification::of(id, now));
        if matches!(state, LinkState::VerificationRequired | LinkState::HandOver) {
            // Nothing of the document before the code: not its fields, not the sender's message.
            return SigningSession {
                state,
                envelope: rec.view(),
                signer: i,
                fields: Vec::new(),
                others: Vec::new(),
                signature_page: false,
                message: None,
                void_reason: None,
                signing_date: signing_date(now),
                verification,
                formula_inputs: BTreeMap::new(),
            };
        }
        SigningSession {
            verification,
            state,
            envelope: rec.view(),
            signer: i,
            fields: rec
                .fields
                .iter()
                .map(|f| f.field.clone())
                .filter(|f| f.role.as_ref() == Some(role) && !f.is_sender_field())
                .filter(|f| settled_applies(rec, role, f))
                .collect(),
            others: rec
                .fields
                .iter()
                .map(|f| f.field.clone())
                .filter(|f| match &f.role {
                    Some(r) if r != role && !f.is_sender_field() => rec
                        .signers
                        .iter()
                        .any(|s| &s.signer.role == r && s.signer.signed_at.is_none()),
                    _ => false,
                })
                .collect(),
            signature_page: rec.signature_page,
            message: rec.message.clone(),
            void_reason: rec.void_reason.clone(),
            signing_date: signing_date(now),
            formula_inputs: formula_inputs(rec, role),
        }
    }

    /// Opens a signing link. The first open by a signer who can act marks them `viewed` and emits
    /// `envelope.signer_viewed`. Unknown tokens are `NotFound`.
    ///
    /// A signer with `auth` (extensions E2) whose `grant` is missing or no longer live gets
    /// [`LinkState::VerificationRequired`] instead, and is not marked `viewed`. Opening never
    /// emails a code: the signer asks for one ([`SigningService::send_signer_code`]).
    ///
    /// A signer who signs in person (extensions E13) gets [`LinkState::HandOver`] while they can
    /// act: the link was sent to the host, who hands the device over; then
    /// [`SigningService::open_handed_over`] opens it for the signer.
    pub async fn open_signing_link(
        &self,
        token: &str,
        grant: Option<&str>,
        client: &ClientInfo,
    ) -> Result<SigningSession> {
        self.open_link(token, grant, client, false).await
    }

    /// Opens a signing link as [`SigningService::open_signing_link`] does, once the device is in
    /// the signer's hands: for an in-person signer (extensions E13) it goes past
    /// [`LinkState::HandOver`]; for every other signer it is the same call.
    pub async fn open_handed_over(
        &self,
        token: &str,
        grant: Option<&str>,
        client: &ClientInfo,
    ) -> Result<SigningSession> {
        self.open_link(token, grant, client, true).await
    }

    async fn open_link(
        &self,
        token: &str,
        grant: Option<&str>,
        client: &ClientInfo,
        handed_over: bool,
    ) -> Result<SigningSession> {
        for _ in 0..MAX_ATTEMPTS {
            let (t, rec) = self.resolve_token(token).await?;
            let i = rec.signer_index(&t.signer).ok_or_else(unknown_link)?;
            let now = self.now();
            let state = Self::link_state(&rec, &t, i, now);
            if state == LinkState::Ready
                && !handed_over
                && rec.signers[i].signer.in_person.is_some()
            {
                return Ok(Self::session(&rec, i, LinkState::HandOver, now));
            }
            if state == LinkState::Ready && check_grant(&rec, i, grant, now).is_err() {
                // Opening sends nothing (extensions E8): mail systems' link scanners open links,
                // and only the signer's own request (`send_signer_code`) emails a code.
                return Ok(Self::session(&rec, i, LinkState::VerificationRequired, now));
            }
            if state != LinkState::Ready || rec.signers[i].signer.status != SignerStatus::Pending {
                return Ok(Self::session(&rec, i, state, now));
            }
            let mut next = rec.clone();
            rules::view(&mut next, i, now)?;
            record_client(&mut next, i, client);
            let ev = super::events::record(&next, EventType::SignerViewed, Some(i), now);
            if next.signers[i].signer.kind == SignerKind::Viewer {
                // A viewer finishes by opening the document (extensions E13): viewed and
                // completed at once, and the next step or the completion follows as after a
                // signature.
                next.signers[i].acted_via = t.issued_via;
                let last = rules::sign(&mut next, i, now)?;
                let mut events = vec![
                    ev,
                    super::events::record(&next, EventType::SignerCompleted, Some(i), now),
                ];
                if last {
                    events.push(self.finalize(&mut next, now).await?);
                } else {
                    mark_turns(&mut next, now);
                }
                if self.write_over_emails(rec, &mut next, &events, now).await? {
                    let state = Self::link_state(&next, &t, i, now);
                    return Ok(Self::session(&next, i, state, now));
                }
                continue;
            }
            next.version += 1;
            match self.inner.store.update_envelope(&next, &[ev], None).await {
                Ok(()) => return Ok(Self::session(&next, i, LinkState::Ready, now)),
                Err(StoreError::Conflict) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(Error::Internal("opening the link kept conflicting".into()))
    }

    /// The PDF behind a signing link, for display, while the link works.
    ///
    /// What the signer sees is the document as it stands: the sender's data and the values of
    /// signers who already signed are filled in, and the `{{...}}` tags are painted over (the
    /// same stamping as the signed copy, without the signature page). For a completed envelope it
    /// is the signed copy.
    ///
    /// A signer with `auth` needs a live `grant` ([`Error::VerificationRequired`] otherwise),
    /// whatever the state of the envelope.
    pub async fn signing_document(
        &self,
        token: &str,
        grant: Option<&str>,
    ) -> Result<(String, bytes::Bytes)> {
        self.signing_document_n(token, grant, 1).await
    }

    /// Document `document` (from 1) of the envelope behind a signing link (extensions E5), as
    /// [`SigningService::signing_document`] shows the first; a number past the last is
    /// `NotFound`. The bytes whole: [`SigningService::signing_document_body`] gives them as
    /// they are read.
    pub async fn signing_document_n(
        &self,
        token: &str,
        grant: Option<&str>,
        document: u32,
    ) -> Result<(String, bytes::Bytes)> {
        let (file_name, body) = self.signing_document_body(token, grant, document).await?;
        Ok((file_name, body.collect().await?))
    }

    /// Document `document` (from 1) behind a signing link, as
    /// [`SigningService::signing_document_n`] gives it, read as it is sent: the original
    /// streams from the blob store and the values so far follow as one update, made once per
    /// version of the envelope and kept (`signing/preview.rs`). A reader holds one chunk, not
    /// the file; the length is known before the first byte ([`FileBody::size`](super::FileBody::size)).
    pub async fn signing_document_body(
        &self,
        token: &str,
        grant: Option<&str>,
        document: u32,
    ) -> Result<(String, super::FileBody)> {
        let rec = self.viewable_record(token, grant).await?;
        self.shown_stream(&rec, document).await
    }

    /// Document `document` of `rec` as a signer sees it, whole (the page pictures draw from
    /// it): the signed copy once there is one, else the original with the kept update.
    pub(crate) async fn shown_document(
        &self,
        rec: &EnvelopeRecord,
        document: u32,
    ) -> Result<(String, bytes::Bytes)> {
        let (file_name, body) = self.shown_stream(rec, document).await?;
        Ok((file_name, body.collect().await?))
    }

    /// The envelope behind a link whose documents may be shown: not expired or voided, the
    /// grant checked, the files not deleted by retention.
    pub(crate) async fn viewable_record(
        &self,
        token: &str,
        grant: Option<&str>,
    ) -> Result<EnvelopeRecord> {
        let (t, rec) = self.resolve_token(token).await?;
        let i = rec.signer_index(&t.signer).ok_or_else(unknown_link)?;
        let now = self.now();
        if matches!(
            Self::link_state(&rec, &t, i, now),
            LinkState::Expired | LinkState::Voided
        ) {
            return Err(unknown_link());
        }
        check_grant(&rec, i, grant, now)?;
        if let Some(deleted_at) = rec.files_deleted_at {
            return Err(Error::FileDeleted {
                kind: if rec.signed.is_some() {
                    "signed"
                } else {
                    "original"
                },
                deleted_at,
            });
        }
        Ok(rec)
    }

    /// Signs: checks and stores the values, emits `envelope.signer_completed`, and either asks the
    /// next signer or completes the envelope (signed PDF, audit trail, `envelope.completed`).
    ///
    /// An approver (extensions E13) approves through it: no values, consent given. A viewer
    /// signs nothing (opening the link finishes their part): `invalid_state`.
    ///
    /// A signer with `auth` needs a live `grant` ([`Error::VerificationRequired`] otherwise).
    pub async fn sign(
        &self,
        token: &str,
        grant: Option<&str>,
        input: SignInput,
        client: &ClientInfo,
    ) -> Result<Envelope> {
        // Files (extensions E14) are checked once, on the first attempt; stored once every
        // other check passed, before the record that names them.
        let mut prepared: Option<Vec<attachments::Prepared>> = None;
        let mut stored = false;
        for _ in 0..MAX_ATTEMPTS {
            let (t, current) = self.resolve_token(token).await?;
            let i = current.signer_index(&t.signer).ok_or_else(unknown_link)?;
            let now = self.now();
            check_link(&current, &t, i, now)?;
            check_grant(&current, i, grant, now)?;
            if current.signers[i].signer.kind == SignerKind::Viewer {
                return Err(Error::state(
                    "A viewer signs nothing: opening the signing link finishes their part.",
                ));
            }
            if prepared.is_none() {
                prepared = Some(if input.attachments.is_empty() {
                    Vec::new()
                } else {
                    self.prepare_attachments(&current, i, &input.attachments)
                        .await?
                });
            }
            let files = prepared.as_deref().unwrap_or_default();
            let attached: BTreeMap<String, crate::model::AttachedFile> = files
                .iter()
                .map(|p| (p.key.clone(), p.file.clone()))
                .collect();
            let mut next = current.clone();
            next.signers[i].values = if has_drawing(&input) {
                // Decoding and re-encoding a drawing is CPU work: it goes through the PDF pool
                // like stamping, so a burst of large drawings cannot stall the async threads.
                let (rec, input) = (next.clone(), input.clone());
                self.blocking("drawing", move || {
                    checked_values(&rec, i, &input, &attached, now)
                })
                .await??
            } else {
                checked_values(&next, i, &input, &attached, now)?
            };
            if !stored {
                // Only the files kept: one whose field's condition does not hold is dropped
                // with its value.
                let kept: Vec<&attachments::Prepared> = files
                    .iter()
                    .filter(|p| next.signers[i].values.contains_key(&p.key))
                    .collect();
                self.store_attachments(&kept).await?;
                stored = true;
            }
            next.signers[i].consented_at = Some(now);
            record_client(&mut next, i, client);
            // Which kind of link the signature came through is evidence (extensions E8).
            next.signers[i].acted_via = t.issued_via;
            let last = rules::sign(&mut next, i, now)?;
            let mut events = vec![super::events::record(
                &next,
                EventType::SignerCompleted,
                Some(i),
                now,
            )];
            if last {
                events.push(self.finalize(&mut next, now).await?);
            } else {
                mark_turns(&mut next, now);
            }
            // Completion stamped PDFs: an email outcome recorded meanwhile must not make it
            // start over.
            if self
                .write_over_emails(current, &mut next, &events, now)
                .await?
            {
                return Ok(next.view());
            }
        }
        Err(Error::Internal("signing kept conflicting".into()))
    }

    /// Declines: the envelope is voided with `declined by <role>: <reason>`; emits
    /// `envelope.signer_declined` and `envelope.voided`.
    ///
    /// A signer with `auth` needs a live `grant` ([`Error::VerificationRequired`] otherwise).
    pub async fn decline(
        &self,
        token: &str,
        grant: Option<&str>,
        reason: Option<&str>,
        client: &ClientInfo,
    ) -> Result<Envelope> {
        let reason = values::recorded_reason(reason)?;
        let reason = reason.as_deref();
        for _ in 0..MAX_ATTEMPTS {
            let (t, current) = self.resolve_token(token).await?;
            let i = current.signer_index(&t.signer).ok_or_else(unknown_link)?;
            let now = self.now();
            check_link(&current, &t, i, now)?;
            check_grant(&current, i, grant, now)?;
            let mut next = current.clone();
            record_client(&mut next, i, client);
            next.signers[i].acted_via = t.issued_via;
            rules::decline(&mut next, i, reason, now)?;
            let emails = self.queue_emails(Some(&current), &mut next, now);
            next.version = current.version + 1;
            let events = [
                super::events::record(&next, EventType::SignerDeclined, Some(i), now),
                super::events::record(&next, EventType::Voided, None, now),
            ];
            match self.inner.store.update_envelope(&next, &events, None).await {
                Ok(()) => {
                    self.dispatch_emails(&next, emails);
                    return Ok(next.view());
                }
                Err(StoreError::Conflict) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(Error::Internal("declining kept conflicting".into()))
    }
}

/// Whether a field of `role` can apply at all (extensions E14): false only when its condition
/// reads a field that is not this signer's (the sender's data, another signer's value), whose
/// value is settled and fails it. A condition over the signer's own fields is for the page to
/// follow as they fill it in (and for [`values::checked_values`] to judge).
fn settled_applies(rec: &EnvelopeRecord, role: &str, f: &Field) -> bool {
    let Some(c) = &f.condition else { return true };
    let own = rec
        .fields
        .iter()
        .any(|p| p.field.key == c.field && p.field.role.as_deref() == Some(role));
    if own {
        return true;
    }
    let lookup = |k: &str| {
        rec.data
            .get(k)
            .or_else(|| rec.signers.iter().find_map(|s| s.values.get(k)))
    };
    values::applies(&rec.fields, f, &lookup)
}

/// The sender's values that `role`'s computed fields read (formulas read the sender's fields
/// and their own role's: `fields::check_formulas`).
fn formula_inputs(rec: &EnvelopeRecord, role: &str) -> BTreeMap<String, String> {
    let lookup = |k: &str| rec.data.get(k);
    let judge = judge::Judge::stored(&rec.fields, &lookup);
    let mut out = BTreeMap::new();
    for f in rec.fields.iter().map(|f| &f.field) {
        let Some(formula) = f.formula.as_deref() else {
            continue;
        };
        if f.role.as_deref() != Some(role) || f.is_sender_field() {
            continue;
        }
        let Ok(formula) = crate::formula::Formula::parse(formula) else {
            continue;
        };
        for k in formula.fields() {
            let Some(read) = rec.fields.iter().find(|p| p.field.key == k) else {
                continue;
            };
            if read.field.is_sender_field()
                && judge.applies(&read.field)
                && let Some(SignerValue::Text(t)) = rec.data.get(k)
            {
                out.insert(k.to_string(), t.clone());
            }
        }
    }
    out
}

fn check_link(rec: &EnvelopeRecord, t: &SigningToken, i: usize, now: Timestamp) -> Result<()> {
    match SigningService::link_state(rec, t, i, now) {
        LinkState::Ready => Ok(()),
        other => Err(Error::SignerNotActionable {
            signer: rec.signers[i].signer.id.to_string(),
            reason: match other {
                LinkState::Signed => "the signer has already signed",
                LinkState::Declined => "the signer has declined",
                LinkState::NotYourTurn => "it is not this signer's turn",
                LinkState::Expired => "the link has expired",
                LinkState::Completed => "the envelope is completed",
                LinkState::VerificationRequired => "the signer has not entered their code",
                LinkState::HandOver => "the device has not been handed to the signer",
                _ => "the envelope is voided",
            },
        }),
    }
}

fn record_client(rec: &mut EnvelopeRecord, i: usize, client: &ClientInfo) {
    let s = &mut rec.signers[i];
    let (ip, ua) =
        values::recorded_client(client.ip_address.as_deref(), client.user_agent.as_deref());
    if ip.is_some() {
        s.ip_address = ip;
    }
    if ua.is_some() {
        s.user_agent = ua;
    }
}
