//! Envelopes and signers: records and wire views.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Mode;
use super::email::{EmailRecord, EmailStatus, SignerEmail};
use super::identity::{IdentityRecord, SignerAuthView};
use super::reach::{IssuedLink, LinkVia, LinksNotKept, LockEntry};
use super::seal_level::{EnvelopeSeal, SealRecord};
use crate::clock::Timestamp;
use crate::field::PlacedField;
use crate::i18n::Locale;
use crate::ids::{AccountId, RecipientId};
use crate::ids::{BulkSendId, EnvelopeId, SignerId, TemplateId};

/// Where an envelope stands: `draft`, `sent`, `completed` or `voided`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EnvelopeStatus {
    /// Created, not yet sent: it can still be changed.
    Draft,
    /// Sent to its signers and waiting for them.
    Sent,
    /// Every signer signed: the signed PDF and the audit trail are ready.
    Completed,
    /// Voided by the sender, by a signer who declined, or on expiry; no one can sign it any more.
    Voided,
}

impl EnvelopeStatus {
    /// The wire value: `draft`, `sent`, `completed` or `voided`.
    pub fn as_str(self) -> &'static str {
        match self {
            EnvelopeStatus::Draft => "draft",
            EnvelopeStatus::Sent => "sent",
            EnvelopeStatus::Completed => "completed",
            EnvelopeStatus::Voided => "voided",
        }
    }
}

/// Where a signer stands: `pending`, `viewed`, `completed` or `declined`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SignerStatus {
    /// Has not opened the document yet.
    Pending,
    /// Opened the document but has not signed.
    Viewed,
    /// Signed.
    Completed,
    /// Declined to sign.
    Declined,
}

impl SignerStatus {
    /// The wire value: `pending`, `viewed`, `completed` or `declined`.
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

/// How signers reach the signing page: the envelope's `delivery`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    /// The service emails each signer a link (the default).
    #[default]
    Email,
    /// The sender's app shows the signing page itself; the service sends no signing emails.
    Embedded,
}

impl Delivery {
    /// The wire value: `email` or `embedded`.
    pub fn as_str(self) -> &'static str {
        match self {
            Delivery::Email => "email",
            Delivery::Embedded => "embedded",
        }
    }
}

/// What a recipient does (extensions E13): the signer entry's `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SignerKind {
    /// Fills fields and signs (the default).
    #[default]
    Signer,
    /// Reviews the document, then approves or declines; fills no fields.
    Approver,
    /// Finishes by opening the document; fills no fields.
    Viewer,
}

impl SignerKind {
    /// The wire value: `signer`, `approver` or `viewer`.
    pub fn as_str(self) -> &'static str {
        match self {
            SignerKind::Signer => "signer",
            SignerKind::Approver => "approver",
            SignerKind::Viewer => "viewer",
        }
    }
    /// Parses a wire value.
    pub fn parse(s: &str) -> Option<SignerKind> {
        match s {
            "signer" => Some(SignerKind::Signer),
            "approver" => Some(SignerKind::Approver),
            "viewer" => Some(SignerKind::Viewer),
            _ => None,
        }
    }
    /// Fields may be assigned to this kind (signers only).
    pub fn fills_fields(self) -> bool {
        self == SignerKind::Signer
    }
    fn is_signer(&self) -> bool {
        *self == SignerKind::Signer
    }
}

/// Signing in person (extensions E13): the host who receives the signing request and hands
/// the device to the signer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InPerson {
    /// The host's name.
    pub host_name: String,
    /// The host's email address: the signing request and reminders go there.
    pub host_email: String,
}

/// The wire signer (interface.md 2.2, plus `declined_at` and `decline_reason`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signer {
    /// The signer's ID, `sgn_...`.
    pub id: SignerId,
    /// The role the signer fills, e.g. one a template defines.
    pub role: String,
    /// The signer's name.
    pub name: String,
    /// The signer's email address.
    pub email: String,
    /// The signer's language (extensions E4): a BCP 47 tag as given, `null` when none. Their
    /// emails and signing page use it; tags outside the supported set get English.
    #[serde(default)]
    pub locale: Option<Locale>,
    /// The signer's position in the signing sequence.
    pub order: u32,
    /// `pending`, `viewed`, `completed` or `declined`.
    pub status: SignerStatus,
    /// When the signer first opened the document; `null` before.
    pub viewed_at: Option<Timestamp>,
    /// When the signer signed; `null` unless `completed`.
    pub signed_at: Option<Timestamp>,
    /// When the signer declined; `null` unless `declined`.
    pub declined_at: Option<Timestamp>,
    /// The reason the signer gave for declining; `null` when none.
    pub decline_reason: Option<String>,
    /// How the signer proves who they are before seeing the document (extensions E2): the
    /// method only, `null` when none. Only views carry it: a record keeps its check in
    /// [`SignerRecord::identity`].
    #[serde(default)]
    pub auth: Option<SignerAuthView>,
    /// The newest email to this signer and where it stands (`null` before the first). Only views
    /// carry it: a record keeps its emails in [`EnvelopeRecord::emails`].
    #[serde(default)]
    pub last_email: Option<SignerEmail>,
    /// What the recipient does (extensions E13): `signer`, `approver` or `viewer`.
    #[serde(default)]
    pub kind: SignerKind,
    /// The host of an in-person signing (extensions E13), `null` when the signer signs on
    /// their own.
    #[serde(default)]
    pub in_person: Option<InPerson>,
}

/// A carbon-copy recipient (extensions E1): signs nothing, gets the completion email with the
/// signed PDF and the audit trail, and the voided notice, whatever the delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CcRecipient {
    /// `rcp_...`
    pub id: RecipientId,
    /// The recipient's name.
    pub name: String,
    /// The recipient's email address.
    pub email: String,
}

