//! `envelope-server blobs copy --to s3://bucket/prefix`: the PDFs of the database's `blobs`
//! table into an S3-compatible bucket, so that a deployment that kept them in its database
//! can start with `--blob-url` and serve the same documents (docs/STORAGE.md, "Moving to S3").
//!
//! The work is `envelope_core::store::copy_blobs`; this module opens the two stores and
//! prints what was done. It never deletes anything, from either store.

use std::io::Write;

use envelope_core::error::BoxError;
use envelope_core::store::{CopyReport, S3BlobStore, copy_blobs};
use envelope_core::{Clock, SystemClock};

use crate::store::{StoreOptions, open_store};

/// Copies every blob of the database that `store` names into the bucket of `to`
/// (`s3://bucket/prefix`, `AWS_*` variables for credentials, region and endpoint), printing
/// progress and the totals to `out`.
pub async fn copy_to_bucket(
    store: &StoreOptions,
    to: &str,
    out: &mut dyn Write,
) -> Result<CopyReport, BoxError> {
    if store.blob_url.is_some() {
        return Err(
            "blobs copy reads the PDFs kept in the database: leave out --blob-url \
             (ENVELOPE_BLOB_URL) and name the bucket with --to"
                .into(),
        );
    }
    if !to.starts_with("s3://") {
        return Err("--to must start with s3://".into());
    }
    let bucket = S3BlobStore::from_env(to)?;
    let opened = open_store(store).await?;
    let from = opened.sql.blobs();
    let mut printed: std::io::Result<()> = Ok(());
    let report = copy_blobs(&from, &bucket, SystemClock.now(), |so_far| {
        if printed.is_ok() {
            printed = writeln!(
                out,
                "... {} copied, {} already there",
                so_far.copied, so_far.skipped
            );
        }
    })
    .await;
    opened.sql.close().await;
    let report = report.map_err(|e| format!("copying to {to} failed: {e}"))?;
    printed?;
    writeln!(
        out,
        "copied {} blobs ({} bytes) to {to}; {} already there with the same size ({} bytes) \
         were skipped; {} vanished while copying. Nothing was deleted.",
        report.copied, report.copied_bytes, report.skipped, report.skipped_bytes, report.vanished
    )?;
    Ok(report)
}
