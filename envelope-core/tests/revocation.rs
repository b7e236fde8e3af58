//! Revocation material (PAdES B-LT) fetched from a real test PKI: certomancer's Animator
//! (envelope_testkit::pki) answering OCSP, serving CRLs, issuer certificates and timestamps on
//! 127.0.0.1. `openssl` reads what was fetched, independently of the code under test; `pdfsig`
//! checks a seal made with the PKI's sealing identity. scripts/install-test-deps.sh installs
//! all three.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use envelope_core::pdf::{self, PdfLimits, SealSpec, StampRequest, inspect};
use envelope_core::seal::{
    HttpRevocationSource, HttpTimestampAuthority, LocalSealer, RevocationError, RevocationFetcher,
    RevocationKind, RevocationMaterial, RevocationSource, Sealer, SigningIdentity,
};
use envelope_testkit::pdf::{Layout, libreoffice_contract};
use envelope_testkit::pki::Pki;

fn fetcher(source: Arc<dyn RevocationSource>) -> RevocationFetcher {
    RevocationFetcher::new(source)
}

async fn material(pki: &Pki, chain: &[Vec<u8>]) -> RevocationMaterial {
    fetcher(Arc::new(HttpRevocationSource::new()))
        .collect(chain)
        .await
        .unwrap_or_else(|e| panic!("collect from {}: {e}", pki.base_url()))
}

