//! The one place where failures become HTTP statuses and error bodies.
//!
//! Core errors carry an [`ErrorKind`]; `kind_status` is the table of decisions.md that turns a
//! kind into a status and an error `type`. Failures that only the HTTP layer can see (unknown
//! route, wrong method, wrong content type, oversized or stalled body) are [`ApiError`] variants
//! mapped right beside it. Nothing else in the server chooses an error status.
//!
//! A 500 logs its cause here and tells the client nothing internal.

use bytes::Bytes;
use hyper::StatusCode;
use hyper::header::{HeaderName, HeaderValue};
use serde::Serialize;
use serde_json::{Value, json};

use envelope_core::{Error, ErrorKind};

use crate::response::Reply;

/// Everything a request can fail with.
#[derive(Debug)]
pub enum ApiError {
    /// A failure reported by the core.
    Core(Error),
    /// No route has this path.
    RouteNotFound,
    /// The path is known but not with this method; `allow` lists the methods it takes.
    MethodNotAllowed {
        /// The `Allow` header's value.
        allow: &'static str,
    },
    /// The Content-Type is not one this route accepts.
    UnsupportedMediaType {
        /// The media types the route accepts, for the error's message.
        accepted: &'static str,
    },
    /// The body is larger than the limit for this route (found before or while reading it).
    BodyTooLarge {
        /// The route's limit, in bytes.
        max_bytes: usize,
    },
    /// The client did not send the body within the read deadlines.
    BodyTimeout,
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        ApiError::Core(e)
    }
}

/// Status and error `type` of each core error kind (decisions.md, "Errors").
fn kind_status(kind: ErrorKind) -> (StatusCode, &'static str) {
    const INVALID: &str = "invalid_request_error";
    match kind {
        ErrorKind::Authentication => (StatusCode::UNAUTHORIZED, "authentication_error"),
        ErrorKind::Permission => (StatusCode::FORBIDDEN, "permission_error"),
        ErrorKind::NotFound => (StatusCode::NOT_FOUND, INVALID),
        ErrorKind::InvalidRequest => (StatusCode::BAD_REQUEST, INVALID),
        ErrorKind::Unprocessable => (StatusCode::UNPROCESSABLE_ENTITY, INVALID),
        ErrorKind::TooLarge => (StatusCode::PAYLOAD_TOO_LARGE, INVALID),
        ErrorKind::Conflict => (StatusCode::CONFLICT, INVALID),
        ErrorKind::PaymentRequired => (StatusCode::PAYMENT_REQUIRED, INVALID),
        ErrorKind::Gone => (StatusCode::GONE, INVALID),
        ErrorKind::QuotaExceeded => (StatusCode::FORBIDDEN, INVALID),
        ErrorKind::RateLimited => (StatusCode::TOO_MANY_REQUESTS, "rate_limit_error"),
        ErrorKind::Idempotency => (StatusCode::UNPROCESSABLE_ENTITY, "idempotency_error"),
        ErrorKind::IdempotencyInFlight => (StatusCode::CONFLICT, "idempotency_error"),
        ErrorKind::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "api_error"),
        ErrorKind::Internal => (StatusCode::INTERNAL_SERVER_ERROR, "api_error"),
    }
}

/// The parts of an error response before it is written.
struct Parts {
    status: StatusCode,
    kind: &'static str,
    code: &'static str,
    message: String,
    param: Option<String>,
    missing_keys: Option<Vec<String>>,
    headers: Vec<(HeaderName, HeaderValue)>,
}

