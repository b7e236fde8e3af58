//! Changing a draft envelope (extensions E11, `PATCH /v1/envelopes/{id}`), or correcting a sent
//! one nobody has signed yet (extensions E14, `correct`): its signers, explicit fields, subject,
//! message, metadata and expiry.
//!
//! Every member is parsed and checked by the validators of envelope creation
//! (`envelopes.rs`), and the envelope that results must pass every rule creation enforces
//! (roles covered by signers, fields inside the documents' pages, sender data), with the same
//! error codes and `param` paths. This module must never grow rules of its own that creation
//! does not share.

use std::collections::{BTreeMap, HashSet};

use serde_json::Value;

use super::envelopes::{
    SignerParam, check_coverage, check_data, check_expiry, check_letter, check_metadata,
    check_signers, expires_in_days, parse_signers, place_fields, resolve_signers,
};
use super::fields::roles_in_order;
use super::lifecycle::Change;
use super::params::{Params, metadata};
use super::precondition::{self, Precondition, Versioned};
use super::{AuthContext, Limits, SigningService};
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::field::{FieldSource, FieldType, PlacedField};
use crate::ids::EnvelopeId;
use crate::model::{
    Changed, Correction, Envelope, EnvelopeRecord, EnvelopeStatus, EventType, IdentityRecord,
    SignerKind, SignerStatus, SignerValue,
};
use crate::pdf::{self, PageSize};
use crate::rules::{self, mark_turns};

/// Parameters of `update draft` (`PATCH /v1/envelopes/{id}`): each given member replaces the old
/// value whole; absent (or `null`) members leave it as it is.
#[derive(Debug, Clone, Default)]
pub struct UpdateDraftParams {
    /// The new signers (key `signers`), a list or an object keyed by role as on create; they
    /// replace the old ones (with new signer IDs).
    pub signers: Option<Vec<SignerParam>>,
    /// True when `signers` was given as an object keyed by role.
    pub signers_by_role: bool,
    /// The new explicit fields (key `fields`), as sent, in the shape of create's `fields`. They
    /// replace the envelope's explicit fields; fields found in its documents (tags, form fields)
    /// stay, and their keys stay taken.
    pub fields: Option<Value>,
    /// The new subject of the signing emails (key `subject`).
    pub subject: Option<String>,
    /// The new message of the signing emails (key `message`).
    pub message: Option<String>,
    /// The new metadata (key `metadata`), replacing the old map whole.
    pub metadata: Option<BTreeMap<String, String>>,
    /// Days until the envelope expires, counted from its send as on create (key
    /// `expires_in_days`).
    pub expires_in_days: Option<u32>,
    /// The version the envelope must be at for the change to apply (HTTP's `If-Match`); `None`
    /// applies it to whatever version is current. Not a body member: a front end sets it.
    pub if_version: Option<Precondition>,
}

impl UpdateDraftParams {
    /// Reads and validates the parameters of a draft update request; any other member is
    /// `parameter_unknown`.
    pub fn parse(mut p: Params, limits: &Limits) -> Result<Self> {
        let (signers, signers_by_role) = match p.json_value("signers")? {
            Some(v) => {
                let (s, by_role) = parse_signers(&v, limits)?;
                (Some(s), by_role)
            }
            None => (None, false),
        };
        let fields = p.json_value("fields")?;
        let subject = p.string("subject")?;
        let message = p.string("message")?;
        let metadata = match p.json_value("metadata")? {
            Some(v) => Some(metadata(Some(v), limits.max_metadata_keys)?),
            None => None,
        };
        let expires_in_days = expires_in_days(&mut p, limits)?;
        p.finish()?;
        let params = UpdateDraftParams {
            signers,
            signers_by_role,
            fields,
            subject,
            message,
            metadata,
            expires_in_days,
            if_version: None,
        };
        params.validate(limits)?;
        Ok(params)
    }