/// `files` of the wire envelope: whether each file is ready to download (false again once
/// retention deleted the files: see `files_deleted_at`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvelopeFiles {
    /// Whether the signed PDF is ready to download.
    pub signed: bool,
    /// Whether the audit trail PDF is ready to download.
    pub audit_trail: bool,
}

/// One document of an envelope as the API shows it (extensions E5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentView {
    /// From 1, in the order given on create.
    pub index: u32,
    /// The file name given with the document.
    pub name: String,
    /// Pages of the original; `null` for the first document of an envelope stored before
    /// envelopes recorded it.
    pub page_count: Option<u32>,
    /// Lowercase hex SHA-256 of the original.
    pub sha256: String,
}

/// A document after the first (extensions E5): its original, page count and, once the envelope
/// completed, its signed copy (stored as a delta of this original).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoreDocument {
    /// The document's original PDF.
    pub original: StoredFile,
    /// Pages of the original.
    pub page_count: u32,
    /// The signed copy; `None` until the envelope completed.
    #[serde(default)]
    pub signed: Option<StoredFile>,
}

/// The wire envelope (interface.md 2.1, plus `void_reason`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// The envelope's ID, `env_...`.
    pub id: EnvelopeId,
    /// Always `envelope`.
    pub object: String,
    /// `true` for live mode, `false` for test mode.
    pub livemode: bool,
    /// `draft`, `sent`, `completed` or `voided`.
    pub status: EnvelopeStatus,
    /// Defaults to the template name or the file name.
    pub name: String,
    /// The template the envelope was made from, `tmpl_...`; `null` when made from a PDF.
    pub template: Option<TemplateId>,
    /// `email` or `embedded`.
    pub delivery: Delivery,
    /// `true` when signers sign in sequence, `false` when all can sign at once.
    pub signing_order: bool,
    /// The signers, in signing order.
    pub signers: Vec<Signer>,
    /// Carbon-copy recipients (extensions E1); empty when none.
    pub cc: Vec<CcRecipient>,
    /// Every document, in order (extensions E5); one for an envelope of one PDF.
    pub documents: Vec<DocumentView>,
    /// Which of the signed PDF and the audit trail are ready.
    pub files: EnvelopeFiles,
    /// The caller's own string keys (at most 20), returned on every read and in every webhook.
    pub metadata: BTreeMap<String, String>,
    /// Why the envelope was voided; `null` unless voided.
    pub void_reason: Option<String>,
    /// When the envelope was created.
    pub created_at: Timestamp,
    /// When the envelope was sent; `null` while a draft.
    pub sent_at: Option<Timestamp>,
    /// When the last signer signed; `null` until then.
    pub completed_at: Option<Timestamp>,
    /// When the envelope was voided; `null` unless voided.
    pub voided_at: Option<Timestamp>,
    /// When the envelope expires (set on send); `null` before sending or when it never expires.
    pub expires_at: Option<Timestamp>,
    /// When live retention deleted the PDFs of this finished envelope (`null` while they are
    /// kept); downloads then answer `file_deleted`.
    #[serde(default)]
    pub files_deleted_at: Option<Timestamp>,
    /// The PAdES level the sealed files reached and the one the service is set up for
    /// (extensions E10); `null` until the envelope is completed, and for one completed unsealed
    /// or before levels were recorded.
    #[serde(default)]
    pub seal: Option<EnvelopeSeal>,
    /// The bulk send that made the envelope, `bulk_...` (extensions E12); `null` for one made
    /// alone.
    #[serde(default)]
    pub bulk_send: Option<BulkSendId>,
    /// The signers' files for `attachment` fields (extensions E14), in signer and key order:
    /// what each is, never its bytes. Absent while there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<super::AttachmentView>,
}

/// A value a signer gave for one field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum SignerValue {
    /// Typed signature or initials.
    Typed(String),
    /// Drawn signature or initials: PNG bytes, base64 (standard alphabet) for storage.
    Drawn(String),
    /// A text field's value.
    Text(String),
    /// A checkbox field's value: ticked or not.
    Checkbox(bool),
    /// An `attachment` field's file (extensions E14): its description; the bytes are a blob.
    Attachment(super::AttachedFile),
}

/// A signer with what only the service sees: one flat JSON object, the wire signer's keys plus
/// the rest.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(from = "FlatSignerRecord")]
pub struct SignerRecord {
    /// The signer as the API shows it.
    pub signer: Signer,
    /// When the signing request went out (email delivery) or the first link was made.
    pub sent_at: Option<Timestamp>,
    /// When the signer was last reminded by email; `None` before the first reminder.
    pub last_reminded_at: Option<Timestamp>,
    /// When the signer agreed to sign electronically (set when they sign).
    #[serde(default)]
    pub consented_at: Option<Timestamp>,
    /// The IP address the signer acted from, for the audit trail; `None` when unknown.
    pub ip_address: Option<String>,
    /// The signer's browser `User-Agent`, for the audit trail; `None` when unknown.
    pub user_agent: Option<String>,
    /// Field key -> value, set when the signer signs.
    #[serde(default)]
    pub values: BTreeMap<String, SignerValue>,
    /// Who held this signer's place before, oldest first (extensions E3).
    #[serde(default)]
    pub reassignments: Vec<Reassignment>,
    /// The identity check of this signer (extensions E2), secrets hashed.
    #[serde(default)]
    pub identity: Option<IdentityRecord>,
    /// Every signing link issued to this signer, first [`super::reach::MAX_LINKS_KEPT`] in full
    /// (extensions E8).
    #[serde(default)]
    pub links: Vec<IssuedLink>,
    /// Links issued past the ones kept, counted.
    #[serde(default)]
    pub links_not_kept: LinksNotKept,
    /// Where the link the signer signed or declined through came from (extensions E8); `None`
    /// before, for the test helper, and for records older than this.
    #[serde(default)]
    pub acted_via: Option<LinkVia>,
    /// Locks of the code step and their lifting, oldest first (extensions E8).
    #[serde(default)]
    pub locks: Vec<LockEntry>,
    /// Lock entries past [`super::reach::MAX_LOCK_ENTRIES`], counted.
    #[serde(default)]
    pub locks_not_kept: u32,
}

