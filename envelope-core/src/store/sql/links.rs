//! Signing tokens, file links and builder links, stored and found by the SHA-256 of their token.
//!
//! Each kind is one table of `(token_hash, <what it belongs to>, expires_at, doc)`: the column
//! beside the hash is what retention deletes the link with (the envelope, the blob, the builder
//! link's object).

use async_trait::async_trait;
use serde::de::DeserializeOwned;

use super::{SqlStore, db_err, decode, encode, millis, with_pool, with_write};
use crate::clock::Timestamp;
use crate::store::LinkStore;
use crate::store::{BuilderToken, FileLink, SigningToken, StoreResult};

impl SqlStore {
    /// Runs `insert` (`$1` the hash, `$2` what the link belongs to, `$3` its expiry, `$4` its
    /// document).
    async fn insert_link(
        &self,
        insert: &'static str,
        token_hash: &str,
        belongs_to: &str,
        expires_at: Timestamp,
        doc: String,
    ) -> StoreResult<()> {
        with_write!(&self.pool, |e| {
            sqlx::query(insert)
                .bind(token_hash)
                .bind(belongs_to)
                .bind(millis(expires_at))
                .bind(&doc)
                .execute(e)
                .await
                .map_err(db_err)?;
        });
        Ok(())
    }

    /// The document `select` (`$1` the hash) finds, decoded as a `what`.
    async fn link_by_hash<T: DeserializeOwned>(
        &self,
        select: &'static str,
        what: &str,
        token_hash: &str,
    ) -> StoreResult<Option<T>> {
        let doc: Option<String> = with_pool!(&self.pool, |p| {
            sqlx::query_scalar(select)
                .bind(token_hash)
                .fetch_optional(p)
                .await
                .map_err(db_err)?
        });
        doc.map(|d| decode(what, &d)).transpose()
    }
}

#[async_trait]
impl LinkStore for SqlStore {
    async fn insert_signing_token(&self, t: &SigningToken) -> StoreResult<()> {
        self.insert_link(
            "INSERT INTO signing_tokens (token_hash, envelope, expires_at, doc) \
             VALUES ($1, $2, $3, $4)",
            &t.token_hash,
            t.envelope.as_str(),
            t.expires_at,
            encode(t)?,
        )
        .await
    }

    async fn signing_token(&self, token_hash: &str) -> StoreResult<Option<SigningToken>> {
        self.link_by_hash(
            "SELECT doc FROM signing_tokens WHERE token_hash = $1",
            "signing token",
            token_hash,
        )
        .await
    }

    async fn insert_file_link(&self, l: &FileLink) -> StoreResult<()> {
        self.insert_link(
            "INSERT INTO file_links (token_hash, blob, expires_at, doc) VALUES ($1, $2, $3, $4)",
            &l.token_hash,
            &l.blob,
            l.expires_at,
            encode(l)?,
        )
        .await
    }

    async fn file_link(&self, token_hash: &str) -> StoreResult<Option<FileLink>> {
        self.link_by_hash(
            "SELECT doc FROM file_links WHERE token_hash = $1",
            "file link",
            token_hash,
        )
        .await
    }

    async fn insert_builder_token(&self, t: &BuilderToken) -> StoreResult<()> {
        self.insert_link(
            "INSERT INTO builder_tokens (token_hash, target, expires_at, doc) \
             VALUES ($1, $2, $3, $4)",
            &t.token_hash,
            t.target.id(),
            t.expires_at,
            encode(t)?,
        )
        .await
    }

    async fn builder_token(&self, token_hash: &str) -> StoreResult<Option<BuilderToken>> {
        self.link_by_hash(
            "SELECT doc FROM builder_tokens WHERE token_hash = $1",
            "builder token",
            token_hash,
        )
        .await
    }
}
