//! The life of one request: request ID, authentication, rate limit, routing, body, idempotency,
//! the core call, the common headers, and one log line.
//!
//! Every outcome, errors and panics included, leaves here as a response with the common headers.

use std::borrow::Cow;
use std::net::{IpAddr, SocketAddr};
use std::panic::AssertUnwindSafe;
use std::time::Instant;

use futures_util::FutureExt;
use hyper::body::{Body, Incoming};
use hyper::http::request::Parts;
use hyper::{Method, Request, Response, StatusCode};

use envelope_core::service::{FairSlot, idempotency_fingerprint, is_builder_token};
use envelope_core::store::{IdempotencyBegin, StoredResponse};
use envelope_core::{AuthContext, Error, Mode, SigningService, ids};

use crate::address_limit::limit_by_address;
use crate::app::App;
use crate::body::{BodyLimits, MediaType, RawBody, drain, query_params, read_limited};
use crate::builder_page;
use crate::error::ApiError;
use crate::handlers::{self, Operation};
use crate::health;
use crate::preconditions;
use crate::response::{Meta, Reply, finish};
use crate::router::{self, BodyPolicy};
use crate::signing_page;

/// Answers one request; never fails and never panics outward.
pub async fn handle(
    app: &App,
    peer: SocketAddr,
    req: Request<Incoming>,
) -> Response<crate::response::ResponseBody> {
    let started = Instant::now();
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    // Behind a trusted proxy the client is who the proxy says; everything below (rate limits,
    // the audit trail's addresses) sees that address, and the socket's peer is only logged.
    let client = app.trusted_proxies.client(peer.ip(), req.headers());
    let mut meta = Meta {
        request_id: ids::new_id(ids::REQUEST),
        mode: Mode::Test,
        rate: None,
        replayed: false,
        route: None,
    };
    let outcome = AssertUnwindSafe(process(app, client, req, &mut meta))
        .catch_unwind()
        .await;
    let reply = match outcome {
        Ok(Ok(reply)) => reply,
        Ok(Err(e)) => e.into_reply(&meta.request_id),
        Err(_) => ApiError::Core(Error::Internal("request handler panicked".into()))
            .into_reply(&meta.request_id),
    };
    macro_rules! log_request {
        ($level:expr) => {
            tracing::event!(
                $level,
                method = %method,
                path = %redact(&path),
                route = meta.route.unwrap_or_else(|| page_route(&path)),
                status = reply.status.as_u16(),
                duration_ms = started.elapsed().as_millis() as u64,
                request_id = %meta.request_id,
                mode = %meta.mode.as_str(),
                client = %client,
                peer = %peer,
                "request"
            )
        };
    }
    crate::metrics::record_request(
        meta.route.unwrap_or_else(|| page_route(&path)),
        reply.status.as_u16(),
        started.elapsed(),
    );
    // An orchestrator probes every few seconds: its successful probes would bury the other
    // lines. Readiness changes are logged by the core, once each.
    if is_probe(&path) && reply.status.is_success() {
        log_request!(tracing::Level::DEBUG);
    } else {
        log_request!(tracing::Level::INFO);
    }
    finish(reply, &meta)
}

/// The route of a request outside the API, as logs name it (no token in it).
fn page_route(path: &str) -> &'static str {
    match path {
        "/healthz" => "GET /healthz",
        "/readyz" => "GET /readyz",
        "/v1/openapi.json" => "GET /v1/openapi.json",
        p if p.starts_with("/sign/") => "/sign/{token}",
        p if p.starts_with("/build/") => "/build/{token}",
        p if p.starts_with("/files/") => "GET /files/{token}",
        p if p.starts_with("/v1/") || p == "/v1" => "/v1 (unresolved)",
        _ => "(unmatched)",
    }
}

fn is_probe(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz")
}

