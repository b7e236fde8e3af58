//! [`App`]: the service and the HTTP limits one server runs with.

use std::path::PathBuf;
use std::time::Duration;

use envelope_core::SigningService;

use crate::body::Uploads;
use crate::client_addr::TrustedProxies;
use crate::signing_page::security::PageSettings;

/// Limits and deadlines of the HTTP layer. The defaults are what docs/HTTP.md explains.
#[derive(Debug, Clone)]
pub struct HttpLimits {
    /// Largest JSON body of the two creates: a 25 MiB PDF as base64 (4/3) plus 2 MiB of other
    /// parameters.
    pub max_json_upload_body: usize,
    /// Largest multipart body of the two creates: the PDF plus 2 MiB of other parts.
    pub max_multipart_body: usize,
    /// Largest body of every other route (actions and updates are small objects).
    pub max_small_body: usize,
    /// Largest form post of a signing page: drawn signatures travel as base64 PNGs (at most
    /// 512 KB each in the core), percent-encoded.
    pub max_form_body: usize,
    /// Longest wait, from accept, for a new connection's first byte; an HTTP/2 client must also
    /// finish its 24-byte preface within it. Until then no protocol handler holds the connection.
    pub first_byte_timeout: Duration,
    /// Longest time to receive an HTTP/1 request head, from its first byte (also the idle
    /// keep-alive limit of HTTP/1).
    pub header_read_timeout: Duration,
    /// Longest pause between two chunks of a body.
    pub body_idle_timeout: Duration,
    /// Longest time to receive a whole body.
    pub body_total_timeout: Duration,
    /// Disk that spooled upload bodies (the two creates) may hold at once, across all
    /// requests; an upload reserves its declared length before its body is read, and one
    /// account at most half of it (`body/budget.rs`).
    pub max_upload_spool: usize,
    /// How long an upload waits for room in the spool, and again for its turn to be read into
    /// memory (`body/spool.rs`), before it is answered `503 service_busy` with `Retry-After`.
    pub upload_wait: Duration,
    /// Longest time a response write may make no progress (a client that stops reading);
    /// then the connection is closed. 60 s, nginx's `send_timeout`: a client that limits its
    /// rate (`curl --limit-rate`) reads what its socket holds in a burst and then pauses until
    /// its average falls back, and with a receive buffer of some megabytes those pauses passed
    /// 20 s (docs/PERFORMANCE.md, "Slow readers").
    pub write_stall_timeout: Duration,
    /// Open connections at most; past it a new connection is answered `503` at once and closed.
    pub max_connections: usize,
    /// Open connections per client address (IPv6: per /64 network); past it a new connection
    /// from that address is answered `503` at once and closed.
    pub max_connections_per_address: usize,
    /// An HTTP/2 connection with no open stream for this long is closed (GOAWAY). HTTP/1 has
    /// `header_read_timeout` for the same purpose.
    pub http2_idle_timeout: Duration,
    /// Concurrent HTTP/2 streams per connection.
    pub max_http2_streams: u32,
    /// How long shutdown waits for requests in flight before closing their connections.
    pub shutdown_grace: Duration,
}

impl HttpLimits {
    /// Limits that fit a service's largest file (`Limits::max_file_bytes`), with the default
    /// [`ConnectionLimits`].
    pub fn for_max_file(max_file_bytes: usize) -> HttpLimits {
        const SLACK: usize = 2 * 1024 * 1024;
        let c = ConnectionLimits::default();
        HttpLimits {
            max_json_upload_body: max_file_bytes.div_ceil(3) * 4 + SLACK,
            max_multipart_body: max_file_bytes + SLACK,
            max_small_body: 1024 * 1024,
            max_form_body: 8 * 1024 * 1024,
            first_byte_timeout: c.first_byte_timeout,
            header_read_timeout: c.header_read_timeout,
            body_idle_timeout: Duration::from_secs(20),
            body_total_timeout: Duration::from_secs(300),
            // Sixty of the largest JSON uploads on disk at once (about 2 GiB), thirty per
            // account: memory no longer depends on it (body/spool.rs).
            max_upload_spool: (max_file_bytes.div_ceil(3) * 4 + SLACK) * 60,
            // A turn comes every few hundred milliseconds per PDF worker: thirty seconds is a
            // burst of dozens of uploads, well within a client's usual timeout.
            upload_wait: Duration::from_secs(30),
            write_stall_timeout: Duration::from_secs(60),
            max_connections: c.max_connections,
            max_connections_per_address: c.max_connections_per_address,
            http2_idle_timeout: c.http2_idle_timeout,
            max_http2_streams: 64,
            shutdown_grace: c.shutdown_grace,
        }
    }

    /// These limits with the connection limits and timeouts of `connections`.
    pub fn with_connections(mut self, connections: ConnectionLimits) -> HttpLimits {
        let ConnectionLimits {
            max_connections,
            max_connections_per_address,
            first_byte_timeout,
            header_read_timeout,
            http2_idle_timeout,
            shutdown_grace,
        } = connections;
        self.max_connections = max_connections;
        self.max_connections_per_address = max_connections_per_address;
        self.first_byte_timeout = first_byte_timeout;
        self.header_read_timeout = header_read_timeout;
        self.http2_idle_timeout = http2_idle_timeout;
        self.shutdown_grace = shutdown_grace;
        self
    }
}

