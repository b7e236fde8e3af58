//! [`MemoryStore`]'s events.

use async_trait::async_trait;

use super::*;

#[async_trait]
impl EventStore for MemoryStore {
    async fn get_event(&self, scope: &Scope, id: &EventId) -> StoreResult<Option<EventRecord>> {
        Ok(self.lock().events.get(scope, id))
    }

    async fn find_event(&self, id: &EventId) -> StoreResult<Option<EventRecord>> {
        Ok(self.lock().events.by_id.get(id.as_str()).cloned())
    }

    async fn list_events(
        &self,
        scope: &Scope,
        kind: Option<EventType>,
        page: &PageRequest,
    ) -> StoreResult<Listed<EventRecord>> {
        Ok(self
            .lock()
            .events
            .list(scope, page, |e| kind.is_none_or(|k| e.event.kind == k)))
    }
}
