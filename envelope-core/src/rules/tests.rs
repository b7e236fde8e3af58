//! Exhaustive tests of the state machines.

use super::*;
use crate::model::{Delivery, Mode, Signer, SignerRecord, StoredFile};
use chrono::Duration;

fn t(s: i64) -> Timestamp {
    Timestamp::from_millis(1_800_000_000_000 + s * 1000).unwrap()
}

fn signer(i: u32, order: u32) -> SignerRecord {
    SignerRecord {
        signer: Signer {
            id: format!("sgn_{i}").parse().unwrap(),
            role: format!("Role{i}"),
            name: format!("Name {i}"),
            email: format!("s{i}@example.com"),
            order,
            status: SignerStatus::Pending,
            viewed_at: None,
            signed_at: None,
            declined_at: None,
            decline_reason: None,
            auth: None,
            locale: None,
            last_email: None,
            kind: Default::default(),
            in_person: None,
        },
        sent_at: None,
        last_reminded_at: None,
        consented_at: None,
        ip_address: None,
        user_agent: None,
        values: Default::default(),
        reassignments: vec![],
        identity: None,
        links: Vec::new(),
        links_not_kept: Default::default(),
        acted_via: None,
        locks: Vec::new(),
        locks_not_kept: 0,
    }
}

/// An envelope of `n` signers, for tests elsewhere in the crate too.
pub(crate) fn env(status: EnvelopeStatus, signing_order: bool, n: u32) -> EnvelopeRecord {
    EnvelopeRecord {
        id: "env_1".parse().unwrap(),
        account: crate::ids::AccountId::trusted("acct_1"),
        mode: Mode::Test,
        version: 1,
        status,
        name: "Doc".into(),
        template: None,
        delivery: Delivery::Email,
        signing_order,
        signers: (0..n).map(|i| signer(i, i + 1)).collect(),
        cc: vec![],
        metadata: Default::default(),
        void_reason: None,
        created_at: t(0),
        sent_at: None,
        completed_at: None,
        voided_at: None,
        expires_at: None,
        expires_in_days: None,
        subject: None,
        message: None,
        fields: vec![],
        data: Default::default(),
        signature_page: true,
        original: StoredFile {
            blob: "b".into(),
            file_name: "a.pdf".into(),
            size: 1,
            sha256: "0".into(),
            delta: None,
            sha256_state: None,
        },
        signed: None,
        audit_trail: None,
        page_count: None,
        more_documents: vec![],
        emails: vec![],
        files_deleted_at: None,
        seal: None,
        corrections: Vec::new(),
        bulk_send: None,
    }
}

const ALL: [EnvelopeStatus; 4] = [
    EnvelopeStatus::Draft,
    EnvelopeStatus::Sent,
    EnvelopeStatus::Completed,
    EnvelopeStatus::Voided,
];

#[test]
fn send_only_from_draft() {
    for s in ALL {
        let mut e = env(s, false, 1);
        e.expires_in_days = Some(3);
        let r = send(&mut e, t(10));
        if s == EnvelopeStatus::Draft {
            r.unwrap();
            assert_eq!(e.status, EnvelopeStatus::Sent);
            assert_eq!(e.sent_at, Some(t(10)));
            assert_eq!(e.expires_at, Some(t(10) + Duration::days(3)));
        } else {
            assert_eq!(r.unwrap_err().code(), "invalid_state");
            assert_eq!(e.status, s);
        }
    }
}

#[test]
fn void_table() {
    for (s, expected) in [
        (EnvelopeStatus::Draft, Ok(())),
        (EnvelopeStatus::Sent, Ok(())),
        (EnvelopeStatus::Completed, Err("envelope_completed")),
        (EnvelopeStatus::Voided, Err("invalid_state")),
    ] {
        let mut e = env(s, false, 1);
        let r = void(&mut e, DEFAULT_VOID_REASON, t(5)).map_err(|e| e.code());
        assert_eq!(r, expected, "{s:?}");
        if expected.is_ok() {
            assert_eq!(e.status, EnvelopeStatus::Voided);
            assert_eq!(e.void_reason.as_deref(), Some(DEFAULT_VOID_REASON));
            assert_eq!(e.voided_at, Some(t(5)));
        } else {
            assert_eq!(e.status, s);
        }
    }
}

#[test]
fn nobody_acts_unless_sent() {
    for s in ALL {
        let e = env(s, false, 3);
        assert_eq!(
            actionable(&e, t(1)).is_empty(),
            s != EnvelopeStatus::Sent,
            "{s:?}"
        );
    }
}

