//! Prometheus metrics on their own address (`--metrics-listen`), never on the API's port: the
//! series name routes and volumes that are nobody's business outside the operator's network.
//!
//! The core records through the `metrics` facade (PDF work, seals, emails, webhook deliveries,
//! store commits, queue depths); this module records the HTTP side (`request.rs` calls
//! [`record_request`]), installs the Prometheus recorder of `metrics-exporter-prometheus`, and
//! serves its text exposition format at `GET /metrics`. Without `--metrics-listen` no recorder is
//! installed and every recording is a no-op. The series are listed in docs/OPERATIONS.md.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tokio::net::TcpListener;

use envelope_core::SigningService;
use envelope_core::error::BoxError;

/// Latency buckets of every histogram, in seconds: a millisecond to the longest PDF work.
const BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];

/// One HTTP request's series: `envelope_http_requests_total{route, status}` (status class,
/// `2xx`...) and `envelope_http_request_duration_seconds{route}`; 429 answers also count in
/// `envelope_rate_limited_total`.
pub fn record_request(route: &'static str, status: u16, elapsed: Duration) {
    let class = match status {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    };
    metrics::counter!("envelope_http_requests_total", "route" => route, "status" => class)
        .increment(1);
    metrics::histogram!("envelope_http_request_duration_seconds", "route" => route)
        .record(elapsed.as_secs_f64());
    if status == 429 {
        metrics::counter!("envelope_rate_limited_total", "route" => route).increment(1);
    }
}

/// Installs the recorder (once per process) and serves `GET /metrics` on `listener` until the
/// task is dropped.
pub fn install(svc: SigningService, listener: TcpListener) -> Result<(), BoxError> {
    let handle = PrometheusBuilder::new()
        .set_buckets(BUCKETS)?
        .install_recorder()?;
    tokio::spawn(serve(svc, handle, listener));
    Ok(())
}

async fn serve(svc: SigningService, handle: PrometheusHandle, listener: TcpListener) {
    loop {
        let (stream, _): (_, SocketAddr) = match listener.accept().await {
            Ok(conn) => conn,
            Err(e) => {
                tracing::warn!(error = %e, "metrics listener: accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let (svc, handle) = (svc.clone(), handle.clone());
        tokio::spawn(async move {
            let service = service_fn(move |req| answer(svc.clone(), handle.clone(), req));
            let _ = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn answer(
    svc: SigningService,
    handle: PrometheusHandle,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, std::convert::Infallible> {
    let reply = |status: StatusCode, content_type: &str, body: String| {
        let mut res = Response::new(Full::new(Bytes::from(body)));
        *res.status_mut() = status;
        if let Ok(v) = content_type.parse() {
            res.headers_mut().insert(hyper::header::CONTENT_TYPE, v);
        }
        Ok(res)
    };
    if req.uri().path() != "/metrics" {
        return reply(StatusCode::NOT_FOUND, "text/plain", "not found\n".into());
    }
    if req.method() != Method::GET {
        return reply(
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain",
            "GET only\n".into(),
        );
    }
    // The queue gauges are counted now; a store that cannot answer leaves their last values.
    if let Err(e) = svc.observe_queues().await {
        tracing::warn!(error = %e, "metrics: queue depths unavailable");
    }
    reply(
        StatusCode::OK,
        "text/plain; version=0.0.4; charset=utf-8",
        handle.render(),
    )
}
