//! Webhooks: the [`WebhookSink`] seam, request signing and verification, URL rules, the retry
//! schedule and the categories an attempt's failure may name.
//!
//! The seam only transports and checks: the worker that claims deliveries from the store,
//! sends them through a sink and records the attempts is the service's
//! ([`WebhookWorker`](crate::service::WebhookWorker)). Nothing here reads or writes the store.
//!
//! | sink | use |
//! |---|---|
//! | [`MemorySink`] | tests: records requests, answers with a chosen status |
//!
//! Signatures follow Stripe's scheme (decisions.md): `Service-Signature: t=<unix>,v1=<hex
//! HMAC-SHA256(secret, "<t>.<body>")>`, so any Stripe-compatible verifier accepts them.

mod failure;
#[cfg(feature = "https")]
mod http;
mod schedule;
mod signature;
mod url_rules;

use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;

pub use failure::DeliveryFailure;
#[cfg(feature = "https")]
pub use http::{CheckedResolver, HttpSink};
pub use schedule::{RetrySchedule, ScheduleError};
pub use signature::{SignatureError, sign, signature_header, verify};
pub use url_rules::{UrlRules, address_allowed, check_url, is_public, resolve_checked};

use crate::error::BoxError;

/// The name of the signature header.
pub const SIGNATURE_HEADER: &str = "Service-Signature";

/// One POST to an endpoint.
#[derive(Debug, Clone)]
pub struct WebhookRequest {
    /// The endpoint's URL, to POST to.
    pub url: String,
    /// The JSON body: the event object, exactly as signed.
    pub body: Bytes,
    /// Value of [`SIGNATURE_HEADER`].
    pub signature: String,
    /// The ID of the event delivered, for logs and for receivers that deduplicate.
    pub event_id: String,
    /// How long the whole attempt may take before it counts as failed.
    pub timeout: Duration,
}

/// What the receiver answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookResponse {
    /// The HTTP status the receiver answered; 2xx counts as delivered.
    pub status: u16,
}

/// Transports webhook requests.
///
/// Contract: `deliver` makes one attempt, follows no redirects, gives up after
/// `request.timeout`, and reports the receiver's status (any status, 2xx or not) as `Ok`; `Err`
/// is for failures to get a status (DNS, connect, TLS, timeout, refused address). It never
/// retries by itself: the schedule belongs to the caller.
#[async_trait]
pub trait WebhookSink: Send + Sync + 'static {
    /// Makes one POST attempt and reports the status the receiver answered, 2xx or not; `Err` only
    /// when no status was got (DNS, connect, TLS, timeout, refused address).
    async fn deliver(&self, request: &WebhookRequest) -> Result<WebhookResponse, BoxError>;
}

/// Records requests and answers with a fixed status.
#[derive(Debug)]
pub struct MemorySink {
    status: u16,
    requests: Mutex<Vec<WebhookRequest>>,
}

impl Default for MemorySink {
    fn default() -> Self {
        MemorySink {
            status: 200,
            requests: Mutex::new(Vec::new()),
        }
    }
}

impl MemorySink {
    /// A sink whose receiver always answers 200.
    pub fn new() -> Self {
        Self::default()
    }
    /// A sink whose receiver always answers `status`.
    pub fn answering(status: u16) -> Self {
        MemorySink {
            status,
            requests: Mutex::new(Vec::new()),
        }
    }
    /// Every request delivered so far, in order.
    pub fn requests(&self) -> Vec<WebhookRequest> {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

#[async_trait]
impl WebhookSink for MemorySink {
    async fn deliver(&self, request: &WebhookRequest) -> Result<WebhookResponse, BoxError> {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(request.clone());
        Ok(WebhookResponse {
            status: self.status,
        })
    }
}
