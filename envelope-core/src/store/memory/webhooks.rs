//! [`MemoryStore`]'s webhooks.

use async_trait::async_trait;

use super::*;

#[async_trait]
impl WebhookStore for MemoryStore {
    async fn insert_webhook_endpoint(&self, endpoint: &WebhookEndpointRecord) -> StoreResult<()> {
        self.lock().endpoints.insert(&endpoint.id, endpoint.clone())
    }

    async fn get_webhook_endpoint(
        &self,
        scope: &Scope,
        id: &WebhookEndpointId,
    ) -> StoreResult<Option<WebhookEndpointRecord>> {
        Ok(self.lock().endpoints.get(scope, id))
    }

    async fn find_webhook_endpoint(
        &self,
        id: &WebhookEndpointId,
    ) -> StoreResult<Option<WebhookEndpointRecord>> {
        Ok(self.lock().endpoints.by_id.get(id.as_str()).cloned())
    }

    async fn update_webhook_endpoint(&self, endpoint: &WebhookEndpointRecord) -> StoreResult<()> {
        let mut g = self.lock();
        match g.endpoints.by_id.get_mut(endpoint.id.as_str()) {
            Some(e) => {
                *e = endpoint.clone();
                Ok(())
            }
            None => Err(StoreError::Conflict),
        }
    }

    async fn delete_webhook_endpoint(
        &self,
        scope: &Scope,
        id: &WebhookEndpointId,
    ) -> StoreResult<bool> {
        let mut g = self.lock();
        if g.endpoints.get(scope, id).is_none() {
            return Ok(false);
        }
        g.endpoints.by_id.remove(id.as_str());
        g.endpoints.order.retain(|x| x != id);
        Ok(true)
    }

    async fn list_webhook_endpoints(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<WebhookEndpointRecord>> {
        Ok(self.lock().endpoints.list(scope, page, |_| true))
    }

    async fn deliveries_for_event(
        &self,
        scope: &Scope,
        event: &EventId,
    ) -> StoreResult<Vec<WebhookDelivery>> {
        Ok(self
            .lock()
            .deliveries
            .iter()
            .filter(|d| d.event == event && d.account == scope.account && d.mode == scope.mode)
            .cloned()
            .collect())
    }

    async fn event_deliveries_page(
        &self,
        scope: &Scope,
        event: &EventId,
        page: &PageRequest,
    ) -> StoreResult<Listed<(WebhookDelivery, Vec<DeliveryAttempt>)>> {
        let g = self.lock();
        let mut ours = g
            .deliveries
            .iter()
            .filter(|d| d.event == event && d.account == scope.account && d.mode == scope.mode);
        if let Some(cursor) = &page.starting_after
            && !ours.any(|d| &d.id == cursor)
        {
            return Ok(Listed::UnknownCursor);
        }
        // `ours` now stands after the cursor (or at the start).
        let mut items = Vec::new();
        let mut has_more = false;
        for d in ours {
            if items.len() == page.limit {
                has_more = true;
                break;
            }
            let attempts = g
                .attempts
                .iter()
                .filter(|a| a.delivery == d.id)
                .cloned()
                .collect();
            items.push((d.clone(), attempts));
        }
        Ok(Listed::Page(items, has_more))
    }

    async fn delivery_attempts(
        &self,
        scope: &Scope,
        event: &EventId,
    ) -> StoreResult<Vec<DeliveryAttempt>> {
        let g = self.lock();
        if g.events.get(scope, event).is_none() {
            return Ok(Vec::new());
        }
        Ok(g.attempts
            .iter()
            .filter(|a| a.event == event)
            .cloned()
            .collect())
    }
}
