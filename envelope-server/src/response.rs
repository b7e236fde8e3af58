//! Small response constructors and the headers every response carries.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_util::Stream;
use http_body_util::{Either, Full};
use hyper::body::{Body, Frame, SizeHint};
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Response, StatusCode};

use envelope_core::Mode;
use envelope_core::service::{ArchiveBody, FileBody, RateLimitState};

/// A response before the common headers are added.
#[derive(Debug)]
pub struct Reply {
    /// The status code.
    pub status: StatusCode,
    /// The Content-Type header's value.
    pub content_type: &'static str,
    /// The whole body, unless `stream` is set.
    pub body: Bytes,
    /// Headers of this response only (Allow, Retry-After, Content-Disposition, ...).
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// Sent instead of `body` when set: a file as it is read, an archive as it is written.
    pub stream: Option<Streamed>,
}

/// A body sent as it is produced, with its length when it is known in advance (a file: then
/// `Content-Length` is sent, as for a whole body; an archive: chunked).
pub struct Streamed {
    chunks: Pin<Box<dyn Stream<Item = std::io::Result<Bytes>> + Send>>,
    /// Bytes still to come, when known.
    left: Option<u64>,
    _open: OpenStream,
}

impl Streamed {
    fn new(
        chunks: Pin<Box<dyn Stream<Item = std::io::Result<Bytes>> + Send>>,
        left: Option<u64>,
    ) -> Streamed {
        Streamed {
            chunks,
            left,
            _open: OpenStream::new(),
        }
    }
}

/// Counts a streamed body in `envelope_http_streams_open` from the moment it is made until it
/// is dropped: sent to the end, cut by a store failure, or given up when the client went away
/// (hyper drops the body with the connection). A gauge that does not come back down is a
/// stream, and its buffers and store reads, kept alive by nobody.
struct OpenStream;

impl OpenStream {
    fn new() -> OpenStream {
        metrics::gauge!("envelope_http_streams_open").increment(1.0);
        OpenStream
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        metrics::gauge!("envelope_http_streams_open").decrement(1.0);
    }
}

impl std::fmt::Debug for Streamed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Streamed")
            .field("left", &self.left)
            .finish_non_exhaustive()
    }
}

impl Body for Streamed {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let polled = self.chunks.as_mut().poll_next(cx);
        if let Poll::Ready(Some(Ok(chunk))) = &polled
            && let Some(left) = &mut self.left
        {
            *left = left.saturating_sub(chunk.len() as u64);
        }
        polled.map(|c| c.map(|c| c.map(Frame::data)))
    }

    fn size_hint(&self) -> SizeHint {
        match self.left {
            Some(n) => SizeHint::with_exact(n),
            None => SizeHint::default(),
        }
    }
}

/// Every response's body: whole, or streamed (downloads).
pub type ResponseBody = Either<Full<Bytes>, Streamed>;

impl Reply {
    /// This reply with `ETag` naming a record at `version` (extensions E11).
    pub fn with_etag(mut self, version: u64) -> Reply {
        self.headers
            .push((hyper::header::ETAG, crate::preconditions::etag(version)));
        self
    }

    /// A JSON body that is already serialized.
    pub fn raw_json(status: StatusCode, body: Bytes) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body,
            headers: Vec::new(),
            stream: None,
        }
    }

    /// An HTML page in language `lang` (a BCP 47 code) with `headers` (the page's security
    /// headers), which vary by `Accept-Language`.
    pub fn html_page(
        status: StatusCode,
        lang: &'static str,
        mut headers: Vec<(HeaderName, HeaderValue)>,
        html: String,
    ) -> Reply {
        headers.push((header::CONTENT_LANGUAGE, HeaderValue::from_static(lang)));
        headers.push((header::VARY, HeaderValue::from_static("Accept-Language")));
        Reply {
            status,
            content_type: "text/html; charset=utf-8",
            body: html.into(),
            headers,
            stream: None,
        }
    }

    /// A picture of a page (PNG). Like the document it shows, it is kept by no cache.
    pub fn png(bytes: Bytes) -> Reply {
        Reply {
            status: StatusCode::OK,
            content_type: "image/png",
            body: bytes,
            headers: vec![(
                hyper::header::CACHE_CONTROL,
                HeaderValue::from_static("no-store"),
            )],
            stream: None,
        }
    }

    /// A PDF download, offered as an attachment under `file_name`.
    pub fn pdf(file_name: &str, bytes: Bytes) -> Reply {
        Reply::pdf_as("attachment", file_name, bytes)
    }

    /// A PDF with this disposition (`attachment` or `inline`).
    pub fn pdf_as(disposition: &'static str, file_name: &str, bytes: Bytes) -> Reply {
        let disposition = content_disposition(disposition, file_name);
        Reply {
            status: StatusCode::OK,
            content_type: "application/pdf",
            body: bytes,
            headers: vec![
                (header::CONTENT_DISPOSITION, disposition),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            ],
            stream: None,
        }
    }

    /// A PDF download read as it is sent (its length known: `Content-Length` as for
    /// [`Reply::pdf`]), offered as an attachment under `file_name`.
    pub fn pdf_stream(file_name: &str, body: FileBody) -> Reply {
        Reply::pdf_stream_as("attachment", file_name, body)
    }

    /// A PDF read as it is sent, with this disposition (`attachment` or `inline`).
    pub fn pdf_stream_as(disposition: &'static str, file_name: &str, body: FileBody) -> Reply {
        let left = Some(body.size());
        Reply {
            stream: Some(Streamed::new(Box::pin(body), left)),
            ..Reply::pdf_as(disposition, file_name, Bytes::new())
        }
    }

    /// A download of `content_type` (a PDF, or a signer's PNG or JPEG attachment) read as it
    /// is sent, offered as an attachment under `file_name`.
    pub fn file_stream(content_type: &'static str, file_name: &str, body: FileBody) -> Reply {
        Reply {
            content_type,
            ..Reply::pdf_stream(file_name, body)
        }
    }

    /// A ZIP download written as it is sent, offered as an attachment under `file_name`.
    pub fn zip(file_name: &str, body: ArchiveBody) -> Reply {
        Reply {
            content_type: "application/zip",
            stream: Some(Streamed::new(Box::pin(body), None)),
            ..Reply::pdf(file_name, Bytes::new())
        }
    }

    /// `302 Found` to `location` (a download served by the blob store), with no body.
    pub fn redirect(location: HeaderValue) -> Reply {
        Reply {
            status: StatusCode::FOUND,
            content_type: "text/plain; charset=utf-8",
            body: Bytes::new(),
            headers: vec![
                (header::LOCATION, location),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            ],
            stream: None,
        }
    }
}

