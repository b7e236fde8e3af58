//! Long-term seals on the real binary against a real PKI (extensions E10): certomancer's root,
//! intermediate, sealing certificate with OCSP and CRL, and TSA (`envelope_testkit::pki`).
//!
//! - An envelope completed while the timestamp authority's port is closed completes at B-B;
//!   once the port opens, the upgrade sweep brings it to B-LTA within `--seal-retry-schedule`,
//!   the earlier download a byte prefix of the new one, with `envelope.seal_upgraded`.
//! - An envelope completed with everything up is B-LTA at once.
//! - `envelope-server seals renew` refuses to renew with an authority whose certificate would
//!   not move the expiry later, and renews every B-LTA envelope, once, with one whose does.
//! - With the PKI stopped and online fetching turned off (everything must be in the file),
//!   pyHanko's AdES validation (ETSI EN 319 102-1 with its long-term process,
//!   `testkit/pki/adesverify.py`, the test roots as the only trust anchors) passes the B-LTA
//!   files and a B-LT file (`--pades-level b-lt`) today; in 2037, after the sealing certificate
//!   expired, it passes the B-LTA files (the authorities' certificates as anchors, as the EU
//!   trusted lists have them) and not the B-LT one. pdfsig finds every seal valid.

use std::path::Path;
use std::time::{Duration, Instant};

use envelope_testkit::pki::Pki;
use serde_json::Value;

use crate::metrics::complete_one;
use crate::process::{BIN, ServerProcess, free_port};

/// A validation time after the sealing certificate expired (2036-01-01).
const AFTER_EXPIRY: &str = "2037-06-01T00:00:00Z";

/// The schedule of the tests: short, and long enough in total for a loaded machine.
const SCHEDULE: &str = "1s,1s,2s,3s,5s,10s,20s,30s";

/// A server sealing test-mode documents with the PKI's sealing certificate, timestamps from
/// `tsa_url`, and `args`.
fn pki_server(
    pki: &Pki,
    tsa_url: &str,
    args: &[&str],
) -> (ServerProcess, tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let key = tmp.path().join("seal.key.pem");
    let cert = tmp.path().join("seal.chain.pem");
    std::fs::write(&key, pki.key_pem("seal")).unwrap();
    std::fs::write(&cert, pki.chain_pem("seal")).unwrap();
    let mut all = vec![
        "--data-dir",
        data.to_str().unwrap(),
        "--test-signing-key",
        key.to_str().unwrap(),
        "--test-signing-cert",
        cert.to_str().unwrap(),
        "--tsa-url",
        tsa_url,
        "--seal-retry-schedule",
        SCHEDULE,
    ];
    all.extend_from_slice(args);
    let server = ServerProcess::start(BIN, &all, &tmp.path().join("server.log"));
    let test_key = server.printed_test_key();
    (server, tmp, test_key)
}

/// Forwards connections on `port` to `to` (the PKI) until dropped: the timestamp authority's
/// port, opened once the test wants it up.
struct Forwarder(tokio::task::JoinHandle<()>);

