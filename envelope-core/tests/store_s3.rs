//! [`S3BlobStore`] against a real S3-compatible server: moto's standalone server on a free port
//! of 127.0.0.1 (`envelope_testkit::moto`). The blob clauses of the store conformance suite run
//! on it, plus what only this store has: multipart uploads, prefixes, bounded retries.
//!
//! `cargo test -p envelope-core --features s3 --test store_s3` (the server enables `s3`, so
//! `cargo test --workspace` runs it too). Without `moto_server` it prints why it skipped and
//! passes, except in CI (`CI=true`), where a missing server fails.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use envelope_core::Timestamp;
use envelope_core::store::conformance;
use envelope_core::store::{BlobStore, MemoryStore, S3BlobStore, StoreError};
use envelope_core::store::{MULTIPART_THRESHOLD, PART_SIZE};

use envelope_testkit::moto::{self, Moto};

/// A fresh bucket on a fresh server, and a store over `s3://<bucket>/<prefix>`.
fn store(moto: &Moto, bucket: &str, prefix: &str) -> Arc<S3BlobStore> {
    moto.create_bucket(bucket);
    Arc::new(S3BlobStore::with_config(&format!("s3://{bucket}/{prefix}"), moto.config()).unwrap())
}

fn at(ms: i64) -> Timestamp {
    Timestamp::from_millis(1_767_225_600_000 + ms).unwrap()
}

#[tokio::test]
async fn conformance_blobs() {
    let Some(moto) = Moto::start("conformance_blobs") else {
        return;
    };
    let blobs = store(&moto, "conformance", "envelope");
    conformance::blobs(Arc::new(MemoryStore::new()), blobs).await;
}

/// Streamed reads hand out the object's bytes as they arrive: a 25 MB blob and a delta's two
/// parts read back through the stream equal what was stored.
#[tokio::test]
async fn conformance_blob_streams() {
    let Some(moto) = Moto::start("conformance_blob_streams") else {
        return;
    };
    let blobs = store(&moto, "streams", "envelope");
    conformance::blob_streams(Arc::new(MemoryStore::new()), blobs).await;
}

/// A presigned URL reads the object's bytes without credentials; none for a missing object.
#[tokio::test]
async fn presigned_urls_read_the_object() {
    let Some(moto) = Moto::start("presigned_urls_read_the_object") else {
        return;
    };
    let blobs = store(&moto, "presigned", "p");
    let pdf = Bytes::from_static(b"%PDF-1.7\n% presigned\n%%EOF\n");
    blobs.put("blob_doc", pdf.clone(), at(0)).await.unwrap();
    let read = envelope_core::store::DirectRead {
        expires_in: Duration::from_secs(300),
        content_type: "application/pdf".into(),
        content_disposition: "attachment; filename=\"contract.pdf\"".into(),
    };
    let url = blobs
        .direct_url("blob_doc", &read)
        .await
        .unwrap()
        .expect("a URL");
    assert!(
        url.starts_with(&format!("{}/presigned/p/blob_doc?", moto.endpoint())),
        "{url}"
    );
    for part in [
        "X-Amz-Expires=300",
        "response-content-type=application%2Fpdf",
        "response-content-disposition=attachment%3B%20filename%3D%22contract.pdf%22",
        "X-Amz-Signature=",
    ] {
        assert!(url.contains(part), "{part} missing from {url}");
    }
    // A plain GET with no credentials, as a browser following the redirect sends it.
    let got = http_get(&url);
    assert!(
        got.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&got)
    );
    assert!(got.ends_with(&pdf), "{}", String::from_utf8_lossy(&got));
    assert_eq!(blobs.direct_url("blob_gone", &read).await.unwrap(), None);
}

/// A presigned URL is dated by the store's clock, never the system's (invariant 6).
#[tokio::test]
async fn presigned_urls_are_dated_by_the_stores_clock() {
    let Some(moto) = Moto::start("presigned_urls_are_dated_by_the_stores_clock") else {
        return;
    };
    moto.create_bucket("dated");
    let clock = Arc::new(envelope_core::clock::ManualClock::new(at(0)));
    let blobs = S3BlobStore::with_config("s3://dated/p", moto.config())
        .unwrap()
        .with_clock(clock.clone());
    blobs
        .put("blob_doc", Bytes::from_static(b"%PDF"), at(0))
        .await
        .unwrap();
    let read = envelope_core::store::DirectRead {
        expires_in: Duration::from_secs(300),
        content_type: "application/pdf".into(),
        content_disposition: "attachment".into(),
    };
    let url = blobs.direct_url("blob_doc", &read).await.unwrap().unwrap();
    assert!(url.contains("X-Amz-Date=20260101T000000Z"), "{url}");
    clock.advance(chrono::Duration::days(1));
    let url = blobs.direct_url("blob_doc", &read).await.unwrap().unwrap();
    assert!(url.contains("X-Amz-Date=20260102T000000Z"), "{url}");
}

/// One HTTP/1.1 GET of an absolute `http://` URL; the whole answer.
fn http_get(url: &str) -> Vec<u8> {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = Vec::new();
    stream.read_to_end(&mut out).unwrap();
    out
}

#[tokio::test]
async fn conformance_blob_listing() {
    let Some(moto) = Moto::start("conformance_blob_listing") else {
        return;
    };
    let blobs = store(&moto, "listing", "");
    conformance::blob_listing(Arc::new(MemoryStore::new()), blobs).await;
}