#[test]
fn parallel_signing_everyone_not_done() {
    let mut e = env(EnvelopeStatus::Sent, false, 3);
    assert_eq!(actionable(&e, t(1)), vec![0, 1, 2]);
    assert!(!sign(&mut e, 1, t(2)).unwrap());
    assert_eq!(actionable(&e, t(3)), vec![0, 2]);
    assert_eq!(
        sign(&mut e, 1, t(3)).unwrap_err().code(),
        "signer_not_actionable"
    );
    assert!(!sign(&mut e, 2, t(4)).unwrap());
    assert!(sign(&mut e, 0, t(5)).unwrap(), "last signer completes");
    complete(&mut e, t(6)).unwrap();
    assert_eq!(e.status, EnvelopeStatus::Completed);
}

#[test]
fn signers_who_share_an_order_form_one_step() {
    // Four signers in three steps: A (1), then B and C together (2), then D (3).
    let mut e = env(EnvelopeStatus::Sent, true, 4);
    for (i, order) in [1, 2, 2, 3].into_iter().enumerate() {
        e.signers[i].signer.order = order;
    }
    assert_eq!(actionable(&e, t(1)), vec![0]);
    assert_eq!(mark_turns(&mut e, t(1)), vec![0]);
    sign(&mut e, 0, t(2)).unwrap();
    assert_eq!(
        actionable(&e, t(2)),
        vec![1, 2],
        "the step's signers together"
    );
    assert_eq!(
        mark_turns(&mut e, t(2)),
        vec![1, 2],
        "both are asked at once"
    );
    assert_eq!(
        not_actionable_reason(&e, 3, t(2)),
        Some("it is not this signer's turn")
    );
    // Within the step, any order; the next step waits for the whole step.
    sign(&mut e, 2, t(3)).unwrap();
    assert_eq!(actionable(&e, t(3)), vec![1]);
    assert!(mark_turns(&mut e, t(3)).is_empty(), "nobody new is asked");
    sign(&mut e, 1, t(4)).unwrap();
    assert_eq!(actionable(&e, t(4)), vec![3]);
    assert_eq!(mark_turns(&mut e, t(4)), vec![3]);
    assert!(sign(&mut e, 3, t(5)).unwrap(), "the last step completes it");
}

#[test]
fn a_step_with_a_declined_signer_offers_its_other_signers_nothing_new() {
    let mut e = env(EnvelopeStatus::Sent, true, 3);
    for (i, order) in [1, 1, 2].into_iter().enumerate() {
        e.signers[i].signer.order = order;
    }
    e.signers[1].signer.status = SignerStatus::Declined;
    // The step is not finished (a declined signer never completes): the next never starts.
    assert_eq!(actionable(&e, t(1)), vec![0]);
    sign(&mut e, 0, t(2)).unwrap();
    assert!(actionable(&e, t(2)).is_empty());
}

#[test]
fn sequential_signing_follows_order_not_list_position() {
    let mut e = env(EnvelopeStatus::Sent, true, 3);
    // List position 2 signs first.
    e.signers[0].signer.order = 3;
    e.signers[1].signer.order = 2;
    e.signers[2].signer.order = 1;
    assert_eq!(actionable(&e, t(1)), vec![2]);
    assert_eq!(
        not_actionable_reason(&e, 0, t(1)),
        Some("it is not this signer's turn")
    );
    assert_eq!(
        view(&mut e, 0, t(1)).unwrap_err().code(),
        "signer_not_actionable"
    );
    sign(&mut e, 2, t(2)).unwrap();
    assert_eq!(actionable(&e, t(2)), vec![1]);
    sign(&mut e, 1, t(3)).unwrap();
    assert!(sign(&mut e, 0, t(4)).unwrap());
}

#[test]
fn view_once() {
    let mut e = env(EnvelopeStatus::Sent, false, 1);
    assert!(view(&mut e, 0, t(1)).unwrap());
    assert!(!view(&mut e, 0, t(2)).unwrap());
    assert_eq!(e.signers[0].signer.viewed_at, Some(t(1)));
    assert_eq!(e.signers[0].signer.status, SignerStatus::Viewed);
    sign(&mut e, 0, t(3)).unwrap();
    assert_eq!(
        view(&mut e, 0, t(4)).unwrap_err().code(),
        "signer_not_actionable"
    );
}