impl Forwarder {
    async fn open(port: u16, to: String) -> Forwarder {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .unwrap();
        Forwarder(tokio::spawn(async move {
            loop {
                let Ok((mut inbound, _)) = listener.accept().await else {
                    return;
                };
                let to = to.clone();
                tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(&to).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        }))
    }
}

impl Drop for Forwarder {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn get(http: &reqwest::Client, server: &ServerProcess, key: &str, path: &str) -> Value {
    let answer = http
        .get(format!("{}{path}", server.base))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 200, "{path}");
    answer.json().await.unwrap()
}

async fn download(
    http: &reqwest::Client,
    server: &ServerProcess,
    key: &str,
    id: &str,
    kind: &str,
) -> Vec<u8> {
    let link = get(
        http,
        server,
        key,
        &format!("/v1/envelopes/{id}/files/{kind}"),
    )
    .await;
    let url = link["url"].as_str().unwrap();
    http.get(url)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .to_vec()
}

/// pyHanko's AdES validation of `file` with online fetching turned off, `anchors` (PEM files)
/// the only trust anchors, at `time` (ISO 8601) or now (`testkit/pki/adesverify.py`): its
/// verdict lines, and whether every signature passed.
fn adesverify(file: &[u8], anchors: &[&Path], time: Option<&str>) -> (String, bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("file.pdf");
    std::fs::write(&path, file).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testkit/pki/adesverify.py");
    let anchors: Vec<&str> = anchors.iter().map(|p| p.to_str().unwrap()).collect();
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(&path)
        .arg(anchors.join(","))
        .args(time)
        .output()
        .unwrap_or_else(|e| {
            panic!("could not run python3 ({e}): run scripts/install-test-deps.sh")
        });
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (text, out.status.success())
}

/// `envelope-server seals renew --before <ahead> --tsa-url <tsa>` on the store in `data`: what it
/// printed, and whether it succeeded.
fn renew(data: &Path, ahead: &str, tsa: &str) -> (String, bool) {
    let out = std::process::Command::new(BIN)
        .arg("seals")
        .arg("--data-dir")
        .arg(data)
        .args(["renew", "--before", ahead, "--tsa-url", tsa])
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (text, out.status.success())
}

/// pdfsig finds every signature of `file` valid (poppler cannot check document timestamps, and
/// says so: "unknown").
fn assert_pdfsig_valid(name: &str, file: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("file.pdf");
    std::fs::write(&path, file).unwrap();
    let out = std::process::Command::new("pdfsig")
        .arg(&path)
        .output()
        .expect("pdfsig (scripts/install-test-deps.sh)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Signature Validation: Signature is Valid."),
        "{name}:\n{text}"
    );
    assert!(!text.contains("Signature is Invalid"), "{name}:\n{text}");
}

