//! Upkeep and retention: [`RetentionStore`].

use async_trait::async_trait;

use super::*;

/// Upkeep: purging what can no longer be used, and deleting or emptying old records.
///
/// # Contract
///
/// - [`RetentionStore::purge_expired`] deletes bounded batches of expired links and idempotency
///   records, never a record.
/// - [`RetentionStore::delete_stale_envelopes`] and [`RetentionStore::delete_stale_templates`]
///   delete a bounded batch of records whose last change is older than a cutoff, each record
///   with everything that belongs to it, and report the blobs no record holds any more; an
///   envelope changed concurrently is either deleted before the change or kept.
/// - [`RetentionStore::unheld_blobs`] answers whether any record still holds a blob.
///
/// Conformance clauses: `purge_expired`, `retention_deletes`, `retention_raced`,
/// `envelopes_with_files`, `storage_accounting`.
#[async_trait]
pub trait RetentionStore: Send + Sync + 'static {
    /// Deletes up to `limit` rows of each kind that [`PurgeBefore`] names, in every scope, and
    /// says how many went; call again while it returns `limit` of a kind. Records are deleted
    /// only by the retention methods below.
    async fn purge_expired(&self, before: &PurgeBefore, limit: usize) -> StoreResult<Purged>;
    /// Deletes up to `limit` envelopes of `mode`, in every account, whose
    /// [`EnvelopeRecord::last_change`] is before `before`, oldest first, in one short
    /// transaction: each with its events, their webhook deliveries and attempts, its signing
    /// links, and the file links of the blobs it released. Reports the blobs no record holds
    /// any more. An envelope changed concurrently is either deleted before the change (which
    /// then fails with `Conflict`) or kept.
    async fn delete_stale_envelopes(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Removed>;
    /// The same for templates of `mode` whose `updated_at` is before `before` (their file is
    /// released; envelopes made from them keep it held).
    async fn delete_stale_templates(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Removed>;
    /// Completed or voided envelopes of `mode`, in every account, that still hold their files
    /// and whose last change is before `before`, oldest first: live retention's work.
    async fn envelopes_with_files(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>>;
    /// Which of `keys` no record holds.
    async fn unheld_blobs(&self, keys: &[String]) -> StoreResult<Vec<String>>;
}

/// What [`RetentionStore::purge_expired`] may delete: rows that can no longer be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PurgeBefore {
    /// Finished idempotency records whose replay window ended before this, and claims started
    /// before this that never finished.
    pub idempotency: Timestamp,
    /// Signing, download and builder links that expired before this.
    pub links: Timestamp,
}

/// How many rows [`RetentionStore::purge_expired`] deleted, by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Purged {
    /// Idempotency records deleted: finished ones past their replay window and abandoned claims.
    pub idempotency_keys: usize,
    /// Expired signing links deleted.
    pub signing_tokens: usize,
    /// Expired download links deleted.
    pub file_links: usize,
    /// Expired builder links deleted (extensions E11).
    pub builder_tokens: usize,
}

impl Purged {
    /// Rows deleted, of every kind together.
    pub fn total(&self) -> usize {
        self.idempotency_keys + self.signing_tokens + self.file_links + self.builder_tokens
    }
}

/// What one batch of [`RetentionStore::delete_stale_envelopes`] or [`RetentionStore::delete_stale_templates`]
/// deleted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Removed {
    /// Records deleted (with what belongs to them).
    pub records: usize,
    /// Blobs that no record holds any more: the caller deletes them from the [`BlobStore`].
    pub blobs: Vec<String>,
}
