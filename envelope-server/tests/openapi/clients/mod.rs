//! The client libraries in `clients/` (TypeScript and Python, generated from docs/openapi.json
//! by clients/generate.sh, each with a hand-written webhook verifier) against one real server
//! that this module's tests share (started on first use, on a runtime of its own, so that the
//! plain `#[test]`s below can block on `node` and `python3`):
//! - `fresh`: the committed generated code is what the pinned generators make now;
//! - `vectors`: the webhook signature cases that both verifiers are unit-tested on are
//!   envelope-core's own answers;
//! - `typescript`, `python`: each library compiled/imported as published, its unit tests, and
//!   its quick start against the server (template, envelope, completion, download), with the
//!   `envelope.completed` webhook delivered to a receiver in that language, verified there, and
//!   a tampered copy refused.

mod fresh;
mod python;
mod typescript;
mod vectors;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, LazyLock};

use envelope_core::Settings;
use envelope_core::service::WorkerSettings;
use envelope_core::webhook::{HttpSink, UrlRules};

use crate::common::{Options, TestServer};

/// What a client needs to reach the shared server.
pub struct Shared {
    pub base: String,
    pub test_key: String,
    /// examples/contract.pdf (a `Client`, a `Provider` and a sender data field `start_date`),
    /// which the quick starts are written for.
    pub pdf: PathBuf,
}

/// The shared server: in-memory stores, webhooks delivered over plain HTTP to 127.0.0.1 (the
/// receivers the client tests start), a worker sending them. It lives until the test binary
/// exits.
pub static SERVER: LazyLock<Shared> = LazyLock::new(|| {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("clients-server".into())
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let rules = UrlRules {
                    allow_insecure: true,
                };
                let s = TestServer::start_with(Options {
                    settings: Some(Settings {
                        allow_insecure_webhook_urls: true,
                        ..Settings::default()
                    }),
                    sink: Some(Arc::new(HttpSink::new(rules, "Envelope"))),
                    ..Options::default()
                })
                .await;
                let worker = s.svc.webhook_worker(WorkerSettings::default());
                let shared = Shared {
                    base: s.base.clone(),
                    test_key: s.test_key.clone(),
                    pdf: Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/contract.pdf"),
                };
                tx.send(shared).unwrap();
                worker.run(std::future::pending::<()>()).await;
                drop(s);
            });
        })
        .unwrap();
    rx.recv().expect("the shared server starts")
});

/// `clients/` of the repository.
pub fn clients_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../clients")
}

/// Runs `cmd` to its end and returns what it printed (stdout, then stderr); panics with all of
/// it when it fails.
#[track_caller]
pub fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{text}",
        out.status
    );
    text
}

/// True when `clients/typescript/node_modules` holds the pinned tools; otherwise as
/// `tools::command` (fails under CI=true, skips with the reason elsewhere).
pub fn typescript_tools(test: &str) -> bool {
    let bin = clients_dir().join("typescript/node_modules/.bin");
    let found = bin.join("tsc").exists() && bin.join("openapi-ts").exists();
    found
        || crate::tools::missing(
            "the TypeScript client's dev dependencies (npm ci in clients/typescript)",
            test,
        )
}
