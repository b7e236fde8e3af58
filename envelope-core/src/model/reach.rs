//! How each signer was reached (extensions E8): every signing link issued to them, emailed or
//! fetched through the API, which kind of link they acted through, and the locks of their code
//! step. All of it is evidence for the audit trail; none of it is on the wire signer.
//!
//! The lists are bounded: a sender can mint links in a loop, so a signer keeps the first
//! [`MAX_LINKS_KEPT`] links in full and only counts the rest ([`LinksNotKept`]); the audit trail
//! says how many were left out. The client address of an API-issued link is kept in a field
//! named `ip_address`, like every other client address, so that retention can clear it.

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::ids::ApiKeyId;

/// Links kept in full per signer; later ones are only counted.
pub const MAX_LINKS_KEPT: usize = 20;
/// Lock and unlock entries kept per signer; later ones are only counted.
pub const MAX_LOCK_ENTRIES: usize = 30;

/// Where a signing link came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkVia {
    /// Emailed to the signer by the service (a signing request or a reminder).
    Email,
    /// Returned to the sender's API key by `POST /v1/envelopes/{id}/signing_url` (or
    /// `SigningService::signing_link`).
    Api,
}

impl LinkVia {
    /// The record's value: `email` or `api`.
    pub fn as_str(self) -> &'static str {
        match self {
            LinkVia::Email => "email",
            LinkVia::Api => "api",
        }
    }
}

/// One signing link issued to a signer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssuedLink {
    /// Emailed, or issued through the API.
    pub via: LinkVia,
    /// When the link was made (for an email, when the email was sent).
    pub at: Timestamp,
    /// `email`: the address the link was sent to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// `api`: the ID of the API key that asked for the link (`key_...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<ApiKeyId>,
    /// `api`: the client address the request came from, when known. Personal data: retention
    /// clears it with the signer's own address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip_address: Option<String>,
}

/// Links issued past [`MAX_LINKS_KEPT`]: counted, not kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinksNotKept {
    /// Emailed links not kept.
    #[serde(default)]
    pub email: u32,
    /// API-issued links not kept.
    #[serde(default)]
    pub api: u32,
    /// When the last link not kept was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_at: Option<Timestamp>,
}

impl LinksNotKept {
    /// Whether nothing was left out.
    pub fn is_empty(&self) -> bool {
        self.email == 0 && self.api == 0
    }
}

/// Records a link issued to a signer: kept in full while fewer than [`MAX_LINKS_KEPT`] are,
/// counted after that.
pub fn record_link(kept: &mut Vec<IssuedLink>, not_kept: &mut LinksNotKept, link: IssuedLink) {
    if kept.len() < MAX_LINKS_KEPT {
        kept.push(link);
        return;
    }
    match link.via {
        LinkVia::Email => not_kept.email = not_kept.email.saturating_add(1),
        LinkVia::Api => not_kept.api = not_kept.api.saturating_add(1),
    }
    not_kept.last_at = Some(link.at);
}

/// A lock of a signer's code step, or its end by the sender, for the audit trail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LockEntry {
    /// Too many wrong codes locked the link, until `until` (`None`: until the sender unlocks
    /// it or reassigns the signer).
    Locked {
        /// When the lock began.
        at: Timestamp,
        /// When it ends by itself; `None` when only the sender can end it.
        until: Option<Timestamp>,
    },
    /// The sender lifted the lock: `POST .../unlock`, or a reassignment (`reassigned`).
    Unlocked {
        /// When.
        at: Timestamp,
        /// `true` when a reassignment ended it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        reassigned: bool,
    },
}

/// Appends `entry` while fewer than [`MAX_LOCK_ENTRIES`] are kept; counts it otherwise.
pub fn record_lock(kept: &mut Vec<LockEntry>, not_kept: &mut u32, entry: LockEntry) {
    if kept.len() < MAX_LOCK_ENTRIES {
        kept.push(entry);
    } else {
        *not_kept = not_kept.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(via: LinkVia, n: i64) -> IssuedLink {
        IssuedLink {
            via,
            at: Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap()
                + chrono::Duration::seconds(n),
            to: None,
            api_key: Some(crate::ids::ApiKeyId::trusted("key_1")),
            ip_address: None,
        }
    }

    #[test]
    fn links_past_the_cap_are_counted_by_kind() {
        let (mut kept, mut not_kept) = (Vec::new(), LinksNotKept::default());
        for n in 0..(MAX_LINKS_KEPT as i64 + 5) {
            let via = if n % 2 == 0 {
                LinkVia::Api
            } else {
                LinkVia::Email
            };
            record_link(&mut kept, &mut not_kept, link(via, n));
        }
        assert_eq!(kept.len(), MAX_LINKS_KEPT);
        assert_eq!(kept[0], link(LinkVia::Api, 0), "the first ones are kept");
        assert_eq!((not_kept.api, not_kept.email), (3, 2));
        assert_eq!(not_kept.last_at, Some(link(LinkVia::Api, 24).at));
    }

    #[test]
    fn lock_entries_are_bounded_and_read_back() {
        let (mut kept, mut not_kept) = (Vec::new(), 0);
        let at = Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap();
        for _ in 0..MAX_LOCK_ENTRIES + 2 {
            record_lock(
                &mut kept,
                &mut not_kept,
                LockEntry::Locked { at, until: None },
            );
        }
        assert_eq!((kept.len(), not_kept), (MAX_LOCK_ENTRIES, 2));
        let e = LockEntry::Unlocked {
            at,
            reassigned: false,
        };
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(
            json,
            r#"{"kind":"unlocked","at":"2027-03-10T12:00:00.000Z"}"#
        );
        assert_eq!(serde_json::from_str::<LockEntry>(&json).unwrap(), e);
    }
}
