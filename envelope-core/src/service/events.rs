//! Events: building them for transitions, and reading them back.

use super::paging;
use super::{AuthContext, ListParams, SigningService};
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::ids::{self, EventId};
use crate::model::{
    EnvelopeRecord, Event, EventData, EventObject, EventRecord, EventType, List, PreviousSigner,
    SignerRef,
};

/// An event for `rec` as it is now; `signer` is the index of the signer a signer event is about.
pub(crate) fn record(
    rec: &EnvelopeRecord,
    kind: EventType,
    signer: Option<usize>,
    now: Timestamp,
) -> EventRecord {
    let signer_index = signer;
    let signer = signer.map(|i| {
        let s = &rec.signers[i].signer;
        SignerRef {
            id: s.id.clone(),
            role: s.role.clone(),
            name: s.name.clone(),
            email: s.email.clone(),
            order: s.order,
            status: s.status,
            kind: s.kind,
        }
    });
    EventRecord {
        account: rec.account.clone(),
        mode: rec.mode,
        event: Event {
            id: ids::EventId::new(),
            object: "event".into(),
            kind,
            livemode: rec.mode.is_live(),
            created_at: now,
            data: EventData {
                object: EventObject::Envelope(rec.view()),
                previous: match (kind, signer_index) {
                    (EventType::SignerReassigned, Some(i)) => {
                        rec.signers[i].reassignments.last().map(|r| PreviousSigner {
                            name: r.name.clone(),
                            email: r.email.clone(),
                        })
                    }
                    _ => None,
                },
                changes: (kind == EventType::Corrected)
                    .then(|| rec.corrections.last())
                    .flatten()
                    .map(|c| c.changes.iter().map(|x| x.what.clone()).collect()),
                signer,
                cc: None,
                email: None,
                until: None,
            },
        },
    }
}

impl SigningService {
    /// `GET /events/{id}`.
    pub async fn get_event(&self, ctx: &AuthContext, id: &EventId) -> Result<Event> {
        self.inner
            .store
            .get_event(&ctx.scope(), id)
            .await?
            .map(|e| e.event)
            .ok_or_else(|| Error::not_found("event", id))
    }

    /// `GET /events`: newest first, optionally of one type.
    pub async fn list_events(
        &self,
        ctx: &AuthContext,
        list: &ListParams,
        kind: Option<&str>,
    ) -> Result<List<Event>> {
        let kind = match kind {
            None => None,
            Some(k) => Some(EventType::parse(k).ok_or_else(|| {
                let known: Vec<_> = EventType::ALL.iter().map(|t| t.as_str()).collect();
                Error::invalid("type", format!("must be one of {}", known.join(", ")))
            })?),
        };
        let (items, more) = paging::page(list, "event", async |page| {
            self.inner.store.list_events(&ctx.scope(), kind, page).await
        })
        .await?;
        Ok(List::new(
            "/v1/events",
            items.into_iter().map(|e| e.event).collect(),
            more,
        ))
    }
}