    /// Checks the members with create's rules (also for parameters built in Rust). `fields` is
    /// checked against the envelope's documents by [`SigningService::update_draft`].
    pub fn validate(&self, limits: &Limits) -> Result<()> {
        if let Some(s) = &self.signers {
            check_signers(s, self.signers_by_role, limits)?;
        }
        check_letter(self.subject.as_deref(), self.message.as_deref())?;
        if let Some(m) = &self.metadata {
            check_metadata(m, limits)?;
        }
        check_expiry(self.expires_in_days, limits)
    }
}

impl SigningService {
    /// Changes a draft envelope (extensions E11, `PATCH /v1/envelopes/{id}`): each given member
    /// of `p` replaces the old value, and the result must pass every rule of creation.
    ///
    /// A sent envelope nobody has signed yet is corrected instead (extensions E14): signers'
    /// names and emails (a changed signer's earlier links stop working and a new request goes
    /// out), fields, subject, message, metadata and expiry; the change is recorded for the audit
    /// trail and `envelope.corrected` names what changed. Nothing changed, nothing recorded.
    ///
    /// Errors: an envelope that is neither is [`Error::InvalidState`] (409); a rule of
    /// creation broken is its error of creation (`parameter_invalid` with `fields.N`,
    /// `missing_signer`, `signer_without_fields`, `missing_data`...). Writes retry from a
    /// fresh read when another writer changed the envelope in between. No event is emitted: a
    /// draft has not reached anyone yet (decisions.md names none for it).
    pub async fn update_draft(
        &self,
        ctx: &AuthContext,
        id: &EnvelopeId,
        p: UpdateDraftParams,
    ) -> Result<Envelope> {
        Ok(self.update_draft_versioned(ctx, id, p).await?.value)
    }

    /// [`SigningService::update_draft`], with the version of the envelope the answer shows.
    ///
    /// When `p.if_version` is set, each attempt checks it against the envelope just loaded,
    /// before any other rule: an envelope at another version is [`Error::EditConflict`] (409)
    /// and nothing is written.
    pub async fn update_draft_versioned(
        &self,
        ctx: &AuthContext,
        id: &EnvelopeId,
        p: UpdateDraftParams,
    ) -> Result<Versioned<Envelope>> {
        let limits = self.inner.settings.limits.clone();
        p.validate(&limits)?;
        let pre = p.if_version.as_ref();
        // The documents' page sizes, read once: a draft's documents never change.
        let pages = match &p.fields {
            Some(_) => {
                let rec = self.load_envelope(ctx, id).await?;
                precondition::check(pre, "envelope", rec.version)?;
                must_be_draft(&rec)?;
                Some(self.document_pages(&rec, limits.max_pages).await?)
            }
            None => None,
        };
        let (rec, ()) = self
            .transition(ctx, id, |env, now| {
                precondition::check(pre, "envelope", env.version)?;
                must_be_draft(env)?;
                if env.status == EnvelopeStatus::Sent {
                    // A correction (extensions E14): what changed is recorded, changed signers
                    // get a new request, and the event says what changed.
                    return Ok(match correct(env, &p, pages.as_deref(), &limits, now)? {
                        true => Change::new(()).event(EventType::Corrected, None),
                        false => Change::new(()),
                    });
                }
                apply(env, &p, pages.as_deref(), &limits)?;
                Ok(Change::new(()))
            })
            .await?;
        Ok(Versioned {
            value: rec.view(),
            version: rec.version,
        })
    }

