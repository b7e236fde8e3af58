//! Webhook endpoints and what was delivered to them: [`WebhookStore`].

use async_trait::async_trait;

use super::*;

/// Webhook endpoints, and the deliveries and attempts of an event as the API shows them.
///
/// # Contract
///
/// - **Isolation**: reads take a [`Scope`] except the admin lookup
///   [`WebhookStore::find_webhook_endpoint`].
/// - Endpoints carry no version: their update is last-write-wins, [`StoreError::Conflict`] only
///   when the endpoint is missing. Only events written after an endpoint's insert get
///   deliveries for it.
/// - Deliveries and attempts read oldest first; [`WebhookStore::event_deliveries_page`] reads
///   only the page's rows.
///
/// Conformance clauses: `webhook_endpoints`, `webhook_delivery_pages`, `scope_isolation`.
#[async_trait]
pub trait WebhookStore: Send + Sync + 'static {
    /// Inserts an endpoint; [`StoreError::Duplicate`] when the ID exists. Only events written
    /// after it get deliveries for it.
    async fn insert_webhook_endpoint(&self, endpoint: &WebhookEndpointRecord) -> StoreResult<()>;
    /// The endpoint with this ID in `scope`; `None` when it does not exist or belongs to another
    /// scope.
    async fn get_webhook_endpoint(
        &self,
        scope: &Scope,
        id: &WebhookEndpointId,
    ) -> StoreResult<Option<WebhookEndpointRecord>>;
    /// Looks an endpoint up by ID alone (admin operations).
    async fn find_webhook_endpoint(
        &self,
        id: &WebhookEndpointId,
    ) -> StoreResult<Option<WebhookEndpointRecord>>;
    /// Replaces the stored endpoint with the same ID, last write wins (endpoints carry no version);
    /// [`StoreError::Conflict`] when there is no such endpoint.
    async fn update_webhook_endpoint(&self, endpoint: &WebhookEndpointRecord) -> StoreResult<()>;
    /// False when there was no such endpoint in scope.
    async fn delete_webhook_endpoint(
        &self,
        scope: &Scope,
        id: &WebhookEndpointId,
    ) -> StoreResult<bool>;
    /// A page of the scope's endpoints, newest first, after the `starting_after` cursor;
    /// [`Listed::UnknownCursor`] when the cursor names no endpoint in scope.
    async fn list_webhook_endpoints(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<WebhookEndpointRecord>>;
    /// Deliveries of one event, oldest first.
    async fn deliveries_for_event(
        &self,
        scope: &Scope,
        event: &EventId,
    ) -> StoreResult<Vec<WebhookDelivery>>;
    /// A page of one event's deliveries, oldest first, each with its attempts (oldest first),
    /// after the `starting_after` cursor (a delivery of this event);
    /// [`Listed::UnknownCursor`] when the cursor names no delivery of this event in `scope`.
    /// Only the page's rows are read: resends add deliveries to an event without bound.
    async fn event_deliveries_page(
        &self,
        scope: &Scope,
        event: &EventId,
        page: &PageRequest,
    ) -> StoreResult<Listed<(WebhookDelivery, Vec<DeliveryAttempt>)>>;
    /// Attempts of one event's deliveries, oldest first.
    async fn delivery_attempts(
        &self,
        scope: &Scope,
        event: &EventId,
    ) -> StoreResult<Vec<DeliveryAttempt>>;
}
