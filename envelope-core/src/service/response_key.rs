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
//! The same key seals webhook endpoints' secrets in their records ([`ResponseKey::seal_text`],
//! stored as `enc1:` and base64, bound to the endpoint's ID), and a check value that tells at
//! start whether a server's key is the one its database was written with
//! ([`ResponseKey::check_against`]).
//!
//! This module never logs or shows key bytes: `Debug` prints `ResponseKey(***)`.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Key, Nonce};
use rand::RngExt;

use crate::model::Scope;
use crate::store::{Store, StoreError};

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

/// The stored form of a sealed text ([`ResponseKey::seal_text`]): this prefix, then base64 of
/// `nonce ++ ciphertext ++ tag`. No webhook secret (`whsec_...`) starts with it.
const TEXT_PREFIX: &str = "enc1:";
/// The name of this key's row in [`HealthStore::key_check`].
const CHECK_NAME: &str = "response_key";
/// What the check value seals; its associated data says what it is for.
const CHECK_TEXT: &str = "envelope response key check";
const CHECK_AAD: &[u8] = b"key-check\0response_key";

/// How a [`ResponseKey`] compares with the key a store's records were written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyCheck {
    /// The store had no check yet: this key is now the store's (the first start on it).
    Recorded,
    /// The store's records were written with this key.
    Matches,
    /// The store's records were written with another key: this key cannot read them (its
    /// idempotency records, its webhook secrets).
    Mismatch,
}

impl ResponseKey {
    /// Compares this key with the one `store`'s records were written with, through a check
    /// value (a known text sealed with the key) that the first caller on a store records
    /// ([`HealthStore::key_check`](crate::store::HealthStore::key_check)). A server calls it at every start and refuses to start on
    /// [`KeyCheck::Mismatch`]: servers that share a database must share the key, and a wrong
    /// one would otherwise show only at request time, as unreadable idempotency records and
    /// webhook secrets.
    pub async fn check_against(&self, store: &dyn Store) -> Result<KeyCheck, StoreError> {
        let proposed = self.seal_text(CHECK_AAD, CHECK_TEXT);
        let stored = store.key_check(CHECK_NAME, &proposed).await?;
        if stored == proposed {
            return Ok(KeyCheck::Recorded);
        }
        Ok(match self.open_text(CHECK_AAD, &stored) {
            Ok(Some(text)) if text == CHECK_TEXT => KeyCheck::Matches,
            _ => KeyCheck::Mismatch,
        })
    }

    /// Seals `text` as a string a record can hold: `enc1:` and base64. `aad` binds it to its
    /// place (a webhook secret to its endpoint), so that it does not open anywhere else.
    pub(crate) fn seal_text(&self, aad: &[u8], text: &str) -> String {
        use base64::Engine;
        let mut nonce = [0u8; NONCE_LEN];
        rand::rng().fill(&mut nonce[..]);
        let sealed = self
            .cipher()
            .encrypt(
                &Nonce::from(nonce),
                Payload {
                    msg: text.as_bytes(),
                    aad,
                },
            )
            // Encryption fails only for inputs past GCM's bound (64 GiB).
            .unwrap_or_default();
        let mut raw = Vec::with_capacity(NONCE_LEN + sealed.len());
        raw.extend_from_slice(&nonce);
        raw.extend_from_slice(&sealed);
        let mut out = String::from(TEXT_PREFIX);
        base64::engine::general_purpose::STANDARD.encode_string(&raw, &mut out);
        out
    }

    /// Opens what [`ResponseKey::seal_text`] made with the same `aad`. `Ok(None)` for a text
    /// that was never sealed (no `enc1:`: stored before sealing began), which the caller uses
    /// as it is; [`Unreadable`] when it does not open under this key.
    pub(crate) fn open_text(&self, aad: &[u8], stored: &str) -> Result<Option<String>, Unreadable> {
        use base64::Engine;
        let Some(b64) = stored.strip_prefix(TEXT_PREFIX) else {
            return Ok(None);
        };
        let raw = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|_| Unreadable)?;
        if raw.len() < NONCE_LEN {
            return Err(Unreadable);
        }
        let (nonce, sealed) = raw.split_at(NONCE_LEN);
        let nonce: [u8; NONCE_LEN] = nonce.try_into().map_err(|_| Unreadable)?;
        let plain = self
            .cipher()
            .decrypt(&Nonce::from(nonce), Payload { msg: sealed, aad })
            .map_err(|_| Unreadable)?;
        String::from_utf8(plain).map(Some).map_err(|_| Unreadable)
    }
}

