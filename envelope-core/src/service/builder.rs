//! Builder links (extensions E11): a token that opens one template or one draft envelope for an
//! hour, for the page where senders place fields on the rendered pages (`/build/{token}` on the
//! server).
//!
//! The page is a client of the API like any other: it authenticates its calls with the link's
//! token, which [`SigningService::authenticate_builder`] turns into the context of the API key
//! that made the link, for one object and four actions only ([`BuilderAction`]). Everything else
//! the token is asked for is `403 outside_link_scope`; an expired or unknown token, or one whose
//! key was revoked, is `401 invalid_api_key`. Tokens are stored by their SHA-256, as signing
//! links are.
//!
//! The page also reads the layout of the object's documents ([`SigningService::page_layout`])
//! and pictures of their pages ([`SigningService::page_picture`]): two API routes an API key may
//! call too.

use std::sync::Arc;

use chrono::Duration;
use serde::Serialize;

use super::precondition::Versioned;
use super::{AuthContext, Params, SigningService};
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::field::{Field, FieldSource};
use crate::i18n::Locale;
use crate::ids::{self, EnvelopeId, TemplateId};
use crate::model::{BuilderTarget, EnvelopeStatus};
use crate::pdf::PageSize;
use crate::render::PageImage;
use crate::store::BuilderToken;

/// How long a builder link works.
pub const BUILDER_LINK_TTL_MINUTES: i64 = 60;

/// What every builder link's token starts with: the server tells them from API keys by it.
pub const BUILDER_TOKEN_PREFIX: &str = "bld_";

/// Longest `return_url`.
const MAX_RETURN_URL: usize = 2048;

/// True when `token` has the shape of a builder link's token (not whether it is valid).
pub fn is_builder_token(token: &str) -> bool {
    token.starts_with(BUILDER_TOKEN_PREFIX)
}

/// The page number of a picture route's path (`.../pages/{page}`): a number from 1, else
/// `404 resource_missing` (no such page).
pub fn page_param(s: &str) -> Result<u32> {
    match s.parse::<u32>() {
        Ok(n) if n >= 1 && s.bytes().all(|b| b.is_ascii_digit()) => Ok(n),
        _ => Err(Error::not_found("page", s)),
    }
}

/// Parameters of `POST /v1/templates/{id}/builder_url` and `POST /v1/envelopes/{id}/builder_url`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuilderUrlParams {
    /// The language of the page (key `locale`, a BCP 47 tag); `None`: the browser's.
    pub locale: Option<Locale>,
    /// Where the page's "Done" goes, and where it goes after sending when it is not framed (key
    /// `return_url`, an `http` or `https` URL without credentials).
    pub return_url: Option<String>,
}

impl BuilderUrlParams {
    /// Reads and checks the parameters.
    pub fn parse(mut p: Params) -> Result<BuilderUrlParams> {
        let locale = p
            .string("locale")?
            .map(|s| Locale::parse(&s).map_err(|e| Error::invalid("locale", e.to_string())))
            .transpose()?;
        let return_url = p
            .string("return_url")?
            .map(|u| check_return_url(&u))
            .transpose()?;
        p.finish()?;
        Ok(BuilderUrlParams { locale, return_url })
    }
}

