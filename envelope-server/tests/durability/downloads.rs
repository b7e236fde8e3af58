//! Streamed bodies end with their clients (issue 31), on the real binary: a 20 MB original's
//! download, a signed copy's download, its envelope's archive and a signer's `/document` are each
//! started by a client that reads a little and then stops; while they stall the server counts four
//! open streams
//! (`envelope_http_streams_open`), and once the clients hang up the count goes back to zero
//! (the stream, its buffers and its store reads are dropped, not left waiting for a reader who
//! is gone). Read to the end afterwards, each body is every byte, with its length announced.

use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::process::{BIN, ServerProcess, free_port, send};
use envelope_testkit::pdf::big_document;

async fn create(client: &reqwest::Client, base: &str, key: &str, pdf: &[u8]) -> String {
    let created = send(
        client
            .post(format!("{base}/v1/envelopes"))
            .bearer_auth(key)
            .json(&json!({
                "file_base64": base64::engine::general_purpose::STANDARD.encode(pdf),
                "file_name": "big.pdf",
                "delivery": "embedded",
                "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
            })),
    )
    .await
    .expect("create answered");
    assert_eq!(created.status, 201, "{}", created.body);
    created.body["id"].as_str().unwrap().to_string()
}

async fn url_of(req: reqwest::RequestBuilder) -> String {
    let a = send(req).await.expect("answered");
    assert_eq!(a.status, 200, "{}", a.body);
    a.body["url"].as_str().unwrap().to_string()
}

/// The value of the open-streams gauge (0 before the first stream registers it).
async fn open_streams(client: &reqwest::Client, metrics: &str) -> f64 {
    crate::metrics::scrape(client, metrics)
        .await
        .get("envelope_http_streams_open")
        .copied()
        .unwrap_or(0.0)
}

/// Polls the gauge until it is `want`; fails with the last value after a generous deadline
/// (a bound on a broken server, not a timing claim).
async fn wait_for_streams(client: &reqwest::Client, metrics: &str, want: f64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let now = open_streams(client, metrics).await;
        if now == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "open streams stayed {now}, not {want}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A client that asks for `url`, reads the head and 256 KB of the body, and then stops reading.
async fn stalled_reader(url: &str) -> TcpStream {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let mut conn = TcpStream::connect(host).await.unwrap();
    conn.write_all(format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut got = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    while got.len() < 256 * 1024 {
        let n = conn.read(&mut buf).await.unwrap();
        assert!(
            n > 0,
            "the server closed early: {}",
            String::from_utf8_lossy(&got)
        );
        got.extend_from_slice(&buf[..n]);
    }
    assert!(
        got.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&got[..200])
    );
    conn
}

/// Every byte of `url`, checking that the announced length is what came.
async fn whole(client: &reqwest::Client, url: &str) -> Vec<u8> {
    let res = client.get(url).send().await.unwrap();
    assert_eq!(res.status(), 200, "{url}");
    let length: usize = res.headers()["content-length"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let bytes = res.bytes().await.unwrap().to_vec();
    assert_eq!(bytes.len(), length, "{url}");
    bytes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_ends_when_its_client_goes_away() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let metrics = format!("127.0.0.1:{}", free_port());
    let server = ServerProcess::start_with_env(
        BIN,
        &["--data-dir", data.to_str().unwrap()],
        &[("ENVELOPE_METRICS_LISTEN", metrics.as_str())],
        &tmp.path().join("server.log"),
    );
    let key = server.printed_test_key();
    let base = server.base.clone();
    let http = reqwest::Client::new();
    // 20 pages of 1 MB of noise each: more than the socket buffers of both ends hold.
    let pdf = big_document(20, 1_000_000);
    assert!(pdf.len() > 20_000_000);

    let unsigned = create(&http, &base, &key, &pdf).await;
    let signed = create(&http, &base, &key, &pdf).await;
    let done = send(
        http.post(format!(
            "{base}/v1/test_helpers/envelopes/{signed}/complete"
        ))
        .bearer_auth(&key),
    )
    .await
    .unwrap();
    assert_eq!(done.status, 200, "{}", done.body);
    let files = |id: &str, kind: &str| {
        http.get(format!("{base}/v1/envelopes/{id}/files/{kind}"))
            .bearer_auth(&key)
    };
    let original = url_of(files(&unsigned, "original")).await;
    let signed_copy = url_of(files(&signed, "signed")).await;
    let archive = url_of(files(&signed, "archive")).await;
    let link = url_of(
        http.post(format!("{base}/v1/envelopes/{unsigned}/signing_url"))
            .bearer_auth(&key)
            .json(&Value::Object(Default::default())),
    )
    .await;
    let shown = format!("{base}{}/document", &link[link.find("/sign/").unwrap()..]);

    let mut stalled = Vec::new();
    for url in [&original, &signed_copy, &shown, &archive] {
        stalled.push(stalled_reader(url).await);
    }
    wait_for_streams(&http, &metrics, 4.0).await;
    drop(stalled);
    wait_for_streams(&http, &metrics, 0.0).await;

    assert_eq!(whole(&http, &original).await, pdf);
    let signed_bytes = whole(&http, &signed_copy).await;
    assert!(signed_bytes.starts_with(&pdf) && signed_bytes.len() > pdf.len());
    let shown_bytes = whole(&http, &shown).await;
    assert!(shown_bytes.starts_with(&pdf) && shown_bytes.len() > pdf.len());
    // The signer's document of one version is the same bytes every time.
    assert_eq!(whole(&http, &shown).await, shown_bytes);
    wait_for_streams(&http, &metrics, 0.0).await;
}
