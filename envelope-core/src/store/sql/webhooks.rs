//! Webhook endpoints. Their `status` is a column because the envelope transaction selects the
//! enabled endpoints of a scope to fill the outbox.

use super::lists::{Filter, ListSql};
use super::{SqlStore, db_err, encode, with_write};
use crate::model::{EndpointStatus, Scope, WebhookEndpointRecord};
use crate::store::{Listed, PageRequest, StoreError, StoreResult};

const LIST: ListSql = ListSql {
    cursor: "SELECT seq FROM webhook_endpoints WHERE id = $1 AND account = $2 AND mode = $3",
    page: "SELECT doc FROM webhook_endpoints WHERE account = $1 AND mode = $2 AND seq < $3 \
           ORDER BY seq DESC LIMIT $4",
};

fn status(s: EndpointStatus) -> &'static str {
    match s {
        EndpointStatus::Enabled => "enabled",
        EndpointStatus::Disabled => "disabled",
    }
}

impl SqlStore {
    pub(super) async fn insert_webhook_endpoint_impl(
        &self,
        ep: &WebhookEndpointRecord,
    ) -> StoreResult<()> {
        let doc = encode(ep)?;
        with_write!(&self.pool, |e| {
            sqlx::query(
                "INSERT INTO webhook_endpoints (id, account, mode, status, doc) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(ep.id.as_str())
            .bind(&ep.account)
            .bind(ep.mode.as_str())
            .bind(status(ep.status))
            .bind(&doc)
            .execute(e)
            .await
            .map_err(db_err)?;
        });
        Ok(())
    }

    pub(super) async fn get_webhook_endpoint_impl(
        &self,
        scope: &Scope,
        id: &str,
    ) -> StoreResult<Option<WebhookEndpointRecord>> {
        self.scoped_doc(
            "SELECT doc FROM webhook_endpoints WHERE id = $1 AND account = $2 AND mode = $3",
            "webhook endpoint",
            scope,
            id,
        )
        .await
    }

    pub(super) async fn find_webhook_endpoint_impl(
        &self,
        id: &str,
    ) -> StoreResult<Option<WebhookEndpointRecord>> {
        self.doc_by_id(
            "SELECT doc FROM webhook_endpoints WHERE id = $1",
            "webhook endpoint",
            id,
        )
        .await
    }

    /// Endpoints carry no version: the last write wins, as in the memory store. The owner never
    /// changes (the scope columns are not written).
    pub(super) async fn update_webhook_endpoint_impl(
        &self,
        ep: &WebhookEndpointRecord,
    ) -> StoreResult<()> {
        let doc = encode(ep)?;
        let changed = with_write!(&self.pool, |e| {
            sqlx::query("UPDATE webhook_endpoints SET status = $2, doc = $3 WHERE id = $1")
                .bind(ep.id.as_str())
                .bind(status(ep.status))
                .bind(&doc)
                .execute(e)
                .await
                .map_err(db_err)?
                .rows_affected()
        });
        if changed == 0 {
            return Err(StoreError::Conflict);
        }
        Ok(())
    }

    pub(super) async fn delete_webhook_endpoint_impl(
        &self,
        scope: &Scope,
        id: &str,
    ) -> StoreResult<bool> {
        let changed = with_write!(&self.pool, |e| {
            sqlx::query(
                "DELETE FROM webhook_endpoints WHERE id = $1 AND account = $2 AND mode = $3",
            )
            .bind(id)
            .bind(&scope.account)
            .bind(scope.mode.as_str())
            .execute(e)
            .await
            .map_err(db_err)?
            .rows_affected()
        });
        Ok(changed > 0)
    }

    pub(super) async fn list_webhook_endpoints_impl(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<WebhookEndpointRecord>> {
        self.list_docs("webhook endpoint", &LIST, scope, Filter::None, page)
            .await
    }
}
