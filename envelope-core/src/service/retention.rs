//! Retention and storage quotas: the sweep that deletes test data after
//! [`Retention::test_days`], the PDFs of finished live envelopes after [`Retention::live_days`],
//! and blobs no record holds; and the quota check of the two creates.
//!
//! Records go first, in batches of [`BATCH`] that are each one short store transaction; the
//! blobs they released go after (a crash in between leaves unreferenced blobs, which the orphan
//! part of the next sweep deletes). Which records are stale is the store's indexed query on
//! their last change; what live retention changes in a record is [`rules::delete_files`].
//! Time comes from the service's clock only.

use std::sync::Mutex;

use chrono::Duration;

use super::{AuthContext, SigningService};
use crate::error::{Error, Result};
use crate::model::{EnvelopeRecord, Mode};
use crate::rules;
use crate::store::StoreError;

/// Records per store transaction.
const BATCH: usize = 100;
/// Batches of one kind per sweep at most: a backlog larger than this (a first sweep over years
/// of data) is worked off over several sweeps, and each sweep ends in bounded time.
const MAX_BATCHES: usize = 100;
/// Blobs the orphan part of one sweep looks at; the next sweep goes on from there.
const ORPHAN_SCAN: usize = 10_000;
/// Blobs per page of that scan.
const ORPHAN_PAGE: usize = 500;

/// How long data is kept (part of [`super::Settings`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retention {
    /// Test-mode envelopes and templates (and their files) are deleted this many days after
    /// their last change; `None` keeps them.
    pub test_days: Option<u32>,
    /// The PDFs of completed and voided live envelopes are deleted this many days after their
    /// last change (the record and events stay); `None` (the default) keeps them.
    pub live_days: Option<u32>,
    /// A blob no record holds is deleted once it is this old: younger ones may be uploads whose
    /// record is still being written (blobs are stored before their records).
    pub orphan_grace: Duration,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            test_days: Some(30),
            live_days: None,
            orphan_grace: Duration::hours(1),
        }
    }
}

/// What one [`SigningService::retention_sweep`] deleted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RetentionReport {
    /// Test-mode envelopes, with their events, deliveries and links.
    pub test_envelopes: usize,
    /// Test-mode templates, with their documents.
    pub test_templates: usize,
    /// Live envelopes whose PDFs were deleted (records kept).
    pub live_envelopes: usize,
    /// Blobs that those records released.
    pub blobs: usize,
    /// Blobs no record held, past the grace period.
    pub orphan_blobs: usize,
    /// Copies of sent emails that the mailer kept (the file mailer's `.eml` files), past the
    /// retention of their mode.
    pub emails: usize,
}

impl RetentionReport {
    /// Everything the sweep removed: envelopes, templates, orphan blobs and kept emails (the
    /// `blobs` released by live envelopes are not counted again).
    pub fn total(&self) -> usize {
        self.test_envelopes
            + self.test_templates
            + self.live_envelopes
            + self.orphan_blobs
            + self.emails
    }
}

/// Where the orphan scan goes on (the last key it looked at).
#[derive(Debug, Default)]
pub(crate) struct OrphanCursor(Mutex<Option<String>>);

impl OrphanCursor {
    fn get(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
    fn set(&self, to: Option<String>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = to;
    }
}

impl SigningService {
    /// Deletes what the retention settings say has been kept long enough, in every account:
    /// stale test envelopes and templates, the PDFs of stale finished live envelopes, and blobs
    /// no record holds. For a background task (`serve` runs it at start and every 10 minutes);
    /// safe to run from several processes at once.
    pub async fn retention_sweep(&self) -> Result<RetentionReport> {
        let now = self.now();
        let settings = &self.inner.settings.retention;
        let mut report = RetentionReport::default();
        if let Some(days) = settings.test_days {
            let before = now - Duration::days(i64::from(days));
            let store = &self.inner.store;
            for _ in 0..MAX_BATCHES {
                let removed = store
                    .delete_stale_envelopes(Mode::Test, before, BATCH)
                    .await?;
                report.test_envelopes += removed.records;
                report.blobs += self.delete_blobs(&removed.blobs).await?;
                if removed.records < BATCH {
                    break;
                }
            }
            for _ in 0..MAX_BATCHES {
                let removed = store
                    .delete_stale_templates(Mode::Test, before, BATCH)
                    .await?;
                report.test_templates += removed.records;
                report.blobs += self.delete_blobs(&removed.blobs).await?;
                if removed.records < BATCH {
                    break;
                }
            }
        }
        if let Some(days) = settings.live_days {
            let before = now - Duration::days(i64::from(days));
            for _ in 0..MAX_BATCHES {
                let due = self
                    .inner
                    .store
                    .envelopes_with_files(Mode::Live, before, BATCH)
                    .await?;
                let mut done = 0;
                for rec in &due {
                    if let Some(freed) = self.delete_live_files(rec, before).await? {
                        done += 1;
                        report.blobs += freed;
                    }
                }
                report.live_envelopes += done;
                // A short batch is the end; one that changed nothing (every record raced)
                // is left to the next sweep rather than read again at once.
                if due.len() < BATCH || done == 0 {
                    break;
                }
            }
        }
        report.orphan_blobs = self.sweep_orphans(now - settings.orphan_grace).await?;
        for (mode, days) in [
            (Mode::Test, settings.test_days),
            (Mode::Live, settings.live_days),
        ] {
            if let Some(days) = days {
                report.emails += self
                    .forget_emails(mode, now - Duration::days(i64::from(days)))
                    .await;
            }
        }
        Ok(report)
    }

