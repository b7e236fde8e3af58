//! Accounts, API keys, and the live allowance.

use serde::{Deserialize, Serialize};

use super::Mode;
use crate::clock::Timestamp;
use crate::ids::{AccountId, ApiKeyId};

/// An account: the owner of all data, with its monthly live allowance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Account {
    /// The account's ID, `acct_...`.
    pub id: AccountId,
    /// The account's display name.
    pub name: String,
    /// Live envelopes that can be sent per calendar month (UTC).
    pub monthly_allowance: u32,
    /// When the account was created.
    pub created_at: Timestamp,
    /// Bytes of PDFs the account's records may hold at most (originals, signed copies, audit
    /// trails, template files; test and live data alike); `None` is no limit.
    #[serde(default)]
    pub storage_quota: Option<u64>,
    /// The account's own daily email budget in test mode; `None` takes the service's default
    /// ([`EmailSettings::daily_limit`](crate::service::EmailSettings::daily_limit)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_email_daily_limit: Option<u32>,
    /// The account's own daily email budget in live mode; `None` takes the service's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_email_daily_limit: Option<u32>,
}

impl Account {
    /// The account's own daily email budget in `mode`; `None` when it takes the service's
    /// default.
    pub fn email_daily_limit(&self, mode: Mode) -> Option<u32> {
        match mode {
            Mode::Test => self.test_email_daily_limit,
            Mode::Live => self.live_email_daily_limit,
        }
    }
}

/// An API key as stored: only the SHA-256 of the secret, never the secret.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiKey {
    /// The key's ID, `key_...` (not the secret).
    pub id: ApiKeyId,
    /// The owning account's ID, `acct_...`.
    pub account: AccountId,
    /// Test or live: the mode of every object the key makes.
    pub mode: Mode,
    /// The first 12 characters of the key (`sk_test_AbCd`), safe to show.
    pub prefix: String,
    /// Lowercase hex SHA-256 of the whole key.
    pub hash: String,
    /// When the key was created.
    pub created_at: Timestamp,
    /// When the key was revoked; `None` while it is usable.
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
    /// The key as the account response shows it: no hash, no secret.
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
    /// The key's ID, `key_...` (not the secret).
    pub id: ApiKeyId,
    /// Test or live: the mode of the key.
    pub mode: Mode,
    /// The first 12 characters of the key (`sk_test_AbCd`), safe to show.
    pub prefix: String,
    /// When the key was created.
    pub created_at: Timestamp,
}

/// `GET /account`: `{object:"account", id, name, livemode, key:{id, mode, prefix, created_at},
/// signing_certificate?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccountView {
    /// Always `account`.
    pub object: String,
    /// The account's ID, `acct_...`.
    pub id: AccountId,
    /// The account's display name.
    pub name: String,
    /// `true` when asked with a live key.
    pub livemode: bool,
    /// The key the request was made with.
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
    /// Always `balance`.
    pub object: String,
    /// `true` when asked with a live key.
    pub livemode: bool,
    /// Live envelopes that can still be sent this period (`allowance` minus `used`, never below
    /// zero).
    pub remaining: u32,
    /// Live envelopes that can be sent per calendar month (UTC).
    pub allowance: u32,
    /// Live envelopes sent so far this period.
    pub used: u32,
    /// Start of the current period: the first instant of the calendar month (UTC).
    pub period_start: Timestamp,
    /// End of the current period: the first instant of the next calendar month (UTC).
    pub period_end: Timestamp,
    /// Where to buy more signatures.
    pub purchase_url: String,
}