/// Link tokens are secrets: paths that carry one are logged without it.
pub fn redact(path: &str) -> Cow<'_, str> {
    for prefix in ["/files/", "/sign/", "/build/"] {
        if let Some(rest) = path.strip_prefix(prefix) {
            let tail = rest.split_once('/').map(|(_, t)| t);
            return Cow::Owned(match tail {
                Some(t) => format!("{prefix}[redacted]/{t}"),
                None => format!("{prefix}[redacted]"),
            });
        }
    }
    Cow::Borrowed(path)
}

async fn process(
    app: &App,
    client: IpAddr,
    req: Request<Incoming>,
    meta: &mut Meta,
) -> Result<Reply, ApiError> {
    let (parts, body) = req.into_parts();
    let path = parts.uri.path().to_string();
    let segments: Vec<&str> = path.strip_prefix('/').unwrap_or(&path).split('/').collect();
    match segments.as_slice() {
        // The API's description is public: clients and tools read it before they have a key.
        ["v1", "openapi.json"] => {
            limit_by_address(&app.svc, client, meta)?;
            crate::openapi::document(&parts.method)
        }
        ["v1", rest @ ..] => api(app, client, &parts, rest, body, meta).await,
        ["files", token] => {
            limit_by_address(&app.svc, client, meta)?;
            if parts.method != Method::GET {
                return Err(ApiError::MethodNotAllowed { allow: "GET" });
            }
            handlers::download(&app.svc, app.presigned_downloads, token).await
        }
        ["sign", rest @ ..] => {
            Ok(signing_page::handle(app, client, &parts, body, rest, meta).await)
        }
        // The builder page takes no body; its script calls the API like any client.
        ["build", rest @ ..] => Ok(builder_page::handle(app, client, &parts, rest, meta).await),
        // Health probes need no key and are not rate limited (health.rs says why).
        ["healthz"] => health::healthz(&parts.method),
        ["readyz"] => health::readyz(app, &parts.method).await,
        ["assets", name] => {
            limit_by_address(&app.svc, client, meta)?;
            signing_page::asset(&parts.method, name)
        }
        _ => {
            limit_by_address(&app.svc, client, meta)?;
            Err(ApiError::RouteNotFound)
        }
    }
}

/// The API key of `Authorization: Bearer <key>`, if the header has that shape.
fn bearer(parts: &Parts) -> Option<&str> {
    let v = parts
        .headers
        .get(hyper::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, key) = v.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| key.trim())
}

