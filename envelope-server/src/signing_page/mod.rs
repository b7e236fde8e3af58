//! The signing pages at `{signing_host}/sign/{token}`: what a signer sees behind a link.
//!
//! | route | what |
//! |---|---|
//! | `GET /sign/{token}` | the page: the document, the signer's fields, consent, Sign, Decline; or the page of the link's state (signed, not yet, declined, voided, expired, completed). Marks the signer `viewed` (the core does). |
//! | `GET /sign/{token}/document` | the original PDF, `inline`, for the page's frame |
//! | `GET /sign/{token}/document/{n}` | document `n` (from 1) of an envelope of several (extensions E5), guarded like `document` |
//! | `GET /sign/{token}/document/{n}/page/{p}` | page `p` of document `n` as a PNG (issue 18), guarded like `document`; the page draws these with the signer's fields over them |
//! | `POST /sign/{token}` | signs (form post) |
//! | `POST /sign/{token}/decline` | declines, with a reason |
//! | `POST /sign/{token}/verify` | the code step (extensions E2): checks `code`; right, sets the grant cookie and 303 to the page |
//! | `POST /sign/{token}/send-code` | the code step: emails a new code (at most once a minute) |
//! | `GET /assets/signing.js`, `GET /assets/signing.css`, `GET /assets/signature.ttf` | the page's script, style sheet, and the typed-signature face |
//!
//! Presentation only: which fields a signer has, what is required, what a value may be, who may
//! sign when, all come from the core (`SigningService::open_signing_link`, `sign`, `decline`).
//! The consent tick box is passed to the core, which refuses to sign without it.
//!
//! A signer with `auth` sees the code step first (`verify`); the grant the core gives for the
//! right code comes back in a cookie and goes to every core call of the link, which refuses the
//! document, signing and declining without it.
//!
//! Every response is HTML (or the PDF), never the API's JSON errors, and carries the headers of
//! [`security`]. Tokens never reach a log line (see `request::redact`).
//!
//! Pages speak the signer's language (extensions E4): the signer's `locale` when they have one,
//! else the best match of the request's `Accept-Language` (`envelope_core::i18n`, which also
//! holds the words). Each page says which in `<html lang>` and `Content-Language`, with
//! `Vary: Accept-Language`.

mod form;
mod form_cap;
mod html;
mod ready;
pub mod security;
mod states;
pub(crate) mod verify;

use std::net::IpAddr;

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::http::request::Parts;
use hyper::{Method, StatusCode};

use envelope_core::field::FieldType;
use envelope_core::i18n::{self, Arg, Lang, Msg};
use envelope_core::model::SignerKind;
use envelope_core::service::{
    ClientInfo, FairSlot, GRANT_HOURS, LinkState, SIGNATURE_FONT, SignInput, SigningSession,
    ValueProblem, attachment_problem, field_value_problem, value_problem,
};
use envelope_core::{Error, ErrorKind, SigningService};

use crate::app::App;
use crate::body::{BodyLimits, MediaType, read_limited};
use crate::error::ApiError;
use crate::response::{Meta, Reply};
use html::{PageEvent, layout};
pub use security::{Action, FrameAncestors, PageSecret, PageSettings};

const SCRIPT: &str = include_str!("assets/signing.js");
const STYLE: &str = include_str!("assets/signing.css");

/// `GET /assets/{name}`: the page's script, style sheet, and the face typed signatures are
/// stamped in (the core's [`SIGNATURE_FONT`]), so that the page shows a typed name as the
/// signed copy will.
pub fn asset(method: &Method, name: &str) -> Result<Reply, ApiError> {
    let (content_type, body) = match name {
        "signing.js" => ("text/javascript; charset=utf-8", SCRIPT.as_bytes()),
        "signing.css" => ("text/css; charset=utf-8", STYLE.as_bytes()),
        "signature.ttf" => ("font/ttf", SIGNATURE_FONT),
        "builder.js" => (
            "text/javascript; charset=utf-8",
            crate::builder_page::SCRIPT.as_bytes(),
        ),
        "builder.css" => (
            "text/css; charset=utf-8",
            crate::builder_page::STYLE.as_bytes(),
        ),
        _ => return Err(ApiError::RouteNotFound),
    };
    if method != Method::GET {
        return Err(ApiError::MethodNotAllowed { allow: "GET" });
    }
    Ok(Reply {
        status: StatusCode::OK,
        content_type,
        body: Bytes::from_static(body),
        headers: security::asset_headers(),
        stream: None,
    })
}

