//! Bulk sends (extensions E12): one template, up to [`MAX_BULK_ROWS`] rows, every row checked
//! as `POST /v1/envelopes` checks one envelope before anything is written, the allowance of
//! every row reserved with the record; then the envelopes made and sent in the background
//! ([`SigningService::bulk_send_step`]), a chunk at a time under a lease, each with an ID
//! derived from (bulk send, row), so that a crash resumes where it stopped and no row makes two.
//!
//! The rows' parsing (JSON rows, CSV with the `csv` crate) is `bulk_sends/rows.rs`. This module
//! must never write an envelope any other way than `create_envelope` does
//! (`SigningService::write_new_envelope`).

mod rows;

use std::time::Duration;

use futures_util::StreamExt;

use super::envelopes::{Checked, CreateEnvelopeParams, Maker, check_coverage, check_data};
use super::params::Params;
use super::{AuthContext, ListParams, SigningService, paging, period_of};
use crate::clock::Timestamp;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::{self, BulkSendId};
use crate::model::{
    BulkFailure, BulkRow, BulkSend, BulkSendRecord, BulkSendStatus, Delivery, Event, EventData,
    EventObject, EventRecord, EventType, List, TemplateRecord,
};
use crate::store::{AllowanceDebit, StoreError};

pub use rows::{BulkRowParams, RowsFormat};

/// The most rows one bulk send may have.
pub const MAX_BULK_ROWS: usize = 1_000;

/// Rows made into envelopes between two writes of the record (its cursor and counters).
const CHUNK: usize = 50;

/// Envelopes of one chunk written at once: their commits share SQLite's fsyncs.
const IN_FLIGHT: usize = 16;

/// How long a claim lasts; each chunk's write renews it. A process that dies leaves its bulk
/// send to be claimed again this long after its last write.
pub const BULK_SEND_LEASE: Duration = Duration::from_secs(30);

/// Parameters of `POST /v1/bulk_sends`.
#[derive(Debug, Clone)]
pub struct CreateBulkSendParams {
    /// The template every envelope is made from (key `template`).
    pub template: String,
    /// The rows, each one envelope (key `rows`: a JSON list, or a CSV part).
    pub rows: Vec<BulkRowParams>,
    /// How the rows were given, for the errors' `param`.
    pub format: RowsFormat,
    /// How signers receive their links (key `delivery`).
    pub delivery: Delivery,
    /// The subject of the signing emails (key `subject`).
    pub subject: Option<String>,
    /// A message included in the signing emails (key `message`).
    pub message: Option<String>,
    /// Days until each envelope expires, from its sending (key `expires_in_days`).
    pub expires_in_days: Option<u32>,
}

impl CreateBulkSendParams {
    /// Parses request parameters: a JSON body with `rows` a list of `{signers, data, metadata,
    /// cc}`, or multipart text parts with `rows` a CSV file (header `Role.name`, `Role.email`,
    /// `data.KEY`, `metadata.KEY`).
    pub fn parse(mut p: Params, limits: &super::Limits) -> Result<Self> {
        let template = p.required_string("template")?;
        let (rows, format) = if p.is_form() {
            let text = p.required_string("rows")?;
            (rows::parse_csv(&text, limits)?, RowsFormat::Csv)
        } else {
            let v = p
                .json_value("rows")?
                .ok_or_else(|| Error::missing("rows"))?;
            (rows::parse_json(&v, limits)?, RowsFormat::Json)
        };
        let delivery = match p.string("delivery")?.as_deref() {
            None | Some("email") => Delivery::Email,
            Some("embedded") => Delivery::Embedded,
            Some(_) => return Err(Error::invalid("delivery", "must be email or embedded")),
        };
        let subject = p.string("subject")?;
        let message = p.string("message")?;
        let expires_in_days = super::envelopes::expires_in_days(&mut p, limits)?;
        p.finish()?;
        Ok(CreateBulkSendParams {
            template,
            rows,
            format,
            delivery,
            subject,
            message,
            expires_in_days,
        })
    }

