//! Clause: blob round trips.

use super::*;

/// Blobs: put and get, unknown keys, a 25 MB round trip.
pub async fn blobs(_: Arc<dyn Store>, blobs: Arc<dyn BlobStore>) {
    let key = format!("blob_{}", crate::ids::random_base62(32));
    assert_eq!(blobs.get(&key).await.unwrap(), None);
    blobs
        .put(&key, Bytes::from_static(b"%PDF-1.7\n"))
        .await
        .unwrap();
    assert_eq!(
        blobs.get(&key).await.unwrap(),
        Some(Bytes::from_static(b"%PDF-1.7\n"))
    );
    let empty = format!("blob_{}", crate::ids::random_base62(32));
    blobs.put(&empty, Bytes::new()).await.unwrap();
    assert_eq!(blobs.get(&empty).await.unwrap(), Some(Bytes::new()));

    // 25 MB of bytes that do not compress, every byte value included.
    let mut big = Vec::with_capacity(25 << 20);
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    while big.len() < 25 << 20 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        big.extend_from_slice(&x.to_le_bytes());
    }
    let big = Bytes::from(big);
    let big_key = format!("blob_{}", crate::ids::random_base62(32));
    blobs.put(&big_key, big.clone()).await.unwrap();
    let back = blobs.get(&big_key).await.unwrap().expect("big blob");
    assert_eq!(back.len(), big.len());
    assert!(back == big, "25 MB blob differs after the round trip");
}
