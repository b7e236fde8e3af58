//! Webhook deliveries as the API shows them, resending events, and the worker handle.

use serde::{Deserialize, Serialize};

use super::{AuthContext, ListParams, SigningService, WebhookWorker, WorkerSettings};
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::ids::{DeliveryId, EventId, WebhookEndpointId};
use crate::model::{DeliveryAttempt, DeliveryStatus, EndpointStatus, List, Scope, WebhookDelivery};
use std::sync::Arc;

/// One attempt as shown by `GET /events/{id}/deliveries`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptView {
    /// The attempt's position, starting at 1.
    pub number: u32,
    /// When the attempt was made.
    pub at: Timestamp,
    /// The receiver's status; null when it did not answer.
    pub status: Option<u16>,
    /// Why the attempt failed (a transport error or a non-2xx status), `None` if it succeeded.
    pub error: Option<String>,
    /// How long the request took, in milliseconds.
    pub duration_ms: u64,
}

/// A delivery of one event to one endpoint, with its attempts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeliveryView {
    /// The delivery's ID.
    pub id: DeliveryId,
    /// Always `webhook_delivery`.
    pub object: String,
    /// The ID of the event delivered.
    pub event: EventId,
    /// The ID of the webhook endpoint it is delivered to.
    pub endpoint: WebhookEndpointId,
    /// `pending`, `delivered` or `failed`.
    pub status: DeliveryStatus,
    /// Every attempt made so far, oldest first.
    pub attempts: Vec<AttemptView>,
    /// When the next retry is due, `None` once the delivery succeeded or gave up.
    pub next_attempt_at: Option<Timestamp>,
    /// When the delivery was queued.
    pub created_at: Timestamp,
}

impl SigningService {
    /// The worker that sends this service's webhook deliveries.
    pub fn webhook_worker(&self, settings: WorkerSettings) -> WebhookWorker {
        let key = self.inner.response_key.clone();
        WebhookWorker::new(
            self.inner.store.clone(),
            self.inner.sink.clone(),
            self.inner.clock.clone(),
            settings,
            Arc::new(move |endpoint: &str, stored: &str| {
                key.open_webhook_secret(endpoint, stored).ok()
            }),
        )
    }

    /// `GET /events/{id}/deliveries`: one page of the event's deliveries, oldest first, like
    /// every list (`limit`, `starting_after` a delivery ID, `has_more`). Resends add deliveries
    /// to an event without bound over time, so the API never answers them all at once, and the
    /// store reads only the page's deliveries and their attempts.
    pub async fn list_event_deliveries(
        &self,
        ctx: &AuthContext,
        event: &EventId,
        list: &ListParams,
    ) -> Result<List<DeliveryView>> {
        let scope = ctx.scope();
        self.inner
            .store
            .get_event(&scope, event)
            .await?
            .ok_or_else(|| Error::not_found("event", event))?;
        let (items, has_more) = super::paging::page(list, "webhook_delivery", async |page| {
            self.inner
                .store
                .event_deliveries_page(&scope, event, page)
                .await
        })
        .await?;
        Ok(List::new(
            &format!("/v1/events/{event}/deliveries"),
            items
                .into_iter()
                .map(|(d, attempts)| view(d, &attempts))
                .collect(),
            has_more,
        ))
    }

    /// Every delivery of an event, one entry per delivery (endpoint), oldest first: for the
    /// admin commands and embedders; the API pages them ([`Self::list_event_deliveries`]).
    pub async fn event_deliveries(
        &self,
        ctx: &AuthContext,
        event: &EventId,
    ) -> Result<List<DeliveryView>> {
        self.event_deliveries_in(&ctx.scope(), event).await
    }