/// `<disposition>; filename="<ascii>"; filename*=UTF-8''<percent-encoded>` (RFC 6266), so that
/// any file name, quotes and non-ASCII included, is safe in the header.
pub fn content_disposition(disposition: &'static str, file_name: &str) -> HeaderValue {
    let ascii: String = file_name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut encoded = String::new();
    for b in file_name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            encoded.push(b as char);
        } else {
            encoded.push_str(&format!("%{b:02X}"));
        }
    }
    HeaderValue::from_str(&format!(
        "{disposition}; filename=\"{ascii}\"; filename*=UTF-8''{encoded}"
    ))
    .unwrap_or_else(|_| HeaderValue::from_static(disposition))
}

/// What the common headers say about one request.
#[derive(Debug, Clone)]
pub struct Meta {
    /// The request's ID (`Service-Request-Id`).
    pub request_id: String,
    /// The mode of the request's key (`Service-Mode`).
    pub mode: Mode,
    /// The key's rate limit after this request (`RateLimit-*`); none before authentication.
    pub rate: Option<RateLimitState>,
    /// Whether the reply is a stored idempotent one sent again (`Idempotent-Replayed`).
    pub replayed: bool,
    /// The API route's template (`POST /v1/envelopes/{id}/send`), once the path resolved.
    pub route: Option<&'static str>,
}

/// The request's ID, on every response.
pub const REQUEST_ID: HeaderName = HeaderName::from_static("service-request-id");
/// `test` or `live`: the mode of the request's key.
pub const MODE: HeaderName = HeaderName::from_static("service-mode");
/// `true` when the response is a stored one, sent again for a repeated idempotency key.
pub const IDEMPOTENT_REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");
/// Requests the key may make per window.
pub const RATE_LIMIT: HeaderName = HeaderName::from_static("ratelimit-limit");
/// Requests left in the current window.
pub const RATE_REMAINING: HeaderName = HeaderName::from_static("ratelimit-remaining");
/// Seconds until the window starts again.
pub const RATE_RESET: HeaderName = HeaderName::from_static("ratelimit-reset");

/// The final response: the reply plus the headers of every response.
pub fn finish(reply: Reply, meta: &Meta) -> Response<ResponseBody> {
    let body = match reply.stream {
        Some(stream) => Either::Right(stream),
        None => Either::Left(Full::new(reply.body)),
    };
    let mut res = Response::new(body);
    *res.status_mut() = reply.status;
    // Up to eight common headers, then the reply's own: the map is sized once instead of
    // growing (each growth rehashes it).
    *res.headers_mut() = HeaderMap::with_capacity(16 + reply.headers.len());
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(reply.content_type),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if let Ok(v) = HeaderValue::from_str(&meta.request_id) {
        h.insert(REQUEST_ID, v);
    }
    h.insert(MODE, HeaderValue::from_static(meta.mode.as_str()));
    if let Some(rate) = meta.rate {
        h.insert(RATE_LIMIT, HeaderValue::from(rate.limit));
        h.insert(RATE_REMAINING, HeaderValue::from(rate.remaining));
        h.insert(RATE_RESET, HeaderValue::from(rate.reset_secs));
    }
    h.insert(
        IDEMPOTENT_REPLAYED,
        HeaderValue::from_static(if meta.replayed { "true" } else { "false" }),
    );
    for (k, v) in reply.headers {
        h.insert(k, v);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disposition_is_always_a_valid_header() {
        for name in ["a.pdf", "Vertrag \"Müller\".pdf", "x\r\ny.pdf", ""] {
            let v = content_disposition("attachment", name);
            let s = v.to_str().unwrap();
            assert!(s.starts_with("attachment; filename=\""), "{s}");
        }
        assert_eq!(
            content_disposition("attachment", "Ünïcode.pdf")
                .to_str()
                .unwrap(),
            "attachment; filename=\"_n_code.pdf\"; filename*=UTF-8''%C3%9Cn%C3%AFcode.pdf"
        );
    }
}
