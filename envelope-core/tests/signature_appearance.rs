//! How signatures look in the signed copy and the audit trail, through the service and checked
//! with real tools: a typed signature in an embedded Kristi subset inside its "Signed by" frame
//! (pdffonts, pdftotext), a name Kristi cannot draw still drawn and extracted in the fallback
//! face, sound files (qpdf --check), and a drawn signature shown in the audit trail (pdfimages).
//!
//! The tools are required: a missing one fails the test (support::run_tool).

use envelope_testkit::pdf as support;

use envelope_core::field::FieldType;
use envelope_core::model::{Envelope, EnvelopeStatus, SignerValue};
use envelope_core::service::{
    AuthContext, ClientInfo, CreateEnvelope, FieldSpec, FileKind, SignInput, Upload,
};
use envelope_core::{SigningService, ids};

async fn service() -> (SigningService, AuthContext) {
    let svc = SigningService::builder().build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
    (svc, ctx)
}

/// One page without tags; each role gets a signature box of 200 x 50 pt (room for the frame)
/// and initials of 60 x 20 pt, one role under the other.
fn envelope(signers: &[(&str, &str)]) -> CreateEnvelope {
    let pdf = support::simple_pdf(&["Contract between the parties below."]);
    let mut create = CreateEnvelope::from_pdf(Upload::new("contract.pdf", pdf)).signing_order(true);
    for (i, (role, name)) in signers.iter().enumerate() {
        let y = 150.0 + 120.0 * i as f64;
        create = create
            .signer(*role, *name, format!("signer{i}@example.com"))
            .field(
                FieldSpec::for_role(*role, FieldType::Signature)
                    .key(format!("{role}_signature"))
                    .at(1, 72.0, y)
                    .size(200.0, 50.0),
            )
            .field(
                FieldSpec::for_role(*role, FieldType::Initials)
                    .key(format!("{role}_initials"))
                    .at(1, 320.0, y + 15.0)
                    .size(60.0, 20.0),
            );
    }
    create
}

/// Signs for each signer in turn with `values(role)` for its signature and initials.
async fn sign_all(
    svc: &SigningService,
    ctx: &AuthContext,
    env: Envelope,
    values: impl Fn(&str) -> (SignerValue, SignerValue),
) -> Envelope {
    let mut current = env;
    for _ in 0..current.signers.len() {
        let link = svc.signing_link(ctx, &current.id, None).await.unwrap();
        let (signature, initials) = values(&link.role);
        let input = SignInput::new()
            .value(format!("{}_signature", link.role), signature)
            .value(format!("{}_initials", link.role), initials)
            .consent();
        current = svc
            .sign(&link.token, None, input, &ClientInfo::default())
            .await
            .unwrap();
    }
    assert_eq!(current.status, EnvelopeStatus::Completed);
    current
}

async fn file(
    svc: &SigningService,
    ctx: &AuthContext,
    id: &envelope_core::ids::EnvelopeId,
    kind: FileKind,
) -> Vec<u8> {
    let (_, bytes) = svc
        .envelope_file(ctx, id, kind, None)
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    bytes.to_vec()
}

fn qpdf_check(pdf: &[u8]) {
    let (out, ok) = support::run_tool("qpdf", &["--check"], pdf, None);
    assert!(ok, "qpdf --check: {out}");
}

/// `pdffonts` rows: (name, type, embedded, subset).
fn fonts(pdf: &[u8]) -> Vec<(String, String, bool, bool)> {
    let (out, ok) = support::run_tool("pdffonts", &[], pdf, None);
    assert!(ok, "pdffonts: {out}");
    out.lines()
        .skip(2)
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            // name type [type...] encoding emb sub uni object ID
            let n = w.len();
            (
                w[0].to_string(),
                w[1].to_string(),
                w[n - 5] == "yes",
                w[n - 4] == "yes",
            )
        })
        .collect()
}

