//! Sealed documents through the server: the sealer `serve` builds (development certificate in
//! the data dir, RFC 3161 timestamps from a TSA over real HTTP), the account's certificate
//! field, the envelope's `seal` levels, and the downloaded signed PDF and audit trail checked
//! by pdfsig and pyHanko (scripts/install-test-deps.sh installs both; a missing tool fails the
//! test). A TSA that cannot be reached never holds a signature: the envelope completes sealed
//! without timestamps (PAdES B-B).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::Value;

use envelope_core::seal::{LocalTimestampAuthority, SigningIdentity};
use envelope_core::{Clock, SystemClock, Timestamp};
use envelope_server::signing::{SigningOptions, load_sealers};
use serde_json::json;

use crate::common::pdf::client_contract;
use crate::common::signing::{link, sign_as_client, sign_as_provider, signing_envelope};
use crate::common::{Options, TestServer, client_signer, envelope_body};

/// Where a [`SealedServer`]'s timestamps come from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Tsa {
    /// [`tsa_stub`], with `genTime` to the second.
    Stub,
    /// [`tsa_stub`] with `genTime` at half past the second (`...30.5Z`), as many TSAs send it.
    Fractional,
    /// A port nothing listens on: every request is refused.
    Closed,
}

/// The wall clock at half past its second: a `genTime` with a fraction whatever the wall
/// clock's milliseconds.
struct HalfPast;

impl Clock for HalfPast {
    fn now(&self) -> Timestamp {
        Timestamp::from_millis(SystemClock.now().unix_seconds() * 1000 + 500).unwrap()
    }
}

/// A URL on 127.0.0.1 where nothing listens (a port the system just gave and took back).
fn closed_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}/tsa")
}

