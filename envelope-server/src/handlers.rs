//! One arm per operation: parameters in, one core call, the core's value out.
//!
//! This is a mapping layer. It must never decide a business rule: every check on a parameter's
//! meaning, every state rule and every limit of the domain belongs to `envelope-core`.

use envelope_core::service::{
    BuilderTarget, BuilderUrlParams, CreateBulkSendParams, CreateEndpointParams,
    CreateEnvelopeParams, CreateTemplateParams, Download, FileKind, ListParams, Params,
    Precondition, Reassign, UpdateDraftParams, UpdateEndpointParams, UpdateTemplateParams, Upload,
    document_param, field_param, page_param,
};
use envelope_core::store::DirectRead;
use envelope_core::{AuthContext, SigningService};
use hyper::StatusCode;
use hyper::header::HeaderValue;

use crate::body::{RawBody, json_params, multipart_params};
use crate::error::ApiError;
use crate::response::{Reply, content_disposition};
use crate::router::Route;

/// Body parameters and the uploaded files (multipart `file` parts), in order.
async fn body_params(body: RawBody) -> Result<(Params, Vec<Upload>), ApiError> {
    Ok(match body {
        RawBody::Empty => (Params::empty(), Vec::new()),
        RawBody::Json(bytes) => (json_params(bytes)?, Vec::new()),
        RawBody::Multipart { boundary, bytes } => multipart_params(&boundary, bytes)?,
    })
}

/// The one `file` part of a route that takes one PDF.
fn one_file(files: Vec<Upload>) -> Result<Option<Upload>, ApiError> {
    if files.len() > 1 {
        return Err(envelope_core::Error::InvalidBody {
            message: "The part `file` is given more than once.".into(),
        }
        .into());
    }
    Ok(files.into_iter().next())
}

/// Body parameters of a route that takes no file (multipart never reaches it).
async fn plain_params(body: RawBody) -> Result<Params, ApiError> {
    Ok(body_params(body).await?.0)
}

/// One API operation as the request gave it, before the core is called.
#[derive(Debug)]
pub struct Operation {
    /// The operation.
    pub route: Route,
    /// The query parameters.
    pub query: Params,
    /// The body, read as the route's policy allows.
    pub body: RawBody,
    /// The `If-Match` precondition of a conditional edit ([`Route::is_conditional`]); `None`
    /// elsewhere.
    pub if_match: Option<Precondition>,
}

