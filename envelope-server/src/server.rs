//! The accept loop: connection caps, protocol timeouts, graceful and bounded shutdown.
//!
//! Every connection is accepted at once. One under the caps (`admission`) is served by its own
//! task (`conn`); one over a cap is answered a fixed `503` on the socket (`refuse`) instead
//! of waiting unseen in the kernel's backlog. Nothing here reads a request or knows a route.

pub(crate) mod admission;
mod conn;
mod refuse;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::app::App;
use admission::{Admission, Refusal};

/// Bytes asked for as each connection's send buffer (`SO_SNDBUF`; Linux doubles it for its
/// bookkeeping). Room for 10 MB/s at 100 ms of round trip, while a reader at 200 KB/s makes the
/// socket writable again within a few seconds (docs/PERFORMANCE.md, "Slow readers").
const SEND_BUFFER: usize = 512 * 1024;

/// Refusals that may linger at once (each holds its socket for at most a second); past this,
/// a refused connection gets its `503` only if the socket takes it without waiting.
const MAX_LINGERING_REFUSALS: usize = 256;

/// At most one warning per this period while clients are being refused.
const REFUSAL_WARNING_EVERY: Duration = Duration::from_secs(10);

/// Serves `app` on `listener` until `shutdown` completes, then stops accepting, lets requests in
/// flight finish (up to [`crate::HttpLimits::shutdown_grace`]), closes what is left and returns.
///
/// Tests call it on `127.0.0.1:0`; the binary calls it with a signal future.
pub async fn run(
    listener: TcpListener,
    app: App,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let app = Arc::new(app);
    let limits = app.limits.clone();
    let protocols = Arc::new(conn::Protocols::new(&limits));
    let admission = Admission::new(limits.max_connections, limits.max_connections_per_address);
    let lingering = Arc::new(Semaphore::new(MAX_LINGERING_REFUSALS));
    let (stop, stopped) = watch::channel(());
    let mut conns = JoinSet::new();
    let mut refusals = RefusalLog::default();
    tokio::pin!(shutdown);

    loop {
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
            // Reaps finished connections so that the set holds only live ones.
            Some(_) = conns.join_next(), if !conns.is_empty() => continue,
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        // A bounded send buffer, so that a slow reader's socket turns writable every few
        // hundred kilobytes it reads: with the kernel's autotuned buffer (up to 4 MB) a client
        // reading a large download at 200 KB/s left writes pending for more than the write
        // stall timeout and was cut off mid-file as if it had stopped reading.
        let _ = socket2::SockRef::from(&stream).set_send_buffer_size(SEND_BUFFER);
        match admission.admit(peer.ip()) {
            Ok(ticket) => {
                let serve = conn::serve(
                    stream,
                    peer,
                    app.clone(),
                    protocols.clone(),
                    stopped.clone(),
                );
                conns.spawn(async move {
                    serve.await;
                    drop(ticket);
                });
            }
            Err(refusal) => {
                refusals.note(refusal, admission.open());
                match lingering.clone().try_acquire_owned() {
                    Ok(slot) => {
                        tokio::spawn(refuse::refuse(stream, refusal, slot));
                    }
                    Err(_) => refuse::refuse_now(stream, refusal),
                }
            }
        }
    }

    drop(listener);
    let _ = stop.send(());
    tracing::info!(
        connections = conns.len(),
        "shutting down: waiting for requests in flight"
    );
    let drained = tokio::time::timeout(limits.shutdown_grace, async {
        while conns.join_next().await.is_some() {}
    })
    .await;
    match drained {
        Ok(()) => tracing::info!("all connections closed"),
        Err(_) => {
            tracing::warn!(
                remaining = conns.len(),
                "shutdown grace period over; closing remaining connections"
            );
            conns.shutdown().await;
        }
    }
    Ok(())
}

/// Counts refusals and turns them into an occasional warning, not one log line per connection
/// of a flood.
#[derive(Default)]
struct RefusalLog {
    server_full: u64,
    address_full: u64,
    last_warning: Option<Instant>,
}

impl RefusalLog {
    fn note(&mut self, refusal: Refusal, open: usize) {
        match refusal {
            Refusal::ServerFull => self.server_full += 1,
            Refusal::AddressFull => self.address_full += 1,
        }
        let now = Instant::now();
        if self
            .last_warning
            .is_some_and(|at| now.duration_since(at) < REFUSAL_WARNING_EVERY)
        {
            return;
        }
        tracing::warn!(
            open,
            server_full = self.server_full,
            address_full = self.address_full,
            "connections refused with 503 (connection caps reached)"
        );
        self.server_full = 0;
        self.address_full = 0;
        self.last_warning = Some(now);
    }
}
