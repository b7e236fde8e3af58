//! Accounts, API keys and allowance usage.
//!
//! `accounts.monthly_allowance`, `accounts.storage_quota`, the accounts' daily email budgets and
//! `api_keys.revoked_at` change in place, so they are columns that win over the copy in the JSON
//! document: a single conditional `UPDATE` changes them, without a read-modify-write of the
//! document. The bytes an account stores are `storage_usage` (kept by `held.rs`); the emails it
//! sent per mode and day are `email_usage`.

use async_trait::async_trait;

use super::{
    SqlStore, db_err, decode, encode, from_millis, millis, point_read, with_pool, with_tx,
    with_write,
};
use crate::clock::Timestamp;
use crate::ids::{AccountId, ApiKeyId};
use crate::model::{Account, ApiKey, Mode};
use crate::store::StoreResult;
use crate::store::{AccountStore, ApiKeyStore};

const INSERT_ACCOUNT: &str =
    "INSERT INTO accounts (id, monthly_allowance, storage_quota, doc) VALUES ($1, $2, $3, $4)";
const INSERT_KEY: &str =
    "INSERT INTO api_keys (id, account, hash, revoked_at, doc) VALUES ($1, $2, $3, $4, $5)";

type AccountRow = (i64, Option<i64>, Option<i64>, Option<i64>, String);

fn account_from_row((allowance, quota, test, live, doc): AccountRow) -> StoreResult<Account> {
    let mut a: Account = decode("account", &doc)?;
    a.monthly_allowance = u32::try_from(allowance).unwrap_or(u32::MAX);
    a.storage_quota = quota.map(|q| u64::try_from(q).unwrap_or(0));
    let limit = |l: Option<i64>| l.map(|l| u32::try_from(l).unwrap_or(u32::MAX));
    a.test_email_daily_limit = limit(test);
    a.live_email_daily_limit = limit(live);
    Ok(a)
}

/// Quotas are `u64` in records and `BIGINT` in the database.
fn quota_column(quota: Option<u64>) -> Option<i64> {
    quota.map(|q| i64::try_from(q).unwrap_or(i64::MAX))
}

fn key_from_row((revoked_at, doc): (Option<i64>, String)) -> StoreResult<ApiKey> {
    let mut k: ApiKey = decode("api key", &doc)?;
    k.revoked_at = revoked_at
        .map(|ms| from_millis("api key", ms))
        .transpose()?;
    Ok(k)
}

#[async_trait]
impl AccountStore for SqlStore {
    async fn insert_account(&self, account: &Account, keys: &[ApiKey]) -> StoreResult<()> {
        let doc = encode(account)?;
        let key_docs = keys.iter().map(encode).collect::<StoreResult<Vec<_>>>()?;
        with_tx!(&self.pool, |tx| {
            sqlx::query(INSERT_ACCOUNT)
                .bind(&account.id)
                .bind(i64::from(account.monthly_allowance))
                .bind(quota_column(account.storage_quota))
                .bind(&doc)
                .execute(&mut *tx)
                .await
                .map_err(db_err)?;
            for (k, kdoc) in keys.iter().zip(&key_docs) {
                sqlx::query(INSERT_KEY)
                    .bind(&k.id)
                    .bind(&k.account)
                    .bind(&k.hash)
                    .bind(k.revoked_at.map(millis))
                    .bind(kdoc)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_err)?;
            }
        });
        Ok(())
    }

    async fn get_account(&self, id: &AccountId) -> StoreResult<Option<Account>> {
        let row = point_read!(
            &self.pool,
            "SELECT monthly_allowance, storage_quota, test_email_daily_limit, \
             live_email_daily_limit, doc FROM accounts WHERE id = $1",
            (id) as (i64, Option<i64>, Option<i64>, Option<i64>, String)
        );
        row.map(account_from_row).transpose()
    }

    async fn list_accounts(&self) -> StoreResult<Vec<Account>> {
        let rows: Vec<AccountRow> = with_pool!(&self.pool, |p| {
            sqlx::query_as(
                "SELECT monthly_allowance, storage_quota, test_email_daily_limit, \
                 live_email_daily_limit, doc FROM accounts ORDER BY seq",
            )
            .fetch_all(p)
            .await
            .map_err(db_err)?
        });
        rows.into_iter().map(account_from_row).collect()
    }

    async fn set_allowance(&self, account: &AccountId, allowance: u32) -> StoreResult<bool> {
        let r = with_write!(&self.pool, |e| {
            sqlx::query("UPDATE accounts SET monthly_allowance = $2 WHERE id = $1")
                .bind(account)
                .bind(i64::from(allowance))
                .execute(e)
                .await
                .map_err(db_err)?
                .rows_affected()
        });
        Ok(r > 0)
    }

    async fn usage(&self, account: &AccountId, period: &str) -> StoreResult<u32> {
        let used = point_read!(
            &self.pool,
            "SELECT used FROM allowance_usage WHERE account = $1 AND period = $2",
            (account, period) as (i64,)
        );
        Ok(used.map_or(0, |(u,)| u32::try_from(u).unwrap_or(u32::MAX)))
    }

    async fn set_storage_quota(
        &self,
        account: &AccountId,
        quota: Option<u64>,
    ) -> StoreResult<bool> {
        let r = with_write!(&self.pool, |e| {
            sqlx::query("UPDATE accounts SET storage_quota = $2 WHERE id = $1")
                .bind(account)
                .bind(quota_column(quota))
                .execute(e)
                .await
                .map_err(db_err)?
                .rows_affected()
        });
        Ok(r > 0)
    }

    async fn storage_used(&self, account: &AccountId) -> StoreResult<u64> {
        let bytes = point_read!(
            &self.pool,
            "SELECT bytes FROM storage_usage WHERE account = $1",
            (account) as (i64,)
        );
        Ok(bytes.map_or(0, |(b,)| u64::try_from(b).unwrap_or(0)))
    }

    async fn set_email_daily_limit(
        &self,
        account: &AccountId,
        mode: Mode,
        limit: Option<u32>,
    ) -> StoreResult<bool> {
        let sql = match mode {
            Mode::Test => "UPDATE accounts SET test_email_daily_limit = $2 WHERE id = $1",
            Mode::Live => "UPDATE accounts SET live_email_daily_limit = $2 WHERE id = $1",
        };
        let r = with_write!(&self.pool, |e| {
            sqlx::query(sql)
                .bind(account)
                .bind(limit.map(i64::from))
                .execute(e)
                .await
                .map_err(db_err)?
                .rows_affected()
        });
        Ok(r > 0)
    }
}

