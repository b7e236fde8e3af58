//! [`MemoryStore`]'s outbox.

use async_trait::async_trait;

use super::*;

#[async_trait]
impl OutboxStore for MemoryStore {
    async fn claim_deliveries(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limits: &ClaimLimits<'_>,
    ) -> StoreResult<Vec<DueDelivery>> {
        let mut g = self.lock();
        let mut due: Vec<usize> = (0..g.deliveries.len())
            .filter(|&i| {
                let d = &g.deliveries[i];
                d.status == DeliveryStatus::Pending
                    && d.next_attempt_at.is_some_and(|t| t <= now)
                    && !limits.busy_endpoints.contains(&d.endpoint)
                    && g.endpoints
                        .by_id
                        .get(d.endpoint.as_str())
                        .is_some_and(|e| e.status == crate::model::EndpointStatus::Enabled)
            })
            .collect();
        due.sort_by_key(|&i| (g.deliveries[i].next_attempt_at, i));
        let mut per: HashMap<WebhookEndpointId, usize> = HashMap::new();
        let mut per_account: HashMap<AccountId, usize> = HashMap::new();
        let mut out = Vec::new();
        for i in due {
            if out.len() == limits.limit {
                break;
            }
            let account = &g.deliveries[i].account;
            let a = per_account.entry(account.clone()).or_insert(0);
            if *a >= limits.account_room(account) {
                continue;
            }
            let n = per.entry(g.deliveries[i].endpoint.clone()).or_insert(0);
            if *n >= limits.per_endpoint {
                continue;
            }
            *n += 1;
            *a += 1;
            g.deliveries[i].next_attempt_at = Some(lease_until);
            let d = g.deliveries[i].clone();
            let ep = &g.endpoints.by_id[d.endpoint.as_str()];
            let mut secrets = vec![ep.secret.clone()];
            if let (Some(old), Some(until)) = (&ep.previous_secret, ep.previous_secret_expires_at)
                && until > now
            {
                secrets.push(old.clone());
            }
            let url = ep.url.clone();
            let Some(event) = g
                .events
                .by_id
                .get(d.event.as_str())
                .map(|e| e.event.clone())
            else {
                continue;
            };
            out.push(DueDelivery {
                delivery: d,
                url,
                secrets,
                event,
            });
        }
        Ok(out)
    }

    async fn record_attempts(&self, batch: &[(DeliveryAttempt, DeliveryNext)]) -> StoreResult<()> {
        let mut g = self.lock();
        for (attempt, next) in batch {
            let next = *next;
            // Deleted with its envelope (retention) while the attempt ran: nothing to record.
            let Some(d) = g.deliveries.iter_mut().find(|d| d.id == attempt.delivery) else {
                continue;
            };
            d.attempts = d.attempts.max(attempt.number);
            d.last_attempt_at = Some(attempt.at);
            match next {
                DeliveryNext::Delivered => {
                    d.status = DeliveryStatus::Delivered;
                    d.next_attempt_at = None;
                }
                DeliveryNext::Retry(at) => {
                    d.status = DeliveryStatus::Pending;
                    d.next_attempt_at = Some(at);
                }
                DeliveryNext::Failed => {
                    d.status = DeliveryStatus::Failed;
                    d.next_attempt_at = None;
                }
            }
            g.attempts.push(attempt.clone());
        }
        Ok(())
    }

    async fn insert_deliveries(&self, deliveries: &[WebhookDelivery]) -> StoreResult<()> {
        let mut g = self.lock();
        if deliveries
            .iter()
            .any(|d| g.deliveries.iter().any(|o| o.id == d.id))
        {
            return Err(StoreError::Duplicate);
        }
        g.deliveries.extend(deliveries.iter().cloned());
        Ok(())
    }

    async fn due_emails(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<EnvelopeRecord>> {
        let g = self.lock();
        let mut due: Vec<(Timestamp, &EnvelopeRecord)> = g
            .envelopes
            .order
            .iter()
            .map(|id| &g.envelopes.by_id[id])
            .filter_map(|e| e.next_email_at().filter(|t| *t <= now).map(|t| (t, e)))
            .collect();
        // Insertion order breaks ties (the stable sort keeps it), as `seq` does in SQL.
        due.sort_by_key(|(t, _)| *t);
        // In turns by account: each record's turn is its rank among its account's due records.
        let mut seen: HashMap<&str, usize> = HashMap::new();
        let mut turns: Vec<(usize, Timestamp, &EnvelopeRecord)> = due
            .into_iter()
            .map(|(t, e)| {
                let turn = seen.entry(e.account.as_str()).or_insert(0);
                *turn += 1;
                (*turn, t, e)
            })
            .collect();
        turns.sort_by_key(|(turn, t, _)| (*turn, *t));
        Ok(turns
            .into_iter()
            .take(limit)
            .map(|(_, _, e)| e.clone())
            .collect())
    }

    async fn take_email(
        &self,
        account: &AccountId,
        mode: Mode,
        day: &str,
        default_limit: Option<u32>,
    ) -> StoreResult<bool> {
        let mut g = self.lock();
        let own = g
            .accounts
            .iter()
            .find(|a| a.id == account)
            .and_then(|a| a.email_daily_limit(mode));
        let limit = own.or(default_limit);
        let used = g
            .emails
            .entry((account.to_string(), mode, day.to_string()))
            .or_insert(0);
        if limit.is_some_and(|l| *used >= l) {
            return Ok(false);
        }
        *used = used.saturating_add(1);
        Ok(true)
    }

    async fn queue_depths(&self) -> StoreResult<QueueDepths> {
        let g = self.lock();
        Ok(QueueDepths {
            webhook_deliveries: g
                .deliveries
                .iter()
                .filter(|d| d.status == DeliveryStatus::Pending)
                .count() as u64,
            envelopes_with_emails: g
                .envelopes
                .by_id
                .values()
                .filter(|e| e.next_email_at().is_some())
                .count() as u64,
        })
    }
}