/// A timestamp authority on 127.0.0.1:0 speaking RFC 3161 over HTTP; returns its URL and the
/// PEM of its certificate. `fractional`: `genTime` at half past the second.
pub(crate) async fn tsa_stub(fractional: bool) -> (String, String) {
    let dev = SigningIdentity::generate_timestamp_authority("Stub TSA").unwrap();
    let cert = dev.cert_pem.clone();
    let tsa = LocalTimestampAuthority::new(dev.identity);
    let tsa = Arc::new(if fractional {
        tsa.with_clock(Arc::new(HalfPast)).with_fractional_seconds()
    } else {
        tsa
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let tsa = tsa.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let tsa = tsa.clone();
                    async move {
                        let wrong_type = req
                            .headers()
                            .get(hyper::header::CONTENT_TYPE)
                            .is_none_or(|v| v != "application/timestamp-query");
                        let body = req.into_body().collect().await.unwrap().to_bytes();
                        let mut resp =
                            hyper::Response::new(Full::new(Bytes::from(tsa.respond(&body))));
                        if wrong_type {
                            *resp.status_mut() = hyper::StatusCode::UNSUPPORTED_MEDIA_TYPE;
                        }
                        resp.headers_mut().insert(
                            hyper::header::CONTENT_TYPE,
                            "application/timestamp-reply".parse().unwrap(),
                        );
                        Ok::<_, Infallible>(resp)
                    }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (format!("http://{addr}/tsa"), cert)
}

/// A server that seals as `serve` does with its own data dir (the development certificate for
/// live documents, the generated test-mode one for test documents) and timestamps from
/// [`tsa_stub`]: what the validators must trust to call its seals valid.
pub(crate) struct SealedServer {
    pub(crate) server: TestServer,
    /// The live identity's certificate.
    pub(crate) fingerprint: String,
    /// The test-mode identity's certificate.
    pub(crate) test_fingerprint: String,
    data: tempfile::TempDir,
    tsa: tempfile::TempDir,
}

impl SealedServer {
    pub(crate) async fn start() -> SealedServer {
        SealedServer::start_with(Tsa::Stub).await
    }

    pub(crate) async fn start_with(tsa: Tsa) -> SealedServer {
        let data = tempfile::tempdir().unwrap();
        let (tsa_url, tsa_cert) = match tsa {
            Tsa::Stub => tsa_stub(false).await,
            Tsa::Fractional => tsa_stub(true).await,
            Tsa::Closed => (closed_url(), String::new()),
        };
        let opts = SigningOptions {
            tsa_url: Some(tsa_url),
            ..SigningOptions::default()
        };
        let sealers = load_sealers(&opts, data.path(), "Envelope").unwrap();
        let fingerprint = sealers.live.certificate().sha256_fingerprint.clone();
        let test_fingerprint = sealers.test.certificate().sha256_fingerprint.clone();
        let tsa = tempfile::tempdir().unwrap();
        std::fs::write(tsa.path().join("tsa.pem"), tsa_cert).unwrap();
        let server = TestServer::start_with(Options {
            sealer: Some(sealers.live),
            test_sealer: Some(sealers.test),
            ..Options::default()
        })
        .await;
        SealedServer {
            server,
            fingerprint,
            test_fingerprint,
            data,
            tsa,
        }
    }

    /// The certificates to trust for live documents: the development certificate and the
    /// TSA's.
    pub(crate) fn trust(&self) -> [std::path::PathBuf; 2] {
        [
            self.data
                .path()
                .join("signing")
                .join("development-cert.pem"),
            self.tsa.path().join("tsa.pem"),
        ]
    }

    /// The certificates to trust for test documents: the test-mode certificate and the TSA's.
    pub(crate) fn trust_test(&self) -> [std::path::PathBuf; 2] {
        [
            self.data
                .path()
                .join("signing")
                .join("test-mode")
                .join("test-mode-cert.pem"),
            self.tsa.path().join("tsa.pem"),
        ]
    }
}

pub(crate) fn run(tool: &str, args: &[&str], dir: &Path, bytes: &[u8]) -> String {
    let path = dir.join("doc.pdf");
    std::fs::write(&path, bytes).unwrap();
    let out = std::process::Command::new(tool)
        .args(args)
        .arg(&path)
        .output()
        .unwrap_or_else(|e| {
            panic!("could not run `{tool}` ({e}): run scripts/install-test-deps.sh")
        });
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// pdfsig and pyHanko find the seal valid, with a valid signature timestamp, followed only by
/// the DSS and document timestamp of PAdES B-LTA (pyHanko: "extended with LTA updates"; the
/// levels themselves are checked offline in `tests/long_term.rs`).
pub(crate) fn check(name: &str, bytes: &[u8], trust: &[&Path], fingerprint: &str) {
    let verdict = validate(name, bytes, trust);
    let expected = format!(
        "Seal:{fingerprint}:INTACT:TRUSTED,TIMESTAMP_TOKEN<INTACT:TRUSTED>,\
         EXTENDED_WITH_LTA_UPDATES,ACCEPTABLE_MODIFICATIONS"
    );
    assert!(
        verdict.lines().any(|l| l == expected),
        "{name}: pyHanko:\n{verdict}"
    );
}

/// As [`check`], without a signature timestamp (PAdES B-B).
fn check_without_timestamp(name: &str, bytes: &[u8], trust: &[&Path], fingerprint: &str) {
    let verdict = validate(name, bytes, trust);
    let expected = format!("Seal:{fingerprint}:INTACT:TRUSTED,UNTOUCHED");
    assert!(
        verdict.lines().any(|l| l == expected),
        "{name}: pyHanko:\n{verdict}"
    );
}

/// pdfsig's checks, and pyHanko's verdict lines.
fn validate(name: &str, bytes: &[u8], trust: &[&Path]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let sig = run("pdfsig", &[], dir.path(), bytes);
    for needle in ["Signature is Valid.", "Total document signed"] {
        assert!(sig.contains(needle), "{name}: pdfsig:\n{sig}");
    }
    let mut args = vec![
        "sign",
        "validate",
        "--no-revocation-check",
        "--trust-replace",
    ];
    for t in trust {
        args.push("--trust");
        args.push(t.to_str().unwrap());
    }
    run("pyhanko", &args, dir.path(), bytes)
}

async fn download(s: &TestServer, id: &str, kind: &str) -> Bytes {
    let link = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}/files/{kind}"))
        .await
        .ok(200);
    let url = link["url"].as_str().unwrap();
    s.client
        .get(url)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
}

#[tokio::test]
async fn completed_envelopes_are_sealed_and_timestamped() {
    let sealed = SealedServer::start().await;
    // A test envelope: sealed by the test-mode identity, which the test key's account shows.
    let (s, fingerprint) = (&sealed.server, sealed.test_fingerprint.clone());

    let account = s.get(&s.test_key, "/v1/account").await.ok(200);
    assert_eq!(
        account["signing_certificate"],
        serde_json::json!({"development": true, "sha256_fingerprint": fingerprint})
    );

    let (pdf, env) = client_envelope(s).await;
    let id = env["id"].as_str().unwrap();
    assert_eq!(env["seal"], Value::Null, "no seal before completion");
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);
    let read: Value = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(read["status"], "completed");
    assert_eq!(
        read["seal"],
        json!({"level": "b-lta", "target_level": "b-lta"})
    );

    let trust = sealed.trust_test();
    let trust: Vec<&Path> = trust.iter().map(|p| p.as_path()).collect();

    let signed = download(s, id, "signed").await;
    assert_eq!(&signed[..pdf.len()], &pdf[..], "original bytes untouched");
    check("signed copy", &signed, &trust, &fingerprint);
    let audit = download(s, id, "audit_trail").await;
    check("audit trail", &audit, &trust, &fingerprint);
    let dir = tempfile::tempdir().unwrap();
    let text = run("pdftotext", &[], dir.path(), &audit);
    let text = std::fs::read_to_string(dir.path().join("doc.txt")).unwrap_or(text);
    assert!(
        text.contains(&fingerprint),
        "audit trail without the fingerprint:\n{text}"
    );
    // The level the signed copy's seal reached (extensions E10), at its target.
    assert!(
        text.contains("Seal level of the signed document") && text.contains("PAdES B-LTA"),
        "audit trail without the seal level:\n{text}"
    );
    assert!(!text.contains("(target:"), "{text}");
}

/// A sent envelope of the client contract for its one signer: the PDF and the created object.
async fn client_envelope(s: &TestServer) -> (Vec<u8>, Value) {
    let pdf = client_contract();
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            envelope_body(&pdf, client_signer()),
        )
        .await
        .ok(201);
    (pdf, env)
}

