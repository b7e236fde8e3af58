//! Clauses of the email outbox's fairness and of the daily email budget.

use std::sync::Arc;

use super::fixtures::*;
use super::{RACERS, Store};
use crate::ids::AccountId;
use crate::model::{EmailKind, EmailRecord, EmailStatus, EnvelopeRecord, Mode, Scope};
use crate::store::BlobStore;

/// An envelope of `scope` with one pending email due at `at`.
fn due_at(scope: &Scope, at: i64) -> EnvelopeRecord {
    let mut e = envelope(scope);
    e.emails = vec![EmailRecord {
        id: crate::ids::EmailId::new(),
        kind: EmailKind::SigningRequest,
        recipient: e.signers[0].signer.id.to_string(),
        status: EmailStatus::Pending,
        attempts: 0,
        created_at: t(at),
        next_attempt_at: Some(t(at)),
        finished_at: None,
        last_error: None,
        failure_reason: None,
        budget_taken: false,
    }];
    e
}

/// `due_emails` takes accounts in turns: a busy account's backlog, all due before a quiet
/// account's one email, takes one place per turn, so the quiet account's email is second, and
/// within the first `limit` as soon as `limit` covers every account with due email. Within an
/// account, earliest due first.
///
/// Works far in the past of the other clauses' times, so that only its own records are due,
/// and leaves none of them due.
pub async fn due_emails_fairness(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    const BASE: i64 = -10_000_000;
    let busy = new_scope(&*store, 0).await;
    let quiet = new_scope(&*store, 0).await;
    let backlog: Vec<EnvelopeRecord> = (0..40).map(|i| due_at(&busy, BASE + i)).collect();
    for e in &backlog {
        store.create_envelope(e, &[], None).await.unwrap();
    }
    let lone = due_at(&quiet, BASE + 1_000);
    store.create_envelope(&lone, &[], None).await.unwrap();
    // A second quiet record in the live mode of the busy account: turns are by account.
    let busy_live = Scope {
        account: busy.account.clone(),
        mode: Mode::Live,
    };
    let live = due_at(&busy_live, BASE + 500);
    store.create_envelope(&live, &[], None).await.unwrap();

    let now = t(BASE + 2_000);
    let due: Vec<String> = store
        .due_emails(now, 10_000)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id.to_string())
        .collect();
    let mut expected = vec![backlog[0].id.to_string(), lone.id.to_string()];
    expected.extend(backlog[1..].iter().map(|e| e.id.to_string()));
    // Its live-mode envelope is the busy account's 41st, alone in the last turn.
    expected.push(live.id.to_string());
    assert_eq!(
        due, expected,
        "turns by account, earliest due first within each"
    );

    let first = store.due_emails(now, 2).await.unwrap();
    let first: Vec<&str> = first.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        first,
        [backlog[0].id.as_str(), lone.id.as_str()],
        "one place per account in the first turn"
    );

    // Nothing of this clause stays due for the clauses after it.
    for e in backlog.iter().chain([&lone, &live]) {
        let mut sent = next(e);
        sent.emails[0].status = EmailStatus::Sent;
        sent.emails[0].next_attempt_at = None;
        sent.emails[0].finished_at = Some(now);
        store.update_envelope(&sent, &[], None).await.unwrap();
    }
    assert!(store.due_emails(now, 10).await.unwrap().is_empty());
}