    /// The parameters of row `i`'s envelope, as `POST /v1/envelopes` would take them.
    fn envelope_params(&self, row: &BulkRowParams) -> CreateEnvelopeParams {
        CreateEnvelopeParams {
            signers: row.signers.clone(),
            signers_by_role: row.signers_by_role,
            template: Some(self.template.clone()),
            data: row.data.clone(),
            delivery: self.delivery,
            subject: self.subject.clone(),
            message: self.message.clone(),
            send: true,
            expires_in_days: self.expires_in_days,
            metadata: row.metadata.clone(),
            cc: row.cc.clone(),
            ..Default::default()
        }
    }
}

impl SigningService {
    /// `POST /v1/bulk_sends`: checks every row as `POST /v1/envelopes` would check its envelope
    /// (one bad row answers its error, with `param` naming the row, and nothing is created),
    /// reserves the live allowance of every row with the record, and starts making the
    /// envelopes in the background. Answers the bulk send, `processing`.
    pub async fn create_bulk_send(
        &self,
        ctx: &AuthContext,
        p: CreateBulkSendParams,
    ) -> Result<BulkSend> {
        let limits = &self.inner.settings.limits;
        if p.rows.is_empty() {
            return Err(Error::invalid("rows", "at least one row is required"));
        }
        if p.rows.len() > MAX_BULK_ROWS {
            return Err(too_many_rows());
        }
        super::envelopes::check_letter(p.subject.as_deref(), p.message.as_deref())?;
        super::envelopes::check_expiry(p.expires_in_days, limits)?;
        let scope = ctx.scope();
        let id = BulkSendId::trusted(ctx.new_id(ids::BULK_SEND, "bulk_send"));
        // The envelopes share the template's file: no new bytes, but an account above its
        // quota makes none, as a create from the template would not.
        if let Err(e) = self.check_storage(ctx, 0).await {
            return match self.first_bulk_send(ctx, &id).await? {
                Some(first) => Ok(first),
                None => Err(e),
            };
        }
        // Read once for every row.
        let template = self.usable_template(&scope, &p.template).await?;
        let mut rows = Vec::with_capacity(p.rows.len());
        for (i, row) in p.rows.iter().enumerate() {
            let params = p.envelope_params(row);
            let checked = async {
                params.validate(limits)?;
                self.check_envelope(&params, Some(&template)).await
            }
            .await
            .map_err(|e| p.format.row_error(i, row, e))?;
            rows.push(BulkRow {
                signers: checked.signers,
                data: params.data,
                metadata: params.metadata,
                cc: params
                    .cc
                    .iter()
                    .map(|c| crate::model::CcRecipient {
                        id: crate::ids::RecipientId::new(),
                        name: c.name.trim().to_string(),
                        email: c.email.trim().to_string(),
                    })
                    .collect(),
            });
        }

        let now = self.now();
        let total = rows.len() as u32;
        let debit = if ctx.mode().is_live() {
            Some(self.bulk_debit(ctx, now, total).await?)
        } else {
            None
        };
        let rec = BulkSendRecord {
            id,
            account: ctx.account.id.clone(),
            mode: ctx.mode(),
            version: 1,
            status: BulkSendStatus::Processing,
            template: template.id.clone(),
            total,
            created: 0,
            failed: 0,
            next_row: 0,
            failures: Vec::new(),
            created_at: now,
            completed_at: None,
            lease_until: None,
            period: debit.as_ref().map(|d| d.period.clone()),
            delivery: p.delivery,
            subject: p.subject,
            message: p.message,
            expires_in_days: p.expires_in_days,
        };
        match self
            .inner
            .store
            .create_bulk_send(&rec, &rows, debit.as_ref())
            .await
        {
            Ok(()) => {}
            // A retry of an idempotent request whose first attempt committed: that one is the
            // answer.
            Err(StoreError::Duplicate) if ctx.idempotency_origin.is_some() => {
                return self
                    .first_bulk_send(ctx, &rec.id)
                    .await?
                    .ok_or_else(|| Error::Internal("bulk send ID taken in another scope".into()));
            }
            Err(e) => return Err(e.into()),
        }
        self.kick_bulk_sends();
        Ok(rec.view())
    }

    /// The bulk send a retried request made with its first attempt, if it committed.
    async fn first_bulk_send(
        &self,
        ctx: &AuthContext,
        id: &BulkSendId,
    ) -> Result<Option<BulkSend>> {
        if ctx.idempotency_origin.is_none() {
            return Ok(None);
        }
        let found = self.inner.store.get_bulk_send(&ctx.scope(), id).await?;
        Ok(found.map(|b| b.view()))
    }

