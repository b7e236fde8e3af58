//! Webhook endpoints: create, list, get, update, delete.

use serde_json::Value;

use super::paging;
use super::params::{Params, check_description};
use super::{AuthContext, ListParams, SigningService};
use crate::error::{Error, Result};
use crate::ids::{self, WebhookEndpointId};
use crate::model::{
    Deleted, EndpointStatus, EventType, List, WebhookEndpoint, WebhookEndpointRecord,
};
use crate::store::{Listed, PageRequest};
use crate::webhook::{UrlRules, check_url};

/// Parameters of `create webhook endpoint`.
#[derive(Debug, Clone, Default)]
pub struct CreateEndpointParams {
    /// The URL events are posted to (key `url`), required.
    pub url: String,
    /// Event types or `["*"]`; `None` means all.
    pub events: Option<Vec<String>>,
    /// A description of the endpoint (key `description`).
    pub description: Option<String>,
}

impl CreateEndpointParams {
    /// Reads and validates the parameters of a webhook endpoint creation request.
    pub fn parse(mut p: Params) -> Result<Self> {
        let url = p.required_string("url")?;
        let events = p
            .json_value("events")?
            .map(|v| parse_events(&v))
            .transpose()?;
        let description = p.string("description")?;
        check_description(description.as_deref())?;
        p.finish()?;
        Ok(CreateEndpointParams {
            url,
            events,
            description,
        })
    }
}

/// Parameters of `update webhook endpoint`: `url`, `events`, `description`, `status`.
#[derive(Debug, Clone, Default)]
pub struct UpdateEndpointParams {
    /// The new URL (key `url`).
    pub url: Option<String>,
    /// The new list of event types to receive (key `events`).
    pub events: Option<Vec<String>>,
    /// The new description (key `description`).
    pub description: Option<String>,
    /// The new status (key `status`): `enabled` or `disabled`.
    pub status: Option<EndpointStatus>,
}

impl UpdateEndpointParams {
    /// Reads and validates the parameters of a webhook endpoint update request.
    pub fn parse(mut p: Params) -> Result<Self> {
        let url = p.string("url")?;
        let events = p
            .json_value("events")?
            .map(|v| parse_events(&v))
            .transpose()?;
        let description = p.string("description")?;
        check_description(description.as_deref())?;
        let status = match p.string("status")?.as_deref() {
            None => None,
            Some("enabled") => Some(EndpointStatus::Enabled),
            Some("disabled") => Some(EndpointStatus::Disabled),
            Some(_) => return Err(Error::invalid("status", "must be enabled or disabled")),
        };
        p.finish()?;
        Ok(UpdateEndpointParams {
            url,
            events,
            description,
            status,
        })
    }
}

fn parse_events(v: &Value) -> Result<Vec<String>> {
    let Value::Array(items) = v else {
        return Err(Error::invalid("events", "expected an array of event types"));
    };
    if items.is_empty() {
        return Err(Error::invalid(
            "events",
            "must list at least one event type, or \"*\"",
        ));
    }
    let mut out: Vec<String> = Vec::new();
    for (i, e) in items.iter().enumerate() {
        match e {
            Value::String(s) if s == "*" || EventType::parse(s).is_some() => {
                if !out.contains(s) {
                    out.push(s.clone());
                }
            }
            _ => {
                return Err(Error::invalid(
                    format!("events.{i}"),
                    "must be an event type or \"*\"",
                ));
            }
        }
    }
    if out.iter().any(|e| e == "*") {
        out = vec!["*".into()];
    }
    Ok(out)
}

impl SigningService {
    fn url_rules(&self) -> UrlRules {
        UrlRules {
            allow_insecure: self.inner.settings.allow_insecure_webhook_urls,
        }
    }

    fn checked_url(&self, raw: &str) -> Result<String> {
        check_url(raw, self.url_rules())
            .map(|u| u.to_string())
            .map_err(|message| Error::UrlInvalid {
                param: "url".into(),
                message,
            })
    }

