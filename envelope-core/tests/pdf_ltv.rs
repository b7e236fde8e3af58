//! PAdES B-LT and B-LTA in the file (extensions E10): a B-T seal, then a Document Security Store,
//! then a document timestamp, each an incremental update, checked by `qpdf --check`, poppler's
//! `pdfsig` and pyHanko (scripts/install-test-deps.sh; a missing tool fails the test). No OCSP or
//! CRL here: the DSS holds the certificates; revocation material comes from the fetcher.

use envelope_testkit::pdf as support;

use std::sync::{Arc, OnceLock};

use envelope_core::pdf::{self, DOC_TIMESTAMP_CAPACITY, PdfError, SealSpec, ValidationData};
use envelope_core::seal::{
    DevelopmentIdentity, LocalSealer, LocalTimestampAuthority, Sealer, SigningIdentity,
};
use serde_json::Value;
use sha2::{Digest, Sha256};
use support::*;

fn dev() -> &'static DevelopmentIdentity {
    static DEV: OnceLock<DevelopmentIdentity> = OnceLock::new();
    DEV.get_or_init(|| SigningIdentity::generate_development("Envelope LTV test seal").unwrap())
}

/// A timestamp authority of its own, and its certificate (PEM).
fn tsa() -> (Arc<LocalTimestampAuthority>, String) {
    let id = SigningIdentity::generate_timestamp_authority("Envelope LTV test TSA").unwrap();
    let pem = id.cert_pem.clone();
    (Arc::new(LocalTimestampAuthority::new(id.identity)), pem)
}

fn der_of(pem: &str) -> Vec<u8> {
    der::pem::decode_vec(pem.as_bytes()).expect("PEM").1
}

/// `pdf` sealed PAdES B-T: the development identity, a timestamp from `authority`.
fn seal_b_t(pdf: &[u8], authority: &Arc<LocalTimestampAuthority>) -> Vec<u8> {
    let d = dev();
    let sealer =
        LocalSealer::new(SigningIdentity::from_pem(&d.key_pem, &d.cert_pem, None).unwrap())
            .with_timestamps(authority.clone());
    let spec = SealSpec {
        name: "Envelope".into(),
        reason: "Signed by all parties via Envelope".into(),
        signing_time: chrono::Utc::now(),
        capacity: sealer.capacity(),
    };
    let prepared = pdf::prepare_seal(pdf, &spec).expect("prepare");
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let cms = rt.block_on(sealer.sign(prepared.digest())).expect("sign");
    prepared
        .fill(&cms)
        .expect("fill")
        .into_whole(pdf)
        .expect("whole")
}

/// A timestamp token from `authority` whose message imprint is `digest` (SHA-256), asked the way
/// the service asks (`seal::timestamp_digest`: nonce, status and imprint checked).
fn token_over(authority: &LocalTimestampAuthority, digest: [u8; 32]) -> Vec<u8> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(envelope_core::seal::timestamp_digest(authority, digest))
        .expect("a granted token over the digest")
}

/// `file` with a document timestamp from `authority` appended.
fn add_doc_timestamp(file: &[u8], authority: &LocalTimestampAuthority) -> Vec<u8> {
    let prepared = pdf::prepare_document_timestamp(file, DOC_TIMESTAMP_CAPACITY).expect("prepare");
    let [_, a, b, c] = prepared.byte_range();
    let digest = prepared.digest();
    let token = token_over(authority, digest);
    let whole = prepared
        .fill(&token)
        .expect("fill")
        .into_whole(file)
        .expect("whole");
    // The imprint is over the whole new file but `/Contents`.
    let ranges = Sha256::new_with_prefix(&whole[..a]).chain_update(&whole[b..b + c]);
    assert_eq!(<[u8; 32]>::from(ranges.finalize()), digest);
    assert_eq!(b + c, whole.len());
    whole
}

/// `file` with `data` in its DSS.
fn add_dss(file: &[u8], data: &ValidationData) -> Vec<u8> {
    [file, &pdf::dss_update(file, data).expect("dss")].concat()
}

