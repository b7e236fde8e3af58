//! Templates: versioned documents, updated only from the version the caller read; each write
//! holds the template's file (`held.rs`), a create within the account's storage quota.

use async_trait::async_trait;

use super::held::{self, move_holds};
use super::lists::{Filter, ListSql};
use super::{SqlStore, db_err, encode, millis, version, with_tx};
use crate::ids::TemplateId;
use crate::model::{Scope, TemplateRecord};
use crate::store::TemplateStore;
use crate::store::{Listed, PageRequest, StoreError, StoreResult};

const LIST: ListSql = ListSql {
    cursor: "SELECT seq FROM templates WHERE id = $1 AND account = $2 AND mode = $3",
    page: "SELECT doc FROM templates WHERE account = $1 AND mode = $2 AND seq < $3 \
           AND archived = $5 ORDER BY seq DESC LIMIT $4",
};

#[async_trait]
impl TemplateStore for SqlStore {
    async fn insert_template(&self, t: &TemplateRecord) -> StoreResult<()> {
        let doc = encode(t)?;
        let v = version(t.version)?;
        let holds = t.held_files();
        let blobs = held::column(&holds);
        with_tx!(&self.pool, |tx| {
            sqlx::query(
                "INSERT INTO templates (id, account, mode, version, archived, doc, updated_at, blobs) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(t.id.as_str())
            .bind(&t.account)
            .bind(t.mode.as_str())
            .bind(v)
            .bind(t.archived)
            .bind(&doc)
            .bind(millis(t.updated_at))
            .bind(&blobs)
            .execute(&mut *tx)
            .await
            .map_err(db_err)?;
            move_holds!(tx, &t.account, &[], &holds, true);
        });
        Ok(())
    }

    async fn get_template(
        &self,
        scope: &Scope,
        id: &TemplateId,
    ) -> StoreResult<Option<TemplateRecord>> {
        self.scoped_doc(
            "SELECT doc FROM templates WHERE id = $1 AND account = $2 AND mode = $3",
            "template",
            scope,
            id,
        )
        .await
    }

    /// Compare-and-set on `version`: zero rows changed means another writer got there first.
    async fn update_template(&self, t: &TemplateRecord) -> StoreResult<()> {
        let doc = encode(t)?;
        let new = version(t.version)?;
        let old = new.checked_sub(1).ok_or(StoreError::Conflict)?;
        let holds = t.held_files();
        let blobs = held::column(&holds);
        with_tx!(&self.pool, |tx| {
            let before: Option<(Option<String>,)> = sqlx::query_as(
                "SELECT blobs FROM templates \
                 WHERE id = $1 AND account = $2 AND mode = $3 AND version = $4",
            )
            .bind(t.id.as_str())
            .bind(&t.account)
            .bind(t.mode.as_str())
            .bind(old)
            .fetch_optional(&mut *tx)
            .await
            .map_err(db_err)?;
            let Some((before,)) = before else {
                return Err(StoreError::Conflict);
            };
            let changed = sqlx::query(
                "UPDATE templates SET version = $1, archived = $2, doc = $3, updated_at = $8, \
                 blobs = $9 WHERE id = $4 AND account = $5 AND mode = $6 AND version = $7",
            )
            .bind(new)
            .bind(t.archived)
            .bind(&doc)
            .bind(t.id.as_str())
            .bind(&t.account)
            .bind(t.mode.as_str())
            .bind(old)
            .bind(millis(t.updated_at))
            .bind(&blobs)
            .execute(&mut *tx)
            .await
            .map_err(db_err)?
            .rows_affected();
            if changed == 0 {
                return Err(StoreError::Conflict);
            }
            move_holds!(
                tx,
                &t.account,
                &held::keys(before.as_deref()),
                &holds,
                false
            );
        });
        Ok(())
    }

    async fn list_templates(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<TemplateRecord>> {
        self.list_docs("template", &LIST, scope, Filter::Bool(false), page)
            .await
    }
}