/// A return URL as the page may navigate to it: `http` or `https`, with a host, no credentials.
fn check_return_url(raw: &str) -> Result<String> {
    let bad = |why: &str| Error::invalid("return_url", why.to_string());
    if raw.len() > MAX_RETURN_URL {
        return Err(bad("must be at most 2048 characters"));
    }
    let url = url::Url::parse(raw).map_err(|e| bad(&format!("is not a valid URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("must be an http:// or https:// URL"));
    }
    if url.host().is_none() {
        return Err(bad("must name a host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("must not carry credentials"));
    }
    Ok(url.to_string())
}

/// The answer of the two `builder_url` routes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BuilderUrl {
    /// Always `builder_url`.
    pub object: &'static str,
    /// The page: `{signing_base}/build/{token}`.
    pub url: String,
    /// When the link stops working (an hour from now).
    pub expires_at: Timestamp,
    /// The token alone (it is in `url` too), for callers of the library.
    #[serde(skip)]
    pub token: String,
}

/// What a valid builder link opens, for its page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuilderSession {
    /// The one object the link may read and change.
    pub target: BuilderTarget,
    /// The language asked for when the link was made.
    pub locale: Option<Locale>,
    /// Where the page's "Done" goes.
    pub return_url: Option<String>,
    /// When the link stops working.
    pub expires_at: Timestamp,
    /// True for a live-mode object.
    pub livemode: bool,
}

/// What a builder link's token opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuilderOpen {
    /// A working link.
    Open(BuilderSession),
    /// A link past its hour.
    Expired,
    /// No such link, or its key was revoked.
    Unknown,
}

/// What a builder link's token may do with its object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuilderAction {
    /// Read the object (`GET`).
    Read,
    /// Change it (`PATCH`).
    Edit,
    /// Read its documents' layout and page pictures.
    Pages,
    /// Send it (draft envelopes only).
    Send,
}

/// One use of a builder link's token: an action on an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuilderAccess {
    /// The object the request names.
    pub target: BuilderTarget,
    /// What it does with it.
    pub action: BuilderAction,
}

/// The documents of a template or an envelope as the builder lays them out
/// (`GET /v1/templates/{id}/pages`, `GET /v1/envelopes/{id}/pages`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageLayout {
    /// Always `page_layout`.
    pub object: &'static str,
    /// Each document, in order.
    pub documents: Vec<LayoutDocument>,
    /// Every field of the object, in order, as on create (the envelope's own view does not
    /// list them).
    pub fields: Vec<Field>,
    /// Keys of the fields found in the documents themselves (text tags and PDF form fields),
    /// in the object's field order. A draft's `PATCH` `fields` leaves these in place; a
    /// template's replaces them with the rest.
    pub document_fields: Vec<String>,
}

/// One document of a [`PageLayout`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayoutDocument {
    /// From 1, as fields' `document`.
    pub index: u32,
    /// The file name.
    pub name: String,
    /// Each page's displayed size in points, in order: the space of fields' `x`, `y`,
    /// `width` and `height` (from the top-left corner).
    pub pages: Vec<LayoutPage>,
}

/// One page's size in points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LayoutPage {
    /// Width in points.
    pub width: f64,
    /// Height in points.
    pub height: f64,
}

impl From<&PageSize> for LayoutPage {
    fn from(p: &PageSize) -> LayoutPage {
        LayoutPage {
            width: p.width,
            height: p.height,
        }
    }
}

impl SigningService {
    /// `POST /v1/templates/{id}/builder_url`: a link to the builder page for this template,
    /// valid for an hour. Archived templates cannot be changed (`409 invalid_state`).
    pub async fn template_builder_url(
        &self,
        ctx: &AuthContext,
        id: &TemplateId,
        p: BuilderUrlParams,
    ) -> Result<BuilderUrl> {
        let rec = self.load_template(ctx, id).await?;
        if rec.archived {
            return Err(Error::state("Archived templates cannot be changed."));
        }
        self.issue_builder_link(ctx, BuilderTarget::Template(rec.id), p)
            .await
    }

    /// `POST /v1/envelopes/{id}/builder_url`: a link to the builder page for this draft, valid
    /// for an hour. Any other status is `409 invalid_state`.
    pub async fn envelope_builder_url(
        &self,
        ctx: &AuthContext,
        id: &EnvelopeId,
        p: BuilderUrlParams,
    ) -> Result<BuilderUrl> {
        let rec = self.load_envelope(ctx, id).await?;
        if rec.status != EnvelopeStatus::Draft {
            return Err(Error::state(format!(
                "Only draft envelopes can be opened in the builder; this one is {}.",
                rec.status.as_str()
            )));
        }
        self.issue_builder_link(ctx, BuilderTarget::Envelope(rec.id), p)
            .await
    }

