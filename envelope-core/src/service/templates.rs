//! Templates: create from a PDF, list, get, update, archive, file link.

use std::collections::HashSet;

use serde_json::Value;

use super::envelopes::{check_file_name, take_file};
use super::fields::{check_role, parse_fields, roles_in_order};
use super::lifecycle::FileLinkView;
use super::paging;
use super::params::{Obj, Params, Upload, check_description, check_text};
use super::precondition::{self, Precondition, Versioned};
use super::{AuthContext, Limits, ListParams, SigningService};
use crate::error::{Error, Result};
use crate::field::{Field, FieldSource, FieldType, PlacedField, SENDER};
use crate::ids::{self, TemplateId};
use crate::model::{Deleted, List, Template, TemplateRecord};
use crate::pdf;
use crate::store::StoreError;

/// Parameters of `create template`.
#[derive(Debug, Clone)]
pub struct CreateTemplateParams {
    /// The template's name (key `name`), required.
    pub name: String,
    /// A description of the template (key `description`).
    pub description: Option<String>,
    /// The template's document (multipart part `file`), required.
    pub file: Upload,
    /// The template's fields (key `fields`), as sent, validated when the template is created.
    pub fields: Option<Value>,
    /// The signer roles of the template (key `roles`).
    pub roles: Option<Vec<String>>,
}

impl CreateTemplateParams {
    /// Reads and validates the parameters of a template creation request.
    pub fn parse(mut p: Params, file: Option<Upload>, limits: &Limits) -> Result<Self> {
        let name = p.required_string("name")?;
        check_text("name", &name, 500)?;
        let description = p.string("description")?;
        check_description(description.as_deref())?;
        let file = take_file(&mut p, file, limits)?.ok_or_else(|| Error::missing("file"))?;
        let fields = p.json_value("fields")?;
        let roles = p
            .json_value("roles")?
            .map(|v| parse_roles(&v))
            .transpose()?;
        p.finish()?;
        let params = CreateTemplateParams {
            name,
            description,
            file,
            fields,
            roles,
        };
        params.validate(limits)?;
        Ok(params)
    }

    /// Checks the name, description, file and roles (also for parameters built in Rust).
    pub fn validate(&self, limits: &Limits) -> Result<()> {
        check_text("name", &self.name, 500)?;
        check_description(self.description.as_deref())?;
        check_file_name("file_name", &self.file.file_name)?;
        if self.file.bytes.len() > limits.max_file_bytes {
            return Err(Error::FileTooLarge {
                max_bytes: limits.max_file_bytes,
            });
        }
        if let Some(roles) = &self.roles {
            let mut seen = HashSet::new();
            for (i, r) in roles.iter().enumerate() {
                check_role_entry(i, r, &mut seen)?;
            }
            check_role_count(roles.len())?;
        }
        Ok(())
    }
}

/// Parameters of `update template` (PATCH): each given member replaces the old value.
#[derive(Debug, Clone, Default)]
pub struct UpdateTemplateParams {
    /// The new name (key `name`).
    pub name: Option<String>,
    /// The new description (key `description`).
    pub description: Option<String>,
    /// The new signer roles (key `roles`).
    pub roles: Option<Vec<String>>,
    /// Either one entry per field of the template, in order, each with any of `key`, `role`,
    /// `filled_by`, `required` (the field is edited in place); or the template's new fields,
    /// each with `type`, `page`, `x`, `y`, `width` and `height` as on create (they replace the
    /// fields whole). See [`SigningService::update_template`].
    pub fields: Option<Value>,
    /// The version the template must be at for the change to apply (HTTP's `If-Match`); `None`
    /// applies it to whatever version is current. Not a body member: a front end sets it.
    pub if_version: Option<Precondition>,
}

impl UpdateTemplateParams {
    /// Reads and validates the parameters of a template update request.
    pub fn parse(mut p: Params) -> Result<Self> {
        let name = p.string("name")?;
        if let Some(n) = &name {
            check_text("name", n, 500)?;
        }
        let description = p.string("description")?;
        check_description(description.as_deref())?;
        let roles = p
            .json_value("roles")?
            .map(|v| parse_roles(&v))
            .transpose()?;
        let fields = p.json_value("fields")?;
        p.finish()?;
        Ok(UpdateTemplateParams {
            name,
            description,
            roles,
            fields,
            if_version: None,
        })
    }
}