    /// The reservation of `total` live units, refused early when they do not all fit (the
    /// store checks again atomically).
    async fn bulk_debit(
        &self,
        ctx: &AuthContext,
        now: Timestamp,
        total: u32,
    ) -> Result<AllowanceDebit> {
        let account = self
            .inner
            .store
            .get_account(&ctx.account.id)
            .await?
            .unwrap_or_else(|| ctx.account.clone());
        let (period, _, _) = period_of(now);
        let used = self.inner.store.usage(&account.id, &period).await?;
        if u64::from(used) + u64::from(total) > u64::from(account.monthly_allowance) {
            return Err(Error::InsufficientBalance);
        }
        Ok(AllowanceDebit {
            account: account.id,
            period,
            allowance: account.monthly_allowance,
        })
    }

    /// `GET /v1/bulk_sends/{id}`.
    pub async fn get_bulk_send(&self, ctx: &AuthContext, id: &BulkSendId) -> Result<BulkSend> {
        self.inner
            .store
            .get_bulk_send(&ctx.scope(), id)
            .await?
            .map(|b| b.view())
            .ok_or_else(|| Error::not_found("bulk_send", id))
    }

    /// `GET /v1/bulk_sends`: newest first.
    pub async fn list_bulk_sends(
        &self,
        ctx: &AuthContext,
        list: &ListParams,
    ) -> Result<List<BulkSend>> {
        let (items, more) = paging::page(list, "bulk_send", async |page| {
            self.inner.store.list_bulk_sends(&ctx.scope(), page).await
        })
        .await?;
        Ok(List::new(
            "/v1/bulk_sends",
            items.into_iter().map(|b| b.view()).collect(),
            more,
        ))
    }

    /// Works bulk sends in a task of their own until none is left to claim: what a create
    /// starts at once (the maintenance loop also calls [`SigningService::bulk_send_step`], for
    /// those a crash left behind).
    pub(crate) fn kick_bulk_sends(&self) {
        let svc = self.clone();
        tokio::spawn(async move {
            loop {
                match svc.bulk_send_step().await {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => {
                        tracing::error!(error = ?e, "bulk send step failed");
                        break;
                    }
                }
            }
        });
    }

    /// One step of the background work of bulk sends: claims one bulk send whose lease is free
    /// (none held, or its holder's ended) and makes its remaining rows into envelopes a chunk
    /// at a time, writing the cursor and counters after each chunk (which renews the lease);
    /// the last write completes it with `bulk_send.completed`. True when there was one to
    /// work. A row whose envelope exists already (made before a crash) counts as made; a row
    /// refused for a reason that arose after the check (the template deleted or archived, the
    /// storage quota) counts as failed and gives its allowance unit back. A failure of the
    /// store stops the step without advancing: the lease runs out and the chunk is made again.
    pub async fn bulk_send_step(&self) -> Result<bool> {
        let now = self.now();
        let lease = chrono::Duration::from_std(BULK_SEND_LEASE).unwrap_or_default();
        let Some((mut rec, rows)) = self.inner.store.claim_bulk_send(now, now + lease).await?
        else {
            return Ok(false);
        };
        if rows.len() != rec.total as usize {
            return Err(Error::Internal(format!(
                "bulk send {} has {} stored rows of {}",
                rec.id,
                rows.len(),
                rec.total
            )));
        }
        loop {
            let start = rec.next_row as usize;
            let end = (start + CHUNK).min(rows.len());
            // Read once per chunk: a template deleted since fails the rows after it.
            let template = self.usable_template(&rec.scope(), &rec.template).await;
            let made: Vec<Result<()>> = futures_util::stream::iter(start..end)
                .map(|i| self.make_bulk_row(&rec, i, &rows[i], template.as_ref()))
                .buffered(IN_FLIGHT)
                .collect()
                .await;
            let mut refund = 0;
            for (i, outcome) in (start..end).zip(made) {
                match outcome {
                    Ok(()) => rec.created += 1,
                    Err(e) if matches!(e.kind(), ErrorKind::Internal | ErrorKind::Unavailable) => {
                        return Err(e);
                    }
                    Err(e) => {
                        rec.failed += 1;
                        refund += 1;
                        rec.failures.push(BulkFailure {
                            row: i as u32,
                            code: e.code().into(),
                            message: e.public_message(),
                        });
                    }
                }
            }
            let now = self.now();
            rec.next_row = end as u32;
            rec.version += 1;
            let mut events = Vec::new();
            if end == rows.len() {
                rec.status = BulkSendStatus::Completed;
                rec.completed_at = Some(now);
                rec.lease_until = None;
                events.push(completed_event(&rec, now));
            } else {
                rec.lease_until = Some(now + lease);
            }
            let refund = if rec.period.is_some() { refund } else { 0 };
            match self
                .inner
                .store
                .update_bulk_send(&rec, &events, refund)
                .await
            {
                Ok(()) => {}
                // The lease ran out and another process claimed it: it goes on from there.
                Err(StoreError::Conflict) => return Ok(true),
                Err(e) => return Err(e.into()),
            }
            if rec.status == BulkSendStatus::Completed {
                return Ok(true);
            }
        }
    }