async fn api(
    app: &App,
    client: IpAddr,
    parts: &Parts,
    segments: &[&str],
    body: Incoming,
    meta: &mut Meta,
) -> Result<Reply, ApiError> {
    let svc = &app.svc;
    let key = bearer(parts);
    // Until the key is known, its prefix is the best guess of the mode.
    if key.is_some_and(|k| k.starts_with("sk_live_")) {
        meta.mode = Mode::Live;
    }
    // A builder link's token (extensions E11) is asked for one action on one object; which
    // route means which action is the router's mapping, whether the token allows it the core's.
    let authenticated = match key.filter(|k| is_builder_token(k)) {
        Some(token) => {
            let wanted = router::resolve(&parts.method, segments)
                .ok()
                .and_then(|route| route.builder_access());
            svc.authenticate_builder(token, wanted.as_ref()).await
        }
        None => svc.authenticate(key.unwrap_or("")).await,
    };
    let mut ctx = match authenticated {
        Ok(ctx) => ctx,
        Err(e) => {
            let refusal: ApiError = match limit_by_address(svc, client, meta) {
                Ok(()) => e.into(),
                Err(limited) => limited.into(),
            };
            return Err(linger(app, parts, segments, body, refusal).await);
        }
    };
    ctx.ip_address = Some(client);
    meta.mode = ctx.mode();
    let rate = svc.rate_limit(&ctx.key.id);
    meta.rate = Some(rate);
    if rate.exceeded {
        let limited = Error::RateLimited {
            retry_after_secs: rate.reset_secs,
        };
        return Err(linger(app, parts, segments, body, limited.into()).await);
    }
    let route = router::resolve(&parts.method, segments)?;
    meta.route = Some(route.template());
    let (body, slot) = read_body(app, parts, body, route.body_policy(), &ctx.account.id).await?;
    let query = query_params(parts.uri.query());
    // Only the edits of extensions E11 are conditional; elsewhere the header is not read.
    let if_match = if route.is_conditional() {
        preconditions::if_match(&parts.headers)?
    } else {
        None
    };
    let req = Operation {
        route,
        query,
        body,
        if_match,
    };

    let idempotency_key = match parts.headers.get("idempotency-key") {
        Some(v) if parts.method == Method::POST => Some(
            v.to_str()
                .map_err(|_| ApiError::Core(invalid_idempotency_key()))?
                .to_string(),
        ),
        _ => None,
    };
    let Some(idem) = idempotency_key else {
        return run_detached(svc, ctx, req, slot).await;
    };
    let path_and_query = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/");
    let fingerprint =
        idempotency_fingerprint(parts.method.as_str(), path_and_query, req.body.bytes());
    match svc.idempotency_begin(&ctx, &idem, &fingerprint).await? {
        IdempotencyBegin::Replay(stored) => {
            meta.replayed = true;
            let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
            Ok(Reply::raw_json(status, stored.body.into()))
        }
        begun => {
            // Creations derive their IDs from the key's origin, so that a retry after a crash
            // finds what the first attempt committed (see `AuthContext::idempotency_origin`).
            let mut run_ctx = ctx.clone();
            if let IdempotencyBegin::Started { origin } = begun {
                run_ctx.idempotency_origin = Some(origin);
            }
            let reply = match run_detached(svc, run_ctx, req, slot).await {
                Ok(reply) => reply,
                Err(e) => e.into_reply(&meta.request_id),
            };
            let outcome = if reply.status.is_server_error()
                || reply.status == StatusCode::TOO_MANY_REQUESTS
            {
                svc.idempotency_release(&ctx, &idem).await
            } else {
                let stored = StoredResponse {
                    status: reply.status.as_u16(),
                    body: reply.body.to_vec(),
                };
                svc.idempotency_finish(&ctx, &idem, stored).await
            };
            if let Err(e) = outcome {
                // The response itself is good; only a retry would not be replayed.
                tracing::error!(request_id = %meta.request_id, error = ?e, "idempotency record failed");
            }
            Ok(reply)
        }
    }
}

/// How long a refused upload's body is read and discarded at most: nginx's `lingering_time`.
const LINGER_TOTAL: std::time::Duration = std::time::Duration::from_secs(30);
/// How long a refused upload's body may pause: nginx's `lingering_timeout`.
const LINGER_IDLE: std::time::Duration = std::time::Duration::from_secs(5);

/// `refusal`, after the body of an upload route (the two creates) is read and discarded: a
/// client that sends its whole file before it reads (Python's `http.client`, `requests`) gets
/// to read a `401` or `429` made before the body was read, instead of a broken pipe when hyper
/// closes a connection whose body was left unread. The stranger's body is bounded like
/// nginx's lingering close: the route's size limit, 5 s of silence, 30 s in all; past them the
/// connection is closed as before. Other routes take small bodies (1 MiB at most), which the
/// socket buffers hold.
async fn linger(
    app: &App,
    parts: &Parts,
    segments: &[&str],
    body: Incoming,
    refusal: ApiError,
) -> ApiError {
    let upload = router::resolve(&parts.method, segments)
        .is_ok_and(|route| route.body_policy() == BodyPolicy::Upload);
    if upload && !body.is_end_stream() {
        let limits = BodyLimits {
            max_bytes: app.limits.max_json_upload_body,
            idle_timeout: LINGER_IDLE,
            total_timeout: LINGER_TOTAL,
        };
        drain(&parts.headers, body, limits).await;
    }
    refusal
}