    /// The page sizes of each document of `rec`, in order.
    async fn document_pages(
        &self,
        rec: &EnvelopeRecord,
        max_pages: u32,
    ) -> Result<Vec<Vec<PageSize>>> {
        let mut out = Vec::with_capacity(rec.document_count() as usize);
        for n in 1..=rec.document_count() {
            let (original, _) = rec
                .document(n)
                .ok_or_else(|| Error::Internal(format!("document {n} is missing")))?;
            let bytes = self
                .read_file(original)
                .await?
                .ok_or_else(|| Error::Internal(format!("document {n} is gone")))?;
            let limits = pdf::PdfLimits {
                max_pages,
                ..pdf::PdfLimits::default()
            };
            let sizes = self
                .blocking("page sizes", move || pdf::page_sizes(&bytes, &limits))
                .await?
                .map_err(|e| Error::Internal(format!("page sizes of an accepted PDF: {e}")))?;
            out.push(sizes);
        }
        Ok(out)
    }
}

/// A draft, or a sent envelope nobody has signed, approved or viewed to the end yet (extensions
/// E14: a correction).
fn must_be_draft(rec: &EnvelopeRecord) -> Result<()> {
    match rec.status {
        EnvelopeStatus::Draft => Ok(()),
        EnvelopeStatus::Sent
            if rec
                .signers
                .iter()
                .all(|s| s.signer.status != SignerStatus::Completed) =>
        {
            Ok(())
        }
        EnvelopeStatus::Sent => Err(Error::state(
            "A sent envelope can be corrected until its first signature; someone has signed \
             this one. Void it and send a new one instead.",
        )),
        other => Err(Error::state(format!(
            "Only draft envelopes, and sent ones nobody has signed yet, can be changed; this \
             one is {}.",
            other.as_str()
        ))),
    }
}

/// The most corrections one envelope keeps: each stays in the record and the audit trail.
pub const MAX_CORRECTIONS: usize = 20;

