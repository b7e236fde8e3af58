//! Identifiers, tokens and API keys: random, URL-safe, prefixed as the spec says.
//!
//! All randomness comes from the thread-local CSPRNG. Secrets (API keys, link tokens) are stored
//! only as SHA-256 digests ([`digest`]); the clear value exists once, in the response that creates
//! it.

use rand::RngExt;
use rand::distr::Alphanumeric;
use sha2::{Digest, Sha256};

pub const ENVELOPE: &str = "env_";
pub const SIGNER: &str = "sgn_";
pub const EVENT: &str = "evt_";
pub const TEMPLATE: &str = "tmpl_";
pub const ACCOUNT: &str = "acct_";
pub const API_KEY: &str = "key_";
pub const WEBHOOK_ENDPOINT: &str = "we_";
pub const REQUEST: &str = "req_";
pub const DELIVERY: &str = "whd_";
pub const EMAIL: &str = "eml_";
pub const RECIPIENT: &str = "rcp_";
pub const WEBHOOK_SECRET: &str = "whsec_";

/// `n` random base62 characters (about 5.95 bits each).
pub fn random_base62(n: usize) -> String {
    rand::rng()
        .sample_iter(Alphanumeric)
        .take(n)
        .map(char::from)
        .collect()
}

/// A new object identifier: the prefix and 24 base62 characters (142 bits).
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}{}", random_base62(24))
}

/// An identifier derived from `seed`: the prefix and 24 base62 characters taken from
/// SHA-256(`seed`). The same seed always gives the same ID; see
/// [`AuthContext::idempotency_origin`](crate::AuthContext::idempotency_origin).
pub fn derived_id(prefix: &str, seed: &str) -> String {
    use sha2::{Digest, Sha256};
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let digest = Sha256::digest(seed.as_bytes());
    let tail: String = digest
        .iter()
        .take(24)
        .map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char)
        .collect();
    format!("{prefix}{tail}")
}

/// The first 8 characters of `id` after its prefix (`sgn_4fA9xQ2zLm...` gives `4fA9xQ2z`): the
/// short reference under a stamped signature, which the audit trail's full ID starts with. The
/// case is kept, since IDs are base62 and `a` and `A` are different characters.
pub fn short(id: &str) -> &str {
    let tail = id.split_once('_').map_or(id, |(_, t)| t);
    tail.char_indices().nth(8).map_or(tail, |(i, _)| &tail[..i])
}

/// A token for a link: 32 base62 characters, 190 bits, URL-safe.
pub fn new_token() -> String {
    random_base62(32)
}

/// Lowercase hex SHA-256 of `data`.
pub fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

/// What a secret (API key, link token) is stored as.
pub fn digest(secret: &str) -> String {
    sha256_hex(secret.as_bytes())
}

/// What a signer's code or grant is stored as (extensions E2): lowercase hex of
/// SHA-256(`purpose` NUL `salt` NUL `secret`). The salt is random per signer, so equal codes of
/// two signers have unrelated digests; the purpose keeps an access code's digest from ever
/// matching a grant's.
pub fn salted_digest(purpose: &str, salt: &str, secret: &str) -> String {
    let mut h = Sha256::new();
    for part in [purpose, salt] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    h.update(secret.as_bytes());
    hex(&h.finalize())
}

/// `n` random decimal digits (an emailed code).
pub fn random_digits(n: usize) -> String {
    let mut rng = rand::rng();
    (0..n)
        .map(|_| char::from(b'0' + rng.random_range(0..10u8)))
        .collect()
}

/// Compares two digests in time that depends on their length only.
pub fn same_digest(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

pub fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 15) as usize] as char);
    }
    s
}

/// True when `s` looks like an identifier with this prefix (cheap shape check before a lookup).
pub fn has_shape(s: &str, prefix: &str) -> bool {
    s.len() <= 64
        && s.strip_prefix(prefix)
            .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_references_are_the_start_after_the_prefix() {
        for (id, want) in [
            ("sgn_4fA9xQ2zLmNoPqRsTuVwXyZ0", "4fA9xQ2z"),
            ("tmpl_abc", "abc"),
            ("noprefix0123456789", "noprefix"),
            ("", ""),
        ] {
            assert_eq!(short(id), want, "{id}");
        }
    }

    #[test]
    fn ids_have_prefix_and_are_distinct() {
        let a = new_id(ENVELOPE);
        let b = new_id(ENVELOPE);
        assert!(a.starts_with("env_") && a.len() == 28);
        assert_ne!(a, b);
        assert!(has_shape(&a, ENVELOPE));
        assert!(!has_shape("env_", ENVELOPE));
        assert!(!has_shape("env_a/b", ENVELOPE));
        assert!(!has_shape(&a, TEMPLATE));
    }

    #[test]
    fn tokens_are_url_safe_and_long() {
        let t = new_token();
        assert_eq!(t.len(), 32);
        assert!(t.bytes().all(|b| b.is_ascii_alphanumeric()));
    }

    #[test]
    fn salted_digests_depend_on_every_part() {
        let d = salted_digest("access_code", "salt", "1234");
        assert_eq!(d.len(), 64);
        assert_eq!(d, salted_digest("access_code", "salt", "1234"));
        assert_ne!(d, salted_digest("access_code", "salt2", "1234"));
        assert_ne!(d, salted_digest("grant", "salt", "1234"));
        assert_ne!(d, salted_digest("access_code", "salt", "1235"));
        assert!(!d.contains("1234"));
        assert!(same_digest(&d, &d.clone()));
        assert!(!same_digest(&d, &salted_digest("x", "salt", "1234")));
        assert!(!same_digest(&d, &d[1..]));
        let code = random_digits(6);
        assert!(code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit()));
    }

    #[test]
    fn sha256_known_answer() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
