//! The audit trail's account of how each signer was reached (extensions E8): every signing link
//! issued (emailed, to which address; or through the API, by which key, from which address),
//! the kind of link the signer acted through, and the locks of their code step.
//!
//! Pure: built from the signer's record alone, like the rest of the trail (`complete.rs`). Each
//! detail starts with what matters (the address, the key, the end of a lock), so that it reads
//! on the first line of its cell.

use crate::clock::Timestamp;
use crate::model::reach::MAX_LINKS_KEPT;
use crate::model::{Delivery, EnvelopeRecord, LinkVia, LockEntry, SignerRecord};
use crate::pdf::AuditEvent;

fn fmt_time(t: Timestamp) -> String {
    t.datetime().format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// The events of the links issued to `s` and of its locks; `who` names the signer.
pub(super) fn events(s: &SignerRecord, who: &str) -> Vec<AuditEvent> {
    let mut out = Vec::new();
    for l in &s.links {
        out.push(match l.via {
            LinkVia::Email => AuditEvent {
                at: fmt_time(l.at),
                what: "Link emailed".into(),
                who: who.into(),
                detail: format!(
                    "To {} (role {})",
                    l.to.as_deref().unwrap_or("unknown"),
                    s.signer.role
                ),
            },
            LinkVia::Api => AuditEvent {
                at: fmt_time(l.at),
                what: "Link via API".into(),
                who: "Sender (API)".into(),
                detail: format!(
                    "Key {}, from IP {}, a link for {who} (role {})",
                    l.api_key.as_deref().unwrap_or("unknown"),
                    l.ip_address.as_deref().unwrap_or("unknown"),
                    s.signer.role
                ),
            },
        });
    }
    let more = &s.links_not_kept;
    if let Some(at) = more.last_at.filter(|_| !more.is_empty()) {
        out.push(AuditEvent {
            at: fmt_time(at),
            what: "More links".into(),
            who: who.into(),
            detail: format!(
                "{} more via the API, {} more emailed (not listed: the first {MAX_LINKS_KEPT} \
                 are; this is the time of the last; role {})",
                more.api, more.email, s.signer.role
            ),
        });
    }
    for l in &s.locks {
        out.push(match l {
            LockEntry::Locked { at, until } => AuditEvent {
                at: fmt_time(*at),
                what: "Link locked".into(),
                who: who.into(),
                detail: match until {
                    Some(u) => format!("Until {} (too many wrong codes)", fmt_time(*u)),
                    None => "Until the sender unlocks it (too many wrong codes)".into(),
                },
            },
            LockEntry::Unlocked { at, reassigned } => AuditEvent {
                at: fmt_time(*at),
                what: "Link unlocked".into(),
                who: "Sender (API)".into(),
                detail: if *reassigned {
                    format!("By reassigning the signer (role {})", s.signer.role)
                } else {
                    format!("By the sender (role {})", s.signer.role)
                },
            },
        });
    }
    if s.locks_not_kept > 0 {
        out.push(AuditEvent {
            at: out.last().map(|e| e.at.clone()).unwrap_or_default(),
            what: "More locks".into(),
            who: who.into(),
            detail: format!("{} more locks and unlocks, not listed", s.locks_not_kept),
        });
    }
    out
}

/// What to add to the "Signed" or "Declined" event: the kind of link used, when it is not the
/// one the envelope's delivery implies (an API-issued link on an email envelope), and the test
/// helper, which uses none.
pub(super) fn acted_through(rec: &EnvelopeRecord, s: &SignerRecord) -> Option<&'static str> {
    if s.identity
        .as_ref()
        .is_some_and(|id| id.skipped_at.is_some())
        || s.acted_via.is_none()
    {
        return None;
    }
    (s.acted_via == Some(LinkVia::Api) && rec.delivery == Delivery::Email)
        .then_some("Through a link the API issued, not the emailed one")
}

/// The signer's rows about links, for their entry on the trail's signers page.
pub(super) fn rows(
    rec: &EnvelopeRecord,
    s: &SignerRecord,
    by_test_helper: bool,
) -> Vec<(String, String)> {
    let emailed = s.links.iter().filter(|l| l.via == LinkVia::Email).count() as u64
        + u64::from(s.links_not_kept.email);
    let api = s.links.iter().filter(|l| l.via == LinkVia::Api).count() as u64
        + u64::from(s.links_not_kept.api);
    let mut rows = vec![(
        "Signing links".to_string(),
        format!("{emailed} emailed, {api} issued through the API"),
    )];
    let through = if by_test_helper {
        Some("the test helper (no signing link)".to_string())
    } else {
        s.acted_via.map(|via| match (via, rec.delivery) {
            (LinkVia::Api, Delivery::Email) => {
                "a link issued by the API (the envelope's delivery is email)".to_string()
            }
            (LinkVia::Api, _) => "a link issued by the API".to_string(),
            (LinkVia::Email, _) => "the emailed link".to_string(),
        })
    };
    if let Some(t) = through {
        rows.push(("Acted through".to_string(), t));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::IssuedLink;

    fn t(s: i64) -> Timestamp {
        Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap() + chrono::Duration::seconds(s)
    }

    #[test]
    fn each_link_and_lock_is_a_line() {
        let mut rec = crate::rules::tests::env(crate::model::EnvelopeStatus::Sent, false, 1);
        rec.delivery = Delivery::Email;
        let s = &mut rec.signers[0];
        s.links.push(IssuedLink {
            via: LinkVia::Email,
            at: t(0),
            to: Some("ann@example.com".into()),
            api_key: None,
            ip_address: None,
        });
        s.links.push(IssuedLink {
            via: LinkVia::Api,
            at: t(5),
            to: None,
            api_key: Some(crate::ids::ApiKeyId::trusted("key_abc")),
            ip_address: Some("203.0.113.7".into()),
        });
        s.links_not_kept.api = 3;
        s.links_not_kept.last_at = Some(t(9));
        s.locks.push(LockEntry::Locked {
            at: t(10),
            until: None,
        });
        s.locks.push(LockEntry::Unlocked {
            at: t(20),
            reassigned: false,
        });
        s.acted_via = Some(LinkVia::Api);
        let s = rec.signers[0].clone();
        let ev = events(&s, "Ann <ann@example.com>");
        let text: Vec<String> = ev
            .iter()
            .map(|e| format!("{} | {}", e.what, e.detail))
            .collect();
        assert!(text[0].contains("To ann@example.com"), "{text:?}");
        assert!(
            text[1].contains("Key key_abc, from IP 203.0.113.7"),
            "{text:?}"
        );
        assert!(
            text[2].contains("3 more via the API, 0 more emailed"),
            "{text:?}"
        );
        assert!(text[3].contains("Until the sender unlocks it"), "{text:?}");
        assert!(text[4].contains("By the sender"), "{text:?}");
        assert!(acted_through(&rec, &s).is_some());
        let r = rows(&rec, &s, false);
        assert_eq!(r[0].1, "1 emailed, 4 issued through the API");
        assert!(r[1].1.contains("issued by the API"), "{r:?}");
        rec.delivery = Delivery::Embedded;
        assert_eq!(
            acted_through(&rec, &s),
            None,
            "embedded links are the API's anyway"
        );
        assert_eq!(
            rows(&rec, &s, true)[1].1,
            "the test helper (no signing link)"
        );
    }
}