/// The same as `s` with whitespace runs made single spaces.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[tokio::test]
async fn a_typed_signature_is_an_embedded_kristi_subset_in_its_frame_and_extracts() {
    let (svc, ctx) = service().await;
    let env = svc
        .create_envelope(
            &ctx,
            envelope(&[("Client", "Zoë Ångström"), ("Witness", "Łukasz Żółć")]),
        )
        .await
        .unwrap();
    let short: Vec<String> = env
        .signers
        .iter()
        .map(|s| ids::short(&s.id).to_string())
        .collect();
    let done = sign_all(&svc, &ctx, env, |role| match role {
        "Client" => (SignerValue::typed("Zoë Ångström"), SignerValue::typed("ZÅ")),
        _ => (SignerValue::typed("Łukasz Żółć"), SignerValue::typed("ŁŻ")),
    })
    .await;
    let signed = file(&svc, &ctx, &done.id, FileKind::Signed).await;
    qpdf_check(&signed);

    // Kristi draws the first signer's name and initials; Łukasz's name falls back whole to
    // DejaVu Sans (Kristi has no Ł). Both are embedded subsets.
    let fonts = fonts(&signed);
    let kristi: Vec<_> = fonts.iter().filter(|f| f.0.ends_with("+Kristi")).collect();
    assert_eq!(kristi.len(), 1, "{fonts:?}");
    assert!(
        kristi[0].1.starts_with("CID") && kristi[0].2 && kristi[0].3,
        "{fonts:?}"
    );
    assert!(
        fonts
            .iter()
            .any(|f| f.0.ends_with("+DejaVuSans") && f.2 && f.3),
        "{fonts:?}"
    );

    // Every value extracts as its characters (ToUnicode), and each signature box has its frame
    // with the signer's name and the start of their ID; initials have none.
    let text = squash(&support::pdftotext(&signed));
    for want in ["Zoë Ångström", "ZÅ", "Łukasz Żółć", "ŁŻ"] {
        assert!(text.contains(want), "{want} not in {text}");
    }
    for (name, short) in [("Zoë Ångström", &short[0]), ("Łukasz Żółć", &short[1])] {
        assert!(text.contains(&format!("Signed by: {name}")), "{text}");
        assert!(text.contains(short.as_str()), "{short} not in {text}");
        assert_eq!(short.len(), 8);
    }
    assert_eq!(text.matches("Signed by:").count(), 2, "{text}");

    // The audit trail shows the typed signatures too, in Kristi where it can.
    let audit = file(&svc, &ctx, &done.id, FileKind::AuditTrail).await;
    qpdf_check(&audit);
    let audit_fonts = self::fonts(&audit);
    assert!(
        audit_fonts
            .iter()
            .any(|f| f.0.ends_with("+Kristi") && f.2 && f.3),
        "{audit_fonts:?}"
    );
    let audit_text = squash(&support::pdftotext(&audit));
    assert_eq!(audit_text.matches("Signature ").count(), 2, "{audit_text}");
}

/// A 300 x 100 RGBA drawing: a zigzag stroke on transparency.
fn drawing() -> Vec<u8> {
    let (w, h) = (300u32, 100u32);
    let mut data = vec![0u8; (w * h * 4) as usize];
    for x in 10..290 {
        let y = 20 + (x % 60).min(60 - x % 60);
        for dy in 0..3 {
            let p = (((y + dy) * w + x) * 4) as usize;
            data[p..p + 4].copy_from_slice(&[12, 30, 115, 255]);
        }
    }
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().unwrap();
    writer.write_image_data(&data).unwrap();
    writer.finish().unwrap();
    out
}

#[tokio::test]
async fn a_drawn_signature_is_framed_and_shows_in_the_audit_trail() {
    let (svc, ctx) = service().await;
    let env = svc
        .create_envelope(&ctx, envelope(&[("Client", "Ada Lovelace")]))
        .await
        .unwrap();
    let png = drawing();
    let done = sign_all(&svc, &ctx, env, |_| {
        (SignerValue::drawn_png(&png), SignerValue::typed("AL"))
    })
    .await;

    let signed = file(&svc, &ctx, &done.id, FileKind::Signed).await;
    qpdf_check(&signed);
    let (list, ok) = support::run_tool("pdfimages", &["-list"], &signed, None);
    assert!(ok, "pdfimages: {list}");
    assert!(
        list.lines().skip(2).any(|l| l.contains(" image ")),
        "{list}"
    );
    let text = squash(&support::pdftotext(&signed));
    assert!(text.contains("Signed by: Ada Lovelace"), "{text}");

    // The audit trail lists the drawing as an image of its size, with its alpha as a mask.
    let audit = file(&svc, &ctx, &done.id, FileKind::AuditTrail).await;
    qpdf_check(&audit);
    let (list, ok) = support::run_tool("pdfimages", &["-list"], &audit, None);
    assert!(ok, "pdfimages: {list}");
    let rows: Vec<Vec<&str>> = list
        .lines()
        .skip(2)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert!(
        rows.iter()
            .any(|r| r[2] == "image" && r[3] == "300" && r[4] == "100"),
        "{list}"
    );
    assert!(rows.iter().any(|r| r[2] == "smask"), "{list}");
    // No typed signature in this trail: no Kristi embedded.
    assert!(
        !self::fonts(&audit).iter().any(|f| f.0.contains("Kristi")),
        "{:?}",
        self::fonts(&audit)
    );
}