    async fn issue_builder_link(
        &self,
        ctx: &AuthContext,
        target: BuilderTarget,
        p: BuilderUrlParams,
    ) -> Result<BuilderUrl> {
        let now = self.now();
        let expires_at = now + Duration::minutes(BUILDER_LINK_TTL_MINUTES);
        let token = format!("{BUILDER_TOKEN_PREFIX}{}", ids::new_token());
        self.inner
            .store
            .insert_builder_token(&BuilderToken {
                token_hash: ids::digest(&token),
                account: ctx.account.id.clone(),
                mode: ctx.mode(),
                key_hash: ctx.key.hash.clone(),
                target,
                locale: p.locale.map(String::from),
                return_url: p.return_url,
                created_at: now,
                expires_at,
            })
            .await?;
        Ok(BuilderUrl {
            object: "builder_url",
            url: format!("{}/build/{token}", self.inner.settings.signing_base()),
            expires_at,
            token,
        })
    }

    /// The link behind a builder page's token, and the context of the key that made it; `None`
    /// for a malformed, unknown or revoked one.
    async fn builder_link(&self, token: &str) -> Result<Option<(BuilderToken, AuthContext)>> {
        let well_formed = is_builder_token(token)
            && token.len() <= 128
            && token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !well_formed {
            return Ok(None);
        }
        let Some(link) = self.inner.store.builder_token(&ids::digest(token)).await? else {
            return Ok(None);
        };
        let ctx = match self.key_context(&link.key_hash).await {
            Ok(ctx) => ctx,
            Err(Error::InvalidApiKey) => return Ok(None),
            Err(e) => return Err(e),
        };
        if ctx.account.id != link.account || ctx.mode() != link.mode {
            return Ok(None);
        }
        Ok(Some((link, ctx)))
    }

    /// What a builder page's token opens (the page's own route, before it calls the API).
    pub async fn open_builder(&self, token: &str) -> Result<BuilderOpen> {
        let Some((link, _)) = self.builder_link(token).await? else {
            return Ok(BuilderOpen::Unknown);
        };
        if link.expires_at <= self.now() {
            return Ok(BuilderOpen::Expired);
        }
        Ok(BuilderOpen::Open(BuilderSession {
            target: link.target,
            locale: link.locale.and_then(|l| Locale::parse(&l).ok()),
            return_url: link.return_url,
            expires_at: link.expires_at,
            livemode: link.mode.is_live(),
        }))
    }

    /// Authenticates an API request made with a builder link's token: the context of the key
    /// that made the link, when the link works and `wanted` is within it (its object; reading,
    /// editing and page pictures; sending a draft envelope).
    ///
    /// Errors: an unknown, expired or malformed token, or one whose key was revoked,
    /// [`Error::InvalidApiKey`]; a working token used for anything else (`wanted` `None`: a
    /// route no builder link may use) [`Error::OutsideLinkScope`]; an edit or a send through a
    /// draft's link once the envelope is no longer a draft, [`Error::InvalidState`] (a missing
    /// envelope [`Error::NotFound`]).
    pub async fn authenticate_builder(
        &self,
        token: &str,
        wanted: Option<&BuilderAccess>,
    ) -> Result<AuthContext> {
        let Some((link, ctx)) = self.builder_link(token).await? else {
            return Err(Error::InvalidApiKey);
        };
        if link.expires_at <= self.now() {
            return Err(Error::InvalidApiKey);
        }
        let allowed = wanted.is_some_and(|w| {
            w.target == link.target
                && (w.action != BuilderAction::Send
                    || matches!(link.target, BuilderTarget::Envelope(_)))
        });
        if !allowed {
            let what = match &link.target {
                BuilderTarget::Template(id) => {
                    format!("read and change template {id} and see its pages")
                }
                BuilderTarget::Envelope(id) => {
                    format!("read, change and send envelope {id} and see its pages")
                }
            };
            return Err(Error::OutsideLinkScope {
                message: format!("This builder link may only {what}."),
            });
        }
        // A link made for a draft changes and sends a draft only: once the envelope is sent, its
        // edits (corrections among them) take an API key. Checked here, not left to each edit.
        if let (BuilderTarget::Envelope(id), Some(w)) = (&link.target, wanted)
            && matches!(w.action, BuilderAction::Edit | BuilderAction::Send)
        {
            let rec = self.load_envelope(&ctx, id).await?;
            if rec.status != EnvelopeStatus::Draft {
                return Err(Error::state(format!(
                    "This builder link was made for a draft; envelope {id} is {} now, and only \
                     an API key may change it.",
                    rec.status.as_str()
                )));
            }
        }
        Ok(ctx)
    }