/// `openssl ocsp`'s reading of a response: checked against the root as the only trust anchor,
/// the CertID computed by openssl for `cert` issued by `issuer`.
fn openssl_ocsp(pki: &Pki, response: &[u8], issuer: &str, cert: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let resp = write("resp.der", response);
    let root = write("root.pem", pki.cert_pem("root").as_bytes());
    let issuer = write("issuer.pem", pki.cert_pem(issuer).as_bytes());
    let cert = write("cert.pem", pki.cert_pem(cert).as_bytes());
    let out = std::process::Command::new("openssl")
        .arg("ocsp")
        .arg("-respin")
        .arg(&resp)
        .arg("-CAfile")
        .arg(&root)
        .arg("-issuer")
        .arg(&issuer)
        .arg("-cert")
        .arg(&cert)
        .arg("-resp_text")
        .output()
        .expect("run openssl (scripts/install-test-deps.sh installs it)");
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `openssl crl`'s reading of a DER CRL.
fn openssl_crl(crl: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crl.der");
    std::fs::write(&path, crl).unwrap();
    let out = std::process::Command::new("openssl")
        .args(["crl", "-inform", "DER", "-noout", "-text", "-in"])
        .arg(&path)
        .output()
        .expect("run openssl");
    assert!(out.status.success(), "openssl cannot read the CRL");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test]
async fn the_sealing_chain_gets_a_good_ocsp_answer_for_each_certificate() {
    let pki = Pki::shared();
    let chain = pki.chain_der("seal");
    let got = material(&pki, &chain).await;
    // Compared as booleans: a failed assert_eq on DER vectors prints pages of numbers.
    let responder = pki.cert_der("root-ocsp");
    assert!(
        got.certs == [chain.clone(), vec![responder]].concat(),
        "not the chain (leaf to root, once each) then the root's delegated OCSP responder: {} \
         certificates",
        got.certs.len()
    );
    assert_eq!(
        got.ocsps.len(),
        2,
        "one for the seal, one for the intermediate"
    );
    assert!(got.crls.is_empty(), "OCSP answered: no CRL needed");

    let seal = openssl_ocsp(&pki, &got.ocsps[0], "interm", "seal");
    assert!(seal.contains("Response verify OK"), "{seal}");
    assert!(seal.contains("Cert Status: good"), "{seal}");
    let interm = openssl_ocsp(&pki, &got.ocsps[1], "root", "interm");
    assert!(interm.contains("Response verify OK"), "{interm}");
    assert!(interm.contains("Cert Status: good"), "{interm}");
}

#[tokio::test]
async fn a_chain_without_its_issuers_is_completed_from_ca_issuers() {
    let pki = Pki::shared();
    let got = material(&pki, &[pki.cert_der("seal")]).await;
    assert!(
        got.certs[..3] == pki.chain_der("seal")[..],
        "the issuers fetched are not the chain's"
    );
    assert_eq!(
        got.certs.len(),
        4,
        "the chain and the root's OCSP responder"
    );
    assert_eq!(got.ocsps.len(), 2);
}

#[tokio::test]
async fn the_tsa_chain_merges_with_the_sealing_chain() {
    let pki = Pki::shared();
    let mut all = material(&pki, &pki.chain_der("seal")).await;
    // The TSA's certificate alone, as a timestamp token carries it: its root comes from the
    // caIssuers URL, and its answer is that root's CRL (the authorities have no OCSP here).
    let tsa = material(&pki, &[pki.cert_der("tsa")]).await;
    assert_eq!(tsa.certs, vec![pki.cert_der("tsa"), pki.cert_der("tsa-ca")]);
    assert!(tsa.ocsps.is_empty());
    assert_eq!(tsa.crls.len(), 1);
    let crl = openssl_crl(&tsa.crls[0]);
    assert!(crl.contains("CN = Envelope Test TSA Root CA"), "{crl}");
    all.merge(tsa);
    assert_eq!((all.ocsps.len(), all.crls.len()), (2, 1));
    assert_eq!(
        all.certs.len(),
        6,
        "seal, intermediate, root, responder, TSA, the TSAs' root"
    );
    // Both at once, as a seal's CMS gives them (`seal::certificates_in`): the same material.
    let mut bag = pki.chain_der("seal");
    bag.push(pki.cert_der("tsa"));
    let together = material(&pki, &bag).await;
    assert_eq!(
        (
            together.certs.len(),
            together.ocsps.len(),
            together.crls.len()
        ),
        (6, 2, 1)
    );
}

#[tokio::test]
async fn a_certificate_without_an_ocsp_responder_gets_its_crl() {
    let pki = Pki::shared();
    let got = material(&pki, &pki.chain_der("seal-crl-only")).await;
    assert_eq!(got.crls.len(), 1, "the intermediate's CRL for the leaf");
    assert_eq!(got.ocsps.len(), 1, "OCSP for the intermediate");
    let crl = openssl_crl(&got.crls[0]);
    assert!(crl.contains("CN = Envelope Test Intermediate CA"), "{crl}");
}

/// Refuses every OCSP request, as a responder that is down would; passes the rest through.
struct NoOcsp(HttpRevocationSource);

#[async_trait]
impl RevocationSource for NoOcsp {
    async fn fetch(
        &self,
        url: &str,
        body: Option<Vec<u8>>,
        kind: RevocationKind,
    ) -> Result<Vec<u8>, RevocationError> {
        if kind == RevocationKind::Ocsp {
            return Err(RevocationError::Unavailable {
                url: url.into(),
                source: "the responder is down".into(),
            });
        }
        self.0.fetch(url, body, kind).await
    }
}

#[tokio::test]
async fn when_the_responder_fails_the_crl_is_fetched() {
    let pki = Pki::shared();
    let got = fetcher(Arc::new(NoOcsp(HttpRevocationSource::new())))
        .collect(&pki.chain_der("seal"))
        .await
        .unwrap();
    assert!(got.ocsps.is_empty());
    assert_eq!(got.crls.len(), 2, "the intermediate's CRL and the root's");
    let issuers: Vec<String> = got.crls.iter().map(|c| openssl_crl(c)).collect();
    assert!(issuers[0].contains("CN = Envelope Test Intermediate CA"));
    assert!(issuers[1].contains("CN = Envelope Test Root CA"));
}

#[tokio::test]
async fn a_revoked_certificate_comes_back_with_its_revoked_answer() {
    let pki = Pki::shared();
    let got = material(&pki, &pki.chain_der("seal-revoked")).await;
    let text = openssl_ocsp(&pki, &got.ocsps[0], "interm", "seal-revoked");
    assert!(text.contains("Cert Status: revoked"), "{text}");
    assert!(text.contains("Reason: keyCompromise"), "{text}");
}

/// Answers every OCSP request with fixed bytes, and refuses CRLs.
struct Fixed(Vec<u8>);

#[async_trait]
impl RevocationSource for Fixed {
    async fn fetch(
        &self,
        url: &str,
        _: Option<Vec<u8>>,
        kind: RevocationKind,
    ) -> Result<Vec<u8>, RevocationError> {
        match kind {
            RevocationKind::Ocsp => Ok(self.0.clone()),
            _ => Err(RevocationError::Unavailable {
                url: url.into(),
                source: "no CRL here".into(),
            }),
        }
    }
}

#[tokio::test]
async fn an_answer_about_another_certificate_or_with_a_bad_signature_is_refused() {
    let pki = Pki::shared();
    let revoked = material(&pki, &pki.chain_der("seal-revoked")).await;
    let good = material(&pki, &pki.chain_der("seal")).await;
    // producedAt is the first year in the answer (the responder ID before it is a key hash): a
    // year moved by one leaves a readable answer whose signature no longer verifies.
    let year = chrono::Utc::now().format("%Y").to_string();
    let mut tampered = good.ocsps[0].clone();
    let at = tampered
        .windows(4)
        .position(|w| w == year.as_bytes())
        .expect("producedAt in the answer");
    tampered[at + 3] ^= 1;
    for (answer, why) in [
        (&revoked.ocsps[0], "CertID differs"),
        (&tampered, "the signature does not verify"),
    ] {
        let got = fetcher(Arc::new(Fixed(answer.clone())))
            .collect(&pki.chain_der("seal"))
            .await;
        let text = match got {
            // The CRL was tried after the refused answer, and was unavailable.
            Err(RevocationError::Unavailable { source, .. }) => source.to_string(),
            other => panic!("{why}: {other:?}"),
        };
        assert!(text.contains(why), "{why}: {text}");
    }
}

#[tokio::test]
async fn a_dead_or_silent_service_is_unavailable() {
    let dead = envelope_testkit::process::free_port();
    let source = HttpRevocationSource::new();
    let got = source
        .fetch(
            &format!("http://127.0.0.1:{dead}/ocsp"),
            Some(vec![0x30, 0]),
            RevocationKind::Ocsp,
        )
        .await;
    assert!(
        matches!(got, Err(RevocationError::Unavailable { .. })),
        "{got:?}"
    );

    // Accepts the connection and never answers: the timeout ends it.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let _hold = std::thread::spawn(move || {
        let conns: Vec<_> = silent.incoming().take(1).collect();
        std::thread::sleep(Duration::from_secs(5));
        drop(conns);
    });
    let got = source
        .with_timeout(Duration::from_millis(300))
        .fetch(
            &format!("http://127.0.0.1:{port}/crl"),
            None,
            RevocationKind::Crl,
        )
        .await;
    assert!(
        matches!(&got, Err(RevocationError::Unavailable { source, .. }) if source.to_string().contains("no answer")),
        "{got:?}"
    );
}

