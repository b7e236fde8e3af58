//! The key that keeps idempotency records encrypted at rest.
//!
//! A replayed response may carry a secret: a signing URL (its token is a bearer credential), or
//! a webhook endpoint's secret. Link tokens and API keys are stored hashed, so the idempotency
//! table would otherwise be the one place a database dump or backup yields them. Every stored
//! response body is sealed with AES-256-GCM under this key; the associated data binds it to its
//! account, mode, idempotency key and status, so a row copied under another key does not open.
//!
//! Stored form: `MAGIC ++ nonce (12 bytes, random) ++ ciphertext ++ tag`. Random nonces are
//! safe for far more records than one key ever seals (the bound is about 2^32 messages).
//! A body without `MAGIC` was written before records were encrypted and is replayed as it is
//! (such records expire with the idempotency TTL); `MAGIC` starts with a zero byte, which no
//! JSON body does.
//!
//! This module never logs or shows key bytes: `Debug` prints `ResponseKey(***)`.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Key, Nonce};
use rand::RngExt;

use crate::model::Scope;

const MAGIC: &[u8] = b"\0enc1";
const NONCE_LEN: usize = 12;
/// Length of a key in its stored form: 32 bytes as lowercase hex.
pub const STORED_KEY_LEN: usize = 64;

/// The AES-256-GCM key of stored responses. Servers sharing a database must share it.
#[derive(Clone)]
pub struct ResponseKey {
    bytes: [u8; 32],
}

impl std::fmt::Debug for ResponseKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ResponseKey(***)")
    }
}

/// A stored response that does not open under this key: the key changed, or the row did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreadable;

impl ResponseKey {
    /// A new key from the CSPRNG.
    pub fn random() -> Self {
        let mut bytes = [0u8; 32];
        rand::rng().fill(&mut bytes[..]);
        ResponseKey { bytes }
    }

    /// Reads the stored form (64 hex digits, surrounding whitespace ignored).
    pub fn from_stored(stored: &[u8]) -> Option<Self> {
        let text = std::str::from_utf8(stored).ok()?.trim();
        if text.len() != STORED_KEY_LEN {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (i, out) in bytes.iter_mut().enumerate() {
            *out = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(ResponseKey { bytes })
    }

    /// The stored form: 64 lowercase hex digits and a newline.
    pub fn to_stored(&self) -> String {
        let mut s = crate::ids::hex(&self.bytes);
        s.push('\n');
        s
    }

    fn cipher(&self) -> Aes256Gcm {
        Aes256Gcm::new(&Key::<Aes256Gcm>::from(self.bytes))
    }

    pub(crate) fn seal(&self, scope: &Scope, key: &str, status: u16, body: &[u8]) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rng().fill(&mut nonce[..]);
        let aad = associated_data(scope, key, status);
        let sealed = self
            .cipher()
            .encrypt(
                &Nonce::from(nonce),
                Payload {
                    msg: body,
                    aad: &aad,
                },
            )
            // Encryption fails only for inputs past GCM's bound (64 GiB), far beyond any body.
            .unwrap_or_default();
        let mut out = Vec::with_capacity(MAGIC.len() + NONCE_LEN + sealed.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        out
    }

    pub(crate) fn open(
        &self,
        scope: &Scope,
        key: &str,
        status: u16,
        stored: &[u8],
    ) -> Result<Vec<u8>, Unreadable> {
        let Some(rest) = stored.strip_prefix(MAGIC) else {
            return Ok(stored.to_vec());
        };
        if rest.len() < NONCE_LEN {
            return Err(Unreadable);
        }
        let (nonce, sealed) = rest.split_at(NONCE_LEN);
        let nonce: [u8; NONCE_LEN] = nonce.try_into().map_err(|_| Unreadable)?;
        let aad = associated_data(scope, key, status);
        self.cipher()
            .decrypt(
                &Nonce::from(nonce),
                Payload {
                    msg: sealed,
                    aad: &aad,
                },
            )
            .map_err(|_| Unreadable)
    }
}

fn associated_data(scope: &Scope, key: &str, status: u16) -> Vec<u8> {
    let mut aad = Vec::with_capacity(scope.account.len() + key.len() + 16);
    aad.extend_from_slice(scope.account.as_bytes());
    aad.push(0);
    aad.extend_from_slice(scope.mode.as_str().as_bytes());
    aad.push(0);
    aad.extend_from_slice(key.as_bytes());
    aad.push(0);
    aad.extend_from_slice(&status.to_be_bytes());
    aad
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Mode;

    fn scope(account: &str) -> Scope {
        Scope {
            account: account.into(),
            mode: Mode::Test,
        }
    }

    #[test]
    fn sealed_bodies_open_only_under_their_key_scope_and_status() {
        let k = ResponseKey::random();
        let body = br#"{"url":"https://x/sign/secret-token"}"#;
        let sealed = k.seal(&scope("acct_a"), "idem-1", 200, body);
        assert!(!sealed.windows(12).any(|w| w == b"secret-token"));
        assert_eq!(
            k.open(&scope("acct_a"), "idem-1", 200, &sealed).unwrap(),
            body
        );
        for (s, key, status) in [
            (scope("acct_b"), "idem-1", 200),
            (scope("acct_a"), "idem-2", 200),
            (scope("acct_a"), "idem-1", 201),
        ] {
            assert_eq!(k.open(&s, key, status, &sealed), Err(Unreadable));
        }
        let other = ResponseKey::random();
        assert_eq!(
            other.open(&scope("acct_a"), "idem-1", 200, &sealed),
            Err(Unreadable)
        );
        let mut flipped = sealed.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(
            k.open(&scope("acct_a"), "idem-1", 200, &flipped),
            Err(Unreadable)
        );
        assert_eq!(
            k.open(&scope("acct_a"), "idem-1", 200, &sealed[..MAGIC.len() + 3]),
            Err(Unreadable)
        );
    }

    #[test]
    fn records_written_before_encryption_replay_as_they_are() {
        let k = ResponseKey::random();
        assert_eq!(k.open(&scope("a"), "k", 200, b"{}").unwrap(), b"{}");
    }

    #[test]
    fn stored_form_round_trips_and_refuses_garbage() {
        let k = ResponseKey::random();
        let again = ResponseKey::from_stored(k.to_stored().as_bytes()).unwrap();
        let sealed = k.seal(&scope("a"), "k", 200, b"x");
        assert_eq!(again.open(&scope("a"), "k", 200, &sealed).unwrap(), b"x");
        for bad in [&b""[..], b"abc", &[b'g'; 64], &[0xff; 64]] {
            assert!(ResponseKey::from_stored(bad).is_none());
        }
        assert_eq!(format!("{k:?}"), "ResponseKey(***)");
    }
}