impl SignerRecord {
    /// Clears what the signer gave and left behind: the values they entered (drawings, typed
    /// signatures, field values), their IP address and browser, the client addresses of the API
    /// requests that fetched their links, their decline reason, and the
    /// digests of their codes and grants. What they did and when stays (statuses, timestamps,
    /// the identity check's method and time). Part of [`EnvelopeRecord::erase_personal_data`].
    pub fn erase_personal_data(&mut self) {
        self.values.clear();
        self.ip_address = None;
        self.user_agent = None;
        self.signer.decline_reason = None;
        // Which links were issued, how and when stays; who asked from where does not.
        for link in &mut self.links {
            link.ip_address = None;
        }
        if let Some(identity) = &mut self.identity {
            identity.erase_secrets();
        }
    }
}

/// The `void_reason` of an envelope voided by a decline: `declined by <role>`, with the
/// signer's reason when they gave one.
pub(crate) fn declined_reason(role: &str, reason: Option<&str>) -> String {
    match reason.map(str::trim).filter(|r| !r.is_empty()) {
        Some(r) => format!("declined by {role}: {r}"),
        None => format!("declined by {role}"),
    }
}

impl Envelope {
    /// The same erasure as [`EnvelopeRecord::erase_personal_data`] on a view (an event's
    /// `data.object` snapshot): decline reasons, the words of email failures, and a signer's
    /// words in `void_reason`. A view never carries the rest (values, addresses, browsers,
    /// `data`, subject, message).
    pub fn erase_personal_data(&mut self) {
        for s in &mut self.signers {
            s.decline_reason = None;
            if let Some(e) = &mut s.last_email {
                e.last_error = None;
            }
        }
        if let Some(declined) = self
            .signers
            .iter()
            .find(|s| s.status == SignerStatus::Declined)
        {
            self.void_reason = Some(declined_reason(&declined.role, None));
        }
        // The signers' files are what they gave (their names may say who they are).
        self.attachments.clear();
    }
}

/// A signer's place handed to someone else: when, and who held it until then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reassignment {
    /// When the place was handed over.
    pub at: Timestamp,
    /// The name of who held the place until then.
    pub name: String,
    /// The email address of who held the place until then.
    pub email: String,
    /// A correction of the signer's name or email (extensions E14), not a hand-over to
    /// someone else; left out when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub corrected: bool,
}

/// A correction of a sent envelope (extensions E14): when, and what changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Correction {
    /// When the correction was made.
    pub at: Timestamp,
    /// What changed, in order.
    pub changes: Vec<Changed>,
}

/// One change of a [`Correction`]: the member, and for names, email addresses and the expiry
/// the value before and after (the parties and dates are evidence; the sender's subject and
/// message are not kept here, only that they changed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changed {
    /// `signers.<role>.name`, `signers.<role>.email`, `fields`, `subject`, `message`,
    /// `metadata` or `expires_at`.
    pub what: String,
    /// The value before, where kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// The value after, where kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

/// How a [`SignerRecord`] is written: one flat object, the wire signer's keys plus the rest,
/// without empty values (`None`, empty lists and maps) and without the view-only `auth` and
/// `last_email`. [`FlatSignerRecord`] reads a missing key as empty, so records written with
/// every key (`null`s included) read the same.
#[derive(Serialize)]
struct FlatSignerRecordOut<'a> {
    id: &'a str,
    role: &'a str,
    name: &'a str,
    email: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    locale: Option<&'a Locale>,
    order: u32,
    status: SignerStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    viewed_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    signed_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    declined_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decline_reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sent_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_reminded_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    consented_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ip_address: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    user_agent: Option<&'a str>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    values: &'a BTreeMap<String, SignerValue>,
    #[serde(skip_serializing_if = "<[Reassignment]>::is_empty")]
    reassignments: &'a [Reassignment],
    #[serde(skip_serializing_if = "Option::is_none")]
    identity: Option<&'a IdentityRecord>,
    #[serde(skip_serializing_if = "<[IssuedLink]>::is_empty")]
    links: &'a [IssuedLink],
    #[serde(skip_serializing_if = "LinksNotKept::is_empty")]
    links_not_kept: &'a LinksNotKept,
    #[serde(skip_serializing_if = "Option::is_none")]
    acted_via: Option<LinkVia>,
    #[serde(skip_serializing_if = "<[LockEntry]>::is_empty")]
    locks: &'a [LockEntry],
    #[serde(skip_serializing_if = "is_zero")]
    locks_not_kept: u32,
    #[serde(skip_serializing_if = "SignerKind::is_signer")]
    kind: SignerKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    in_person: Option<&'a InPerson>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Serialize for SignerRecord {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let s = &self.signer;
        FlatSignerRecordOut {
            id: &s.id,
            role: &s.role,
            name: &s.name,
            email: &s.email,
            locale: s.locale.as_ref(),
            order: s.order,
            status: s.status,
            viewed_at: s.viewed_at,
            signed_at: s.signed_at,
            declined_at: s.declined_at,
            decline_reason: s.decline_reason.as_deref(),
            sent_at: self.sent_at,
            last_reminded_at: self.last_reminded_at,
            consented_at: self.consented_at,
            ip_address: self.ip_address.as_deref(),
            user_agent: self.user_agent.as_deref(),
            values: &self.values,
            reassignments: &self.reassignments,
            identity: self.identity.as_ref(),
            links: &self.links,
            links_not_kept: &self.links_not_kept,
            acted_via: self.acted_via,
            locks: &self.locks,
            locks_not_kept: self.locks_not_kept,
            kind: s.kind,
            in_person: s.in_person.as_ref(),
        }
        .serialize(serializer)
    }
}

