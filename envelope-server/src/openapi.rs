//! The OpenAPI 3.1 document of the API, `docs/openapi.json`, served at `GET /v1/openapi.json`.
//!
//! The document is a checked-in file, embedded as it is: it reads as the reference it is, diffs
//! show every change of the interface, and no build step stands between it and the binary.
//! It is kept true by tests, not by hand (docs/OPENAPI.md): the route-coverage test below holds
//! it to the router in both directions, `tests/openapi` validates real responses of the running
//! server against its schemas and runs schemathesis and a generated client against it.
//!
//! This module must never build or change the document at run time: what is served is the file.

use bytes::Bytes;
use hyper::header::{self, HeaderValue};
use hyper::{Method, StatusCode};

use crate::error::ApiError;
use crate::response::Reply;

/// The document, byte for byte as in `docs/openapi.json`.
pub const DOCUMENT: &str = include_str!("../../docs/openapi.json");

/// Operations the document describes outside [`crate::router::Route`]: they need no API key and
/// are answered before authentication (`request.rs`).
pub const OUTSIDE_ROUTER: [&str; 4] = [
    "GET /v1/openapi.json",
    "GET /files/{token}",
    "GET /healthz",
    "GET /readyz",
];

/// Paths the document leaves out on purpose: the signer's HTML pages, their form posts, the
/// builder page and their static assets are for browsers, not API clients (docs/SIGNING.md and
/// docs/BUILDER.md describe them).
pub const UNDESCRIBED_PREFIXES: [&str; 3] = ["/sign/", "/build/", "/assets/"];

/// `GET /v1/openapi.json`: no API key, cacheable for a few minutes (it changes only with the
/// binary).
pub fn document(method: &Method) -> Result<Reply, ApiError> {
    if method != Method::GET {
        return Err(ApiError::MethodNotAllowed { allow: "GET" });
    }
    let mut reply = Reply::raw_json(StatusCode::OK, Bytes::from_static(DOCUMENT.as_bytes()));
    reply.headers.push((
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=300"),
    ));
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use hyper::Method;
    use serde_json::Value;

    use super::*;
    use crate::router::{Route, resolve};

    fn document_operations() -> BTreeSet<String> {
        let doc: Value = serde_json::from_str(DOCUMENT).expect("docs/openapi.json is JSON");
        let mut ops = BTreeSet::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for method in [
                "get", "post", "patch", "put", "delete", "head", "options", "trace",
            ] {
                if item.get(method).is_some() {
                    ops.insert(format!("{} {path}", method.to_uppercase()));
                }
            }
        }
        ops
    }

    /// Every route of the router is in the document, and every operation of the document is a
    /// route (or one of the few served outside the router, listed in [`OUTSIDE_ROUTER`]).
    #[test]
    fn the_document_and_the_router_name_the_same_operations() {
        let documented = document_operations();
        let routed: BTreeSet<String> = Route::all()
            .iter()
            .map(|r| r.template().to_string())
            .collect();
        for route in &routed {
            assert!(
                documented.contains(route),
                "{route} is not in docs/openapi.json"
            );
        }
        for op in &documented {
            if OUTSIDE_ROUTER.contains(&op.as_str()) {
                continue;
            }
            assert!(
                routed.contains(op),
                "docs/openapi.json describes {op}, which no route serves"
            );
            // The router itself, not only the list of routes, must take it.
            let (method, path) = op.split_once(' ').unwrap();
            let segments: Vec<&str> = path
                .strip_prefix("/v1/")
                .unwrap_or_else(|| panic!("{op}: API paths start with /v1/"))
                .split('/')
                .map(|s| if s.starts_with('{') { "x_1" } else { s })
                .collect();
            let route = resolve(&method.parse::<Method>().unwrap(), &segments)
                .unwrap_or_else(|e| panic!("{op} does not resolve: {e:?}"));
            assert_eq!(route.template(), op);
        }
        for op in OUTSIDE_ROUTER {
            assert!(documented.contains(op), "{op} is not in docs/openapi.json");
        }
        for op in &documented {
            let path = op.split_once(' ').unwrap().1;
            assert!(
                !UNDESCRIBED_PREFIXES.iter().any(|p| path.starts_with(p)),
                "{op}: the signing pages are left out of the document on purpose"
            );
        }
    }

    #[test]
    fn the_served_document_is_the_file() {
        let reply = document(&Method::GET).unwrap();
        assert_eq!(reply.body, DOCUMENT.as_bytes());
        assert_eq!(reply.content_type, "application/json");
        assert!(matches!(
            document(&Method::POST),
            Err(ApiError::MethodNotAllowed { allow: "GET" })
        ));
    }
}
