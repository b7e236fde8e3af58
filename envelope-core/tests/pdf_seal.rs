//! The PAdES seal end to end: every shape of input the engine stamps, sealed and then checked by
//! two independent validators, poppler's `pdfsig` and pyHanko. Both must be installed
//! (scripts/install-test-deps.sh); a missing tool fails the test.

use envelope_testkit::pdf as support;

use std::path::Path;
use std::sync::OnceLock;

use envelope_core::field::FieldType;
use envelope_core::pdf::{
    self, AuditEvent, AuditSigner, AuditTrail, EmbeddedFile, FieldStamp, PdfInfo, PdfLimits,
    PreparedSeal, SealSpec, SignatureBlock, StampRequest, StampValue, inspect,
};
use envelope_core::seal::{
    DevelopmentIdentity, LocalSealer, LocalTimestampAuthority, SealError, Sealer, SigningIdentity,
    TimestampAuthority,
};
use envelope_core::{Clock, SystemClock, Timestamp};
use sha2::{Digest, Sha256};
use support::*;

fn dev() -> &'static DevelopmentIdentity {
    static DEV: OnceLock<DevelopmentIdentity> = OnceLock::new();
    DEV.get_or_init(|| SigningIdentity::generate_development("Envelope test seal").unwrap())
}

fn sealer() -> LocalSealer {
    let d = dev();
    LocalSealer::new(SigningIdentity::from_pem(&d.key_pem, &d.cert_pem, None).unwrap())
}

fn spec(sealer: &dyn Sealer) -> SealSpec {
    SealSpec {
        name: "Envelope".into(),
        reason: "Signed by all parties via Envelope".into(),
        signing_time: chrono::Utc::now(),
        capacity: sealer.capacity(),
    }
}

/// Signs and fills the seal prepared on `original`; the signed file, `original ++ update`, whose
/// SHA-256 must be the one the seal computed without joining them.
fn finish(original: &[u8], prepared: PreparedSeal, sealer: &dyn Sealer) -> Vec<u8> {
    let digest = prepared.digest();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let cms = rt.block_on(sealer.sign(digest)).expect("sign");
    let sealed = prepared.fill(&cms).expect("fill");
    let sha256 = sealed.sha256;
    let whole = sealed.into_whole(original).expect("whole");
    assert_eq!(<[u8; 32]>::from(Sha256::digest(&whole)), sha256);
    whole
}

/// Stamps every field of `pdf` and seals the result in the same update.
fn stamp_and_seal(pdf: &[u8], sealer: &dyn Sealer) -> Vec<u8> {
    let info = inspect(pdf, &PdfLimits::default()).expect("inspect");
    let prepared = pdf::stamp_for_seal(pdf, &fill(&info), &spec(sealer)).expect("stamp");
    assert_eq!(
        prepared.byte_range()[2] + prepared.byte_range()[3],
        pdf.len() + prepared.update().len(),
        "the ranges end where the update ends"
    );
    finish(pdf, prepared, sealer)
}

fn fill(info: &PdfInfo) -> StampRequest {
    let fields = info
        .fields
        .iter()
        .map(|f| FieldStamp {
            field: f.clone(),
            signed_by: None,
            value: Some(match f.field.kind {
                FieldType::Signature | FieldType::Initials => StampValue::Typed("Ada L".into()),
                FieldType::Date => StampValue::Text("2024-05-01".into()),
                FieldType::Text => StampValue::Text("Ada text".into()),
                FieldType::Checkbox => StampValue::Checkbox(true),
                FieldType::Radio | FieldType::Select => StampValue::Text(
                    f.field
                        .options
                        .as_ref()
                        .and_then(|o| o.first().cloned())
                        .unwrap_or_default(),
                ),
                FieldType::Number => StampValue::Text("42".into()),
                // A signer's file (extensions E14): embedded, its name drawn in the box.
                FieldType::Attachment => StampValue::Attachment(EmbeddedFile {
                    key: format!("{} - id.pdf", f.field.key),
                    file_name: "id.pdf".into(),
                    mime: "application/pdf".into(),
                    description: "Attachment".into(),
                    bytes: bytes::Bytes::from_static(b"%PDF-1.7 id"),
                }),
            }),
        })
        .collect();
    StampRequest {
        page_mark: None,
        fields,
        signature_page: Some(vec![SignatureBlock {
            role: "Client".into(),
            name: "Ada Lovelace".into(),
            email: "ada@example.com".into(),
            signature: StampValue::Typed("Ada Lovelace".into()),
            signed_at: "2024-05-01 12:00:00 UTC".into(),
        }]),
    }
}