#[test]
fn decline_voids_with_reason() {
    for (reason, expected) in [
        (Some("wrong amount"), "declined by Role1: wrong amount"),
        (None, "declined by Role1"),
        (Some("  "), "declined by Role1"),
    ] {
        let mut e = env(EnvelopeStatus::Sent, false, 2);
        decline(&mut e, 1, reason, t(3)).unwrap();
        assert_eq!(e.status, EnvelopeStatus::Voided);
        assert_eq!(e.void_reason.as_deref(), Some(expected));
        assert_eq!(e.signers[1].signer.status, SignerStatus::Declined);
        assert_eq!(e.signers[1].signer.declined_at, Some(t(3)));
        assert!(
            actionable(&e, t(4)).is_empty(),
            "nobody signs a voided envelope"
        );
    }
}

#[test]
fn decline_after_signing_is_refused() {
    let mut e = env(EnvelopeStatus::Sent, false, 2);
    sign(&mut e, 0, t(1)).unwrap();
    assert_eq!(
        decline(&mut e, 0, None, t(2)).unwrap_err().code(),
        "signer_not_actionable"
    );
    assert_eq!(e.status, EnvelopeStatus::Sent);
}

#[test]
fn expiry_stops_signing_at_the_instant() {
    let mut e = env(EnvelopeStatus::Sent, false, 1);
    e.expires_at = Some(t(100));
    assert!(!is_expired(&e, t(99)));
    assert_eq!(actionable(&e, t(99)), vec![0]);
    assert!(is_expired(&e, t(100)));
    assert!(actionable(&e, t(100)).is_empty());
    assert_eq!(
        sign(&mut e, 0, t(100)).unwrap_err().code(),
        "signer_not_actionable"
    );
    void(&mut e, EXPIRED_REASON, t(100)).unwrap();
    assert!(
        !is_expired(&e, t(200)),
        "a voided envelope is not expired again"
    );
}

#[test]
fn complete_requires_everyone() {
    let mut e = env(EnvelopeStatus::Sent, false, 2);
    sign(&mut e, 0, t(1)).unwrap();
    assert_eq!(complete(&mut e, t(2)).unwrap_err().code(), "invalid_state");
    for s in [
        EnvelopeStatus::Draft,
        EnvelopeStatus::Completed,
        EnvelopeStatus::Voided,
    ] {
        let mut e = env(s, false, 1);
        assert_eq!(complete(&mut e, t(2)).unwrap_err().code(), "invalid_state");
    }
}

#[test]
fn last_change_is_the_latest_timestamp_of_the_record() {
    let mut e = env(EnvelopeStatus::Draft, false, 2);
    assert_eq!(e.last_change(), t(0));
    send(&mut e, t(10)).unwrap();
    assert_eq!(e.last_change(), t(10));
    e.signers[1].last_reminded_at = Some(t(20));
    assert_eq!(e.last_change(), t(20), "a reminder is a change");
    view(&mut e, 0, t(30)).unwrap();
    assert_eq!(
        e.last_change(),
        t(30),
        "a signer opening the link is a change"
    );
    // An expiry voids at the expiry instant, which may be before the last change.
    e.expires_at = Some(t(25));
    void(&mut e, EXPIRED_REASON, t(25)).unwrap();
    assert_eq!(e.last_change(), t(30));
}

#[test]
fn live_retention_deletes_files_of_finished_envelopes_only() {
    let before = t(100);
    for s in ALL {
        let mut e = env(s, false, 1);
        match s {
            EnvelopeStatus::Completed => e.completed_at = Some(t(50)),
            EnvelopeStatus::Voided => e.voided_at = Some(t(50)),
            _ => {}
        }
        // A voided envelope's original still has its SHA-256 state (its tail is file content).
        e.original.sha256_state = Some(crate::model::Sha256State::of(b"%PDF-1.7 ...").1);
        let finished = matches!(s, EnvelopeStatus::Completed | EnvelopeStatus::Voided);
        assert_eq!(delete_files(&mut e, before, t(200)), finished, "{s:?}");
        assert_eq!(e.files_deleted_at, finished.then_some(t(200)));
        assert_eq!(e.original.sha256_state.is_none(), finished, "{s:?}");
        if finished {
            assert!(e.held_files().is_empty());
            assert!(!e.view().files.signed && !e.view().files.audit_trail);
            assert_eq!(e.view().files_deleted_at, Some(t(200)));
            assert!(!delete_files(&mut e, before, t(300)), "only once");
            assert_eq!(e.files_deleted_at, Some(t(200)));
        }
    }
    // Changed at or after the cutoff: kept.
    let mut e = env(EnvelopeStatus::Completed, false, 1);
    e.completed_at = Some(before);
    assert!(!delete_files(&mut e, before, t(200)));
    assert_eq!(e.held_files().len(), 1);
}
