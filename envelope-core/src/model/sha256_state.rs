//! The SHA-256 state after a stored file's bytes, kept with the file's record so that a later
//! hash of `file ++ more` (the sealed signed copy) feeds only `more`.
//!
//! The state is what FIPS 180-4 carries between blocks: the eight chaining words after the last
//! whole 64-byte block, the number of bytes hashed, and the bytes after that block (fewer than
//! 64). It is written in this project's own form (below), never in a hash crate's internal layout,
//! and a resumed state is trusted only when it describes the bytes at hand: same length, and
//! finishing it gives the SHA-256 the record states. Anything else resumes nothing, and the
//! caller hashes the bytes as it would without a state.

use serde::{Deserialize, Serialize};
use sha2::Sha256;
use sha2::digest::Digest;
use sha2::digest::common::hazmat::{SerializableState, SerializedState};

use crate::ids;

/// SHA-256 midstate of a whole file (module docs). Internal evidence plumbing of a
/// [`super::StoredFile`]: no view shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sha256State {
    /// The eight chaining words after the last whole block, each big-endian, as 64 lowercase hex
    /// digits (the digest's own byte order: an empty tail and no padding would give this).
    words: String,
    /// Bytes hashed: the whole file.
    len: u64,
    /// The `len % 64` bytes after the last whole block, lowercase hex.
    tail: String,
}

/// Where the parts of a SHA-256 state lie in `sha2`'s serialization of [`Sha256`] (0.11): the
/// words little-endian, the count of whole blocks (u64, little-endian), the tail's length, then
/// the tail padded with zeros to 64 bytes. Only [`Sha256State::after`] and
/// [`Sha256State::resume`] read or write it; `the_crate_layout_is_the_one_read_here` pins it,
/// and a resumed state is checked against the file's digest, so a layout that moved would
/// resume nothing rather than a wrong hash.
const WORDS: std::ops::Range<usize> = 0..32;
const BLOCKS: std::ops::Range<usize> = 32..40;
const TAIL_LEN: usize = 40;
const TAIL: usize = 41;

impl Sha256State {
    /// The SHA-256 of `bytes` (lowercase hex) and the state after them.
    pub fn of(bytes: &[u8]) -> (String, Self) {
        let mut h = Sha256::new();
        h.update(bytes);
        let state = Self::after(&h);
        (ids::hex(&h.finalize()), state)
    }

    /// The state of `hasher`: what it has consumed, in this module's form. For a file hashed as
    /// it arrives, take it after the last byte and before finishing.
    pub fn after(hasher: &Sha256) -> Self {
        let raw = hasher.serialize();
        let raw: &[u8] = raw.as_ref();
        let mut words = Vec::with_capacity(32);
        for w in raw[WORDS].chunks_exact(4) {
            words.extend_from_slice(&[w[3], w[2], w[1], w[0]]);
        }
        let mut blocks = [0u8; 8];
        blocks.copy_from_slice(&raw[BLOCKS]);
        let tail = &raw[TAIL..TAIL + usize::from(raw[TAIL_LEN]).min(63)];
        Self {
            words: ids::hex(&words),
            len: u64::from_le_bytes(blocks) * 64 + tail.len() as u64,
            tail: ids::hex(tail),
        }
    }

    /// Bytes the state has consumed.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the state is that of no bytes at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A SHA-256 that has consumed the file again, ready to be fed what follows it: only when
    /// the state claims `len` bytes and, finished as it is, gives `sha256` (lowercase hex, the
    /// digest the record states). `None` for a state that is malformed or is not that file's.
    pub fn resume(&self, len: u64, sha256: &str) -> Option<Sha256> {
        if self.len != len {
            return None;
        }
        let words = unhex(&self.words).filter(|w| w.len() == 32)?;
        let tail = unhex(&self.tail).filter(|t| t.len() as u64 == len % 64)?;
        let mut raw = SerializedState::<Sha256>::default();
        {
            let raw: &mut [u8] = raw.as_mut();
            for (dst, w) in raw[WORDS].chunks_exact_mut(4).zip(words.chunks_exact(4)) {
                dst.copy_from_slice(&[w[3], w[2], w[1], w[0]]);
            }
            raw[BLOCKS].copy_from_slice(&(len / 64).to_le_bytes());
            raw[TAIL_LEN] = tail.len() as u8;
            raw[TAIL..TAIL + tail.len()].copy_from_slice(&tail);
        }
        let hasher = Sha256::deserialize(&raw).ok()?;
        (ids::hex(&hasher.clone().finalize()) == sha256).then_some(hasher)
    }
}