fn parse_roles(v: &Value) -> Result<Vec<String>> {
    let Value::Array(items) = v else {
        return Err(Error::invalid("roles", "expected an array of role names"));
    };
    let mut roles = Vec::new();
    // One linear pass (the list may be as long as a request's JSON allows): the first bad
    // entry is the answer, else the count.
    let mut seen = HashSet::new();
    for (i, r) in items.iter().enumerate() {
        let Value::String(r) = r else {
            return Err(Error::invalid(format!("roles.{i}"), "expected a string"));
        };
        check_role_entry(i, r, &mut seen)?;
        roles.push(r.clone());
    }
    check_role_count(roles.len())?;
    Ok(roles)
}

/// One entry of `roles`: a valid role, not listed before.
fn check_role_entry<'a>(i: usize, r: &'a str, seen: &mut HashSet<&'a str>) -> Result<()> {
    check_role(&format!("roles.{i}"), r)?;
    if !seen.insert(r) {
        return Err(Error::invalid(
            format!("roles.{i}"),
            format!("the role '{r}' is listed twice"),
        ));
    }
    Ok(())
}

fn check_role_count(n: usize) -> Result<()> {
    if n > 10 {
        return Err(Error::invalid("roles", "at most 10 roles are allowed"));
    }
    Ok(())
}

/// Roles in signing order: the given list (which must cover every role with fields), or the
/// order of first appearance in the document.
fn settle_roles(fields: &[PlacedField], given: Option<Vec<String>>) -> Result<Vec<String>> {
    let found = roles_in_order(fields.iter().map(|f| &f.field));
    match given {
        None => Ok(found),
        Some(roles) => {
            if let Some(r) = found.iter().find(|r| !roles.contains(r)) {
                return Err(Error::invalid(
                    "roles",
                    format!("must include the role '{r}', which has fields"),
                ));
            }
            Ok(roles)
        }
    }
}

impl SigningService {
    /// Creates a template from a PDF: tags and form fields are discovered, `fields` added.
    ///
    /// Takes parsed parameters or a [`CreateTemplate`](super::CreateTemplate) builder; both get
    /// the same checks.
    pub async fn create_template(
        &self,
        ctx: &AuthContext,
        p: impl Into<CreateTemplateParams>,
    ) -> Result<Template> {
        let p: CreateTemplateParams = p.into();
        let limits = &self.inner.settings.limits;
        p.validate(limits)?;
        let needed = p.file.bytes.len() as u64;
        if let Err(e) = self.check_storage(ctx, needed).await {
            // A retry of a request whose first attempt committed gets that template.
            if ctx.idempotency_origin.is_some()
                && let Some(first) = self
                    .inner
                    .store
                    .get_template(
                        &ctx.scope(),
                        &TemplateId::trusted(ctx.new_id(ids::TEMPLATE, "template")),
                    )
                    .await?
            {
                return Ok(first.view());
            }
            return Err(e);
        }
        let inspected = self.inspect_pdf(&p.file).await?;
        let mut fields = inspected.info.fields;
        if let Some(v) = &p.fields {
            let mut taken: HashSet<String> = fields.iter().map(|f| f.field.key.clone()).collect();
            let explicit = place_fields(
                v,
                limits.max_fields,
                &mut taken,
                &inspected.info.pages,
                &fields,
            )?;
            fields.extend(explicit.into_iter().map(|field| PlacedField {
                field,
                source: FieldSource::Explicit,
            }));
        }
        super::fields::check_found(&fields, "file")?;
        let roles = settle_roles(&fields, p.roles)?;
        let now = self.now();
        let blob = ctx.new_id("blob_", "template file");
        let file = self
            .put_file_as(blob, &p.file.file_name, p.file.bytes.clone())
            .await?;
        let rec = TemplateRecord {
            id: ids::TemplateId::trusted(ctx.new_id(ids::TEMPLATE, "template")),
            account: ctx.account.id.clone(),
            mode: ctx.mode(),
            version: 1,
            name: p.name,
            description: p.description,
            roles,
            fields,
            page_count: inspected.info.page_count,
            page_sizes: inspected
                .info
                .pages
                .iter()
                .map(|p| (p.width, p.height))
                .collect(),
            created_at: now,
            updated_at: now,
            archived: false,
            file,
        };
        match self.inner.store.insert_template(&rec).await {
            Ok(()) => Ok(rec.view()),
            // A retry of an idempotent request whose first attempt committed (see
            // `AuthContext::idempotency_origin`).
            Err(StoreError::Duplicate) if ctx.idempotency_origin.is_some() => {
                match self.inner.store.get_template(&ctx.scope(), &rec.id).await? {
                    Some(first) => Ok(first.view()),
                    None => Err(Error::Internal("template ID taken in another scope".into())),
                }
            }
            Err(StoreError::QuotaExceeded) => Err(self.storage_refusal(ctx, needed).await),
            Err(e) => Err(e.into()),
        }
    }

