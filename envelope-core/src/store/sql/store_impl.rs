//! `impl Store for SqlStore`: one line per method, delegating to the files of each resource.

use async_trait::async_trait;

use super::SqlStore;
use crate::clock::Timestamp;
use crate::model::{
    Account, ApiKey, DeliveryAttempt, DeliveryNext, DueDelivery, EnvelopeRecord, EventRecord,
    EventType, Mode, Scope, TemplateRecord, WebhookDelivery, WebhookEndpointRecord,
};
use crate::store::{
    AllowanceDebit, EnvelopeFilter, FileLink, IdempotencyBegin, Listed, NotReady, PageRequest,
    PurgeBefore, Purged, Removed, SigningToken, Store, StoreResult, StoredResponse,
};

#[async_trait]
impl Store for SqlStore {
    async fn insert_account(&self, account: &Account, keys: &[ApiKey]) -> StoreResult<()> {
        self.insert_account_impl(account, keys).await
    }
    async fn get_account(&self, id: &str) -> StoreResult<Option<Account>> {
        self.get_account_impl(id).await
    }
    async fn list_accounts(&self) -> StoreResult<Vec<Account>> {
        self.list_accounts_impl().await
    }
    async fn set_allowance(&self, account: &str, allowance: u32) -> StoreResult<bool> {
        self.set_allowance_impl(account, allowance).await
    }
    async fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()> {
        self.insert_api_key_impl(key).await
    }
    async fn api_key_by_hash(&self, hash: &str) -> StoreResult<Option<ApiKey>> {
        self.api_key_by_hash_impl(hash).await
    }
    async fn api_key_with_account(&self, hash: &str) -> StoreResult<Option<(ApiKey, Account)>> {
        self.api_key_with_account_impl(hash).await
    }
    async fn list_api_keys(&self, account: &str) -> StoreResult<Vec<ApiKey>> {
        self.list_api_keys_impl(account).await
    }
    async fn revoke_api_key(
        &self,
        account: &str,
        key_id: &str,
        at: Timestamp,
    ) -> StoreResult<bool> {
        self.revoke_api_key_impl(account, key_id, at).await
    }
    async fn usage(&self, account: &str, period: &str) -> StoreResult<u32> {
        self.usage_impl(account, period).await
    }
    async fn set_storage_quota(&self, account: &str, quota: Option<u64>) -> StoreResult<bool> {
        self.set_storage_quota_impl(account, quota).await
    }
    async fn storage_used(&self, account: &str) -> StoreResult<u64> {
        self.storage_used_impl(account).await
    }
    async fn set_email_daily_limit(
        &self,
        account: &str,
        mode: Mode,
        limit: Option<u32>,
    ) -> StoreResult<bool> {
        self.set_email_daily_limit_impl(account, mode, limit).await
    }
    async fn take_email(
        &self,
        account: &str,
        mode: Mode,
        day: &str,
        default_limit: Option<u32>,
    ) -> StoreResult<bool> {
        self.take_email_impl(account, mode, day, default_limit)
            .await
    }

