//! Opening the store: the one function every command goes through.
//!
//! | option | store |
//! |---|---|
//! | (default) | SQLite file `envelope.sqlite3` in `--data-dir`, PDFs in the same database |
//! | `--database-url postgres://...` | PostgreSQL (several servers may share it), PDFs in it too |
//! | `--database-url sqlite:///path/file.db` | SQLite at that path |
//! | `--blob-url s3://bucket/prefix` | PDFs in an S3-compatible bucket instead of the database (with any of the above; `AWS_*` variables for credentials, region, endpoint) |
//!
//! The data dir is created 0700 and every file the server makes in it 0600 (database, WAL and
//! shared memory, mail, keys): see `envelope_core::private_files`. It also holds
//! `idempotency.key`, the key that encrypts the responses idempotency records keep (they may
//! carry signing URLs and webhook secrets) and the webhook secrets; servers sharing a PostgreSQL
//! database must share that file, as they share `signing-page.secret`. Every open compares the
//! key with the database's ([`ResponseKey::check_against`]) and refuses another one.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use envelope_core::error::BoxError;
use envelope_core::private_files as private;
use envelope_core::service::{KeyCheck, ResponseKey};
use envelope_core::store::{S3BlobStore, SqlStore};
use envelope_core::{BlobStore, Store};

/// Where data lives.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// Directory for a file database and document bytes.
    pub data_dir: PathBuf,
    /// `sqlite://...` or `postgres://...`; `None` means a store under `data_dir`.
    pub database_url: Option<String>,
    /// `s3://bucket/prefix`: PDFs in that bucket (configured from the `AWS_*` variables);
    /// `None` means in the database.
    pub blob_url: Option<String>,
    /// The key file of stored idempotency responses; `None` means
    /// `<data_dir>/idempotency.key`. Servers that share one database must share this key.
    pub idempotency_key_file: Option<PathBuf>,
}

/// An opened store.
#[derive(Clone)]
pub struct OpenedStore {
    /// The records.
    pub store: Arc<dyn Store>,
    /// The PDFs: the database's or the bucket of `--blob-url`.
    pub blobs: Arc<dyn BlobStore>,
    /// The same store, typed (for its engine and its commit counters).
    pub sql: SqlStore,
    /// The key of idempotency records, from `<data-dir>/idempotency.key`.
    pub response_key: ResponseKey,
}

impl std::fmt::Debug for OpenedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenedStore").finish_non_exhaustive()
    }
}

/// Opens the store that `options` describe, migrating its schema.
pub async fn open_store(options: &StoreOptions) -> Result<OpenedStore, BoxError> {
    private::create_dir_all(&options.data_dir).map_err(|e| {
        format!(
            "cannot create the data directory {}: {e}",
            options.data_dir.display()
        )
    })?;
    let key_file = options
        .idempotency_key_file
        .clone()
        .unwrap_or_else(|| options.data_dir.join(RESPONSE_KEY_FILE));
    let response_key = response_key(&key_file)?;
    let store = match options.database_url.as_deref() {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            SqlStore::connect_postgres(url).await?
        }
        Some(url) if url.starts_with("sqlite://") => {
            let path = url.trim_start_matches("sqlite://");
            SqlStore::open_sqlite(std::path::Path::new(path)).await?
        }
        Some(_) => {
            return Err(
                "--database-url must start with postgres://, postgresql:// or sqlite://".into(),
            );
        }
        None => SqlStore::open_sqlite(&options.data_dir.join("envelope.sqlite3")).await?,
    };
    match response_key.check_against(&store).await? {
        KeyCheck::Recorded => {
            tracing::info!(key_file = %key_file.display(), "this database's records are encrypted with this idempotency key from now on");
        }
        KeyCheck::Matches => {}
        KeyCheck::Mismatch => return Err(key_mismatch(&key_file).into()),
    }
    let blobs: Arc<dyn BlobStore> = match options.blob_url.as_deref() {
        None => Arc::new(store.blobs()),
        Some(url) if url.starts_with("s3://") => Arc::new(S3BlobStore::from_env(url)?),
        Some(_) => return Err("--blob-url must start with s3://".into()),
    };
    Ok(OpenedStore {
        store: Arc::new(store.clone()),
        blobs,
        sql: store,
        response_key,
    })
}

/// Why a start with another key than the database's is refused, and what to set.
pub fn key_mismatch(key_file: &Path) -> String {
    format!(
        "the idempotency key in {} is not the key this database's records were written with, so \
         this server could not read its idempotency records or webhook secrets. Servers that \
         share a database must share one key file: set --idempotency-key-file (or \
         ENVELOPE_IDEMPOTENCY_KEY_FILE) to a copy of the key file of the servers already using \
         this database (their <data-dir>/idempotency.key unless they set one). Nothing was changed.",
        key_file.display()
    )
}

/// Reads the key file, creating it (0600) on first start.
fn response_key(path: &Path) -> Result<ResponseKey, BoxError> {
    match std::fs::read(path) {
        Ok(bytes) => {
            return ResponseKey::from_stored(&bytes).ok_or_else(|| {
                format!("{} holds no usable key (64 hex digits)", path.display()).into()
            });
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("cannot read {}: {e}", path.display()).into()),
    }
    // Written whole beside it, then linked into place: a link fails if the name exists, so two
    // servers starting at once agree on one key, and neither ever reads a half-written file.
    let key = ResponseKey::random();
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let written = private::create_new(&tmp).and_then(|mut f| {
        f.write_all(key.to_stored().as_bytes())?;
        f.sync_all()
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("cannot create {}: {e}", path.display()).into());
    }
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(key),
        // Another process created it first: use theirs.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => response_key(path),
        Err(e) => Err(format!("cannot create {}: {e}", path.display()).into()),
    }
}

/// Name of the idempotency records' key file in the data dir.
pub const RESPONSE_KEY_FILE: &str = "idempotency.key";
