//! Upload bodies go to disk as they arrive, and into memory only when their turn comes.
//!
//! An upload (the two creates) takes three steps, each bounded on its own:
//!
//! 1. **Disk.** It reserves its declared length from the [`SpoolBudget`] (one account at most
//!    half of it), waiting at most `upload_wait`; a refusal drains the body first, so that the
//!    client can read the `503` ([`super::drain`]).
//! 2. **Spool.** Its body is written to a spool file as it arrives, in chunks of [`CHUNK`],
//!    under the same size limit and deadlines as a body read into memory ([`super::Frames`]),
//!    so it answers `413`, `408` and `400 invalid_body` exactly alike.
//! 3. **Turn.** It waits for a slot of a [`FairGate`] sized like the PDF pool, handed out in
//!    turns by account, at most `upload_wait`, then reads its file into memory and keeps the
//!    slot until its operation ends. Memory is bounded by slots times the largest body, not by
//!    how many uploads arrive at once.
//!
//! Spool files are owner-only (0600) and unlinked the moment they are created: the open file
//! is all there is, so every way out (success, error, a client that goes away, a timeout, even a
//! killed process) gives the disk back when the file is closed. What could outlive a crash is
//! a name from the instant between creating and unlinking; [`Uploads::sweep`] removes such
//! names (and only names of this form) at start.
//!
//! It must never hold a whole body in memory before its slot is taken.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hyper::HeaderMap;
use hyper::body::Incoming;

use envelope_core::Error;
use envelope_core::service::{FairGate, FairSlot};

use super::{BodyLimits, Frames, SpoolBudget};
use crate::error::ApiError;

/// Bytes gathered before one write to the spool file: few writes, little memory per upload.
const CHUNK: usize = 256 * 1024;

/// The prefix of spool file names (seen only between creating and unlinking a file).
const PREFIX: &str = "envelope-upload-";

/// Where uploads wait, shared by every request of one [`crate::App`].
#[derive(Debug, Clone)]
pub struct Uploads {
    dir: Arc<PathBuf>,
    budget: SpoolBudget,
    gate: Arc<FairGate>,
    wait: Duration,
}

/// An upload's body in memory, and its slot of the gate: memory held until the slot goes.
#[derive(Debug)]
pub struct Spooled {
    /// The whole body.
    pub bytes: Vec<u8>,
    /// Held until the operation that reads `bytes` ends.
    pub slot: FairSlot,
}

impl Uploads {
    /// Spool files in `dir`, at most `max_spool_bytes` of them at once; `slots` bodies in
    /// memory at once; waits for either bounded by `wait`.
    pub fn new(dir: PathBuf, max_spool_bytes: usize, slots: usize, wait: Duration) -> Uploads {
        Uploads {
            dir: Arc::new(dir),
            budget: SpoolBudget::new(max_spool_bytes, wait),
            gate: FairGate::new(slots),
            wait,
        }
    }

    /// The spool directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Spool bytes reserved now: 0 when no upload is arriving or waiting on disk.
    pub fn spool_reserved(&self) -> usize {
        self.budget.reserved()
    }

    /// Removes spool files that a crash left named in `dir` (see the module documentation);
    /// returns how many. Other files are left alone.
    pub fn sweep(dir: &Path) -> std::io::Result<usize> {
        let mut removed = 0;
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e),
        };
        for entry in entries {
            let entry = entry?;
            let ours = entry
                .file_name()
                .to_str()
                .is_some_and(|n| n.starts_with(PREFIX));
            if ours && entry.file_type()?.is_file() {
                std::fs::remove_file(entry.path())?;
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Receives the body of an upload of `account`: disk, spool, turn (module documentation).
    pub async fn receive(
        &self,
        account: &str,
        headers: &HeaderMap,
        body: Incoming,
        limits: BodyLimits,
    ) -> Result<Spooled, ApiError> {
        // Over the limit by its declared length: refused at once, as before spooling existed.
        let frames = Frames::start(headers, body, limits)?;
        let declared = frames.declared.map_or(limits.max_bytes, |n| n as usize);
        let reservation = match self.budget.reserve(account, declared).await {
            Ok(r) => r,
            Err(busy) => {
                drain_frames(frames).await;
                return Err(busy.into());
            }
        };
        let file = spool(&self.dir, frames).await?;
        let slot = tokio::time::timeout(self.wait, self.gate.acquire(account))
            .await
            .map_err(|_| self.busy())?;
        let bytes = load(file).await?;
        // On disk no more: the budget has it back before the operation runs.
        drop(reservation);
        Ok(Spooled { bytes, slot })
    }

    fn busy(&self) -> Error {
        Error::Busy {
            retry_after_secs: self.wait.as_secs().clamp(1, 60),
        }
    }
}

/// [`super::drain`] for frames already started.
async fn drain_frames(mut frames: Frames) {
    while let Ok(Some(_)) = frames.next().await {}
}

/// A spool file and the length written to it.
struct SpoolFile {
    file: std::fs::File,
    len: usize,
}

/// Writes every frame to a new, unlinked spool file in `dir`.
async fn spool(dir: &Path, mut frames: Frames) -> Result<SpoolFile, ApiError> {
    let dir = dir.to_path_buf();
    let mut file = blocking(move || {
        let named = tempfile::Builder::new().prefix(PREFIX).tempfile_in(&dir)?;
        // The name goes at once: only the open file holds the bytes (module documentation).
        Ok(named.into_file())
    })
    .await?;
    let mut buf = Vec::with_capacity(CHUNK);
    let mut len = 0;
    while let Some(data) = frames.next().await? {
        len += data.len();
        buf.extend_from_slice(&data);
        if buf.len() >= CHUNK {
            (file, buf) = write(file, buf).await?;
        }
    }
    if !buf.is_empty() {
        (file, _) = write(file, buf).await?;
    }
    Ok(SpoolFile { file, len })
}

/// Appends `buf` to `file` off the runtime's threads; gives both back, `buf` emptied.
async fn write(
    mut file: std::fs::File,
    mut buf: Vec<u8>,
) -> Result<(std::fs::File, Vec<u8>), ApiError> {
    blocking(move || {
        file.write_all(&buf)?;
        buf.clear();
        Ok((file, buf))
    })
    .await
}

/// Reads a spool file whole; closing it gives its disk back.
async fn load(spooled: SpoolFile) -> Result<Vec<u8>, ApiError> {
    let SpoolFile { mut file, len } = spooled;
    blocking(move || {
        file.seek(SeekFrom::Start(0))?;
        let mut bytes = Vec::with_capacity(len);
        file.take(len as u64).read_to_end(&mut bytes)?;
        if bytes.len() != len {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the spool file is shorter than what was written",
            ));
        }
        Ok(bytes)
    })
    .await
}

/// Runs file work on a blocking thread; an I/O error is a 500 whose cause is logged.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> Result<T, ApiError> {
    match tokio::task::spawn_blocking(f).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(Error::Internal(format!("upload spool: {e}")).into()),
        Err(e) => Err(Error::Internal(format!("upload spool task failed: {e}")).into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_removes_only_spool_names() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(format!("{PREFIX}abc")), b"x").unwrap();
        std::fs::write(dir.path().join("envelope.sqlite3"), b"y").unwrap();
        std::fs::create_dir(dir.path().join(format!("{PREFIX}dir"))).unwrap();
        assert_eq!(Uploads::sweep(dir.path()).unwrap(), 1);
        let mut left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, [format!("{PREFIX}dir"), "envelope.sqlite3".into()]);
        assert_eq!(Uploads::sweep(&dir.path().join("missing")).unwrap(), 0);
    }
}
