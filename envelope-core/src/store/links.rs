//! Signing, download and builder links: [`LinkStore`].

use async_trait::async_trait;

use super::*;

/// Signing, download and builder links, stored and found by the SHA-256 of their token (the clear token
/// is never stored).
///
/// # Contract
///
/// - Token hashes are unique: a second insert is [`StoreError::Duplicate`].
/// - A link reads back, expired or not, until [`RetentionStore::purge_expired`] removes it; a
///   download link also goes with the last hold of its blob; a builder link goes with its
///   template or envelope when retention deletes it.
///
/// Conformance clauses: `links`, `purge_expired`.
#[async_trait]
pub trait LinkStore: Send + Sync + 'static {
    /// Stores a signing link; [`StoreError::Duplicate`] when its hash exists already.
    async fn insert_signing_token(&self, token: &SigningToken) -> StoreResult<()>;
    /// The signing link whose token has this hash, expired or not until
    /// [`RetentionStore::purge_expired`] removes it (the caller checks `expires_at`); `None` for an
    /// unknown hash.
    async fn signing_token(&self, token_hash: &str) -> StoreResult<Option<SigningToken>>;
    /// Stores a download link; [`StoreError::Duplicate`] when its hash exists already.
    async fn insert_file_link(&self, link: &FileLink) -> StoreResult<()>;
    /// The download link whose token has this hash, expired or not until
    /// [`RetentionStore::purge_expired`] removes it (the caller checks `expires_at`); `None` for an
    /// unknown hash or a link deleted with the last hold of its blob.
    async fn file_link(&self, token_hash: &str) -> StoreResult<Option<FileLink>>;
    /// Stores a builder link (extensions E11); [`StoreError::Duplicate`] when its hash exists
    /// already.
    async fn insert_builder_token(&self, token: &BuilderToken) -> StoreResult<()>;
    /// The builder link whose token has this hash, expired or not until
    /// [`RetentionStore::purge_expired`] removes it (the caller checks `expires_at`); `None` for an
    /// unknown hash, or a link whose object retention deleted.
    async fn builder_token(&self, token_hash: &str) -> StoreResult<Option<BuilderToken>>;
}

/// A builder link (extensions E11), stored by the SHA-256 of its token: it opens one template
/// or one draft envelope for an hour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuilderToken {
    /// Lowercase hex SHA-256 of the link's token (`ids::digest`); the clear token is never
    /// stored.
    pub token_hash: String,
    /// The account of the object the link opens.
    pub account: AccountId,
    /// The mode (test or live) of the object the link opens.
    pub mode: crate::model::Mode,
    /// The SHA-256 of the API key that made the link (as [`ApiKey::hash`]): the link works
    /// only while that key does, so revoking a key ends its links too.
    ///
    /// [`ApiKey::hash`]: crate::model::ApiKey::hash
    pub key_hash: String,
    /// The one object the link opens.
    pub target: crate::model::BuilderTarget,
    /// The language the page speaks, as given (a BCP 47 tag); `None`: the browser's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// Where the page offers to go back to, as given (an http or https URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_url: Option<String>,
    /// When the link was made.
    pub created_at: Timestamp,
    /// When the link stops working.
    pub expires_at: Timestamp,
}

/// A signing link, stored by the SHA-256 of its token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SigningToken {
    /// Lowercase hex SHA-256 of the link's token (`ids::digest`); the clear token is never
    /// stored.
    pub token_hash: String,
    /// The account of the envelope the link opens.
    pub account: AccountId,
    /// The mode (test or live) of the envelope the link opens.
    pub mode: crate::model::Mode,
    /// The ID of the envelope the link opens.
    pub envelope: EnvelopeId,
    /// The ID of the signer the link is for.
    pub signer: SignerId,
    /// When the link was made.
    pub created_at: Timestamp,
    /// When the link stops working.
    pub expires_at: Timestamp,
    /// Where the link went (extensions E8): emailed, or returned to an API key. `None` for links
    /// made before this was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued_via: Option<crate::model::LinkVia>,
}

/// The envelope an archive download link stands for (extensions E5): the ZIP is written from
/// the envelope's files when the link is used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveOf {
    /// The account of the envelope.
    pub account: AccountId,
    /// The mode (test or live) of the envelope.
    pub mode: crate::model::Mode,
    /// The ID of the envelope whose files the ZIP holds.
    pub envelope: EnvelopeId,
}

/// A download link, stored by the SHA-256 of its token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileLink {
    /// Lowercase hex SHA-256 of the link's token (`ids::digest`); the clear token is never
    /// stored.
    pub token_hash: String,
    /// The key in the [`BlobStore`] of the file the link downloads.
    pub blob: String,
    /// The file name the download is offered under.
    pub file_name: String,
    /// When the link stops working.
    pub expires_at: Timestamp,
    /// For a file stored as a delta: the blob that comes before `blob`
    /// ([`StoredFile::delta`](crate::model::StoredFile::delta)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// For a link of kind `archive` (extensions E5): the envelope whose signed copies and audit
    /// trail it gives as one ZIP. `blob` is then the audit trail's, so that the link goes with
    /// the envelope's files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive: Option<ArchiveOf>,
    /// The media type the file is served as, for a signer's attachment (extensions E14:
    /// `image/png`, `image/jpeg`, `application/pdf`); `None` (and absent in stored links): a
    /// PDF, or the archive's ZIP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
}
