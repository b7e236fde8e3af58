//! The upgrade sweep (extensions E10): completed envelopes whose seals stayed below their target
//! level (a timestamp authority or revocation service was down at completion) get what is
//! missing as further incremental updates, on the retry schedule
//! ([`SealSettings::retry_schedule`](super::SealSettings)), then `envelope.seal_upgraded`.
//!
//! Across processes and restarts: the due time is in the record (`seal.upgrade_due_at`, indexed
//! by the store), and an attempt first claims the envelope with a compare-and-set write that
//! counts the attempt and moves the due time past the attempt's longest run ([`CLAIM`]). A
//! process that dies mid-attempt leaves the claim to run out; another process then tries again.
//! An attempt that fails with an error is planned on the schedule like one that gained nothing,
//! so that an error that stays (a stored file gone) ends with the schedule too.
//! The new files are stored before the record that names them; a record changed by someone else
//! meanwhile is read again and the files are put on it if it still holds the ones they grew
//! from, else they are left to the retention sweep's orphan pass.

use super::SigningService;
use super::seals::{Growing, Seals, earliest};
use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::{EnvelopeRecord, EnvelopeStatus, EventType, SealLevel, StoredFile};
use crate::store::StoreError;

/// Envelopes looked at per sweep.
const BATCH: usize = 16;

/// How long a claimed attempt holds its envelope: longer than any attempt runs (a few requests
/// with 10-second timeouts and the PDF work of a few files).
const CLAIM: chrono::Duration = chrono::Duration::minutes(10);

/// Writes of one envelope before the sweep leaves it to the next run.
const MAX_WRITES: usize = 4;

/// What one sweep did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SealSweepReport {
    /// Envelopes whose files all reached their target level.
    pub upgraded: usize,
    /// Envelopes that gained a level but are still below target (retried on the schedule).
    pub improved: usize,
    /// Envelopes that gained nothing this time (retried on the schedule, or given up when it is
    /// used up).
    pub unchanged: usize,
}

impl SealSweepReport {
    /// Envelopes attempted.
    pub fn total(&self) -> usize {
        self.upgraded + self.improved + self.unchanged
    }
}

enum Outcome {
    Upgraded,
    Improved,
    Unchanged,
    /// Not attempted: another process holds it, or there is nothing to do.
    Skipped,
    /// The claim lost to another write (an email's outcome, another process's claim).
    Raced,
}

/// What an attempt made, to put on the record.
#[derive(Default)]
struct Grown {
    /// Signed copies by document number (from 1), with their new level.
    documents: Vec<(u32, StoredFile, SealLevel)>,
    audit_trail: Option<(StoredFile, SealLevel)>,
    archive_expires_at: Option<Timestamp>,
}

impl SigningService {
    /// Tries to bring the seals of up to 16 envelopes whose upgrade is due to their target level
    /// (extensions E10). [`SigningService::maintenance`] runs it every 30 seconds (or as often
    /// as the schedule's first wait, when shorter).
    pub async fn seal_sweep(&self) -> Result<SealSweepReport> {
        let now = self.now();
        let due = self.inner.store.seal_upgrades_due(now, BATCH).await?;
        let mut report = SealSweepReport::default();
        for rec in due {
            let id = rec.id.clone();
            match self.upgrade_seal_again(rec, now).await {
                Ok(Outcome::Upgraded) => report.upgraded += 1,
                Ok(Outcome::Improved) => report.improved += 1,
                Ok(Outcome::Unchanged) => report.unchanged += 1,
                Ok(Outcome::Skipped | Outcome::Raced) => {}
                Err(e) => {
                    tracing::error!(envelope = %id, error = %e, "seal upgrade failed");
                    report.unchanged += 1;
                }
            }
        }
        Ok(report)
    }

    /// [`Self::upgrade_seal`], reading the record again after a claim that lost to another
    /// write (a few times): an unrelated write, such as an email's outcome, does not push the
    /// upgrade to the next sweep. A claim lost to another process's claim finds the envelope
    /// no longer due.
    async fn upgrade_seal_again(&self, mut rec: EnvelopeRecord, now: Timestamp) -> Result<Outcome> {
        for _ in 0..MAX_WRITES {
            match self.upgrade_seal(rec.clone(), now).await? {
                Outcome::Raced => {}
                done => return Ok(done),
            }
            match self.inner.store.get_envelope(&rec.scope(), &rec.id).await? {
                Some(current) => rec = current,
                None => return Ok(Outcome::Skipped),
            }
        }
        Ok(Outcome::Skipped)
    }