    /// Has the mailer delete the copies it keeps of emails of `mode` sent before `before`. A
    /// failure (an unreadable mail directory) is logged and left to the next sweep: it must not
    /// stop the retention of records.
    async fn forget_emails(&self, mode: Mode, before: crate::clock::Timestamp) -> usize {
        match self.inner.mailer.forget_before(mode, before).await {
            Ok(n) => n,
            Err(e) => {
                tracing::warn!(mode = mode.as_str(), error = %e, "retention: kept emails not deleted");
                0
            }
        }
    }

    /// Live retention of one envelope: the record keeps everything but its files and the
    /// personal data that [`EnvelopeRecord::erase_personal_data`] clears (in the same write,
    /// with the envelope's stored events); then the blobs no record holds any more are deleted. `None` when another writer changed the
    /// envelope first (the next sweep sees it again if it is still due).
    async fn delete_live_files(
        &self,
        rec: &EnvelopeRecord,
        before: crate::clock::Timestamp,
    ) -> Result<Option<usize>> {
        let mut next = rec.clone();
        if !rules::delete_files(&mut next, before, self.now()) {
            return Ok(None);
        }
        next.erase_personal_data();
        next.version += 1;
        match self.inner.store.erase_envelope(&next).await {
            Ok(()) => {}
            Err(StoreError::Conflict) => return Ok(None),
            Err(e) => return Err(e.into()),
        }
        let keys: Vec<String> = rec.held_files().iter().map(|f| f.blob.clone()).collect();
        let unheld = self.inner.store.unheld_blobs(&keys).await?;
        Ok(Some(self.delete_blobs(&unheld).await?))
    }

    /// Deletes blobs that no record holds; returns how many were there.
    async fn delete_blobs(&self, keys: &[String]) -> Result<usize> {
        let mut n = 0;
        for key in keys {
            if self.inner.blobs.delete(key).await? {
                n += 1;
            }
        }
        Ok(n)
    }

    /// Looks at up to [`ORPHAN_SCAN`] blobs from where the last sweep stopped and deletes those
    /// stored before `stored_before` that no record holds. Blobs whose store time is unknown
    /// are kept.
    async fn sweep_orphans(&self, stored_before: crate::clock::Timestamp) -> Result<usize> {
        let cursor = &self.inner.orphan_cursor;
        let mut after = cursor.get();
        let mut seen = 0;
        let mut deleted = 0;
        while seen < ORPHAN_SCAN {
            let page = self.inner.blobs.list(after.as_deref(), ORPHAN_PAGE).await?;
            seen += page.len();
            let old: Vec<String> = page
                .iter()
                .filter(|b| b.stored_at.is_some_and(|t| t < stored_before))
                .map(|b| b.key.clone())
                .collect();
            if !old.is_empty() {
                let unheld = self.inner.store.unheld_blobs(&old).await?;
                deleted += self.delete_blobs(&unheld).await?;
            }
            if page.len() < ORPHAN_PAGE {
                after = None; // the end: the next sweep starts over
                break;
            }
            after = page.last().map(|b| b.key.clone());
        }
        cursor.set(after);
        Ok(deleted)
    }

    /// Refuses a create that would take the account past its storage quota with `needed` more
    /// bytes (0 for an envelope made from a template, whose file the template holds). The store
    /// checks again atomically with the write.
    pub(crate) async fn check_storage(&self, ctx: &AuthContext, needed: u64) -> Result<()> {
        let Some(quota) = ctx.account.storage_quota else {
            return Ok(());
        };
        let used = self.inner.store.storage_used(&ctx.account.id).await?;
        if used.saturating_add(needed) > quota {
            return Err(Error::StorageQuotaExceeded {
                quota_bytes: quota,
                used_bytes: used,
                needed_bytes: needed,
            });
        }
        Ok(())
    }

    /// The error for a create the store refused for the quota (a concurrent create took the
    /// room between [`SigningService::check_storage`] and the write), with fresh figures.
    pub(crate) async fn storage_refusal(&self, ctx: &AuthContext, needed: u64) -> Error {
        self.storage_refusal_of(&ctx.account.id, needed).await
    }

    /// [`SigningService::storage_refusal`] for the account `account`.
    pub(crate) async fn storage_refusal_of(
        &self,
        account: &crate::ids::AccountId,
        needed: u64,
    ) -> Error {
        let account_id = account;
        let account = self.inner.store.get_account(account_id).await;
        let used = self.inner.store.storage_used(account_id).await;
        match (account, used) {
            (Ok(Some(a)), Ok(used)) => Error::StorageQuotaExceeded {
                quota_bytes: a.storage_quota.unwrap_or(0),
                used_bytes: used,
                needed_bytes: needed,
            },
            (Err(e), _) | (_, Err(e)) => e.into(),
            (Ok(None), _) => Error::Internal("account vanished".into()),
        }
    }
}
