//! The archive of a completed envelope (extensions E5): one ZIP holding every signed copy and
//! the audit trail, written while it is read.
//!
//! A link of kind `archive` names the envelope ([`ArchiveOf`] in its [`FileLink`]); opening it
//! starts a task that writes the ZIP (entries stored, not compressed: PDFs compress themselves)
//! into a 64 KiB pipe, one file at a time, each read from the blob store as it is written, and
//! the reader sends what comes out. Memory stays the pipe plus one chunk of the store's answer,
//! whatever the number and size of the documents. Since an entry's CRC is known only once it
//! is written, each entry's sizes and CRC follow its data (a data descriptor) and are in the
//! central directory, as every unzip tool reads them. A file that cannot be read mid-way ends the stream with an error (the
//! server then cuts the connection), never with a ZIP that looks whole.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use async_zip::base::write::ZipFileWriter;
use async_zip::{Compression, ZipEntryBuilder};
use bytes::{Bytes, BytesMut};
use futures_util::Stream;
use futures_util::{AsyncWriteExt as _, StreamExt as _};
use tokio::io::AsyncReadExt;

use super::SigningService;
use crate::error::{Error, Result};
use crate::model::{EnvelopeRecord, Scope, StoredFile};

/// Bytes between the ZIP writer and the response.
pub const ARCHIVE_PIPE: usize = 64 * 1024;

pub use crate::store::ArchiveOf;

/// The bytes of a ZIP as they are written: a stream of chunks of at most [`ARCHIVE_PIPE`]
/// bytes, ending with an error when a file could not be written.
pub struct ArchiveBody {
    inner: Pin<Box<dyn Stream<Item = io::Result<Bytes>> + Send>>,
}

impl std::fmt::Debug for ArchiveBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArchiveBody").finish_non_exhaustive()
    }
}

impl ArchiveBody {
    /// Every chunk, joined.
    pub async fn collect(mut self) -> io::Result<Bytes> {
        use futures_util::StreamExt;
        let mut out = BytesMut::new();
        while let Some(chunk) = self.next().await {
            out.extend_from_slice(&chunk?);
        }
        Ok(out.freeze())
    }
}

impl Stream for ArchiveBody {
    type Item = io::Result<Bytes>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

/// The names of the archive's entries, in order: every document's signed copy, then the audit
/// trail. A name already taken gets ` (2)`, ` (3)`... before its extension
/// (`contract-signed (2).pdf`).
pub(crate) fn entries(rec: &EnvelopeRecord) -> Option<Vec<(String, StoredFile)>> {
    let mut files: Vec<&StoredFile> = Vec::new();
    for n in 1..=rec.document_count() {
        files.push(rec.document(n)?.1?);
    }
    files.push(rec.audit_trail.as_ref()?);
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        let (stem, ext) = match f.file_name.rfind('.') {
            Some(i) if i > 0 => f.file_name.split_at(i),
            _ => (f.file_name.as_str(), ""),
        };
        let mut name = f.file_name.clone();
        let mut n = 2;
        while !taken.insert(name.clone()) {
            name = format!("{stem} ({n}){ext}");
            n += 1;
        }
        out.push((name, f.clone()));
    }
    Some(out)
}

impl SigningService {
    /// The archive of envelope `of`: its ZIP, written as it is read.
    pub(crate) async fn open_archive(&self, of: &ArchiveOf) -> Result<ArchiveBody> {
        let scope = Scope {
            account: of.account.clone(),
            mode: of.mode,
        };
        let gone = || Error::FileDeleted {
            kind: "archive",
            deleted_at: self.now(),
        };
        let rec = self
            .inner
            .store
            .get_envelope(&scope, &of.envelope)
            .await?
            .ok_or_else(gone)?;
        if rec.files_deleted_at.is_some() {
            return Err(gone());
        }
        let files = entries(&rec).ok_or_else(gone)?;
        let (reader, writer) = tokio::io::duplex(ARCHIVE_PIPE);
        let svc = self.clone();
        let id = rec.id.clone();
        let task = tokio::spawn(async move {
            // Every entry is far below 4 GiB (the file limit): no ZIP64 fields, which some
            // older unzip tools cannot read.
            let mut zip = ZipFileWriter::with_tokio(writer).force_no_zip64();
            let failed = |e: async_zip::error::ZipError| {
                Error::Internal(format!("writing the archive failed: {e}"))
            };
            for (name, f) in files {
                let base = f.delta.as_ref().map(|d| d.base.as_str());
                let mut chunks = svc
                    .read_stream(&f.blob, base)
                    .await?
                    .ok_or_else(|| Error::Internal(format!("{} of {id} is missing", f.blob)))?;
                let entry = ZipEntryBuilder::new(name.into(), Compression::Stored);
                let mut out = zip.write_entry_stream(entry).await.map_err(failed)?;
                while let Some(chunk) = chunks.next().await {
                    let chunk = chunk.map_err(Error::from)?;
                    out.write_all(&chunk)
                        .await
                        .map_err(|e| Error::Internal(format!("writing the archive failed: {e}")))?;
                }
                out.close().await.map_err(failed)?;
            }
            zip.close()
                .await
                .map_err(|e| Error::Internal(format!("writing the archive failed: {e}")))?;
            Ok::<(), Error>(())
        });
        let stream =
            futures_util::stream::unfold((reader, Some(task)), |(mut reader, task)| async move {
                let task = task?;
                let mut buf = BytesMut::with_capacity(ARCHIVE_PIPE);
                match reader.read_buf(&mut buf).await {
                    Ok(0) => {}
                    Ok(_) => return Some((Ok(buf.freeze()), (reader, Some(task)))),
                    Err(e) => return Some((Err(e), (reader, None))),
                }
                // The writer is done: a whole archive, or the reason it is not.
                let failed = match task.await {
                    Ok(Ok(())) => return None,
                    Ok(Err(e)) => {
                        tracing::warn!(error = %e, "archive not written");
                        "the archive could not be written"
                    }
                    Err(_) => "the archive writer stopped",
                };
                Some((Err(io::Error::other(failed)), (reader, None)))
            });
        Ok(ArchiveBody {
            inner: Box::pin(stream),
        })
    }
}
