//! One admitted connection: find its protocol under a deadline, hand it to hyper, and close it
//! when it idles or the server stops.
//!
//! hyper-util's `auto` builder reads the HTTP/2 preface with no deadline, so a client that
//! connects and stays silent (or sends `P`, `R`, ... one byte at a time) would hold a slot for
//! ever. Here the first bytes are read under [`crate::HttpLimits::first_byte_timeout`], then
//! replayed to hyper's HTTP/1 or HTTP/2 connection, whose own timers take over: HTTP/1 bounds
//! each request head with `header_read_timeout` (hyper starts that timer when it starts reading
//! a head, and also while a keep-alive connection waits for its next request). HTTP/2 has no
//! idle timeout in hyper, so this module counts open streams and closes an HTTP/2 connection
//! that has had none for `http2_idle_timeout`. Writes that make no progress for
//! `write_stall_timeout` (a client that stops reading) end the connection, for either protocol.

use std::convert::Infallible;
use std::fmt::Display;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use crate::response::ResponseBody;
use bytes::{Buf, Bytes};
use hyper::body::{Body, Frame, SizeHint};
use hyper::server::conn::{http1, http2};
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulConnection;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::HttpLimits;
use crate::app::App;
use crate::request::handle;

/// What an HTTP/2 client sends first (RFC 9113, section 3.4).
const H2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// How long an idle HTTP/2 connection may take to close after its GOAWAY before it is dropped:
/// a client that never reads must not keep it half-closed.
const IDLE_CLOSE_GRACE: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Protocol {
    Http1,
    Http2,
}

/// The two protocol builders, configured once per server.
pub(crate) struct Protocols {
    http1: http1::Builder,
    http2: http2::Builder<TokioExecutor>,
}

impl Protocols {
    pub(crate) fn new(limits: &HttpLimits) -> Protocols {
        let mut h1 = http1::Builder::new();
        h1.timer(TokioTimer::new())
            .header_read_timeout(limits.header_read_timeout)
            .keep_alive(true);
        let mut h2 = http2::Builder::new(TokioExecutor::new());
        h2.timer(TokioTimer::new())
            .max_concurrent_streams(limits.max_http2_streams)
            .keep_alive_interval(Duration::from_secs(30))
            .keep_alive_timeout(Duration::from_secs(20));
        Protocols {
            http1: h1,
            http2: h2,
        }
    }
}

/// Reads until the protocol is known: the first byte that differs from the HTTP/2 preface
/// means HTTP/1 (a request line never starts with `PRI *`), the whole preface means HTTP/2.
/// `None` when the client closes first. The bytes read are returned to be replayed.
async fn detect(stream: &mut TcpStream) -> io::Result<Option<(Protocol, Bytes)>> {
    let mut buf = [0u8; H2_PREFACE.len()];
    let mut filled = 0;
    while filled < buf.len() {
        let n = stream.read(&mut buf[filled..]).await?;
        if n == 0 {
            return Ok(None);
        }
        filled += n;
        if buf[..filled] != H2_PREFACE[..filled] {
            return Ok(Some((
                Protocol::Http1,
                Bytes::copy_from_slice(&buf[..filled]),
            )));
        }
    }
    Ok(Some((Protocol::Http2, Bytes::copy_from_slice(&buf))))
}

/// Serves one admitted connection until it ends, idles out, or `stop` fires (then it finishes
/// the requests in flight; [`crate::run`] bounds that wait).
pub(crate) async fn serve(
    mut stream: TcpStream,
    peer: SocketAddr,
    app: Arc<App>,
    protocols: Arc<Protocols>,
    mut stop: watch::Receiver<()>,
) {
    let (first_byte_timeout, idle_timeout, stall_timeout) = (
        app.limits.first_byte_timeout,
        app.limits.http2_idle_timeout,
        app.limits.write_stall_timeout,
    );
    let detected = tokio::select! {
        r = tokio::time::timeout(first_byte_timeout, detect(&mut stream)) => r,
        _ = stop.changed() => return,
    };
    let (protocol, first) = match detected {
        Ok(Ok(Some(found))) => found,
        Ok(Ok(None)) => return,
        Ok(Err(e)) => {
            tracing::debug!(error = %e, "connection failed before its first request");
            return;
        }
        Err(_) => {
            tracing::debug!(%peer, "no request within the first-byte timeout; closing");
            return;
        }
    };
    let io = TokioIo::new(Replay {
        first,
        inner: stream,
        stall_timeout,
        stalled: None,
    });
    let streams = Arc::new(Streams::default());
    let service = {
        let streams = streams.clone();
        service_fn(move |req| {
            let app = app.clone();
            let open = StreamGuard::open(&streams);
            async move {
                let res = handle(&app, peer, req).await;
                Ok::<_, Infallible>(res.map(|body| Tracked { body, _open: open }))
            }
        })
    };
    match protocol {
        Protocol::Http1 => drive(protocols.http1.serve_connection(io, service), None, stop).await,
        Protocol::Http2 => {
            let idle = Some((streams, idle_timeout));
            drive(protocols.http2.serve_connection(io, service), idle, stop).await
        }
    }
}

