//! envelope-core: an embeddable e-signature engine.
//!
//! The crate owns the whole domain of the Envelope Signing Service: envelopes, signers,
//! templates, fields, events, webhooks, accounts and keys, the state machines and limits, and the
//! PDF engine. It knows nothing about HTTP: [`SigningService`] takes typed parameters and returns
//! domain values or an [`Error`] whose [`Error::code`] is the stable code of the API.
//!
//! ```
//! # tokio_test_block_on(async {
//! use std::sync::Arc;
//! use envelope_core::SigningService;
//! use envelope_core::seal::{LocalSealer, SigningIdentity};
//! // The identity that seals signed PDFs: yours, from `SigningIdentity::from_pem(key, chain,
//! // password)` or `from_pkcs12`; here one made on the spot.
//! let seal = SigningIdentity::generate_development("Acme seal").unwrap().identity;
//! let svc = SigningService::builder() // in-memory store, mailer and webhook sink
//!     .sealer(Arc::new(LocalSealer::new(seal)))
//!     .build();
//! let acct = svc.admin().create_account("Acme").await.unwrap();
//! let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
//! assert_eq!(svc.account(&ctx).await.unwrap().livemode, false);
//! // Live documents carry your seal; test mode's have an identity of their own.
//! let live = svc.signing_certificate().unwrap();
//! assert!(live.subject.contains("Acme seal"));
//! # });
//! # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
//! # }
//! ```
//!
//! Embedding it takes five things:
//!
//! 1. **Build the service** with [`SigningService::builder`], giving it your seams: [`Store`] and
//!    [`BlobStore`] (records and bytes; memory, SQLite, PostgreSQL, a folder or S3), [`Mailer`],
//!    [`WebhookSink`], [`Clock`], and the `seal` and `render` seams for signed PDFs and page pictures.
//!    Sealing is your choice: [`SigningServiceBuilder::sealer`] with your identity, or
//!    [`SigningServiceBuilder::unsealed`]; told neither, the builder seals with an ephemeral
//!    development identity ([`service::DEVELOPMENT_SEAL`]) that no validator trusts, and warns.
//! 2. **Build parameters** with [`CreateEnvelope`], [`CreateTemplate`], [`FieldSpec`] and
//!    [`SignInput`] (the server parses the same types from JSON).
//! 3. **Name objects** by typed IDs: [`EnvelopeId`], [`TemplateId`], [`SignerId`], [`EventId`],
//!    [`WebhookEndpointId`]. `"env_...".parse::<EnvelopeId>()` checks the prefix, and a string
//!    that cannot name anything is the same [`Error`] as an unknown ID.
//! 4. **Sign**: a [`SigningLink`] carries the token that opens the signer's side
//!    ([`SigningService::open_signing_link`], [`SigningService::sign`]).
//! 5. **Run the background work** with one [`service::Maintenance`] task (emails, webhooks,
//!    expiry, retention).
//!
//! Every error has a stable [`Error::code`] and an [`ErrorKind`]; `examples/embed.rs` runs a
//! whole envelope with typed calls only. The PDF engine and the domain rules are internal; the
//! `internals` feature makes them public for benchmarks and fuzzing, with no stability promise.
//!
//! Names and values are drawn in every script the [`fonts`] cover: those compiled in, and Noto
//! Sans CJK where the machine has it ([`fonts::use_font_dirs`] says where to look).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod clock;
pub mod error;
pub mod field;
pub mod fonts;
pub mod formula;
pub mod i18n;
pub mod ids;
pub mod mail;
pub mod model;
// Ground level: files only their owner may read, for every part that writes into the data dir
// (stores, the mail file transport).
pub mod private_files;
// The internals are public only for the crate's own tests, benches and fuzzing, with no
// documentation promise beyond their module comments.
#[cfg(feature = "internals")]
#[allow(missing_docs)]
pub mod pdf;
#[cfg(not(feature = "internals"))]
pub(crate) mod pdf;
pub mod render;
#[cfg(feature = "internals")]
#[allow(missing_docs)]
pub mod rules;
#[cfg(not(feature = "internals"))]
pub(crate) mod rules;
pub mod seal;
pub mod service;
pub mod store;
pub mod webhook;

pub use clock::{Clock, ManualClock, SystemClock, Timestamp};
pub use error::{Error, ErrorKind, Result};
pub use ids::{
    AccountId, ApiKeyId, BulkSendId, DeliveryId, EmailId, EnvelopeId, EventId, RecipientId,
    SignerId, TemplateId, WebhookEndpointId,
};
pub use mail::{Mailer, MemoryMailer};
pub use model::Mode;
pub use service::{
    AuthContext, CreateEnvelope, CreateTemplate, FieldSpec, Limits, Settings, SignInput,
    SigningLink, SigningService, SigningServiceBuilder, Upload,
};
pub use store::{BlobStore, MemoryBlobStore, MemoryStore, Store};
pub use webhook::{MemorySink, WebhookSink};
