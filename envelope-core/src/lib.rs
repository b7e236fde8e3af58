//! envelope-core: an embeddable e-signature engine.
//!
//! The crate owns the whole domain of the Envelope Signing Service: envelopes, signers,
//! templates, fields, events, webhooks, accounts and keys, the state machines and limits, and the
//! PDF engine. It knows nothing about HTTP: [`SigningService`] takes typed parameters and returns
//! domain values or an [`Error`] whose [`Error::code`] is the stable code of the API.
//!
//! ```
//! # tokio_test_block_on(async {
//! use envelope_core::SigningService;
//! let svc = SigningService::builder().build(); // in-memory store, mailer and webhook sink
//! let acct = svc.admin().create_account("Acme").await.unwrap();
//! let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
//! assert_eq!(svc.account(&ctx).await.unwrap().livemode, false);
//! # });
//! # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
//! # }
//! ```
//!
//! Parameters are built in Rust with [`CreateEnvelope`], [`CreateTemplate`], [`FieldSpec`] and
//! [`SignInput`] (the server parses the same types from JSON); a [`SigningLink`] carries the
//! token that opens the signer's side. [`service::builders`] runs a whole envelope.
//!
//! Seams: [`Store`] and [`BlobStore`] (records and bytes), [`Mailer`], [`WebhookSink`], [`Clock`].
#![forbid(unsafe_code)]

pub mod clock;
pub mod error;
pub mod field;
pub mod i18n;
pub mod ids;
pub mod mail;
pub mod model;
pub mod pdf;
pub mod render;
pub mod rules;
pub mod seal;
pub mod service;
pub mod store;
pub mod webhook;

pub use clock::{Clock, ManualClock, SystemClock, Timestamp};
pub use error::{Error, ErrorKind, Result};
pub use mail::{Mailer, MemoryMailer};
pub use model::Mode;
pub use service::{
    AuthContext, CreateEnvelope, CreateTemplate, FieldSpec, Limits, Settings, SignInput,
    SigningLink, SigningService, SigningServiceBuilder, Upload,
};
pub use store::{BlobStore, MemoryBlobStore, MemoryStore, Store};
pub use webhook::{MemorySink, WebhookSink};