    /// Makes row `i` of `bulk` into its envelope, as `create_envelope` makes one: the checks that
    /// depend on the template again (it may have changed since), then the one write. A row
    /// whose envelope exists (its ID is derived from the bulk send and the row) is made.
    async fn make_bulk_row(
        &self,
        bulk: &BulkSendRecord,
        i: usize,
        row: &BulkRow,
        template: std::result::Result<&TemplateRecord, &Error>,
    ) -> Result<()> {
        let template = match template {
            Ok(t) => t,
            Err(e) => return Err(clone_refusal(e)),
        };
        let origin = format!("{}:{i}", bulk.id);
        let maker = Maker {
            account: &bulk.account,
            mode: bulk.mode,
            origin: Some(&origin),
        };
        let id = ids::EnvelopeId::trusted(maker.new_id(ids::ENVELOPE, "envelope"));
        if self
            .inner
            .store
            .envelope_stamp(&bulk.scope(), &id)
            .await?
            .is_some()
        {
            return Ok(());
        }
        check_coverage(&template.fields, &row.signers, false)?;
        let data = check_data(&template.fields, &row.data)?;
        let p = CreateEnvelopeParams {
            template: Some(template.id.to_string()),
            delivery: bulk.delivery,
            subject: bulk.subject.clone(),
            message: bulk.message.clone(),
            send: true,
            expires_in_days: bulk.expires_in_days,
            metadata: row.metadata.clone(),
            ..Default::default()
        };
        let checked = Checked::of_template(template, row.signers.clone(), data);
        let now = self.now();
        let mut rec = self.build_envelope(&maker, &p, checked, now).await?;
        rec.cc = row.cc.clone();
        rec.bulk_send = Some(bulk.id.clone());
        // The allowance was reserved for every row with the bulk send: no debit here.
        match self.write_new_envelope(rec, true, None, now).await? {
            Ok(_) | Err((_, StoreError::Duplicate)) => Ok(()),
            Err((_, StoreError::QuotaExceeded)) => {
                Err(self.storage_refusal_of(&bulk.account, 0).await)
            }
            Err((_, StoreError::Conflict)) => Err(super::envelopes::template_missing(&template.id)),
            Err((_, e)) => Err(e.into()),
        }
    }
}

/// A refusal met once for a whole chunk (the template's), given to each of its rows.
fn clone_refusal(e: &Error) -> Error {
    match e {
        Error::NotFound {
            resource,
            id,
            param,
        } => Error::NotFound {
            resource,
            id: id.clone(),
            param: param.clone(),
        },
        other => Error::Internal(format!("reading the template failed: {other}")),
    }
}

fn too_many_rows() -> Error {
    Error::invalid(
        "rows",
        format!("a bulk send has at most {MAX_BULK_ROWS} rows"),
    )
}

/// `bulk_send.completed` for `rec`, now completed.
fn completed_event(rec: &BulkSendRecord, now: Timestamp) -> EventRecord {
    EventRecord {
        account: rec.account.clone(),
        mode: rec.mode,
        event: Event {
            id: ids::EventId::new(),
            object: "event".into(),
            kind: EventType::BulkSendCompleted,
            livemode: rec.mode.is_live(),
            created_at: now,
            data: EventData {
                object: EventObject::BulkSend(rec.view()),
                signer: None,
                previous: None,
                changes: None,
                cc: None,
                email: None,
                until: None,
            },
        },
    }
}
