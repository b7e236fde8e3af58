//! The accept loop: connection limits, protocol timeouts, graceful shutdown.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::app::App;
use crate::request::handle;

/// Serves `app` on `listener` until `shutdown` completes, then stops accepting, lets requests in
/// flight finish (up to [`crate::HttpLimits::shutdown_grace`]) and returns.
///
/// Tests call it on `127.0.0.1:0`; the binary calls it with a signal future.
pub async fn run(
    listener: TcpListener,
    app: App,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let app = Arc::new(app);
    let limits = app.limits.clone();
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(limits.max_http2_streams)
        .keep_alive_interval(Duration::from_secs(30))
        .keep_alive_timeout(Duration::from_secs(20));
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    tokio::pin!(shutdown);

    loop {
        // At the connection limit, stop accepting: new clients wait in the kernel's backlog.
        let permit = tokio::select! {
            p = slots.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            r = listener.accept() => match r {
                Ok(x) => x,
                Err(e) => {
                    // Running out of file descriptors and the like: back off, keep serving.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let service = service_fn(move |req| {
            let app = app.clone();
            async move { Ok::<_, Infallible>(handle(&app, peer, req).await) }
        });
        let conn = builder
            .serve_connection(TokioIo::new(stream), service)
            .into_owned();
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(permit);
        });
    }

    drop(listener);
    tracing::info!("shutting down: waiting for requests in flight");
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("all connections closed"),
        () = tokio::time::sleep(limits.shutdown_grace) => {
            tracing::warn!("shutdown grace period over; closing remaining connections");
        }
    }
    Ok(())
}
