//! [`copy_blobs`]: every blob of one [`BlobStore`] into another (moving a deployment's PDFs
//! from its database into an S3 bucket), never deleting any.

use super::{BlobStore, StoreResult};
use crate::clock::Timestamp;

/// Blobs asked for per [`BlobStore::list`] page while copying.
pub const COPY_PAGE: usize = 100;

/// What [`copy_blobs`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CopyReport {
    /// Blobs written to the destination.
    pub copied: u64,
    /// Bytes of those blobs.
    pub copied_bytes: u64,
    /// Blobs the destination already held with the same size (an earlier copy), left as
    /// they are.
    pub skipped: u64,
    /// Bytes of those blobs.
    pub skipped_bytes: u64,
    /// Blobs listed but gone before they were read (deleted meanwhile by the orphan sweep or
    /// retention): nothing to copy.
    pub vanished: u64,
}

/// Copies every blob of `from` into `to`, under the same key, with the `stored_at` that `from`
/// lists (`now` for a blob listed without one: it was stored before times were kept). A blob
/// that `to` already has with the same size is skipped, so that a copy cut short is resumed
/// by running it again; one with another size (a copy cut mid-way by a store that is not
/// atomic) is written again. Nothing is ever deleted from either store.
///
/// Walks `from` with its `list` cursor, a page of [`COPY_PAGE`] at a time, and holds one blob
/// in memory at a time. `progress` is called after each page with the report so far.
pub async fn copy_blobs(
    from: &dyn BlobStore,
    to: &dyn BlobStore,
    now: Timestamp,
    mut progress: impl FnMut(&CopyReport),
) -> StoreResult<CopyReport> {
    let mut report = CopyReport::default();
    let mut after: Option<String> = None;
    loop {
        let page = from.list(after.as_deref(), COPY_PAGE).await?;
        for info in &page {
            let Some(bytes) = from.get(&info.key).await? else {
                report.vanished += 1;
                continue;
            };
            let size = bytes.len() as u64;
            if to.size(&info.key).await? == Some(size) {
                report.skipped += 1;
                report.skipped_bytes += size;
                continue;
            }
            to.put(&info.key, bytes, info.stored_at.unwrap_or(now))
                .await?;
            report.copied += 1;
            report.copied_bytes += size;
        }
        progress(&report);
        if page.len() < COPY_PAGE {
            return Ok(report);
        }
        after = page.last().map(|b| b.key.clone());
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;
    use crate::store::MemoryBlobStore;

    fn t(ms: i64) -> Timestamp {
        Timestamp::from_millis(1_767_225_600_000 + ms).unwrap()
    }

    #[tokio::test]
    async fn copies_every_blob_once_and_resumes_by_skipping() {
        let (from, to) = (MemoryBlobStore::new(), MemoryBlobStore::new());
        for i in 0..(COPY_PAGE + 7) {
            let bytes = Bytes::from(vec![b'x'; i]);
            from.put(&format!("blob_{i:04}"), bytes, t(i as i64))
                .await
                .unwrap();
        }
        // An earlier copy that got as far as blob 3, and a blob cut short.
        for i in 0..4 {
            let k = format!("blob_{i:04}");
            to.put(&k, from.get(&k).await.unwrap().unwrap(), t(0))
                .await
                .unwrap();
        }
        to.put("blob_0010", Bytes::from_static(b"cut"), t(0))
            .await
            .unwrap();
        let mut pages = 0;
        let report = copy_blobs(&from, &to, t(99_999), |_| pages += 1)
            .await
            .unwrap();
        assert_eq!(pages, 2);
        let total: u64 = (0..(COPY_PAGE as u64 + 7)).sum();
        assert_eq!(report.skipped, 4);
        assert_eq!(report.skipped_bytes, 6);
        assert_eq!(report.copied, COPY_PAGE as u64 + 3);
        assert_eq!(report.copied_bytes + report.skipped_bytes, total);
        for i in 0..(COPY_PAGE + 7) {
            let k = format!("blob_{i:04}");
            assert_eq!(
                to.get(&k).await.unwrap(),
                from.get(&k).await.unwrap(),
                "{k}"
            );
        }
        // stored_at comes along; the source keeps everything.
        let listed = to.list(Some("blob_0100"), 1).await.unwrap();
        assert_eq!(listed[0].stored_at, Some(t(101)));
        assert_eq!(from.list(None, 1000).await.unwrap().len(), COPY_PAGE + 7);
        // Again: nothing left to copy.
        let again = copy_blobs(&from, &to, t(99_999), |_| {}).await.unwrap();
        assert_eq!((again.copied, again.skipped), (0, COPY_PAGE as u64 + 7));
    }
}