    /// Creates an endpoint; the response alone carries its `secret`. An account has at most
    /// `Limits::max_webhook_endpoints` per mode (409 `invalid_state` past it).
    pub async fn create_webhook_endpoint(
        &self,
        ctx: &AuthContext,
        p: CreateEndpointParams,
    ) -> Result<WebhookEndpoint> {
        let url = self.checked_url(&p.url)?;
        let max = self.inner.settings.limits.max_webhook_endpoints;
        // Checked before the insert, not in it: creates racing past the cap can exceed it by
        // their number, which still bounds what one account makes the worker do.
        if self.count_webhook_endpoints(ctx, max).await? >= max {
            return Err(Error::state(format!(
                "This account already has {max} webhook endpoints in this mode, the most it \
                 may have; delete one before creating another."
            )));
        }
        let id =
            ids::WebhookEndpointId::trusted(ctx.new_id(ids::WEBHOOK_ENDPOINT, "webhook endpoint"));
        let secret = format!("{}{}", ids::WEBHOOK_SECRET, ids::random_base62(32));
        let rec = WebhookEndpointRecord {
            secret: self.inner.response_key.seal_webhook_secret(&id, &secret),
            id,
            account: ctx.account.id.clone(),
            mode: ctx.mode(),
            url,
            events: p.events.unwrap_or_else(|| vec!["*".into()]),
            description: p.description,
            status: EndpointStatus::Enabled,
            created_at: self.now(),
            previous_secret: None,
            previous_secret_expires_at: None,
        };
        let rec = match self.inner.store.insert_webhook_endpoint(&rec).await {
            Ok(()) => rec,
            // A retry of an idempotent request whose first attempt committed (see
            // `AuthContext::idempotency_origin`): its answer, secret included, never arrived.
            Err(crate::store::StoreError::Duplicate) if ctx.idempotency_origin.is_some() => self
                .inner
                .store
                .get_webhook_endpoint(&ctx.scope(), &rec.id)
                .await?
                .ok_or_else(|| Error::Internal("endpoint ID taken in another scope".into()))?,
            Err(e) => return Err(e.into()),
        };
        let mut view = rec.view();
        view.secret = Some(self.webhook_secret(&rec)?);
        Ok(view)
    }

    /// The endpoint's signing secret in the clear (its record keeps it sealed with the
    /// service's [`ResponseKey`](super::ResponseKey)).
    pub(crate) fn webhook_secret(&self, rec: &WebhookEndpointRecord) -> Result<String> {
        self.inner
            .response_key
            .open_webhook_secret(&rec.id, &rec.secret)
            .map_err(|_| unreadable_secret(&rec.id))
    }

    /// Seals the signing secrets that endpoints still keep in the clear (stored before secrets
    /// were sealed), in every account: a one-time pass that `serve` runs at start; later ones
    /// find nothing to do. Returns how many endpoints it sealed. Like every endpoint update it
    /// is last-write-wins: an endpoint changed by another server between this pass's read and
    /// write of it (milliseconds) loses that change.
    pub async fn seal_webhook_secrets(&self) -> Result<usize> {
        use crate::model::Mode;
        use crate::service::response_key::is_sealed;
        let store = &self.inner.store;
        let key = &self.inner.response_key;
        let mut sealed = 0;
        for account in store.list_accounts().await? {
            for mode in [Mode::Test, Mode::Live] {
                let scope = crate::model::Scope {
                    account: account.id.clone(),
                    mode,
                };
                let mut after = None;
                loop {
                    let page = PageRequest {
                        limit: 100,
                        starting_after: after.take(),
                    };
                    let Listed::Page(items, more) =
                        store.list_webhook_endpoints(&scope, &page).await?
                    else {
                        break;
                    };
                    for mut ep in items.iter().cloned() {
                        let clear = |s: &str| !is_sealed(s);
                        if !clear(&ep.secret) && !ep.previous_secret.as_deref().is_some_and(clear) {
                            continue;
                        }
                        if clear(&ep.secret) {
                            ep.secret = key.seal_webhook_secret(&ep.id, &ep.secret);
                        }
                        if let Some(old) = ep.previous_secret.as_mut().filter(|s| clear(s)) {
                            *old = key.seal_webhook_secret(&ep.id, old);
                        }
                        match store.update_webhook_endpoint(&ep).await {
                            Ok(()) => sealed += 1,
                            // Deleted meanwhile: nothing left to seal.
                            Err(crate::store::StoreError::Conflict) => {}
                            Err(e) => return Err(e.into()),
                        }
                    }
                    after = items.last().map(|e| e.id.to_string());
                    if !more {
                        break;
                    }
                }
            }
        }
        Ok(sealed)
    }

