//! Clauses: blob round trips; listing and deleting blobs.

use super::*;

/// Blobs: put and get, unknown keys, a 25 MB round trip.
pub async fn blobs(_: Arc<dyn Store>, blobs: Arc<dyn BlobStore>) {
    let key = format!("blob_{}", crate::ids::random_base62(32));
    assert_eq!(blobs.get(&key).await.unwrap(), None);
    blobs
        .put(&key, Bytes::from_static(b"%PDF-1.7\n"), t(0))
        .await
        .unwrap();
    assert_eq!(
        blobs.get(&key).await.unwrap(),
        Some(Bytes::from_static(b"%PDF-1.7\n"))
    );
    let empty = format!("blob_{}", crate::ids::random_base62(32));
    blobs.put(&empty, Bytes::new(), t(0)).await.unwrap();
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
    blobs.put(&big_key, big.clone(), t(0)).await.unwrap();
    let back = blobs.get(&big_key).await.unwrap().expect("big blob");
    assert_eq!(back.len(), big.len());
    assert!(back == big, "25 MB blob differs after the round trip");
}

/// Listing walks every blob once, in pages after the last key, with the time of its `put`
/// (a retried put's); delete removes one blob and says whether it was there.
pub async fn blob_listing(_: Arc<dyn Store>, blobs: Arc<dyn BlobStore>) {
    let prefix = format!("blob_{}", crate::ids::random_base62(12));
    let mut mine: Vec<String> = (0..7).map(|i| format!("{prefix}_{i}")).collect();
    for (i, k) in mine.iter().enumerate() {
        blobs
            .put(k, Bytes::from(vec![b'x'; i]), t(i as i64 * 1000))
            .await
            .unwrap();
    }
    // A retried put keeps the later time.
    blobs
        .put(&mine[0], Bytes::from_static(b"again"), t(60_000))
        .await
        .unwrap();

    let walk = |limit: usize| {
        let blobs = blobs.clone();
        async move {
            let mut seen: Vec<BlobInfo> = Vec::new();
            let mut after: Option<String> = None;
            loop {
                let page = blobs.list(after.as_deref(), limit).await.unwrap();
                assert!(page.len() <= limit, "a page holds at most `limit`");
                if let (Some(a), Some(first)) = (&after, page.first()) {
                    assert_ne!(&first.key, a, "a page starts after the cursor");
                }
                seen.extend(page.iter().cloned());
                if page.len() < limit {
                    return seen;
                }
                after = page.last().map(|b| b.key.clone());
            }
        }
    };
    let seen = walk(2).await;
    let keys: Vec<&str> = seen.iter().map(|b| b.key.as_str()).collect();
    let unique: BTreeSet<&str> = keys.iter().copied().collect();
    assert_eq!(unique.len(), keys.len(), "no blob twice in one walk");
    for (i, k) in mine.iter().enumerate() {
        let b = seen
            .iter()
            .find(|b| &b.key == k)
            .unwrap_or_else(|| panic!("{k} not listed"));
        let at = if i == 0 { 60_000 } else { i as i64 * 1000 };
        assert_eq!(b.stored_at, Some(t(at)), "{k}");
    }
    assert_eq!(
        walk(1000).await.len(),
        seen.len(),
        "page size changes nothing"
    );

    assert!(blobs.delete(&mine[3]).await.unwrap());
    assert!(!blobs.delete(&mine[3]).await.unwrap(), "already gone");
    assert!(!blobs.delete("blob_never_stored").await.unwrap());
    assert_eq!(blobs.get(&mine[3]).await.unwrap(), None);
    let gone = mine.remove(3);
    let after = walk(3).await;
    assert!(after.iter().all(|b| b.key != gone));
    assert!(mine.iter().all(|k| after.iter().any(|b| &b.key == k)));
}