/// `pdfsig`'s report on the seal (the block of the signature field `Seal`).
fn pdfsig(bytes: &[u8]) -> String {
    let (out, _) = run_checked("pdfsig", &[], bytes);
    let block = out
        .split("Signature #")
        .find(|b| b.contains("Signature Field Name: Seal\n"))
        .unwrap_or_else(|| panic!("pdfsig lists no field Seal:\n{out}"));
    block.to_string()
}

fn assert_pdfsig_valid(name: &str, bytes: &[u8]) {
    let block = pdfsig(bytes);
    for needle in [
        "Signature Validation: Signature is Valid.",
        "Total document signed",
        "Signature Type: ETSI.CAdES.detached",
    ] {
        assert!(block.contains(needle), "{name}: no {needle:?} in\n{block}");
    }
}

/// pyHanko's one-line verdict per signature (`Field:fingerprint:INTACT:TRUSTED,UNTOUCHED`),
/// with the development certificate (and `extra_trust`) as the only trust roots.
fn pyhanko(bytes: &[u8], extra_trust: &[&str], pretty: bool) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = [
        "sign",
        "validate",
        "--no-revocation-check",
        "--trust-replace",
    ]
    .map(String::from)
    .to_vec();
    for (i, pem) in std::iter::once(dev().cert_pem.as_str())
        .chain(extra_trust.iter().copied())
        .enumerate()
    {
        let cert = dir.path().join(format!("trust{i}.pem"));
        std::fs::write(&cert, pem).unwrap();
        args.push("--trust".into());
        args.push(cert.to_str().unwrap().into());
    }
    if pretty {
        args.push("--pretty-print".into());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_checked_in(dir.path(), "pyhanko", &args, bytes).0
}

/// INTACT and TRUSTED, and UNTOUCHED (last): the signature covers the whole file, nothing was
/// modified after it.
fn assert_pyhanko_valid(name: &str, bytes: &[u8], extra_trust: &[&str]) -> String {
    let out = pyhanko(bytes, extra_trust, false);
    let expected = format!(
        "Seal:{}:INTACT:TRUSTED,",
        dev().identity.info().sha256_fingerprint
    );
    if !out
        .lines()
        .any(|l| l.starts_with(&expected) && l.ends_with(",UNTOUCHED"))
    {
        panic!(
            "{name}: pyHanko did not report {expected}:\n{out}\n{}",
            pyhanko(bytes, extra_trust, true)
        );
    }
    out
}

/// Runs `tool args FILE` on a copy of `bytes`; a missing tool fails with what to install.
fn run_checked(tool: &str, args: &[&str], bytes: &[u8]) -> (String, bool) {
    let dir = tempfile::tempdir().unwrap();
    run_checked_in(dir.path(), tool, args, bytes)
}

fn run_checked_in(dir: &Path, tool: &str, args: &[&str], bytes: &[u8]) -> (String, bool) {
    let path = dir.join("sealed.pdf");
    std::fs::write(&path, bytes).unwrap();
    let out = std::process::Command::new(tool)
        .args(args)
        .arg(&path)
        .output()
        .unwrap_or_else(|e| {
            panic!("could not run `{tool}` ({e}): run scripts/install-test-deps.sh (poppler-utils, pyhanko, pyhanko-cli)")
        });
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if std::env::var_os("ENVELOPE_KEEP_SEALED").is_some() {
        let keep = std::env::temp_dir().join(format!("sealed-{tool}-{}.pdf", bytes.len()));
        std::fs::write(&keep, bytes).unwrap();
        eprintln!("kept {}", keep.display());
    }
    (text, out.status.success())
}

/// Both validators accept the seal.
fn assert_valid(name: &str, bytes: &[u8]) {
    assert_pdfsig_valid(name, bytes);
    assert_pyhanko_valid(name, bytes, &[]);
}