/// One request below `/sign/`: `rest` is the path after it, split into segments. `client_ip` is
/// the client's address (behind a trusted proxy, the one it forwarded): the audit trail records
/// it and the per-address rate limit counts it.
pub async fn handle(
    app: &App,
    client_ip: IpAddr,
    parts: &Parts,
    body: Incoming,
    rest: &[&str],
    meta: &mut Meta,
) -> Reply {
    let accept_language = parts
        .headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok());
    let page = Pages {
        app,
        root: "../",
        grant: None,
        accept_language,
    };
    if let Err(e) = crate::address_limit::limit_by_address(&app.svc, client_ip, meta) {
        return page.error(e.into());
    }
    let client = ClientInfo {
        ip_address: Some(client_ip.to_string()),
        user_agent: parts
            .headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
    };
    // The core's grant for this link, if the browser has one (the cookie is scoped to the
    // link's path). Several can meet only through a path prefix; the first is used.
    let grants = verify::grants(&parts.headers);
    let page = Pages {
        grant: grants.first().map(String::as_str),
        ..page
    };
    let m = &parts.method;
    match rest {
        [token] if m == Method::GET => page.open(token, &client, false).await,
        // The page once the host of an in-person signing handed the device over (extensions
        // E13); for any other signer, the page itself.
        [token, "in-person"] if m == Method::GET => {
            let page = Pages {
                root: "../../",
                ..page
            };
            page.open(token, &client, true).await
        }
        [token] if m == Method::POST => {
            let (cap, files, envelope) = match page.ready_session(token, &client).await {
                Ok(session) => (
                    form_cap::sign(&session),
                    form_cap::files(&session),
                    session.envelope.id.to_string(),
                ),
                Err(reply) => return reply,
            };
            match page
                .read_form_with_files(parts, body, cap, files, &envelope)
                .await
            {
                // A post with files keeps its turn of the upload gate until it is signed.
                Ok((post, _turn)) => page.sign(token, post, client).await,
                Err(reply) => reply,
            }
        }
        [token, "document"] if m == Method::GET => page.document(token, 1).await,
        [token, "document", n] if m == Method::GET => {
            let page = Pages {
                root: "../../../",
                ..page
            };
            match document_number(n) {
                Some(n) => page.document(token, n).await,
                None => page.unknown(),
            }
        }
        [token, "document", n, "page", p] if m == Method::GET => {
            let page = Pages {
                root: "../../../../../",
                ..page
            };
            match (document_number(n), page_number(p)) {
                (Some(n), Some(p)) => page.page_image(token, n, p).await,
                _ => page.unknown(),
            }
        }
        [token, "decline"] if m == Method::POST => {
            let page = Pages {
                root: "../../",
                ..page
            };
            if let Err(reply) = page.ready_session(token, &client).await {
                return reply;
            }
            match page.read_form(parts, body, form_cap::DECLINE).await {
                Ok(post) => page.decline(token, post, client).await,
                Err(reply) => reply,
            }
        }
        [token, action @ ("verify" | "send-code")] if m == Method::POST => {
            let page = Pages {
                root: "../../",
                ..page
            };
            // Entering a code needs the link at the code step before the post is read. Asking for
            // a new code does not look first: opening the link could itself email a code, and
            // the request would then be refused as too soon.
            let in_person = if *action == "verify" {
                match page.code_step(token, &client).await {
                    Ok(in_person) => in_person,
                    Err(reply) => return reply,
                }
            } else {
                false
            };
            let post = match page.read_form(parts, body, form_cap::CODE).await {
                Ok(post) => post,
                Err(reply) => return reply,
            };
            if *action == "verify" {
                let framed = parts
                    .headers
                    .get("sec-fetch-dest")
                    .is_some_and(|v| v.as_bytes() == b"iframe");
                page.verify(token, post, client, framed, in_person).await
            } else {
                page.send_code(token, post, client).await
            }
        }
        [_] => page.error(ApiError::MethodNotAllowed { allow: "GET, POST" }),
        [_, "document" | "in-person"] => page.error(ApiError::MethodNotAllowed { allow: "GET" }),
        [_, "decline" | "verify" | "send-code"] => {
            page.error(ApiError::MethodNotAllowed { allow: "POST" })
        }
        _ => page.unknown(),
    }
}

/// Renders pages for one request.
#[derive(Clone, Copy)]
struct Pages<'a> {
    app: &'a App,
    /// Relative path from the request's URL to the server root.
    root: &'a str,
    /// The grant cookie's value (extensions E2), passed to every core call of the link.
    grant: Option<&'a str>,
    /// The request's `Accept-Language`, for a signer without a locale and pages without a
    /// signer.
    accept_language: Option<&'a str>,
}

