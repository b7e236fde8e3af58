//! Completion: the test helper, and building the signed copy and the audit trail through the PDF
//! engine once every signer has signed.

use base64::Engine;
use sha2::{Digest, Sha256};

use super::seals::{self, Growing, Seals, earliest};
use super::signing::values;
use super::{AuthContext, SignInput, SigningService};
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::field::FieldType;
use crate::ids::EnvelopeId;
use crate::model::{
    Envelope, EnvelopeRecord, EnvelopeStatus, EventRecord, EventType, SealLevel, SealRecord,
    SignerKind, SignerRecord, SignerStatus, SignerValue, StoredFile,
};
use crate::pdf;
use crate::rules;

const MAX_ATTEMPTS: usize = 4;

/// Room kept after a sealed file for its DSS and document timestamp (they are smaller than this
/// unless the chains are long).
const LONG_TERM_ROOM: usize = 64 * 1024;

/// The user agent the test helper records for the signers it signs for (it uses no link).
const TEST_HELPER_AGENT: &str = "envelope test helper";

impl SigningService {
    /// Test helper: signs for every remaining signer in order, builds the signed PDF and the audit
    /// trail, emits `envelope.signer_completed` per signer and `envelope.completed`.
    pub async fn test_complete(&self, ctx: &AuthContext, id: &EnvelopeId) -> Result<Envelope> {
        if ctx.mode().is_live() {
            return Err(Error::TestModeOnly);
        }
        for _ in 0..MAX_ATTEMPTS {
            let current = self.load_envelope(ctx, id).await?;
            if current.status != EnvelopeStatus::Sent {
                return Err(Error::state(format!(
                    "The test helper completes sent envelopes; this one is {}.",
                    current.status.as_str()
                )));
            }
            let now = self.now();
            let mut next = current.clone();
            let mut events = Vec::new();
            for i in rules::signing_sequence(&next) {
                if next.signers[i].signer.status == SignerStatus::Completed {
                    continue;
                }
                let attached = self.sample_attachments(&next, i).await?;
                next.signers[i].values = sample_values(&next, i, &attached, now)?;
                next.signers[i]
                    .ip_address
                    .get_or_insert_with(|| "127.0.0.1".into());
                next.signers[i]
                    .user_agent
                    .get_or_insert_with(|| TEST_HELPER_AGENT.into());
                if next.signers[i].signer.viewed_at.is_none() {
                    next.signers[i].signer.viewed_at = Some(now);
                }
                // Signs without the signer's code (extensions E2); the audit trail says so.
                if let Some(id) = next.signers[i].identity.as_mut() {
                    id.skipped_at = Some(now);
                }
                rules::sign(&mut next, i, now)?;
                events.push(super::events::record(
                    &next,
                    EventType::SignerCompleted,
                    Some(i),
                    now,
                ));
            }
            events.push(self.finalize(&mut next, now).await?);
            if self
                .write_over_emails(current, &mut next, &events, now)
                .await?
            {
                return Ok(next.view());
            }
        }
        Err(Error::Internal("completion kept conflicting".into()))
    }