/// Corrects the sent envelope `env` (extensions E14): signers' names and emails (matched by
/// role, or by position in a list without roles; signers not named stay as they are), fields,
/// subject, message, metadata and expiry. Whatever else a signer entry says must be what the
/// signer has (`order`, `kind`, `in_person`; `auth` cannot be given). A signer whose name or
/// email changed is handed over as by a reassignment marked `corrected`: their earlier links
/// stop working and, when it is their turn, a new request goes out. Returns whether anything
/// changed (then a [`Correction`] is recorded).
fn correct(
    env: &mut EnvelopeRecord,
    p: &UpdateDraftParams,
    pages: Option<&[Vec<PageSize>]>,
    limits: &Limits,
    now: Timestamp,
) -> Result<bool> {
    if env.corrections.len() >= MAX_CORRECTIONS {
        return Err(Error::state(format!(
            "This envelope has been corrected {MAX_CORRECTIONS} times, the most one envelope \
             can be. Void it and send a new one instead."
        )));
    }
    let mut changes: Vec<Changed> = Vec::new();
    if let Some(given) = &p.signers {
        let mut seen: HashSet<usize> = HashSet::new();
        for (n, sp) in given.iter().enumerate() {
            let at = match (&sp.role, p.signers_by_role) {
                (Some(r), true) => format!("signers.{r}"),
                _ => format!("signers.{n}"),
            };
            let i = match &sp.role {
                Some(r) => env.signers.iter().position(|s| &s.signer.role == r),
                None => (n < env.signers.len()).then_some(n),
            }
            .ok_or_else(|| {
                Error::invalid(
                    format!("{at}.role"),
                    "no signer of this envelope has this role; once sent, a correction changes \
                     the names and emails of its signers, it does not add any",
                )
            })?;
            if !seen.insert(i) {
                return Err(Error::invalid(
                    format!("{at}.role"),
                    "this signer is named twice",
                ));
            }
            let cur = env.signers[i].signer.clone();
            let fixed = |member: &str| {
                Error::invalid(
                    format!("{at}.{member}"),
                    format!(
                        "cannot change once the envelope is sent (it is {})",
                        env.status.as_str()
                    ),
                )
            };
            if sp.order.is_some_and(|o| o != cur.order) {
                return Err(fixed("order"));
            }
            if sp.kind != SignerKind::Signer && sp.kind != cur.kind {
                return Err(fixed("kind"));
            }
            if sp
                .in_person
                .as_ref()
                .is_some_and(|h| Some(h) != cur.in_person.as_ref())
            {
                return Err(fixed("in_person"));
            }
            if sp.auth.is_some() {
                return Err(fixed("auth"));
            }
            let (name, email) = (sp.name.trim(), sp.email.trim());
            if name == cur.name && email == cur.email {
                continue;
            }
            let role = &cur.role;
            if name != cur.name {
                changes.push(Changed {
                    what: format!("signers.{role}.name"),
                    before: Some(cur.name.clone()),
                    after: Some(name.to_string()),
                });
            }
            if email != cur.email {
                changes.push(Changed {
                    what: format!("signers.{role}.email"),
                    before: Some(cur.email.clone()),
                    after: Some(email.to_string()),
                });
            }
            // The check stays what the sender set (an access code stays the same code); what
            // the previous address received or entered does not carry over.
            let identity = env.signers[i].identity.as_ref().map(|id| IdentityRecord {
                access_code_hash: id.access_code_hash.clone(),
                code_requests: id.code_requests.clone(),
                ..IdentityRecord::new(id.method, id.salt.clone())
            });
            let locale = sp.locale.clone().or(cur.locale.clone());
            rules::reassign(env, i, name, email, identity, locale.as_ref(), now)?;
            if let Some(r) = env.signers[i].reassignments.last_mut() {
                r.corrected = true;
            }
        }
    }
    if let Some(v) = &p.fields {
        let before = env
            .fields
            .iter()
            .filter(|f| f.source == FieldSource::Explicit)
            .count();
        let fields = replaced_fields(env, v, pages, limits)?;
        let after = fields.len() - (env.fields.len() - before);
        if fields != env.fields {
            env.fields = fields;
            changes.push(Changed {
                what: "fields".into(),
                before: Some(format!("{before} placed fields")),
                after: Some(format!("{after} placed fields")),
            });
        }
        check_coverage(&env.fields, &env.signers, env.signature_page)?;
        env.data = check_data(&env.fields, &kept_data(env))?;
    }
    // The sender's own words and keys: that they changed is recorded, not what they say.
    let changed = |what: &str| Changed {
        what: what.into(),
        before: None,
        after: None,
    };
    if let Some(s) = p
        .subject
        .as_ref()
        .filter(|s| env.subject.as_ref() != Some(*s))
    {
        env.subject = Some(s.clone());
        changes.push(changed("subject"));
    }
    if let Some(m) = p
        .message
        .as_ref()
        .filter(|m| env.message.as_ref() != Some(*m))
    {
        env.message = Some(m.clone());
        changes.push(changed("message"));
    }
    if let Some(m) = p.metadata.as_ref().filter(|m| **m != env.metadata) {
        env.metadata = m.clone();
        changes.push(changed("metadata"));
    }
    if let Some(d) = p.expires_in_days {
        // Counted from the send, as on create.
        let from = env.sent_at.unwrap_or(now);
        let expires_at = from + chrono::Duration::days(i64::from(d));
        if expires_at <= now {
            return Err(Error::invalid(
                "expires_in_days",
                format!(
                    "the envelope was sent {} days ago: it would already have expired",
                    (now - from).num_days()
                ),
            ));
        }
        if env.expires_at != Some(expires_at) {
            changes.push(Changed {
                what: "expires_at".into(),
                before: env.expires_at.map(|t| t.to_rfc3339()),
                after: Some(expires_at.to_rfc3339()),
            });
            env.expires_at = Some(expires_at);
            env.expires_in_days = Some(d);
        }
    }
    if changes.is_empty() {
        return Ok(false);
    }
    env.corrections.push(Correction { at: now, changes });
    // A corrected signer whose turn it is gets a new request.
    mark_turns(env, now);
    Ok(true)
}

