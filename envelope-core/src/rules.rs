//! The envelope and signer state machines, as plain functions over records.
//!
//! Nothing here does I/O or reads the clock: callers pass `now`. Every transition of interface.md
//! section 3 and decisions.md ("Envelopes") is one function, and each refusal is the error the API
//! shows.

pub mod identity;

use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::model::{Delivery, EnvelopeRecord, EnvelopeStatus, SignerStatus};

/// The default void reason of decisions.md.
pub const DEFAULT_VOID_REASON: &str = "This envelope was voided via the API.";
/// The void reason of an expired envelope.
pub const EXPIRED_REASON: &str = "expired";

/// Draft -> sent. Only drafts can be sent.
pub fn send(env: &mut EnvelopeRecord, now: Timestamp) -> Result<()> {
    if env.status != EnvelopeStatus::Draft {
        return Err(Error::state(format!(
            "Only draft envelopes can be sent; this one is {}.",
            env.status.as_str()
        )));
    }
    env.status = EnvelopeStatus::Sent;
    env.sent_at = Some(now);
    env.expires_at = env
        .expires_in_days
        .map(|d| now + chrono::Duration::days(i64::from(d)));
    Ok(())
}

/// Draft or sent -> voided. Completed envelopes refuse; voided ones are already void.
pub fn void(env: &mut EnvelopeRecord, reason: &str, now: Timestamp) -> Result<()> {
    match env.status {
        EnvelopeStatus::Completed => Err(Error::EnvelopeCompleted),
        EnvelopeStatus::Voided => Err(Error::state("The envelope is already voided.")),
        EnvelopeStatus::Draft | EnvelopeStatus::Sent => {
            env.status = EnvelopeStatus::Voided;
            env.voided_at = Some(now);
            env.void_reason = Some(reason.to_string());
            Ok(())
        }
    }
}

/// True when the envelope is past its expiry and still open (it must be voided as expired).
pub fn is_expired(env: &EnvelopeRecord, now: Timestamp) -> bool {
    is_expired_at(env.status, env.expires_at, now)
}

/// [`is_expired`] of an envelope with this status and expiry.
pub fn is_expired_at(
    status: EnvelopeStatus,
    expires_at: Option<Timestamp>,
    now: Timestamp,
) -> bool {
    matches!(status, EnvelopeStatus::Draft | EnvelopeStatus::Sent)
        && expires_at.is_some_and(|t| t <= now)
}

/// Indices of the signers who can act now, in signing order.
///
/// With `signing_order`, the signers of the current step: those who share the lowest `order`
/// among the signers who have not completed (extensions E13: a step of one signer is the seed's
/// "one after another"), less any who declined; the next step starts when every signer of this
/// one has completed. Without, every signer who has not completed or declined. Nobody can act
/// unless the envelope is `sent` and not expired.
pub fn actionable(env: &EnvelopeRecord, now: Timestamp) -> Vec<usize> {
    if env.status != EnvelopeStatus::Sent || is_expired(env, now) {
        return Vec::new();
    }
    let by_order = signing_sequence(env);
    if env.signing_order {
        let signer = |i: usize| &env.signers[i].signer;
        let Some(step) = by_order
            .iter()
            .find(|&&i| signer(i).status != SignerStatus::Completed)
            .map(|&i| signer(i).order)
        else {
            return Vec::new();
        };
        by_order
            .into_iter()
            .filter(|&i| signer(i).order == step && !signer(i).status.is_done())
            .collect()
    } else {
        by_order
            .into_iter()
            .filter(|&i| !env.signers[i].signer.status.is_done())
            .collect()
    }
}

/// Marks the signers whose turn it now is and who have not been asked yet (`sent_at`); returns
/// those to email (email delivery) so the caller emails them after the write commits.
pub fn mark_turns(rec: &mut EnvelopeRecord, now: Timestamp) -> Vec<usize> {
    let turn = actionable(rec, now);
    let mut out = Vec::new();
    for i in turn {
        if rec.signers[i].sent_at.is_none() {
            rec.signers[i].sent_at = Some(now);
            if rec.delivery == Delivery::Email {
                out.push(i);
            }
        }
    }
    out
}

/// Signer indices sorted by `order` (stable: ties keep list order).
pub fn signing_sequence(env: &EnvelopeRecord) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..env.signers.len()).collect();
    idx.sort_by_key(|&i| env.signers[i].signer.order);
    idx
}

/// Why signer `i` cannot act now, or `None` when it can.
pub fn not_actionable_reason(
    env: &EnvelopeRecord,
    i: usize,
    now: Timestamp,
) -> Option<&'static str> {
    match env.signers[i].signer.status {
        SignerStatus::Completed => return Some("the signer has already signed"),
        SignerStatus::Declined => return Some("the signer has declined"),
        _ => {}
    }
    if actionable(env, now).contains(&i) {
        None
    } else {
        Some("it is not this signer's turn")
    }
}

/// Pending -> viewed (once). Returns true when the status changed.
pub fn view(env: &mut EnvelopeRecord, i: usize, now: Timestamp) -> Result<bool> {
    if let Some(reason) = not_actionable_reason(env, i, now) {
        return Err(Error::SignerNotActionable {
            signer: env.signers[i].signer.id.to_string(),
            reason,
        });
    }
    let s = &mut env.signers[i].signer;
    if s.status == SignerStatus::Pending {
        s.status = SignerStatus::Viewed;
        s.viewed_at = Some(now);
        return Ok(true);
    }
    Ok(false)
}