    /// Finishes an envelope whose last signer has signed: the one path of the test helper and of
    /// a signature. Stamps the signed copies (one per document, extensions E5; a test
    /// envelope's with the test-mode mark on every page), renders the audit trail, seals both
    /// with the sealer of the envelope's mode, stores them, and marks the envelope completed;
    /// gives the `envelope.completed` event, for the caller's write of the record. Blobs are
    /// written before the record that names them. A timestamp that cannot be had seals without
    /// it (`Seals`); the level each file reached goes into the record (`seal`).
    pub(crate) async fn finalize(
        &self,
        rec: &mut EnvelopeRecord,
        now: Timestamp,
    ) -> Result<EventRecord> {
        rules::complete(rec, now)?;
        // Test mode seals with its own identity, never the live one (`sealing.rs`).
        let sealer = self.sealer_of(rec.mode).cloned();
        let service = self.inner.settings.service_name.clone();
        let spec = sealer.as_ref().map(|s| pdf::SealSpec {
            name: service.clone(),
            reason: format!("Signed by all parties via {service}"),
            signing_time: now.datetime(),
            capacity: s.capacity(),
        });
        let count = rec.document_count();
        let revocation = self.inner.revocation.as_deref();
        let mut seals = sealer.as_deref().map(|s| {
            let target = seals::target_level(self.inner.settings.seal.level, s, revocation);
            Seals::new(s, revocation, target, &rec.id)
        });
        let mut archive_expires_at: Option<Timestamp> = None;
        let mut levels = Vec::with_capacity(count as usize);
        let mut signed_files = Vec::with_capacity(count as usize);
        for n in 1..=count {
            let (file, _) = rec
                .document(n)
                .ok_or_else(|| Error::Internal(format!("document {n} is missing")))?;
            let file = file.clone();
            let original = self
                .inner
                .blobs
                .get(&file.blob)
                .await?
                .ok_or_else(|| Error::Internal(format!("original {} is missing", file.blob)))?;
            // `Bytes`: the same buffer, shared with the blocking task that stamps.
            let original_kept = original.clone();
            // The original's SHA-256 state, kept since it was stored: the seal then hashes only
            // the update. A state that does not describe these bytes is not used.
            let hashed = file.resumed_sha256(&original);
            if hashed.is_none() && file.sha256_state.is_some() {
                tracing::warn!(
                    envelope = %rec.id,
                    blob = %file.blob,
                    "the kept SHA-256 state does not describe the stored original: hashing it again"
                );
            }
            // A signature page goes on the last document.
            let mut request = stamp_request_for(rec, n, n == count)?;
            // Signers' files go into the copy of the document their fields are on (E14).
            self.embed_attachments(rec, &mut request).await?;
            if !rec.mode.is_live() {
                request.page_mark = Some(pdf::TEST_MODE_MARK.into());
            }
            // The update alone, and the whole file's SHA-256 from one pass over the original:
            // the signed copy (`original ++ update`) is never built in memory.
            let (update, sha256) = match (&mut seals, spec.clone()) {
                (Some(seals), Some(spec)) => {
                    let prepared = self
                        .completion_blocking("stamp", move || {
                            match hashed {
                                Some(h) => {
                                    pdf::stamp_for_seal_hashed(&original, h, &request, &spec)
                                }
                                None => pdf::stamp_for_seal(&original, &request, &spec),
                            }
                            .map(|p| {
                                let digest = p.digest();
                                (p, digest)
                            })
                        })
                        .await?
                        .map_err(stamp_error)?;
                    let what = format!("document {n}");
                    let (sealed, level) = seals.seal(prepared, &what).await?;
                    if seals.extends(level) {
                        // B-LT and B-LTA read the sealed file whole: joined here, once.
                        let mut bytes = Vec::with_capacity(
                            original_kept.len() + sealed.update.len() + LONG_TERM_ROOM,
                        );
                        bytes.extend_from_slice(&original_kept);
                        bytes.extend_from_slice(&sealed.update);
                        let file = Growing {
                            bytes,
                            hashed: sealed.hash_state(),
                            level,
                            archive_expires_at: None,
                        };
                        let grown = seals.extend(self, file, &what).await?;
                        levels.push(grown.level);
                        archive_expires_at = earliest(archive_expires_at, grown.archive_expires_at);
                        let sha256 = grown.sha256();
                        (grown.bytes[original_kept.len()..].to_vec(), sha256)
                    } else {
                        levels.push(level);
                        (sealed.update, sealed.sha256)
                    }
                }
                _ => self
                    .completion_blocking("stamp", move || {
                        pdf::stamp_update(&original, &request).map(|update| {
                            let mut whole =
                                hashed.unwrap_or_else(|| Sha256::new_with_prefix(&original));
                            whole.update(&update);
                            (update, <[u8; 32]>::from(whole.finalize()))
                        })
                    })
                    .await?
                    .map_err(stamp_error)?,
            };
            // Stored as the update alone: the original's bytes are already stored.
            let signed_file = self
                .put_update(
                    &format!("{}-signed.pdf", stem(&file.file_name)),
                    &file,
                    &original_kept,
                    update.into(),
                    crate::ids::hex(&sha256),
                )
                .await?;
            signed_files.push(signed_file);
        }
        let base = stem(&rec.original.file_name).to_string();
        let certificate = sealer
            .as_ref()
            .map(|s| s.certificate().sha256_fingerprint.clone());
        let stated = seals.as_ref().map(|s| pdf::SealLevels {
            target: s.target_level().name().into(),
            documents: levels.iter().map(|l| l.name().into()).collect(),
        });
        let trail = audit_trail(rec, &signed_files, &service, certificate, stated, now);
        let audit = self
            .completion_blocking("audit_trail", move || pdf::audit_trail(&trail))
            .await?
            .map_err(|e| Error::Internal(format!("audit trail failed: {e}")))?;
        let mut audit_level = None;
        let audit = match (&mut seals, spec) {
            (Some(seals), Some(spec)) => {
                let (audit, prepared) = self
                    .completion_blocking("audit_trail", move || {
                        let prepared = pdf::prepare_seal(&audit, &spec)?;
                        let digest = prepared.digest();
                        Ok::<_, pdf::PdfError>((audit, (prepared, digest)))
                    })
                    .await?
                    .map_err(|e| Error::Internal(format!("sealing the audit trail failed: {e}")))?;
                // The audit trail is no delta of a stored file: it is kept whole.
                let (sealed, level) = seals.seal(prepared, "audit trail").await?;
                let hashed = sealed.hash_state();
                let bytes = sealed
                    .into_whole(&audit)
                    .map_err(|e| Error::Internal(format!("sealing the audit trail failed: {e}")))?;
                let file = Growing {
                    bytes,
                    hashed,
                    level,
                    archive_expires_at: None,
                };
                let grown = if seals.extends(level) {
                    seals.extend(self, file, "audit trail").await?
                } else {
                    file
                };
                audit_level = Some(grown.level);
                archive_expires_at = earliest(archive_expires_at, grown.archive_expires_at);
                grown.bytes
            }
            _ => audit,
        };
        rec.seal = match (&seals, audit_level) {
            (Some(seals), Some(audit_trail)) => {
                let mut record = SealRecord::new(seals.target_level(), levels, audit_trail);
                // Every file at B-LTA has a document timestamp whose expiry renewal watches.
                if record.level() == SealLevel::BLta {
                    record.archive_expires_at = archive_expires_at;
                }
                if record.below_target() {
                    record.upgrade_due_at = self.seal_upgrade_due(0, now);
                }
                Some(record)
            }
            _ => None,
        };
        let audit_file = self
            .put_file(&format!("{base}-audit-trail.pdf"), audit.into())
            .await?;
        let mut signed_files = signed_files.into_iter();
        rec.signed = signed_files.next();
        for (d, signed) in rec.more_documents.iter_mut().zip(signed_files) {
            d.signed = Some(signed);
        }
        // Nothing seals these originals again: their states leave the record.
        rec.original.sha256_state = None;
        for d in &mut rec.more_documents {
            d.original.sha256_state = None;
        }
        rec.audit_trail = Some(audit_file);
        Ok(super::events::record(rec, EventType::Completed, None, now))
    }
}