    /// The scope's endpoints, counted up to `stop`.
    async fn count_webhook_endpoints(&self, ctx: &AuthContext, stop: usize) -> Result<usize> {
        let mut n = 0;
        let mut after = None;
        while n < stop {
            let page = crate::store::PageRequest {
                limit: 100,
                starting_after: after,
            };
            let crate::store::Listed::Page(items, more) = self
                .inner
                .store
                .list_webhook_endpoints(&ctx.scope(), &page)
                .await?
            else {
                break;
            };
            n += items.len();
            after = items.last().map(|e| e.id.to_string());
            if !more {
                break;
            }
        }
        Ok(n)
    }

    async fn load_endpoint(
        &self,
        ctx: &AuthContext,
        id: &WebhookEndpointId,
    ) -> Result<WebhookEndpointRecord> {
        self.inner
            .store
            .get_webhook_endpoint(&ctx.scope(), id)
            .await?
            .ok_or_else(|| Error::not_found("webhook_endpoint", id))
    }

    /// Returns a webhook endpoint of the account and mode; `not_found` if there is none with this
    /// ID.
    pub async fn get_webhook_endpoint(
        &self,
        ctx: &AuthContext,
        id: &WebhookEndpointId,
    ) -> Result<WebhookEndpoint> {
        Ok(self.load_endpoint(ctx, id).await?.view())
    }

    /// Lists the webhook endpoints of the account and mode, one page at a time.
    pub async fn list_webhook_endpoints(
        &self,
        ctx: &AuthContext,
        list: &ListParams,
    ) -> Result<List<WebhookEndpoint>> {
        let (items, more) = paging::page(list, "webhook_endpoint", async |page| {
            self.inner
                .store
                .list_webhook_endpoints(&ctx.scope(), page)
                .await
        })
        .await?;
        Ok(List::new(
            "/v1/webhook_endpoints",
            items.iter().map(WebhookEndpointRecord::view).collect(),
            more,
        ))
    }

    /// Updates a webhook endpoint; `not_found` if there is none with this ID.
    pub async fn update_webhook_endpoint(
        &self,
        ctx: &AuthContext,
        id: &WebhookEndpointId,
        p: UpdateEndpointParams,
    ) -> Result<WebhookEndpoint> {
        let mut rec = self.load_endpoint(ctx, id).await?;
        if let Some(u) = &p.url {
            rec.url = self.checked_url(u)?;
        }
        if let Some(e) = p.events {
            rec.events = e;
        }
        if let Some(d) = p.description {
            rec.description = Some(d);
        }
        if let Some(s) = p.status {
            rec.status = s;
        }
        self.inner.store.update_webhook_endpoint(&rec).await?;
        Ok(rec.view())
    }

    /// Deletes a webhook endpoint; `not_found` if there is none with this ID.
    pub async fn delete_webhook_endpoint(
        &self,
        ctx: &AuthContext,
        id: &WebhookEndpointId,
    ) -> Result<Deleted> {
        if !self
            .inner
            .store
            .delete_webhook_endpoint(&ctx.scope(), id)
            .await?
        {
            return Err(Error::not_found("webhook_endpoint", id));
        }
        Ok(Deleted {
            id: id.to_string(),
            object: "webhook_endpoint".into(),
            deleted: true,
        })
    }
}

/// A sealed secret that does not open under the service's key: the start's key check
/// (`ResponseKey::check_against`) keeps a wrong key out, so this is an altered record.
fn unreadable_secret(endpoint: &str) -> Error {
    Error::Internal(format!(
        "the signing secret of webhook endpoint {endpoint} does not open with the response key"
    ))
}