/// `env`'s fields with its explicit ones replaced by `v` (checked as on create): fields found in
/// its documents (tags, form fields) stay, and their keys stay taken.
fn replaced_fields(
    env: &EnvelopeRecord,
    v: &Value,
    pages: Option<&[Vec<PageSize>]>,
    limits: &Limits,
) -> Result<Vec<PlacedField>> {
    let pages = pages.ok_or_else(|| Error::Internal("page sizes not read".into()))?;
    let mut fields: Vec<PlacedField> = env
        .fields
        .iter()
        .filter(|f| f.source != FieldSource::Explicit)
        .cloned()
        .collect();
    let mut taken: HashSet<String> = fields.iter().map(|f| f.field.key.clone()).collect();
    let explicit = place_fields(v, limits.max_fields, &mut taken, pages, &fields)?;
    fields.extend(explicit.into_iter().map(|field| PlacedField {
        field,
        source: FieldSource::Explicit,
    }));
    Ok(fields)
}

/// Applies `p` to the draft `env` and checks the result with creation's rules.
fn apply(
    env: &mut EnvelopeRecord,
    p: &UpdateDraftParams,
    pages: Option<&[Vec<PageSize>]>,
    limits: &Limits,
) -> Result<()> {
    if let Some(v) = &p.fields {
        env.fields = replaced_fields(env, v, pages, limits)?;
    }
    if let Some(signers) = &p.signers {
        // Signers without a role take the free roles in this order, as on create.
        let roles = roles_in_signing_order(env);
        env.signers = resolve_signers(signers, p.signers_by_role, &roles)?;
    }
    // The stored flag is what creation kept of `signature_page`: asked for, and no signature
    // fields then.
    let has_signature_fields = env
        .fields
        .iter()
        .any(|f| f.field.kind == FieldType::Signature);
    check_coverage(&env.fields, &env.signers, env.signature_page)?;
    env.signature_page = env.signature_page && !has_signature_fields;
    if p.fields.is_some() {
        env.data = check_data(&env.fields, &kept_data(env))?;
    }
    if let Some(s) = &p.subject {
        env.subject = Some(s.clone());
    }
    if let Some(m) = &p.message {
        env.message = Some(m.clone());
    }
    if let Some(m) = &p.metadata {
        env.metadata = m.clone();
    }
    if let Some(d) = p.expires_in_days {
        env.expires_in_days = Some(d);
    }
    Ok(())
}

/// The roles of `env`'s fields in signing order: those of the current signers by their order
/// (the template's or the document's order, as create settled it), then the others in order of
/// first appearance.
fn roles_in_signing_order(env: &EnvelopeRecord) -> Vec<String> {
    let found = roles_in_order(env.fields.iter().map(|f| &f.field));
    let mut signers: Vec<_> = env.signers.iter().map(|s| &s.signer).collect();
    signers.sort_by_key(|s| s.order);
    let mut roles: Vec<String> = signers
        .iter()
        .filter(|s| found.contains(&s.role))
        .map(|s| s.role.clone())
        .collect();
    for r in found {
        if !roles.contains(&r) {
            roles.push(r);
        }
    }
    roles
}

