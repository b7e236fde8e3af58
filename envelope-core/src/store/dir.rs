//! [`DirBlobStore`]: one file per blob in a directory.
//!
//! A `put` writes a temporary file in the same directory, fsyncs it, renames it over the final
//! name and fsyncs the directory: rename is atomic within a file system, so after a crash the
//! blob is either whole or absent, never truncated; the directory fsync makes the rename itself
//! durable before `put` returns. Leftover `.tmp-*` files of a crash are never read.
//! A blob's `stored_at` is its file's modification time, set before the rename.
//!
//! It must never accept a key that could name a path outside the directory.

use std::io::Write;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use bytes::Bytes;

use super::{BlobInfo, BlobStore, StoreError, StoreResult};
use crate::clock::Timestamp;

/// Blobs as files under one directory (created if missing).
#[derive(Debug, Clone)]
pub struct DirBlobStore {
    dir: PathBuf,
}

impl DirBlobStore {
    /// Creates the directory (0700) when missing; blobs are written 0600.
    pub fn open(dir: impl Into<PathBuf>) -> std::io::Result<DirBlobStore> {
        let dir = dir.into();
        crate::private_files::create_dir_all(&dir)?;
        Ok(DirBlobStore { dir })
    }

    /// The directory the blobs are stored in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Keys are made by the service (`blob_` + base62); anything else could escape the directory.
pub(super) fn valid_key(key: &str) -> bool {
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

fn system_time(t: Timestamp) -> std::time::SystemTime {
    let ms = t.millis();
    let at = std::time::Duration::from_millis(ms.unsigned_abs());
    if ms >= 0 {
        std::time::UNIX_EPOCH + at
    } else {
        std::time::UNIX_EPOCH - at
    }
}

fn timestamp(t: std::time::SystemTime) -> Option<Timestamp> {
    let ms = match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).ok()?,
        Err(e) => -i64::try_from(e.duration().as_millis()).ok()?,
    };
    Timestamp::from_millis(ms)
}

fn write_atomically(
    dir: &Path,
    key: &str,
    bytes: &[u8],
    stored_at: Timestamp,
) -> std::io::Result<()> {
    let tmp = dir.join(format!(".tmp-{key}-{}", crate::ids::random_base62(12)));
    let result = (|| {
        let mut f = crate::private_files::create_new(&tmp)?;
        f.write_all(bytes)?;
        f.set_modified(system_time(stored_at))?;
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
    async fn put(&self, key: &str, bytes: Bytes, stored_at: Timestamp) -> StoreResult<()> {
        if !valid_key(key) {
            return Err(StoreError::Unavailable(
                format!("blob key {key:?} is not a plain file name").into(),
            ));
        }
        let dir = self.dir.clone();
        let key = key.to_string();
        tokio::task::spawn_blocking(move || write_atomically(&dir, &key, &bytes, stored_at))
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

    /// Reads the whole directory for each page (blobs are files; a directory has no index to
    /// start from): fine for the thousands of a page, slow for millions of files.
    async fn list(&self, after: Option<&str>, limit: usize) -> StoreResult<Vec<BlobInfo>> {
        let dir = self.dir.clone();
        let after = after.map(str::to_string);
        let listed = tokio::task::spawn_blocking(move || -> std::io::Result<Vec<BlobInfo>> {
            let mut keys: Vec<String> = Vec::new();
            for entry in std::fs::read_dir(&dir)? {
                let Ok(name) = entry?.file_name().into_string() else {
                    continue; // not a name this store writes
                };
                if valid_key(&name) && after.as_deref().is_none_or(|a| name.as_str() > a) {
                    keys.push(name);
                }
            }
            keys.sort_unstable();
            keys.truncate(limit);
            let mut out = Vec::with_capacity(keys.len());
            for key in keys {
                match std::fs::metadata(dir.join(&key)) {
                    Ok(m) => out.push(BlobInfo {
                        stored_at: m.modified().ok().and_then(timestamp),
                        key,
                    }),
                    // Deleted since the directory was read.
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(out)
        })
        .await
        .map_err(|e| StoreError::Unavailable(Box::new(e)))?;
        listed.map_err(io_err)
    }

    async fn delete(&self, key: &str) -> StoreResult<bool> {
        if !valid_key(key) {
            return Ok(false);
        }
        match tokio::fs::remove_file(self.dir.join(key)).await {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
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
        let at = Timestamp::from_millis(1_767_225_600_123).unwrap();
        store
            .put("blob_x", Bytes::from_static(b"abc"), at)
            .await
            .unwrap();
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["blob_x"]);
        assert!(store.put("../x", Bytes::new(), at).await.is_err());
        assert_eq!(store.get("../x").await.unwrap(), None);
        assert!(!store.delete("../x").await.unwrap());
        // The time given to `put` is the file's, to the millisecond.
        let listed = store.list(None, 10).await.unwrap();
        assert_eq!(
            listed,
            [BlobInfo {
                key: "blob_x".into(),
                stored_at: Some(at)
            }]
        );
    }
}
