//! Accounts, API keys, and the live allowance.

use serde::{Deserialize, Serialize};

use super::Mode;
use crate::clock::Timestamp;

/// An account: the owner of all data, with its monthly live allowance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Account {
    pub id: String,
    pub name: String,
    /// Live envelopes that can be sent per calendar month (UTC).
    pub monthly_allowance: u32,
    pub created_at: Timestamp,
    /// Bytes of PDFs the account's records may hold at most (originals, signed copies, audit
    /// trails, template files; test and live data alike); `None` is no limit.
    #[serde(default)]
    pub storage_quota: Option<u64>,
}

/// An API key as stored: only the SHA-256 of the secret, never the secret.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiKey {
    pub id: String,
    pub account: String,
    pub mode: Mode,
    /// The first 12 characters of the key (`sk_test_AbCd`), safe to show.
    pub prefix: String,
    /// Lowercase hex SHA-256 of the whole key.
    pub hash: String,
    pub created_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiKey")
            .field("id", &self.id)
            .field("account", &self.account)
            .field("mode", &self.mode)
            .field("prefix", &self.prefix)
            .field("revoked_at", &self.revoked_at)
            .finish_non_exhaustive()
    }
}

impl ApiKey {
    pub fn view(&self) -> KeyView {
        KeyView {
            id: self.id.clone(),
            mode: self.mode,
            prefix: self.prefix.clone(),
            created_at: self.created_at,
        }
    }
}

/// `key` member of the account response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyView {
    pub id: String,
    pub mode: Mode,
    pub prefix: String,
    pub created_at: Timestamp,
}

/// `GET /account`: `{object:"account", id, name, livemode, key:{id, mode, prefix, created_at},
/// signing_certificate?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccountView {
    pub object: String,
    pub id: String,
    pub name: String,
    pub livemode: bool,
    pub key: KeyView,
    /// The certificate that seals signed documents; absent when the service seals nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signing_certificate: Option<SigningCertificateView>,
}

/// `signing_certificate` member of the account response (additive).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SigningCertificateView {
    /// A self-signed certificate the server generated because none was configured.
    pub development: bool,
    /// Lowercase hex SHA-256 of the certificate (DER), as printed in audit trails.
    pub sha256_fingerprint: String,
}

/// `GET /balance`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Balance {
    pub object: String,
    pub livemode: bool,
    pub remaining: u32,
    pub allowance: u32,
    pub used: u32,
    pub period_start: Timestamp,
    pub period_end: Timestamp,
    pub purchase_url: String,
}
