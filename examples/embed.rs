//! Runs a whole envelope in process with envelope-core: no server, in-memory seams, typed calls
//! only.
//!
//! ```text
//! cargo run -p envelope-core --example embed [IN.pdf] [OUT_DIR]
//! ```
//!
//! It creates an account, an envelope from `examples/contract.pdf` (or IN.pdf, tagged like it:
//! two signer roles and a `start_date` data field) for two signers, then signs as each signer
//! would through the service (open the link, fill the fields, consent, sign), and writes the
//! signed PDF and the audit trail into OUT_DIR (default: the current directory), both sealed
//! (PAdES) by the identity the service was given: `pdfsig signed.pdf` says "Signature is
//! Valid." (and that it does not know the issuer: the example's certificate is self-signed).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use envelope_core::field::FieldType;
use envelope_core::i18n::Locale;
use envelope_core::model::SignerValue;
use envelope_core::seal::{LocalSealer, SigningIdentity};
use envelope_core::service::{
    AttachmentUpload, ClientInfo, CreateEnvelope, FileKind, SignInput, Signer, Upload,
};
use envelope_core::{MemoryMailer, SigningService};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let input = args
        .next()
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/contract.pdf").into());
    let out_dir = PathBuf::from(args.next().unwrap_or_else(|| ".".into()));
    run(Path::new(&input), &out_dir).await?;
    Ok(())
}

/// The files [`run`] wrote.
#[derive(Debug)]
pub struct Written {
    /// The signed copy of the contract.
    pub signed: PathBuf,
    /// The audit trail.
    pub audit_trail: PathBuf,
    /// The subject of the certificate that sealed both.
    pub sealed_by: String,
}

/// The whole example: one envelope from `input`, signed by both signers, its signed copy and
/// audit trail written into `out_dir`.
pub async fn run(input: &Path, out_dir: &Path) -> Result<Written, Box<dyn std::error::Error>> {
    // Sealing is the embedder's choice. Here: an identity made for the example. In production,
    // your key and certificate chain: `SigningIdentity::from_pem(&key, &chain, password)` or
    // `SigningIdentity::from_pkcs12(&bytes, password)`. A builder told nothing seals with an
    // ephemeral development identity and warns; `.unsealed()` seals nothing.
    let seal = SigningIdentity::generate_development("Embedded example seal")?.identity;
    let sealed_by = seal.info().subject.clone();
    let mailer = Arc::new(MemoryMailer::new());
    let svc = SigningService::builder()
        .mailer(mailer.clone())
        .sealer(Arc::new(LocalSealer::new(seal)))
        .build();
    let account = svc.admin().create_account("Embedded example").await?;
    // The live key: a test key's documents say "TEST MODE" on every page and are sealed by a
    // test-mode identity of their own, never by the identity given above.
    let ctx = svc.authenticate(&account.live_key.secret).await?;

    let pdf = std::fs::read(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    let upload = Upload::new("contract.pdf", pdf.clone());

    // contract.pdf's tags define two signer roles (Client, Provider) and one sender data field,
    // `start_date`; signers given without a role take the document's roles in order.
    let create = CreateEnvelope::from_pdf(upload)
        .name("Services agreement with Acme")
        .add_signer(Signer::new("Zoë Client", "zoe@example.com"))
        .add_signer(Signer::new("Pat Provider", "pat@example.com").locale(Locale::parse("fr")?))
        .data("start_date", "2027-01-01")
        .cc("Legal", "legal@example.com")
        .signing_order(true);
    let envelope = svc.create_envelope(&ctx, create).await?;
    // Emails go out in the background, right after the write; an app that wants to see them
    // sent (or a short-lived process about to exit) waits for them. A long-running app also runs
    // `svc.maintenance()` once, which retries failed emails, delivers webhooks, voids expired
    // envelopes and applies retention.
    svc.settle_emails().await;
    println!(
        "envelope {} is {}; {} signing request(s) emailed",
        envelope.id,
        envelope.status.as_str(),
        mailer.sent().len()
    );

    // Each signer in turn, as a signing page would do it.
    let mut current = envelope;
    for signer in current.signers.clone() {
        let link = svc
            .signing_link(&ctx, &current.id, Some(&signer.id))
            .await?;
        let client = ClientInfo {
            ip_address: Some("192.0.2.10".into()),
            user_agent: Some("embed example".into()),
        };
        let session = svc.open_signing_link(&link.token, None, &client).await?;
        let mut input = SignInput::new().consent();
        for field in &session.fields {
            input = match field.kind {
                FieldType::Signature => input.value(&field.key, SignerValue::typed(&signer.name)),
                FieldType::Initials => input.value(&field.key, SignerValue::typed("SN")),
                FieldType::Text => input.value(&field.key, "Acme Ltd"),
                FieldType::Checkbox => input.value(&field.key, true),
                FieldType::Number => input.value(&field.key, "42"),
                // A choice is one of the field's options.
                FieldType::Radio | FieldType::Select => match field.options.as_deref() {
                    Some([first, ..]) => input.value(&field.key, first.as_str()),
                    _ => input,
                },
                // The service fills date fields with the signing date.
                FieldType::Date => input,
                // A file (extensions E14): here the contract itself, as a PDF.
                FieldType::Attachment => {
                    input.attachment(&field.key, AttachmentUpload::new("copy.pdf", pdf.clone()))
                }
            };
        }
        if session.signature_page {
            input = input.signature(SignerValue::typed(&signer.name));
        }
        current = svc.sign(&link.token, None, input, &client).await?;
        println!(
            "{} ({}) signed; the envelope is {}",
            signer.name,
            signer.role,
            current.status.as_str()
        );
    }

    let mut paths = Vec::new();
    for (kind, name) in [
        (FileKind::Signed, "signed.pdf"),
        (FileKind::AuditTrail, "audit-trail.pdf"),
    ] {
        let (_, bytes) = svc
            .envelope_file(&ctx, &current.id, kind, None)
            .await?
            .collect()
            .await?;
        let path = out_dir.join(name);
        std::fs::write(&path, &bytes)?;
        println!("wrote {} ({} bytes)", path.display(), bytes.len());
        paths.push(path);
    }
    println!("both sealed by {sealed_by}");
    let audit_trail = paths.pop().unwrap_or_default();
    let signed = paths.pop().unwrap_or_default();
    Ok(Written {
        signed,
        audit_trail,
        sealed_by,
    })
}
