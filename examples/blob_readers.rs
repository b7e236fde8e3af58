//! Memory of slow readers of one blob in a SQLite `SqlBlobStore` (docs/STORAGE.md, "Blobs in
//! chunks"): forty readers stream a 24 MB blob at a paced rate, first through `get_stream`
//! (chunks of 256 KiB), then as before schema 11 (the whole blob read with `get`, then sent);
//! the process's resident memory is printed before, at the peak and after the readers leave.
//!
//! ```sh
//! cargo run -p envelope-core --example blob_readers [readers] [bytes per second per reader]
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use envelope_core::clock::Timestamp;
use envelope_core::store::{BlobStore, BlobStream, SqlStore};
use futures_util::StreamExt;

/// The server's allocator, so that the figures are the server's (`envelope-server/src/main.rs`).
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Resident memory of this process, in MiB (Linux: `VmRSS` of /proc/self/status).
fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}

/// Reads `stream` at about `rate` bytes per second, holding each chunk while it is "sent", as
/// a server holds it until the socket takes it; returns the bytes read.
async fn drain(mut stream: BlobStream, rate: u64) -> u64 {
    let mut read = 0u64;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.expect("chunk");
        read += chunk.len() as u64;
        tokio::time::sleep(Duration::from_millis(
            chunk.len() as u64 * 1000 / rate.max(1),
        ))
        .await;
        drop(chunk);
    }
    read
}

/// Runs `readers` readers of `key` (each made by `open`), printing the resident memory.
async fn round<F, Fut>(label: &str, readers: usize, rate: u64, size: u64, open: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = BlobStream> + Send + 'static,
{
    let before = rss_mib();
    // The peak in KiB, sampled every 50 ms.
    let peak = Arc::new(AtomicU64::new((before * 1024.0) as u64));
    let sampler = tokio::spawn({
        let peak = peak.clone();
        async move {
            loop {
                peak.fetch_max((rss_mib() * 1024.0) as u64, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    });
    let tasks: Vec<_> = (0..readers)
        .map(|_| {
            let opened = open();
            tokio::spawn(async move { drain(opened.await, rate).await })
        })
        .collect();
    for t in tasks {
        assert_eq!(t.await.unwrap(), size, "every reader gets every byte");
    }
    sampler.abort();
    // jemalloc hands freed pages back to the system after about 10 s (its dirty decay).
    tokio::time::sleep(Duration::from_secs(12)).await;
    let peak = peak.load(Ordering::Relaxed) as f64 / 1024.0;
    println!(
        "{label}: {readers} readers of {size} bytes: resident {before:.0} MiB before, \
         {peak:.0} MiB at the peak (+{:.0}), {:.0} MiB after",
        peak - before,
        rss_mib()
    );
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let readers: usize = args.next().map_or(40, |a| a.parse().expect("readers"));
    let rate: u64 = args.next().map_or(2_000_000, |a| a.parse().expect("rate"));
    let dir = tempfile::tempdir().unwrap();
    let store = SqlStore::open_sqlite(dir.path().join("envelope.db"))
        .await
        .unwrap();
    let blobs = Arc::new(store.blobs());
    let size = 24_000_000usize;
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let bytes: Vec<u8> = (0..size)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let at = Timestamp::from_millis(0).unwrap();
    blobs.put("blob_big", Bytes::from(bytes), at).await.unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;

    let b = blobs.clone();
    round(
        "get_stream (chunks)",
        readers,
        rate,
        size as u64,
        move || {
            let b = b.clone();
            async move { b.get_stream("blob_big").await.unwrap().unwrap() }
        },
    )
    .await;
    let b = blobs.clone();
    round(
        "get (whole, as before)",
        readers,
        rate,
        size as u64,
        move || {
            let b = b.clone();
            async move { BlobStream::from_bytes(b.get("blob_big").await.unwrap().unwrap()) }
        },
    )
    .await;
    store.close().await;
}
