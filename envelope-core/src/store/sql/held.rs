//! Held blobs and stored bytes: which blobs records hold (`held_blobs`, one row per blob with
//! its number of holders) and how many bytes each account holds (`storage_usage`, each blob
//! once), changed inside the transaction of every record write with [`move_holds!`].
//!
//! A record's held blobs are its `blobs` column (keys, space-separated); a write compares them
//! with the new record's [`held_files`](crate::model::EnvelopeRecord::held_files). `holders`
//! changes by `UPDATE .. RETURNING` under the row's lock, so of two transactions that release
//! the last two holds of a blob (PostgreSQL), exactly one sees it reach zero.

use crate::model::StoredFile;
use crate::store::{StoreError, StoreResult};

/// One more holder; the new count (1: the blob is held anew, its bytes count).
pub(super) const HOLD: &str = "INSERT INTO held_blobs (blob_key, account, size, holders) \
    VALUES ($1, $2, $3, 1) \
    ON CONFLICT (blob_key) DO UPDATE SET holders = held_blobs.holders + 1 RETURNING holders";

/// One holder fewer; the new count and the size. No row: a blob no record of this version
/// held (written by an older binary).
pub(super) const RELEASE: &str =
    "UPDATE held_blobs SET holders = holders - 1 WHERE blob_key = $1 RETURNING holders, size";

pub(super) const FORGET: &str = "DELETE FROM held_blobs WHERE blob_key = $1 AND holders <= 0";

/// Download links of a blob no record holds any more.
pub(super) const UNLINK: &str = "DELETE FROM file_links WHERE blob = $1";

/// A create's change of stored bytes: applied only while the account stays within its quota
/// (no row changed: refused). The quota is read in the statement, under the usage row's lock.
pub(super) const CHARGE: &str = "INSERT INTO storage_usage (account, bytes) \
    SELECT $1, $2 WHERE $2 <= COALESCE((SELECT storage_quota FROM accounts WHERE id = $1), $2) \
    ON CONFLICT (account) DO UPDATE SET bytes = storage_usage.bytes + excluded.bytes \
    WHERE storage_usage.bytes + excluded.bytes <= \
    COALESCE((SELECT storage_quota FROM accounts WHERE id = $1), \
             storage_usage.bytes + excluded.bytes)";

/// Any other write's change of stored bytes: never refused.
pub(super) const ADJUST: &str = "INSERT INTO storage_usage (account, bytes) VALUES ($1, $2) \
    ON CONFLICT (account) DO UPDATE SET bytes = storage_usage.bytes + excluded.bytes";

/// The `blobs` column of a record holding `files`.
pub(super) fn column(files: &[&StoredFile]) -> String {
    files
        .iter()
        .map(|f| f.blob.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The keys of a `blobs` column (none for `NULL`).
pub(super) fn keys(column: Option<&str>) -> Vec<String> {
    column
        .unwrap_or("")
        .split(' ')
        .filter(|k| !k.is_empty())
        .map(str::to_string)
        .collect()
}

/// Bytes of the file's own blob (an update alone, for a delta).
pub(super) fn size(f: &StoredFile) -> StoreResult<i64> {
    let bytes = f.stored_size();
    i64::try_from(bytes)
        .map_err(|_| StoreError::Unavailable(format!("blob size {bytes} out of range").into()))
}

/// Inside a `with_tx!` body (`$tx` the transaction): moves a record of `$account` from holding
/// the blob keys `$old` to holding the files `$new`, and changes the account's stored bytes;
/// `$enforce` (a create) refuses the write, returning `QuotaExceeded` from the enclosing
/// function, when the account would then be above its quota. Evaluates to the keys no record
/// holds any more (their download links are deleted).
macro_rules! move_holds {
    ($tx:ident, $account:expr, $old:expr, $new:expr, $enforce:expr) => {{
        let account: &str = $account;
        let old: &[String] = $old;
        let new: &[&$crate::model::StoredFile] = $new;
        let mut delta: i64 = 0;
        let mut freed: Vec<String> = Vec::new();
        for f in new.iter().filter(|f| !old.contains(&f.blob)) {
            let size = $crate::store::sql::held::size(f)?;
            let holders: i64 = sqlx::query_scalar($crate::store::sql::held::HOLD)
                .bind(&f.blob)
                .bind(account)
                .bind(size)
                .fetch_one(&mut *$tx)
                .await
                .map_err($crate::store::sql::db_err)?;
            if holders == 1 {
                delta += size;
            }
        }
        for key in old.iter().filter(|k| !new.iter().any(|f| &f.blob == *k)) {
            let left: Option<(i64, i64)> = sqlx::query_as($crate::store::sql::held::RELEASE)
                .bind(key)
                .fetch_optional(&mut *$tx)
                .await
                .map_err($crate::store::sql::db_err)?;
            if let Some((holders, size)) = left
                && holders <= 0
            {
                for sql in [
                    $crate::store::sql::held::FORGET,
                    $crate::store::sql::held::UNLINK,
                ] {
                    sqlx::query(sql)
                        .bind(key)
                        .execute(&mut *$tx)
                        .await
                        .map_err($crate::store::sql::db_err)?;
                }
                delta -= size;
                freed.push(key.clone());
            }
        }
        if $enforce {
            let charged = sqlx::query($crate::store::sql::held::CHARGE)
                .bind(account)
                .bind(delta)
                .execute(&mut *$tx)
                .await
                .map_err($crate::store::sql::db_err)?
                .rows_affected();
            if charged == 0 {
                return Err($crate::store::StoreError::QuotaExceeded);
            }
        } else if delta != 0 {
            sqlx::query($crate::store::sql::held::ADJUST)
                .bind(account)
                .bind(delta)
                .execute(&mut *$tx)
                .await
                .map_err($crate::store::sql::db_err)?;
        }
        freed
    }};
}

pub(crate) use move_holds;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_column_round_trips() {
        let f = |blob: &str| StoredFile {
            blob: blob.into(),
            file_name: "a.pdf".into(),
            size: 1,
            sha256: String::new(),
            delta: None,
            sha256_state: None,
        };
        let (a, b) = (f("blob_a"), f("blob_b"));
        assert_eq!(column(&[&a, &b]), "blob_a blob_b");
        assert_eq!(keys(Some("blob_a blob_b")), ["blob_a", "blob_b"]);
        assert!(keys(None).is_empty() && keys(Some("")).is_empty());
        assert_eq!(column(&[]), "");
    }
}
