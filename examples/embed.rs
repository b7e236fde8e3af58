//! Runs a whole envelope in process with envelope-core: no server, in-memory seams.
//!
//! ```text
//! cargo run -p envelope-core --example embed [IN.pdf] [OUT_DIR]
//! ```
//!
//! It creates an account, a template from `examples/contract.pdf` (or IN.pdf), an envelope for
//! two signers, completes it with the test helper, and writes the signed PDF and the audit trail
//! into OUT_DIR (default: the current directory).

use std::sync::Arc;

use envelope_core::service::{
    CreateEnvelopeParams, CreateTemplateParams, FileKind, Params, Upload,
};
use envelope_core::{MemoryMailer, SigningService};
use serde_json::json;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let input = args
        .next()
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/contract.pdf").into());
    let out_dir = std::path::PathBuf::from(args.next().unwrap_or_else(|| ".".into()));

    let mailer = Arc::new(MemoryMailer::new());
    let svc = SigningService::builder().mailer(mailer.clone()).build();
    let account = svc.admin().create_account("Embedded example").await?;
    let ctx = svc.authenticate(&account.test_key.secret).await?;

    let pdf = std::fs::read(&input).map_err(|e| format!("cannot read {input}: {e}"))?;
    let limits = svc.settings().limits.clone();
    let upload = Upload {
        file_name: "contract.pdf".into(),
        bytes: pdf.into(),
    };
    let template = svc
        .create_template(
            &ctx,
            CreateTemplateParams::parse(
                Params::json(json!({"name": "Services agreement"}))?,
                Some(upload),
                &limits,
            )?,
        )
        .await?;
    println!(
        "template {} with roles {:?} and {} fields",
        template.id,
        template.roles,
        template.fields.len()
    );

    // Fill every sender data field the document has.
    let data: serde_json::Map<String, serde_json::Value> = template
        .fields
        .iter()
        .filter(|f| f.is_sender_field())
        .map(|f| (f.key.clone(), json!("2027-01-01")))
        .collect();
    let signers: serde_json::Map<String, serde_json::Value> = template
        .roles
        .iter()
        .enumerate()
        .map(|(i, r)| (r.clone(), json!({"name": format!("Signer Number{}", i + 1), "email": format!("signer{}@example.com", i + 1)})))
        .collect();
    let params = Params::json(
        json!({"template": template.id, "signers": signers, "data": data, "signing_order": true}),
    )?;
    let envelope = svc
        .create_envelope(&ctx, CreateEnvelopeParams::parse(params, None, &limits)?)
        .await?;
    // Emails go out in the background, right after the write; an app that wants to see them
    // sent (or a short-lived process about to exit) waits for them. A long-running app also runs
    // `svc.maintenance()` once, which retries failed emails, delivers webhooks, voids expired
    // envelopes and applies retention.
    svc.settle_emails().await;
    println!(
        "envelope {} is {:?}; {} signing request(s) emailed",
        envelope.id,
        envelope.status,
        mailer.sent().len()
    );

    let link = svc.signing_url(&ctx, &envelope.id, None).await?;
    println!("first signer ({}) signs at {}", link.role, link.url);

    let done = svc.test_complete(&ctx, &envelope.id).await?;
    println!(
        "envelope is {:?}, files ready: {:?}",
        done.status, done.files
    );

    for (kind, name) in [
        (FileKind::Signed, "signed.pdf"),
        (FileKind::AuditTrail, "audit-trail.pdf"),
    ] {
        let link = svc.envelope_file_link(&ctx, &envelope.id, kind).await?;
        let token = link.url.rsplit('/').next().unwrap_or_default();
        let (_, bytes) = svc.open_file_link(token).await?;
        let path = out_dir.join(name);
        std::fs::write(&path, &bytes)?;
        println!("wrote {} ({} bytes)", path.display(), bytes.len());
    }
    Ok(())
}