/// A file name without its `.pdf`: the start of the names of its signed copy and audit trail.
fn stem(file_name: &str) -> &str {
    file_name.trim_end_matches(".pdf").trim_end_matches(".PDF")
}

fn stamp_error(e: pdf::PdfError) -> Error {
    match e {
        pdf::PdfError::InvalidValue { key, reason } => {
            Error::invalid(format!("values.{key}"), reason)
        }
        other => Error::Internal(format!("stamping failed: {other}")),
    }
}

/// Values the test helper signs with: the signer's name as a typed signature, its initials,
/// "Test value" in required text fields, required boxes ticked, the first option of required
/// `radio` and `select` fields, 1 in required `number` fields (dates get the signing date).
///
/// They pass through the same checks as a signer's own submission, so the helper stores nothing
/// a signer could not. A name the stamping fonts cannot draw (emoji, private-use characters, or
/// CJK on a machine without Noto Sans CJK) keeps only what they can, or becomes "Test signature".
fn sample_values(
    rec: &EnvelopeRecord,
    i: usize,
    attached: &std::collections::BTreeMap<String, crate::model::AttachedFile>,
    now: Timestamp,
) -> Result<std::collections::BTreeMap<String, SignerValue>> {
    let s = &rec.signers[i].signer;
    let drawable = |text: String, fallback: &str| {
        let kept = pdf::keep_drawable(&text, values::MAX_TYPED);
        let kept = kept.split_whitespace().collect::<Vec<_>>().join(" ");
        if kept.is_empty() {
            fallback.to_string()
        } else {
            kept
        }
    };
    let name = drawable(s.name.clone(), "Test signature");
    let initials = drawable(
        name.split_whitespace()
            .filter_map(|w| w.chars().next())
            .collect(),
        "TS",
    );
    let mut input = SignInput {
        consent: true,
        ..SignInput::default()
    };
    for f in rec
        .fields
        .iter()
        .map(|f| &f.field)
        .filter(|f| f.role.as_deref() == Some(&s.role) && !f.is_sender_field())
        .filter(|f| f.formula.is_none())
    {
        let v = match f.kind {
            FieldType::Signature => SignerValue::Typed(name.clone()),
            FieldType::Initials => SignerValue::Typed(initials.clone()),
            FieldType::Text if f.required => SignerValue::Text("Test value".into()),
            FieldType::Date | FieldType::Text => continue,
            FieldType::Checkbox => SignerValue::Checkbox(f.required),
            // Required choices get their first option, required numbers 1.
            FieldType::Radio | FieldType::Select if f.required => {
                match f.options.as_ref().and_then(|o| o.first()) {
                    Some(first) => SignerValue::Text(first.clone()),
                    None => continue,
                }
            }
            FieldType::Number if f.required => SignerValue::Text("1".into()),
            FieldType::Radio | FieldType::Select | FieldType::Number => continue,
            // Required ones get the helper's own picture (`attached`).
            FieldType::Attachment => continue,
        };
        input.values.insert(f.key.clone(), v);
    }
    if rec.signature_page && s.kind == SignerKind::Signer {
        input.signature = Some(SignerValue::Typed(name));
    }
    values::checked_values(rec, i, &input, attached, now).map_err(|e| {
        // A formula can have no value with the helper's numbers (a division by zero): that is
        // the envelope's, and the sender's to know (extensions E14).
        let computed = e.param().and_then(|p| {
            let key = p.strip_prefix("values.")?.to_string();
            rec.fields
                .iter()
                .any(|f| f.field.key == key && f.field.formula.is_some())
                .then_some(key)
        });
        match computed {
            Some(key) => Error::state(format!(
                "The test helper signs with 1 in each required number field, and with those \
                 values the computed field '{key}' has no value ({e}); sign through the \
                 signing links instead."
            )),
            None => Error::Internal(format!("the test helper's own values were refused: {e}")),
        }
    })
}

