//! Opening the store: the one function every command goes through.
//!
//! | option | store |
//! |---|---|
//! | (default) | SQLite file `envelope.sqlite3` in `--data-dir`, PDFs in the same database |
//! | `--database-url postgres://...` | PostgreSQL (several servers may share it), PDFs in it too |
//! | `--database-url sqlite:///path/file.db` | SQLite at that path |

use std::path::PathBuf;
use std::sync::Arc;

use envelope_core::error::BoxError;
use envelope_core::store::SqlStore;
use envelope_core::{BlobStore, Store};

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
    /// The same store, typed (for its engine and its commit counters).
    pub sql: SqlStore,
}

impl std::fmt::Debug for OpenedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenedStore").finish_non_exhaustive()
    }
}

/// Opens the store that `options` describe, migrating its schema.
pub async fn open_store(options: &StoreOptions) -> Result<OpenedStore, BoxError> {
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
        None => {
            std::fs::create_dir_all(&options.data_dir).map_err(|e| {
                format!(
                    "cannot create the data directory {}: {e}",
                    options.data_dir.display()
                )
            })?;
            SqlStore::open_sqlite(&options.data_dir.join("envelope.sqlite3")).await?
        }
    };
    let blobs = store.blobs();
    Ok(OpenedStore {
        store: Arc::new(store.clone()),
        blobs: Arc::new(blobs),
        sql: store,
    })
}
