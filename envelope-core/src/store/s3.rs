//! [`S3BlobStore`]: blobs as objects in an S3-compatible bucket (feature `s3`).
//!
//! Built on the `object_store` crate (0.13, only its `aws` feature: it signs with `ring`, which
//! the workspace already builds; 0.14 pulls in aws-lc-rs, which compiles C).
//!
//! - **Where**: `s3://bucket/prefix` names the bucket and an optional prefix; blob `key` is the
//!   object `prefix/key`. Credentials, region and endpoint come from the standard `AWS_*`
//!   environment variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
//!   `AWS_REGION`, `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP` for a local server), or from explicit
//!   pairs given to [`S3BlobStore::with_config`].
//! - **Atomic puts**: a blob under [`MULTIPART_THRESHOLD`] goes up in one `PUT`; a larger one as
//!   a multipart upload of [`PART_SIZE`] parts, at most [`PARTS_IN_FLIGHT`] at once, completed
//!   in one request (S3 shows the object only then) and aborted when a part fails, so a reader
//!   sees all of the bytes or none.
//! - **`stored_at`** is kept as the object's metadata `x-amz-meta-stored-at-ms` (the caller's
//!   clock, not the server's `Last-Modified`). A listing carries no metadata, so `list` asks for
//!   each listed object's head, [`HEADS_IN_FLIGHT`] at once: it is the orphan sweep's call, a
//!   page at a time, never on a request's path.
//! - **Retries**: each request is tried at most 3 times within 10 s ([`retry_config`]) on
//!   server errors, throttling and connection failures. What still fails is
//!   [`StoreError::Unavailable`]; a missing object is `Ok(None)` / `Ok(false)`. Nothing panics.
//! - **Order of `list`**: S3 lists keys in ascending UTF-8 byte order, which for the keys this
//!   store accepts (ASCII) is the order of `str`.
//! - **Streamed reads**: `get_stream` hands out the object's bytes as they arrive (its size
//!   from the answer's head), so a reader never holds the whole object; `size` asks for the
//!   head only.
//! - **Presigned reads**: `direct_url` asks for the head (a missing object gets no URL, so the
//!   caller answers as for any missing blob), then signs a `GET` with the content type and
//!   disposition asked for (`presign.rs`), dated by the store's [`Clock`] (the system clock
//!   unless [`S3BlobStore::with_clock`] gives another).
//! - **`delete`** asks for the head first, to answer whether the blob was there (S3's `DELETE`
//!   answers the same either way); two deletes racing may both answer `true`.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt};
use object_store::aws::{AmazonS3, AmazonS3Builder, AmazonS3ConfigKey};
use object_store::path::{Path, PathPart};
use object_store::signer::Signer;
use object_store::{
    Attribute, AttributeValue, Attributes, BackoffConfig, GetOptions, ObjectStore, ObjectStoreExt,
    PutMultipartOptions, PutOptions, PutPayload, RetryConfig,
};

mod presign;

use super::dir::valid_key;
use super::{BlobInfo, BlobStore, BlobStream, DirectRead, StoreError, StoreResult};
use crate::clock::{Clock, SystemClock, Timestamp};
use crate::error::BoxError;

/// Blobs of this size or more go up as multipart uploads.
pub const MULTIPART_THRESHOLD: usize = 8 << 20;
/// The size of each part but the last (S3 wants at least 5 MiB).
pub const PART_SIZE: usize = 8 << 20;
/// Parts of one upload sent at once: memory stays bounded by the blob itself (parts are slices
/// of it) and connections by this.
pub const PARTS_IN_FLIGHT: usize = 4;
/// Head requests of one `list` page sent at once.
pub const HEADS_IN_FLIGHT: usize = 8;
/// The metadata name of `stored_at` (milliseconds since the epoch, decimal).
const STORED_AT: &str = "stored-at-ms";

/// Every request: 3 attempts (2 retries) within 10 s, backing off from 100 ms to at most 2 s.
pub fn retry_config() -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(2),
            base: 2.0,
        },
        max_retries: 2,
        retry_timeout: Duration::from_secs(10),
    }
}

