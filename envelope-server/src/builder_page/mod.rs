//! The builder page at `{signing_host}/build/{token}` (extensions E11): a sender places fields
//! on the pages of one template or one draft envelope, inside their own app (an iframe).
//!
//! | route | what |
//! |---|---|
//! | `GET /build/{token}` | the page: palette, the pages as pictures with the fields over them, the side panel; or the page of an unknown or expired link |
//! | `GET /assets/builder.js`, `GET /assets/builder.css` | its script and style sheet (served by [`crate::signing_page::asset`]) |
//!
//! The page is a plain client of the documented API: its script calls `../v1/...` with the
//! link's token as the bearer key (the core scopes that token to the one template or draft), so
//! whatever the page does, an API caller can do too. This module only checks the link and
//! writes the HTML; it never reads or changes the template or envelope itself, and holds no
//! rule about fields (the API answers every save, in its own words).
//!
//! Every response is HTML with the headers of [`security::builder_page_headers`] (a CSP with
//! `connect-src 'self'` for the API and `img-src blob:` for the page pictures, the signing
//! pages' `frame-ancestors`, `no-store`, no Referer). Tokens never reach a log line
//! (`request::redact`). Words come from the catalogues in the link's `locale`, else the
//! request's `Accept-Language`.

mod page;

use std::net::IpAddr;

use hyper::header::{self, HeaderValue};
use hyper::http::request::Parts;
use hyper::{Method, StatusCode};

use envelope_core::i18n::{self, Lang, Msg};
use envelope_core::service::BuilderOpen;
use envelope_core::{Error, ErrorKind};

use crate::app::App;
use crate::response::{Meta, Reply};
use crate::signing_page::security;

/// The page's script (one IIFE, no build step: docs/BUILDER.md says why).
pub(crate) const SCRIPT: &str = include_str!("assets/builder.js");
/// The page's style sheet.
pub(crate) const STYLE: &str = include_str!("assets/builder.css");

/// One request below `/build/`: `rest` is the path after it, split into segments. `client_ip`
/// is counted by the per-address rate limit, as for the signing pages.
pub async fn handle(
    app: &App,
    client_ip: IpAddr,
    parts: &Parts,
    rest: &[&str],
    meta: &mut Meta,
) -> Reply {
    let accept_language = parts
        .headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok());
    let fallback = Lang::for_page(None, accept_language);
    if let Err(e) = crate::address_limit::limit_by_address(&app.svc, client_ip, meta) {
        return failure(app, fallback, e);
    }
    match rest {
        [token] if !token.is_empty() && parts.method == Method::GET => {
            open(app, token, accept_language).await
        }
        [token] if !token.is_empty() => {
            let mut reply = notice(
                app,
                fallback,
                StatusCode::METHOD_NOT_ALLOWED,
                Msg::ErrorMethodTitle,
                Msg::ErrorMethod,
            );
            reply
                .headers
                .push((header::ALLOW, HeaderValue::from_static("GET")));
            reply
        }
        _ => unknown(app, fallback),
    }
}

async fn open(app: &App, token: &str, accept_language: Option<&str>) -> Reply {
    let fallback = Lang::for_page(None, accept_language);
    match app.svc.open_builder(token).await {
        Ok(BuilderOpen::Open(session)) => {
            let lang = Lang::for_page(session.locale.as_ref(), accept_language);
            let service = &app.svc.settings().service_name;
            let html = page::render(&page::BuilderPage {
                lang,
                service,
                root: "../",
                session: &session,
            });
            reply(app, lang, StatusCode::OK, html)
        }
        Ok(BuilderOpen::Expired) => notice(
            app,
            fallback,
            StatusCode::GONE,
            Msg::BuilderExpiredTitle,
            Msg::BuilderExpired,
        ),
        Ok(BuilderOpen::Unknown) => unknown(app, fallback),
        Err(e) => failure(app, fallback, e),
    }
}

fn unknown(app: &App, lang: Lang) -> Reply {
    let title = i18n::text(lang, Msg::ErrorUnknownTitle, &[]);
    let heading = i18n::text(lang, Msg::ErrorUnknownHeading, &[]);
    let text = i18n::text(lang, Msg::BuilderUnknown, &[]);
    let service = &app.svc.settings().service_name;
    let html = page::notice(lang, service, "../", &title, &heading, &text);
    reply(app, lang, StatusCode::NOT_FOUND, html)
}

/// A failure of the core while opening the link, as a page with the status of the one error
/// mapping (`crate::error`).
fn failure(app: &App, lang: Lang, e: Error) -> Reply {
    if e.kind() == ErrorKind::NotFound {
        return unknown(app, lang);
    }
    let (title, text, retry) = match &e {
        Error::RateLimited { retry_after_secs } => {
            (Msg::ErrorRateTitle, Msg::ErrorRate, Some(*retry_after_secs))
        }
        Error::Busy { retry_after_secs } => {
            (Msg::ErrorBusyTitle, Msg::ErrorBusy, Some(*retry_after_secs))
        }
        _ => (Msg::ErrorGenericTitle, Msg::ErrorGeneric, None),
    };
    let status = crate::error::ApiError::Core(e).status();
    if status.is_server_error() && retry.is_none() {
        tracing::error!(%status, "builder page failed");
    }
    let mut reply = notice(app, lang, status, title, text);
    if let Some(secs) = retry {
        reply
            .headers
            .push((header::RETRY_AFTER, HeaderValue::from(secs)));
    }
    reply
}

fn notice(app: &App, lang: Lang, status: StatusCode, title: Msg, text: Msg) -> Reply {
    let title = i18n::text(lang, title, &[]);
    let text = i18n::text(lang, text, &[]);
    let service = &app.svc.settings().service_name;
    let html = page::notice(lang, service, "../", &title, &title, &text);
    reply(app, lang, status, html)
}

fn reply(app: &App, lang: Lang, status: StatusCode, html: String) -> Reply {
    let headers = security::builder_page_headers(&app.pages.frame_ancestors);
    Reply::html_page(status, lang.code(), headers, html)
}