/// How a [`SignerRecord`] is read: the same flat object, spelled out (see
/// `field::FlatPlacedField` for why not `#[serde(flatten)]`).
#[derive(Deserialize)]
struct FlatSignerRecord {
    id: SignerId,
    role: String,
    name: String,
    email: String,
    #[serde(default)]
    locale: Option<Locale>,
    order: u32,
    status: SignerStatus,
    #[serde(default)]
    viewed_at: Option<Timestamp>,
    #[serde(default)]
    signed_at: Option<Timestamp>,
    #[serde(default)]
    declined_at: Option<Timestamp>,
    #[serde(default)]
    decline_reason: Option<String>,
    #[serde(default)]
    sent_at: Option<Timestamp>,
    #[serde(default)]
    last_reminded_at: Option<Timestamp>,
    #[serde(default)]
    consented_at: Option<Timestamp>,
    #[serde(default)]
    ip_address: Option<String>,
    #[serde(default)]
    user_agent: Option<String>,
    #[serde(default)]
    values: BTreeMap<String, SignerValue>,
    #[serde(default)]
    reassignments: Vec<Reassignment>,
    #[serde(default)]
    identity: Option<IdentityRecord>,
    #[serde(default)]
    links: Vec<IssuedLink>,
    #[serde(default)]
    links_not_kept: LinksNotKept,
    #[serde(default)]
    acted_via: Option<LinkVia>,
    #[serde(default)]
    locks: Vec<LockEntry>,
    #[serde(default)]
    locks_not_kept: u32,
    #[serde(default)]
    kind: SignerKind,
    #[serde(default)]
    in_person: Option<InPerson>,
}

impl From<FlatSignerRecord> for SignerRecord {
    fn from(f: FlatSignerRecord) -> SignerRecord {
        SignerRecord {
            signer: Signer {
                id: f.id,
                role: f.role,
                name: f.name,
                email: f.email,
                locale: f.locale,
                order: f.order,
                status: f.status,
                viewed_at: f.viewed_at,
                signed_at: f.signed_at,
                declined_at: f.declined_at,
                decline_reason: f.decline_reason,
                auth: None,
                last_email: None,
                kind: f.kind,
                in_person: f.in_person,
            },
            sent_at: f.sent_at,
            last_reminded_at: f.last_reminded_at,
            consented_at: f.consented_at,
            ip_address: f.ip_address,
            user_agent: f.user_agent,
            values: f.values,
            reassignments: f.reassignments,
            identity: f.identity,
            links: f.links,
            links_not_kept: f.links_not_kept,
            acted_via: f.acted_via,
            locks: f.locks,
            locks_not_kept: f.locks_not_kept,
        }
    }
}

/// A stored PDF: where the bytes are and what they are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredFile {
    /// Key in the [`crate::BlobStore`].
    pub blob: String,
    /// The file name given with the PDF (or made for it), as downloads show it.
    pub file_name: String,
    /// Bytes of the whole file (for a [`Delta`], the base's and the update's together).
    pub size: u64,
    /// Lowercase hex SHA-256 of the whole file.
    pub sha256: String,
    /// Set when the blob holds only an incremental update of another stored file (a signed copy
    /// is its original followed by one update): the file is the blob `delta.base` followed by
    /// the blob `blob`. Absent for whole files, and for signed copies stored before deltas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<Delta>,
    /// The SHA-256 state after the whole file, kept for originals large enough that hashing them
    /// again costs more than keeping it (the signed copy's seal continues it and feeds only its
    /// update, docs/PDF.md "Sealing"). Absent (left out) for other files, in records written
    /// before it, and once the envelope completed or its files were deleted; a state that does
    /// not describe the file is ignored (`StoredFile::resumed_sha256`). No view shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256_state: Option<super::Sha256State>,
}

/// How a [`StoredFile`] is kept as an appended update (docs/STORAGE.md, "Signed copies").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delta {
    /// The blob the update follows: the envelope's original, which the same record holds.
    pub base: String,
    /// Bytes of the update alone: what the blob `blob` holds.
    pub stored: u64,
}

impl StoredFile {
    /// Bytes its own blob holds: what it adds to the account's stored bytes.
    pub fn stored_size(&self) -> u64 {
        self.delta.as_ref().map_or(self.size, |d| d.stored)
    }

    /// A SHA-256 that has consumed `bytes` (this file's, as read from its blob), continued from
    /// the kept state instead of hashed again: only for a whole file whose state claims exactly
    /// `bytes.len()` bytes and finishes to the digest this record states. `None` otherwise (no
    /// state, another length, a state of other bytes): the caller hashes `bytes` itself.
    pub(crate) fn resumed_sha256(&self, bytes: &[u8]) -> Option<sha2::Sha256> {
        let state = self.sha256_state.as_ref()?;
        if self.delta.is_some() || self.size != bytes.len() as u64 {
            return None;
        }
        state.resume(bytes.len() as u64, &self.sha256)
    }
}

