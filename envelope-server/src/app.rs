//! [`App`]: the service and the HTTP limits one server runs with.

use std::time::Duration;

use envelope_core::SigningService;

use crate::signing_page::PageSettings;

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
    /// Longest time to receive the request head (also the idle keep-alive limit of HTTP/1).
    pub header_read_timeout: Duration,
    /// Longest pause between two chunks of a body.
    pub body_idle_timeout: Duration,
    /// Longest time to receive a whole body.
    pub body_total_timeout: Duration,
    /// Open connections at most; further clients wait in the listen backlog.
    pub max_connections: usize,
    /// Concurrent HTTP/2 streams per connection.
    pub max_http2_streams: u32,
    /// How long shutdown waits for requests in flight.
    pub shutdown_grace: Duration,
}

impl HttpLimits {
    /// Limits that fit a service's largest file (`Limits::max_file_bytes`).
    pub fn for_max_file(max_file_bytes: usize) -> HttpLimits {
        const SLACK: usize = 2 * 1024 * 1024;
        HttpLimits {
            max_json_upload_body: max_file_bytes.div_ceil(3) * 4 + SLACK,
            max_multipart_body: max_file_bytes + SLACK,
            max_small_body: 1024 * 1024,
            max_form_body: 8 * 1024 * 1024,
            header_read_timeout: Duration::from_secs(10),
            body_idle_timeout: Duration::from_secs(20),
            body_total_timeout: Duration::from_secs(300),
            max_connections: 1024,
            max_http2_streams: 64,
            shutdown_grace: Duration::from_secs(30),
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
}

impl App {
    /// An app with the default limits for the service's file size limit, and signing pages that
    /// cannot be framed, with a page secret drawn now.
    pub fn new(svc: SigningService) -> App {
        let limits = HttpLimits::for_max_file(svc.settings().limits.max_file_bytes);
        App {
            svc,
            limits,
            pages: PageSettings::default(),
        }
    }

    pub fn with_limits(mut self, limits: HttpLimits) -> App {
        self.limits = limits;
        self
    }

    /// Settings of the signing pages (who may frame them, the secret of their form tokens).
    pub fn with_pages(mut self, pages: PageSettings) -> App {
        self.pages = pages;
        self
    }

    pub fn service(&self) -> &SigningService {
        &self.svc
    }

    pub fn limits(&self) -> &HttpLimits {
        &self.limits
    }
}
