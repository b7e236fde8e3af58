//! Health checks for orchestrators, and what the server does when its store fails for good.
//!
//! | route | answer |
//! |---|---|
//! | `GET /healthz` | `200 {"status":"ok"}` while the process serves HTTP (liveness) |
//! | `GET /readyz` | `200 {"status":"ready"}` when the store has just served a read and a durable write, else `503 {"status":"unready","reason":..,"message":..}` (readiness) |
//!
//! Neither needs an API key nor counts against a rate limit: an orchestrator probes from the
//! network edge every few seconds, and a limit shared by every keyless client would turn away
//! its probes when the server is merely busy. The cost stays bounded because the core answers
//! from one probe per second (`SigningService::readiness`).
//!
//! A store that fails for good (SQLite: a failed fsync) does not recover in this process, so
//! [`run_until_store_fails`] makes `/readyz` answer `503` at once, waits [`FAILURE_EXIT_DELAY`]
//! for load balancers to notice and requests in flight to end, then stops the server; `serve`
//! returns [`StoreFailed`] and the binary exits with [`EXIT_STORE_FAILED`] (docs/OPERATIONS.md).

use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use hyper::header::{self, HeaderValue};
use hyper::{Method, StatusCode};
use serde::Serialize;
use tokio::net::TcpListener;

use envelope_core::service::Readiness;

use crate::app::App;
use crate::error::ApiError;
use crate::response::Reply;

/// The exit status of the binary after its store failed for good: `EX_IOERR` of sysexits.h.
/// Any supervisor that restarts on failure (systemd `Restart=on-failure`, Kubernetes) restarts
/// it, and SQLite recovers from its WAL on the next start.
pub const EXIT_STORE_FAILED: u8 = 74;

/// How long a server whose store failed for good keeps answering (`/readyz` with `503`) before
/// it stops: a few probe periods of a load balancer, so that it stops routing here first.
pub const FAILURE_EXIT_DELAY: Duration = Duration::from_secs(5);

/// `serve` stopped because its store failed for good; the binary exits with
/// [`EXIT_STORE_FAILED`].
#[derive(Debug, thiserror::Error)]
#[error("{0}; exiting so that the process is restarted")]
pub struct StoreFailed(pub String);

/// Why [`run_until_store_fails`] returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// The shutdown future completed (a signal).
    Shutdown,
    /// The store failed for good, with the reason.
    StoreFailed(String),
}

#[derive(Serialize)]
struct Status<'a> {
    status: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
}

/// `GET /healthz`: the process is alive and serving HTTP. It checks nothing else on purpose: a
/// liveness probe that failed with the database would restart every server during a database
/// outage, which restarts cannot fix.
pub(crate) fn healthz(method: &Method) -> Result<Reply, ApiError> {
    only_get(method)?;
    status_reply(
        StatusCode::OK,
        &Status {
            status: "ok",
            reason: None,
            message: None,
        },
    )
}

/// `GET /readyz`: whether this server should receive traffic now.
pub(crate) async fn readyz(app: &App, method: &Method) -> Result<Reply, ApiError> {
    only_get(method)?;
    match app.svc.readiness().await {
        Readiness::Ready => status_reply(
            StatusCode::OK,
            &Status {
                status: "ready",
                reason: None,
                message: None,
            },
        ),
        Readiness::Unready(reason) => status_reply(
            StatusCode::SERVICE_UNAVAILABLE,
            &Status {
                status: "unready",
                reason: Some(reason.code()),
                message: Some(reason.message()),
            },
        ),
    }
}

fn only_get(method: &Method) -> Result<(), ApiError> {
    if method == Method::GET {
        Ok(())
    } else {
        Err(ApiError::MethodNotAllowed { allow: "GET" })
    }
}

fn status_reply(status: StatusCode, body: &Status<'_>) -> Result<Reply, ApiError> {
    let mut reply = Reply::json(status, body)?;
    // A cached answer would hide a change of state from the next probe.
    reply
        .headers
        .push((header::CACHE_CONTROL, HeaderValue::from_static("no-store")));
    Ok(reply)
}

/// Serves `app` like [`crate::run`] until `shutdown` completes or the store fails for good. On
/// a failure it logs an error, keeps serving (so `/readyz` answers `503`) for `exit_delay` or
/// until `shutdown`, then shuts down as on a signal and returns [`Stopped::StoreFailed`].
pub async fn run_until_store_fails(
    listener: TcpListener,
    app: App,
    shutdown: impl Future<Output = ()>,
    exit_delay: Duration,
) -> std::io::Result<Stopped> {
    let svc = app.svc.clone();
    let failure: Mutex<Option<String>> = Mutex::new(None);
    let stop = async {
        tokio::pin!(shutdown);
        tokio::select! {
            () = &mut shutdown => {}
            why = svc.store_failed() => {
                tracing::error!(
                    reason = %why,
                    exit_in_ms = exit_delay.as_millis() as u64,
                    exit_status = EXIT_STORE_FAILED,
                    "the store failed for good; /readyz answers 503 until the process exits"
                );
                // The cached readiness already shows it; this logs the change at once.
                let _ = svc.readiness().await;
                *failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
                tokio::select! {
                    () = tokio::time::sleep(exit_delay) => {}
                    () = &mut shutdown => {}
                }
            }
        }
    };
    crate::run(listener, app, stop).await?;
    let failed = failure.lock().unwrap_or_else(|e| e.into_inner()).take();
    Ok(match failed {
        Some(why) => Stopped::StoreFailed(why),
        None => Stopped::Shutdown,
    })
}