/// Blobs in an S3-compatible bucket, under an optional prefix.
#[derive(Clone)]
pub struct S3BlobStore {
    store: Arc<AmazonS3>,
    prefix: Option<Path>,
    /// The region presigned URLs are signed for.
    region: String,
    /// The time presigned URLs are signed at, read here and never from the system (invariant 6).
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for S3BlobStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3BlobStore")
            .field("store", &self.store)
            .field("prefix", &self.prefix)
            .field("region", &self.region)
            .finish_non_exhaustive()
    }
}

/// The bucket and prefix of an `s3://bucket/prefix` URL.
fn parse_url(url: &str) -> Result<(String, Option<Path>), BoxError> {
    let parsed = url::Url::parse(url).map_err(|e| format!("blob URL {url:?} is not a URL: {e}"))?;
    if parsed.scheme() != "s3" {
        return Err(format!("blob URL {url:?} must start with s3://").into());
    }
    if !parsed.username().is_empty() || parsed.password().is_some() || parsed.port().is_some() {
        return Err(format!(
            "blob URL {url:?}: put credentials and the endpoint in the AWS_* variables"
        )
        .into());
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(format!("blob URL {url:?} takes no query or fragment").into());
    }
    let bucket = parsed.host_str().unwrap_or("").to_string();
    let bucket_ok = (3..=63).contains(&bucket.len())
        && bucket
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
    if !bucket_ok {
        return Err(format!(
            "blob URL {url:?}: the bucket must be 3 to 63 lowercase letters, digits, '-' or '.'"
        )
        .into());
    }
    let path = parsed.path().trim_matches('/');
    let prefix = if path.is_empty() {
        None
    } else {
        Some(
            Path::parse(path)
                .map_err(|e| format!("blob URL {url:?}: the prefix is not a plain path: {e}"))?,
        )
    };
    Ok((bucket, prefix))
}

fn unavailable(e: object_store::Error) -> StoreError {
    StoreError::Unavailable(Box::new(e))
}

impl S3BlobStore {
    /// The bucket of `url` (`s3://bucket/prefix`), configured from the `AWS_*` environment
    /// variables. Makes no request: a wrong endpoint or credential shows at the first use.
    pub fn from_env(url: &str) -> Result<S3BlobStore, BoxError> {
        S3BlobStore::with_config(url, std::iter::empty::<(&str, &str)>())
    }

    /// Like [`S3BlobStore::from_env`], with `config` pairs applied over the environment's. Keys
    /// are the lowercase names of the variables (`aws_endpoint_url`, `aws_access_key_id`,
    /// `aws_allow_http`, ...).
    pub fn with_config<K: AsRef<str>, V: Into<String>>(
        url: &str,
        config: impl IntoIterator<Item = (K, V)>,
    ) -> Result<S3BlobStore, BoxError> {
        let (bucket, prefix) = parse_url(url)?;
        let mut builder = AmazonS3Builder::from_env();
        for (key, value) in config {
            let key: AmazonS3ConfigKey = key
                .as_ref()
                .parse()
                .map_err(|e| format!("S3 setting {:?}: {e}", key.as_ref()))?;
            builder = builder.with_config(key, value);
        }
        // object_store's own default when no region is set.
        let region = builder
            .get_config_value(&AmazonS3ConfigKey::Region)
            .unwrap_or_else(|| "us-east-1".into());
        let store = builder
            .with_bucket_name(bucket)
            .with_retry(retry_config())
            .build()
            .map_err(|e| format!("S3 blob store for {url:?}: {e}"))?;
        Ok(S3BlobStore {
            store: Arc::new(store),
            prefix,
            region,
            clock: Arc::new(SystemClock),
        })
    }

    /// The same store, dating its presigned URLs by `clock` instead of the system clock: give it
    /// the service's clock when that is not [`SystemClock`].
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> S3BlobStore {
        self.clock = clock;
        self
    }

    /// The object that holds blob `key`.
    fn location(&self, key: &str) -> Path {
        match &self.prefix {
            Some(p) => p.clone().join(key),
            None => Path::from_iter([PathPart::from(key)]),
        }
    }

