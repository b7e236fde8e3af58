//! Uploads through the spool (`body/spool.rs`): many at once from one account all succeed, a
//! burst past small budgets gets only `201`s and `503`s with `Retry-After` that a client which
//! sends its whole body first can read, and an upload cut mid-body leaves nothing behind.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Barrier;

use envelope_core::Settings;
use envelope_core::service::PdfPoolSettings;
use envelope_server::HttpLimits;

use crate::common::pdf::{client_contract, padded};
use crate::common::{Options, TestServer, client_signer, envelope_body};

/// A server spooling into `dir`, with one PDF worker (so one upload in memory at a time).
async fn spool_server(dir: &Path, limits: HttpLimits) -> TestServer {
    TestServer::start_with(Options {
        settings: Some(Settings {
            pdf_pool: PdfPoolSettings {
                capacity: 1,
                ..PdfPoolSettings::default()
            },
            ..Settings::default()
        }),
        limits: Some(limits),
        spool_dir: Some(dir.to_path_buf()),
        ..Options::default()
    })
    .await
}

/// A JSON create body around a PDF of about `size` bytes (`seed` makes each one its own).
fn json_upload(size: usize, seed: u64) -> Vec<u8> {
    let pdf = padded(&client_contract(), size, seed);
    serde_json::to_vec(&envelope_body(&pdf, client_signer())).unwrap()
}

/// A multipart create body around a PDF of about `size` bytes.
fn multipart_upload(size: usize, seed: u64) -> (String, Vec<u8>) {
    let pdf = padded(&client_contract(), size, seed);
    let mut body = b"--b0und\r\nContent-Disposition: form-data; name=\"signers\"\r\n\r\n\
        [{\"name\":\"Ada\",\"email\":\"ada@example.com\",\"role\":\"Client\"}]\r\n\
        --b0und\r\nContent-Disposition: form-data; name=\"file\"; filename=\"c.pdf\"\r\n\
        Content-Type: application/pdf\r\n\r\n"
        .to_vec();
    body.extend_from_slice(&pdf);
    body.extend_from_slice(b"\r\n--b0und--\r\n");
    ("multipart/form-data; boundary=b0und".into(), body)
}

/// An answer read off the socket.
#[derive(Debug)]
struct Answer {
    status: u16,
    retry_after: Option<String>,
    body: serde_json::Value,
}

/// A client like Python's `http.client`: it sends the head and the whole body (in 64 KiB
/// writes; after the first half it waits at `halfway` when given), and only then reads the
/// answer. A server that answers and closes before the body is in makes a write fail: that
/// is the unreadable refusal this file guards against.
async fn post_whole_body_then_read(
    s: &TestServer,
    key: &str,
    content_type: &str,
    body: &[u8],
    halfway: Option<Arc<Barrier>>,
) -> Answer {
    let addr = s.base.trim_start_matches("http://");
    let mut c = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /v1/envelopes HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        key,
        body.len()
    );
    c.write_all(head.as_bytes()).await.unwrap();
    let (first, second) = body.split_at(body.len() / 2);
    for (i, half) in [first, second].into_iter().enumerate() {
        if i == 1
            && let Some(b) = &halfway
        {
            b.wait().await;
        }
        for chunk in half.chunks(64 * 1024) {
            c.write_all(chunk)
                .await
                .unwrap_or_else(|e| panic!("the client could not send its whole body: {e}"));
        }
    }
    let mut raw = Vec::new();
    c.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a whole answer");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let retry_after = head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case("retry-after")
            .then(|| v.trim().to_string())
    });
    Answer {
        status,
        retry_after,
        body: serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}")),
    }
}

/// Files of this process open in `dir`: spool files have no name, only a descriptor.
fn open_spool_files(dir: &Path) -> usize {
    if cfg!(not(target_os = "linux")) {
        return 0;
    }
    let dir = dir.canonicalize().unwrap();
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|target| target.starts_with(&dir))
        .count()
}

/// Waits (at most about 30 s, then fails) until `done` holds.
async fn until(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..3000 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("never came to pass: {what}");
}

