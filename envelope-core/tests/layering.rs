//! Invariant 1 of docs/ARCHITECTURE.md: the core knows nothing of the HTTP API.
//!
//! The core is an HTTP *client* in exactly two places, behind the `https` feature: the webhook
//! sink and the timestamp authority client. Nothing else in it names hyper or its companions,
//! and nothing in it names an HTTP status code: the mapping of errors to statuses is the
//! server's (envelope-server/src/error.rs).

use std::path::{Path, PathBuf};

/// The only files of the core that may name the HTTP stack.
const HTTP_CLIENTS: [&str; 2] = ["webhook/http.rs", "seal/http_tsa.rs"];

/// Crate names of the HTTP stack, as they appear in Rust paths.
const HTTP_CRATES: [&str; 5] = [
    "hyper::",
    "hyper_util",
    "hyper_rustls",
    "http_body_util",
    "tower_service",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn core_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(files.len() > 50, "the core's sources were found");
    files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn only_the_two_http_clients_name_the_http_stack() {
    let mut found = Vec::new();
    for (file, text) in core_sources() {
        for name in HTTP_CRATES {
            if text.contains(name) {
                found.push(format!("{file} names {name}"));
            }
        }
    }
    let outside: Vec<_> = found
        .iter()
        .filter(|f| !HTTP_CLIENTS.iter().any(|c| f.starts_with(&format!("{c} "))))
        .collect();
    assert!(outside.is_empty(), "{outside:#?}");
    // And the two do use it (the check above would pass on a renamed file).
    for client in HTTP_CLIENTS {
        assert!(
            found.iter().any(|f| f.starts_with(&format!("{client} "))),
            "{client} was moved: update HTTP_CLIENTS and invariant 1"
        );
    }
}

#[test]
fn the_core_has_no_status_codes() {
    for (file, text) in core_sources() {
        assert!(
            !text.contains("StatusCode"),
            "{file} names StatusCode: statuses are the server's"
        );
    }
    // The errors carry kinds and codes; no number in their module's code is a status.
    let error = core_sources()
        .into_iter()
        .find(|(f, _)| f == "error.rs")
        .unwrap()
        .1;
    for (n, line) in error.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let status = code
            .split(|c: char| !c.is_ascii_digit())
            .find(|w| w.len() == 3 && (w.starts_with('4') || w.starts_with('5')));
        assert!(
            status.is_none(),
            "error.rs:{} has the number {status:?}: the status of an error kind is the server's",
            n + 1
        );
    }
}
