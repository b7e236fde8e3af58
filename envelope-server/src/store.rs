//! Opening the store: the one function every command goes through.
//!
//! Today it returns the in-memory store. A durable SQLite/PostgreSQL store is being written on
//! another branch; when it lands, only [`open_store`] changes (pick it from
//! `database_url`, or a SQLite file under `data_dir`), and every command follows.

use std::path::PathBuf;
use std::sync::Arc;

use envelope_core::error::BoxError;
use envelope_core::{BlobStore, MemoryBlobStore, MemoryStore, Store};

/// Where data lives.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// Directory for a file database and document bytes.
    pub data_dir: PathBuf,
    /// `sqlite://...` or `postgres://...`; `None` means a store under `data_dir`.
    pub database_url: Option<String>,
}

/// An opened store.
#[derive(Clone)]
pub struct OpenedStore {
    pub store: Arc<dyn Store>,
    pub blobs: Arc<dyn BlobStore>,
    /// False when the data lives only as long as this process (the in-memory store): admin
    /// commands then warn that their change is lost.
    pub durable: bool,
}

impl std::fmt::Debug for OpenedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenedStore")
            .field("durable", &self.durable)
            .finish_non_exhaustive()
    }
}

/// Opens the store that `options` describe.
pub async fn open_store(options: &StoreOptions) -> Result<OpenedStore, BoxError> {
    if options.database_url.is_some() {
        tracing::warn!(
            "--database-url is accepted but no durable store is built in yet; using the in-memory store"
        );
    }
    Ok(OpenedStore {
        store: Arc::new(MemoryStore::new()),
        blobs: Arc::new(MemoryBlobStore::new()),
        durable: false,
    })
}