/// The envelope as stored. Empty values are left out of the stored form (`None`, and the empty
/// lists that older binaries already read as empty when missing, so that they can still read
/// new records during a rolling upgrade), and a missing key reads as empty, so records written
/// with explicit `null`s and `[]`s read the same (docs/STORAGE.md "Bytes per envelope"). Views
/// keep every key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvelopeRecord {
    /// The envelope's ID, `env_...`.
    pub id: EnvelopeId,
    /// The owning account's ID, `acct_...`.
    pub account: AccountId,
    /// Test or live: the mode of the key that made it.
    pub mode: Mode,
    /// Incremented by every write; the store refuses a write whose previous version is stale.
    pub version: u64,
    /// `draft`, `sent`, `completed` or `voided`.
    pub status: EnvelopeStatus,
    /// Defaults to the template name or the file name.
    pub name: String,
    /// The template the envelope was made from, `tmpl_...`; `None` (left out) when made from a PDF.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<TemplateId>,
    /// `email` or `embedded`.
    pub delivery: Delivery,
    /// `true` when signers sign in sequence, `false` (left out) when all can sign at once.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub signing_order: bool,
    /// The signers, in signing order, with what only the service sees.
    pub signers: Vec<SignerRecord>,
    /// Carbon-copy recipients (extensions E1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cc: Vec<CcRecipient>,
    /// The caller's own string keys (at most 20), returned on every read and in every webhook;
    /// left out when empty.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
    /// Why the envelope was voided; `None` (left out) unless voided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub void_reason: Option<String>,
    /// When the envelope was created.
    pub created_at: Timestamp,
    /// When the envelope was sent; `None` (left out) while a draft.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_at: Option<Timestamp>,
    /// When the last signer signed; `None` (left out) until then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<Timestamp>,
    /// When the envelope was voided; `None` (left out) unless voided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voided_at: Option<Timestamp>,
    /// When the envelope expires (set on send); `None` (left out) before sending or when it never
    /// expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<Timestamp>,
    /// Days until expiry, counted from the moment the envelope is sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in_days: Option<u32>,
    /// The subject of the signing request emails; `None` (left out) for the default one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// The sender's message in the signing request emails; `None` (left out) when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Fields of the document, signer and sender fields alike; left out when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<PlacedField>,
    /// Sender data by field key: text, or "true"/"false" for check boxes; left out when empty.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub data: BTreeMap<String, SignerValue>,
    /// Whether the signed copy gets an appended signature page; left out when not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub signature_page: bool,
    /// The first document.
    pub original: StoredFile,
    /// The first document's signed copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed: Option<StoredFile>,
    /// The audit trail PDF; `None` (left out) until the envelope completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_trail: Option<StoredFile>,
    /// Pages of the first document; absent in records stored before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_count: Option<u32>,
    /// The documents after the first, in order (extensions E5).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_documents: Vec<MoreDocument>,
    /// The email outbox of this envelope: every pending email, and the newest finished one of
    /// each signer (`model/email.rs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub emails: Vec<EmailRecord>,
    /// When live retention deleted the PDFs (original, signed copy, audit trail). The
    /// [`StoredFile`]s stay as a record of what there was (names, sizes, digests); their blobs
    /// are gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_deleted_at: Option<Timestamp>,
    /// The level each sealed file reached (extensions E10); `None` (left out) until the
    /// envelope completed sealed, and in records written before levels were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seal: Option<SealRecord>,
    /// Corrections made after sending (extensions E14), oldest first; left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub corrections: Vec<Correction>,
    /// The bulk send that made the envelope (extensions E12); `None` (left out) for one made
    /// alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bulk_send: Option<BulkSendId>,
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
            signers: self
                .signers
                .iter()
                .map(|s| Signer {
                    auth: s.identity.as_ref().map(IdentityRecord::view),
                    last_email: self.last_email(&s.signer.id).map(EmailRecord::view),
                    ..s.signer.clone()
                })
                .collect(),
            cc: self.cc.clone(),
            documents: self.documents_view(),
            files: EnvelopeFiles {
                signed: self.signed.is_some() && self.files_deleted_at.is_none(),
                audit_trail: self.audit_trail.is_some() && self.files_deleted_at.is_none(),
            },
            metadata: self.metadata.clone(),
            void_reason: self.void_reason.clone(),
            created_at: self.created_at,
            sent_at: self.sent_at,
            completed_at: self.completed_at,
            voided_at: self.voided_at,
            expires_at: self.expires_at,
            files_deleted_at: self.files_deleted_at,
            seal: self.seal.as_ref().map(SealRecord::view),
            bulk_send: self.bulk_send.clone(),
            attachments: self
                .attached_files()
                .map(|(i, key, a)| super::AttachmentView {
                    field: key.to_string(),
                    signer: self.signers[i].signer.id.clone(),
                    name: a.file.file_name.clone(),
                    content_type: a.content_type.clone(),
                    size: a.file.size,
                    sha256: a.file.sha256.clone(),
                })
                .collect(),
        }
    }

    /// When the record last changed: the latest of its own timestamps (every write of the
    /// service sets one). Retention counts from it; stores index it.
    pub fn last_change(&self) -> Timestamp {
        let signers = self.signers.iter().flat_map(|s| {
            [
                s.sent_at,
                s.last_reminded_at,
                s.consented_at,
                s.signer.viewed_at,
                s.signer.signed_at,
                s.signer.declined_at,
                // Asking for a code and entering the right one (extensions E2).
                s.identity.as_ref().and_then(|i| i.code_requested_at),
                s.identity.as_ref().and_then(|i| i.verified_at),
            ]
        });
        [
            self.sent_at,
            self.completed_at,
            self.voided_at,
            self.files_deleted_at,
        ]
        .into_iter()
        .chain(signers)
        .flatten()
        .fold(self.created_at, Timestamp::max)
    }

    /// Clears the personal data that the record keeps beyond the evidence of what happened:
    /// live retention calls it in the same write that deletes the envelope's files
    /// (`service/retention.rs`). Every field that holds a signer's or the sender's free text
    /// or a client's traces is cleared here, so that a field added later has one place to be
    /// cleared (docs/ROBUSTNESS.md, "Personal data does not outlive retention").
    ///
    /// Cleared: what each signer gave or left behind ([`SignerRecord::erase_personal_data`]),
    /// the sender's `data` values and email `subject` and `message`, the words of email
    /// failures (a mail server's answer may quote addresses), and a signer's words in
    /// `void_reason` (a decline keeps `declined by <role>`).
    ///
    /// Kept: IDs, names and email addresses of signers, carbon copies and previous signers (they
    /// name the parties, which the evidence is about), every timestamp and status, the
    /// documents' names, sizes and digests, the fields' places, the caller's `metadata` (its own
    /// keys that tie the record to its systems) and a sender's own void reason.
    pub fn erase_personal_data(&mut self) {
        for s in &mut self.signers {
            s.erase_personal_data();
        }
        if let Some(declined) = self
            .signers
            .iter()
            .find(|s| s.signer.status == SignerStatus::Declined)
        {
            self.void_reason = Some(declined_reason(&declined.signer.role, None));
        }
        self.data.clear();
        self.subject = None;
        self.message = None;
        for e in &mut self.emails {
            e.last_error = None;
        }
    }

    /// The stored files whose blobs this record needs: none once retention deleted them.
    pub fn held_files(&self) -> Vec<&StoredFile> {
        if self.files_deleted_at.is_some() {
            return Vec::new();
        }
        std::iter::once(&self.original)
            .chain(self.signed.as_ref())
            .chain(self.audit_trail.as_ref())
            .chain(
                self.more_documents
                    .iter()
                    .flat_map(|d| std::iter::once(&d.original).chain(d.signed.as_ref())),
            )
            .chain(self.attached_files().map(|(_, _, a)| &a.file))
            .collect()
    }

    /// Every signer's file (extensions E14): the signer's index, the field's key, the file.
    pub fn attached_files(&self) -> impl Iterator<Item = (usize, &str, &super::AttachedFile)> {
        self.signers.iter().enumerate().flat_map(|(i, s)| {
            s.values.iter().filter_map(move |(k, v)| match v {
                SignerValue::Attachment(a) => Some((i, k.as_str(), a)),
                _ => None,
            })
        })
    }

    /// How many documents the envelope has (extensions E5).
    pub fn document_count(&self) -> u32 {
        1 + self.more_documents.len() as u32
    }

    /// Document `n` (from 1): its original and signed copy; `None` past the last.
    pub fn document(&self, n: u32) -> Option<(&StoredFile, Option<&StoredFile>)> {
        match n {
            0 => None,
            1 => Some((&self.original, self.signed.as_ref())),
            _ => self
                .more_documents
                .get(n as usize - 2)
                .map(|d| (&d.original, d.signed.as_ref())),
        }
    }

    /// `documents` of the wire envelope.
    pub fn documents_view(&self) -> Vec<DocumentView> {
        let first = DocumentView {
            index: 1,
            name: self.original.file_name.clone(),
            page_count: self.page_count,
            sha256: self.original.sha256.clone(),
        };
        std::iter::once(first)
            .chain(
                self.more_documents
                    .iter()
                    .enumerate()
                    .map(|(i, d)| DocumentView {
                        index: i as u32 + 2,
                        name: d.original.file_name.clone(),
                        page_count: Some(d.page_count),
                        sha256: d.original.sha256.clone(),
                    }),
            )
            .collect()
    }

    /// The account and mode the envelope belongs to.
    pub fn scope(&self) -> super::Scope {
        super::Scope {
            account: self.account.clone(),
            mode: self.mode,
        }
    }

    /// The position in `signers` of the signer with this ID, `sgn_...`; `None` if there is none.
    pub fn signer_index(&self, id: &str) -> Option<usize> {
        self.signers.iter().position(|s| s.signer.id == id)
    }

    /// The newest email to `signer`.
    pub fn last_email(&self, recipient: &str) -> Option<&EmailRecord> {
        self.emails.iter().rev().find(|e| e.recipient == recipient)
    }

    /// When the earliest pending email is due: what the store indexes for the email worker.
    pub fn next_email_at(&self) -> Option<Timestamp> {
        self.emails
            .iter()
            .filter(|e| e.status == EmailStatus::Pending)
            .filter_map(|e| e.next_attempt_at)
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::{Field, FieldSource, FieldType, PlacedField};

    fn at(ms: i64) -> Option<Timestamp> {
        Timestamp::from_millis(ms)
    }

    /// Records are read through spelled-out flat structs (no `#[serde(flatten)]`): every key must
    /// come back, and the stored form must stay one flat object.
    #[test]
    fn flat_records_round_trip_every_key() {
        let signer = SignerRecord {
            signer: Signer {
                id: "sgn_1".parse().unwrap(),
                role: "Client".into(),
                name: "Ada".into(),
                email: "ada@example.com".into(),
                locale: Some(Locale::parse("pt-BR").unwrap()),
                order: 2,
                status: SignerStatus::Declined,
                viewed_at: at(1),
                signed_at: at(2),
                declined_at: at(3),
                decline_reason: Some("no".into()),
                auth: None,
                last_email: None,
                kind: SignerKind::Approver,
                in_person: Some(InPerson {
                    host_name: "Hal".into(),
                    host_email: "hal@example.com".into(),
                }),
            },
            sent_at: at(4),
            last_reminded_at: at(5),
            consented_at: at(6),
            ip_address: Some("192.0.2.1".into()),
            user_agent: Some("UA".into()),
            values: [("sig".to_string(), SignerValue::Checkbox(true))].into(),
            reassignments: vec![],
            identity: Some(IdentityRecord::new(
                crate::model::AuthMethod::EmailCode,
                "salt".into(),
            )),
            links: Vec::new(),
            links_not_kept: Default::default(),
            acted_via: None,
            locks: Vec::new(),
            locks_not_kept: 0,
        };
        let json = serde_json::to_value(&signer).unwrap();
        assert_eq!(json["email"], "ada@example.com", "flat: {json}");
        assert_eq!(json["ip_address"], "192.0.2.1");
        assert_eq!(
            serde_json::from_value::<SignerRecord>(json).unwrap(),
            signer
        );

        for source in [
            FieldSource::Explicit,
            FieldSource::Tag,
            FieldSource::Form { name: "a.b".into() },
        ] {
            let field = PlacedField {
                field: Field {
                    key: "k".into(),
                    kind: FieldType::Text,
                    role: Some("Client".into()),
                    filled_by: "Client".into(),
                    required: true,
                    page: 3,
                    x: 1.5,
                    y: 2.25,
                    width: 100.0,
                    height: 20.0,
                    document: 1,
                    options: None,
                    label: None,
                    condition: None,
                    formula: None,
                },
                source,
            };
            let json = serde_json::to_value(&field).unwrap();
            assert_eq!(json["type"], "text", "flat: {json}");
            // What reading puts back by itself is not stored.
            assert!(json.get("document").is_none(), "{json}");
            assert_eq!(
                json.get("source").is_some(),
                field.source != FieldSource::Explicit
            );
            assert_eq!(serde_json::from_value::<PlacedField>(json).unwrap(), field);
        }
        // A sender's field in a second document, with options: every key that is not a default
        // is kept, and it reads back the same.
        let field = PlacedField {
            field: Field {
                key: "plan".into(),
                kind: FieldType::Radio,
                role: None,
                filled_by: "sender".into(),
                required: false,
                page: 2,
                x: 0.0,
                y: 0.0,
                width: 10.0,
                height: 10.0,
                document: 2,
                options: Some(vec!["a".into(), "b".into()]),
                label: None,
                condition: None,
                formula: None,
            },
            source: FieldSource::Form {
                name: "plan".into(),
            },
        };
        let json = serde_json::to_value(&field).unwrap();
        assert!(json.get("role").is_none(), "{json}");
        assert_eq!(
            (
                &json["document"],
                &json["options"][1],
                &json["source"]["name"]
            ),
            (
                &serde_json::json!(2),
                &serde_json::json!("b"),
                &serde_json::json!("plan")
            )
        );
        assert_eq!(serde_json::from_value::<PlacedField>(json).unwrap(), field);
        // Written before `source` existed: explicit.
        let old = r#"{"key":"k","type":"date","role":null,"filled_by":"sender","required":false,
                      "page":1,"x":0,"y":0,"width":1,"height":1}"#;
        let field: PlacedField = serde_json::from_str(old).unwrap();
        assert_eq!(field.source, FieldSource::Explicit);
    }

    /// The stored form leaves out empty values; records written before, with every key and its
    /// `null`, `[]` or `{}`, read the same, and both read back equal to what was written.
    #[test]
    fn records_are_stored_without_empty_values_and_old_ones_still_read() {
        let old = r#"{"id":"env_1","account":"acct_1","mode":"test","version":2,"status":"sent",
            "name":"contract.pdf","template":null,"delivery":"email","signing_order":false,
            "signers":[{"id":"sgn_1","role":"Client","name":"Ada","email":"ada@example.com",
              "locale":null,"order":1,"status":"pending","viewed_at":null,"signed_at":null,
              "declined_at":null,"decline_reason":null,"auth":null,"last_email":null,
              "sent_at":"2026-11-25T18:16:47.732Z","last_reminded_at":null,"consented_at":null,
              "ip_address":null,"user_agent":null,"values":{},"reassignments":[],
              "identity":null}],
            "cc":[],"metadata":{},"void_reason":null,"created_at":"2026-11-25T18:16:47.732Z",
            "sent_at":"2026-11-25T18:16:47.732Z","completed_at":null,"voided_at":null,
            "expires_at":null,"expires_in_days":null,"subject":null,"message":null,
            "fields":[],"data":{},"signature_page":false,
            "original":{"blob":"blob_1","file_name":"contract.pdf","size":806,"sha256":"00"},
            "signed":null,"audit_trail":null,
            "emails":[{"id":"eml_1","kind":"signing_request","recipient":"sgn_1",
              "status":"sent","attempts":1,"created_at":"2026-11-25T18:16:47.732Z",
              "next_attempt_at":null,"finished_at":"2026-11-25T18:16:47.811Z",
              "last_error":null}],
            "files_deleted_at":null}"#;
        let record: EnvelopeRecord = serde_json::from_str(old).unwrap();
        let stored = serde_json::to_string(&record).unwrap();
        // Since schema 8 (which binaries that need every key refuse) empty lists and maps and
        // false flags are left out too.
        for empty in [
            "null",
            "\"cc\"",
            "\"values\"",
            "\"reassignments\"",
            "\"fields\"",
            "\"metadata\"",
            "\"data\"",
            "false",
        ] {
            assert!(!stored.contains(empty), "{empty} in {stored}");
        }
        assert!(stored.contains("\"delivery\":\"email\""), "{stored}");
        assert!(
            stored.len() * 2 < old.len(),
            "{} of {} bytes",
            stored.len(),
            old.len()
        );
        assert_eq!(
            serde_json::from_str::<EnvelopeRecord>(&stored).unwrap(),
            record
        );
        // What is set is kept, and the view still carries every key, null or not.
        assert_eq!(record.signers[0].sent_at, at(1_795_630_607_732));
        assert_eq!(record.emails[0].finished_at, at(1_795_630_607_811));
        let view = serde_json::to_value(record.view()).unwrap();
        assert!(view["void_reason"].is_null() && view.get("void_reason").is_some());
        assert!(view["signers"][0].get("viewed_at").is_some());
    }

    /// What live retention clears and what it keeps, field by field, on a record with every
    /// field set: the erased record holds none of the marker strings that stand for personal
    /// data, and every kept field is unchanged.
    #[test]
    fn erase_personal_data_clears_what_people_left_and_keeps_the_evidence() {
        let json = r#"{"id":"env_1","account":"acct_1","mode":"live","version":3,
            "status":"voided","name":"Lease","delivery":"email",
            "signers":[{"id":"sgn_1","role":"Tenant","name":"Ada","email":"ada@example.com",
              "order":1,"status":"declined","viewed_at":"2026-11-25T18:00:00.000Z",
              "declined_at":"2026-11-25T18:01:00.000Z","decline_reason":"REASON-X",
              "sent_at":"2026-11-25T17:00:00.000Z","consented_at":"2026-11-25T18:00:30.000Z",
              "ip_address":"IP-X","user_agent":"UA-X",
              "values":{"sig":{"kind":"drawn","value":"DRAWN-X"},"t":{"kind":"text","value":"TEXT-X"},
                "typed":{"kind":"typed","value":"TYPED-X"}},
              "reassignments":[{"at":"2026-11-25T17:30:00.000Z","name":"Bob","email":"bob@example.com"}],
              "links":[{"via":"api","at":"2026-11-25T17:05:00.000Z","api_key":"key_1","ip_address":"LINKIP-X"},
                {"via":"email","at":"2026-11-25T17:00:00.000Z","to":"ada@example.com"}],
              "identity":{"method":"access_code","salt":"SALT-X","access_code_hash":"HASH-X",
                "email_code":{"hash":"CODE-X","expires_at":"2026-11-25T18:10:00.000Z"},
                "verified_at":"2026-11-25T18:00:10.000Z","failed_attempts":1,
                "grants":[{"hash":"GRANT-X","expires_at":"2026-11-26T06:00:00.000Z"}]}}],
            "cc":[{"id":"rcp_1","name":"Cy","email":"cy@example.com"}],
            "metadata":{"order":"ord_1"},"void_reason":"declined by Tenant: REASON-X",
            "created_at":"2026-11-25T16:00:00.000Z","sent_at":"2026-11-25T17:00:00.000Z",
            "voided_at":"2026-11-25T18:01:00.000Z","subject":"SUBJECT-X","message":"MESSAGE-X",
            "data":{"salary":{"kind":"text","value":"DATA-X"}},
            "original":{"blob":"blob_1","file_name":"lease.pdf","size":806,"sha256":"00"},
            "emails":[{"id":"eml_1","kind":"signing_request","recipient":"sgn_1",
              "status":"failed","attempts":3,"created_at":"2026-11-25T17:00:00.000Z",
              "finished_at":"2026-11-25T17:10:00.000Z","last_error":"550 ERROR-X"}],
            "files_deleted_at":"2026-12-25T00:00:00.000Z"}"#;
        let before: EnvelopeRecord = serde_json::from_str(json).unwrap();
        let mut after = before.clone();
        after.erase_personal_data();
        let stored = serde_json::to_string(&after).unwrap();
        assert!(!stored.contains("-X"), "{stored}");
        let (a, b) = (&after.signers[0], &before.signers[0]);
        assert_eq!(after.void_reason.as_deref(), Some("declined by Tenant"));
        // Kept: the parties, what happened and when, the documents, the caller's metadata.
        assert_eq!(a.signer.id, b.signer.id);
        assert_eq!(
            (&a.signer.name, &a.signer.email),
            (&b.signer.name, &b.signer.email)
        );
        assert_eq!(a.signer.status, b.signer.status);
        assert_eq!(a.signer.declined_at, b.signer.declined_at);
        assert_eq!(a.consented_at, b.consented_at);
        assert_eq!(a.reassignments, b.reassignments);
        assert_eq!(a.links.len(), 2);
        assert_eq!(a.links[0].api_key.as_deref(), Some("key_1"));
        assert_eq!(
            (a.links[0].via, a.links[0].at),
            (b.links[0].via, b.links[0].at)
        );
        assert_eq!(a.links[1], b.links[1]);
        let (ia, ib) = (a.identity.as_ref().unwrap(), b.identity.as_ref().unwrap());
        assert_eq!((ia.method, ia.verified_at), (ib.method, ib.verified_at));
        assert_eq!(after.last_change(), before.last_change());
        assert_eq!(after.cc, before.cc);
        assert_eq!(after.metadata, before.metadata);
        assert_eq!(after.original, before.original);
        assert_eq!(after.emails[0].status, before.emails[0].status);
        assert_eq!(after.emails[0].finished_at, before.emails[0].finished_at);
        // Erasing twice changes nothing more; the view of the erased record reads as usual.
        let mut again = after.clone();
        again.erase_personal_data();
        assert_eq!(again, after);
        let view = serde_json::to_value(after.view()).unwrap();
        assert!(view["signers"][0]["decline_reason"].is_null());

        // An event's snapshot of the record before: the same words go.
        let mut snapshot = before.view();
        snapshot.erase_personal_data();
        let snapshot = serde_json::to_string(&snapshot).unwrap();
        assert!(!snapshot.contains("-X"), "{snapshot}");
    }
}