fn root_of(pdf: &[u8]) -> u32 {
    let at = pdf.windows(5).rposition(|w| w == b"/Root").unwrap();
    let s = std::str::from_utf8(&pdf[at + 5..at + 20]).unwrap();
    s.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn every_input_shape_is_sealed_in_the_stamping_revision() {
    let sealer = sealer();
    let base = libreoffice_contract(Layout::Classic);
    let inputs = vec![
        ("classic xref", base.clone()),
        (
            "xref stream",
            libreoffice_contract(Layout::XrefStream { objstm: false }),
        ),
        (
            "object streams",
            libreoffice_contract(Layout::XrefStream { objstm: true }),
        ),
        (
            "prior incremental update",
            append_update(
                &base,
                &[(1, b"<</Producer (an earlier update)>>".to_vec())],
                root_of(&base),
            ),
        ),
        ("AcroForm with a /Sig field", form_pdf(0)),
        ("AcroForm, rotated page", form_pdf(90)),
    ];
    for (name, pdf) in inputs {
        let sealed = stamp_and_seal(&pdf, &sealer);
        let revisions = |b: &[u8]| b.windows(5).filter(|w| w == b"%%EOF").count();
        assert_eq!(
            revisions(&sealed),
            revisions(&pdf) + 1,
            "{name}: one update"
        );
        qpdf_check(&sealed);
        assert_valid(name, &sealed);
    }
}

#[test]
fn existing_form_fields_are_kept() {
    let pdf = form_pdf(0);
    let sealed = stamp_and_seal(&pdf, &sealer());
    let info = inspect(&sealed, &PdfLimits::default()).expect("inspect");
    let names: Vec<String> = info
        .fields
        .iter()
        .filter_map(|f| match &f.source {
            envelope_core::field::FieldSource::Form { name } => Some(name.clone()),
            _ => None,
        })
        .collect();
    for expected in [
        "Client.name",
        "Client.agree",
        "Client",
        "company",
        "Provider.title",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} lost: {names:?}"
        );
    }
    // The seal is the only filled signature: the form's own /Sig field got an appearance only.
    let block = pdfsig(&sealed);
    assert!(block.contains("Signature is Valid."), "{block}");
}

#[test]
fn any_changed_byte_in_the_signed_ranges_is_a_digest_mismatch() {
    let sealed = stamp_and_seal(&libreoffice_contract(Layout::Classic), &sealer());
    let last = |needle: &[u8]| {
        sealed
            .windows(needle.len())
            .rposition(|w| w == needle)
            .unwrap()
    };
    let contents = last(b"/Contents <");
    let reason = last(b"via Envelope)");
    let [_, a, b, _] = byte_range(&sealed[last(b"/ByteRange [")..]);
    // Changes that keep the file readable, so that pdfsig gets as far as the digest.
    let edits: Vec<(&str, usize, u8)> = vec![
        ("binary comment after the header", 10, b'A'),
        ("the header's version", 7, b'6'),
        ("middle of the original", contents / 2, b' '),
        ("the /Reason text", reason + 4, b'X'),
        ("the space before /Contents", contents - 1, b'\n'),
        ("the xref table's trailing newline", sealed.len() - 1, b' '),
    ];
    for (name, at, new) in edits {
        assert_ne!(sealed[at], new, "{name}: not a change");
        assert!(at < a || at >= b, "{name}: inside /Contents");
        let mut tampered = sealed.clone();
        tampered[at] = new;
        let block = pdfsig(&tampered);
        assert!(
            block.contains("Digest Mismatch"),
            "{name} (offset {at}): pdfsig says\n{block}"
        );
    }
}

/// The numbers of `/ByteRange [...]` at the start of `from`.
fn byte_range(from: &[u8]) -> [usize; 4] {
    let end = from.iter().position(|&b| b == b']').unwrap();
    let v: Vec<usize> = std::str::from_utf8(&from[12..end])
        .unwrap()
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    [v[0], v[1], v[2], v[3]]
}

#[test]
fn the_audit_trail_is_sealed_the_same_way() {
    let sealer = sealer();
    let trail = sample_trail(&sealer);
    let rendered = pdf::audit_trail(&trail).expect("render");
    let prepared = pdf::prepare_seal(&rendered, &spec(&sealer)).expect("prepare");
    let sealed = finish(&rendered, prepared, &sealer);
    assert!(sealed.starts_with(&rendered));
    qpdf_check(&sealed);
    assert_valid("audit trail", &sealed);
    let text = pdftotext(&sealed);
    assert!(
        text.contains(&sealer.certificate().sha256_fingerprint),
        "the audit trail shows the certificate's fingerprint"
    );
}

#[test]
fn a_timestamp_token_makes_it_pades_b_t() {
    let tsa = SigningIdentity::generate_timestamp_authority("Envelope test TSA").unwrap();
    let tsa_cert = tsa.cert_pem.clone();
    let sealer = sealer().with_timestamps(std::sync::Arc::new(LocalTimestampAuthority::new(
        tsa.identity,
    )));
    let sealed = stamp_and_seal(&libreoffice_contract(Layout::Classic), &sealer);
    assert_pdfsig_valid("timestamped", &sealed);
    let out = assert_pyhanko_valid("timestamped", &sealed, &[&tsa_cert]);
    assert!(
        out.contains("TIMESTAMP_TOKEN<INTACT:TRUSTED>"),
        "pyHanko found no valid timestamp:\n{out}\n{}",
        pyhanko(&sealed, &[&tsa_cert], true)
    );
}

/// The wall clock at half past its second: a `genTime` with a fraction whatever the wall
/// clock's milliseconds.
struct HalfPast;