    pub(crate) async fn event_deliveries_in(
        &self,
        scope: &Scope,
        event: &EventId,
    ) -> Result<List<DeliveryView>> {
        let scope = scope.clone();
        self.inner
            .store
            .get_event(&scope, event)
            .await?
            .ok_or_else(|| Error::not_found("event", event))?;
        let deliveries = self.inner.store.deliveries_for_event(&scope, event).await?;
        let attempts = self.inner.store.delivery_attempts(&scope, event).await?;
        let data = deliveries
            .into_iter()
            .map(|d| {
                let own: Vec<DeliveryAttempt> = attempts
                    .iter()
                    .filter(|a| a.delivery == d.id)
                    .cloned()
                    .collect();
                view(d, &own)
            })
            .collect();
        Ok(List::new(
            &format!("/v1/events/{event}/deliveries"),
            data,
            false,
        ))
    }

    /// `POST /events/{id}/resend`: a new delivery to `endpoint`, or to every enabled endpoint
    /// subscribed to the event's type. Answers the event's deliveries.
    ///
    /// Limited per account to `Settings::resend_per_minute` calls a minute (both modes
    /// together): each call can fan out to every endpoint, so it is the cheapest way to load the
    /// worker. Past it: [`Error::RateLimited`].
    pub async fn resend_event(
        &self,
        ctx: &AuthContext,
        event: &EventId,
        endpoint: Option<&str>,
    ) -> Result<List<DeliveryView>> {
        let window = self.inner.resend_limiter.hit(&ctx.account.id, self.now());
        if window.exceeded {
            return Err(Error::RateLimited {
                retry_after_secs: window.reset_secs,
            });
        }
        self.resend_event_in(&ctx.scope(), event, endpoint).await
    }

    pub(crate) async fn resend_event_in(
        &self,
        scope: &Scope,
        event: &EventId,
        endpoint: Option<&str>,
    ) -> Result<List<DeliveryView>> {
        let scope = scope.clone();
        let ev = self
            .inner
            .store
            .get_event(&scope, event)
            .await?
            .ok_or_else(|| Error::not_found("event", event))?;
        let now = self.now();
        let targets: Vec<WebhookEndpointId> = match endpoint {
            Some(id) => {
                let missing = || Error::NotFound {
                    resource: "webhook_endpoint",
                    id: id.chars().take(80).collect(),
                    param: Some("endpoint".into()),
                };
                let id = WebhookEndpointId::parse(id).map_err(|_| missing())?;
                let ep = self
                    .inner
                    .store
                    .get_webhook_endpoint(&scope, &id)
                    .await?
                    .ok_or_else(missing)?;
                if ep.status != EndpointStatus::Enabled {
                    return Err(Error::state(
                        "The endpoint is disabled; enable it before resending.",
                    ));
                }
                vec![ep.id]
            }
            None => {
                let mut all = Vec::new();
                let mut after = None;
                loop {
                    let page = crate::store::PageRequest {
                        limit: 100,
                        starting_after: after.clone(),
                    };
                    let crate::store::Listed::Page(items, more) = self
                        .inner
                        .store
                        .list_webhook_endpoints(&scope, &page)
                        .await?
                    else {
                        break;
                    };
                    after = items.last().map(|e| e.id.to_string());
                    all.extend(
                        items
                            .into_iter()
                            .filter(|e| e.subscribes_to(ev.event.kind.as_str()))
                            .map(|e| e.id),
                    );
                    if !more {
                        break;
                    }
                }
                all
            }
        };
        let rows: Vec<_> = targets
            .iter()
            .map(|e| WebhookDelivery::pending(&scope.account, scope.mode, event, e, now))
            .collect();
        self.inner.store.insert_deliveries(&rows).await?;
        self.event_deliveries_in(&scope, event).await
    }
}

/// A delivery and its attempts as the API shows them.
fn view(d: WebhookDelivery, attempts: &[DeliveryAttempt]) -> DeliveryView {
    DeliveryView {
        attempts: attempts
            .iter()
            .map(|a| AttemptView {
                number: a.number,
                at: a.at,
                status: a.status,
                error: a.error.clone(),
                duration_ms: a.duration_ms,
            })
            .collect(),
        next_attempt_at: d
            .next_attempt_at
            .filter(|_| d.status == DeliveryStatus::Pending),
        id: d.id,
        object: "webhook_delivery".into(),
        event: d.event,
        endpoint: d.endpoint,
        status: d.status,
        created_at: d.created_at,
    }
}