/// Everything a finished upload could leave: the spool empty and its budget whole, no open
/// spool file.
async fn spool_is_clean(s: &TestServer, dir: &Path) {
    until("the spool budget is whole again", || {
        s.app.upload_spool_reserved() == 0
    })
    .await;
    until("no spool file is open", || open_spool_files(dir) == 0).await;
    let left: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

async fn envelope_count(s: &TestServer) -> usize {
    let list = s.get(&s.test_key, "/v1/envelopes?limit=100").await.ok(200);
    list["data"].as_array().unwrap().len()
}

#[tokio::test]
async fn many_uploads_of_one_account_arrive_at_once_and_all_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let s = spool_server(dir.path(), HttpLimits::for_max_file(25 * 1024 * 1024)).await;
    const N: usize = 12;
    let bodies: Vec<Vec<u8>> = (0..N as u64)
        .map(|i| json_upload(1_500_000, i + 1))
        .collect();
    let spooled: usize = bodies.iter().map(Vec::len).sum();
    let halfway = Arc::new(Barrier::new(N + 1));
    let s = Arc::new(s);
    let tasks: Vec<_> = bodies
        .into_iter()
        .map(|body| {
            let (s, halfway) = (s.clone(), halfway.clone());
            tokio::spawn(async move {
                post_whole_body_then_read(&s, &s.test_key, "application/json", &body, Some(halfway))
                    .await
            })
        })
        .collect();
    // Every upload is arriving at once, each with its own spool file, while one PDF worker
    // takes them into memory one at a time.
    until("every upload is spooling", || {
        s.app.upload_spool_reserved() >= spooled
    })
    .await;
    if cfg!(target_os = "linux") {
        until("one open spool file per upload", || {
            open_spool_files(dir.path()) == N
        })
        .await;
    }
    halfway.wait().await;
    for t in tasks {
        let a = t.await.unwrap();
        assert_eq!(a.status, 201, "{a:?}");
    }
    assert_eq!(envelope_count(&s).await, N);
    spool_is_clean(&s, dir.path()).await;
}

/// Asserts a `503 service_busy` with a `Retry-After` of whole seconds.
#[track_caller]
fn assert_busy(a: &Answer) {
    assert_eq!(
        (a.status, &a.body["code"]),
        (503, &"service_busy".into()),
        "{a:?}"
    );
    let secs: u64 = a.retry_after.as_deref().unwrap_or("").parse().unwrap_or(0);
    assert!(secs >= 1, "Retry-After: {a:?}");
}

#[tokio::test]
async fn past_small_budgets_uploads_get_201s_and_readable_503s_and_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let body = json_upload(1_000_000, 7);
    let mut limits = HttpLimits::for_max_file(25 * 1024 * 1024);
    // Three bodies of spool, so one account holds one at a time.
    limits.max_upload_spool = 3 * body.len();
    limits.upload_wait = Duration::from_millis(200);
    let s = Arc::new(spool_server(dir.path(), limits).await);

    // One upload holds the account's share while it arrives: the others are refused before
    // their bodies are read, and read their answers all the same.
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let holder = {
        let (s, body) = (s.clone(), body.clone());
        let halfway = Arc::new(Barrier::new(2));
        let task = {
            let halfway = halfway.clone();
            tokio::spawn(async move {
                post_whole_body_then_read(&s, &s.test_key, "application/json", &body, Some(halfway))
                    .await
            })
        };
        tokio::spawn(async move {
            let _ = rx.await;
            halfway.wait().await;
        });
        task
    };
    until("the first upload holds the share", || {
        s.app.upload_spool_reserved() > 0
    })
    .await;
    // Their bodies are larger than the sockets' buffers: a server that answered and closed
    // with them unread would make the clients' writes fail.
    let large = Arc::new(vec![b' '; 20 << 20]);
    let refused: Vec<_> = (0..5)
        .map(|_| {
            let (s, large) = (s.clone(), large.clone());
            tokio::spawn(async move {
                post_whole_body_then_read(&s, &s.test_key, "application/json", &large, None).await
            })
        })
        .collect();
    for t in refused {
        assert_busy(&t.await.unwrap());
    }
    tx.send(()).unwrap();
    let a = holder.await.unwrap();
    assert_eq!(a.status, 201, "{a:?}");

    // A free burst: whatever the order, every answer is a 201 or a readable 503.
    const N: usize = 8;
    let burst: Vec<_> = (0..N)
        .map(|_| {
            let (s, body) = (s.clone(), body.clone());
            tokio::spawn(async move {
                post_whole_body_then_read(&s, &s.test_key, "application/json", &body, None).await
            })
        })
        .collect();
    let mut created = 1;
    for t in burst {
        let a = t.await.unwrap();
        if a.status == 201 {
            created += 1;
        } else {
            assert_busy(&a);
        }
    }
    assert!(
        created >= 2,
        "the burst's first upload found the budget free"
    );
    assert_eq!(
        envelope_count(&s).await,
        created,
        "every 201 is an envelope"
    );
    spool_is_clean(&s, dir.path()).await;
}

