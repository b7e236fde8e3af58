//! Request bodies and query strings: size limits while streaming, read deadlines, and the
//! translation of JSON, multipart forms and queries into the core's [`Params`].
//!
//! This module decides nothing about parameters themselves: it only hands the core what the
//! client sent. It must never buffer more than the route's limit.

mod budget;
pub(crate) mod multipart;
mod spool;

pub use budget::{Reservation, SpoolBudget};
pub use spool::{Spooled, Uploads};

use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::HeaderMap;
use hyper::body::{Body, Incoming};
use hyper::header::{CONTENT_LENGTH, CONTENT_TYPE};
use tokio::time::{Instant, timeout_at};

use envelope_core::Error;
use envelope_core::service::{Params, Upload};

use crate::error::ApiError;

/// What the Content-Type header says the body is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaType {
    /// No Content-Type header.
    Absent,
    /// `application/json`.
    Json,
    /// `multipart/form-data` with a usable boundary.
    Multipart {
        /// The boundary between the parts.
        boundary: String,
    },
    /// Anything else, including multipart without a usable boundary.
    Other,
}

impl MediaType {
    /// The media type that `headers`' Content-Type names (its parameters aside).
    pub fn of(headers: &HeaderMap) -> MediaType {
        let Some(v) = headers.get(CONTENT_TYPE) else {
            return MediaType::Absent;
        };
        let Ok(v) = v.to_str() else {
            return MediaType::Other;
        };
        let essence = v.split(';').next().unwrap_or("").trim();
        if essence.eq_ignore_ascii_case("application/json") {
            MediaType::Json
        } else if essence.eq_ignore_ascii_case("multipart/form-data") {
            match multer::parse_boundary(v) {
                Ok(boundary) => MediaType::Multipart { boundary },
                // A multipart type without a usable boundary cannot be read at all.
                Err(_) => MediaType::Other,
            }
        } else {
            MediaType::Other
        }
    }
}

/// A body as received, not yet parsed. A JSON body is a `Vec` because its `file_base64` is
/// decoded in place (`Params::json_body`); a multipart body is shared by its parts.
pub enum RawBody {
    /// No body (the route reads none, or none was sent).
    Empty,
    /// A JSON body's bytes.
    Json(Vec<u8>),
    /// A multipart body, parsed later.
    Multipart {
        /// The boundary between the parts, from the Content-Type.
        boundary: String,
        /// The whole body.
        bytes: Bytes,
    },
}

impl std::fmt::Debug for RawBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self {
            RawBody::Empty => "Empty",
            RawBody::Json(_) => "Json",
            RawBody::Multipart { .. } => "Multipart",
        };
        f.debug_struct("RawBody")
            .field("kind", &kind)
            .field("len", &self.bytes().len())
            .finish()
    }
}

impl RawBody {
    /// The bytes the idempotency fingerprint covers.
    pub fn bytes(&self) -> &[u8] {
        match self {
            RawBody::Empty => &[],
            RawBody::Json(b) => b,
            RawBody::Multipart { bytes: b, .. } => b,
        }
    }
}

/// Limits and deadlines of body reading.
#[derive(Debug, Clone, Copy)]
pub struct BodyLimits {
    /// The largest body, in bytes; past it the request gets `413`.
    pub max_bytes: usize,
    /// Longest wait for the next chunk.
    pub idle_timeout: Duration,
    /// Longest time for the whole body.
    pub total_timeout: Duration,
}

