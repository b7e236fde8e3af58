//! [`DirBlobStore`]: one file per blob in a directory.
//!
//! A `put` writes a temporary file in the same directory, fsyncs it, renames it over the final
//! name and fsyncs the directory: rename is atomic within a file system, so after a crash the
//! blob is either whole or absent, never truncated; the directory fsync makes the rename itself
//! durable before `put` returns. Leftover `.tmp-*` files of a crash are never read.
//!
//! It must never accept a key that could name a path outside the directory.

use std::io::Write;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use bytes::Bytes;

use super::{BlobStore, StoreError, StoreResult};

/// Blobs as files under one directory (created if missing).
#[derive(Debug, Clone)]
pub struct DirBlobStore {
    dir: PathBuf,
}

impl DirBlobStore {
    /// Creates the directory (0700) when missing; blobs are written 0600.
    pub fn open(dir: impl Into<PathBuf>) -> std::io::Result<DirBlobStore> {
        let dir = dir.into();
        super::private::create_dir_all(&dir)?;
        Ok(DirBlobStore { dir })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Keys are made by the service (`blob_` + base62); anything else could escape the directory.
fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 128
        && !key.starts_with('.')
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}

fn io_err(e: std::io::Error) -> StoreError {
    StoreError::Unavailable(Box::new(e))
}

fn write_atomically(dir: &Path, key: &str, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = dir.join(format!(".tmp-{key}-{}", crate::ids::random_base62(12)));
    let result = (|| {
        let mut f = super::private::create_new(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, dir.join(key))?;
        std::fs::File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[async_trait]
impl BlobStore for DirBlobStore {
    async fn put(&self, key: &str, bytes: Bytes) -> StoreResult<()> {
        if !valid_key(key) {
            return Err(StoreError::Unavailable(
                format!("blob key {key:?} is not a plain file name").into(),
            ));
        }
        let dir = self.dir.clone();
        let key = key.to_string();
        tokio::task::spawn_blocking(move || write_atomically(&dir, &key, &bytes))
            .await
            .map_err(|e| StoreError::Unavailable(Box::new(e)))?
            .map_err(io_err)
    }

    async fn get(&self, key: &str) -> StoreResult<Option<Bytes>> {
        if !valid_key(key) {
            return Ok(None); // no such key can have been stored
        }
        match tokio::fs::read(self.dir.join(key)).await {
            Ok(v) => Ok(Some(Bytes::from(v))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_cannot_leave_the_directory() {
        for ok in ["blob_abc123", "a-b.c_d"] {
            assert!(valid_key(ok), "{ok}");
        }
        for bad in [
            "",
            "../x",
            "a/b",
            "/etc/passwd",
            ".hidden",
            "..",
            "a\\b",
            "a\0b",
        ] {
            assert!(!valid_key(bad), "{bad:?}");
        }
    }

    #[tokio::test]
    async fn put_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = DirBlobStore::open(dir.path()).unwrap();
        store
            .put("blob_x", Bytes::from_static(b"abc"))
            .await
            .unwrap();
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["blob_x"]);
        assert!(store.put("../x", Bytes::new()).await.is_err());
        assert_eq!(store.get("../x").await.unwrap(), None);
    }
}