/// The test helper completes an envelope of the client contract; its object after.
async fn complete_by_helper(s: &TestServer) -> Value {
    let (_, env) = client_envelope(s).await;
    let id = env["id"].as_str().unwrap();
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200)
}

#[tokio::test]
async fn a_timestamp_with_fractional_seconds_seals_pades_b_lta() {
    let sealed = SealedServer::start_with(Tsa::Fractional).await;
    let s = &sealed.server;
    let env = complete_by_helper(s).await;
    assert_eq!(env["status"], "completed");
    assert_eq!(
        env["seal"],
        json!({"level": "b-lta", "target_level": "b-lta"})
    );
    let id = env["id"].as_str().unwrap();
    let trust = sealed.trust_test();
    let trust: Vec<&Path> = trust.iter().map(|p| p.as_path()).collect();
    for kind in ["signed", "audit_trail"] {
        let bytes = download(s, id, kind).await;
        check(kind, &bytes, &trust, &sealed.test_fingerprint);
    }
}

#[tokio::test]
async fn a_timestamp_authority_that_is_down_never_holds_a_signature() {
    let sealed = SealedServer::start_with(Tsa::Closed).await;
    let s = &sealed.server;
    // The development certificate alone: there is no timestamp to trust.
    let trust = sealed.trust_test();
    let trust = [trust[0].as_path()];
    let fingerprint = &sealed.test_fingerprint;

    // The last signer signs on the signing page: a success, and the envelope completes.
    let env = signing_envelope(s, json!({"signing_order": true})).await;
    let id = env["id"].as_str().unwrap();
    let client = link(s, id, "Client").await;
    sign_as_client(s, &client).await;
    let provider = link(s, id, "Provider").await;
    let done = sign_as_provider(s, &provider).await;
    assert!(done.contains("Everyone has signed"), "{done}");
    let read = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(read["status"], "completed");
    assert!(
        read["signers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["status"] == "completed"),
        "{read}"
    );
    assert_eq!(
        read["seal"],
        json!({"level": "b-b", "target_level": "b-lta"})
    );
    for kind in ["signed", "audit_trail"] {
        let bytes = download(s, id, kind).await;
        check_without_timestamp(kind, &bytes, &trust, fingerprint);
    }
    // The audit trail states the gap.
    let audit = download(s, id, "audit_trail").await;
    let dir = tempfile::tempdir().unwrap();
    let text = run("pdftotext", &[], dir.path(), &audit);
    let text = std::fs::read_to_string(dir.path().join("doc.txt")).unwrap_or(text);
    assert!(
        text.contains("PAdES B-B (target: PAdES B-LTA)"),
        "audit trail without the level reached:\n{text}"
    );

    // The test helper too.
    let env = complete_by_helper(s).await;
    assert_eq!(env["status"], "completed");
    assert_eq!(
        env["seal"],
        json!({"level": "b-b", "target_level": "b-lta"})
    );
    let signed = download(s, env["id"].as_str().unwrap(), "signed").await;
    check_without_timestamp("helper's signed copy", &signed, &trust, fingerprint);
}