    async fn upgrade_seal(&self, rec: EnvelopeRecord, now: Timestamp) -> Result<Outcome> {
        let Some(seal) = rec.seal.clone() else {
            return Ok(Outcome::Skipped);
        };
        if seal.upgrade_due_at.is_none_or(|at| at > now) {
            return Ok(Outcome::Skipped);
        }
        let sealer = self.sealer_of(rec.mode).cloned();
        let files_here = rec.status == EnvelopeStatus::Completed
            && rec.files_deleted_at.is_none()
            && rec.audit_trail.is_some()
            && (1..=rec.document_count())
                .all(|n| rec.document(n).is_some_and(|(_, s)| s.is_some()));
        let (Some(sealer), true, true) = (sealer, files_here, seal.below_target()) else {
            // Nothing this process can do, now or later: stop asking.
            let mut next = rec.clone();
            next.version += 1;
            if let Some(s) = next.seal.as_mut() {
                s.upgrade_due_at = None;
            }
            return match self.inner.store.update_envelope(&next, &[], None).await {
                Ok(()) | Err(StoreError::Conflict) => Ok(Outcome::Skipped),
                Err(e) => Err(e.into()),
            };
        };

        // The claim: one process per attempt, and the attempt counted even if this one dies.
        let mut claimed = rec.clone();
        claimed.version += 1;
        let attempts = seal.upgrade_attempts.saturating_add(1);
        if let Some(s) = claimed.seal.as_mut() {
            s.upgrade_attempts = attempts;
            s.upgrade_due_at = Some(now + CLAIM);
        }
        match self.inner.store.update_envelope(&claimed, &[], None).await {
            Ok(()) => {}
            // Another write came first: the caller reads the record again.
            Err(StoreError::Conflict) => return Ok(Outcome::Raced),
            Err(e) => return Err(e.into()),
        }

        let revocation = self.inner.revocation.as_deref();
        let mut seals = Seals::new(sealer.as_ref(), revocation, seal.target_level, &rec.id);
        let grown = match self.grow_files(&claimed, &mut seals).await {
            Ok(grown) => grown,
            Err(e) => {
                // Else the claim's end would be the next attempt, past the schedule's end and
                // for ever. Files stored before the error are left to the orphan pass.
                self.record_upgrade(claimed, Grown::default(), attempts)
                    .await?;
                return Err(e);
            }
        };
        self.record_upgrade(claimed, grown, attempts).await
    }

    /// Extends every file below target; the files that gained a level are stored.
    async fn grow_files(&self, rec: &EnvelopeRecord, seals: &mut Seals<'_>) -> Result<Grown> {
        let mut grown = Grown::default();
        let Some(seal) = rec.seal.as_ref() else {
            return Ok(grown);
        };
        for n in 1..=rec.document_count() {
            let Some(&level) = seal.documents.get(n as usize - 1) else {
                continue;
            };
            let Some((original, Some(signed))) = rec.document(n) else {
                continue;
            };
            if !seals.extends(level) {
                continue;
            }
            let bytes = self.stored_bytes(signed).await?;
            let what = format!("document {n}");
            let file = seals
                .extend(self, Growing::stored(bytes, level), &what)
                .await?;
            grown.archive_expires_at = earliest(grown.archive_expires_at, file.archive_expires_at);
            if file.level == level {
                continue;
            }
            let level = file.level;
            let stored = self
                .store_grown(&signed.file_name, Some(original), file)
                .await?;
            grown.documents.push((n, stored, level));
        }
        if let Some(audit) = rec.audit_trail.as_ref()
            && seals.extends(seal.audit_trail)
        {
            let bytes = self.stored_bytes(audit).await?;
            let file = seals
                .extend(
                    self,
                    Growing::stored(bytes, seal.audit_trail),
                    "audit trail",
                )
                .await?;
            grown.archive_expires_at = earliest(grown.archive_expires_at, file.archive_expires_at);
            if file.level > seal.audit_trail {
                let level = file.level;
                let stored = self.store_grown(&audit.file_name, None, file).await?;
                grown.audit_trail = Some((stored, level));
            }
        }
        Ok(grown)
    }