/// Lowercase or uppercase hex to bytes; `None` for anything else.
fn unhex(s: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let s = s.as_bytes();
    if !s.len().is_multiple_of(2) {
        return None;
    }
    s.chunks_exact(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes that are not all alike, so that a tail or a block out of place shows.
    fn bytes(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 31 % 251) as u8).collect()
    }

    /// Around every 64-byte boundary the padding can fall on: the state kept after `n` bytes,
    /// written out and read back, continues to the SHA-256 of the whole, whatever follows.
    #[test]
    fn a_kept_state_continues_to_the_plain_digest() {
        let lengths = [
            0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 191, 192, 193, 1000,
        ];
        for n in lengths {
            let original = bytes(n);
            let (sha, state) = Sha256State::of(&original);
            assert_eq!(sha, ids::sha256_hex(&original), "{n}");
            assert_eq!(state.len(), n as u64);
            let stored = serde_json::to_string(&state).expect("json");
            let state: Sha256State = serde_json::from_str(&stored).expect("json");
            for more in [0, 1, 63, 64, 65, 200] {
                let update = bytes(more + 7)[7..].to_vec();
                let mut h = state.resume(n as u64, &sha).expect("resumes");
                h.update(&update);
                let whole = [&original[..], &update[..]].concat();
                assert_eq!(
                    <[u8; 32]>::from(h.finalize()),
                    <[u8; 32]>::from(Sha256::digest(&whole)),
                    "{n} + {more}"
                );
            }
        }
    }

    /// A state that does not describe the bytes at hand resumes nothing.
    #[test]
    fn a_state_of_other_bytes_resumes_nothing() {
        let (sha, state) = Sha256State::of(&bytes(130));
        let (other_sha, _) = Sha256State::of(&bytes(131));
        assert!(state.resume(130, &sha).is_some());
        assert!(state.resume(131, &sha).is_none(), "another length");
        assert!(state.resume(130, &other_sha).is_none(), "another digest");
        let broken = |f: &dyn Fn(&mut Sha256State)| {
            let mut s = state.clone();
            f(&mut s);
            s.resume(s.len, &sha)
        };
        let other_digit = if state.words.starts_with('0') {
            "1"
        } else {
            "0"
        };
        assert!(broken(&|s| s.words.replace_range(0..1, other_digit)).is_none());
        assert!(broken(&|s| s.words.truncate(62)).is_none());
        assert!(broken(&|s| s.words = "zz".repeat(32)).is_none());
        assert!(broken(&|s| s.tail.push_str("00")).is_none());
        assert!(broken(&|s| s.tail.clear()).is_none());
        assert!(broken(&|s| s.len += 64).is_none());
    }

    /// A file record without a state is written as before (no key) and one written before
    /// states existed reads with none; one with a state round-trips.
    #[test]
    fn file_records_read_and_write_with_and_without_a_state() {
        let before = serde_json::json!({
            "blob": "blob_a", "file_name": "a.pdf", "size": 3,
            "sha256": ids::sha256_hex(b"abc"),
        });
        let file: super::super::StoredFile = serde_json::from_value(before.clone()).expect("old");
        assert_eq!(file.sha256_state, None);
        assert_eq!(serde_json::to_value(&file).expect("json"), before);
        let (_, state) = Sha256State::of(b"abc");
        let kept = super::super::StoredFile {
            sha256_state: Some(state),
            ..file
        };
        let text = serde_json::to_string(&kept).expect("json");
        let back: super::super::StoredFile = serde_json::from_str(&text).expect("new");
        assert_eq!(back, kept);
        assert!(back.resumed_sha256(b"abc").is_some());
        assert!(
            back.resumed_sha256(b"abd").is_some(),
            "the bytes are the blob's: not re-read"
        );
        assert!(back.resumed_sha256(b"abcd").is_none(), "another length");
    }

    /// The form kept in records, for a known input: `abc`'s state before padding is the initial
    /// words and the tail `616263`. A `sha2` whose serialization moved breaks this test (and,
    /// in production, resumes nothing: the digest check refuses it).
    #[test]
    fn the_crate_layout_is_the_one_read_here() {
        let mut h = Sha256::new();
        h.update(b"abc");
        let state = Sha256State::after(&h);
        assert_eq!(
            serde_json::to_value(&state).expect("json"),
            serde_json::json!({
                "words": "6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19",
                "len": 3,
                "tail": "616263",
            })
        );
        // A whole block and nothing after it: an empty tail.
        let (sha, state) = Sha256State::of(&[b'a'; 64]);
        assert_eq!(state.len(), 64);
        assert_eq!(state.tail, "");
        assert!(state.resume(64, &sha).is_some());
    }
}
