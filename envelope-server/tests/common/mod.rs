//! Test support: the real server on 127.0.0.1:0 through `envelope_server::run`, a reqwest
//! client, and hand-made PDFs.
#![allow(dead_code)]

pub use envelope_testkit::textpdf as pdf;
pub mod signing;

use std::sync::Arc;

use base64::Engine;
use bytes::Bytes;
use reqwest::header::HeaderMap;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use envelope_core::{Clock, Mailer, Settings, SigningService};
use envelope_server::{App, HttpLimits, PageSettings, run};

/// How to start a server.
#[derive(Default)]
pub struct Options {
    pub settings: Option<Settings>,
    pub limits: Option<HttpLimits>,
    pub clock: Option<Arc<dyn Clock>>,
    pub mailer: Option<Arc<dyn Mailer>>,
    pub pages: Option<PageSettings>,
    pub sealer: Option<Arc<dyn envelope_core::seal::Sealer>>,
    /// Test mode's sealer; `None`: the core's ephemeral test-mode identity.
    pub test_sealer: Option<Arc<dyn envelope_core::seal::Sealer>>,
    /// Seal nothing (the builder's `unsealed()`); default: the builder's default sealing.
    pub unsealed: bool,
    /// `--trusted-proxies` of the server (none by default).
    pub trusted_proxies: Option<envelope_server::TrustedProxies>,
    /// Limits of the page renderer (the server binary's `render-page` worker, as `serve`
    /// starts it); `None` is its defaults.
    pub render_limits: Option<envelope_core::render::RenderLimits>,
    /// Where uploads are spooled; `None`: the system's temporary directory.
    pub spool_dir: Option<std::path::PathBuf>,
    /// Where webhooks go; `None`: the builder's default (a `MemorySink`).
    pub sink: Option<Arc<dyn envelope_core::WebhookSink>>,
    /// The store and blob store; `None`: the in-memory ones.
    pub store: Option<(
        Arc<dyn envelope_core::Store>,
        Arc<dyn envelope_core::BlobStore>,
    )>,
}

/// The page renderer `serve` sets: this package's binary, started as its worker.
pub fn renderer(
    limits: Option<envelope_core::render::RenderLimits>,
) -> Arc<envelope_core::render::ProcessRenderer> {
    let r = envelope_core::render::ProcessRenderer::new(
        env!("CARGO_BIN_EXE_envelope-server"),
        ["render-page"],
    );
    Arc::new(match limits {
        Some(l) => r.with_limits(l),
        None => r,
    })
}

/// A running server with one account.
pub struct TestServer {
    pub base: String,
    pub svc: SigningService,
    pub client: reqwest::Client,
    pub account: envelope_core::AccountId,
    pub test_key: String,
    pub live_key: String,
    /// The app being served (a clone: its budgets are shared with the server's).
    pub app: App,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

/// A response, read whole.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    }

    /// Asserts a success status and returns the JSON body.
    #[track_caller]
    pub fn ok(&self, status: u16) -> Value {
        assert_eq!(
            self.status,
            status,
            "body: {}",
            String::from_utf8_lossy(&self.body)
        );
        self.json()
    }

    /// Asserts an error of the flat shape of decisions.md and returns its body.
    #[track_caller]
    pub fn error(&self, status: u16, code: &str) -> Value {
        let b = self.json();
        assert_eq!(
            (self.status, b["code"].as_str()),
            (status, Some(code)),
            "{b}"
        );
        assert_eq!(b["object"], "error");
        assert_eq!(b["status"], status);
        assert!(b["type"].is_string() && b["message"].is_string(), "{b}");
        assert!(b.get("param").is_some(), "param is always present: {b}");
        assert_eq!(
            b["request_id"].as_str(),
            self.header("service-request-id").as_deref(),
            "the body names the request"
        );
        b
    }
}

impl TestServer {
    pub async fn start() -> TestServer {
        TestServer::start_with(Options::default()).await
    }