    /// Puts the grown files on the record and plans the next attempt; `envelope.seal_upgraded`
    /// when a level was gained.
    async fn record_upgrade(
        &self,
        mut rec: EnvelopeRecord,
        grown: Grown,
        attempts: u32,
    ) -> Result<Outcome> {
        for _ in 0..MAX_WRITES {
            let Some(before) = rec.seal.clone() else {
                return Ok(Outcome::Skipped);
            };
            let mut next = rec.clone();
            next.version += 1;
            let mut gained = false;
            for (n, file, level) in &grown.documents {
                let slot = match n {
                    1 => next.signed.as_mut(),
                    n => next
                        .more_documents
                        .get_mut(*n as usize - 2)
                        .and_then(|d| d.signed.as_mut()),
                };
                if let Some(slot) = slot {
                    *slot = file.clone();
                    if let Some(l) = next
                        .seal
                        .as_mut()
                        .and_then(|s| s.documents.get_mut(*n as usize - 1))
                    {
                        *l = *level;
                    }
                    gained = true;
                }
            }
            if let Some((file, level)) = &grown.audit_trail {
                next.audit_trail = Some(file.clone());
                if let Some(s) = next.seal.as_mut() {
                    s.audit_trail = *level;
                }
                gained = true;
            }
            let now = self.now();
            let upgrade_due = self.seal_upgrade_due(attempts, now);
            let Some(seal) = next.seal.as_mut() else {
                return Ok(Outcome::Skipped);
            };
            if seal.level() == SealLevel::BLta {
                seal.archive_expires_at =
                    earliest(before.archive_expires_at, grown.archive_expires_at);
            }
            let below = seal.below_target();
            seal.upgrade_due_at = if below { upgrade_due } else { None };
            if below && upgrade_due.is_none() {
                tracing::error!(
                    envelope = %next.id,
                    level = seal.level().as_str(),
                    target = seal.target_level.as_str(),
                    attempts,
                    "seal upgrade schedule used up: the envelope stays below its target level"
                );
            }
            let outcome = match (gained, below) {
                (true, false) => Outcome::Upgraded,
                (true, true) => Outcome::Improved,
                (false, _) => Outcome::Unchanged,
            };
            let events = if gained {
                vec![super::events::record(
                    &next,
                    EventType::SealUpgraded,
                    None,
                    now,
                )]
            } else {
                Vec::new()
            };
            match self.inner.store.update_envelope(&next, &events, None).await {
                Ok(()) => {
                    if gained {
                        metrics::counter!("envelope_seal_upgrades_total").increment(1);
                    }
                    return Ok(outcome);
                }
                Err(StoreError::Conflict) => {
                    // Changed meanwhile: the files are put on it only if it still holds the
                    // ones they grew from.
                    let Some(current) =
                        self.inner.store.get_envelope(&rec.scope(), &rec.id).await?
                    else {
                        return Ok(Outcome::Skipped);
                    };
                    if !same_files(&current, &rec) {
                        return Ok(Outcome::Skipped);
                    }
                    rec = current;
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(Outcome::Skipped)
    }
}

/// Whether two versions of a record hold the same signed copies and audit trail, at the same
/// levels.
fn same_files(a: &EnvelopeRecord, b: &EnvelopeRecord) -> bool {
    let signed = |r: &EnvelopeRecord| {
        (1..=r.document_count())
            .map(|n| r.document(n).and_then(|(_, s)| s.map(|s| s.blob.clone())))
            .collect::<Vec<_>>()
    };
    let levels = |r: &EnvelopeRecord| {
        r.seal
            .as_ref()
            .map(|s| (s.documents.clone(), s.audit_trail))
    };
    a.files_deleted_at.is_none()
        && signed(a) == signed(b)
        && a.audit_trail.as_ref().map(|f| &f.blob) == b.audit_trail.as_ref().map(|f| &f.blob)
        && levels(a) == levels(b)
}