fn stamp_value(v: &SignerValue, key: &str) -> Result<pdf::StampValue> {
    Ok(match v {
        SignerValue::Typed(t) => pdf::StampValue::Typed(t.clone()),
        SignerValue::Drawn(b64) => pdf::StampValue::Drawn(
            base64::engine::general_purpose::STANDARD
                .decode(b64)
                .map_err(|_| Error::invalid(format!("values.{key}"), "is not valid base64"))?,
        ),
        SignerValue::Text(t) => pdf::StampValue::Text(t.clone()),
        SignerValue::Checkbox(b) => pdf::StampValue::Checkbox(*b),
        // The box shows the file's name; completion embeds the file itself
        // (`SigningService::embed_attachments`).
        SignerValue::Attachment(a) => pdf::StampValue::Text(a.file.file_name.clone()),
    })
}

/// What to stamp into document `document` (from 1): its fields with their signer's or the
/// sender's value, and the signature page when `with_page` (the last document) and the envelope
/// has one.
pub(crate) fn stamp_request_for(
    rec: &EnvelopeRecord,
    document: u32,
    with_page: bool,
) -> Result<pdf::StampRequest> {
    let mut fields = Vec::new();
    for f in rec.fields.iter().filter(|f| f.field.document == document) {
        let signer = (!f.field.is_sender_field())
            .then(|| {
                rec.signers
                    .iter()
                    .find(|s| Some(&s.signer.role) == f.field.role.as_ref())
            })
            .flatten();
        let lookup = |k: &str| {
            rec.data
                .get(k)
                .or_else(|| rec.signers.iter().find_map(|s| s.values.get(k)))
        };
        let value = if !values::applies(&rec.fields, &f.field, &lookup) {
            // A field whose condition does not hold is not stamped (extensions E14).
            None
        } else if f.field.is_sender_field() {
            rec.data.get(&f.field.key)
        } else {
            signer.and_then(|s| s.values.get(&f.field.key))
        };
        let value = value.map(|v| stamp_value(v, &f.field.key)).transpose()?;
        let signed_by = signer
            .filter(|_| f.field.kind == FieldType::Signature)
            .map(signed_by);
        fields.push(pdf::FieldStamp {
            field: f.clone(),
            value,
            signed_by,
        });
    }
    let signature_page = if rec.signature_page && with_page {
        let mut blocks = Vec::new();
        // Approvers and viewers sign nothing (extensions E13): the page holds signers only.
        for i in rules::signing_sequence(rec)
            .into_iter()
            .filter(|&i| rec.signers[i].signer.kind == SignerKind::Signer)
        {
            let s = &rec.signers[i];
            let signature = match s.values.get(values::SIGNATURE_PAGE_KEY) {
                Some(v) => stamp_value(v, values::SIGNATURE_PAGE_KEY)?,
                None => pdf::StampValue::Typed(s.signer.name.clone()),
            };
            blocks.push(pdf::SignatureBlock {
                role: s.signer.role.clone(),
                name: s.signer.name.clone(),
                email: s.signer.email.clone(),
                signature,
                signed_at: s.signer.signed_at.map(fmt_time).unwrap_or_default(),
            });
        }
        Some(blocks)
    } else {
        None
    };
    Ok(pdf::StampRequest {
        page_mark: None,
        fields,
        signature_page,
    })
}

