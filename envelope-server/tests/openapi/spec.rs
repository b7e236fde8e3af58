//! The document as the server serves it passes an OpenAPI 3.1 validator
//! (`openapi-spec-validator` from PyPI), fetched over HTTP without an API key.

use std::process::Command;

use crate::common::TestServer;
use crate::tools;

const VALIDATE: &str = r#"
import json, sys, urllib.request
from openapi_spec_validator import OpenAPIV31SpecValidator
with urllib.request.urlopen(sys.argv[1]) as r:
    assert r.status == 200, r.status
    spec = json.load(r)
OpenAPIV31SpecValidator(spec).validate()
print(f"valid OpenAPI {spec['openapi']}: {len(spec['paths'])} paths, {len(spec['webhooks'])} webhooks")
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_served_document_is_valid_openapi_3_1() {
    let test = "the_served_document_is_valid_openapi_3_1";
    if !tools::python_module("openapi_spec_validator", test) {
        return;
    }
    let s = TestServer::start().await;
    let url = s.url("/v1/openapi.json");
    let out = tokio::task::spawn_blocking(move || {
        Command::new("python3")
            .args(["-c", VALIDATE, &url])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "openapi-spec-validator refused the document:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{stdout}");
    assert!(stdout.contains("valid OpenAPI 3.1"));
}