/// Streamed reads: `get_stream` gives the bytes of `get` with their length known before the
/// first chunk, for a 25 MB blob, an empty one, blobs of sizes around and across 256 KiB
/// chunks, and a delta's two parts read one after the other (a signed copy: the original's
/// stream, then the update's); `size` agrees; unknown keys are `None`. A store that hands out
/// direct URLs gives none for an unknown key. A key overwritten or deleted during a stream
/// never gives a mix of bytes; forty slow readers, some dropped half-way, block nothing.
pub async fn blob_streams(_: Arc<dyn Store>, blobs: Arc<dyn BlobStore>) {
    use futures_util::StreamExt;

    let missing = format!("blob_{}", crate::ids::random_base62(32));
    assert!(blobs.get_stream(&missing).await.unwrap().is_none());
    assert_eq!(blobs.size(&missing).await.unwrap(), None);
    let read = super::super::DirectRead {
        expires_in: std::time::Duration::from_secs(60),
        content_type: "application/pdf".into(),
        content_disposition: "attachment".into(),
    };
    assert_eq!(blobs.direct_url(&missing, &read).await.unwrap(), None);

    let big = noise(25 << 20);
    let big_key = format!("blob_{}", crate::ids::random_base62(32));
    blobs.put(&big_key, big.clone(), t(0)).await.unwrap();
    let mut stream = blobs.get_stream(&big_key).await.unwrap().expect("big blob");
    assert_eq!(stream.size(), big.len() as u64);
    assert_eq!(blobs.size(&big_key).await.unwrap(), Some(big.len() as u64));
    let mut at = 0usize;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.unwrap();
        assert!(
            big[at..].starts_with(&chunk),
            "chunk at {at} differs from the stored bytes"
        );
        at += chunk.len();
    }
    assert_eq!(at, big.len(), "the stream ends after every byte");

    let empty = format!("blob_{}", crate::ids::random_base62(32));
    blobs.put(&empty, Bytes::new(), t(0)).await.unwrap();
    let stream = blobs.get_stream(&empty).await.unwrap().expect("empty blob");
    assert_eq!(stream.size(), 0);
    assert_eq!(stream.collect().await.unwrap(), Bytes::new());

    // A delta: the original (the big blob), then its update.
    let update = Bytes::from_static(b"\n% an incremental update\n%%EOF\n");
    let update_key = format!("blob_{}", crate::ids::random_base62(32));
    blobs.put(&update_key, update.clone(), t(0)).await.unwrap();
    let head = blobs.get_stream(&big_key).await.unwrap().unwrap();
    let tail = blobs.get_stream(&update_key).await.unwrap().unwrap();
    let whole = head.chain(tail);
    assert_eq!(whole.size(), (big.len() + update.len()) as u64);
    let whole = whole.collect().await.unwrap();
    assert!(
        whole.starts_with(&big)
            && whole.ends_with(&update)
            && whole.len() == big.len() + update.len(),
        "a delta read through two streams is the original followed by the update"
    );

    // Sizes around the chunk sizes of the stores that cut blobs into chunks (256 KiB), and
    // several chunks with a short last one.
    const K256: usize = 256 * 1024;
    for len in [1, K256 - 1, K256, K256 + 1, 3 * K256 + 12_345] {
        let bytes = noise(len);
        let key = format!("blob_{}", crate::ids::random_base62(32));
        blobs.put(&key, bytes.clone(), t(0)).await.unwrap();
        assert_eq!(blobs.size(&key).await.unwrap(), Some(len as u64), "{len}");
        let stream = blobs.get_stream(&key).await.unwrap().expect("stored");
        assert_eq!(stream.size(), len as u64, "{len}");
        let back = stream.collect().await.unwrap();
        assert!(
            back == bytes,
            "a blob of {len} bytes differs after streaming"
        );
        assert!(blobs.delete(&key).await.unwrap());
    }

    stream_while_overwritten(&blobs).await;
    slow_readers_hold_nothing(&blobs).await;
}