impl ResponseKey {
    /// A webhook endpoint's signing secret as its record keeps it: sealed, bound to the
    /// endpoint's ID.
    pub(crate) fn seal_webhook_secret(&self, endpoint: &str, secret: &str) -> String {
        self.seal_text(&webhook_aad(endpoint), secret)
    }

    /// The signing secret a record keeps: opened, or as it is when it was stored before secrets
    /// were sealed (`whsec_...`); [`Unreadable`] when it does not open under this key.
    pub(crate) fn open_webhook_secret(
        &self,
        endpoint: &str,
        stored: &str,
    ) -> Result<String, Unreadable> {
        Ok(self
            .open_text(&webhook_aad(endpoint), stored)?
            .unwrap_or_else(|| stored.to_string()))
    }
}

fn webhook_aad(endpoint: &str) -> Vec<u8> {
    let mut aad = b"webhook-secret\0".to_vec();
    aad.extend_from_slice(endpoint.as_bytes());
    aad
}

/// Whether a stored text is sealed ([`ResponseKey::seal_text`]).
pub(crate) fn is_sealed(stored: &str) -> bool {
    stored.starts_with(TEXT_PREFIX)
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
            account: crate::ids::AccountId::trusted(account),
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
    fn sealed_texts_open_only_under_their_key_and_place() {
        let k = ResponseKey::random();
        let sealed = k.seal_text(b"we_1", "whsec_abc");
        assert!(
            is_sealed(&sealed) && !sealed.contains("whsec_abc"),
            "{sealed}"
        );
        assert_eq!(k.open_text(b"we_1", &sealed), Ok(Some("whsec_abc".into())));
        assert_ne!(
            sealed,
            k.seal_text(b"we_1", "whsec_abc"),
            "a fresh nonce each time"
        );
        assert_eq!(k.open_text(b"we_2", &sealed), Err(Unreadable));
        assert_eq!(
            ResponseKey::random().open_text(b"we_1", &sealed),
            Err(Unreadable)
        );
        for bad in ["enc1:", "enc1:!!!", "enc1:AAAA"] {
            assert_eq!(k.open_text(b"we_1", bad), Err(Unreadable), "{bad}");
        }
        // Written before sealing: used as it is.
        assert_eq!(k.open_text(b"we_1", "whsec_abc"), Ok(None));
    }

    #[tokio::test]
    async fn the_first_key_on_a_store_is_its_key() {
        let store = crate::store::MemoryStore::new();
        let first = ResponseKey::random();
        let again = ResponseKey::from_stored(first.to_stored().as_bytes()).unwrap();
        assert_eq!(
            first.check_against(&store).await.unwrap(),
            KeyCheck::Recorded
        );
        assert_eq!(
            again.check_against(&store).await.unwrap(),
            KeyCheck::Matches
        );
        assert_eq!(
            ResponseKey::random().check_against(&store).await.unwrap(),
            KeyCheck::Mismatch
        );
        assert_eq!(
            first.check_against(&store).await.unwrap(),
            KeyCheck::Matches
        );
    }

    /// Two services on one store with different keys (what the start's check prevents): a
    /// replay of the other's record is a clear 422 refusal, never an internal error, and the
    /// record still replays under its own key.
    #[tokio::test]
    async fn a_record_sealed_under_another_key_is_refused_clearly() {
        use crate::error::ErrorKind;
        use crate::service::SigningService;
        use crate::store::{IdempotencyBegin, MemoryStore, StoredResponse};
        let store = std::sync::Arc::new(MemoryStore::new());
        let a = SigningService::builder().store(store.clone()).build();
        let b = SigningService::builder().store(store).build();
        let acct = a.admin().create_account("Acme").await.unwrap();
        let (ctx_a, ctx_b) = (
            a.authenticate(&acct.test_key.secret).await.unwrap(),
            b.authenticate(&acct.test_key.secret).await.unwrap(),
        );
        let begun = a.idempotency_begin(&ctx_a, "k-1", "fp").await.unwrap();
        assert!(
            matches!(begun, IdempotencyBegin::Started { .. }),
            "{begun:?}"
        );
        let response = StoredResponse {
            status: 201,
            body: br#"{"secret":"whsec_x"}"#.to_vec(),
        };
        a.idempotency_finish(&ctx_a, "k-1", response.clone())
            .await
            .unwrap();
        let e = b.idempotency_begin(&ctx_b, "k-1", "fp").await.unwrap_err();
        assert_eq!(
            (e.code(), e.kind()),
            ("idempotency_key_unreadable", ErrorKind::Idempotency)
        );
        assert!(e.to_string().contains("new idempotency key"), "{e}");
        assert_eq!(
            a.idempotency_begin(&ctx_a, "k-1", "fp").await.unwrap(),
            IdempotencyBegin::Replay(response)
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