    async fn insert_template(&self, template: &TemplateRecord) -> StoreResult<()> {
        self.insert_template_impl(template).await
    }
    async fn get_template(&self, scope: &Scope, id: &str) -> StoreResult<Option<TemplateRecord>> {
        self.get_template_impl(scope, id).await
    }
    async fn update_template(&self, template: &TemplateRecord) -> StoreResult<()> {
        self.update_template_impl(template).await
    }
    async fn list_templates(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<TemplateRecord>> {
        self.list_templates_impl(scope, page).await
    }

    async fn create_envelope(
        &self,
        envelope: &EnvelopeRecord,
        events: &[EventRecord],
        debit: Option<&AllowanceDebit>,
    ) -> StoreResult<()> {
        self.write_envelope(envelope, events, debit, true, false)
            .await
    }
    async fn update_envelope(
        &self,
        envelope: &EnvelopeRecord,
        events: &[EventRecord],
        debit: Option<&AllowanceDebit>,
    ) -> StoreResult<()> {
        self.write_envelope(envelope, events, debit, false, false)
            .await
    }
    async fn erase_envelope(&self, envelope: &EnvelopeRecord) -> StoreResult<()> {
        self.write_envelope(envelope, &[], None, false, true).await
    }
    async fn get_envelope(&self, scope: &Scope, id: &str) -> StoreResult<Option<EnvelopeRecord>> {
        self.get_envelope_impl(scope, id).await
    }
    async fn list_envelopes(
        &self,
        scope: &Scope,
        filter: &EnvelopeFilter,
        page: &PageRequest,
    ) -> StoreResult<Listed<EnvelopeRecord>> {
        self.list_envelopes_impl(scope, filter, page).await
    }
    async fn expired_envelopes(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        self.expired_envelopes_impl(now, limit).await
    }

    async fn queue_depths(&self) -> StoreResult<crate::store::QueueDepths> {
        self.queue_depths_impl().await
    }

    async fn due_emails(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<EnvelopeRecord>> {
        self.due_emails_impl(now, limit).await
    }

    async fn get_event(&self, scope: &Scope, id: &str) -> StoreResult<Option<EventRecord>> {
        self.get_event_impl(scope, id).await
    }
    async fn list_events(
        &self,
        scope: &Scope,
        kind: Option<EventType>,
        page: &PageRequest,
    ) -> StoreResult<Listed<EventRecord>> {
        self.list_events_impl(scope, kind, page).await
    }
    async fn deliveries_for_event(
        &self,
        scope: &Scope,
        event: &str,
    ) -> StoreResult<Vec<WebhookDelivery>> {
        self.deliveries_for_event_impl(scope, event).await
    }
    async fn event_deliveries_page(
        &self,
        scope: &Scope,
        event: &str,
        page: &PageRequest,
    ) -> StoreResult<Listed<(WebhookDelivery, Vec<DeliveryAttempt>)>> {
        self.event_deliveries_page_impl(scope, event, page).await
    }

    async fn claim_deliveries(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limits: &crate::store::ClaimLimits<'_>,
    ) -> StoreResult<Vec<DueDelivery>> {
        self.claim_deliveries_impl(now, lease_until, limits).await
    }
    async fn record_attempts(&self, batch: &[(DeliveryAttempt, DeliveryNext)]) -> StoreResult<()> {
        self.record_attempts_impl(batch).await
    }
    async fn delivery_attempts(
        &self,
        scope: &Scope,
        event: &str,
    ) -> StoreResult<Vec<DeliveryAttempt>> {
        self.delivery_attempts_impl(scope, event).await
    }
    async fn insert_deliveries(&self, deliveries: &[WebhookDelivery]) -> StoreResult<()> {
        self.insert_deliveries_impl(deliveries).await
    }

    async fn insert_webhook_endpoint(&self, endpoint: &WebhookEndpointRecord) -> StoreResult<()> {
        self.insert_webhook_endpoint_impl(endpoint).await
    }
    async fn get_webhook_endpoint(
        &self,
        scope: &Scope,
        id: &str,
    ) -> StoreResult<Option<WebhookEndpointRecord>> {
        self.get_webhook_endpoint_impl(scope, id).await
    }
    async fn find_event(&self, id: &str) -> StoreResult<Option<EventRecord>> {
        self.find_event_impl(id).await
    }
    async fn find_webhook_endpoint(&self, id: &str) -> StoreResult<Option<WebhookEndpointRecord>> {
        self.find_webhook_endpoint_impl(id).await
    }
    async fn update_webhook_endpoint(&self, endpoint: &WebhookEndpointRecord) -> StoreResult<()> {
        self.update_webhook_endpoint_impl(endpoint).await
    }
    async fn delete_webhook_endpoint(&self, scope: &Scope, id: &str) -> StoreResult<bool> {
        self.delete_webhook_endpoint_impl(scope, id).await
    }
    async fn list_webhook_endpoints(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<WebhookEndpointRecord>> {
        self.list_webhook_endpoints_impl(scope, page).await
    }

    async fn insert_signing_token(&self, token: &SigningToken) -> StoreResult<()> {
        self.insert_signing_token_impl(token).await
    }
    async fn signing_token(&self, token_hash: &str) -> StoreResult<Option<SigningToken>> {
        self.signing_token_impl(token_hash).await
    }
    async fn insert_file_link(&self, link: &FileLink) -> StoreResult<()> {
        self.insert_file_link_impl(link).await
    }
    async fn file_link(&self, token_hash: &str) -> StoreResult<Option<FileLink>> {
        self.file_link_impl(token_hash).await
    }

    async fn idempotency_begin(
        &self,
        scope: &Scope,
        key: &str,
        fingerprint: &str,
        now: Timestamp,
        stale_before: Timestamp,
    ) -> StoreResult<IdempotencyBegin> {
        self.idempotency_begin_impl(scope, key, fingerprint, now, stale_before)
            .await
    }
    async fn idempotency_finish(
        &self,
        scope: &Scope,
        key: &str,
        response: &StoredResponse,
        expires_at: Timestamp,
    ) -> StoreResult<()> {
        self.idempotency_finish_impl(scope, key, response, expires_at)
            .await
    }
    async fn idempotency_release(&self, scope: &Scope, key: &str) -> StoreResult<()> {
        self.idempotency_release_impl(scope, key).await
    }

    async fn purge_expired(&self, before: &PurgeBefore, limit: usize) -> StoreResult<Purged> {
        self.purge_expired_impl(before, limit).await
    }
    async fn delete_stale_envelopes(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Removed> {
        self.delete_stale_envelopes_impl(mode, before, limit).await
    }
    async fn delete_stale_templates(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Removed> {
        self.delete_stale_templates_impl(mode, before, limit).await
    }
    async fn envelopes_with_files(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        self.envelopes_with_files_impl(mode, before, limit).await
    }
    async fn unheld_blobs(&self, keys: &[String]) -> StoreResult<Vec<String>> {
        self.unheld_blobs_impl(keys).await
    }
    async fn key_check(&self, name: &str, proposed: &str) -> StoreResult<String> {
        self.key_check_impl(name, proposed).await
    }
    async fn check_ready(&self, now: Timestamp) -> Result<(), NotReady> {
        self.check_ready_impl(now).await
    }
    async fn failed_for_good(&self) -> String {
        self.failed_for_good_impl().await
    }
}