    pub(crate) async fn load_template(
        &self,
        ctx: &AuthContext,
        id: &TemplateId,
    ) -> Result<TemplateRecord> {
        self.inner
            .store
            .get_template(&ctx.scope(), id)
            .await?
            .ok_or_else(|| Error::not_found("template", id))
    }

    /// `GET /templates/{id}` (archived templates too, with `archived: true`).
    pub async fn get_template(&self, ctx: &AuthContext, id: &TemplateId) -> Result<Template> {
        Ok(self.get_template_versioned(ctx, id).await?.value)
    }

    /// [`SigningService::get_template`], with the version of the template the answer shows.
    pub async fn get_template_versioned(
        &self,
        ctx: &AuthContext,
        id: &TemplateId,
    ) -> Result<Versioned<Template>> {
        let rec = self.load_template(ctx, id).await?;
        Ok(Versioned {
            value: rec.view(),
            version: rec.version,
        })
    }

    /// `GET /templates`: templates that are not archived, newest first.
    pub async fn list_templates(
        &self,
        ctx: &AuthContext,
        list: &ListParams,
    ) -> Result<List<Template>> {
        let (items, more) = paging::page(list, "template", async |page| {
            self.inner.store.list_templates(&ctx.scope(), page).await
        })
        .await?;
        Ok(List::new(
            "/v1/templates",
            items.iter().map(TemplateRecord::view).collect(),
            more,
        ))
    }

    /// `PATCH /templates/{id}`.
    ///
    /// `fields` has two forms (extensions E11). Entries that carry `type`, `page`, `x`, `y`,
    /// `width` and `height` replace the template's fields whole, checked as on create with
    /// explicit fields; their roles must be among the template's roles (`roles` of the same
    /// request when given). Entries of `key`, `role`, `filled_by` and `required` only edit the
    /// field at the same position. Both forms in one request are refused (`param: "fields"`).
    pub async fn update_template(
        &self,
        ctx: &AuthContext,
        id: &TemplateId,
        p: UpdateTemplateParams,
    ) -> Result<Template> {
        Ok(self.update_template_versioned(ctx, id, p).await?.value)
    }