/// The sender data given on create whose field is still a sender field, as `data` values: they
/// go through create's checks again against the new fields.
fn kept_data(env: &EnvelopeRecord) -> Vec<(String, Value)> {
    let sender: Vec<&str> = env
        .fields
        .iter()
        .filter(|f| f.field.is_sender_field() && f.field.formula.is_none())
        .map(|f| f.field.key.as_str())
        .collect();
    env.data
        .iter()
        .filter(|(k, _)| sender.contains(&k.as_str()))
        .filter_map(|(k, v)| {
            let v = match v {
                SignerValue::Text(t) => Value::String(t.clone()),
                SignerValue::Checkbox(b) => Value::Bool(*b),
                // Signatures and files are never sender data.
                SignerValue::Typed(_) | SignerValue::Drawn(_) | SignerValue::Attachment(_) => {
                    return None;
                }
            };
            Some((k.clone(), v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use envelope_testkit::textpdf::two_party_contract;
    use serde_json::json;

    use super::*;
    use crate::service::{CreateEnvelopeParams, Upload};

    async fn service() -> (SigningService, AuthContext) {
        let svc = SigningService::builder().build();
        let acct = svc.admin().create_account("Acme").await.unwrap();
        let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
        (svc, ctx)
    }

    /// A draft of the two-party contract (tags: `start_date` data, Client and Provider
    /// signatures), with a sender text field `amount` given explicitly.
    async fn draft(svc: &SigningService, ctx: &AuthContext) -> EnvelopeId {
        let body = json!({
            "send": false,
            "signers": [
                {"name": "Ada", "email": "ada@example.com", "role": "Provider"},
                {"name": "Bob", "email": "bob@example.com", "role": "Client"},
            ],
            "fields": [{"type": "text", "key": "amount", "required": false, "page": 1,
                        "x": 300, "y": 300, "width": 100, "height": 20}],
            "data": {"start_date": "2027-01-01", "amount": "12"},
        });
        let upload = Upload {
            file_name: "c.pdf".into(),
            bytes: two_party_contract().into(),
        };
        let limits = svc.settings().limits.clone();
        let p = CreateEnvelopeParams::parse(Params::json(body).unwrap(), Some(upload), &limits)
            .unwrap();
        svc.create_envelope(ctx, p).await.unwrap().id
    }

    fn params(svc: &SigningService, body: serde_json::Value) -> Result<UpdateDraftParams> {
        UpdateDraftParams::parse(Params::json(body)?, &svc.settings().limits)
    }

    async fn record(svc: &SigningService, ctx: &AuthContext, id: &EnvelopeId) -> EnvelopeRecord {
        svc.inner
            .store
            .get_envelope(&ctx.scope(), id)
            .await
            .unwrap()
            .unwrap()
    }

    #[tokio::test]
    async fn signers_without_roles_take_the_current_signing_order() {
        let (svc, ctx) = service().await;
        let id = draft(&svc, &ctx).await;
        let p = params(
            &svc,
            json!({"signers": [{"name": "X", "email": "x@example.com"},
                               {"name": "Y", "email": "y@example.com"}]}),
        )
        .unwrap();
        let env = svc.update_draft(&ctx, &id, p).await.unwrap();
        let roles: Vec<(&str, &str, u32)> = env
            .signers
            .iter()
            .map(|s| (s.name.as_str(), s.role.as_str(), s.order))
            .collect();
        // Ada (Provider) signed first: the first new signer takes her role.
        assert_eq!(roles, [("X", "Provider", 1), ("Y", "Client", 2)]);
    }

    #[tokio::test]
    async fn new_fields_keep_the_found_ones_and_the_data_that_still_has_a_field() {
        let (svc, ctx) = service().await;
        let id = draft(&svc, &ctx).await;
        let before = record(&svc, &ctx, &id).await;
        let found: Vec<String> = before
            .fields
            .iter()
            .filter(|f| f.source != FieldSource::Explicit)
            .map(|f| f.field.key.clone())
            .collect();
        let p = params(
            &svc,
            json!({"fields": [{"type": "checkbox", "role": "Client", "key": "agree", "page": 2,
                               "x": 300, "y": 400, "width": 12, "height": 12}]}),
        )
        .unwrap();
        svc.update_draft(&ctx, &id, p).await.unwrap();
        let after = record(&svc, &ctx, &id).await;
        let keys: Vec<&str> = after.fields.iter().map(|f| f.field.key.as_str()).collect();
        let mut expected: Vec<&str> = found.iter().map(String::as_str).collect();
        expected.push("agree");
        assert_eq!(keys, expected);
        assert_eq!(after.version, before.version + 1);
        // `amount` is gone with its field; `start_date` (a tag) keeps its value.
        assert_eq!(
            after.data.keys().collect::<Vec<_>>(),
            [&"start_date".to_string()]
        );
        // A key a found field has is taken, as on create.
        let p = params(
            &svc,
            json!({"fields": [{"type": "text", "key": "start_date", "page": 1,
                               "x": 300, "y": 300, "width": 100, "height": 20}]}),
        )
        .unwrap();
        let e = svc.update_draft(&ctx, &id, p).await.unwrap_err();
        assert_eq!(e.param().as_deref(), Some("fields.0.key"));
        // A new required data field has no value: missing_data, as on create.
        let p = params(
            &svc,
            json!({"fields": [{"type": "text", "key": "po", "page": 1,
                               "x": 300, "y": 300, "width": 100, "height": 20}]}),
        )
        .unwrap();
        let e = svc.update_draft(&ctx, &id, p).await.unwrap_err();
        assert_eq!(e.code(), "missing_data");
        assert_eq!(record(&svc, &ctx, &id).await, after, "nothing written");
    }

    #[tokio::test]
    async fn only_drafts_change_and_no_event_is_recorded() {
        let (svc, ctx) = service().await;
        let id = draft(&svc, &ctx).await;
        let events = |svc: &SigningService| {
            let (svc, ctx) = (svc.clone(), ctx.clone());
            async move {
                svc.list_events(&ctx, &Default::default(), None)
                    .await
                    .unwrap()
                    .data
                    .len()
            }
        };
        let n = events(&svc).await;
        let p = params(&svc, json!({"subject": "New"})).unwrap();
        svc.update_draft(&ctx, &id, p).await.unwrap();
        assert_eq!(events(&svc).await, n);
        assert_eq!(
            record(&svc, &ctx, &id).await.subject.as_deref(),
            Some("New")
        );
        svc.void_envelope(&ctx, &id, None).await.unwrap();
        let p = params(&svc, json!({"subject": "Later"})).unwrap();
        let e = svc.update_draft(&ctx, &id, p).await.unwrap_err();
        assert_eq!(e.code(), "invalid_state");
    }

    #[tokio::test]
    async fn a_stale_version_changes_nothing_and_reads_name_the_record_version() {
        let (svc, ctx) = service().await;
        let id = draft(&svc, &ctx).await;
        let read = svc.get_envelope_json_versioned(&ctx, &id).await.unwrap();
        assert_eq!(read.version, record(&svc, &ctx, &id).await.version);
        // The second read is the kept view's: the same version, from the stamp.
        let again = svc.get_envelope_json_versioned(&ctx, &id).await.unwrap();
        assert_eq!(again, read);

        let mut p = params(&svc, json!({"subject": "New"})).unwrap();
        p.if_version = Some(Precondition::Versions(vec![read.version]));
        let done = svc.update_draft_versioned(&ctx, &id, p).await.unwrap();
        let rec = record(&svc, &ctx, &id).await;
        assert_eq!(done.version, rec.version);
        assert_eq!(done.version, read.version + 1);
        for _ in 0..2 {
            let got = svc.get_envelope_json_versioned(&ctx, &id).await.unwrap();
            assert_eq!(got.version, rec.version);
            assert_eq!(got.value, svc.get_envelope_json(&ctx, &id).await.unwrap());
        }

        let mut p = params(&svc, json!({"subject": "Stale"})).unwrap();
        p.if_version = Some(Precondition::Versions(vec![read.version]));
        let e = svc.update_draft(&ctx, &id, p).await.unwrap_err();
        assert!(
            matches!(e, Error::EditConflict { resource: "envelope", version } if version == rec.version),
            "{e:?}"
        );
        // Also with `fields`, which reads the documents before the write.
        let mut p = params(&svc, json!({"fields": []})).unwrap();
        p.if_version = Some(Precondition::Versions(vec![]));
        assert_eq!(
            svc.update_draft(&ctx, &id, p).await.unwrap_err().code(),
            "edit_conflict"
        );
        assert_eq!(record(&svc, &ctx, &id).await, rec, "nothing written");
    }
}
