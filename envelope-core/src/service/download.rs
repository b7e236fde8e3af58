//! What a download link gives ([`Download`]), read as it is sent: a file's bytes stream from
//! the blob store ([`FileBody`]), an archive is written while it is read (`archive.rs`).
//!
//! A link is first looked up ([`SigningService::resolve_download`]: token, expiry), which
//! reads no byte; then either opened ([`DownloadLink::open`]) or, for a file stored as one
//! blob, handed out as a URL of the blob store ([`DownloadLink::direct_url`]) when the caller
//! prefers that (the server's presigned downloads). Memory while a file is sent stays one
//! chunk of the store's answer (plus, for a signed copy, its update, read whole: a few
//! kilobytes), whatever the file's size. This module never speaks HTTP: the caller chooses
//! the content type and disposition a direct URL answers with.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_util::Stream;

use super::SigningService;
use super::archive::ArchiveBody;
use crate::error::{Error, Result};
use crate::store::{BlobStream, DirectRead, FileLink};

/// What a download link gives: one file, or an archive written as it is read. Both are read
/// as they are sent; [`Download::collect`] gives the bytes whole.
pub enum Download {
    /// A single document, read from the blob store as it is sent.
    File {
        /// The name offered for download.
        file_name: String,
        /// The content of the document, with its length.
        body: FileBody,
    },
    /// Several documents, served as one ZIP archive built while streaming.
    Archive {
        /// The name offered for download, ending in `.zip`.
        file_name: String,
        /// The archive's content.
        body: ArchiveBody,
    },
}

impl Download {
    /// The file name the download is offered under.
    pub fn file_name(&self) -> &str {
        match self {
            Download::File { file_name, .. } | Download::Archive { file_name, .. } => file_name,
        }
    }

    /// The whole download in memory (for callers that want bytes; the server streams).
    pub async fn collect(self) -> Result<(String, Bytes)> {
        match self {
            Download::File { file_name, body } => Ok((file_name, body.collect().await?)),
            Download::Archive { file_name, body } => {
                let bytes = body
                    .collect()
                    .await
                    .map_err(|e| Error::Internal(format!("archive failed: {e}")))?;
                Ok((file_name, bytes))
            }
        }
    }
}

impl std::fmt::Debug for Download {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Download")
            .field("file_name", &self.file_name())
            .finish_non_exhaustive()
    }
}

/// The bytes of one file as they are read from the blob store: chunks in order, [`size`]
/// bytes in all (known before the first chunk). A read that fails mid-way ends the stream
/// with an error (a server then cuts the connection), never with a file that looks whole.
///
/// [`size`]: FileBody::size
#[derive(Debug)]
pub struct FileBody {
    stream: BlobStream,
}

impl FileBody {
    /// Bytes already in memory.
    pub fn from_bytes(bytes: Bytes) -> FileBody {
        FileBody {
            stream: BlobStream::from_bytes(bytes),
        }
    }

    /// The file's length in bytes: what the stream gives in all.
    pub fn size(&self) -> u64 {
        self.stream.size()
    }

    /// Every chunk, joined. A store failure is [`Error::Unavailable`].
    pub async fn collect(self) -> Result<Bytes> {
        Ok(self.stream.collect().await?)
    }
}

impl From<BlobStream> for FileBody {
    fn from(stream: BlobStream) -> FileBody {
        FileBody { stream }
    }
}

impl Stream for FileBody {
    type Item = io::Result<Bytes>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::new(&mut self.stream).poll_next(cx).map(|chunk| {
            chunk.map(|c| {
                c.map_err(|e| {
                    tracing::warn!(error = %e, "a file could not be read to the end");
                    io::Error::other("the file could not be read")
                })
            })
        })
    }
}

/// A download link that exists and has not expired, before any byte is read
/// ([`SigningService::resolve_download`]).
pub struct DownloadLink {
    svc: SigningService,
    link: FileLink,
}

impl std::fmt::Debug for DownloadLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DownloadLink")
            .field("file_name", &self.link.file_name)
            .finish_non_exhaustive()
    }
}

impl DownloadLink {
    pub(crate) fn new(svc: SigningService, link: FileLink) -> DownloadLink {
        DownloadLink { svc, link }
    }

    /// The name the file is offered under.
    pub fn file_name(&self) -> &str {
        &self.link.file_name
    }

    /// The media type the file is served as: `application/pdf` for documents, audit trails
    /// and PDF attachments, `image/png` or `image/jpeg` for a signer's picture (extensions
    /// E14), `application/zip` for the archive.
    pub fn content_type(&self) -> &'static str {
        if self.link.archive.is_some() {
            return "application/zip";
        }
        match self.link.content_type.as_deref() {
            Some("image/png") => "image/png",
            Some("image/jpeg") => "image/jpeg",
            _ => "application/pdf",
        }
    }

    /// True when the link gives one stored blob as it is: an original or an audit trail, not
    /// a signed copy kept as a delta (two blobs) nor an archive (written when read). Only
    /// such a file can be read straight from the blob store.
    pub fn is_one_blob(&self) -> bool {
        self.link.base.is_none() && self.link.archive.is_none()
    }

    /// A URL of the blob store that gives this file on the terms of `read` (S3: a presigned
    /// `GET`); `None` when the file is not one blob ([`DownloadLink::is_one_blob`]), the store
    /// makes no such URLs, or the blob is gone: then [`DownloadLink::open`] serves it (or
    /// says it was deleted).
    pub async fn direct_url(&self, read: &DirectRead) -> Result<Option<String>> {
        if !self.is_one_blob() {
            return Ok(None);
        }
        Ok(self
            .svc
            .inner
            .blobs
            .direct_url(&self.link.blob, read)
            .await?)
    }

    /// The file, as it is read, or the archive, as it is written. A file whose blob retention
    /// deleted is [`Error::FileDeleted`].
    pub async fn open(self) -> Result<Download> {
        let DownloadLink { svc, link } = self;
        if let Some(of) = &link.archive {
            let body = svc.open_archive(of).await?;
            return Ok(Download::Archive {
                file_name: link.file_name,
                body,
            });
        }
        match svc.read_stream(&link.blob, link.base.as_deref()).await? {
            Some(stream) => Ok(Download::File {
                file_name: link.file_name,
                body: stream.into(),
            }),
            // Retention deleted the file after this link was read or made (links of a blob
            // no record holds are deleted with its last hold, but one made in between stays
            // until it expires).
            None => {
                tracing::warn!(blob = %link.blob, "a download link names a deleted blob");
                Err(Error::FileDeleted {
                    kind: "requested",
                    deleted_at: svc.now(),
                })
            }
        }
    }
}