    /// [`SigningService::update_template`], with the version of the template the answer shows.
    ///
    /// When `p.if_version` is set, each attempt checks it against the template just loaded,
    /// before any other rule: a template at another version is [`Error::EditConflict`] (409)
    /// and nothing is written.
    pub async fn update_template_versioned(
        &self,
        ctx: &AuthContext,
        id: &TemplateId,
        p: UpdateTemplateParams,
    ) -> Result<Versioned<Template>> {
        let replace = match &p.fields {
            Some(v) => places_fields(v)?,
            None => false,
        };
        let max_fields = self.inner.settings.limits.max_fields;
        for _ in 0..8 {
            let current = self.load_template(ctx, id).await?;
            precondition::check(p.if_version.as_ref(), "template", current.version)?;
            if current.archived {
                return Err(Error::state("Archived templates cannot be changed."));
            }
            let mut next = current.clone();
            if let Some(n) = &p.name {
                next.name = n.clone();
            }
            if let Some(d) = &p.description {
                next.description = Some(d.clone());
            }
            match &p.fields {
                Some(v) if replace => {
                    next.fields = replace_fields(&current, v, p.roles.as_deref(), max_fields)?;
                }
                Some(v) => apply_field_updates(&mut next.fields, v)?,
                None => {}
            }
            // Roles change only with `roles` or `fields`: a rename keeps a role no field uses
            // yet (one added for fields still to be placed).
            let roles = match (&p.roles, &p.fields) {
                (Some(r), _) => Some(r.clone()),
                (None, Some(_)) => Some(merge_roles(&current.roles, &next.fields)),
                (None, None) => Some(current.roles.clone()),
            };
            next.roles = settle_roles(&next.fields, roles)?;
            next.version += 1;
            next.updated_at = self.now();
            match self.inner.store.update_template(&next).await {
                Ok(()) => {
                    return Ok(Versioned {
                        value: next.view(),
                        version: next.version,
                    });
                }
                Err(StoreError::Conflict) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(Error::Internal("template update kept conflicting".into()))
    }

    /// `DELETE /templates/{id}`: archives it. Envelopes already made are unaffected.
    pub async fn archive_template(&self, ctx: &AuthContext, id: &TemplateId) -> Result<Deleted> {
        for _ in 0..8 {
            let current = self.load_template(ctx, id).await?;
            if current.archived {
                return Err(Error::not_found("template", id));
            }
            let mut next = current.clone();
            next.archived = true;
            next.version += 1;
            next.updated_at = self.now();
            match self.inner.store.update_template(&next).await {
                Ok(()) => {
                    return Ok(Deleted {
                        id: next.id.to_string(),
                        object: "template".into(),
                        deleted: true,
                    });
                }
                Err(StoreError::Conflict) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(Error::Internal("template archive kept conflicting".into()))
    }

    /// A 5-minute download link for the template's PDF.
    pub async fn template_file_link(
        &self,
        ctx: &AuthContext,
        id: &TemplateId,
    ) -> Result<FileLinkView> {
        let t = self.load_template(ctx, id).await?;
        self.file_link("template", &t.file).await
    }
}

/// Members of a `fields` entry that place a field: entries with them replace the fields whole.
const PLACING: [&str; 6] = ["type", "page", "x", "y", "width", "height"];

/// True when the entries of a template update's `fields` place fields (any of [`PLACING`]),
/// false when they edit fields in place (or when `fields` is not a list, which the in-place
/// form refuses as before). Entries of both forms in one list are refused.
fn places_fields(v: &Value) -> Result<bool> {
    let Value::Array(items) = v else {
        return Ok(false);
    };
    let places = |item: &Value| {
        item.as_object()
            .is_some_and(|o| PLACING.iter().any(|k| o.contains_key(*k)))
    };
    let placing = items.iter().filter(|i| places(i)).count();
    if placing > 0 && placing < items.len() {
        return Err(Error::invalid(
            "fields",
            "mixes entries that place fields (with type, page, x, y, width and height), which \
             replace the template's fields whole, and entries that edit a field in place; \
             give one form per request",
        ));
    }
    Ok(placing > 0)
}

/// Explicit `fields` of a template placed on its one document's pages (`pages`), checked as
/// on template create: parsed with keys unique against `taken`, in document 1, inside the page.
fn place_fields(
    v: &Value,
    max: usize,
    taken: &mut HashSet<String>,
    pages: &[pdf::PageSize],
    found: &[PlacedField],
) -> Result<Vec<Field>> {
    let explicit = parse_fields(v, max, taken, found)?;
    // A template is one document (extensions E5).
    if let Some(i) = explicit.iter().position(|f| f.document != 1) {
        return Err(Error::invalid(
            format!("fields.{i}.document"),
            "a template has one document",
        ));
    }
    if let Err((i, why)) = pdf::check_fields(&explicit, pages) {
        return Err(Error::invalid(format!("fields.{i}"), why));
    }
    Ok(explicit)
}

/// The fields that replace `current`'s whole: `v` placed on its pages, each role among the
/// template's roles. With `roles` given in the same request, the check is create's (every role
/// with fields listed in `roles`, `param: "roles"`); without, a role the template does not have
/// is refused at the field.
fn replace_fields(
    current: &TemplateRecord,
    v: &Value,
    roles: Option<&[String]>,
    max: usize,
) -> Result<Vec<PlacedField>> {
    let pages: Vec<pdf::PageSize> = current
        .page_sizes
        .iter()
        .map(|&(width, height)| pdf::PageSize { width, height })
        .collect();
    let fields = place_fields(v, max, &mut HashSet::new(), &pages, &[])?;
    if roles.is_none() {
        for (i, f) in fields.iter().enumerate() {
            if let Some(r) = &f.role
                && !f.is_sender_field()
                && !current.roles.contains(r)
            {
                return Err(Error::invalid(
                    format!("fields.{i}.role"),
                    format!(
                        "the template has no role '{r}' (its roles: {}); add it to roles",
                        current.roles.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(fields
        .into_iter()
        .map(|field| {
            // A field found in the document (a text tag, a form field) given back as it is
            // keeps where it came from: its tag is still painted over in the signed copy. Moved
            // or changed, it is a field of the caller's.
            let source = current
                .fields
                .iter()
                .find(|old| old.source != FieldSource::Explicit && same_place(&old.field, &field))
                .map(|old| old.source.clone())
                .unwrap_or(FieldSource::Explicit);
            PlacedField { field, source }
        })
        .collect())
}

/// The same field in the same box: key, type, role, page and box (to a thousandth of a point,
/// what JSON numbers keep of a stored box).
fn same_place(a: &Field, b: &Field) -> bool {
    let near = |x: f64, y: f64| (x - y).abs() < 1e-3;
    a.key == b.key
        && a.kind == b.kind
        && a.role == b.role
        && a.document == b.document
        && a.page == b.page
        && near(a.x, b.x)
        && near(a.y, b.y)
        && near(a.width, b.width)
        && near(a.height, b.height)
}

/// Keeps the old role order and appends roles that are new after a fields update.
fn merge_roles(old: &[String], fields: &[PlacedField]) -> Vec<String> {
    let found = roles_in_order(fields.iter().map(|f| &f.field));
    let mut out: Vec<String> = old.iter().filter(|r| found.contains(r)).cloned().collect();
    out.extend(found.into_iter().filter(|r| !old.contains(r)));
    out
}

fn apply_field_updates(fields: &mut [PlacedField], v: &Value) -> Result<()> {
    let Value::Array(items) = v else {
        return Err(Error::invalid(
            "fields",
            "expected an array with one entry per field",
        ));
    };
    if items.len() != fields.len() {
        return Err(Error::invalid(
            "fields",
            format!(
                "must have the same length as the template's fields ({})",
                fields.len()
            ),
        ));
    }
    for (i, (item, f)) in items.iter().zip(fields.iter_mut()).enumerate() {
        let mut o = Obj::new(format!("fields.{i}"), item)?;
        let key = o.string("key")?;
        let role = o.string("role")?;
        let filled_by = o.string("filled_by")?;
        let required = o.boolean("required")?;
        let label = o.string("label")?;
        if let Some(l) = &label {
            check_text(&o.at("label"), l, crate::field::MAX_LABEL_CHARS)?;
        }
        o.finish()?;
        let f = &mut f.field;
        if label.is_some() {
            f.label = label;
        }
        if let Some(k) = key {
            if k.is_empty() || k.chars().count() > 100 {
                return Err(Error::invalid(
                    format!("fields.{i}.key"),
                    "must be 1 to 100 characters",
                ));
            }
            f.key = k;
        }
        if let Some(r) = role {
            check_role(&format!("fields.{i}.role"), &r)?;
            f.role = Some(r.clone());
            f.filled_by = r;
        }
        if let Some(by) = filled_by {
            if by == SENDER {
                if matches!(
                    f.kind,
                    FieldType::Signature | FieldType::Initials | FieldType::Attachment
                ) {
                    return Err(Error::invalid(
                        format!("fields.{i}.filled_by"),
                        "signature, initials and attachment fields are filled by a role",
                    ));
                }
                f.role = None;
                f.filled_by = by;
            } else {
                check_role(&format!("fields.{i}.filled_by"), &by)?;
                f.role = Some(by.clone());
                f.filled_by = by;
            }
        }
        if let Some(r) = required {
            f.required = r;
        }
    }
    let mut seen = HashSet::new();
    for (i, f) in fields.iter().enumerate() {
        if !seen.insert(f.field.key.clone()) {
            return Err(Error::invalid(
                format!("fields.{i}.key"),
                format!("the key '{}' is used by another field", f.field.key),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_form_of_fields_is_read_from_every_entry() {
        let placed = json!({"type": "text", "page": 1, "x": 1, "y": 1, "width": 9, "height": 9});
        let cases = [
            (json!([]), Ok(false)),
            (json!([{"key": "a"}, {}, {"required": true}]), Ok(false)),
            (json!([placed.clone(), placed.clone()]), Ok(true)),
            // One placing member is enough: the missing ones are named by create's parser.
            (json!([{"page": 2}]), Ok(true)),
            (json!([placed.clone(), {"key": "a"}]), Err("fields")),
            (json!([{"key": "a"}, {"x": 3}]), Err("fields")),
            // Not a list, or entries that are not objects: the in-place form refuses them.
            (json!({"key": "a"}), Ok(false)),
            (json!([1, 2]), Ok(false)),
        ];
        for (v, want) in cases {
            let got = places_fields(&v).map_err(|e| e.param().unwrap_or_default());
            assert_eq!(got, want.map_err(str::to_string), "{v}");
        }
    }
}