/// A one-shot HTTP server that answers 2 MiB, with or without a Content-Length.
fn oversized_server(with_length: bool) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        if let Some(Ok(mut conn)) = listener.incoming().next() {
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf);
            let head = if with_length {
                format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", 2 << 20)
            } else {
                "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".to_string()
            };
            let _ = conn.write_all(head.as_bytes());
            let chunk = vec![0x30u8; 64 * 1024];
            for _ in 0..32 {
                if conn.write_all(&chunk).is_err() {
                    break;
                }
            }
        }
    });
    port
}

#[tokio::test]
async fn an_oversized_answer_is_refused() {
    for with_length in [true, false] {
        let port = oversized_server(with_length);
        let got = HttpRevocationSource::new()
            .fetch(
                &format!("http://127.0.0.1:{port}/big.crl"),
                None,
                RevocationKind::Crl,
            )
            .await;
        assert!(
            matches!(&got, Err(RevocationError::Invalid { reason, .. }) if reason.contains("larger")),
            "with Content-Length {with_length}: {got:?}"
        );
    }
}

/// Counts what reaches the network.
struct Counting(HttpRevocationSource, AtomicUsize);

#[async_trait]
impl RevocationSource for Counting {
    async fn fetch(
        &self,
        url: &str,
        body: Option<Vec<u8>>,
        kind: RevocationKind,
    ) -> Result<Vec<u8>, RevocationError> {
        self.1.fetch_add(1, Ordering::SeqCst);
        self.0.fetch(url, body, kind).await
    }
}

