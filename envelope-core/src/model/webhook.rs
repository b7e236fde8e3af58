//! Webhook endpoints and the delivery outbox.

use serde::{Deserialize, Serialize};

use super::Mode;
use crate::clock::Timestamp;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EndpointStatus {
    Enabled,
    Disabled,
}

/// The wire endpoint of decisions.md; `secret` only in the create response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebhookEndpoint {
    pub id: String,
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
    pub id: String,
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
    pub next_attempt_at: Option<Timestamp>,
    pub created_at: Timestamp,
}
