//! Signing tokens, file links and builder links, stored and found by the SHA-256 of their token.

use async_trait::async_trait;

use super::{SqlStore, db_err, decode, encode, millis, with_pool, with_write};
use crate::store::LinkStore;
use crate::store::{BuilderToken, FileLink, SigningToken, StoreResult};

#[async_trait]
impl LinkStore for SqlStore {
    async fn insert_signing_token(&self, t: &SigningToken) -> StoreResult<()> {
        let doc = encode(t)?;
        with_write!(&self.pool, |e| {
            sqlx::query(
                "INSERT INTO signing_tokens (token_hash, envelope, expires_at, doc) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(&t.token_hash)
            .bind(&t.envelope)
            .bind(millis(t.expires_at))
            .bind(&doc)
            .execute(e)
            .await
            .map_err(db_err)?;
        });
        Ok(())
    }

    async fn signing_token(&self, token_hash: &str) -> StoreResult<Option<SigningToken>> {
        let doc: Option<String> = with_pool!(&self.pool, |p| {
            sqlx::query_scalar("SELECT doc FROM signing_tokens WHERE token_hash = $1")
                .bind(token_hash)
                .fetch_optional(p)
                .await
                .map_err(db_err)?
        });
        doc.map(|d| decode("signing token", &d)).transpose()
    }

    async fn insert_file_link(&self, l: &FileLink) -> StoreResult<()> {
        let doc = encode(l)?;
        with_write!(&self.pool, |e| {
            sqlx::query(
                "INSERT INTO file_links (token_hash, expires_at, doc, blob) VALUES ($1, $2, $3, $4)",
            )
            .bind(&l.token_hash)
            .bind(millis(l.expires_at))
            .bind(&doc)
            .bind(&l.blob)
                .execute(e)
                .await
                .map_err(db_err)?;
        });
        Ok(())
    }

    async fn file_link(&self, token_hash: &str) -> StoreResult<Option<FileLink>> {
        let doc: Option<String> = with_pool!(&self.pool, |p| {
            sqlx::query_scalar("SELECT doc FROM file_links WHERE token_hash = $1")
                .bind(token_hash)
                .fetch_optional(p)
                .await
                .map_err(db_err)?
        });
        doc.map(|d| decode("file link", &d)).transpose()
    }

    async fn insert_builder_token(&self, t: &BuilderToken) -> StoreResult<()> {
        let doc = encode(t)?;
        with_write!(&self.pool, |e| {
            sqlx::query(
                "INSERT INTO builder_tokens (token_hash, target, expires_at, doc) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(&t.token_hash)
            .bind(t.target.id())
            .bind(millis(t.expires_at))
            .bind(&doc)
            .execute(e)
            .await
            .map_err(db_err)?;
        });
        Ok(())
    }

    async fn builder_token(&self, token_hash: &str) -> StoreResult<Option<BuilderToken>> {
        let doc: Option<String> = with_pool!(&self.pool, |p| {
            sqlx::query_scalar("SELECT doc FROM builder_tokens WHERE token_hash = $1")
                .bind(token_hash)
                .fetch_optional(p)
                .await
                .map_err(db_err)?
        });
        doc.map(|d| decode("builder token", &d)).transpose()
    }
}