#[async_trait]
impl ApiKeyStore for SqlStore {
    async fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()> {
        let doc = encode(key)?;
        with_write!(&self.pool, |e| {
            sqlx::query(INSERT_KEY)
                .bind(&key.id)
                .bind(&key.account)
                .bind(&key.hash)
                .bind(key.revoked_at.map(millis))
                .bind(&doc)
                .execute(e)
                .await
                .map_err(db_err)?;
        });
        Ok(())
    }

    async fn api_key_by_hash(&self, hash: &str) -> StoreResult<Option<ApiKey>> {
        let row = point_read!(
            &self.pool,
            "SELECT revoked_at, doc FROM api_keys WHERE hash = $1",
            (hash) as (Option<i64>, String)
        );
        row.map(key_from_row).transpose()
    }

    async fn api_key_with_account(&self, hash: &str) -> StoreResult<Option<(ApiKey, Account)>> {
        let row = point_read!(
            &self.pool,
            "SELECT k.revoked_at, k.doc, a.monthly_allowance, a.storage_quota, \
             a.test_email_daily_limit, a.live_email_daily_limit, a.doc \
             FROM api_keys k JOIN accounts a ON a.id = k.account WHERE k.hash = $1",
            (hash)
                as (
                    Option<i64>,
                    String,
                    i64,
                    Option<i64>,
                    Option<i64>,
                    Option<i64>,
                    String
                )
        );
        row.map(|(revoked, key, allowance, quota, test, live, account)| {
            Ok((
                key_from_row((revoked, key))?,
                account_from_row((allowance, quota, test, live, account))?,
            ))
        })
        .transpose()
    }

    async fn list_api_keys(&self, account: &AccountId) -> StoreResult<Vec<ApiKey>> {
        let rows: Vec<(Option<i64>, String)> = with_pool!(&self.pool, |p| {
            sqlx::query_as("SELECT revoked_at, doc FROM api_keys WHERE account = $1 ORDER BY seq")
                .bind(account)
                .fetch_all(p)
                .await
                .map_err(db_err)?
        });
        rows.into_iter().map(key_from_row).collect()
    }

    async fn revoke_api_key(
        &self,
        account: &AccountId,
        key_id: &ApiKeyId,
        at: Timestamp,
    ) -> StoreResult<bool> {
        let r = with_write!(&self.pool, |e| {
            sqlx::query(
                "UPDATE api_keys SET revoked_at = $3 \
                 WHERE account = $1 AND id = $2 AND revoked_at IS NULL",
            )
            .bind(account)
            .bind(key_id)
            .bind(millis(at))
            .execute(e)
            .await
            .map_err(db_err)?
            .rows_affected()
        });
        Ok(r > 0)
    }
}
