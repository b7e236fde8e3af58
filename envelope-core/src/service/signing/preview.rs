//! What a signer is shown of a document that is not signed yet: the original, then one
//! incremental update holding the values so far and the painted-over tags.
//!
//! The update is made once per record version and document, and kept (like the page pictures):
//! every later request of that version streams the original from the blob store and sends the
//! kept update after it. A request never holds the whole file, and forty readers of one link
//! cost forty chunks, not forty copies and forty stampings. Requests for a version whose update
//! is being made wait for it rather than making their own (one stamping, one read of the
//! original, whatever the number of readers).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use tokio::sync::OnceCell;

use super::SigningService;
use crate::error::{Error, Result};
use crate::ids::EnvelopeId;
use crate::model::EnvelopeRecord;
use crate::pdf;
use crate::service::FileBody;
use crate::store::BlobStream;

/// Bytes of kept updates, all versions together; past it the oldest go first. An update is a
/// few kilobytes (text stamps), up to a few hundred with drawn signatures.
const KEPT_BYTES: usize = 16 << 20;
/// Versions kept at most, whatever their size.
const KEPT_VERSIONS: usize = 4_096;

/// Envelope, document (from 1) and record version.
type Key = (EnvelopeId, u32, u64);

/// The updates made lately, by version. A cell is in the map from the first request of its
/// version on, so that the requests that follow wait on it instead of stamping again.
#[derive(Default)]
pub(crate) struct Previews {
    state: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    cells: HashMap<Key, Arc<OnceCell<Bytes>>>,
    /// Keys from the oldest to the newest.
    order: VecDeque<Key>,
    bytes: usize,
}

impl std::fmt::Debug for Previews {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        f.debug_struct("Previews")
            .field("versions", &s.cells.len())
            .field("bytes", &s.bytes)
            .finish()
    }
}

impl Previews {
    /// The cell of `key`: the kept one, or a new empty one now in the map.
    fn cell(&self, key: &Key) -> Arc<OnceCell<Bytes>> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(cell) = s.cells.get(key) {
            return cell.clone();
        }
        let cell = Arc::new(OnceCell::new());
        s.cells.insert(key.clone(), cell.clone());
        s.order.push_back(key.clone());
        cell
    }

    /// Counts a made update against the budget and drops the oldest versions past it (a
    /// version being made is never counted, so it is never the one dropped for its own size).
    fn made(&self, size: usize) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.bytes += size;
        while s.bytes > KEPT_BYTES || s.cells.len() > KEPT_VERSIONS {
            let Some(oldest) = s.order.pop_front() else {
                break;
            };
            if let Some(gone) = s.cells.remove(&oldest) {
                s.bytes -= gone.get().map_or(0, Bytes::len);
            }
        }
    }

    /// Forgets a version whose update could not be made (the next request tries again).
    fn failed(&self, key: &Key) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.cells.get(key).is_some_and(|c| !c.initialized()) {
            s.cells.remove(key);
            s.order.retain(|k| k != key);
        }
    }
}

impl SigningService {
    /// Document `document` of `rec` as a signer sees it, as it is read: the signed copy once
    /// there is one, else the original followed by the kept update of this version (made now
    /// when it is the first request of the version).
    pub(crate) async fn shown_stream(
        &self,
        rec: &EnvelopeRecord,
        document: u32,
    ) -> Result<(String, FileBody)> {
        let (original, signed) = rec
            .document(document)
            .ok_or_else(|| Error::not_found("document", &document.to_string()))?;
        let file = signed.unwrap_or(original);
        let missing = || Error::Internal(format!("document {} is missing", file.blob));
        let base = file.delta.as_ref().map(|d| d.base.as_str());
        if signed.is_some() {
            let stream = self
                .read_stream(&file.blob, base)
                .await?
                .ok_or_else(missing)?;
            return Ok((file.file_name.clone(), stream.into()));
        }
        let update = self.preview_update(rec, document).await?;
        let head = self
            .read_stream(&file.blob, base)
            .await?
            .ok_or_else(missing)?;
        let body = head.chain(BlobStream::from_bytes(update));
        Ok((file.file_name.clone(), body.into()))
    }

    /// The update that turns document `document`'s original into what the signer is shown
    /// at `rec`'s version: kept, or made once (reading the original whole, on the PDF pool).
    pub(crate) async fn preview_update(
        &self,
        rec: &EnvelopeRecord,
        document: u32,
    ) -> Result<Bytes> {
        let previews = &self.inner.previews;
        let key = (rec.id.clone(), document, rec.version);
        let cell = previews.cell(&key);
        let made = cell
            .get_or_try_init(|| async {
                let (original, _) = rec
                    .document(document)
                    .ok_or_else(|| Error::not_found("document", &document.to_string()))?;
                let bytes = self.read_file(original).await?.ok_or_else(|| {
                    Error::Internal(format!("document {} is missing", original.blob))
                })?;
                let request = super::super::complete::stamp_request_for(rec, document, false)?;
                let update = self
                    .blocking("preview", move || pdf::stamp_update(&bytes, &request))
                    .await?
                    .map_err(|e| Error::Internal(format!("preview failed: {e}")))?;
                let update = Bytes::from(update);
                previews.made(update.len());
                Ok::<_, Error>(update)
            })
            .await;
        match made {
            Ok(update) => Ok(update.clone()),
            Err(e) => {
                previews.failed(&key);
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u64) -> Key {
        (EnvelopeId::trusted(format!("env_{n}")), 1, n)
    }

    #[tokio::test]
    async fn the_oldest_versions_go_past_the_budget_and_a_failed_one_is_tried_again() {
        let previews = Previews::default();
        for n in 0..3 {
            let cell = previews.cell(&key(n));
            cell.set(Bytes::from(vec![0u8; KEPT_BYTES / 2])).unwrap();
            previews.made(KEPT_BYTES / 2);
        }
        // Three halves do not fit: the first version went.
        assert!(previews.cell(&key(0)).get().is_none());
        assert!(previews.cell(&key(2)).get().is_some());
        // A version whose update failed is forgotten; one that was made is kept.
        let failing = previews.cell(&key(9));
        previews.failed(&key(9));
        assert!(!Arc::ptr_eq(&failing, &previews.cell(&key(9))));
        previews.failed(&key(2));
        assert!(previews.cell(&key(2)).get().is_some());
    }
}