/// A blob of the threshold or more goes up in parts (S3 gives such an object an ETag ending in
/// `-<parts>`); one below it in a single PUT. Both read back whole.
#[tokio::test]
async fn large_blobs_go_up_in_parts() {
    let Some(moto) = Moto::start("large_blobs_go_up_in_parts") else {
        return;
    };
    let blobs = store(&moto, "parts", "p");
    let big: Bytes = (0..MULTIPART_THRESHOLD + PART_SIZE + 12345)
        .map(|i| (i * 31 % 251) as u8)
        .collect::<Vec<u8>>()
        .into();
    blobs.put("blob_big", big.clone(), at(5)).await.unwrap();
    let parts = big.len().div_ceil(PART_SIZE);
    let etag = moto.etag("parts", "p/blob_big").expect("an ETag");
    assert!(etag.ends_with(&format!("-{parts}")), "{etag}");
    assert!(blobs.get("blob_big").await.unwrap().unwrap() == big);

    let small = big.slice(..MULTIPART_THRESHOLD - 1);
    blobs.put("blob_small", small.clone(), at(6)).await.unwrap();
    let etag = moto.etag("parts", "p/blob_small").expect("an ETag");
    assert!(!etag.contains('-'), "{etag}");
    assert!(blobs.get("blob_small").await.unwrap().unwrap() == small);

    // stored_at is the caller's, kept with the object, multipart or not.
    let listed = blobs.list(None, 10).await.unwrap();
    let times: Vec<_> = listed
        .iter()
        .map(|b| (b.key.as_str(), b.stored_at))
        .collect();
    assert_eq!(
        times,
        [("blob_big", Some(at(5))), ("blob_small", Some(at(6)))]
    );
    assert_eq!(moto.keys("parts"), ["p/blob_big", "p/blob_small"]);
}

/// Two prefixes in one bucket are two stores: neither lists, reads or deletes the other's blobs,
/// and objects that are not blobs of this store are left out of the listing.
#[tokio::test]
async fn prefixes_keep_stores_apart() {
    let Some(moto) = Moto::start("prefixes_keep_stores_apart") else {
        return;
    };
    let a = store(&moto, "shared", "a");
    let b = Arc::new(S3BlobStore::with_config("s3://shared/b", moto.config()).unwrap());
    let nested = Arc::new(S3BlobStore::with_config("s3://shared/a/deeper", moto.config()).unwrap());
    a.put("blob_1", Bytes::from_static(b"a1"), at(0))
        .await
        .unwrap();
    b.put("blob_1", Bytes::from_static(b"b1"), at(0))
        .await
        .unwrap();
    nested
        .put("blob_2", Bytes::from_static(b"n"), at(0))
        .await
        .unwrap();
    assert_eq!(a.get("blob_1").await.unwrap().unwrap(), &b"a1"[..]);
    assert_eq!(b.get("blob_1").await.unwrap().unwrap(), &b"b1"[..]);
    let keys = |l: Vec<envelope_core::store::BlobInfo>| -> Vec<String> {
        l.into_iter().map(|b| b.key).collect()
    };
    assert_eq!(keys(a.list(None, 100).await.unwrap()), ["blob_1"]);
    assert_eq!(keys(b.list(Some("blob_0"), 100).await.unwrap()), ["blob_1"]);
    assert!(b.list(Some("blob_1"), 100).await.unwrap().is_empty());
    assert!(b.delete("blob_1").await.unwrap());
    assert_eq!(a.get("blob_1").await.unwrap().unwrap(), &b"a1"[..]);
    // Keys that could name another object are refused, never sent.
    assert!(a.put("../b/blob_1", Bytes::new(), at(0)).await.is_err());
    assert_eq!(a.get("deeper/blob_2").await.unwrap(), None);
    assert!(!a.delete("deeper/blob_2").await.unwrap());
    assert_eq!(
        moto.keys("shared"),
        ["a/blob_1", "a/deeper/blob_2"],
        "b's blob deleted, the rest untouched"
    );
}

/// A server that does not answer is `Unavailable` after a bounded number of attempts, within
/// the 10 s retry budget, for every operation; nothing panics.
#[tokio::test]
async fn an_unreachable_server_is_unavailable_soon() {
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let blobs = S3BlobStore::with_config(
        "s3://nowhere/x",
        [
            ("aws_endpoint_url", format!("http://127.0.0.1:{port}")),
            ("aws_access_key_id", moto::ACCESS_KEY.into()),
            ("aws_secret_access_key", moto::SECRET_KEY.into()),
            ("aws_region", moto::REGION.into()),
            ("aws_allow_http", "true".into()),
        ],
    )
    .unwrap();
    let started = Instant::now();
    let unavailable = |r: Result<(), StoreError>| {
        assert!(matches!(r, Err(StoreError::Unavailable(_))), "{r:?}");
    };
    unavailable(blobs.put("blob_x", Bytes::from_static(b"x"), at(0)).await);
    unavailable(blobs.get("blob_x").await.map(drop));
    unavailable(blobs.list(None, 10).await.map(drop));
    unavailable(blobs.delete("blob_x").await.map(drop));
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "four operations took {:?}",
        started.elapsed()
    );
}

#[test]
fn bad_urls_are_refused_before_any_request() {
    for bad in [
        "s3://",
        "file:///tmp/x",
        "s3://Bucket/x",
        "s3://k:s@bucket/x",
    ] {
        assert!(S3BlobStore::from_env(bad).is_err(), "{bad}");
    }
}