fn invalid_idempotency_key() -> Error {
    Error::ParameterInvalid {
        param: "Idempotency-Key".into(),
        message: "must be 1 to 255 printable characters".into(),
    }
}

/// Runs the operation in its own task: a client that goes away mid-request does not cancel a
/// half-done operation (nor leave its idempotency key claimed), and a panic becomes a 500.
/// Reads (`GET`) run in place: there is nothing to leave half done (a read that settles an
/// expiry makes one atomic write), `handle` catches panics, and a task per read was a
/// measurable share of its cost.
async fn run_detached(
    svc: &SigningService,
    ctx: AuthContext,
    req: Operation,
    slot: Option<FairSlot>,
) -> Result<Reply, ApiError> {
    if req.route.is_read() {
        return handlers::dispatch(svc, &ctx, req).await;
    }
    let svc = svc.clone();
    let task = tokio::spawn(async move {
        let reply = handlers::dispatch(&svc, &ctx, req).await;
        // The upload's turn (its body in memory) ends with the operation that holds it.
        drop(slot);
        reply
    });
    match task.await {
        Ok(result) => result,
        Err(e) => Err(Error::Internal(format!("request task failed: {e}")).into()),
    }
}

/// Reads the body a route takes, checking its type first and its size before and while reading.
/// An upload goes through the spool (`body/spool.rs`) and comes back with the slot that its
/// bytes in memory hold until the operation ends.
async fn read_body(
    app: &App,
    parts: &Parts,
    body: Incoming,
    policy: BodyPolicy,
    account: &str,
) -> Result<(RawBody, Option<FairSlot>), ApiError> {
    let limits = &app.limits;
    let (accepted, small) = match policy {
        BodyPolicy::None => return Ok((RawBody::Empty, None)),
        BodyPolicy::Json => ("application/json", true),
        BodyPolicy::Upload => ("application/json or multipart/form-data", false),
    };
    let unsupported = ApiError::UnsupportedMediaType { accepted };
    let declared_empty =
        body.is_end_stream() || crate::body::content_length(&parts.headers) == Some(0);
    let media = MediaType::of(&parts.headers);
    let read = |max_bytes| BodyLimits {
        max_bytes,
        idle_timeout: limits.body_idle_timeout,
        total_timeout: limits.body_total_timeout,
    };
    let max_bytes = match &media {
        _ if declared_empty => return Ok((RawBody::Empty, None)),
        MediaType::Json if small => limits.max_small_body,
        MediaType::Json => limits.max_json_upload_body,
        MediaType::Multipart { .. } if !small => limits.max_multipart_body,
        _ if small => return Err(unsupported),
        _ => {
            // An upload's client may send its whole file before it reads an answer.
            drain(&parts.headers, body, read(limits.max_multipart_body)).await;
            return Err(unsupported);
        }
    };
    let (bytes, slot) = if small {
        let bytes = read_limited(&parts.headers, body, read(max_bytes)).await?;
        (bytes, None)
    } else {
        let spooled = app
            .uploads
            .receive(account, &parts.headers, body, read(max_bytes))
            .await?;
        (spooled.bytes, Some(spooled.slot))
    };
    let body = match media {
        MediaType::Multipart { boundary } => RawBody::Multipart {
            boundary,
            bytes: bytes.into(),
        },
        _ => RawBody::Json(bytes),
    };
    Ok((body, slot))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_redacted() {
        assert_eq!(redact("/files/abc"), "/files/[redacted]");
        assert_eq!(redact("/sign/abc/decline"), "/sign/[redacted]/decline");
        assert_eq!(redact("/v1/envelopes/env_1"), "/v1/envelopes/env_1");
        assert_eq!(redact("/build/bld_abc"), "/build/[redacted]");
        assert_eq!(page_route("/build/bld_abc"), "/build/{token}");
        assert_eq!(page_route("/sign/abc/decline"), "/sign/{token}");
    }
}