#[tokio::test]
async fn an_upload_cut_mid_body_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let s = spool_server(dir.path(), HttpLimits::for_max_file(25 * 1024 * 1024)).await;
    let (multipart_type, multipart) = multipart_upload(2_000_000, 3);
    for (content_type, body) in [
        ("application/json".to_string(), json_upload(2_000_000, 2)),
        (multipart_type, multipart),
    ] {
        let addr = s.base.trim_start_matches("http://");
        let mut c = TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "POST /v1/envelopes HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {}\r\n\
             Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            s.test_key,
            body.len()
        );
        c.write_all(head.as_bytes()).await.unwrap();
        c.write_all(&body[..body.len() / 2]).await.unwrap();
        // The upload is in the spool: its reservation taken, its file open.
        until("the upload holds spool", || {
            s.app.upload_spool_reserved() > 0
        })
        .await;
        if cfg!(target_os = "linux") {
            until("its spool file is open", || {
                open_spool_files(dir.path()) == 1
            })
            .await;
        }
        drop(c);
        spool_is_clean(&s, dir.path()).await;
    }
    assert_eq!(envelope_count(&s).await, 0, "no envelope");
    assert_eq!(
        s.svc.admin().storage_used(&s.account).await.unwrap(),
        0,
        "no blob"
    );
}

#[tokio::test]
async fn an_upload_of_the_wrong_type_reads_its_415() {
    let dir = tempfile::tempdir().unwrap();
    let s = spool_server(dir.path(), HttpLimits::for_max_file(25 * 1024 * 1024)).await;
    let a =
        post_whole_body_then_read(&s, &s.test_key, "text/plain", &vec![b'x'; 20 << 20], None).await;
    assert_eq!(a.status, 415, "{a:?}");
    assert_eq!(a.body["code"], "unsupported_media_type", "{a:?}");
    spool_is_clean(&s, dir.path()).await;
}

#[tokio::test]
async fn an_upload_refused_before_its_body_is_read_reads_its_401_and_429() {
    let dir = tempfile::tempdir().unwrap();
    let s = spool_server(dir.path(), HttpLimits::for_max_file(25 * 1024 * 1024)).await;
    let body = vec![b'x'; 20 << 20];
    // A key that does not exist: refused before anything else, the whole body still sent.
    let a = post_whole_body_then_read(&s, "sk_test_unknown", "application/json", &body, None).await;
    assert_eq!(a.status, 401, "{a:?}");
    assert_eq!(a.body["code"], "invalid_api_key", "{a:?}");
    // A key past its rate limit: 429 with Retry-After, readable too.
    let limited = TestServer::start_with(Options {
        settings: Some(Settings {
            rate_limit_per_minute: 1,
            ..Settings::default()
        }),
        limits: Some(HttpLimits::for_max_file(25 * 1024 * 1024)),
        spool_dir: Some(dir.path().to_path_buf()),
        ..Options::default()
    })
    .await;
    limited
        .get(&limited.test_key, "/v1/envelopes")
        .await
        .ok(200);
    let a = post_whole_body_then_read(&limited, &limited.test_key, "application/json", &body, None)
        .await;
    assert_eq!(a.status, 429, "{a:?}");
    assert_eq!(a.body["code"], "rate_limited", "{a:?}");
    assert!(a.retry_after.is_some(), "{a:?}");
    spool_is_clean(&s, dir.path()).await;
    assert_eq!(envelope_count(&s).await, 0);
}

/// A stranger cannot hold the server with a refused upload: one that announces a body over the
/// limit is answered without a byte of it read, and one that stops sending mid-body is answered
/// and closed once its silence passes the lingering bound (5 s, `request.rs::linger`; the
/// durations are the server's, this test only shows that the connection is not held).
#[tokio::test]
async fn a_refused_upload_that_stalls_or_is_oversized_is_answered_and_closed() {
    let dir = tempfile::tempdir().unwrap();
    let s = spool_server(dir.path(), HttpLimits::for_max_file(25 * 1024 * 1024)).await;
    let addr = s.base.trim_start_matches("http://").to_string();
    let answer_to = async |length: usize, sent: usize| {
        let mut c = TcpStream::connect(&addr).await.unwrap();
        let head = format!(
            "POST /v1/envelopes HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer sk_test_nobody\r\n\
             Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
        );
        c.write_all(head.as_bytes()).await.unwrap();
        c.write_all(&vec![b' '; sent]).await.unwrap();
        // Nothing more is sent; the answer must come and the connection end.
        let mut raw = Vec::new();
        c.read_to_end(&mut raw).await.unwrap();
        String::from_utf8_lossy(&raw).into_owned()
    };
    let oversized = answer_to(1 << 30, 0).await;
    assert!(oversized.starts_with("HTTP/1.1 401"), "{oversized}");
    let stalled = answer_to(20 << 20, 64 * 1024).await;
    assert!(stalled.starts_with("HTTP/1.1 401"), "{stalled}");
    assert!(stalled.contains("invalid_api_key"), "{stalled}");
}
