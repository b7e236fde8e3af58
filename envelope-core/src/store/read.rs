//! Reading a blob without holding it whole: [`BlobStream`], and [`DirectRead`], the terms of a
//! URL from which a client reads a blob straight from the store (an S3 presigned `GET`).
//!
//! A store that keeps bytes elsewhere than memory streams them as they are read (S3 as they
//! arrive; SQL and directory stores 256 KiB at a time), so that serving a 25 MB document never
//! holds 25 MB; the memory store wraps the bytes it holds.
//! Nothing here knows about HTTP: a [`DirectRead`] carries the values a store is asked to
//! answer with, which the caller chose.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures_util::{Stream, StreamExt};

use super::StoreResult;

/// The bytes of one blob as they are read: its size, known before the first chunk, and its
/// chunks in order. A failure mid-way ends the stream with the error, never with fewer bytes
/// that look whole.
pub struct BlobStream {
    size: u64,
    chunks: Pin<Box<dyn Stream<Item = StoreResult<Bytes>> + Send>>,
}

impl BlobStream {
    /// A stream of `size` bytes in `chunks`. The chunks must add up to `size`.
    pub fn new(
        size: u64,
        chunks: impl Stream<Item = StoreResult<Bytes>> + Send + 'static,
    ) -> BlobStream {
        BlobStream {
            size,
            chunks: Box::pin(chunks),
        }
    }

    /// Bytes already in memory, as one chunk (none for an empty blob).
    pub fn from_bytes(bytes: Bytes) -> BlobStream {
        let size = bytes.len() as u64;
        let chunk = (!bytes.is_empty()).then_some(Ok(bytes));
        BlobStream::new(size, futures_util::stream::iter(chunk))
    }

    /// The blob's length in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// This stream's chunks, then `next`'s: `size` is the sum.
    pub fn chain(self, next: BlobStream) -> BlobStream {
        BlobStream::new(self.size + next.size, self.chunks.chain(next.chunks))
    }

    /// Every chunk, joined (for callers that want the bytes whole).
    pub async fn collect(mut self) -> StoreResult<Bytes> {
        let mut out = BytesMut::with_capacity(usize::try_from(self.size).unwrap_or(0));
        while let Some(chunk) = self.chunks.next().await {
            out.extend_from_slice(&chunk?);
        }
        Ok(out.freeze())
    }
}

impl Stream for BlobStream {
    type Item = StoreResult<Bytes>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.chunks.as_mut().poll_next(cx)
    }
}

impl std::fmt::Debug for BlobStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlobStream")
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

/// What a URL of [`BlobStore::direct_url`](super::BlobStore::direct_url) must give: for how
/// long it reads the blob, and the content type and disposition the store answers it with
/// (S3: `response-content-type` and `response-content-disposition`, which the signature
/// covers, so the client cannot change them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectRead {
    /// How long the URL works from now.
    pub expires_in: Duration,
    /// The media type the store answers with (`application/pdf`).
    pub content_type: String,
    /// The disposition the store answers with, as the caller writes it.
    pub content_disposition: String,
}