/// The part of [`HttpLimits`] that the command line of `serve` sets: how many connections,
/// how long a connection may stay silent, how long shutdown waits. The defaults are those of
/// [`HttpLimits::for_max_file`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Open connections at most; past it new connections are answered `503` at once.
    pub max_connections: usize,
    /// Open connections per client address (IPv6: per /64).
    pub max_connections_per_address: usize,
    /// How long a new connection may stay silent before its first byte.
    pub first_byte_timeout: Duration,
    /// How long a request head may take from its first byte; also HTTP/1's keep-alive idle
    /// limit.
    pub header_read_timeout: Duration,
    /// How long an HTTP/2 connection may stay without open streams.
    pub http2_idle_timeout: Duration,
    /// How long shutdown waits for requests in flight before closing their connections.
    pub shutdown_grace: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> ConnectionLimits {
        ConnectionLimits {
            max_connections: 1024,
            // A browser opens at most 6 HTTP/1 connections per host, an API client's pool a
            // few dozen. Behind a reverse proxy or a large NAT every client shares one
            // address: raise it there (docs/HTTP.md).
            max_connections_per_address: 64,
            first_byte_timeout: Duration::from_secs(10),
            header_read_timeout: Duration::from_secs(10),
            http2_idle_timeout: Duration::from_secs(30),
            // SIGTERM must end the process within a few seconds whatever runs (issue 11);
            // orchestrators stop routing to an instance before they signal it.
            shutdown_grace: Duration::from_secs(3),
        }
    }
}

/// What [`crate::run`] serves: a [`SigningService`], the HTTP limits and the settings of the
/// signing pages.
#[derive(Debug, Clone)]
pub struct App {
    pub(crate) svc: SigningService,
    pub(crate) limits: HttpLimits,
    pub(crate) pages: PageSettings,
    pub(crate) uploads: Uploads,
    pub(crate) trusted_proxies: TrustedProxies,
    /// How long a presigned download URL works, when files stored as one blob are answered
    /// with a redirect to the blob store (`--blob-presigned-downloads`); `None`: proxied.
    pub(crate) presigned_downloads: Option<Duration>,
}

/// Uploads spooled in `dir`, read into memory as many at once as the PDF pool has slots: more
/// would only wait for the pool with their bytes in memory.
fn uploads(svc: &SigningService, limits: &HttpLimits, dir: PathBuf) -> Uploads {
    Uploads::new(
        dir,
        limits.max_upload_spool,
        svc.settings().pdf_pool.capacity,
        limits.upload_wait,
    )
}

impl App {
    /// An app with the default limits for the service's file size limit, and signing pages that
    /// cannot be framed, with a page secret drawn now.
    pub fn new(svc: SigningService) -> App {
        let limits = HttpLimits::for_max_file(svc.settings().limits.max_file_bytes);
        App {
            uploads: uploads(&svc, &limits, std::env::temp_dir()),
            svc,
            limits,
            pages: PageSettings::default(),
            trusted_proxies: TrustedProxies::none(),
            presigned_downloads: None,
        }
    }

    /// Body, connection and timeout limits other than the defaults of the service's file size.
    pub fn with_limits(mut self, limits: HttpLimits) -> App {
        self.uploads = uploads(&self.svc, &limits, self.uploads.dir().to_path_buf());
        self.limits = limits;
        self
    }

    /// Where upload bodies are spooled while they arrive (`body/spool.rs`); by default the
    /// system's temporary directory (`serve` uses `<data-dir>/spool`). The directory must exist;
    /// its files are unlinked as they are made, so several servers may share it.
    pub fn with_upload_spool_dir(mut self, dir: PathBuf) -> App {
        self.uploads = uploads(&self.svc, &self.limits, dir);
        self
    }

    /// Proxies whose `Forwarded` / `X-Forwarded-For` name the client (`client_addr.rs`); none
    /// by default, and then those headers are ignored.
    pub fn with_trusted_proxies(mut self, proxies: TrustedProxies) -> App {
        self.trusted_proxies = proxies;
        self
    }

    /// Answer downloads of files stored as one blob (originals, audit trails) with `302` to a
    /// URL of the blob store that works for `expires_in`, when the store makes such URLs
    /// (S3); the link's token check and rate limit still come first. Off by default.
    pub fn with_presigned_downloads(mut self, expires_in: Duration) -> App {
        self.presigned_downloads = Some(expires_in);
        self
    }

    /// Settings of the signing pages (who may frame them, the secret of their form tokens).
    pub fn with_pages(mut self, pages: PageSettings) -> App {
        self.pages = pages;
        self
    }

    /// The core's service that every request calls.
    pub fn service(&self) -> &SigningService {
        &self.svc
    }

    /// The limits in force.
    pub fn limits(&self) -> &HttpLimits {
        &self.limits
    }

    /// Bytes of the upload spool budget reserved now (each upload's declared length, rounded
    /// up to 64 KiB): 0 when no upload is arriving or waiting on disk.
    pub fn upload_spool_reserved(&self) -> usize {
        self.uploads.spool_reserved()
    }
}
