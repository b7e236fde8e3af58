//! A Python client generated from the served document (`openapi-python-client` from PyPI, into
//! a temporary directory: nothing generated is committed) drives an envelope from a PDF to its
//! signed copy (`python/drive_client.py`). This proves that the document is usable, not only
//! valid.

use std::path::Path;
use std::process::Command;

use crate::common::TestServer;
use crate::common::pdf::client_contract;
use crate::tools;

/// `application/pdf` answers and page pictures (`image/png`) are bytes to the generator (it
/// parses only JSON and `application/octet-stream` by itself).
const CONFIG: &str = "content_type_overrides:\n  application/pdf: application/octet-stream\n  \
                      image/png: application/octet-stream\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generated_python_client_signs_an_envelope() {
    let test = "a_generated_python_client_signs_an_envelope";
    if !tools::command("openapi-python-client", test) || !tools::python_module("httpx", test) {
        return;
    }
    let s = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let doc = s.send(s.client.get(s.url("/v1/openapi.json"))).await;
    assert_eq!(doc.status, 200);
    std::fs::write(dir.path().join("openapi.json"), &doc.body).unwrap();
    std::fs::write(dir.path().join("config.yaml"), CONFIG).unwrap();
    std::fs::write(dir.path().join("contract.pdf"), client_contract()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/openapi/python/drive_client.py");
    let (base, key) = (s.base.clone(), s.test_key.clone());
    let root = dir.path().to_path_buf();
    let (generated, driven) = tokio::task::spawn_blocking(move || {
        let generated = Command::new("openapi-python-client")
            .current_dir(&root)
            .args([
                "generate",
                "--path",
                "openapi.json",
                "--config",
                "config.yaml",
                "--meta",
                "none",
                "--output-path",
                "envelope_client",
            ])
            .output()
            .unwrap();
        if !generated.status.success() {
            return (generated, None);
        }
        let driven = Command::new("python3")
            .current_dir(&root)
            .env("PYTHONPATH", &root)
            .arg(&script)
            .args([&base, &key, "contract.pdf"])
            .output()
            .unwrap();
        (generated, Some(driven))
    })
    .await
    .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let gen_out = format!("{}{}", text(&generated.stdout), text(&generated.stderr));
    assert!(generated.status.success(), "generation failed:\n{gen_out}");
    assert!(
        !gen_out.contains("Warning"),
        "the generator left parts of the document out:\n{gen_out}"
    );
    let driven = driven.unwrap();
    println!("{}", text(&driven.stdout));
    assert!(
        driven.status.success(),
        "the generated client failed:\n{}\n{}",
        text(&driven.stdout),
        text(&driven.stderr)
    );
    assert!(text(&driven.stdout).contains("signed PDF:"));
}
