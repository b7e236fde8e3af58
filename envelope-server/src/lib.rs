//! envelope-server: the HTTP front of the Envelope Signing Service.
//!
//! A thin mapping layer over [`envelope_core::SigningService`]: parse the request, call the
//! service, write the response. It must never hold a business rule; a rule found here is a
//! layering bug that belongs in `envelope-core`.
//!
//! Layout (the shape of mini-redis):
//!
//! | module | what it does |
//! |---|---|
//! | [`server`] | [`run`]: accept loop, connection caps and their `503`, first-byte and idle timeouts, bounded shutdown |
//! | [`request`] | one request: ID, auth, rate limit, route, body, idempotency, log line |
//! | [`router`] | the route table, a `match` on path segments and method |
//! | [`openapi`] | the OpenAPI 3.1 document (`docs/openapi.json`), served at `GET /v1/openapi.json` |
//! | [`handlers`] | one arm per operation: parameters in, one core call, value out |
//! | [`body`] | body limits while streaming, JSON / multipart / query to `Params` |
//! | [`error`] | the one mapping of errors to statuses and error bodies |
//! | [`response`] | response constructors and the headers of every response |
//! | [`store`] | [`store::open_store`], the one way to open the store |
//! | [`signing_page`] | the signer's pages at `/sign/{token}`: HTML, form posts, CSP, form tokens |
//! | [`builder_page`] | the builder page at `/build/{token}` (extensions E11): fields placed on a template's or draft's pages |
//! | [`health`] | `/healthz`, `/readyz`, and stopping when the store fails for good |
//! | [`cli`] | the command line: [`cli::Cli`] parses the arguments and runs the command |
//! | [`serve`], [`admin`] | the `serve` command and the admin commands |
//! | [`blobs`] | `blobs copy`: the database's PDFs into an S3 bucket |
//! | [`signing`] | the sealer of `serve`: configured or development certificate, HTTP TSA |
//!
//! The binary (`main.rs`) only parses arguments with [`cli::Cli`] and runs the command on its
//! own runtime.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod address_limit;
pub mod admin;
pub mod app;
pub mod blobs;
pub mod body;
pub mod builder_page;
pub mod cli;
pub mod client_addr;
pub mod error;
pub mod handlers;
pub mod health;
pub mod metrics;
pub mod openapi;
pub mod preconditions;
pub mod request;
pub mod response;
pub mod router;
pub mod serve;
pub mod server;
pub mod signing;
pub mod signing_page;
pub mod store;

pub use app::{App, ConnectionLimits, HttpLimits};
pub use client_addr::{ClientIpHeader, TrustedProxies};
pub use server::run;
pub use signing_page::{FrameAncestors, PageSecret, PageSettings};
