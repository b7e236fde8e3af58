//! Webhook endpoints and the delivery outbox.

use serde::{Deserialize, Serialize};

use super::Mode;
use crate::clock::Timestamp;
use crate::ids::WebhookEndpointId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EndpointStatus {
    Enabled,
    Disabled,
}

/// The wire endpoint of decisions.md; `secret` only in the create response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebhookEndpoint {
    pub id: WebhookEndpointId,
    pub object: String,
    pub url: String,
    pub events: Vec<String>,
    pub description: Option<String>,
    pub livemode: bool,
    pub status: EndpointStatus,
    pub created_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub secret: Option<String>,
}

#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct WebhookEndpointRecord {
    pub id: WebhookEndpointId,
    pub account: String,
    pub mode: Mode,
    pub url: String,
    /// Event type names, or `["*"]`.
    pub events: Vec<String>,
    pub description: Option<String>,
    pub status: EndpointStatus,
    /// The signing secret (`whsec_...`). It must be kept in the clear to sign deliveries.
    pub secret: String,
    pub created_at: Timestamp,
    /// After a rotation, the old secret keeps signing (a second `v1`) until this expires.
    #[serde(default)]
    pub previous_secret: Option<String>,
    #[serde(default)]
    pub previous_secret_expires_at: Option<Timestamp>,
}

impl std::fmt::Debug for WebhookEndpointRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookEndpointRecord")
            .field("id", &self.id)
            .field("url", &self.url)
            .field("events", &self.events)
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

impl WebhookEndpointRecord {
    pub fn view(&self) -> WebhookEndpoint {
        WebhookEndpoint {
            id: self.id.clone(),
            object: "webhook_endpoint".into(),
            url: self.url.clone(),
            events: self.events.clone(),
            description: self.description.clone(),
            livemode: self.mode.is_live(),
            status: self.status,
            created_at: self.created_at,
            secret: None,
        }
    }

    /// True when this endpoint wants events of this type.
    pub fn subscribes_to(&self, event_type: &str) -> bool {
        self.status == EndpointStatus::Enabled
            && self.events.iter().any(|e| e == "*" || e == event_type)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryStatus {
    Pending,
    Delivered,
    Failed,
}

/// One event to one endpoint: a row of the outbox, written in the same store transaction as the
/// event itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    pub id: String,
    pub account: String,
    pub mode: Mode,
    pub event: String,
    pub endpoint: String,
    pub status: DeliveryStatus,
    pub attempts: u32,
    /// When the next attempt is due (pending), or until when a worker holds it (claimed);
    /// `None` once delivered or failed.
    pub next_attempt_at: Option<Timestamp>,
    pub created_at: Timestamp,
    #[serde(default)]
    pub last_attempt_at: Option<Timestamp>,
}

/// One attempt to deliver: what happened and how long it took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeliveryAttempt {
    pub delivery: String,
    pub event: String,
    pub endpoint: String,
    /// 1 for the first attempt.
    pub number: u32,
    pub at: Timestamp,
    /// The receiver's status, when it answered.
    pub status: Option<u16>,
    /// Why no status was obtained (timeout, refused address, connection error).
    pub error: Option<String>,
    pub duration_ms: u64,
}

/// What happens to a delivery after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryNext {
    Delivered,
    /// Try again at this time.
    Retry(Timestamp),
    /// No retry is left.
    Failed,
}

/// A claimed delivery with everything needed to send it.
#[derive(Debug, Clone)]
pub struct DueDelivery {
    pub delivery: Delivery,
    pub url: String,
    /// Secrets to sign with: the current one, and the previous one during a rotation.
    pub secrets: Vec<String>,
    pub event: super::Event,
}
