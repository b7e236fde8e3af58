//! Operations of the spec's "dashboard": accounts, API keys, allowances, webhook secrets. They are
//! not reachable through the API; the server exposes them on its command line.

use super::SigningService;
use crate::error::{Error, Result};
use crate::ids::{self, AccountId, ApiKeyId, EventId, WebhookEndpointId};
use crate::model::{Account, ApiKey, Mode};

/// A key as created: the clear secret exists only here.
#[derive(Clone)]
pub struct NewKey {
    /// The stored key record, which keeps only a hash of the secret.
    pub key: ApiKey,
    /// The full secret (`sk_test_…` or `sk_live_…`); it is shown only here, once, and cannot be
    /// recovered later.
    pub secret: String,
}

impl std::fmt::Debug for NewKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewKey")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// A new account with one test and one live key.
#[derive(Debug, Clone)]
pub struct NewAccount {
    /// The account just created.
    pub account: Account,
    /// Its first test-mode key.
    pub test_key: NewKey,
    /// Its first live-mode key.
    pub live_key: NewKey,
}

/// Admin handle: `service.admin()`.
#[derive(Debug)]
pub struct Admin<'a> {
    pub(crate) svc: &'a SigningService,
}

fn make_key(account: &AccountId, mode: Mode, now: crate::clock::Timestamp) -> NewKey {
    let secret = format!("sk_{}_{}", mode.as_str(), ids::random_base62(32));
    let key = ApiKey {
        id: ApiKeyId::new(),
        account: account.clone(),
        mode,
        prefix: secret.chars().take(12).collect(),
        hash: ids::digest(&secret),
        created_at: now,
        revoked_at: None,
    };
    NewKey { key, secret }
}