    /// The documents of a template or an envelope, each page's size in points, its fields and
    /// the keys of those found in the documents (`GET /v1/templates/{id}/pages`,
    /// `GET /v1/envelopes/{id}/pages`), with the version of the object it shows (the `ETag`
    /// an edit names in `If-Match`).
    pub async fn page_layout(
        &self,
        ctx: &AuthContext,
        target: &BuilderTarget,
    ) -> Result<Versioned<PageLayout>> {
        let (documents, fields, version) = match target {
            BuilderTarget::Template(id) => {
                let rec = self.load_template(ctx, id).await?;
                let document = LayoutDocument {
                    index: 1,
                    name: rec.file.file_name.clone(),
                    pages: rec
                        .page_sizes
                        .iter()
                        .map(|&(width, height)| LayoutPage { width, height })
                        .collect(),
                };
                (vec![document], rec.fields, rec.version)
            }
            BuilderTarget::Envelope(id) => {
                let rec = self.load_envelope(ctx, id).await?;
                let mut documents = Vec::new();
                for view in rec.documents_view() {
                    let (original, _) = rec.document(view.index).ok_or_else(|| {
                        Error::Internal(format!("document {} is missing", view.index))
                    })?;
                    let pages = self.page_sizes_of(original).await?;
                    documents.push(LayoutDocument {
                        index: view.index,
                        name: view.name,
                        pages: pages.iter().map(LayoutPage::from).collect(),
                    });
                }
                (documents, rec.fields, rec.version)
            }
        };
        let document_fields = fields
            .iter()
            .filter(|f| f.source != FieldSource::Explicit)
            .map(|f| f.field.key.clone())
            .collect();
        Ok(Versioned {
            value: PageLayout {
                object: "page_layout",
                documents,
                fields: fields.into_iter().map(|f| f.field).collect(),
                document_fields,
            },
            version,
        })
    }

    /// Page `page` (from 1) of document `document` of a template or an envelope, as the PDF
    /// was uploaded (no fields drawn), as a picture (`GET /v1/templates/{id}/pages/{page}`,
    /// `GET /v1/envelopes/{id}/pages/{page}?document=n`).
    ///
    /// Errors: the object's ([`Error::NotFound`]); a document or page it does not have is
    /// `NotFound`; no renderer, or a page that cannot be drawn, [`Error::PageNotDrawable`];
    /// every renderer busy [`Error::Busy`].
    pub async fn page_picture(
        &self,
        ctx: &AuthContext,
        target: &BuilderTarget,
        document: u32,
        page: u32,
    ) -> Result<Arc<PageImage>> {
        let no_document = || Error::not_found("document", &document.to_string());
        let (file, pages) = match target {
            BuilderTarget::Template(id) => {
                let rec = self.load_template(ctx, id).await?;
                if document != 1 {
                    return Err(no_document());
                }
                (rec.file, Some(rec.page_count))
            }
            BuilderTarget::Envelope(id) => {
                let rec = self.load_envelope(ctx, id).await?;
                let pages = rec
                    .documents_view()
                    .into_iter()
                    .find(|d| d.index == document)
                    .ok_or_else(no_document)?
                    .page_count;
                let (original, _) = rec.document(document).ok_or_else(no_document)?;
                (original.clone(), pages)
            }
        };
        if page == 0 || pages.is_some_and(|n| page > n) {
            return Err(Error::not_found("page", &page.to_string()));
        }
        self.original_page_image(&file, page).await
    }
}