/// pyHanko's view of `file`: each signature's validation (the seal against the development
/// certificate, document timestamps against the TSA's), the DSS as `read_dss` gives it.
const PYHANKO: &str = r#"
import hashlib, json, sys
from pyhanko.keys import load_cert_from_pemder
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature, validate_pdf_timestamp
from pyhanko.sign.validation.dss import DocumentSecurityStore
from pyhanko_certvalidator import ValidationContext

path, seal_root, tsa_root = sys.argv[1:4]
seal_cert, tsa_cert = load_cert_from_pemder(seal_root), load_cert_from_pemder(tsa_root)
with open(path, 'rb') as f:
    r = PdfFileReader(f)
    out = {'signatures': []}
    for s in r.embedded_signatures:
        tsa_vc = ValidationContext(trust_roots=[tsa_cert])
        if s.sig_object_type == '/DocTimeStamp':
            st = validate_pdf_timestamp(s, validation_context=tsa_vc)
            token = None
        else:
            st = validate_pdf_signature(
                s,
                signer_validation_context=ValidationContext(trust_roots=[seal_cert]),
                ts_validation_context=tsa_vc,
            )
            token = st.timestamp_validity is not None and st.timestamp_validity.trusted
        out['signatures'].append({
            'field': s.field_name,
            'type': str(s.sig_object_type),
            'intact': st.intact, 'valid': st.valid, 'trusted': st.trusted,
            'coverage': str(st.coverage), 'modification': str(st.modification_level),
            'timestamp_trusted': token,
            'vri': str(DocumentSecurityStore.sig_content_identifier(s.pkcs7_content))[1:],
        })
    dss = DocumentSecurityStore.read_dss(r)
    raw = r.root['/DSS']
    out['certs'] = sorted(hashlib.sha256(r_.get_object().data).hexdigest() for r_ in raw['/Certs'])
    out['vri'] = sorted(str(k)[1:] for k in (dss.vri_entries or {}))
    out['dss_certs'] = len(dss.certs)
print(json.dumps(out))
"#;