impl Admin<'_> {
    /// Creates an account with one test and one live key.
    pub async fn create_account(&self, name: &str) -> Result<NewAccount> {
        super::params::check_text("name", name, 200)?;
        let now = self.svc.now();
        let account = Account {
            id: AccountId::new(),
            name: name.trim().to_string(),
            monthly_allowance: self.svc.inner.settings.default_monthly_allowance,
            created_at: now,
            storage_quota: None,
            test_email_daily_limit: None,
            live_email_daily_limit: None,
        };
        let test_key = make_key(&account.id, Mode::Test, now);
        let live_key = make_key(&account.id, Mode::Live, now);
        self.svc
            .inner
            .store
            .insert_account(&account, &[test_key.key.clone(), live_key.key.clone()])
            .await?;
        Ok(NewAccount {
            account,
            test_key,
            live_key,
        })
    }

    /// On an empty store, creates the first account; `None` when accounts exist already.
    pub async fn bootstrap(&self, name: &str) -> Result<Option<NewAccount>> {
        if !self.svc.inner.store.list_accounts().await?.is_empty() {
            return Ok(None);
        }
        self.create_account(name).await.map(Some)
    }

    /// Lists every account of the deployment.
    pub async fn list_accounts(&self) -> Result<Vec<Account>> {
        Ok(self.svc.inner.store.list_accounts().await?)
    }

    async fn account(&self, id: &AccountId) -> Result<Account> {
        self.svc
            .inner
            .store
            .get_account(id)
            .await?
            .ok_or_else(|| Error::not_found("account", id))
    }

    /// Creates a new key of `mode` for `account` and returns it with its secret; `not_found` if the
    /// account does not exist.
    pub async fn create_key(&self, account: &AccountId, mode: Mode) -> Result<NewKey> {
        let account = self.account(account).await?;
        let key = make_key(&account.id, mode, self.svc.now());
        self.svc.inner.store.insert_api_key(&key.key).await?;
        Ok(key)
    }

    /// Lists the keys of `account`, revoked ones included, without their secrets; `not_found` if
    /// the account does not exist.
    pub async fn list_keys(&self, account: &AccountId) -> Result<Vec<ApiKey>> {
        let account = self.account(account).await?;
        Ok(self.svc.inner.store.list_api_keys(&account.id).await?)
    }

    /// Revokes a key: requests with it get `invalid_api_key`, at once in this process and
    /// within `Settings::key_cache_ttl` in every other one (docs/API.md, "Revoking keys").
    pub async fn revoke_key(&self, account: &AccountId, key_id: &ApiKeyId) -> Result<()> {
        if self
            .svc
            .inner
            .store
            .revoke_api_key(account, key_id, self.svc.now())
            .await?
        {
            self.svc.inner.keys.forget_key(key_id);
            Ok(())
        } else {
            Err(Error::not_found("api_key", key_id))
        }
    }

    /// Sets the monthly envelope allowance of `account`; `not_found` if the account does not exist.
    pub async fn set_allowance(&self, account: &AccountId, allowance: u32) -> Result<()> {
        if self
            .svc
            .inner
            .store
            .set_allowance(account, allowance)
            .await?
        {
            self.svc.inner.keys.forget_account(account);
            Ok(())
        } else {
            Err(Error::not_found("account", account))
        }
    }

    /// Sets the account's storage quota in bytes (`None`: no limit). Creates that would take
    /// the account past it are refused (`storage_quota_exceeded`); what it stores already stays.
    pub async fn set_storage_quota(&self, account: &AccountId, quota: Option<u64>) -> Result<()> {
        if self
            .svc
            .inner
            .store
            .set_storage_quota(account, quota)
            .await?
        {
            self.svc.inner.keys.forget_account(account);
            Ok(())
        } else {
            Err(Error::not_found("account", account))
        }
    }

    /// Sets the account's own daily email budget in `mode`: emails of that mode it may send
    /// per UTC day (`None`: back to the service's default, `EmailSettings::daily_limit`). It
    /// applies from the next email, in every process on the store; emails sent earlier in the
    /// day count towards it. `not_found` if the account does not exist.
    pub async fn set_email_daily_limit(
        &self,
        account: &AccountId,
        mode: crate::model::Mode,
        limit: Option<u32>,
    ) -> Result<()> {
        if self
            .svc
            .inner
            .store
            .set_email_daily_limit(account, mode, limit)
            .await?
        {
            self.svc.inner.keys.forget_account(account);
            Ok(())
        } else {
            Err(Error::not_found("account", account))
        }
    }

    /// Bytes of PDFs the account's records hold (each file once, test and live data alike).
    pub async fn storage_used(&self, account: &AccountId) -> Result<u64> {
        let account = self.account(account).await?;
        Ok(self.svc.inner.store.storage_used(&account.id).await?)
    }

    /// Gives a webhook endpoint a new secret; the old one keeps signing (as a second `v1`) for
    /// 24 hours so receivers can switch without losing deliveries. Returns the new secret.
    pub async fn rotate_webhook_secret(&self, endpoint: &WebhookEndpointId) -> Result<String> {
        let store = &self.svc.inner.store;
        let mut ep = store
            .find_webhook_endpoint(endpoint)
            .await?
            .ok_or_else(|| Error::not_found("webhook_endpoint", endpoint))?;
        let new = format!("{}{}", ids::WEBHOOK_SECRET, ids::random_base62(32));
        // Both sealed: the old one may still be in the clear (stored before sealing began).
        let key = &self.svc.inner.response_key;
        let old = key.seal_webhook_secret(&ep.id, &self.svc.webhook_secret(&ep)?);
        ep.secret = key.seal_webhook_secret(&ep.id, &new);
        ep.previous_secret = Some(old);
        ep.previous_secret_expires_at = Some(self.svc.now() + chrono::Duration::hours(24));
        store.update_webhook_endpoint(&ep).await?;
        Ok(new)
    }

    /// The deliveries of an event, found by its ID alone.
    pub async fn event_deliveries(
        &self,
        event: &EventId,
    ) -> Result<crate::model::List<super::DeliveryView>> {
        let scope = self.event_scope(event).await?;
        self.svc.event_deliveries_in(&scope, event).await
    }

    /// Resends an event (to one endpoint, or to every subscribed one), found by its ID alone.
    pub async fn resend_event(
        &self,
        event: &EventId,
        endpoint: Option<&str>,
    ) -> Result<crate::model::List<super::DeliveryView>> {
        let scope = self.event_scope(event).await?;
        self.svc.resend_event_in(&scope, event, endpoint).await
    }

    async fn event_scope(&self, event: &EventId) -> Result<crate::model::Scope> {
        let ev = self
            .svc
            .inner
            .store
            .find_event(event)
            .await?
            .ok_or_else(|| Error::not_found("event", event))?;
        Ok(crate::model::Scope {
            account: ev.account,
            mode: ev.mode,
        })
    }

    /// The signing secret of a webhook endpoint (its record keeps it sealed).
    pub async fn reveal_webhook_secret(&self, endpoint: &WebhookEndpointId) -> Result<String> {
        let ep = self
            .svc
            .inner
            .store
            .find_webhook_endpoint(endpoint)
            .await?
            .ok_or_else(|| Error::not_found("webhook_endpoint", endpoint))?;
        self.svc.webhook_secret(&ep)
    }
}
