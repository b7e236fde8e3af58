//! The OpenAPI document (`docs/openapi.json`, served at `GET /v1/openapi.json`) against the real
//! server on 127.0.0.1:0: real responses validated against its schemas (`responses`), the
//! served document validated as OpenAPI 3.1 by `openapi-spec-validator` (`spec`), schemathesis
//! probing every operation (`schemathesis`), and a Python client generated from it driving an
//! envelope from a PDF to its signed copy (`client`); and the committed client libraries of
//! `clients/` (TypeScript, Python) kept current and driven against one shared server, webhooks
//! included (`clients`). docs/OPENAPI.md explains each.

#[path = "../common/mod.rs"]
mod common;

mod check;
mod client;
mod clients;
mod responses;
mod schemathesis;
mod spec;
mod tools;
