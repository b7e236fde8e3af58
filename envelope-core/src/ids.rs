//! Identifiers, tokens and API keys: random, URL-safe, prefixed as the spec says.
//!
//! All randomness comes from the thread-local CSPRNG. Secrets (API keys, link tokens) are stored
//! only as SHA-256 digests (`digest`); the clear value exists once, in the response that creates
//! it.

use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::error::Error;
use rand::distr::Alphanumeric;
use sha2::{Digest, Sha256};

/// The prefix of the ID of an envelope.
pub(crate) const ENVELOPE: &str = "env_";
/// The prefix of the ID of a signer.
pub(crate) const SIGNER: &str = "sgn_";
/// The prefix of the ID of an event.
pub(crate) const EVENT: &str = "evt_";
/// The prefix of the ID of a template.
pub(crate) const TEMPLATE: &str = "tmpl_";
/// The prefix of the ID of an account.
pub(crate) const ACCOUNT: &str = "acct_";
/// The prefix of the ID of an API key record (not the secret key itself).
pub(crate) const API_KEY: &str = "key_";
/// The prefix of the ID of a webhook endpoint.
pub(crate) const WEBHOOK_ENDPOINT: &str = "we_";
/// The prefix of the ID of an API request (its `Service-Request-Id` header, and `request_id` in
/// error bodies).
pub const REQUEST: &str = "req_";
/// The prefix of the ID of a webhook delivery (one event to one endpoint, over its attempts).
pub(crate) const DELIVERY: &str = "whd_";
/// The prefix of the ID of a sent email.
pub(crate) const EMAIL: &str = "eml_";
/// The prefix of the ID of a copied (`cc`) recipient of an envelope.
pub(crate) const RECIPIENT: &str = "rcp_";
/// The prefix of the ID of a bulk send (extensions E12).
pub(crate) const BULK_SEND: &str = "bulk_";
/// The prefix of the ID of a webhook endpoint's signing secret.
pub(crate) const WEBHOOK_SECRET: &str = "whsec_";

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
    // Written into one allocation: every API request makes one (its request ID).
    let mut id = String::with_capacity(prefix.len() + 24);
    id.push_str(prefix);
    id.extend(
        rand::rng()
            .sample_iter(Alphanumeric)
            .take(24)
            .map(char::from),
    );
    id
}

/// An identifier derived from `seed`: the prefix and 24 base62 characters taken from
/// SHA-256(`seed`). The same seed always gives the same ID; see
/// [`AuthContext::idempotency_origin`](crate::AuthContext::idempotency_origin).
pub(crate) fn derived_id(prefix: &str, seed: &str) -> String {
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
pub(crate) fn new_token() -> String {
    random_base62(32)
}

/// Lowercase hex SHA-256 of `data`.
pub(crate) fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

/// What a secret (API key, link token) is stored as.
pub(crate) fn digest(secret: &str) -> String {
    sha256_hex(secret.as_bytes())
}

/// What a signer's code or grant is stored as (extensions E2): lowercase hex of
/// SHA-256(`purpose` NUL `salt` NUL `secret`). The salt is random per signer, so equal codes of
/// two signers have unrelated digests; the purpose keeps an access code's digest from ever
/// matching a grant's.
pub(crate) fn salted_digest(purpose: &str, salt: &str, secret: &str) -> String {
    let mut h = Sha256::new();
    for part in [purpose, salt] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    h.update(secret.as_bytes());
    hex(&h.finalize())
}

/// `n` random decimal digits (an emailed code).
pub(crate) fn random_digits(n: usize) -> String {
    let mut rng = rand::rng();
    (0..n)
        .map(|_| char::from(b'0' + rng.random_range(0..10u8)))
        .collect()
}

/// Compares two digests in time that depends on their length only.
pub(crate) fn same_digest(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Lowercase hex of `bytes`, two characters per byte.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 15) as usize] as char);
    }
    s
}

