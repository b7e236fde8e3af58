//! The `.eml` files of the file mailer (the server's mailer without SMTP) fall under retention:
//! they carry signing links and signed PDFs, so the retention sweep deletes those of test mode
//! after the test retention and those of live mode after the live retention, with a manual
//! clock driving both the mailer's file names and the sweep.

use std::path::Path;
use std::sync::Arc;

use chrono::Duration;
use envelope_core::mail::FileMailer;
use envelope_core::service::{AuthContext, CreateEnvelopeParams, Params, Retention, Upload};
use envelope_core::{ManualClock, MemoryStore, Settings, SigningService, Timestamp};
use serde_json::json;

const CONTRACT: &[u8] = include_bytes!("../../examples/contract.pdf");

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

async fn create(svc: &SigningService, ctx: &AuthContext) {
    let body = json!({
        "signers": [
            {"name": "Zoë Client", "email": "client@example.com"},
            {"name": "Paul Provider", "email": "provider@example.com"}
        ],
        "data": {"start_date": "2027-04-01"}
    });
    let upload = Upload {
        file_name: "contract.pdf".into(),
        bytes: CONTRACT.to_vec().into(),
    };
    let limits = svc.settings().limits.clone();
    let p =
        CreateEnvelopeParams::parse(Params::json(body).unwrap(), Some(upload), &limits).unwrap();
    svc.create_envelope(ctx, p).await.unwrap();
    svc.settle_emails().await;
}

#[tokio::test]
async fn eml_files_go_with_the_retention_of_their_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mail");
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap(),
    ));
    let mailer = FileMailer::new(&dir).unwrap().with_clock(clock.clone());
    let svc = SigningService::builder()
        .store(Arc::new(MemoryStore::new()))
        .mailer(Arc::new(mailer))
        .clock(clock.clone())
        .settings(Settings {
            retention: Retention {
                test_days: Some(30),
                live_days: Some(365),
                ..Retention::default()
            },
            ..Settings::default()
        })
        .build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let test = svc.authenticate(&acct.test_key.secret).await.unwrap();
    let live = svc.authenticate(&acct.live_key.secret).await.unwrap();
    create(&svc, &test).await;
    create(&svc, &live).await;
    // A file of a version that did not name the mode, and one that is not mail at all.
    std::fs::write(
        dir.join("20270310T120000.000000Z-signing_request-a1b2c3d4.eml"),
        "older",
    )
    .unwrap();
    std::fs::write(dir.join("README.txt"), "not mail").unwrap();
    let written = names(&dir);
    assert_eq!(
        written.len(),
        6,
        "two per envelope, and the two others: {written:?}"
    );
    assert!(
        written.iter().any(|n| n.contains("-test-signing_request-")),
        "{written:?}"
    );
    assert!(
        written.iter().any(|n| n.contains("-live-signing_request-")),
        "{written:?}"
    );

    // Within both retentions: nothing goes.
    clock.advance(Duration::days(29));
    assert_eq!(svc.retention_sweep().await.unwrap().emails, 0);
    assert_eq!(names(&dir), written);

    // Past the test retention: the test-mode file goes, with the test envelope.
    clock.advance(Duration::days(2));
    let report = svc.retention_sweep().await.unwrap();
    assert_eq!((report.emails, report.test_envelopes), (2, 1));
    let left = names(&dir);
    assert_eq!(left.len(), 4, "{left:?}");
    assert!(!left.iter().any(|n| n.contains("-test-")), "{left:?}");

    // Past the live retention: the live file and the older one go; other files stay.
    clock.advance(Duration::days(340));
    let report = svc.retention_sweep().await.unwrap();
    assert_eq!(report.emails, 3);
    assert_eq!(names(&dir), ["README.txt"]);
}

/// Without live retention, live mail is kept, however old.
#[tokio::test]
async fn live_eml_files_stay_without_live_retention() {
    let tmp = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap(),
    ));
    let mailer = FileMailer::new(tmp.path())
        .unwrap()
        .with_clock(clock.clone());
    let svc = SigningService::builder()
        .store(Arc::new(MemoryStore::new()))
        .mailer(Arc::new(mailer))
        .clock(clock.clone())
        .build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let live = svc.authenticate(&acct.live_key.secret).await.unwrap();
    create(&svc, &live).await;
    clock.advance(Duration::days(3650));
    assert_eq!(svc.retention_sweep().await.unwrap().emails, 0);
    assert_eq!(names(tmp.path()).len(), 2);
}