/// Runs one API operation for an authenticated caller.
pub async fn dispatch(
    svc: &SigningService,
    ctx: &AuthContext,
    op: Operation,
) -> Result<Reply, ApiError> {
    let Operation {
        route,
        mut query,
        body,
        if_match,
    } = op;
    let max_list = svc.settings().limits.max_list_limit;
    // Only list routes take query parameters; elsewhere any is unknown.
    if !matches!(
        route,
        Route::ListEnvelopes
            | Route::ListBulkSends
            | Route::ListTemplates
            | Route::ListEndpoints
            | Route::ListEvents
            | Route::EventDeliveries(_)
            | Route::EnvelopeFile(..)
            | Route::EnvelopePage(..)
    ) {
        query.finish()?;
        query = Params::empty();
    }
    match route {
        Route::CreateEnvelope => {
            let (params, files) = body_params(body).await?;
            let p = CreateEnvelopeParams::parse_parts(params, files, &svc.settings().limits)?;
            Reply::created(&svc.create_envelope(ctx, p).await?)
        }
        Route::ListEnvelopes => {
            let list = ListParams::take(&mut query, max_list)?;
            let template = query.string("template")?;
            let bulk_send = query.string("bulk_send")?;
            query.finish()?;
            Reply::ok(
                &svc.list_envelopes_filtered(ctx, &list, template.as_deref(), bulk_send.as_deref())
                    .await?,
            )
        }
        Route::CreateBulkSend => {
            let (params, files) = body_params(body).await?;
            if !files.is_empty() {
                return Err(envelope_core::Error::InvalidBody {
                    message: "A bulk send takes no `file` part; its rows are the part `rows`."
                        .into(),
                }
                .into());
            }
            let p = CreateBulkSendParams::parse(params, &svc.settings().limits)?;
            Reply::json(StatusCode::ACCEPTED, &svc.create_bulk_send(ctx, p).await?)
        }
        Route::ListBulkSends => {
            let list = ListParams::take(&mut query, max_list)?;
            query.finish()?;
            Reply::ok(&svc.list_bulk_sends(ctx, &list).await?)
        }
        Route::GetBulkSend(id) => Reply::ok(&svc.get_bulk_send(ctx, &id.parse()?).await?),
        Route::GetEnvelope(id) => {
            let got = svc.get_envelope_json_versioned(ctx, &id.parse()?).await?;
            Ok(Reply::raw_json(StatusCode::OK, got.value).with_etag(got.version))
        }
        Route::UpdateEnvelope(id) => {
            let mut p =
                UpdateDraftParams::parse(plain_params(body).await?, &svc.settings().limits)?;
            p.if_version = if_match;
            let done = svc.update_draft_versioned(ctx, &id.parse()?, p).await?;
            Ok(Reply::ok(&done.value)?.with_etag(done.version))
        }
        Route::SendEnvelope(id) => {
            plain_params(body).await?.finish()?;
            Reply::ok(&svc.send_envelope(ctx, &id.parse()?).await?)
        }
        Route::VoidEnvelope(id) => {
            let mut p = plain_params(body).await?;
            let reason = p.string("reason")?;
            p.finish()?;
            Reply::ok(
                &svc.void_envelope(ctx, &id.parse()?, reason.as_deref())
                    .await?,
            )
        }
        Route::RemindEnvelope(id) => {
            plain_params(body).await?.finish()?;
            Reply::ok(&svc.remind(ctx, &id.parse()?).await?)
        }
        Route::ReassignSigner(id, signer) => {
            let to = Reassign::parse(plain_params(body).await?)?;
            Reply::ok(
                &svc.reassign_signer(ctx, &id.parse()?, &signer.parse()?, &to)
                    .await?,
            )
        }
        Route::UnlockSigner(id, signer) => {
            plain_params(body).await?.finish()?;
            Reply::ok(
                &svc.unlock_signer(ctx, &id.parse()?, &signer.parse()?)
                    .await?,
            )
        }
        Route::SigningUrl(id) => {
            let mut p = plain_params(body).await?;
            let signer = p.string("signer")?;
            p.finish()?;
            Reply::ok(
                &svc.signing_url(ctx, &id.parse()?, signer.as_deref())
                    .await?,
            )
        }
        Route::EnvelopeFile(id, kind) => {
            let kind = FileKind::parse(&kind)?;
            let document = document_param(&mut query)?;
            let field = field_param(&mut query)?;
            query.finish()?;
            let id = id.parse()?;
            Reply::ok(
                &svc.envelope_download_link(ctx, &id, kind, document, field.as_deref())
                    .await?,
            )
        }
        Route::EnvelopeBuilderUrl(id) => {
            let p = BuilderUrlParams::parse(plain_params(body).await?)?;
            Reply::ok(&svc.envelope_builder_url(ctx, &id.parse()?, p).await?)
        }
        Route::EnvelopePages(id) => {
            let target = BuilderTarget::Envelope(id.parse()?);
            let got = svc.page_layout(ctx, &target).await?;
            Ok(Reply::ok(&got.value)?.with_etag(got.version))
        }
        Route::EnvelopePage(id, page) => {
            let document = document_param(&mut query)?.unwrap_or(1);
            query.finish()?;
            let target = BuilderTarget::Envelope(id.parse()?);
            let image = svc
                .page_picture(ctx, &target, document, page_param(&page)?)
                .await?;
            Ok(Reply::png(image.png.clone()))
        }
        Route::CreateTemplate => {
            let (params, files) = body_params(body).await?;
            let p = CreateTemplateParams::parse(params, one_file(files)?, &svc.settings().limits)?;
            Reply::created(&svc.create_template(ctx, p).await?)
        }
        Route::ListTemplates => {
            let list = ListParams::take(&mut query, max_list)?;
            query.finish()?;
            Reply::ok(&svc.list_templates(ctx, &list).await?)
        }
        Route::GetTemplate(id) => {
            let got = svc.get_template_versioned(ctx, &id.parse()?).await?;
            Ok(Reply::ok(&got.value)?.with_etag(got.version))
        }
        Route::UpdateTemplate(id) => {
            let mut p = UpdateTemplateParams::parse(plain_params(body).await?)?;
            p.if_version = if_match;
            let done = svc.update_template_versioned(ctx, &id.parse()?, p).await?;
            Ok(Reply::ok(&done.value)?.with_etag(done.version))
        }
        Route::DeleteTemplate(id) => Reply::ok(&svc.archive_template(ctx, &id.parse()?).await?),
        Route::TemplateFile(id) => Reply::ok(&svc.template_file_link(ctx, &id.parse()?).await?),
        Route::TemplateBuilderUrl(id) => {
            let p = BuilderUrlParams::parse(plain_params(body).await?)?;
            Reply::ok(&svc.template_builder_url(ctx, &id.parse()?, p).await?)
        }
        Route::TemplatePages(id) => {
            let target = BuilderTarget::Template(id.parse()?);
            let got = svc.page_layout(ctx, &target).await?;
            Ok(Reply::ok(&got.value)?.with_etag(got.version))
        }
        Route::TemplatePage(id, page) => {
            let target = BuilderTarget::Template(id.parse()?);
            let image = svc
                .page_picture(ctx, &target, 1, page_param(&page)?)
                .await?;
            Ok(Reply::png(image.png.clone()))
        }
        Route::CreateEndpoint => {
            let p = CreateEndpointParams::parse(plain_params(body).await?)?;
            Reply::created(&svc.create_webhook_endpoint(ctx, p).await?)
        }
        Route::ListEndpoints => {
            let list = ListParams::take(&mut query, max_list)?;
            query.finish()?;
            Reply::ok(&svc.list_webhook_endpoints(ctx, &list).await?)
        }
        Route::GetEndpoint(id) => Reply::ok(&svc.get_webhook_endpoint(ctx, &id.parse()?).await?),
        Route::UpdateEndpoint(id) => {
            let p = UpdateEndpointParams::parse(plain_params(body).await?)?;
            Reply::ok(&svc.update_webhook_endpoint(ctx, &id.parse()?, p).await?)
        }
        Route::DeleteEndpoint(id) => {
            Reply::ok(&svc.delete_webhook_endpoint(ctx, &id.parse()?).await?)
        }
        Route::ListEvents => {
            let list = ListParams::take(&mut query, max_list)?;
            let kind = query.string("type")?;
            query.finish()?;
            Reply::ok(&svc.list_events(ctx, &list, kind.as_deref()).await?)
        }
        Route::GetEvent(id) => Reply::ok(&svc.get_event(ctx, &id.parse()?).await?),
        Route::EventDeliveries(id) => {
            let list = ListParams::take(&mut query, max_list)?;
            query.finish()?;
            Reply::ok(&svc.list_event_deliveries(ctx, &id.parse()?, &list).await?)
        }
        Route::ResendEvent(id) => {
            let mut p = plain_params(body).await?;
            let endpoint = p.string("endpoint")?;
            p.finish()?;
            Reply::ok(
                &svc.resend_event(ctx, &id.parse()?, endpoint.as_deref())
                    .await?,
            )
        }
        Route::Account => Reply::ok(&svc.account(ctx).await?),
        Route::Balance => Reply::ok(&svc.balance(ctx).await?),
        Route::TestComplete(id) => {
            plain_params(body).await?.finish()?;
            Reply::ok(&svc.test_complete(ctx, &id.parse()?).await?)
        }
    }
}