    pub async fn start_with(opts: Options) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let mut settings = opts.settings.unwrap_or_default();
        settings.public_url = base.clone();
        let mut builder = SigningService::builder()
            .settings(settings)
            .renderer(renderer(opts.render_limits));
        if let Some(clock) = opts.clock {
            builder = builder.clock(clock);
        }
        if let Some(mailer) = opts.mailer {
            builder = builder.mailer(mailer);
        }
        if opts.unsealed {
            builder = builder.unsealed();
        }
        if let Some(sink) = opts.sink {
            builder = builder.webhook_sink(sink);
        }
        if let Some((store, blobs)) = opts.store {
            builder = builder.store(store).blobs(blobs);
        }
        if let Some(sealer) = opts.sealer {
            builder = builder.sealer(sealer);
        }
        if let Some(sealer) = opts.test_sealer {
            builder = builder.test_sealer(sealer);
        }
        let svc = builder.build();
        let acct = svc.admin().create_account("Test account").await.unwrap();
        let mut app = App::new(svc.clone());
        if let Some(limits) = opts.limits {
            app = app.with_limits(limits);
        }
        if let Some(pages) = opts.pages {
            app = app.with_pages(pages);
        }
        if let Some(proxies) = opts.trusted_proxies {
            app = app.with_trusted_proxies(proxies);
        }
        if let Some(dir) = opts.spool_dir {
            app = app.with_upload_spool_dir(dir);
        }
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(run(listener, app.clone(), async {
            let _ = rx.await;
        }));
        TestServer {
            base,
            svc,
            client: reqwest::Client::new(),
            account: acct.account.id.clone(),
            test_key: acct.test_key.secret.clone(),
            live_key: acct.live_key.secret.clone(),
            app,
            shutdown: Some(tx),
            task: Some(task),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn send(&self, req: reqwest::RequestBuilder) -> Resp {
        let res = req.send().await.expect("request failed");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let body = res.bytes().await.expect("body failed");
        Resp {
            status,
            headers,
            body,
        }
    }

    pub async fn get(&self, key: &str, path: &str) -> Resp {
        self.send(self.client.get(self.url(path)).bearer_auth(key))
            .await
    }

    pub async fn delete(&self, key: &str, path: &str) -> Resp {
        self.send(self.client.delete(self.url(path)).bearer_auth(key))
            .await
    }

    pub async fn post(&self, key: &str, path: &str, body: Value) -> Resp {
        self.send(
            self.client
                .post(self.url(path))
                .bearer_auth(key)
                .json(&body),
        )
        .await
    }

    /// A POST with no body and no Content-Type.
    pub async fn post_empty(&self, key: &str, path: &str) -> Resp {
        self.send(self.client.post(self.url(path)).bearer_auth(key))
            .await
    }

    pub async fn patch(&self, key: &str, path: &str, body: Value) -> Resp {
        self.send(
            self.client
                .patch(self.url(path))
                .bearer_auth(key)
                .json(&body),
        )
        .await
    }

    /// Creates a webhook endpoint (no PDF needed) and returns it.
    pub async fn endpoint(&self, key: &str, url: &str) -> Value {
        self.post(
            key,
            "/v1/webhook_endpoints",
            serde_json::json!({ "url": url }),
        )
        .await
        .ok(201)
    }

    /// Stops the server and waits for `run` to return.
    pub async fn shutdown(mut self) -> std::io::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        self.task.take().unwrap().await.unwrap()
    }
}

pub fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A JSON create body for an envelope from a PDF.
pub fn envelope_body(pdf: &[u8], signers: Value) -> Value {
    serde_json::json!({
        "file_base64": b64(pdf),
        "file_name": "contract.pdf",
        "signers": signers,
    })
}

pub fn client_signer() -> Value {
    serde_json::json!([{ "name": "Ada Lovelace", "email": "ada@example.com", "role": "Client" }])
}

/// The bytes of the envelope's file `kind` (`signed`, `audit_trail`), through its download link.
pub async fn file_bytes(s: &TestServer, id: &str, kind: &str) -> Vec<u8> {
    let link = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}/files/{kind}"))
        .await
        .ok(200);
    let r = s
        .client
        .get(link["url"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.bytes().await.unwrap().to_vec()
}

/// The text of the envelope's file `kind` (`signed`, `audit_trail`), as `pdftotext` reads it.
pub async fn file_text(s: &TestServer, id: &str, kind: &str) -> String {
    let bytes = file_bytes(s, id, kind).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("file.pdf");
    std::fs::write(&path, bytes).unwrap();
    let out = std::process::Command::new("pdftotext")
        .arg(&path)
        .arg("-")
        .output()
        .expect("pdftotext (scripts/install-test-deps.sh installs it)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