/// The declared Content-Length, if any and readable.
pub fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The data chunks of a body, under its size limit and deadlines: `413` past the limit (at
/// once from Content-Length, otherwise while counting), `408` when the client pauses or takes
/// too long, `400 invalid_body` when the connection fails. Reading into memory, spooling to
/// disk and draining a refused body all read through it, so they answer alike.
pub(crate) struct Frames {
    body: Incoming,
    limits: BodyLimits,
    deadline: Instant,
    seen: usize,
    /// Content-Length, when declared and readable.
    pub(crate) declared: Option<u64>,
}

impl Frames {
    /// Starts reading `body`; `413` at once when the declared length is over the limit.
    pub(crate) fn start(
        headers: &HeaderMap,
        body: Incoming,
        limits: BodyLimits,
    ) -> Result<Frames, ApiError> {
        let declared = content_length(headers);
        if declared.is_some_and(|n| n > limits.max_bytes as u64) {
            return Err(ApiError::BodyTooLarge {
                max_bytes: limits.max_bytes,
            });
        }
        Ok(Frames {
            body,
            limits,
            deadline: Instant::now() + limits.total_timeout,
            seen: 0,
            declared,
        })
    }

    /// The next chunk of data, `None` at the end of the body.
    pub(crate) async fn next(&mut self) -> Result<Option<Bytes>, ApiError> {
        loop {
            if self.body.is_end_stream() {
                return Ok(None);
            }
            let next = self.deadline.min(Instant::now() + self.limits.idle_timeout);
            let frame = match timeout_at(next, self.body.frame()).await {
                Err(_) => return Err(ApiError::BodyTimeout),
                Ok(None) => return Ok(None),
                Ok(Some(Err(e))) => {
                    return Err(Error::InvalidBody {
                        message: format!("The request body could not be read: {e}."),
                    }
                    .into());
                }
                Ok(Some(Ok(frame))) => frame,
            };
            // Trailers carry no data: read on.
            if let Ok(data) = frame.into_data() {
                if self.seen + data.len() > self.limits.max_bytes {
                    return Err(ApiError::BodyTooLarge {
                        max_bytes: self.limits.max_bytes,
                    });
                }
                self.seen += data.len();
                return Ok(Some(data));
            }
        }
    }
}

/// Reads the whole body under `limits` ([`Frames`]).
///
/// The buffer is reserved at the declared length (within the limit), so that a large body is
/// never copied while it grows. Reserving is not holding: the pages of a large buffer become
/// resident only as bytes arrive, so a client that declares 30 MB and sends nothing costs
/// address space, not memory.
pub async fn read_limited(
    headers: &HeaderMap,
    body: Incoming,
    limits: BodyLimits,
) -> Result<Vec<u8>, ApiError> {
    let mut frames = Frames::start(headers, body, limits)?;
    let mut buf = Vec::with_capacity(frames.declared.unwrap_or(0) as usize);
    while let Some(data) = frames.next().await? {
        buf.extend_from_slice(&data);
    }
    Ok(buf)
}

/// Reads and discards the body under `limits`, so that a client that sends its whole body
/// before it reads the answer (Python's `http.client`, `requests`) gets to read a refusal made
/// before the body was read; hyper closes the connection at once when a body is left unread.
/// A body past the limit or the deadlines is left there: hyper closes the connection then.
pub async fn drain(headers: &HeaderMap, body: Incoming, limits: BodyLimits) {
    if let Ok(mut frames) = Frames::start(headers, body, limits) {
        while let Ok(Some(_)) = frames.next().await {}
    }
}

/// Parameters of a JSON body (an empty body is no parameters), read into bounded values.
pub fn json_params(bytes: Vec<u8>) -> Result<Params, Error> {
    Params::json_body(bytes)
}

/// Parameters and the `file` part of a multipart form, in either form of the spec's rule:
/// every parameter a text part (objects as JSON text), or one `payload` part holding a JSON
/// object with every parameter. The PDFs are the parts named `file`, in order, slices of
/// `bytes` (several are several documents of an envelope, extensions E5; the core counts them).
pub fn multipart_params(boundary: &str, bytes: Bytes) -> Result<(Params, Vec<Upload>), Error> {
    let invalid = |message: String| Error::InvalidBody { message };
    let parts = multipart::parts(&bytes, boundary).map_err(invalid)?;
    drop(bytes);
    let mut texts: Vec<(String, String)> = Vec::new();
    let mut payload: Option<Vec<u8>> = None;
    let mut files: Vec<Upload> = Vec::new();
    for part in parts {
        let name = part
            .name
            .ok_or_else(|| invalid("Every multipart part needs a name.".into()))?;
        match name.as_str() {
            "file" => {
                files.push(Upload {
                    file_name: part
                        .file_name
                        .filter(|n| !n.trim().is_empty())
                        .unwrap_or_else(|| "document.pdf".into()),
                    bytes: part.data,
                });
            }
            "payload" => {
                if payload.is_some() {
                    return Err(invalid(
                        "The part `payload` is given more than once.".into(),
                    ));
                }
                payload = Some(part.data.to_vec());
            }
            _ => {
                let text = std::str::from_utf8(&part.data)
                    .map_err(|_| invalid(format!("The part `{name}` is not UTF-8 text.")))?;
                texts.push((name, text.to_string()));
            }
        }
    }
    let params = match payload {
        None => Params::form(texts),
        Some(p) => {
            if let Some((name, _)) = texts.first() {
                return Err(invalid(format!(
                    "With a `payload` part every parameter belongs inside it; move `{name}` there."
                )));
            }
            if p.iter().all(u8::is_ascii_whitespace) {
                return Err(invalid("The `payload` part must be a JSON object.".into()));
            }
            Params::json_body(p).map_err(|e| match e {
                Error::InvalidBody { message } => {
                    invalid(message.replacen("The request body", "The `payload` part", 1))
                }
                other => other,
            })?
        }
    };
    Ok((params, files))
}

/// Parameters of a query string, percent-decoded (`+` is a space).
pub fn query_params(query: Option<&str>) -> Params {
    let pairs = query
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect();
    Params::form(pairs)
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types() {
        let mut h = HeaderMap::new();
        assert_eq!(MediaType::of(&h), MediaType::Absent);
        h.insert(
            CONTENT_TYPE,
            "application/json; charset=utf-8".parse().unwrap(),
        );
        assert_eq!(MediaType::of(&h), MediaType::Json);
        h.insert(
            CONTENT_TYPE,
            "multipart/form-data; boundary=xyz".parse().unwrap(),
        );
        assert_eq!(
            MediaType::of(&h),
            MediaType::Multipart {
                boundary: "xyz".into()
            }
        );
        h.insert(CONTENT_TYPE, "multipart/form-data".parse().unwrap());
        assert_eq!(MediaType::of(&h), MediaType::Other);
        h.insert(CONTENT_TYPE, "text/plain".parse().unwrap());
        assert_eq!(MediaType::of(&h), MediaType::Other);
    }

    #[test]
    fn queries_decode() {
        assert_eq!(percent_decode("a%20b+c%2"), "a b c%2");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("%41"), "A");
        let mut p = query_params(Some("limit=5&starting_after=env_1&&type=envelope.sent"));
        assert_eq!(p.integer("limit").unwrap(), Some(5));
        assert_eq!(p.string("starting_after").unwrap().unwrap(), "env_1");
        assert_eq!(p.string("type").unwrap().unwrap(), "envelope.sent");
        p.finish().unwrap();
    }

    #[test]
    fn json_bodies() {
        assert!(json_params(b"".to_vec()).unwrap().is_empty());
        assert!(json_params(b" \n".to_vec()).unwrap().is_empty());
        assert_eq!(
            json_params(b"{".to_vec()).unwrap_err().code(),
            "invalid_body"
        );
        assert_eq!(
            json_params(b"[1]".to_vec()).unwrap_err().code(),
            "invalid_body"
        );
        assert_eq!(
            json_params(b"\"x\"".to_vec()).unwrap_err().code(),
            "invalid_body"
        );
    }

    #[test]
    fn multipart_both_forms() {
        let body = "--b\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nNDA\r\n\
                    --b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.pdf\"\r\n\
                    Content-Type: application/pdf\r\n\r\n%PDF-1.4\r\n--b--\r\n";
        let (mut p, f) = multipart_params("b", Bytes::from(body)).unwrap();
        assert_eq!(p.string("name").unwrap().unwrap(), "NDA");
        let [f] = &f[..] else { panic!("{f:?}") };
        assert_eq!(
            (f.file_name.as_str(), &f.bytes[..]),
            ("x.pdf", &b"%PDF-1.4"[..])
        );

        let body = "--b\r\nContent-Disposition: form-data; name=\"payload\"\r\n\r\n{\"name\":\"NDA\"}\r\n\
                    --b\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n%PDF\r\n--b--\r\n";
        let (mut p, f) = multipart_params("b", Bytes::from(body)).unwrap();
        assert_eq!(p.string("name").unwrap().unwrap(), "NDA");
        assert_eq!(f[0].file_name, "document.pdf");

        // Several `file` parts are several documents, in order.
        let body = "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n\r\nA\r\n\
                    --b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.pdf\"\r\n\r\nB\r\n--b--\r\n";
        let (_, f) = multipart_params("b", Bytes::from(body)).unwrap();
        let names: Vec<_> = f
            .iter()
            .map(|u| (u.file_name.as_str(), &u.bytes[..]))
            .collect();
        assert_eq!(names, [("a.pdf", &b"A"[..]), ("b.pdf", &b"B"[..])]);

        let bad = multipart_params("b", Bytes::from("garbage")).unwrap_err();
        assert_eq!(bad.code(), "invalid_body");
    }
}