/// `GET /files/{token}`: the PDF behind a download link, read from the blob store as it is
/// sent, or an envelope's archive as it is written (extensions E5); no API key, the token is
/// the secret. With presigned downloads (`presign` = how long a URL works), a file stored as
/// one blob is answered `302` to a URL of the bucket that serves the same bytes under the
/// same content type and disposition.
pub async fn download(
    svc: &SigningService,
    presign: Option<std::time::Duration>,
    token: &str,
) -> Result<Reply, ApiError> {
    let link = svc.resolve_download(token).await?;
    let content_type = link.content_type();
    // `direct_url` gives none for a file that is not one blob (a signed copy's delta).
    if let Some(expires_in) = presign {
        let disposition = content_disposition("attachment", link.file_name());
        let read = DirectRead {
            expires_in,
            content_type: content_type.into(),
            content_disposition: disposition.to_str().unwrap_or("attachment").to_string(),
        };
        if let Some(url) = link.direct_url(&read).await?
            && let Ok(location) = HeaderValue::from_str(&url)
        {
            return Ok(Reply::redirect(location));
        }
    }
    Ok(match link.open().await? {
        Download::File { file_name, body } => Reply::file_stream(content_type, &file_name, body),
        Download::Archive { file_name, body } => Reply::zip(&file_name, body),
    })
}
