//! Verifying a signer's identity (extensions E2): what the wire shows and what the record keeps.
//!
//! The wire signer shows only the method ([`SignerAuthView`]). The record ([`IdentityRecord`])
//! keeps salted SHA-256 digests of every secret (the access code, the emailed code, the grants
//! of verified browsers), never a secret itself, and its `Debug` output shows none of them. The
//! rules over it (attempts, lockout, expiry, the rate of code emails) are `rules/identity.rs`.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;

/// How a signer proves who they are before the document is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthMethod {
    /// A code the sender gave the signer out of band.
    AccessCode,
    /// A 6-digit code emailed to the signer's address when they ask for it on the page.
    EmailCode,
}

impl AuthMethod {
    /// The wire value: `access_code` or `email_code`.
    pub fn as_str(self) -> &'static str {
        match self {
            AuthMethod::AccessCode => "access_code",
            AuthMethod::EmailCode => "email_code",
        }
    }

    /// In words, for the audit trail.
    pub fn describe(self) -> &'static str {
        match self {
            AuthMethod::AccessCode => "access code",
            AuthMethod::EmailCode => "code sent by email",
        }
    }
}

/// `auth` of a wire signer: the method, never a code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignerAuthView {
    /// How the signer is checked: `access_code` or `email_code`.
    pub method: AuthMethod,
}

/// A secret the record knows only by its digest, and until when it is good.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HashedSecret {
    /// Lowercase hex of SHA-256(purpose, salt, secret): `ids::salted_digest`.
    pub hash: String,
    /// When the secret stops being accepted.
    pub expires_at: Timestamp,
}

impl fmt::Debug for HashedSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HashedSecret")
            .field("hash", &"[redacted]")
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

/// A signer's identity check as the record keeps it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdentityRecord {
    /// How the signer is checked; the secrets kept below depend on it.
    pub method: AuthMethod,
    /// Random, one per signer (and per reassignment): every digest below is salted with it.
    pub salt: String,
    /// `access_code`: the digest of the code the sender gave.
    #[serde(default)]
    pub access_code_hash: Option<String>,
    /// `email_code`: the newest emailed code, written when its email is sent.
    #[serde(default)]
    pub email_code: Option<HashedSecret>,
    /// When a code email was last asked for (opening the page, or "send a new code").
    #[serde(default)]
    pub code_requested_at: Option<Timestamp>,
    /// Wrong codes since the last right one or the end of the last lockout.
    #[serde(default)]
    pub failed_attempts: u32,
    /// Set after too many wrong codes: no code is accepted before this time.
    #[serde(default)]
    pub locked_until: Option<Timestamp>,
    /// Locks since the last right code or unlock: the step of the lock ladder the next lock
    /// takes (extensions E8: 15 minutes, then an hour, then until the sender acts).
    #[serde(default)]
    pub lock_step: u32,
    /// Locked until the sender unlocks the link or reassigns the signer (the ladder's last
    /// step): no code is accepted and none is emailed.
    #[serde(default)]
    pub held: bool,
    /// When code emails were asked for in the last 24 hours, oldest first (at most
    /// `rules::identity::CODE_EMAILS_PER_DAY`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub code_requests: Vec<Timestamp>,
    /// When the signer last entered the right code (the audit trail shows the first use that
    /// led to signing or declining: the latest before it).
    #[serde(default)]
    pub verified_at: Option<Timestamp>,
    /// Grants handed to browsers that entered the right code (digests), newest last.
    #[serde(default)]
    pub grants: Vec<HashedSecret>,
    /// Set when the test helper completed the envelope for this signer without a check.
    #[serde(default)]
    pub skipped_at: Option<Timestamp>,
}

impl IdentityRecord {
    /// A fresh check of `method`, with no secret set yet.
    pub fn new(method: AuthMethod, salt: String) -> IdentityRecord {
        IdentityRecord {
            method,
            salt,
            access_code_hash: None,
            email_code: None,
            code_requested_at: None,
            failed_attempts: 0,
            locked_until: None,
            lock_step: 0,
            held: false,
            code_requests: Vec::new(),
            verified_at: None,
            grants: Vec::new(),
            skipped_at: None,
        }
    }

    /// Forgets the digests of every secret (access code, emailed code, grants) and the salt
    /// they were made with: live retention keeps only what happened (the method, when the
    /// signer was verified or the check skipped). An access code may be guessable personal
    /// data (a date of birth), and a digest with its salt lets it be found by trying.
    pub fn erase_secrets(&mut self) {
        self.salt.clear();
        self.access_code_hash = None;
        self.email_code = None;
        self.grants.clear();
    }

    /// The wire `auth` of the signer: the method only, never a code.
    pub fn view(&self) -> SignerAuthView {
        SignerAuthView {
            method: self.method,
        }
    }
}

impl fmt::Debug for IdentityRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IdentityRecord")
            .field("method", &self.method)
            .field("email_code", &self.email_code)
            .field("code_requested_at", &self.code_requested_at)
            .field("failed_attempts", &self.failed_attempts)
            .field("locked_until", &self.locked_until)
            .field("lock_step", &self.lock_step)
            .field("held", &self.held)
            .field("code_requests", &self.code_requests.len())
            .field("verified_at", &self.verified_at)
            .field("grants", &self.grants.len())
            .field("skipped_at", &self.skipped_at)
            .finish_non_exhaustive()
    }
}