/// `take_email`: counts per account, mode and day up to the budget (the account's own, else the
/// default, else none), then refuses without counting; `set_email_daily_limit` sets and clears
/// the account's own, which every account read shows.
pub async fn email_budget(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 0).await;
    let a = &s.account;
    let take = |mode: Mode, day: &'static str, default: Option<u32>| {
        let store = store.clone();
        let a = a.clone();
        async move { store.take_email(&a, mode, day, default).await.unwrap() }
    };
    // The default budget, per day and per mode.
    for _ in 0..3 {
        assert!(take(Mode::Test, "2027-01-01", Some(3)).await);
    }
    assert!(
        !take(Mode::Test, "2027-01-01", Some(3)).await,
        "past the budget"
    );
    assert!(
        !take(Mode::Test, "2027-01-01", Some(3)).await,
        "still past it"
    );
    assert!(take(Mode::Test, "2027-01-02", Some(3)).await, "a new day");
    assert!(
        take(Mode::Live, "2027-01-01", Some(1)).await,
        "the other mode"
    );
    assert!(!take(Mode::Live, "2027-01-01", Some(1)).await);
    // Refusals counted nothing: a larger default lets exactly the difference through.
    assert!(take(Mode::Test, "2027-01-01", Some(4)).await);
    assert!(!take(Mode::Test, "2027-01-01", Some(4)).await);
    // No budget at all: always taken.
    for _ in 0..5 {
        assert!(take(Mode::Live, "2027-01-03", None).await);
    }
    let other = new_scope(&*store, 0).await;
    assert!(
        store
            .take_email(&other.account, Mode::Test, "2027-01-01", Some(1))
            .await
            .unwrap(),
        "budgets are per account"
    );

    // The account's own budget wins over the default, in its mode only.
    assert!(
        store
            .set_email_daily_limit(a, Mode::Test, Some(6))
            .await
            .unwrap()
    );
    let acct = store.get_account(a).await.unwrap().unwrap();
    assert_eq!(
        (acct.test_email_daily_limit, acct.live_email_daily_limit),
        (Some(6), None)
    );
    assert_eq!(acct.email_daily_limit(Mode::Test), Some(6));
    let listed = store.list_accounts().await.unwrap();
    let listed = listed.iter().find(|x| x.id == a).unwrap();
    assert_eq!(listed.test_email_daily_limit, Some(6));
    assert!(take(Mode::Test, "2027-01-01", Some(3)).await, "5 of 6");
    assert!(take(Mode::Test, "2027-01-01", None).await, "6 of 6");
    assert!(
        !take(Mode::Test, "2027-01-01", None).await,
        "the own budget is a budget"
    );
    assert!(
        !take(Mode::Live, "2027-01-01", Some(1)).await,
        "live keeps the default"
    );
    // An own budget of zero sends nothing.
    assert!(
        store
            .set_email_daily_limit(a, Mode::Live, Some(0))
            .await
            .unwrap()
    );
    assert!(!take(Mode::Live, "2027-01-09", None).await);
    assert!(!take(Mode::Live, "2027-01-09", Some(100)).await);
    // Cleared: the default applies again.
    assert!(
        store
            .set_email_daily_limit(a, Mode::Live, None)
            .await
            .unwrap()
    );
    assert!(take(Mode::Live, "2027-01-09", Some(100)).await);
    let acct = store.get_account(a).await.unwrap().unwrap();
    assert_eq!(acct.live_email_daily_limit, None);
    assert!(
        !store
            .set_email_daily_limit(&AccountId::trusted("acct_missing"), Mode::Test, Some(1))
            .await
            .unwrap()
    );
    // The key's read of its account carries the budgets too.
    let key = api_key(a, Mode::Test);
    store.insert_api_key(&key).await.unwrap();
    let (_, with) = store
        .api_key_with_account(&key.hash)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(with.test_email_daily_limit, Some(6));
}

/// `take_email` raced: of many concurrent takes, exactly the budget's worth succeed.
pub async fn email_budget_raced(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 0).await;
    let tasks: Vec<_> = (0..RACERS * 3)
        .map(|_| {
            let (store, a) = (store.clone(), s.account.clone());
            tokio::spawn(async move {
                store
                    .take_email(&a, Mode::Test, "2027-02-01", Some(RACERS as u32))
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut taken = 0;
    for task in tasks {
        if task.await.expect("task") {
            taken += 1;
        }
    }
    assert_eq!(taken, RACERS, "exactly the budget, never more");
    assert!(
        !store
            .take_email(&s.account, Mode::Test, "2027-02-01", Some(RACERS as u32))
            .await
            .unwrap()
    );
}
