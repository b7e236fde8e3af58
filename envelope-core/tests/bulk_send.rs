//! Bulk sends (extensions E12) through the service on the in-memory store: rows that pass the
//! create's checks but fail when their turn comes (here: the template archived in between) are
//! counted in `failed`, listed in `failures`, give their reserved allowance unit back, and the
//! bulk send still completes with its event; and one step makes every row's envelope once.
//! (A crash between an envelope's write and the cursor's: `envelope-server/tests/durability/
//! bulk.rs`.)
//!
//! The tests run on tokio's current-thread runtime: the task a create starts for its bulk send
//! runs only once the test awaits something that waits, and nothing of the in-memory store
//! does, so a test can act between the create and the first step.

use envelope_core::model::EventType;
use envelope_core::service::{
    CreateBulkSendParams, CreateTemplateParams, ListParams, Params, Upload,
};
use envelope_core::{AuthContext, SigningService};
use serde_json::{Value, json};

async fn world() -> (SigningService, AuthContext, AuthContext) {
    let svc = SigningService::builder().unsealed().build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let test = svc.authenticate(&acct.test_key.secret).await.unwrap();
    let live = svc.authenticate(&acct.live_key.secret).await.unwrap();
    (svc, test, live)
}

async fn template(svc: &SigningService, ctx: &AuthContext) -> String {
    let p = CreateTemplateParams::parse(
        Params::json(json!({"name": "Agreement"})).unwrap(),
        Some(Upload::new(
            "contract.pdf",
            envelope_testkit::textpdf::client_contract(),
        )),
        &Default::default(),
    )
    .unwrap();
    svc.create_template(ctx, p).await.unwrap().id.to_string()
}

fn bulk(template: &str, n: usize) -> CreateBulkSendParams {
    let rows: Vec<Value> = (0..n)
        .map(|i| {
            json!({"signers": {"Client": {"name": "Ada", "email": format!("ada{i}@example.com")}}})
        })
        .collect();
    CreateBulkSendParams::parse(
        Params::json(json!({"template": template, "rows": rows})).unwrap(),
        &Default::default(),
    )
    .unwrap()
}

#[tokio::test]
async fn rows_that_fail_later_are_counted_and_give_their_units_back() {
    let (svc, _, live) = world().await;
    let t = template(&svc, &live).await;
    let created = svc.create_bulk_send(&live, bulk(&t, 3)).await.unwrap();
    assert_eq!(
        svc.balance(&live).await.unwrap().used,
        3,
        "reserved up front"
    );
    // Before the bulk send's first step: the template goes.
    svc.archive_template(&live, &t.parse().unwrap())
        .await
        .unwrap();
    assert!(svc.bulk_send_step().await.unwrap(), "there was one to work");
    assert!(!svc.bulk_send_step().await.unwrap(), "and no other");

    let done = svc.get_bulk_send(&live, &created.id).await.unwrap();
    assert_eq!(
        (done.status.as_str(), done.created, done.failed),
        ("completed", 0, 3)
    );
    let rows: Vec<u32> = done.failures.iter().map(|f| f.row).collect();
    assert_eq!(rows, [0, 1, 2]);
    assert!(done.failures.iter().all(|f| f.code == "resource_missing"));
    assert_eq!(
        svc.balance(&live).await.unwrap().used,
        0,
        "every unit given back"
    );
    let events = svc
        .list_events(&live, &ListParams::default(), Some("bulk_send.completed"))
        .await
        .unwrap();
    assert_eq!(events.data.len(), 1);
    assert_eq!(events.data[0].kind, EventType::BulkSendCompleted);
    assert_eq!(events.data[0].data.object.bulk_send(), Some(&done));
    let made = svc
        .list_envelopes_filtered(&live, &ListParams::default(), None, Some(&created.id))
        .await
        .unwrap();
    assert!(made.data.is_empty());
}

#[tokio::test]
async fn a_step_counts_each_row_once_and_sends_each_envelope() {
    let (svc, test, _) = world().await;
    let t = template(&svc, &test).await;
    let created = svc.create_bulk_send(&test, bulk(&t, 120)).await.unwrap();
    assert_eq!(created.status.as_str(), "processing");
    // The step the create started and a step of the maintenance loop, side by side: one of
    // them holds the lease, the other finds nothing to claim.
    let (a, b) = tokio::join!(svc.bulk_send_step(), svc.bulk_send_step());
    assert!(a.unwrap() ^ b.unwrap(), "exactly one step worked it");
    let done = svc.get_bulk_send(&test, &created.id).await.unwrap();
    assert_eq!((done.created, done.failed), (120, 0), "{done:?}");
    let mut emails = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let page = svc
            .list_envelopes_filtered(
                &test,
                &ListParams {
                    limit: 100,
                    starting_after: after.clone(),
                },
                None,
                Some(&created.id),
            )
            .await
            .unwrap();
        for e in &page.data {
            assert_eq!(e.bulk_send.as_ref(), Some(&created.id));
            assert_eq!(e.status.as_str(), "sent");
            emails.push(e.signers[0].email.clone());
        }
        after = page.data.last().map(|e| e.id.to_string());
        if !page.has_more {
            break;
        }
    }
    emails.sort();
    emails.dedup();
    assert_eq!(emails.len(), 120, "one envelope per row");
}
