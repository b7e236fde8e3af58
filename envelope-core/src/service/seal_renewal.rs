//! Renewal of archive timestamps (extensions E10): a B-LTA file stays verifiable while its newest
//! document timestamp does, that is until the certificates of that timestamp's authority expire.
//! Before then, [`SigningService::renew_seals`] adds the revocation material of that timestamp to
//! the DSS and a new document timestamp over everything (`envelope-server seals renew`).
//!
//! Safe from cron on any server of a shared database: the envelopes come from the store's index
//! on `seal.archive_expires_at`, each is written with a compare-and-set on its version (a second
//! renewal of the same envelope at the same moment loses the race and leaves its files to the
//! retention sweep's orphan pass), and new files are stored before the record names them. A
//! renewal that would not move the expiry later (the authority still signs with the certificate
//! that is about to expire) is refused for that envelope, so a cron job never piles timestamps
//! onto a file for nothing.

use std::sync::Arc;

use super::SigningService;
use super::seals::{Growing, Seals, earliest};
use crate::clock::Timestamp;
use crate::error::Result;
use crate::ids::EnvelopeId;
use crate::model::{EnvelopeRecord, EnvelopeStatus, SealLevel, StoredFile};
use crate::seal::TimestampAuthority;
use crate::store::StoreError;

/// Envelopes read per page of the store's answer.
const PAGE: usize = 32;

/// What one renewal run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RenewalReport {
    /// Envelopes whose B-LTA files got a new document timestamp.
    pub renewed: usize,
    /// Envelopes that could not be renewed now: a timestamp authority or revocation service was
    /// down, the authority's certificate would expire no later than the one it replaces, or no
    /// authority is configured for their mode. The log says which; a later run tries again.
    pub not_renewed: usize,
    /// Envelopes another writer changed while they were renewed, or whose files are gone.
    pub skipped: usize,
}

impl SigningService {
    /// Renews every B-LTA envelope whose newest document timestamp stops being verifiable on its
    /// own at or before `before` (`seal.archive_expires_at`): each file's DSS gains the material
    /// of that timestamp, and a new document timestamp from `tsa` (or, when `None`, the
    /// authority of the sealer of the envelope's mode) covers it. Every earlier version of a
    /// file stays a byte prefix of the new one.
    pub async fn renew_seals(
        &self,
        before: Timestamp,
        tsa: Option<Arc<dyn TimestampAuthority>>,
    ) -> Result<RenewalReport> {
        let mut report = RenewalReport::default();
        let mut after: Option<(Timestamp, EnvelopeId)> = None;
        loop {
            let page = self
                .inner
                .store
                .seals_expiring(before, after.clone(), PAGE)
                .await?;
            let Some(last) = page.last() else {
                break;
            };
            after = last
                .seal
                .as_ref()
                .and_then(|s| s.archive_expires_at)
                .map(|at| (at, last.id.clone()));
            let full = page.len() == PAGE;
            for rec in page {
                let id = rec.id.clone();
                match self.renew_envelope(rec, before, tsa.clone()).await {
                    Ok(Renewed::Yes) => report.renewed += 1,
                    Ok(Renewed::No) => report.not_renewed += 1,
                    Ok(Renewed::Skipped) => report.skipped += 1,
                    Err(e) => {
                        tracing::error!(envelope = %id, error = %e, "seal renewal failed");
                        report.not_renewed += 1;
                    }
                }
            }
            if !full || after.is_none() {
                break;
            }
        }
        Ok(report)
    }

    async fn renew_envelope(
        &self,
        rec: EnvelopeRecord,
        before: Timestamp,
        tsa: Option<Arc<dyn TimestampAuthority>>,
    ) -> Result<Renewed> {
        let Some(seal) = rec.seal.clone() else {
            return Ok(Renewed::Skipped);
        };
        let Some(expires) = seal.archive_expires_at.filter(|at| *at <= before) else {
            return Ok(Renewed::Skipped);
        };
        if rec.status != EnvelopeStatus::Completed
            || rec.files_deleted_at.is_some()
            || seal.level() < SealLevel::BLta
        {
            return Ok(Renewed::Skipped);
        }
        let tsa = tsa.or_else(|| {
            self.sealer_of(rec.mode)
                .and_then(|s| s.timestamp_authority())
        });
        let Some(tsa) = tsa else {
            tracing::error!(
                envelope = %rec.id,
                mode = rec.mode.as_str(),
                "no timestamp authority to renew this envelope's seals with"
            );
            return Ok(Renewed::No);
        };
        let revocation = self.inner.revocation.as_deref();
        let mut seals = Seals::renewing(tsa, revocation, &rec.id);

        let mut files: Vec<(FileSlot, StoredFile)> = Vec::new();
        let mut new_expiry: Option<Timestamp> = None;
        let mut slots: Vec<(FileSlot, StoredFile, Option<StoredFile>)> = Vec::new();
        for n in 1..=rec.document_count() {
            if let Some((original, Some(signed))) = rec.document(n) {
                slots.push((
                    FileSlot::Document(n),
                    signed.clone(),
                    Some(original.clone()),
                ));
            }
        }
        if let Some(audit) = &rec.audit_trail {
            slots.push((FileSlot::AuditTrail, audit.clone(), None));
        }
        for (slot, file, original) in slots {
            let bytes = self.stored_bytes(&file).await?;
            let what = slot.describe();
            let Some(grown) = seals
                .renew(self, Growing::stored(bytes, SealLevel::BLta), &what)
                .await?
            else {
                return Ok(Renewed::No);
            };
            if grown.archive_expires_at.is_none_or(|at| at <= expires) {
                tracing::error!(
                    envelope = %rec.id,
                    expires = %expires,
                    "not renewed: the timestamp authority's certificate expires no later than \
                     the one it would replace (renew the authority's certificate first)"
                );
                return Ok(Renewed::No);
            }
            new_expiry = earliest(new_expiry, grown.archive_expires_at);
            let stored = self
                .store_grown(&file.file_name, original.as_ref(), grown)
                .await?;
            files.push((slot, stored));
        }

        let mut next = rec.clone();
        next.version += 1;
        for (slot, stored) in files {
            match slot {
                FileSlot::Document(1) => next.signed = Some(stored),
                FileSlot::Document(n) => {
                    if let Some(d) = next.more_documents.get_mut(n as usize - 2) {
                        d.signed = Some(stored);
                    }
                }
                FileSlot::AuditTrail => next.audit_trail = Some(stored),
            }
        }
        if let Some(s) = next.seal.as_mut() {
            s.archive_expires_at = new_expiry;
        }
        match self.inner.store.update_envelope(&next, &[], None).await {
            Ok(()) => {
                metrics::counter!("envelope_seal_renewals_total").increment(1);
                Ok(Renewed::Yes)
            }
            Err(StoreError::Conflict) => Ok(Renewed::Skipped),
            Err(e) => Err(e.into()),
        }
    }
}

enum Renewed {
    Yes,
    No,
    Skipped,
}

/// Which of an envelope's files.
#[derive(Debug, Clone, Copy)]
enum FileSlot {
    /// Document `n`'s signed copy (from 1).
    Document(u32),
    AuditTrail,
}

impl FileSlot {
    fn describe(self) -> String {
        match self {
            FileSlot::Document(n) => format!("document {n}"),
            FileSlot::AuditTrail => "audit trail".into(),
        }
    }
}