    /// The blob key of a listed object, if it is one this store writes.
    fn key_of(&self, location: &Path) -> Option<String> {
        let rest: Vec<PathPart<'_>> = match &self.prefix {
            Some(p) => location.prefix_match(p)?.collect(),
            None => location.parts().collect(),
        };
        match rest.as_slice() {
            [one] if valid_key(one.as_ref()) => Some(one.as_ref().to_string()),
            _ => None,
        }
    }

    /// The `stored_at` kept with an object; `Ok(None)` when the object is gone.
    async fn stored_at(&self, location: &Path) -> StoreResult<Option<Option<Timestamp>>> {
        let options = GetOptions::new().with_head(true);
        match self.store.get_opts(location, options).await {
            Ok(got) => Ok(Some(
                got.attributes
                    .get(&Attribute::Metadata(STORED_AT.into()))
                    .and_then(|v| v.as_ref().parse::<i64>().ok())
                    .and_then(Timestamp::from_millis),
            )),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(unavailable(e)),
        }
    }

    /// Sends `bytes` as parts and completes the upload; aborts it when anything fails.
    async fn put_multipart(
        &self,
        location: &Path,
        bytes: Bytes,
        attributes: Attributes,
    ) -> StoreResult<()> {
        let options = PutMultipartOptions {
            attributes,
            ..Default::default()
        };
        let mut upload = self
            .store
            .put_multipart_opts(location, options)
            .await
            .map_err(unavailable)?;
        let chunks: Vec<Bytes> = (0..bytes.len())
            .step_by(PART_SIZE)
            .map(|at| bytes.slice(at..(at + PART_SIZE).min(bytes.len())))
            .collect();
        // Part numbers are given in the order `put_part` is called, whatever order they finish.
        let parts = futures_util::stream::iter(chunks)
            .map(|chunk| upload.put_part(PutPayload::from_bytes(chunk)))
            .buffer_unordered(PARTS_IN_FLIGHT)
            .try_collect::<Vec<()>>()
            .await;
        let done = match parts {
            Ok(_) => upload.complete().await.map(drop),
            Err(e) => Err(e),
        };
        match done {
            Ok(()) => Ok(()),
            Err(e) => {
                if let Err(abort) = upload.abort().await {
                    tracing::warn!(error = %abort, "aborting a failed multipart upload failed");
                }
                Err(unavailable(e))
            }
        }
    }
}

#[async_trait]
impl BlobStore for S3BlobStore {
    async fn put(&self, key: &str, bytes: Bytes, stored_at: Timestamp) -> StoreResult<()> {
        if !valid_key(key) {
            return Err(StoreError::Unavailable(
                format!("blob key {key:?} is not a plain object name").into(),
            ));
        }
        let location = self.location(key);
        let mut attributes = Attributes::new();
        attributes.insert(
            Attribute::Metadata(STORED_AT.into()),
            AttributeValue::from(stored_at.millis().to_string()),
        );
        if bytes.len() >= MULTIPART_THRESHOLD {
            return self.put_multipart(&location, bytes, attributes).await;
        }
        let options = PutOptions {
            attributes,
            ..Default::default()
        };
        self.store
            .put_opts(&location, PutPayload::from_bytes(bytes), options)
            .await
            .map(drop)
            .map_err(unavailable)
    }

