//! Keyset pagination, shared by every list.
//!
//! A page is `WHERE account = $1 AND mode = $2 AND seq < $3 [AND filter = $5] ORDER BY seq DESC
//! LIMIT $4`, served by an index on `(account, mode, [filter,] seq)`: the cost of a page does not
//! grow with the table, and rows inserted while a caller pages get a higher `seq`, so they never
//! shift the pages still to come. The cursor is an ID; its `seq` is looked up in the same scope,
//! and a cursor of another scope is [`Listed::UnknownCursor`], like a missing one.

use serde::de::DeserializeOwned;

use super::{SqlStore, db_err, decode, with_pool};
use crate::model::Scope;
use crate::store::{Listed, PageRequest, StoreResult};

/// The two statements of one list: the cursor lookup (`$1` id, `$2` account, `$3` mode) and the
/// page (see the module documentation).
pub(super) struct ListSql {
    pub cursor: &'static str,
    pub page: &'static str,
}

/// The optional fifth parameter of a page statement.
pub(super) enum Filter {
    None,
    Text(String),
    Bool(bool),
    /// `$5` and `$6`.
    Texts(String, String),
}

impl SqlStore {
    /// The documents of one page, newest first, or `None` when the cursor is unknown in scope.
    pub(super) async fn list_docs<T: DeserializeOwned>(
        &self,
        what: &str,
        sql: &ListSql,
        scope: &Scope,
        filter: Filter,
        page: &PageRequest,
    ) -> StoreResult<Listed<T>> {
        self.list_rows(sql, scope, filter, page, |(d,): (String,)| decode(what, &d))
            .await
    }

    /// The rows of one page, newest first, each made an item by `item`; `None` when the cursor
    /// is unknown in scope.
    pub(super) async fn list_rows<R, T>(
        &self,
        sql: &ListSql,
        scope: &Scope,
        filter: Filter,
        page: &PageRequest,
        item: impl Fn(R) -> StoreResult<T>,
    ) -> StoreResult<Listed<T>>
    where
        R: for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow>
            + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>
            + Send
            + Unpin,
    {
        let mode = scope.mode.as_str();
        let limit = page.limit.min(100_000);
        let rows: Option<Vec<R>> = with_pool!(&self.pool, |p| {
            let before = match &page.starting_after {
                None => Some(i64::MAX),
                Some(id) => sqlx::query_scalar::<_, i64>(sql.cursor)
                    .bind(id)
                    .bind(&scope.account)
                    .bind(mode)
                    .fetch_optional(p)
                    .await
                    .map_err(db_err)?,
            };
            match before {
                None => None,
                Some(before) => {
                    let q = sqlx::query_as::<_, R>(sql.page)
                        .bind(&scope.account)
                        .bind(mode)
                        .bind(before)
                        .bind(limit as i64 + 1);
                    let q = match filter {
                        Filter::None => q,
                        Filter::Text(s) => q.bind(s),
                        Filter::Bool(b) => q.bind(b),
                        Filter::Texts(a, b) => q.bind(a).bind(b),
                    };
                    Some(q.fetch_all(p).await.map_err(db_err)?)
                }
            }
        });
        let Some(mut rows) = rows else {
            return Ok(Listed::UnknownCursor);
        };
        let has_more = rows.len() > limit;
        rows.truncate(limit);
        let items = rows
            .into_iter()
            .map(item)
            .collect::<StoreResult<Vec<T>>>()?;
        Ok(Listed::Page(items, has_more))
    }
}