impl Clock for HalfPast {
    fn now(&self) -> Timestamp {
        Timestamp::from_millis(SystemClock.now().unix_seconds() * 1000 + 500).unwrap()
    }
}

#[test]
fn a_timestamp_with_fractional_seconds_makes_it_pades_b_t() {
    let tsa = SigningIdentity::generate_timestamp_authority("Envelope test TSA").unwrap();
    let tsa_cert = tsa.cert_pem.clone();
    let authority = LocalTimestampAuthority::new(tsa.identity)
        .with_clock(std::sync::Arc::new(HalfPast))
        .with_fractional_seconds();
    let sealer = sealer().with_timestamps(std::sync::Arc::new(authority));
    let sealed = stamp_and_seal(&libreoffice_contract(Layout::Classic), &sealer);
    assert_pdfsig_valid("fractional genTime", &sealed);
    let out = assert_pyhanko_valid("fractional genTime", &sealed, &[&tsa_cert]);
    assert!(
        out.contains("TIMESTAMP_TOKEN<INTACT:TRUSTED>"),
        "pyHanko found no valid timestamp:\n{out}\n{}",
        pyhanko(&sealed, &[&tsa_cert], true)
    );
}

/// A timestamp authority that cannot be reached.
#[derive(Debug)]
struct Unreachable;

#[async_trait::async_trait]
impl TimestampAuthority for Unreachable {
    async fn exchange(&self, _: Vec<u8>) -> Result<Vec<u8>, envelope_core::error::BoxError> {
        Err("connection refused".into())
    }
}

#[test]
fn without_its_timestamp_authority_a_sealer_still_seals_pades_b_b() {
    let sealer = sealer().with_timestamps(std::sync::Arc::new(Unreachable));
    assert!(sealer.timestamps());
    let pdf = libreoffice_contract(Layout::Classic);
    let info = inspect(&pdf, &PdfLimits::default()).expect("inspect");
    let prepared = pdf::stamp_for_seal(&pdf, &fill(&info), &spec(&sealer)).expect("stamp");
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    // `sign` keeps its level or fails; the fallback is the caller's.
    match rt.block_on(sealer.sign(prepared.digest())) {
        Err(SealError::Unavailable { .. }) => {}
        other => panic!("sign without its TSA: {other:?}"),
    }
    let cms = rt
        .block_on(sealer.sign_without_timestamp(prepared.digest()))
        .expect("sign without a timestamp");
    let sealed = prepared
        .fill(&cms)
        .expect("fill")
        .into_whole(&pdf)
        .expect("whole");
    assert_pdfsig_valid("without a timestamp", &sealed);
    let out = assert_pyhanko_valid("without a timestamp", &sealed, &[]);
    assert!(!out.contains("TIMESTAMP_TOKEN"), "{out}");
}

fn sample_trail(sealer: &dyn Sealer) -> AuditTrail {
    AuditTrail {
        service_name: "Envelope".into(),
        envelope_id: "env_seal".into(),
        envelope_name: "Sealed audit trail".into(),
        livemode: false,
        status: "completed".into(),
        created_at: "2024-05-01 10:00:00 UTC".into(),
        sent_at: Some("2024-05-01 10:01:00 UTC".into()),
        completed_at: Some("2024-05-01 12:00:00 UTC".into()),
        cc: vec![],
        signers: vec![AuditSigner {
            id: "sgn_1".into(),
            role: "Client".into(),
            name: "Ada Lovelace".into(),
            email: "ada@example.com".into(),
            locale: None,
            ip_address: Some("127.0.0.1".into()),
            user_agent: Some("test".into()),
            created_at: "2024-05-01 10:00:00 UTC".into(),
            sent_at: Some("2024-05-01 10:01:00 UTC".into()),
            viewed_at: Some("2024-05-01 11:00:00 UTC".into()),
            signed_at: Some("2024-05-01 12:00:00 UTC".into()),
            declined_at: None,
            completed_at: Some("2024-05-01 12:00:00 UTC".into()),
            signature: Some(StampValue::Typed("Ada Lovelace".into())),
            reach: Vec::new(),
            kind: None,
            hosted_by: None,
        }],
        events: vec![AuditEvent {
            at: "2024-05-01 10:00:00 UTC".into(),
            what: "Envelope created".into(),
            who: "Sender (API)".into(),
            detail: String::new(),
        }],
        original_sha256: "ab".repeat(32),
        signed_sha256: "cd".repeat(32),
        documents: vec![],
        signing_certificate_sha256: Some(sealer.certificate().sha256_fingerprint.clone()),
        seal_levels: None,
        generated_at: "2024-05-01T12:00:00Z".into(),
    }
}