    async fn get(&self, key: &str) -> StoreResult<Option<Bytes>> {
        if !valid_key(key) {
            return Ok(None); // no such key can have been stored
        }
        match self.store.get(&self.location(key)).await {
            Ok(got) => got.bytes().await.map(Some).map_err(unavailable),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn get_stream(&self, key: &str) -> StoreResult<Option<BlobStream>> {
        if !valid_key(key) {
            return Ok(None);
        }
        match self.store.get(&self.location(key)).await {
            Ok(got) => {
                let size = got.meta.size;
                // Chunks as the connection delivers them; a failure mid-way ends the stream
                // with the error (object_store retries only before the first byte).
                let chunks = got.into_stream().map(|c| c.map_err(unavailable));
                Ok(Some(BlobStream::new(size, chunks)))
            }
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn size(&self, key: &str) -> StoreResult<Option<u64>> {
        if !valid_key(key) {
            return Ok(None);
        }
        match self.store.head(&self.location(key)).await {
            Ok(meta) => Ok(Some(meta.size)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn direct_url(&self, key: &str, read: &DirectRead) -> StoreResult<Option<String>> {
        if self.size(key).await?.is_none() {
            return Ok(None);
        }
        let location = self.location(key);
        // The object's address as object_store writes it (endpoint, style, encoding).
        let address = self
            .store
            .signed_url(http::Method::GET, &location, read.expires_in)
            .await
            .map_err(unavailable)?;
        let credential = self
            .store
            .credentials()
            .get_credential()
            .await
            .map_err(unavailable)?;
        let url = presign::presign_get(
            &address,
            &[
                ("response-content-type", &read.content_type),
                ("response-content-disposition", &read.content_disposition),
            ],
            &presign::Credential {
                key_id: &credential.key_id,
                secret_key: &credential.secret_key,
                token: credential.token.as_deref(),
            },
            &self.region,
            self.clock.now().datetime(),
            read.expires_in,
        );
        Ok(Some(url.into()))
    }

    async fn list(&self, after: Option<&str>, limit: usize) -> StoreResult<Vec<BlobInfo>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let listing = match after {
            Some(a) => self
                .store
                .list_with_offset(self.prefix.as_ref(), &self.location(a)),
            None => self.store.list(self.prefix.as_ref()),
        };
        // The listing is paged by S3 (1,000 a request) and read only as far as needed.
        let mut keys: Vec<(String, Path)> = listing
            .try_filter_map(|meta| {
                let key = self.key_of(&meta.location);
                std::future::ready(Ok(key.map(|k| (k, meta.location))))
            })
            .try_filter(|(k, _)| std::future::ready(after.is_none_or(|a| k.as_str() > a)))
            .take(limit)
            .try_collect()
            .await
            .map_err(unavailable)?;
        keys.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let heads: Vec<Option<BlobInfo>> = futures_util::stream::iter(keys)
            .map(|(key, location)| async move {
                Ok::<_, StoreError>(
                    self.stored_at(&location)
                        .await?
                        .map(|stored_at| BlobInfo { key, stored_at }),
                )
            })
            .buffered(HEADS_IN_FLIGHT)
            .try_collect()
            .await?;
        // An object deleted between the listing and its head is left out.
        Ok(heads.into_iter().flatten().collect())
    }

    async fn delete(&self, key: &str) -> StoreResult<bool> {
        if !valid_key(key) {
            return Ok(false);
        }
        let location = self.location(key);
        match self.store.head(&location).await {
            Ok(_) => {}
            Err(object_store::Error::NotFound { .. }) => return Ok(false),
            Err(e) => return Err(unavailable(e)),
        }
        match self.store.delete(&location).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(true),
            Err(e) => Err(unavailable(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_a_bucket_and_a_prefix() {
        let (bucket, prefix) = parse_url("s3://pdfs").unwrap();
        assert_eq!((bucket.as_str(), prefix), ("pdfs", None));
        let (bucket, prefix) = parse_url("s3://my-bucket.eu/envelope/prod/").unwrap();
        assert_eq!(bucket, "my-bucket.eu");
        assert_eq!(prefix.unwrap().as_ref(), "envelope/prod");
        for bad in [
            "https://bucket/x",
            "s3://",
            "s3://ab",
            "s3://UPPER",
            "s3://key:secret@bucket/x",
            "s3://bucket:9000/x",
            "s3://bucket/x?region=eu",
            "s3://bucket/a//b",
            "not a url",
        ] {
            assert!(parse_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn keys_map_to_objects_under_the_prefix_and_back() {
        let store = S3BlobStore::with_config(
            "s3://bucket/pre/fix",
            [
                ("aws_region", "us-east-1"),
                ("aws_access_key_id", "k"),
                ("aws_secret_access_key", "s"),
            ],
        )
        .unwrap();
        let loc = store.location("blob_abc");
        assert_eq!(loc.as_ref(), "pre/fix/blob_abc");
        assert_eq!(store.key_of(&loc).as_deref(), Some("blob_abc"));
        // Objects this store never writes are not blobs.
        for other in [
            "pre/fix/a/b",
            "pre/other",
            "pre/fix/.tmp",
            "elsewhere/blob_abc",
        ] {
            assert_eq!(store.key_of(&Path::from(other)), None, "{other}");
        }
        assert!(S3BlobStore::with_config("s3://bucket", [("not_a_setting", "x")]).is_err());
    }
}