/// Polls `conn` to its end. On `stop`, or once `idle` says no stream has been open for its
/// duration, asks it to close gracefully (HTTP/1: after the response in flight; HTTP/2:
/// GOAWAY, open streams finish).
async fn drive<C>(conn: C, idle: Option<(Arc<Streams>, Duration)>, mut stop: watch::Receiver<()>)
where
    C: GracefulConnection,
    C::Error: Display,
{
    tokio::pin!(conn);
    let mut closing = false;
    let mut idle_check = idle.as_ref().map(|(s, d)| s.idle_deadline(*d));
    let mut drop_at: Option<Instant> = None;
    loop {
        tokio::select! {
            r = conn.as_mut() => {
                if let Err(e) = r {
                    tracing::debug!(error = %e, "connection ended with an error");
                }
                return;
            }
            // A dropped sender means the server is gone: close as well.
            _ = stop.changed(), if !closing => {
                conn.as_mut().graceful_shutdown();
                closing = true;
            }
            () = sleep_until(idle_check), if !closing && idle_check.is_some() => {
                if let Some((streams, timeout)) = &idle {
                    let deadline = streams.idle_deadline(*timeout);
                    if deadline <= Instant::now() {
                        tracing::debug!("HTTP/2 connection idle; closing");
                        conn.as_mut().graceful_shutdown();
                        closing = true;
                        drop_at = Some(Instant::now() + IDLE_CLOSE_GRACE);
                    } else {
                        idle_check = Some(deadline);
                    }
                }
            }
            () = sleep_until(drop_at), if drop_at.is_some() => return,
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Open streams of one connection and when the last one ended.
#[derive(Debug)]
struct Streams {
    open: AtomicUsize,
    /// Milliseconds from `born` to the end of the last stream.
    last_end_ms: AtomicU64,
    born: Instant,
}

impl Default for Streams {
    fn default() -> Streams {
        Streams {
            open: AtomicUsize::new(0),
            last_end_ms: AtomicU64::new(0),
            born: Instant::now(),
        }
    }
}

impl Streams {
    /// When the connection counts as idle if nothing changes: `timeout` after the last stream
    /// ended, or a full `timeout` from now while streams are open.
    fn idle_deadline(&self, timeout: Duration) -> Instant {
        if self.open.load(Ordering::Acquire) > 0 {
            return Instant::now() + timeout;
        }
        let last = Duration::from_millis(self.last_end_ms.load(Ordering::Acquire));
        self.born + last + timeout
    }
}

/// One open stream: from the moment hyper calls the service until the response body is sent
/// or dropped (a large download keeps the connection busy).
struct StreamGuard(Arc<Streams>);

impl StreamGuard {
    fn open(streams: &Arc<Streams>) -> StreamGuard {
        streams.open.fetch_add(1, Ordering::AcqRel);
        StreamGuard(streams.clone())
    }
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        let s = &self.0;
        let ms = u64::try_from(s.born.elapsed().as_millis()).unwrap_or(u64::MAX);
        // Written before the count drops, so that a reader seeing zero open streams sees this
        // stream's end.
        s.last_end_ms.fetch_max(ms, Ordering::AcqRel);
        s.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body that holds its stream's guard.
struct Tracked {
    body: ResponseBody,
    _open: StreamGuard,
}

impl Body for Tracked {
    type Data = Bytes;
    type Error = <ResponseBody as Body>::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The socket with the bytes [`detect`] consumed put back in front, and a deadline on writes
/// that make no progress.
struct Replay {
    first: Bytes,
    inner: TcpStream,
    stall_timeout: Duration,
    /// Running while the socket refuses bytes; reset by every write that takes some.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Replay {
    /// Passes a write's result on, turning a wait that has lasted `stall_timeout` into an
    /// error. The timer shares the task's waker, so hyper polls again when it fires.
    fn watch_stall<T>(
        &mut self,
        cx: &mut Context<'_>,
        r: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if r.is_ready() {
            self.stalled = None;
            return r;
        }
        let timeout = self.stall_timeout;
        let timer = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        if timer.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client stopped reading the response",
            )));
        }
        Poll::Pending
    }
}

impl AsyncRead for Replay {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.first.has_remaining() {
            let n = this.first.len().min(buf.remaining());
            buf.put_slice(&this.first.split_to(n));
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Replay {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.watch_stall(cx, r)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.watch_stall(cx, r)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}
