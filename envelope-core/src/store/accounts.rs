//! Accounts and their API keys: [`AccountStore`] and [`ApiKeyStore`].

use async_trait::async_trait;

use super::*;

/// Accounts: who pays, their monthly live allowance, storage quota and daily email budgets.
///
/// # Contract
///
/// - **Allowance**: a debit ([`AllowanceDebit`], written by [`EnvelopeStore`]) increments the
///   usage of `(account, period)` only while it is below the allowance; otherwise
///   [`StoreError::InsufficientBalance`] and nothing is written. [`AccountStore::usage`] reads
///   that count.
/// - **Storage**: [`AccountStore::storage_used`] counts each blob the account's records hold
///   once, however many records hold it (see "Held blobs" on [`EnvelopeStore`]).
/// - Setters answer `false`, writing nothing, for an unknown account.
///
/// Conformance clauses: `accounts_and_keys`, `allowance`, `allowance_raced`,
/// `storage_accounting`.
#[async_trait]
pub trait AccountStore: Send + Sync + 'static {
    /// Inserts an account with its first keys, atomically.
    async fn insert_account(&self, account: &Account, keys: &[ApiKey]) -> StoreResult<()>;
    /// The account with this ID; `None` when there is none.
    async fn get_account(&self, id: &AccountId) -> StoreResult<Option<Account>>;
    /// All accounts, oldest first.
    async fn list_accounts(&self) -> StoreResult<Vec<Account>>;
    /// Sets the monthly live allowance; false when no such account.
    async fn set_allowance(&self, account: &AccountId, allowance: u32) -> StoreResult<bool>;
    /// Live signatures used by the account in the period (`YYYY-MM`).
    async fn usage(&self, account: &AccountId, period: &str) -> StoreResult<u32>;
    /// Sets (or, with `None`, removes) the account's storage quota in bytes; false when no such
    /// account.
    async fn set_storage_quota(&self, account: &AccountId, quota: Option<u64>)
    -> StoreResult<bool>;
    /// Bytes of the blobs the account's records hold (each blob once).
    async fn storage_used(&self, account: &AccountId) -> StoreResult<u64>;
    /// Sets (or, with `None`, removes) the account's own daily email budget in `mode`
    /// ([`Account::email_daily_limit`]); false when no such account.
    async fn set_email_daily_limit(
        &self,
        account: &AccountId,
        mode: Mode,
        limit: Option<u32>,
    ) -> StoreResult<bool>;
}

/// API keys, found by the SHA-256 of the secret key (the clear key is never stored).
///
/// # Contract
///
/// - Key IDs and key hashes are unique: a second insert of either is [`StoreError::Duplicate`].
/// - A revoked key stays readable (revoked), so that its requests are refused as revoked, not
///   as unknown.
///
/// Conformance clause: `accounts_and_keys`.
#[async_trait]
pub trait ApiKeyStore: AccountStore {
    /// Inserts one more key for an existing account; [`StoreError::Duplicate`] when a key with the
    /// same ID or the same hash exists already.
    async fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()>;
    /// The key with this hash, revoked or not.
    async fn api_key_by_hash(&self, hash: &str) -> StoreResult<Option<ApiKey>>;
    /// The key with this hash (revoked or not) and its account, read together: every
    /// authenticated request starts here, so a store should answer it in one query. The default
    /// makes the two reads.
    async fn api_key_with_account(&self, hash: &str) -> StoreResult<Option<(ApiKey, Account)>> {
        let Some(key) = self.api_key_by_hash(hash).await? else {
            return Ok(None);
        };
        Ok(self.get_account(&key.account).await?.map(|a| (key, a)))
    }
    /// Every key of the account, revoked or not; empty for an unknown account.
    async fn list_api_keys(&self, account: &AccountId) -> StoreResult<Vec<ApiKey>>;
    /// Marks a key revoked; false when the account has no such unrevoked key.
    async fn revoke_api_key(
        &self,
        account: &AccountId,
        key_id: &ApiKeyId,
        at: Timestamp,
    ) -> StoreResult<bool>;
}