impl ApiError {
    fn parts(&self) -> Parts {
        const INVALID: &str = "invalid_request_error";
        let server = |status, code, message: String| Parts {
            status,
            kind: INVALID,
            code,
            message,
            param: None,
            missing_keys: None,
            headers: Vec::new(),
        };
        match self {
            ApiError::Core(e) => {
                let (status, kind) = kind_status(e.kind());
                let mut headers = Vec::new();
                if let Error::RateLimited { retry_after_secs } | Error::Busy { retry_after_secs } =
                    e
                {
                    headers.push((
                        hyper::header::RETRY_AFTER,
                        HeaderValue::from(*retry_after_secs),
                    ));
                }
                if let Error::EditConflict { version, .. } = e {
                    // The version to read again (extensions E11).
                    headers.push((hyper::header::ETAG, crate::preconditions::etag(*version)));
                }
                Parts {
                    status,
                    kind,
                    code: e.code(),
                    message: e.public_message(),
                    param: e.param(),
                    missing_keys: match e {
                        Error::MissingData { keys } => Some(keys.clone()),
                        // A bulk send's row (extensions E12) carries its envelope's error.
                        Error::BulkRow { source, .. } => match source.as_ref() {
                            Error::MissingData { keys } => Some(keys.clone()),
                            _ => None,
                        },
                        _ => None,
                    },
                    headers,
                }
            }
            ApiError::RouteNotFound => server(
                StatusCode::NOT_FOUND,
                "route_not_found",
                "Unrecognized request URL. See the API reference for the routes.".into(),
            ),
            ApiError::MethodNotAllowed { allow } => {
                let mut p = server(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "method_not_allowed",
                    format!("This route accepts only {allow}."),
                );
                p.headers
                    .push((hyper::header::ALLOW, HeaderValue::from_static(allow)));
                p
            }
            ApiError::UnsupportedMediaType { accepted } => server(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                format!("The Content-Type of this request must be {accepted}."),
            ),
            ApiError::BodyTooLarge { max_bytes } => {
                let mut p = server(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "file_too_large",
                    format!("The request body is larger than the limit of {max_bytes} bytes."),
                );
                // The rest of the body is not read: the connection cannot be reused.
                p.headers
                    .push((hyper::header::CONNECTION, HeaderValue::from_static("close")));
                p
            }
            ApiError::BodyTimeout => {
                let mut p = server(
                    StatusCode::REQUEST_TIMEOUT,
                    "request_timeout",
                    "The request body was not received in time.".into(),
                );
                p.headers
                    .push((hyper::header::CONNECTION, HeaderValue::from_static("close")));
                p
            }
        }
    }

    /// The status this error answers with.
    pub fn status(&self) -> StatusCode {
        self.parts().status
    }

    /// The flat error body of decisions.md, with the request's ID.
    pub fn into_reply(self, request_id: &str) -> Reply {
        let p = self.parts();
        if p.status == StatusCode::SERVICE_UNAVAILABLE {
            // Expected under load, and the body already says all there is.
            tracing::warn!(request_id, code = p.code, "request refused as busy");
        } else if p.status.is_server_error() {
            // The cause is for the logs only; the body says nothing internal.
            tracing::error!(request_id, error = ?self, "request failed");
        }
        let mut body = json!({
            "object": "error",
            "status": p.status.as_u16(),
            "type": p.kind,
            "code": p.code,
            "message": p.message,
            "param": p.param,
            "request_id": request_id,
        });
        if let (Some(keys), Value::Object(map)) = (p.missing_keys, &mut body) {
            map.insert("missing_keys".into(), json!(keys));
        }
        let bytes = Bytes::from(serde_json::to_vec(&body).unwrap_or_default());
        let mut reply = Reply::raw_json(p.status, bytes);
        reply.headers.extend(p.headers);
        reply
    }
}

/// The first allocation of a JSON body: an envelope is about 1 KB, a list page grows from it.
const JSON_CAPACITY: usize = 2048;

/// JSON replies, whose serialization can fail: they answer with an [`ApiError`], so they are
/// built here and `response.rs` needs nothing of this module.
impl Reply {
    /// Serializes `value` as the JSON body.
    pub fn json(status: StatusCode, value: &impl Serialize) -> Result<Reply, ApiError> {
        // Room for a whole envelope up front: growing from serde_json's 128 bytes took four
        // reallocations, each copying what was written so far.
        let mut body = Vec::with_capacity(JSON_CAPACITY);
        serde_json::to_writer(&mut body, value).map_err(|e| {
            ApiError::Core(envelope_core::Error::Internal(format!(
                "response serialization failed: {e}"
            )))
        })?;
        Ok(Reply::raw_json(status, body.into()))
    }

    /// `200 OK` with `value` as JSON.
    pub fn ok(value: &impl Serialize) -> Result<Reply, ApiError> {
        Reply::json(StatusCode::OK, value)
    }