impl Pages<'_> {
    fn svc(&self) -> &SigningService {
        &self.app.svc
    }

    /// The language of a page: the signer's locale when there is a session and they have
    /// one, else the request's `Accept-Language`.
    fn lang(&self, session: Option<&SigningSession>) -> Lang {
        let locale = session.and_then(|s| s.envelope.signers[s.signer].locale.as_ref());
        Lang::for_page(locale, self.accept_language)
    }

    /// A catalogue message in `lang`, as plain text.
    fn say(lang: Lang, msg: Msg) -> String {
        i18n::text(lang, msg, &[])
    }

    fn html(
        &self,
        lang: Lang,
        status: StatusCode,
        title: &str,
        event: Option<&PageEvent>,
        body: &str,
    ) -> Reply {
        let service = &self.svc().settings().service_name;
        let page = layout(lang, service, title, self.root, event, body);
        let headers = security::page_headers(&self.app.pages.frame_ancestors);
        Reply::html_page(status, lang.code(), headers, page)
    }

    /// A failure page without a signer: in the request's language.
    fn failure_page(&self, status: StatusCode, title: Msg, heading: Msg, text: Msg) -> Reply {
        let lang = self.lang(None);
        let (title, heading) = (Self::say(lang, title), Self::say(lang, heading));
        let body = states::failure(&heading, &Self::say(lang, text));
        self.html(lang, status, &title, None, &body)
    }

    fn unknown(&self) -> Reply {
        self.failure_page(
            StatusCode::NOT_FOUND,
            Msg::ErrorUnknownTitle,
            Msg::ErrorUnknownHeading,
            Msg::ErrorUnknown,
        )
    }

    /// A failure as a page, with the status of the one error mapping (`crate::error`).
    fn error(&self, e: ApiError) -> Reply {
        let status = e.status();
        let (title, text) = match &e {
            ApiError::Core(err) if err.kind() == ErrorKind::NotFound => return self.unknown(),
            ApiError::Core(Error::RateLimited { .. }) => (Msg::ErrorRateTitle, Msg::ErrorRate),
            ApiError::MethodNotAllowed { .. } | ApiError::RouteNotFound => {
                (Msg::ErrorMethodTitle, Msg::ErrorMethod)
            }
            ApiError::Core(Error::VerificationRequired) => {
                (Msg::ErrorCodeFirstTitle, Msg::ErrorCodeFirst)
            }
            ApiError::UnsupportedMediaType { .. } | ApiError::BodyTooLarge { .. } => {
                (Msg::ErrorFormTitle, Msg::ErrorForm)
            }
            ApiError::Core(Error::FileDeleted { .. }) => {
                (Msg::ErrorDeletedTitle, Msg::ErrorDeleted)
            }
            ApiError::Core(Error::Busy { .. }) => (Msg::ErrorBusyTitle, Msg::ErrorBusy),
            ApiError::BodyTimeout => (Msg::ErrorSlowTitle, Msg::ErrorSlow),
            _ => {
                if status.is_server_error() {
                    tracing::error!(error = ?e, "signing page failed");
                }
                (Msg::ErrorGenericTitle, Msg::ErrorGeneric)
            }
        };
        let mut reply = self.failure_page(status, title, title, text);
        match e {
            ApiError::MethodNotAllowed { allow } => reply
                .headers
                .push((header::ALLOW, HeaderValue::from_static(allow))),
            ApiError::Core(
                Error::RateLimited { retry_after_secs } | Error::Busy { retry_after_secs },
            ) => reply
                .headers
                .push((header::RETRY_AFTER, HeaderValue::from(retry_after_secs))),
            _ => {}
        }
        reply
    }

    /// The page of a session: the form when the signer can sign, else the state's page.
    async fn session_page(
        &self,
        status: StatusCode,
        token: &str,
        s: &SigningSession,
        event: Option<&'static str>,
        error: Option<String>,
        previous: Option<&SignInput>,
    ) -> Reply {
        if s.state == LinkState::VerificationRequired {
            return self.code_page(status, token, s, None, None);
        }
        let lang = self.lang(Some(s));
        let me = &s.envelope.signers[s.signer];
        if s.state == LinkState::HandOver {
            let host = me.in_person.as_ref().map_or("", |h| h.host_name.as_str());
            let title = i18n::text(lang, Msg::HandoverTitle, &[("name", Arg::Text(&me.name))]);
            let body = states::hand_over(
                s,
                host,
                &format!("{}sign/{}", self.root, html::esc(token)),
                lang,
            );
            return self.html(lang, status, &title, None, &body);
        }
        // A viewer's opening finished their part (extensions E13): they see the document.
        let viewer_done = me.kind == SignerKind::Viewer
            && matches!(s.state, LinkState::Signed | LinkState::Completed);
        if s.state == LinkState::Ready || viewer_done {
            let secret = &self.app.pages.secret;
            // The pages as pictures when the core draws them; the PDF in a frame otherwise, or
            // when the sizes cannot be read.
            let layout = if self.svc().draws_pages() {
                match self.svc().signing_pages(token, self.grant).await {
                    Ok(layout) => Some(layout),
                    Err(e) => {
                        tracing::warn!(error = %e, "page sizes unavailable; the page frames the PDF");
                        None
                    }
                }
            } else {
                None
            };
            let page = ready::ReadyPage {
                session: s,
                layout: layout.as_deref(),
                token,
                root: self.root,
                sign_csrf: secret.form_token(Action::Sign, token),
                decline_csrf: secret.form_token(Action::Decline, token),
                error,
                previous,
                lang,
            };
            let (title, body) = if viewer_done {
                (Msg::PageTitleView, ready::render_viewer(&page))
            } else {
                (ready::words(me.kind).title, ready::render(&page))
            };
            let title = i18n::text(lang, title, &[("document", Arg::Text(&s.envelope.name))]);
            return self.html(lang, status, &title, None, &body);
        }
        let event = event.map(|kind| PageEvent {
            kind,
            envelope: s.envelope.id.to_string(),
            signer: s.envelope.signers[s.signer].id.to_string(),
        });
        let (title, body) = states::render(s, event.is_some(), lang);
        self.html(lang, status, &title, event.as_ref(), &body)
    }

    async fn open(&self, token: &str, client: &ClientInfo, handed_over: bool) -> Reply {
        let opened = if handed_over {
            self.svc().open_handed_over(token, self.grant, client).await
        } else {
            self.svc()
                .open_signing_link(token, self.grant, client)
                .await
        };
        match opened {
            Ok(s) => {
                self.session_page(StatusCode::OK, token, &s, None, None, None)
                    .await
            }
            Err(e) => self.error(e.into()),
        }
    }

    async fn document(&self, token: &str, n: u32) -> Reply {
        match self.svc().signing_document_body(token, self.grant, n).await {
            Ok((file_name, body)) => {
                let mut reply = Reply::pdf_stream_as("inline", &file_name, body);
                reply
                    .headers
                    .extend(security::document_headers(&self.app.pages.frame_ancestors));
                reply
            }
            Err(e) => self.error(e.into()),
        }
    }

    /// `GET /sign/{token}/document/{n}/page/{p}`: the picture of a page, drawn by the core's
    /// renderer. A page that cannot be drawn is the failure page with its status (the signing
    /// page's picture then shows its alternative text, and the PDF link stays).
    async fn page_image(&self, token: &str, n: u32, p: u32) -> Reply {
        match self.svc().signing_page_image(token, self.grant, n, p).await {
            Ok(image) => {
                let mut headers = security::document_headers(&self.app.pages.frame_ancestors);
                // The picture is the document's content, like the PDF: kept by no cache, not even
                // the browser's own (its disk outlives the session on a shared computer).
                headers.push((header::CACHE_CONTROL, HeaderValue::from_static("no-store")));
                Reply {
                    status: StatusCode::OK,
                    content_type: "image/png",
                    body: image.png.clone(),
                    headers,
                    stream: None,
                }
            }
            Err(e) => self.error(e.into()),
        }
    }

    /// The session behind a link that is about to take a form post, before a byte of the post
    /// is read: an unknown link, or one that cannot act any more (signed, voided, expired...),
    /// is answered with its page and costs no body read.
    async fn ready_session(
        &self,
        token: &str,
        client: &ClientInfo,
    ) -> Result<SigningSession, Reply> {
        // A post comes from the form, shown after any hand-over (extensions E13).
        match self.svc().open_handed_over(token, self.grant, client).await {
            Ok(s) if s.state == LinkState::Ready => Ok(s),
            // A post without the code: the code step, refused (nothing was read or done).
            Ok(s) if s.state == LinkState::VerificationRequired => {
                Err(self.code_page(StatusCode::FORBIDDEN, token, &s, None, None))
            }
            Ok(s) => Err(self
                .session_page(StatusCode::OK, token, &s, None, None, None)
                .await),
            Err(e) => Err(self.error(e.into())),
        }
    }

    /// Reads a form post of at most `cap` bytes: its type, origin and size. Anything wrong is a
    /// page. (The form token is checked by the action, which knows which one it needs.)
    async fn read_form(
        &self,
        parts: &Parts,
        body: Incoming,
        cap: usize,
    ) -> Result<form::FormPost, Reply> {
        self.read_form_with_files(parts, body, cap, 0, "")
            .await
            .map(|(post, _)| post)
    }

    /// [`Pages::read_form`] for a form that may carry files (`files`: the most bytes they
    /// can take, beyond `cap`; 0 for none): such a form is `multipart/form-data` (extensions
    /// E14), any other urlencoded. A multipart body goes the way of the creates' uploads
    /// (`body/spool.rs`): to disk within the spool's budget (one envelope, `envelope`, at most
    /// half of it), then into memory when the upload gate gives it a turn, which the returned
    /// slot holds; so signers' files cannot fill the server's memory however many arrive.
    async fn read_form_with_files(
        &self,
        parts: &Parts,
        body: Incoming,
        cap: usize,
        files: usize,
        envelope: &str,
    ) -> Result<(form::FormPost, Option<FairSlot>), Reply> {
        let essence = parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(str::trim)
            .unwrap_or_default();
        let boundary = match MediaType::of(&parts.headers) {
            MediaType::Multipart { boundary } if files > 0 => Some(boundary),
            _ => None,
        };
        if boundary.is_none() && !essence.eq_ignore_ascii_case("application/x-www-form-urlencoded")
        {
            return Err(self.error(ApiError::UnsupportedMediaType {
                accepted: if files > 0 {
                    "application/x-www-form-urlencoded, multipart/form-data"
                } else {
                    "application/x-www-form-urlencoded"
                },
            }));
        }
        let host = parts
            .headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .or_else(|| parts.uri.authority().map(|a| a.as_str()));
        let signing_origin = security::origin_of(self.svc().settings().signing_base());
        if !security::same_origin_post(&parts.headers, host, &signing_origin) {
            return Err(self.refused());
        }
        let limits = &self.app.limits;
        let read = BodyLimits {
            max_bytes: cap.min(limits.max_form_body) + files,
            idle_timeout: limits.body_idle_timeout,
            total_timeout: limits.body_total_timeout,
        };
        match boundary {
            None => {
                let bytes = read_limited(&parts.headers, body, read)
                    .await
                    .map_err(|e| self.error(e))?;
                Ok((form::parse(&bytes), None))
            }
            Some(boundary) => {
                let spooled = self
                    .app
                    .uploads
                    .receive(&format!("sign:{envelope}"), &parts.headers, body, read)
                    .await
                    .map_err(|e| self.error(e))?;
                let post = form::parse_multipart(&Bytes::from(spooled.bytes), &boundary).map_err(
                    |message| self.error(ApiError::Core(Error::InvalidBody { message })),
                )?;
                Ok((post, Some(spooled.slot)))
            }
        }
    }

    /// A post without this server's page behind it (another site, a stale or forged form).
    fn refused(&self) -> Reply {
        self.failure_page(
            StatusCode::FORBIDDEN,
            Msg::ErrorRefusedTitle,
            Msg::ErrorRefusedTitle,
            Msg::ErrorRefused,
        )
    }

    async fn sign(&self, token: &str, post: form::FormPost, client: ClientInfo) -> Reply {
        if !self
            .app
            .pages
            .secret
            .verify(Action::Sign, token, &post.csrf)
        {
            return self.refused();
        }
        let svc = self.svc().clone();
        let (t, input, c) = (token.to_string(), post.input.clone(), client.clone());
        let g = self.grant.map(str::to_string);
        let outcome = detached(async move { svc.sign(&t, g.as_deref(), input, &c).await }).await;
        self.after(token, outcome, "envelope.signed", &post.input, &client)
            .await
    }

    async fn decline(&self, token: &str, post: form::FormPost, client: ClientInfo) -> Reply {
        if !self
            .app
            .pages
            .secret
            .verify(Action::Decline, token, &post.csrf)
        {
            return self.refused();
        }
        let svc = self.svc().clone();
        let (t, reason, c) = (token.to_string(), post.reason.clone(), client.clone());
        let g = self.grant.map(str::to_string);
        let outcome =
            detached(async move { svc.decline(&t, g.as_deref(), reason.as_deref(), &c).await })
                .await;
        self.after(token, outcome, "envelope.declined", &post.input, &client)
            .await
    }

    /// The page after a sign or decline: the new state with its event, the state's page when
    /// the link could not act (signed meanwhile, voided, ...), or the form again with the
    /// problem the core found.
    async fn after(
        &self,
        token: &str,
        outcome: Result<(), Error>,
        event: &'static str,
        input: &SignInput,
        client: &ClientInfo,
    ) -> Reply {
        // Pages after a post live at /sign/{token}(/decline); links in them go back there.
        match outcome {
            Ok(()) => match self.svc().open_handed_over(token, self.grant, client).await {
                Ok(s) => {
                    self.session_page(StatusCode::OK, token, &s, Some(event), None, None)
                        .await
                }
                Err(e) => self.error(e.into()),
            },
            Err(e) if e.kind() == ErrorKind::Conflict => self.open(token, client, true).await,
            Err(
                e @ (Error::ParameterMissing { .. }
                | Error::ParameterInvalid { .. }
                | Error::ParameterUnknown { .. }),
            ) => {
                let msg = self.explain(token, &e, input).await;
                let status = ApiError::Core(e).status();
                self.again(token, status, msg, input).await
            }
            Err(e) => self.error(e.into()),
        }
    }

    /// The form again, with a message and the values just posted.
    async fn again(
        &self,
        token: &str,
        status: StatusCode,
        msg: String,
        input: &SignInput,
    ) -> Reply {
        let client = ClientInfo::default();
        match self
            .svc()
            .open_handed_over(token, self.grant, &client)
            .await
        {
            Ok(s) => {
                self.session_page(status, token, &s, None, Some(msg), Some(input))
                    .await
            }
            Err(e) => self.error(e.into()),
        }
    }

    /// A core validation error in the signer's words, naming the field by its label: the
    /// core's errors are English and for developers, so the page maps their code and `param`
    /// onto the catalogue. A refused value: English pages show the core's own sentence; other
    /// languages the catalogue's words for the problem the core finds in the value
    /// (`value_problem`), or that it was not accepted when there are none.
    async fn explain(&self, token: &str, e: &Error, input: &SignInput) -> String {
        let (fields, lang) = match self
            .svc()
            .open_handed_over(token, self.grant, &ClientInfo::default())
            .await
        {
            Ok(s) => (s.fields.clone(), self.lang(Some(&s))),
            Err(_) => (Vec::new(), self.lang(None)),
        };
        let label = |param: &str| -> String {
            if let Some(key) = param.strip_prefix("values.") {
                if let Some(i) = fields.iter().position(|f| f.key == key) {
                    return ready::field_label(&fields, i, lang);
                }
                return key.to_string();
            }
            match param {
                "signature" => Self::say(lang, Msg::PageLabelSignature),
                "reason" => Self::say(lang, Msg::PageLabelReason),
                other => other.to_string(),
            }
        };
        match e {
            Error::ParameterMissing { param } if param == "consent" => {
                Self::say(lang, Msg::ErrorConsent)
            }
            Error::ParameterMissing { param } => i18n::text(
                lang,
                Msg::ErrorMissing,
                &[("field", Arg::Text(&label(param)))],
            ),
            Error::ParameterInvalid { param, message } if lang == Lang::En => i18n::text(
                lang,
                Msg::ErrorInvalidDetail,
                &[
                    ("field", Arg::Text(&label(param))),
                    ("detail", Arg::Text(message.trim_end_matches('.'))),
                ],
            ),
            // A computed field without a value (extensions E14): the signer changes its inputs.
            Error::ParameterInvalid { param, .. }
                if param.strip_prefix("values.").is_some_and(|key| {
                    !input.values.contains_key(key)
                        && fields.iter().any(|f| f.key == key && f.formula.is_some())
                }) =>
            {
                i18n::text(
                    lang,
                    Msg::ErrorFormulaNoValue,
                    &[("field", Arg::Text(&label(param)))],
                )
            }
            Error::ParameterInvalid { param, .. } => {
                let field = label(param);
                let problem = match param.strip_prefix("values.") {
                    // A refused file (extensions E14): what it is, from a cheap look.
                    Some(key) if input.attachments.contains_key(key) => input
                        .attachments
                        .get(key)
                        .map(|u| attachment_problem(&u.bytes)),
                    Some(key) => fields
                        .iter()
                        .find(|f| f.key == key)
                        .zip(input.values.get(key))
                        .and_then(|(f, v)| field_value_problem(f, v)),
                    None if param == "signature" => input
                        .signature
                        .as_ref()
                        .and_then(|v| value_problem(FieldType::Signature, v)),
                    None => None,
                };
                refused_value(lang, &field, problem)
            }
            Error::ParameterUnknown { .. } => Self::say(lang, Msg::ErrorUnknownValue),
            other => other.public_message(),
        }
    }
}

