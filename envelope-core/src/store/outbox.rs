//! The two outboxes, webhook deliveries and emails: [`OutboxStore`].

use async_trait::async_trait;

use super::*;

/// The work queues of the service's two workers: webhook deliveries to claim and record, and
/// envelopes with email due, with the daily email budget.
///
/// # Contract
///
/// - **Webhook outbox**: [`OutboxStore::claim_deliveries`] never gives one delivery to two
///   concurrent claims, leases what it gives, and applies [`ClaimLimits`] without letting a
///   skipped backlog hide deliveries that fit; [`OutboxStore::record_attempts`] writes a batch in
///   one transaction.
/// - **Email outbox**: [`OutboxStore::due_emails`] finds every record whose
///   [`EnvelopeRecord::next_email_at`] has come, whatever wrote it last, in turns by account:
///   each account's earliest due record first, then each account's second, and so on, so that
///   one account's backlog never hides another account's email.
/// - **Email budget**: [`OutboxStore::take_email`] counts one email of `(account, mode, day)`
///   only while the day's count is below the budget (the account's own for the mode, else the
///   default it is given), atomically: concurrent takes from any number of processes never pass
///   it together.
///
/// Conformance clauses: `webhook_outbox`, `webhook_outbox_raced`, `webhook_outbox_fairness`,
/// `due_emails`, `due_emails_fairness`, `email_budget`, `email_budget_raced`.
#[async_trait]
pub trait OutboxStore: Send + Sync + 'static {
    /// Claims pending deliveries due at `now` whose endpoint exists and is enabled, oldest due
    /// first, within `limits` (see [`ClaimLimits`]). Each claimed delivery's `next_attempt_at`
    /// becomes `lease_until`, so no other worker claims it before then (a worker that dies
    /// loses nothing: the lease runs out). Two concurrent claims never return the same
    /// delivery. Deliveries that the limits skip must not hide others that fit: an account at
    /// its cap, or a busy endpoint, with a backlog of thousands does not delay anyone else.
    async fn claim_deliveries(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limits: &ClaimLimits<'_>,
    ) -> StoreResult<Vec<DueDelivery>>;
    /// Appends attempts and moves each delivery on (delivered, retry at, or failed), all in one
    /// transaction (the worker records attempts in batches, so one commit serves many).
    async fn record_attempts(&self, batch: &[(DeliveryAttempt, DeliveryNext)]) -> StoreResult<()>;
    /// Adds deliveries (resending an event).
    async fn insert_deliveries(&self, deliveries: &[WebhookDelivery]) -> StoreResult<()>;
    /// Envelopes of any scope with a pending email due at or before `now`
    /// ([`EnvelopeRecord::next_email_at`]): the email worker's query. In turns by account: first
    /// the earliest due envelope of every account, then the second of every account, and so on;
    /// within a turn earliest due first (ties in insertion order). So an account with thousands
    /// of due envelopes takes one place per turn, and every other account's email is within the
    /// first `limit` once `limit` is at least the number of accounts with due email. A store keeps
    /// `next_email_at` indexed as it writes each record.
    async fn due_emails(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<EnvelopeRecord>>;
    /// Takes one email from the daily budget of `account` in `mode` on `day` (`YYYY-MM-DD`,
    /// UTC): counts it and answers `true` while the day's count is below the budget, which is the
    /// account's own for `mode` when set, else `default_limit` (`None`: no budget, every email is
    /// counted and taken). Once the count has reached the budget, `false` and nothing counted.
    /// Atomic: the budget is read and the count raised in one step, so concurrent takes from
    /// several processes never pass it together.
    async fn take_email(
        &self,
        account: &AccountId,
        mode: Mode,
        day: &str,
        default_limit: Option<u32>,
    ) -> StoreResult<bool>;
    /// How much waits in the two outboxes, in every scope: for metrics.
    async fn queue_depths(&self) -> StoreResult<QueueDepths>;
}

/// How much one claim of the webhook worker may take, and from whom: its fairness rules.
#[derive(Debug, Clone, Copy)]
pub struct ClaimLimits<'a> {
    /// Deliveries in all.
    pub limit: usize,
    /// Deliveries of one endpoint.
    pub per_endpoint: usize,
    /// Endpoints with attempts still running in the caller: none of theirs are claimed.
    pub busy_endpoints: &'a [WebhookEndpointId],
    /// Deliveries of one account, counting those still running in the caller.
    pub per_account: usize,
    /// Attempts still running in the caller, per account.
    pub busy_accounts: &'a [(AccountId, usize)],
}

impl ClaimLimits<'_> {
    /// How many more deliveries `account` may take in this claim.
    pub fn account_room(&self, account: &AccountId) -> usize {
        let busy = self
            .busy_accounts
            .iter()
            .find(|(a, _)| a == account)
            .map_or(0, |(_, n)| *n);
        self.per_account.saturating_sub(busy)
    }

    /// Accounts with no room left.
    pub fn full_accounts(&self) -> impl Iterator<Item = &AccountId> {
        self.busy_accounts
            .iter()
            .filter(|(_, n)| *n >= self.per_account)
            .map(|(a, _)| a)
    }
}

/// What waits to be sent ([`OutboxStore::queue_depths`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueueDepths {
    /// Webhook deliveries still pending (due or waiting for a retry).
    pub webhook_deliveries: u64,
    /// Envelopes with at least one pending email.
    pub envelopes_with_emails: u64,
}