    /// `201 Created` with `value` as JSON.
    pub fn created(value: &impl Serialize) -> Result<Reply, ApiError> {
        Reply::json(StatusCode::CREATED, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(r: &Reply) -> Value {
        serde_json::from_slice(&r.body).unwrap()
    }

    #[test]
    fn every_kind_has_the_status_of_the_table() {
        let cases: Vec<(Error, u16, &str, &str)> = vec![
            (
                Error::InvalidApiKey,
                401,
                "authentication_error",
                "invalid_api_key",
            ),
            (
                Error::TestModeOnly,
                403,
                "permission_error",
                "test_mode_only",
            ),
            (
                Error::OutsideLinkScope {
                    message: "This builder link may only read and change template tmpl_1.".into(),
                },
                403,
                "permission_error",
                "outside_link_scope",
            ),
            (
                Error::MissingData {
                    keys: vec!["a".into()],
                },
                422,
                "invalid_request_error",
                "missing_data",
            ),
            (
                Error::FileTooLarge { max_bytes: 1 },
                413,
                "invalid_request_error",
                "file_too_large",
            ),
            (
                Error::EnvelopeCompleted,
                409,
                "invalid_request_error",
                "envelope_completed",
            ),
            (
                Error::InsufficientBalance,
                402,
                "invalid_request_error",
                "insufficient_balance",
            ),
            (
                Error::FileDeleted {
                    kind: "signed",
                    deleted_at: envelope_core::Timestamp::from_millis(0).unwrap(),
                },
                410,
                "invalid_request_error",
                "file_deleted",
            ),
            (
                Error::StorageQuotaExceeded {
                    quota_bytes: 1 << 20,
                    used_bytes: 1 << 20,
                    needed_bytes: 1,
                },
                403,
                "invalid_request_error",
                "storage_quota_exceeded",
            ),
            (
                Error::RateLimited {
                    retry_after_secs: 7,
                },
                429,
                "rate_limit_error",
                "rate_limited",
            ),
            (
                Error::IdempotencyKeyReused,
                422,
                "idempotency_error",
                "idempotency_key_reused",
            ),
            (
                Error::IdempotencyKeyInUse,
                409,
                "idempotency_error",
                "idempotency_key_in_use",
            ),
            (
                Error::IdempotencyRecordUnreadable,
                422,
                "idempotency_error",
                "idempotency_key_unreadable",
            ),
            (
                Error::Busy {
                    retry_after_secs: 2,
                },
                503,
                "api_error",
                "service_busy",
            ),
            (
                Error::Internal("secret detail".into()),
                500,
                "api_error",
                "internal_error",
            ),
        ];
        for (e, status, kind, code) in cases {
            let r = ApiError::Core(e).into_reply("req_1");
            let b = body(&r);
            assert_eq!(r.status.as_u16(), status, "{b}");
            assert_eq!(b["type"], kind);
            assert_eq!(b["code"], code);
            assert_eq!(b["request_id"], "req_1");
            assert!(!b["message"].as_str().unwrap().contains("secret"));
        }
    }

    #[test]
    fn an_edit_conflict_names_the_current_etag() {
        let r = ApiError::Core(Error::EditConflict {
            resource: "template",
            version: 9,
        })
        .into_reply("req_1");
        let b = body(&r);
        assert_eq!(r.status, StatusCode::CONFLICT);
        assert_eq!(b["type"], "invalid_request_error");
        assert_eq!(b["code"], "edit_conflict");
        assert!(b["message"].as_str().unwrap().contains("Read it again"));
        assert!(
            r.headers
                .iter()
                .any(|(k, v)| k == hyper::header::ETAG && v == "\"9\"")
        );
    }

    #[test]
    fn missing_keys_and_retry_after() {
        let r = ApiError::Core(Error::MissingData {
            keys: vec!["start_date".into()],
        })
        .into_reply("req_1");
        assert_eq!(body(&r)["missing_keys"], json!(["start_date"]));
        let r = ApiError::Core(Error::RateLimited {
            retry_after_secs: 7,
        })
        .into_reply("req_1");
        assert!(
            r.headers
                .iter()
                .any(|(k, v)| k == hyper::header::RETRY_AFTER && v == "7")
        );
        let r = ApiError::Core(Error::Busy {
            retry_after_secs: 2,
        })
        .into_reply("req_1");
        assert!(
            r.headers
                .iter()
                .any(|(k, v)| k == hyper::header::RETRY_AFTER && v == "2")
        );
        assert!(
            body(&r)["message"]
                .as_str()
                .unwrap()
                .contains("Retry after 2")
        );
    }

    #[test]
    fn server_errors() {
        let r = ApiError::MethodNotAllowed { allow: "GET" }.into_reply("req_1");
        assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
        assert!(r.headers.iter().any(|(k, _)| k == hyper::header::ALLOW));
        assert_eq!(body(&r)["code"], "method_not_allowed");
        let r = ApiError::BodyTooLarge { max_bytes: 5 }.into_reply("req_1");
        assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(body(&r)["code"], "file_too_large");
        assert_eq!(body(&r)["param"], Value::Null);
    }
}
