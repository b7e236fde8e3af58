//! Webhook endpoints and the delivery outbox.

use serde::{Deserialize, Serialize};

use super::Mode;
use crate::clock::Timestamp;
use crate::ids::{AccountId, DeliveryId, EventId, WebhookEndpointId};

/// Whether an endpoint receives deliveries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EndpointStatus {
    /// Deliveries are sent to it.
    Enabled,
    /// No deliveries are sent to it until it is enabled again.
    Disabled,
}

/// The wire endpoint of decisions.md; `secret` only in the create response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebhookEndpoint {
    /// The endpoint's ID, `we_...`.
    pub id: WebhookEndpointId,
    /// Always `webhook_endpoint`.
    pub object: String,
    /// The HTTPS URL deliveries are POSTed to.
    pub url: String,
    /// Event type names it receives, or `["*"]` for all.
    pub events: Vec<String>,
    /// A free-text description; `null` if none was given.
    pub description: Option<String>,
    /// `true` if made with a live key: it receives live events only.
    pub livemode: bool,
    /// `enabled` or `disabled`.
    pub status: EndpointStatus,
    /// When the endpoint was created.
    pub created_at: Timestamp,
    /// The signing secret (`whsec_...`); present only in the create response, left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub secret: Option<String>,
}

/// A webhook endpoint as stored, with its scope and signing secrets.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct WebhookEndpointRecord {
    /// The endpoint's ID, `we_...`.
    pub id: WebhookEndpointId,
    /// The owning account's ID, `acct_...`.
    pub account: AccountId,
    /// Test or live: the endpoint receives events of this mode only.
    pub mode: Mode,
    /// The HTTPS URL deliveries are POSTed to.
    pub url: String,
    /// Event type names, or `["*"]`.
    pub events: Vec<String>,
    /// A free-text description; `None` if none was given.
    pub description: Option<String>,
    /// `enabled` or `disabled`.
    pub status: EndpointStatus,
    /// The signing secret (`whsec_...`). It must be kept in the clear to sign deliveries.
    pub secret: String,
    /// When the endpoint was created.
    pub created_at: Timestamp,
    /// After a rotation, the old secret keeps signing (a second `v1`) until this expires.
    #[serde(default)]
    pub previous_secret: Option<String>,
    /// When `previous_secret` stops signing; `None` when there is none.
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
    /// The wire endpoint, without its secret.
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

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryStatus {
    /// Not yet delivered; another attempt is due.
    Pending,
    /// The endpoint answered with a 2xx status.
    Delivered,
    /// Given up: the retry schedule is used up.
    Failed,
}

/// One event to one endpoint: a row of the outbox, written in the same store transaction as the
/// event itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    /// The delivery's ID, `whd_...`.
    pub id: DeliveryId,
    /// The owning account's ID, `acct_...`.
    pub account: AccountId,
    /// Test or live: the mode of the event and the endpoint.
    pub mode: Mode,
    /// The event's ID, `evt_...`.
    pub event: EventId,
    /// The endpoint's ID, `we_...`.
    pub endpoint: WebhookEndpointId,
    /// Where the delivery stands.
    pub status: DeliveryStatus,
    /// Attempts made so far.
    pub attempts: u32,
    /// When the next attempt is due (pending), or until when a worker holds it (claimed);
    /// `None` once delivered or failed.
    pub next_attempt_at: Option<Timestamp>,
    /// When the delivery was queued (with its event).
    pub created_at: Timestamp,
    /// When the latest attempt started; `None` before the first.
    #[serde(default)]
    pub last_attempt_at: Option<Timestamp>,
}

impl Delivery {
    /// A new delivery of `event` to `endpoint`, pending and due at `now`, with a fresh `whd_` ID:
    /// the row a resend adds to the outbox (`SigningService::resend_event`). The stores write
    /// the same row for each subscribed endpoint when they commit an event.
    pub(crate) fn pending(
        account: &AccountId,
        mode: Mode,
        event: &EventId,
        endpoint: &WebhookEndpointId,
        now: Timestamp,
    ) -> Delivery {
        Delivery {
            id: DeliveryId::new(),
            account: account.clone(),
            mode,
            event: event.clone(),
            endpoint: endpoint.clone(),
            status: DeliveryStatus::Pending,
            attempts: 0,
            next_attempt_at: Some(now),
            created_at: now,
            last_attempt_at: None,
        }
    }
}

/// One attempt to deliver: what happened and how long it took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeliveryAttempt {
    /// The delivery's ID, `whd_...`.
    pub delivery: DeliveryId,
    /// The event's ID, `evt_...`.
    pub event: EventId,
    /// The endpoint's ID, `we_...`.
    pub endpoint: WebhookEndpointId,
    /// 1 for the first attempt.
    pub number: u32,
    /// When the attempt started.
    pub at: Timestamp,
    /// The receiver's status, when it answered.
    pub status: Option<u16>,
    /// Why no status was obtained (timeout, refused address, connection error).
    pub error: Option<String>,
    /// How long the attempt took, in milliseconds.
    pub duration_ms: u64,
}

/// What happens to a delivery after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryNext {
    /// The endpoint answered with a 2xx status: done.
    Delivered,
    /// Try again at this time.
    Retry(Timestamp),
    /// No retry is left.
    Failed,
}

/// A claimed delivery with everything needed to send it.
#[derive(Debug, Clone)]
pub struct DueDelivery {
    /// The outbox row, as claimed.
    pub delivery: Delivery,
    /// The endpoint's URL to POST to.
    pub url: String,
    /// Secrets to sign with: the current one, and the previous one during a rotation.
    pub secrets: Vec<String>,
    /// The event to send as the request body.
    pub event: super::Event,
}