/// Waits until envelope `id`'s `seal.level` is `level`; the envelope at the end.
async fn wait_for_level(
    http: &reqwest::Client,
    server: &ServerProcess,
    key: &str,
    id: &str,
    level: &str,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let env = get(http, server, key, &format!("/v1/envelopes/{id}")).await;
        if env["seal"]["level"] == level {
            return env;
        }
        assert!(
            Instant::now() < deadline,
            "the seal never reached {level}: {}",
            env["seal"]
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seals_grow_to_b_lta_when_their_services_return_and_validate_offline_after_expiry() {
    let pki = Pki::start();
    // The anchors: the sealing root, and for the timestamps either their root (today) or, as
    // the EU trusted lists do for qualified authorities, each authority's own certificate (the
    // only way to check a timestamp offline once its revocation answers are old).
    let anchors_dir = tempfile::tempdir().unwrap();
    let anchor = |label: &str| {
        let path = anchors_dir.path().join(format!("{label}.pem"));
        std::fs::write(&path, pki.cert_pem(label)).unwrap();
        path
    };
    let (root, tsa_root, tsa_cert, tsa2_cert) = (
        anchor("root"),
        anchor("tsa-ca"),
        anchor("tsa"),
        anchor("tsa2"),
    );
    let today = [root.as_path(), tsa_root.as_path()];
    let listed = [root.as_path(), tsa_cert.as_path(), tsa2_cert.as_path()];
    let http = reqwest::Client::new();

    // The timestamp authority's port is closed when the first envelope completes.
    let tsa_port = free_port();
    let tsa_url = format!("http://127.0.0.1:{tsa_port}/envelope/tsa/tsa");
    let (server, tmp, key) = pki_server(&pki, &tsa_url, &[]);
    let late = complete_one(&http, &server, &key).await;
    assert_eq!(late["status"], "completed");
    assert_eq!(
        late["seal"],
        serde_json::json!({"level": "b-b", "target_level": "b-lta"})
    );
    let late_id = late["id"].as_str().unwrap().to_string();
    let first = download(&http, &server, &key, &late_id, "signed").await;

    // The port opens: an envelope completed now is B-LTA at once, and the sweep upgrades the
    // first.
    let forwarder = Forwarder::open(tsa_port, pki.base_url().replace("http://", "")).await;
    let now = complete_one(&http, &server, &key).await;
    assert_eq!(
        now["seal"],
        serde_json::json!({"level": "b-lta", "target_level": "b-lta"})
    );
    let now_id = now["id"].as_str().unwrap().to_string();
    let upgraded = wait_for_level(&http, &server, &key, &late_id, "b-lta").await;
    assert_eq!(upgraded["seal"]["target_level"], "b-lta");
    let second = download(&http, &server, &key, &late_id, "signed").await;
    assert!(second.len() > first.len());
    assert_eq!(
        &second[..first.len()],
        &first[..],
        "the earlier copy is a prefix"
    );
    let events = get(
        &http,
        &server,
        &key,
        "/v1/events?type=envelope.seal_upgraded",
    )
    .await;
    let events: Vec<&Value> = events["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["data"]["object"]["id"] == late_id.as_str())
        .collect();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["data"]["object"]["seal"]["level"], "b-lta");

    // Renewal (`seals renew`): with the same authority, whose certificate expires in 2060, a
    // new timestamp would not move the expiry: refused, nothing written. With a second
    // authority (2090) every B-LTA envelope of the store is renewed, once.
    let data = tmp.path().join("data");
    let ahead = "13000d"; // 2062: past the first authority's certificate, before the second's
    let (out, ok) = renew(&data, ahead, &tsa_url);
    assert!(!ok && out.contains("renewed 0, not renewed 2"), "{out}");
    assert!(out.contains("expires no later than"), "{out}");
    let before_renewal = download(&http, &server, &key, &now_id, "signed").await;
    let tsa2 = pki.tsa_url_of("tsa2");
    let (out, ok) = renew(&data, ahead, &tsa2);
    assert!(ok && out.contains("renewed 2, not renewed 0"), "{out}");
    let renewed = download(&http, &server, &key, &now_id, "signed").await;
    assert!(renewed.len() > before_renewal.len());
    assert_eq!(&renewed[..before_renewal.len()], &before_renewal[..]);
    let (out, ok) = renew(&data, ahead, &tsa2);
    assert!(ok && out.contains("renewed 0, not renewed 0"), "{out}");

    let files = [
        (
            "upgraded signed copy",
            download(&http, &server, &key, &late_id, "signed").await,
        ),
        (
            "upgraded audit trail",
            download(&http, &server, &key, &late_id, "audit_trail").await,
        ),
        (
            "signed copy",
            download(&http, &server, &key, &now_id, "signed").await,
        ),
        (
            "audit trail",
            download(&http, &server, &key, &now_id, "audit_trail").await,
        ),
    ];

    // B-LT alone, for the contrast after expiry.
    let (lt_server, _lt_tmp, lt_key) = pki_server(&pki, &tsa_url, &["--pades-level", "b-lt"]);
    let lt = complete_one(&http, &lt_server, &lt_key).await;
    assert_eq!(
        lt["seal"],
        serde_json::json!({"level": "b-lt", "target_level": "b-lt"})
    );
    let lt_file = download(
        &http,
        &lt_server,
        &lt_key,
        lt["id"].as_str().unwrap(),
        "signed",
    )
    .await;

    // Everything a validator needs must now be in the files.
    drop(forwarder);
    drop(pki);

    for (name, file) in &files {
        assert_pdfsig_valid(name, file);
        let (out, passed) = adesverify(file, &today, None);
        assert!(passed, "{name}:\n{out}");
        if name.starts_with("upgraded") {
            // A seal made without its signature timestamp (B-B, upgraded by document
            // timestamps, which ETSI EN 319 142-1 accepts for B-T) passes pyHanko's bottom
            // line, whose AdES process still wants a signature timestamp
            // ("SIG_CONSTRAINTS_FAILURE", a to-do of pyHanko's), so it goes no further.
            continue;
        }
        assert!(
            out.contains("\"indication\": \"AdESPassed.OK\""),
            "{name}:\n{out}"
        );
        // After the sealing certificate expired (2036): the document timestamps prove that
        // the seal and the DSS's answers existed while it was valid.
        let (out, passed) = adesverify(file, &listed, Some(AFTER_EXPIRY));
        assert!(passed, "{name} in 2037:\n{out}");
        assert!(
            out.contains("\"indication\": \"AdESPassed.OK\""),
            "{name} in 2037:\n{out}"
        );
    }
    // B-LT: valid today from what it holds; in 2037 nothing proves its answers were had in
    // time, which is what B-LTA's document timestamp is for.
    assert_pdfsig_valid("B-LT copy", &lt_file);
    let (out, passed) = adesverify(&lt_file, &today, None);
    assert!(passed, "B-LT copy:\n{out}");
    let (out, passed) = adesverify(&lt_file, &listed, Some(AFTER_EXPIRY));
    assert!(!passed, "B-LT copy in 2037:\n{out}");
}