/// Pending|viewed -> completed. Returns true when this was the last signer (the envelope is now
/// ready to be completed with [`complete`]).
pub fn sign(env: &mut EnvelopeRecord, i: usize, now: Timestamp) -> Result<bool> {
    if let Some(reason) = not_actionable_reason(env, i, now) {
        return Err(Error::SignerNotActionable {
            signer: env.signers[i].signer.id.to_string(),
            reason,
        });
    }
    let s = &mut env.signers[i].signer;
    s.status = SignerStatus::Completed;
    s.signed_at = Some(now);
    Ok(env
        .signers
        .iter()
        .all(|s| s.signer.status == SignerStatus::Completed))
}

/// Pending|viewed -> declined; the envelope is voided with `declined by <role>: <reason>`.
pub fn decline(
    env: &mut EnvelopeRecord,
    i: usize,
    reason: Option<&str>,
    now: Timestamp,
) -> Result<()> {
    if let Some(why) = not_actionable_reason(env, i, now) {
        return Err(Error::SignerNotActionable {
            signer: env.signers[i].signer.id.to_string(),
            reason: why,
        });
    }
    let s = &mut env.signers[i].signer;
    s.status = SignerStatus::Declined;
    s.declined_at = Some(now);
    s.decline_reason = reason.map(str::to_string);
    let text = crate::model::declined_reason(&s.role, reason);
    void(env, &text, now)
}

/// How often one signer's place can be handed on: each hand-over stays in the record and the
/// audit trail, so a key looping on `reassign` must not grow them without bound.
pub const MAX_REASSIGNMENTS: usize = 10;

/// Hands signer `i`'s place to someone else (extensions E3): on a draft or sent envelope, to a
/// signer who has neither signed nor declined. The signer keeps its ID, role and order; what the
/// previous person did (viewing, the client, the link's sending) is reset and the previous
/// person is recorded. Links issued before `now` stop working (`service/signing.rs`). The
/// identity check becomes `identity` (extensions E2), with nothing verified.
pub fn reassign(
    env: &mut EnvelopeRecord,
    i: usize,
    name: &str,
    email: &str,
    identity: Option<crate::model::IdentityRecord>,
    locale: Option<&crate::i18n::Locale>,
    now: Timestamp,
) -> Result<()> {
    if !matches!(env.status, EnvelopeStatus::Draft | EnvelopeStatus::Sent) {
        return Err(Error::state(format!(
            "Only draft or sent envelopes can have a signer reassigned; this one is {}.",
            env.status.as_str()
        )));
    }
    let s = &mut env.signers[i];
    if s.reassignments.len() >= MAX_REASSIGNMENTS {
        return Err(Error::state(format!(
            "Signer {} has been reassigned {MAX_REASSIGNMENTS} times, the most one signer can be.",
            s.signer.id
        )));
    }
    if s.signer.status.is_done() {
        return Err(Error::state(format!(
            "Signer {} has {} and cannot be reassigned.",
            s.signer.id,
            s.signer.status.as_str()
        )));
    }
    s.reassignments.push(crate::model::Reassignment {
        at: now,
        name: std::mem::replace(&mut s.signer.name, name.to_string()),
        email: std::mem::replace(&mut s.signer.email, email.to_string()),
        corrected: false,
    });
    s.signer.locale = locale.cloned();
    s.signer.status = SignerStatus::Pending;
    s.signer.viewed_at = None;
    s.sent_at = None;
    s.last_reminded_at = None;
    s.consented_at = None;
    s.ip_address = None;
    s.user_agent = None;
    s.values.clear();
    // The new person's own check (or none): codes, attempts, locks and grants were the
    // previous person's. A lock ends with it, and the audit trail says so (extensions E8).
    if s.identity
        .as_ref()
        .is_some_and(|id| crate::rules::identity::lock(id, now).is_some())
    {
        let entry = crate::model::LockEntry::Unlocked {
            at: now,
            reassigned: true,
        };
        crate::model::reach::record_lock(&mut s.locks, &mut s.locks_not_kept, entry);
    }
    s.identity = identity;
    Ok(())
}

/// Sent -> completed, once every signer has signed.
pub fn complete(env: &mut EnvelopeRecord, now: Timestamp) -> Result<()> {
    if env.status != EnvelopeStatus::Sent {
        return Err(Error::state(format!(
            "Only sent envelopes can be completed; this one is {}.",
            env.status.as_str()
        )));
    }
    if !env
        .signers
        .iter()
        .all(|s| s.signer.status == SignerStatus::Completed)
    {
        return Err(Error::state("Not every signer has signed."));
    }
    env.status = EnvelopeStatus::Completed;
    env.completed_at = Some(now);
    Ok(())
}

/// Live retention: a completed or voided envelope whose last change is before `before` and
/// that still has its files loses them (`files_deleted_at = now`); the rest of the record
/// stays. False, changing nothing, for any other envelope.
pub fn delete_files(env: &mut EnvelopeRecord, before: Timestamp, now: Timestamp) -> bool {
    let finished = matches!(
        env.status,
        EnvelopeStatus::Completed | EnvelopeStatus::Voided
    );
    if !finished || env.files_deleted_at.is_some() || env.last_change() >= before {
        return false;
    }
    env.files_deleted_at = Some(now);
    // No file left to upgrade or renew.
    if let Some(seal) = env.seal.as_mut() {
        seal.upgrade_due_at = None;
        seal.archive_expires_at = None;
    }
    // A kept SHA-256 state ends with up to 63 bytes of the file itself: it goes with the file.
    env.original.sha256_state = None;
    for d in &mut env.more_documents {
        d.original.sha256_state = None;
    }
    true
}

#[cfg(test)]
pub(crate) mod tests;