#[tokio::test]
async fn a_second_fetch_within_the_validity_is_served_from_the_cache() {
    let pki = Pki::shared();
    let counting = Arc::new(Counting(HttpRevocationSource::new(), AtomicUsize::new(0)));
    let fetcher = fetcher(counting.clone());
    for label in ["seal", "seal-crl-only"] {
        let first = fetcher.collect(&pki.chain_der(label)).await.unwrap();
        let asked = counting.1.load(Ordering::SeqCst);
        assert!(asked > 0);
        let second = fetcher.collect(&pki.chain_der(label)).await.unwrap();
        assert_eq!(
            counting.1.load(Ordering::SeqCst),
            asked,
            "{label}: asked again"
        );
        assert!(first == second, "{label}: the cached material differs");
    }
}

#[tokio::test]
async fn the_pki_sealing_identity_seals_with_the_pki_timestamp() {
    let pki = Pki::shared();
    let identity =
        SigningIdentity::from_pem(&pki.key_pem("seal"), &pki.chain_pem("seal"), None).unwrap();
    assert!(identity.info().subject.contains("Envelope Test Seal"));
    let tsa = HttpTimestampAuthority::new(&pki.tsa_url()).unwrap();
    let sealer = LocalSealer::new(identity).with_timestamps(Arc::new(tsa));

    let original = libreoffice_contract(Layout::Classic);
    let info = inspect(&original, &PdfLimits::default()).unwrap();
    assert!(!info.pages.is_empty());
    let spec = SealSpec {
        name: "Envelope".into(),
        reason: "Signed by all parties via Envelope".into(),
        signing_time: chrono::Utc::now(),
        capacity: sealer.capacity(),
    };
    let request = StampRequest {
        page_mark: None,
        fields: Vec::new(),
        signature_page: None,
    };
    let prepared = pdf::stamp_for_seal(&original, &request, &spec).unwrap();
    let cms = sealer
        .sign(prepared.digest())
        .await
        .expect("sign with a timestamp");
    let sealed = prepared.fill(&cms).unwrap().into_whole(&original).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sealed.pdf");
    std::fs::write(&path, &sealed).unwrap();
    let out = std::process::Command::new("pdfsig")
        .arg(&path)
        .output()
        .expect("run pdfsig (scripts/install-test-deps.sh installs poppler-utils)");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("Signature Validation: Signature is Valid."),
        "{report}"
    );
    assert!(report.contains("Envelope Test Seal"), "{report}");
    assert!(report.contains("Total document signed"), "{report}");

    // pyHanko, with the test roots (the seal's and the timestamp authorities') as its only
    // trust anchors and revocation checking on: it follows the certificates' own AIA and CRL
    // distribution points to the running PKI.
    let root = dir.path().join("root.pem");
    std::fs::write(&root, pki.cert_pem("root")).unwrap();
    let tsa_root = dir.path().join("tsa-ca.pem");
    std::fs::write(&tsa_root, pki.cert_pem("tsa-ca")).unwrap();
    let out = std::process::Command::new("pyhanko")
        .args(["sign", "validate", "--trust-replace", "--trust"])
        .arg(&root)
        .arg("--trust")
        .arg(&tsa_root)
        .arg(&path)
        .output()
        .expect("run pyhanko (scripts/install-test-deps.sh installs it)");
    let verdict = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let fingerprint = &sealer.certificate().sha256_fingerprint;
    assert!(
        verdict
            .lines()
            .any(|l| l.starts_with(&format!("Seal:{fingerprint}:INTACT:TRUSTED,"))),
        "{verdict}"
    );
    assert!(
        verdict.contains("TIMESTAMP_TOKEN<INTACT:TRUSTED>"),
        "{verdict}"
    );
}