fn pyhanko(file: &[u8], tsa_pem: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("file.pdf");
    let seal = dir.path().join("seal.pem");
    let tsa = dir.path().join("tsa.pem");
    std::fs::write(&path, file).unwrap();
    std::fs::write(&seal, &dev().cert_pem).unwrap();
    std::fs::write(&tsa, tsa_pem).unwrap();
    let out = std::process::Command::new("python3")
        .args(["-c", PYHANKO])
        .args([&path, &seal, &tsa])
        .output()
        .unwrap_or_else(|e| panic!("could not run python3 ({e})"));
    assert!(
        out.status.success(),
        "pyHanko failed (scripts/install-test-deps.sh installs it):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("pyHanko's JSON")
}

/// `pdfsig`'s block for the field `name`.
fn pdfsig_block(file: &[u8], name: &str) -> String {
    let (out, _) = run_tool("pdfsig", &[], file, None);
    out.split("Signature #")
        .find(|b| b.contains(&format!("Signature Field Name: {name}\n")))
        .unwrap_or_else(|| panic!("pdfsig lists no field {name}:\n{out}"))
        .to_string()
}

/// `pdfsig` lists the document timestamp `name`: the TSA's certificate, the whole file signed.
/// Poppler (22.12) cannot validate `ETSI.RFC3161` ("Signature Type: unknown"); pyHanko does.
fn assert_pdfsig_lists_the_timestamp(file: &[u8], name: &str) {
    let block = pdfsig_block(file, name);
    for needle in [
        "Signer Certificate Common Name: Envelope LTV test TSA",
        "Total document signed",
    ] {
        assert!(block.contains(needle), "{name}: no {needle:?} in\n{block}");
    }
}

fn sha256_hex(b: &[u8]) -> String {
    Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

fn signature<'a>(report: &'a Value, field: &str) -> &'a Value {
    report["signatures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["field"] == field)
        .unwrap_or_else(|| panic!("pyHanko lists no {field}: {report}"))
}

#[test]
fn a_b_t_seal_grows_to_b_lta_one_update_at_a_time() {
    let (authority, tsa_pem) = tsa();
    let original = libreoffice_contract(Layout::Classic);
    let sealed = seal_b_t(&original, &authority);
    let certs = vec![der_of(&dev().cert_pem), der_of(&tsa_pem)];
    let lt = add_dss(
        &sealed,
        &ValidationData {
            certs: certs.clone(),
            ..ValidationData::default()
        },
    );
    let lta = add_doc_timestamp(&lt, &authority);
    for (earlier, later) in [(&original, &sealed), (&sealed, &lt), (&lt, &lta)] {
        assert!(later.len() > earlier.len() && later.starts_with(earlier));
    }
    for stage in [&sealed, &lt, &lta] {
        qpdf_check(stage);
    }

    let seal = pdfsig_block(&lta, "Seal");
    for needle in ["Signature is Valid.", "Not total document signed"] {
        assert!(seal.contains(needle), "no {needle:?} in\n{seal}");
    }
    assert_pdfsig_lists_the_timestamp(&lta, "DocTimeStamp1");

    let report = pyhanko(&lta, &tsa_pem);
    let s = signature(&report, "Seal");
    assert_eq!(
        (
            &s["intact"],
            &s["valid"],
            &s["trusted"],
            &s["timestamp_trusted"]
        ),
        (
            &Value::Bool(true),
            &Value::Bool(true),
            &Value::Bool(true),
            &Value::Bool(true)
        ),
        "{report}"
    );
    // pyHanko's difference analysis sees the DSS and the timestamp as LTA updates, nothing else.
    assert_eq!(
        s["modification"], "ModificationLevel.LTA_UPDATES",
        "{report}"
    );
    let t = signature(&report, "DocTimeStamp1");
    assert_eq!(t["type"], "/DocTimeStamp");
    assert_eq!(
        (&t["intact"], &t["valid"], &t["trusted"]),
        (&Value::Bool(true), &Value::Bool(true), &Value::Bool(true)),
        "{report}"
    );
    assert_eq!(t["coverage"], "SignatureCoverageLevel.ENTIRE_FILE");
    let mut want: Vec<String> = certs.iter().map(|c| sha256_hex(c)).collect();
    want.sort();
    assert_eq!(report["certs"], serde_json::json!(want));
    assert_eq!(report["dss_certs"], 2);
    // The DSS names the seal's VRI entry as pyHanko would; the timestamp came after it.
    assert_eq!(report["vri"], serde_json::json!([s["vri"]]));
    let sigs = pdf::signatures(&lta).expect("signatures");
    assert_eq!(pdf::vri_key(&sigs[0].contents), s["vri"]);
}

#[test]
fn a_second_dss_extends_the_first_and_renewals_number_their_fields() {
    let (authority, tsa_pem) = tsa();
    let (renewing, renewing_pem) = tsa();
    let sealed = seal_b_t(&libreoffice_contract(Layout::Classic), &authority);
    let seal_cert = der_of(&dev().cert_pem);
    let tsa_cert = der_of(&tsa_pem);
    let first = add_dss(
        &sealed,
        &ValidationData {
            certs: vec![seal_cert.clone(), tsa_cert.clone(), seal_cert.clone()],
            ..ValidationData::default()
        },
    );
    let stamped = add_doc_timestamp(&first, &authority);
    // The renewal: the DSS data for the first document timestamp, then a newer timestamp.
    let renewing_cert = der_of(&renewing_pem);
    let second = add_dss(
        &stamped,
        &ValidationData {
            certs: vec![tsa_cert.clone(), renewing_cert.clone()],
            ..ValidationData::default()
        },
    );
    let renewed = add_doc_timestamp(&second, &renewing);
    assert!(renewed.starts_with(&second) && second.starts_with(&stamped));
    qpdf_check(&second);
    qpdf_check(&renewed);

    let fields: Vec<(String, bool)> = pdf::signatures(&renewed)
        .expect("signatures")
        .into_iter()
        .map(|s| (s.field, s.doc_timestamp))
        .collect();
    assert_eq!(
        fields,
        [
            ("Seal".to_string(), false),
            ("DocTimeStamp1".to_string(), true),
            ("DocTimeStamp2".to_string(), true)
        ]
    );
    let report = pyhanko(&second, &tsa_pem);
    let mut want: Vec<String> = [&seal_cert, &tsa_cert, &renewing_cert]
        .iter()
        .map(|c| sha256_hex(c))
        .collect();
    want.sort();
    assert_eq!(
        report["certs"],
        serde_json::json!(want),
        "kept, added, once each"
    );
    let mut vri = vec![
        signature(&report, "Seal")["vri"].clone(),
        signature(&report, "DocTimeStamp1")["vri"].clone(),
    ];
    vri.sort_by_key(|v| v.to_string());
    assert_eq!(report["vri"], Value::Array(vri));

    // The newest timestamp validates against its own TSA; the older one is still intact.
    let report = pyhanko(&renewed, &renewing_pem);
    let t2 = signature(&report, "DocTimeStamp2");
    assert_eq!(
        (&t2["intact"], &t2["trusted"]),
        (&Value::Bool(true), &Value::Bool(true))
    );
    assert_eq!(signature(&report, "DocTimeStamp1")["intact"], true);
    assert_pdfsig_lists_the_timestamp(&renewed, "DocTimeStamp2");
    // Nothing new: no update at all.
    assert!(
        pdf::dss_update(
            &second,
            &ValidationData {
                certs: vec![renewing_cert],
                ..ValidationData::default()
            }
        )
        .expect("dss")
        .is_empty()
    );
}

#[test]
fn documents_without_a_form_or_with_their_catalog_in_an_object_stream() {
    let (authority, tsa_pem) = tsa();
    let data = ValidationData {
        certs: vec![der_of(&tsa_pem)],
        ..ValidationData::default()
    };
    for (name, pdf) in [
        ("no AcroForm", simple_pdf(&["A page without a form."])),
        (
            "catalog in an object stream",
            libreoffice_contract(Layout::XrefStream { objstm: true }),
        ),
    ] {
        assert!(!pdf.windows(9).any(|w| w == b"/AcroForm"), "{name}");
        // A DSS before any signature: no VRI entry yet.
        let lt = add_dss(&pdf, &data);
        let lta = add_doc_timestamp(&lt, &authority);
        assert!(lta.starts_with(&lt) && lt.starts_with(&pdf), "{name}");
        qpdf_check(&lt);
        qpdf_check(&lta);
        let report = pyhanko(&lta, &tsa_pem);
        let t = signature(&report, "DocTimeStamp1");
        assert_eq!(
            (&t["intact"], &t["valid"], &t["trusted"]),
            (&Value::Bool(true), &Value::Bool(true), &Value::Bool(true)),
            "{name}: {report}"
        );
        assert_eq!(report["vri"], serde_json::json!([]), "{name}");
        assert_pdfsig_lists_the_timestamp(&lta, "DocTimeStamp1");
    }
}

#[test]
fn hostile_files_are_refused_with_a_pdf_error() {
    let data = ValidationData {
        certs: vec![b"not even DER".to_vec()],
        ..ValidationData::default()
    };
    for (name, bytes) in support::hostile::corpus() {
        for r in [
            pdf::dss_update(&bytes, &data).map(|_| ()),
            pdf::prepare_document_timestamp(&bytes, 64).map(|_| ()),
            pdf::signatures(&bytes).map(|_| ()),
        ] {
            // Either works or says why; the point is that nothing panics or hangs.
            if let Err(e) = r {
                assert!(
                    matches!(
                        e,
                        PdfError::Invalid(_)
                            | PdfError::TooComplex(_)
                            | PdfError::TooManyPages { .. }
                    ),
                    "{name}: {e:?}"
                );
            }
        }
    }
}