/// Declares a typed identifier: a `String` newtype that only [`parse`](EnvelopeId::parse) (which
/// checks the prefix and shape) and the service make, serialized as the bare string.
macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident, $prefix:expr, $resource:literal) => {
        $(#[$doc])*
        ///
        /// Parse one from the API's string form with [`parse`](Self::parse) or [`str::parse`];
        /// read it back with [`as_str`](Self::as_str), `Display`, or through `Deref<Target = str>`.
        /// Stored as the bare string too: `#[serde(transparent)]` in JSON documents and, with
        /// feature `sql`, `#[sqlx(transparent)]` in columns, so stores bind and read it as is.
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        #[cfg_attr(feature = "sql", derive(sqlx::Type), sqlx(transparent))]
        pub struct $name(String);

        impl $name {
            /// The prefix every identifier of this kind starts with.
            pub const PREFIX: &'static str = $prefix;

            /// Checks the prefix and shape (base62 after the prefix, at most 64 bytes in all).
            /// A string that fails is an ID that names nothing, so the error is the one an
            /// unknown ID gets: [`Error::NotFound`] (`resource_missing`, 404).
            pub fn parse(s: &str) -> Result<Self, Error> {
                if has_shape(s, $prefix) {
                    Ok(Self(s.to_owned()))
                } else {
                    Err(Error::not_found($resource, s))
                }
            }

            /// A new random identifier.
            #[allow(dead_code)] // not every kind is made by the service itself
            pub(crate) fn new() -> Self {
                Self(new_id($prefix))
            }

            /// An identifier the service itself made (a stored record's, a derived one).
            #[allow(dead_code)]
            pub(crate) fn trusted(s: impl Into<String>) -> Self {
                Self(s.into())
            }

            /// The identifier as the API writes it.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The identifier as an owned `String`.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl std::str::FromStr for $name {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self, Error> {
                Self::parse(s)
            }
        }

        impl TryFrom<&str> for $name {
            type Error = Error;
            fn try_from(s: &str) -> Result<Self, Error> {
                Self::parse(s)
            }
        }

        impl TryFrom<String> for $name {
            type Error = Error;
            fn try_from(s: String) -> Result<Self, Error> {
                if has_shape(&s, $prefix) {
                    Ok(Self(s))
                } else {
                    Err(Error::not_found($resource, &s))
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl PartialEq<&$name> for $name {
            fn eq(&self, other: &&$name) -> bool {
                self.0 == other.0
            }
        }

        impl PartialEq<$name> for &$name {
            fn eq(&self, other: &$name) -> bool {
                self.0 == other.0
            }
        }

        /// SQLite point reads bind it as its text (`store/sql/inline.rs`, on rusqlite).
        #[cfg(feature = "sql")]
        impl rusqlite::ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                self.0.to_sql()
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                self == other.0
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }
    };
}

typed_id!(
    /// An envelope's identifier, `env_...`.
    EnvelopeId,
    ENVELOPE,
    "envelope"
);
typed_id!(
    /// A template's identifier, `tmpl_...`.
    TemplateId,
    TEMPLATE,
    "template"
);
typed_id!(
    /// A signer's identifier, `sgn_...`.
    SignerId,
    SIGNER,
    "signer"
);
typed_id!(
    /// An event's identifier, `evt_...`.
    EventId,
    EVENT,
    "event"
);
typed_id!(
    /// A webhook endpoint's identifier, `we_...`.
    WebhookEndpointId,
    WEBHOOK_ENDPOINT,
    "webhook_endpoint"
);

typed_id!(
    /// An account's identifier, `acct_...`.
    AccountId,
    ACCOUNT,
    "account"
);
typed_id!(
    /// An API key record's identifier, `key_...` (not the secret key, which is never stored).
    ApiKeyId,
    API_KEY,
    "api_key"
);
typed_id!(
    /// A webhook delivery's identifier, `whd_...`: one event to one endpoint, over its attempts.
    DeliveryId,
    DELIVERY,
    "webhook_delivery"
);
typed_id!(
    /// A sent email's identifier, `eml_...`.
    EmailId,
    EMAIL,
    "email"
);
typed_id!(
    /// A copied (`cc`) recipient's identifier, `rcp_...`.
    RecipientId,
    RECIPIENT,
    "recipient"
);
typed_id!(
    /// A bulk send's identifier, `bulk_...` (extensions E12).
    BulkSendId,
    BULK_SEND,
    "bulk_send"
);

/// True when `s` looks like an identifier with this prefix (cheap shape check before a lookup).
pub(crate) fn has_shape(s: &str, prefix: &str) -> bool {
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
    fn typed_ids_check_their_prefix_and_answer_like_an_unknown_id() {
        let id = new_id(ENVELOPE);
        let parsed: EnvelopeId = id.parse().unwrap();
        assert_eq!(parsed, id);
        assert_eq!(parsed.as_str(), id);
        assert_eq!(parsed.to_string(), id);
        assert_eq!(serde_json::to_string(&parsed).unwrap(), format!("\"{id}\""));
        let back: EnvelopeId = serde_json::from_str(&format!("\"{id}\"")).unwrap();
        assert_eq!(back, parsed);
        for bad in [
            "tmpl_abc",
            "env_",
            "env_a/b",
            "",
            "ENV_abc",
            &format!("env_{}", "a".repeat(61)),
        ] {
            let e = EnvelopeId::parse(bad).unwrap_err();
            assert_eq!(e.code(), "resource_missing", "{bad}");
            assert!(e.to_string().starts_with("No such envelope: '"), "{e}");
        }
        assert_eq!(
            TemplateId::parse("env_abc").unwrap_err().to_string(),
            "No such template: 'env_abc'"
        );
        assert!(TemplateId::parse("tmpl_abc").is_ok());
        assert!(WebhookEndpointId::try_from("we_x1".to_string()).is_ok());
        assert!(EventId::try_from("evt_").is_err());
        assert!(SignerId::parse("sgn_Zz9").is_ok());
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
