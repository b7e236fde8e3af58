//! [`DirBlobStore`]: one file per blob in a directory.
//!
//! A `put` writes a temporary file in the same directory, fsyncs it, renames it over the final
//! name and fsyncs the directory: rename is atomic within a file system, so after a crash the
//! blob is either whole or absent, never truncated; the directory fsync makes the rename itself
//! durable before `put` returns. Leftover `.tmp-*` files of a crash are never read.
//! A blob's `stored_at` is its file's modification time, set before the rename.
//!
//! `get_stream` opens the file and reads it [`DirBlobStore::CHUNK`] bytes at a time as the
//! consumer asks: the open file is the inode of that moment, so a `put` that renames a new file
//! over the key, or a `delete`, meanwhile changes nothing the reader sees.
//!
//! It must never accept a key that could name a path outside the directory.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use bytes::Bytes;

use super::{BlobInfo, BlobStore, BlobStream, StoreError, StoreResult};
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

    /// The most bytes one chunk of [`BlobStore::get_stream`] holds (as `SqlBlobStore::CHUNK`).
    pub const CHUNK: usize = 256 * 1024;
}

/// An open blob file being streamed: the bytes left to read of the size it had when opened.
struct Reading {
    file: std::fs::File,
    left: u64,
}

impl Reading {
    /// The next chunk, read on a blocking thread; `None` once every byte was read. A file that
    /// ends early (cut by something else than this store) is an error, never a short blob.
    async fn next(self) -> StoreResult<Option<(Bytes, Reading)>> {
        if self.left == 0 {
            return Ok(None);
        }
        tokio::task::spawn_blocking(move || {
            let Reading { mut file, left } = self;
            let want =
                usize::try_from(left).map_or(DirBlobStore::CHUNK, |l| l.min(DirBlobStore::CHUNK));
            let mut buf = vec![0; want];
            let mut filled = 0;
            while filled < want {
                match file.read(&mut buf[filled..]) {
                    Ok(0) => {
                        return Err(StoreError::Unavailable(
                            "blob file ended before its size".into(),
                        ));
                    }
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(io_err(e)),
                }
            }
            let left = left - want as u64;
            Ok(Some((Bytes::from(buf), Reading { file, left })))
        })
        .await
        .map_err(|e| StoreError::Unavailable(Box::new(e)))?
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

    /// Opens the file; its chunks are read as the consumer asks for them.
    async fn get_stream(&self, key: &str) -> StoreResult<Option<BlobStream>> {
        if !valid_key(key) {
            return Ok(None);
        }
        let path = self.dir.join(key);
        let opened = tokio::task::spawn_blocking(move || -> std::io::Result<Option<Reading>> {
            let file = match std::fs::File::open(path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e),
            };
            let left = file.metadata()?.len();
            Ok(Some(Reading { file, left }))
        })
        .await
        .map_err(|e| StoreError::Unavailable(Box::new(e)))?
        .map_err(io_err)?;
        Ok(opened.map(|start| {
            let size = start.left;
            BlobStream::new(size, futures_util::stream::try_unfold(start, Reading::next))
        }))
    }

    /// The file's length: never reads the bytes.
    async fn size(&self, key: &str) -> StoreResult<Option<u64>> {
        if !valid_key(key) {
            return Ok(None);
        }
        match tokio::fs::metadata(self.dir.join(key)).await {
            Ok(m) => Ok(Some(m.len())),
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