/// The "Signed by" frame's signer: the name and the start of the signer's ID.
fn signed_by(s: &SignerRecord) -> pdf::SignedBy {
    pdf::SignedBy {
        name: s.signer.name.clone(),
        reference: crate::ids::short(&s.signer.id).to_string(),
    }
}

/// The signature the audit trail shows for `s`: the value of their first signature field in
/// document order, else the signature page's, as it was stamped.
fn audit_signature(rec: &EnvelopeRecord, s: &SignerRecord) -> Option<pdf::StampValue> {
    let mut fields: Vec<_> = rec
        .fields
        .iter()
        .filter(|f| f.field.kind == FieldType::Signature)
        .filter(|f| f.field.role.as_ref() == Some(&s.signer.role))
        .collect();
    fields.sort_by_key(|f| f.field.document);
    fields
        .iter()
        .find_map(|f| s.values.get(&f.field.key))
        .or_else(|| s.values.get(values::SIGNATURE_PAGE_KEY))
        .filter(|v| matches!(v, SignerValue::Typed(_) | SignerValue::Drawn(_)))
        .and_then(|v| stamp_value(v, "signature").ok())
}

fn fmt_time(t: Timestamp) -> String {
    t.datetime().format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// The audit trail's content, from the record alone (every step has its time there).
fn audit_trail(
    rec: &EnvelopeRecord,
    signed_files: &[StoredFile],
    service: &str,
    signing_certificate_sha256: Option<String>,
    seal_levels: Option<pdf::SealLevels>,
    now: Timestamp,
) -> pdf::AuditTrail {
    let signed = &signed_files[0];
    let mut events = vec![pdf::AuditEvent {
        at: fmt_time(rec.created_at),
        what: "Envelope created".into(),
        who: "Sender (API)".into(),
        detail: format!(
            "Document \"{}\", SHA-256 {}",
            rec.original.file_name, rec.original.sha256
        ),
    }];
    // Every document after the first (extensions E5), in order.
    for (i, d) in rec.more_documents.iter().enumerate() {
        events.push(pdf::AuditEvent {
            at: fmt_time(rec.created_at),
            what: "Document added".into(),
            who: "Sender (API)".into(),
            detail: format!(
                "Document {} \"{}\", SHA-256 {}",
                i + 2,
                d.original.file_name,
                d.original.sha256
            ),
        });
    }
    if let Some(t) = rec.sent_at {
        events.push(pdf::AuditEvent {
            at: fmt_time(t),
            what: "Envelope sent".into(),
            who: "Sender (API)".into(),
            detail: format!("Delivery: {}", rec.delivery.as_str()),
        });
    }
    // Corrections after sending (extensions E14): what changed, before and after where kept.
    for c in &rec.corrections {
        let detail = c
            .changes
            .iter()
            .map(|x| match (&x.before, &x.after) {
                (Some(b), Some(a)) => format!("{}: {b} -> {a}", x.what),
                _ => format!("{} changed", x.what),
            })
            .collect::<Vec<_>>()
            .join("; ");
        events.push(pdf::AuditEvent {
            at: fmt_time(c.at),
            what: "Envelope corrected".into(),
            who: "Sender (API)".into(),
            detail,
        });
    }
    let mut signers = Vec::new();
    for i in rules::signing_sequence(rec) {
        let s = &rec.signers[i];
        let who = format!("{} <{}>", s.signer.name, s.signer.email);
        let client = format!(
            "IP {}, user agent {}",
            s.ip_address.as_deref().unwrap_or("unknown"),
            s.user_agent.as_deref().unwrap_or("unknown")
        );
        let mut holder = s.signer.name.clone();
        let mut holder_email = s.signer.email.clone();
        for r in s.reassignments.iter().rev() {
            events.push(pdf::AuditEvent {
                at: fmt_time(r.at),
                // A corrected name or address (extensions E14), or a hand-over (E3).
                what: if r.corrected {
                    "Signer corrected"
                } else {
                    "Signer reassigned"
                }
                .into(),
                who: "Sender (API)".into(),
                detail: format!(
                    "Role {}: from {} <{}> to {holder} <{holder_email}>",
                    s.signer.role, r.name, r.email
                ),
            });
            holder.clone_from(&r.name);
            holder_email.clone_from(&r.email);
        }
        let kind = s.signer.kind;
        let hosted_by = s
            .signer
            .in_person
            .as_ref()
            .map(|h| format!("{} <{}>", h.host_name, h.host_email));
        if let Some(t) = s
            .sent_at
            .filter(|_| rec.delivery == crate::model::Delivery::Email)
        {
            events.push(pdf::AuditEvent {
                at: fmt_time(t),
                what: match kind {
                    SignerKind::Signer => "Signing request sent",
                    SignerKind::Approver => "Approval request sent",
                    SignerKind::Viewer => "Viewing request sent",
                }
                .into(),
                who: who.clone(),
                // An in-person signer's request goes to the host (extensions E13).
                detail: match &hosted_by {
                    Some(host) => {
                        format!("Role {}; in person: sent to the host {host}", s.signer.role)
                    }
                    None => format!("Role {}", s.signer.role),
                },
            });
        }
        events.extend(super::reach_trail::events(s, &who));
        let through = super::reach_trail::acted_through(rec, s);
        if let Some(id) = &s.identity {
            let method = id.method.describe();
            if let Some(t) = id.verified_at {
                events.push(pdf::AuditEvent {
                    at: fmt_time(t),
                    what: "Identity verified".into(),
                    who: who.clone(),
                    detail: format!("Method: {method}; {client}"),
                });
            }
            if let Some(t) = id.skipped_at {
                events.push(pdf::AuditEvent {
                    at: fmt_time(t),
                    what: "Identity not verified".into(),
                    who: who.clone(),
                    detail: format!(
                        "Method: {method}; skipped: the test helper completed the envelope"
                    ),
                });
            }
        }
        if let Some(t) = s.signer.viewed_at {
            events.push(pdf::AuditEvent {
                at: fmt_time(t),
                what: "Document viewed".into(),
                who: who.clone(),
                detail: client.clone(),
            });
        }
        if let Some(t) = s.signer.signed_at {
            // What the recipient did, and what they agreed to do electronically (extensions
            // E13): a viewer agrees to nothing, opening is all they do.
            let (what, agreed) = match kind {
                SignerKind::Signer => ("Signed", "; agreed to sign electronically"),
                SignerKind::Approver => ("Approved", "; agreed to approve electronically"),
                SignerKind::Viewer => ("Finished by viewing", ""),
            };
            let agreed = if s.consented_at.is_some() { agreed } else { "" };
            // An API-issued link on an email envelope comes first: it is what a reader must not
            // miss (extensions E8).
            let mut detail = match through {
                Some(how) => format!("{how}; {client}{agreed}"),
                None => format!("{client}{agreed}"),
            };
            if let Some(host) = &hosted_by {
                detail.push_str(&format!("; in person, hosted by {host}"));
            }
            events.push(pdf::AuditEvent {
                at: fmt_time(t),
                what: what.into(),
                who: who.clone(),
                detail,
            });
            // Each file given, with what identifies it (extensions E14).
            for (key, a) in s.values.iter().filter_map(|(k, v)| match v {
                SignerValue::Attachment(a) => Some((k, a)),
                _ => None,
            }) {
                events.push(pdf::AuditEvent {
                    at: fmt_time(t),
                    what: "File attached".into(),
                    who: who.clone(),
                    detail: format!(
                        "Field {key}: \"{}\" ({}, {} bytes), SHA-256 {}; embedded in the signed \
                         document",
                        a.file.file_name, a.content_type, a.file.size, a.file.sha256
                    ),
                });
            }
        }
        if let Some(t) = s.signer.declined_at {
            events.push(pdf::AuditEvent {
                at: fmt_time(t),
                what: "Declined".into(),
                who: who.clone(),
                detail: match through {
                    // The link matters for a decline as much as for a signature.
                    Some(how) => format!(
                        "{how}; {}",
                        s.signer
                            .decline_reason
                            .as_deref()
                            .unwrap_or("no reason given")
                    ),
                    None => s.signer.decline_reason.clone().unwrap_or_default(),
                },
            });
        }
        signers.push(pdf::AuditSigner {
            id: s.signer.id.to_string(),
            role: s.signer.role.clone(),
            name: s.signer.name.clone(),
            email: s.signer.email.clone(),
            locale: s.signer.locale.as_ref().map(|l| l.to_string()),
            ip_address: s.ip_address.clone(),
            user_agent: s.user_agent.clone(),
            created_at: fmt_time(rec.created_at),
            sent_at: s.sent_at.or(rec.sent_at).map(fmt_time),
            viewed_at: s.signer.viewed_at.map(fmt_time),
            signed_at: s.signer.signed_at.map(fmt_time),
            declined_at: s.signer.declined_at.map(fmt_time),
            completed_at: rec.completed_at.map(fmt_time),
            signature: audit_signature(rec, s),
            reach: super::reach_trail::rows(
                rec,
                s,
                s.identity
                    .as_ref()
                    .is_some_and(|id| id.skipped_at.is_some())
                    || s.user_agent.as_deref() == Some(TEST_HELPER_AGENT),
            ),
            kind: (kind != SignerKind::Signer).then_some(kind),
            hosted_by,
        });
    }
    if let Some(t) = rec.completed_at {
        events.push(pdf::AuditEvent {
            at: fmt_time(t),
            what: "Envelope completed".into(),
            who: service.into(),
            detail: if signed_files.len() > 1 {
                signed_files
                    .iter()
                    .enumerate()
                    .map(|(i, s)| format!("Signed document {} SHA-256 {}", i + 1, s.sha256))
                    .collect::<Vec<_>>()
                    .join("; ")
            } else {
                format!("Signed document SHA-256 {}", signed.sha256)
            },
        });
    }
    events.sort_by(|a, b| a.at.cmp(&b.at));
    pdf::AuditTrail {
        service_name: service.into(),
        envelope_id: rec.id.to_string(),
        envelope_name: rec.name.clone(),
        livemode: rec.mode.is_live(),
        status: rec.status.as_str().into(),
        created_at: fmt_time(rec.created_at),
        sent_at: rec.sent_at.map(fmt_time),
        completed_at: rec.completed_at.map(fmt_time),
        signers,
        cc: rec
            .cc
            .iter()
            .map(|c| (c.id.to_string(), c.name.clone(), c.email.clone()))
            .collect(),
        events,
        original_sha256: rec.original.sha256.clone(),
        signed_sha256: signed.sha256.clone(),
        documents: if signed_files.len() > 1 {
            (1..=rec.document_count())
                .zip(signed_files)
                .filter_map(|(n, s)| {
                    rec.document(n).map(|(o, _)| pdf::AuditDocument {
                        name: o.file_name.clone(),
                        original_sha256: o.sha256.clone(),
                        signed_sha256: s.sha256.clone(),
                    })
                })
                .collect()
        } else {
            Vec::new()
        },
        signing_certificate_sha256,
        seal_levels,
        generated_at: now.to_rfc3339(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> EnvelopeRecord {
        crate::rules::tests::env(EnvelopeStatus::Completed, false, 1)
    }

    #[test]
    fn records_without_levels_read_and_show_no_seal() {
        let rec = record();
        let json = serde_json::to_value(&rec).unwrap();
        assert!(json.get("seal").is_none(), "left out when none: {json}");
        let read: EnvelopeRecord = serde_json::from_value(json).unwrap();
        assert_eq!(read.seal, None);
        assert_eq!(
            serde_json::to_value(read.view()).unwrap()["seal"],
            serde_json::Value::Null
        );

        let mut sealed = record();
        sealed.seal = Some(SealRecord::new(
            SealLevel::BT,
            vec![SealLevel::BT],
            SealLevel::BB,
        ));
        let json = serde_json::to_value(&sealed).unwrap();
        let read: EnvelopeRecord = serde_json::from_value(json).unwrap();
        assert_eq!(read, sealed);
        assert_eq!(
            serde_json::to_value(read.view()).unwrap()["seal"],
            serde_json::json!({"level": "b-b", "target_level": "b-t"})
        );
    }
}