impl Pages<'_> {
    /// The code step's page (extensions E2).
    fn code_page(
        &self,
        status: StatusCode,
        token: &str,
        s: &SigningSession,
        error: Option<String>,
        notice: Option<String>,
    ) -> Reply {
        let secret = &self.app.pages.secret;
        let lang = self.lang(Some(s));
        let (title, body) = verify::render(&verify::CodePage {
            lang,
            session: s,
            token,
            root: self.root,
            verify_csrf: secret.form_token(Action::Verify, token),
            send_csrf: secret.form_token(Action::SendCode, token),
            error,
            notice,
        });
        self.html(lang, status, &title, None, &body)
    }

    /// Before a post of the code step is read: the link must be at that step. A link that
    /// cannot act is answered with its page; one whose browser already holds a live grant goes
    /// back to the page.
    /// Ok: whether the signer signs in person (extensions E13), whose page after the code is
    /// the one past the hand-over.
    async fn code_step(&self, token: &str, client: &ClientInfo) -> Result<bool, Reply> {
        match self.svc().open_handed_over(token, self.grant, client).await {
            Ok(s) if s.state == LinkState::VerificationRequired => {
                Ok(s.envelope.signers[s.signer].in_person.is_some())
            }
            Ok(s) if s.state == LinkState::Ready => {
                let in_person = s.envelope.signers[s.signer].in_person.is_some();
                Err(self.see_page(token, None, in_person))
            }
            Ok(s) => Err(self
                .session_page(StatusCode::OK, token, &s, None, None, None)
                .await),
            Err(e) => Err(self.error(e.into())),
        }
    }

    /// `303 See Other` to the link's page (relative, so a path prefix works), optionally
    /// setting the grant cookie.
    /// An in-person signer (extensions E13) goes to the page past the hand-over, which the code
    /// step already came after.
    fn see_page(&self, token: &str, cookie: Option<HeaderValue>, in_person: bool) -> Reply {
        let mut headers = security::page_headers(&self.app.pages.frame_ancestors);
        let location = if in_person {
            format!("../{token}/in-person")
        } else {
            format!("../{token}")
        };
        headers.push((
            header::LOCATION,
            HeaderValue::from_str(&location).unwrap_or_else(|_| HeaderValue::from_static("./")),
        ));
        if let Some(c) = cookie {
            headers.push((header::SET_COOKIE, c));
        }
        Reply {
            status: StatusCode::SEE_OTHER,
            content_type: "text/html; charset=utf-8",
            body: Bytes::new(),
            headers,
            stream: None,
        }
    }

    /// `POST /sign/{token}/verify`: the right code sets the grant cookie and goes to the page;
    /// anything else shows the code step again with the problem.
    async fn verify(
        &self,
        token: &str,
        post: form::FormPost,
        client: ClientInfo,
        framed: bool,
        in_person: bool,
    ) -> Reply {
        if !self
            .app
            .pages
            .secret
            .verify(Action::Verify, token, &post.csrf)
        {
            return self.refused();
        }
        let code = post.code.unwrap_or_default();
        match self.svc().verify_signer(token, &code, &client).await {
            Ok(grant) => {
                let base = self.svc().settings().signing_base();
                let mode = verify::CookieMode {
                    secure: verify::secure_cookies(base),
                    framed: framed && !self.app.pages.frame_ancestors.is_none(),
                };
                let cookie = verify::set_cookie(
                    &grant.secret,
                    &verify::cookie_path(base, token),
                    GRANT_HOURS * 3600,
                    mode,
                );
                self.see_page(token, Some(cookie), in_person)
            }
            Err(e) => self.code_step_again(token, e).await,
        }
    }

    /// `POST /sign/{token}/send-code`: a new code email, then the code step with a notice.
    async fn send_code(&self, token: &str, post: form::FormPost, client: ClientInfo) -> Reply {
        if !self
            .app
            .pages
            .secret
            .verify(Action::SendCode, token, &post.csrf)
        {
            return self.refused();
        }
        match self.svc().send_signer_code(token, &client).await {
            Ok(()) => match self
                .svc()
                .open_handed_over(token, self.grant, &client)
                .await
            {
                Ok(s) => {
                    let sent = Self::say(self.lang(Some(&s)), Msg::CodeSent);
                    self.code_page(StatusCode::OK, token, &s, None, Some(sent))
                }
                Err(e) => self.error(e.into()),
            },
            Err(e) => self.code_step_again(token, e).await,
        }
    }

    /// The code step again after a refused code or request, in the signer's words; failures
    /// that are not about the code get their own page.
    async fn code_step_again(&self, token: &str, e: Error) -> Reply {
        // What to say, once the page's language is known.
        let mut daily: Option<String> = None;
        let problem: Option<(Msg, Option<(&str, i64)>)> = match &e {
            Error::IncorrectCode { attempts_left } => {
                Some((Msg::CodeWrong, Some(("count", i64::from(*attempts_left)))))
            }
            // The page shows the lock from the session.
            Error::VerificationLocked { .. } => None,
            Error::CodeExpired => Some((Msg::CodeExpired, None)),
            Error::CodeRecentlySent { retry_after_secs } => Some((
                Msg::CodeTooSoon,
                Some(("seconds", i64::try_from(*retry_after_secs).unwrap_or(60))),
            )),
            Error::CodeDailyLimit { until } => {
                daily = Some(until.datetime().format("%H:%M UTC").to_string());
                Some((Msg::CodeDailyLimit, None))
            }
            // Signed, declined, voided meanwhile: the link's own page.
            e if e.kind() == ErrorKind::Conflict => {
                return self.open(token, &ClientInfo::default(), true).await;
            }
            _ => return self.error(e.into()),
        };
        let status = ApiError::Core(e).status();
        match self
            .svc()
            .open_handed_over(token, self.grant, &ClientInfo::default())
            .await
        {
            Ok(s) if s.state == LinkState::VerificationRequired => {
                let lang = self.lang(Some(&s));
                let msg = problem.map(|(msg, arg)| match (arg, &daily) {
                    (Some((name, n)), _) => i18n::text(lang, msg, &[(name, Arg::Number(n))]),
                    (None, Some(until)) => i18n::text(lang, msg, &[("until", Arg::Text(until))]),
                    (None, None) => Self::say(lang, msg),
                });
                self.code_page(status, token, &s, msg, None)
            }
            Ok(s) => {
                self.session_page(StatusCode::OK, token, &s, None, None, None)
                    .await
            }
            Err(e) => self.error(e.into()),
        }
    }
}

