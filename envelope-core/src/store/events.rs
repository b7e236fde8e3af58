//! Events: [`EventStore`].

use async_trait::async_trait;

use super::*;

/// Events, as written by [`EnvelopeStore`]'s transitions; read-only here.
///
/// # Contract
///
/// - **Isolation**: reads take a [`Scope`] except the admin lookup
///   [`EventStore::find_event`]; an event of another scope reads as missing.
/// - **Lists**: as [`Listed`] says, filtered by type when asked.
///
/// Conformance clauses: `envelope_writes_events_and_outbox`, `list_pagination`,
/// `list_filters`, `erase_envelope`.
#[async_trait]
pub trait EventStore: Send + Sync + 'static {
    /// The event with this ID in `scope`; `None` when it does not exist or belongs to another
    /// scope.
    async fn get_event(&self, scope: &Scope, id: &EventId) -> StoreResult<Option<EventRecord>>;
    /// Looks an event up by ID alone (admin operations).
    async fn find_event(&self, id: &EventId) -> StoreResult<Option<EventRecord>>;
    /// A page of the scope's events, of type `kind` when given, newest first, after the
    /// `starting_after` cursor; [`Listed::UnknownCursor`] when the cursor names no event in scope.
    async fn list_events(
        &self,
        scope: &Scope,
        kind: Option<EventType>,
        page: &PageRequest,
    ) -> StoreResult<Listed<EventRecord>>;
}