/// What a stream gives when its key is overwritten (a retried `put`) or deleted after its
/// first chunk: the bytes it started with, whole, or an error; never a mix, never fewer bytes
/// that look whole. Later reads see the new state.
async fn stream_while_overwritten(blobs: &Arc<dyn BlobStore>) {
    use futures_util::StreamExt;

    let old = noise(3 * 256 * 1024 + 12_345);
    let mut new = noise(2 * 256 * 1024 + 99).to_vec();
    new.iter_mut().for_each(|b| *b = !*b); // differs from `old` at every byte
    let new = Bytes::from(new);
    for overwrite in [true, false] {
        let key = format!("blob_{}", crate::ids::random_base62(32));
        blobs.put(&key, old.clone(), t(0)).await.unwrap();
        let mut stream = blobs.get_stream(&key).await.unwrap().expect("stored");
        assert_eq!(stream.size(), old.len() as u64);
        let mut got = stream
            .next()
            .await
            .expect("a first chunk")
            .unwrap()
            .to_vec();
        if overwrite {
            blobs.put(&key, new.clone(), t(1000)).await.unwrap();
        } else {
            assert!(blobs.delete(&key).await.unwrap());
        }
        let mut failed = false;
        while let Some(chunk) = stream.next().await {
            match chunk {
                Ok(c) => got.extend_from_slice(&c),
                Err(_) => {
                    failed = true;
                    break;
                }
            }
        }
        if failed {
            assert!(stream.next().await.is_none(), "nothing follows the error");
            assert!(
                old.starts_with(&got),
                "the bytes before the error are the old ones"
            );
        } else {
            assert!(
                got == old,
                "a stream that ends without error gives the old bytes whole"
            );
        }
        if overwrite {
            assert_eq!(blobs.get(&key).await.unwrap(), Some(new.clone()));
            assert_eq!(blobs.size(&key).await.unwrap(), Some(new.len() as u64));
            let again = blobs.get_stream(&key).await.unwrap().unwrap();
            assert_eq!(again.size(), new.len() as u64);
            assert!(again.collect().await.unwrap() == new);
            assert!(blobs.delete(&key).await.unwrap());
        } else {
            assert_eq!(blobs.get(&key).await.unwrap(), None);
            assert!(blobs.get_stream(&key).await.unwrap().is_none());
        }
    }
}

/// Forty readers that stopped after their first chunk (slow clients) hold nothing that others
/// wait for: while they wait, blobs are written, read and deleted; half of them are then
/// dropped half-way, the other half read on to the end, and the store still serves everyone.
async fn slow_readers_hold_nothing(blobs: &Arc<dyn BlobStore>) {
    use futures_util::StreamExt;

    let bytes = noise(3 * 256 * 1024 + 12_345);
    let key = format!("blob_{}", crate::ids::random_base62(32));
    blobs.put(&key, bytes.clone(), t(0)).await.unwrap();
    let mut readers = Vec::new();
    for _ in 0..40 {
        let mut stream = blobs.get_stream(&key).await.unwrap().expect("stored");
        let first = stream.next().await.expect("a first chunk").unwrap();
        readers.push((first.to_vec(), stream));
    }
    let other = format!("blob_{}", crate::ids::random_base62(32));
    blobs.put(&other, bytes.clone(), t(0)).await.unwrap();
    let read = blobs.get_stream(&other).await.unwrap().unwrap();
    assert!(read.collect().await.unwrap() == bytes);
    assert!(blobs.delete(&other).await.unwrap());

    let finishing = readers.split_off(20);
    drop(readers); // dropped half-way
    for (mut got, mut stream) in finishing {
        while let Some(chunk) = stream.next().await {
            got.extend_from_slice(&chunk.unwrap());
        }
        assert!(got == bytes, "a slow reader's bytes differ");
    }
    blobs.put(&other, bytes.clone(), t(0)).await.unwrap();
    assert!(
        blobs
            .get_stream(&other)
            .await
            .unwrap()
            .unwrap()
            .collect()
            .await
            .unwrap()
            == bytes
    );
    assert!(blobs.delete(&other).await.unwrap());
    assert!(blobs.delete(&key).await.unwrap());
}

/// `len` bytes that do not compress, every byte value included.
fn noise(len: usize) -> Bytes {
    let mut out = Vec::with_capacity(len + 8);
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.truncate(len);
    Bytes::from(out)
}