/// A refused value in the page's language: the words for its problem, or that it was not
/// accepted.
/// `n` of `/sign/{token}/document/{n}`: a document number from 1, digits only.
fn document_number(n: &str) -> Option<u32> {
    let max = envelope_core::service::MAX_DOCUMENTS as u32;
    if n.is_empty() || n.len() > 2 || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok().filter(|n| (1..=max).contains(n))
}

/// `p` of `.../page/{p}`: a page number from 1, digits only, within the service's page limit.
fn page_number(p: &str) -> Option<u32> {
    if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    p.parse().ok().filter(|p| *p >= 1)
}

fn refused_value(lang: Lang, field: &str, problem: Option<ValueProblem>) -> String {
    use envelope_core::service::{AttachmentError, DrawingError, Undrawable};
    let f = ("field", Arg::Text(field));
    let say = |msg, args: &[(&str, Arg<'_>)]| i18n::text(lang, msg, args);
    match problem {
        Some(ValueProblem::Empty) => say(Msg::ErrorValueEmpty, &[f]),
        Some(ValueProblem::TooLong { max }) => {
            say(Msg::ErrorValueTooLong, &[f, ("max", max.into())])
        }
        Some(ValueProblem::Character(
            Undrawable::Control(c) | Undrawable::Invisible(c) | Undrawable::NoGlyph(c),
        )) => {
            let code = format!("U+{:04X}", u32::from(c));
            say(Msg::ErrorValueCharacter, &[f, ("code", Arg::Text(&code))])
        }
        Some(ValueProblem::Drawing(
            DrawingError::TooManyBytes { .. } | DrawingError::TooLarge { .. },
        )) => say(Msg::ErrorDrawingTooBig, &[f]),
        Some(ValueProblem::Drawing(DrawingError::Unreadable) | ValueProblem::DrawingNotBase64) => {
            say(Msg::ErrorDrawingUnreadable, &[f])
        }
        Some(ValueProblem::Drawing(DrawingError::Blank)) => say(Msg::ErrorDrawingBlank, &[f]),
        Some(ValueProblem::NotAnOption) => say(Msg::ErrorValueNotOption, &[f]),
        Some(ValueProblem::NotANumber) => say(Msg::ErrorValueNotNumber, &[f]),
        Some(ValueProblem::Attachment(AttachmentError::TooManyBytes { .. })) => {
            say(Msg::ErrorFileTooBig, &[f])
        }
        Some(
            ValueProblem::Attachment(AttachmentError::NotAcceptedType) | ValueProblem::NotAFile,
        ) => say(Msg::ErrorFileType, &[f]),
        Some(ValueProblem::Attachment(_)) => say(Msg::ErrorFileUnreadable, &[f]),
        _ => say(Msg::ErrorInvalid, &[f]),
    }
}

/// Runs a state change in its own task: a signer who closes the tab mid-request does not
/// cancel a half-done completion.
async fn detached<T: Send + 'static>(
    f: impl Future<Output = Result<T, Error>> + Send + 'static,
) -> Result<(), Error> {
    match tokio::spawn(f).await {
        Ok(r) => r.map(|_| ()),
        Err(e) => Err(Error::Internal(format!("signing task failed: {e}"))),
    }
}
