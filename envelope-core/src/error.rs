//! The error model of the service.
//!
//! Every failure a caller can see is one variant of [`Error`], with meaning, never a string to be
//! parsed. [`Error::code`] gives the stable machine code of decisions.md (`resource_missing`,
//! `invalid_state`, ...) and [`Error::kind`] its category; a front end (the HTTP server) maps
//! kinds to statuses in exactly one place. `param` uses dotted paths (`signers.2.email`).

use std::fmt;

/// A boxed cause for failures of a backend (store, mailer, sink).
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything that can go wrong in a [`crate::SigningService`] call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("Invalid API key provided.")]
    InvalidApiKey,
    #[error("This operation is only available with a test key.")]
    TestModeOnly,
    /// Unknown ID, or an ID of another account or mode (indistinguishable on purpose).
    #[error("No such {resource}: '{id}'")]
    NotFound {
        resource: &'static str,
        id: String,
        param: Option<String>,
    },
    /// The body is not valid JSON or multipart, or not an object.
    #[error("{message}")]
    InvalidBody { message: String },
    #[error("Missing required parameter: {param}.")]
    ParameterMissing { param: String },
    #[error("Invalid {param}: {message}")]
    ParameterInvalid { param: String, message: String },
    #[error("Received unknown parameter: {param}.")]
    ParameterUnknown { param: String },
    #[error("Unknown data fields: {}.", names.join(", "))]
    UnknownDataFields { names: Vec<String> },
    #[error("Required data fields are missing: {}.", keys.join(", "))]
    MissingData { keys: Vec<String> },
    #[error("An envelope has at most {max} signers; {given} were given.")]
    TooManySigners { given: usize, max: usize },
    #[error("The file is larger than the limit of {max_bytes} bytes.")]
    FileTooLarge { max_bytes: usize },
    #[error("The PDF has {pages} pages; at most {max} are allowed.")]
    TooManyPages { pages: u32, max: u32 },
    /// Several documents (extensions E5) larger together than the file limit.
    #[error("The documents together are larger than the limit of {max_bytes} bytes.")]
    DocumentsTooLarge { max_bytes: usize },
    /// Several documents (extensions E5) with more pages together than the page limit.
    #[error("The documents have at least {pages} pages together; at most {max} are allowed.")]
    DocumentsTooManyPages { pages: u32, max: u32 },
    #[error("The file is not a readable PDF: {reason}")]
    InvalidPdf { param: String, reason: String },
    #[error("A completed envelope cannot be voided.")]
    EnvelopeCompleted,
    #[error("{message}")]
    InvalidState { message: String },
    #[error("The {kind} file is available once the envelope is completed.")]
    FileNotReady { kind: &'static str },
    /// Live retention deleted the envelope's PDFs; the record stays.
    #[error(
        "The {kind} file of this envelope was deleted on {deleted_at} under the data retention \
         policy; the envelope and its events are kept."
    )]
    FileDeleted {
        kind: &'static str,
        deleted_at: crate::clock::Timestamp,
    },
    /// The create would take the account past its storage quota. Nothing was written.
    #[error(
        "This account stores {} of its {} storage quota and this request needs {} more; \
         nothing was created. Delete data or ask for a larger quota.",
        mib(*used_bytes), mib(*quota_bytes), mib(*needed_bytes)
    )]
    StorageQuotaExceeded {
        quota_bytes: u64,
        used_bytes: u64,
        needed_bytes: u64,
    },
    #[error("Several signers can sign now; name one with `signer`.")]
    SignerAmbiguous,
    #[error("No signer of this envelope has the role or ID '{signer}'.")]
    SignerNotFound { signer: String },
    #[error("Signer {signer} cannot sign now: {reason}.")]
    SignerNotActionable {
        signer: String,
        reason: &'static str,
    },
    /// The signer must enter their code first (extensions E2): the document, signing and
    /// declining are out of reach until then.
    #[error("Enter your code to verify your identity before you continue.")]
    VerificationRequired,
    /// A wrong code; after the last attempt the link locks.
    #[error("{}", incorrect_code_message(*attempts_left))]
    IncorrectCode { attempts_left: u32 },
    /// Too many wrong codes: no code is checked before `until`.
    #[error("Too many wrong codes. The link is locked until {}.", hh_mm(*until))]
    VerificationLocked { until: crate::clock::Timestamp },
    /// No emailed code is valid now (none was sent yet, it expired, or it was used).
    #[error("This code is no longer valid. Ask for a new code and enter it within 10 minutes.")]
    CodeExpired,
    /// A code email was asked for less than a minute after the previous one.
    #[error(
        "A code was sent less than a minute ago. You can ask for a new one in {retry_after_secs} seconds."
    )]
    CodeRecentlySent { retry_after_secs: u64 },
    #[error("The document has fields for role '{role}' but no signer has that role.")]
    MissingSigner { role: String },
    #[error(
        "Signer {index} ({role}) has no signature field; tag one, give one in `fields`, or set `signature_page`."
    )]
    SignerWithoutFields { index: usize, role: String },
    #[error("{message}")]
    UrlInvalid { param: String, message: String },
    #[error("No live signatures are left in this period's allowance.")]
    InsufficientBalance,
    #[error("Too many requests; retry after {retry_after_secs} seconds.")]
    RateLimited { retry_after_secs: u64 },
    #[error("This idempotency key was already used with a different request.")]
    IdempotencyKeyReused,
    #[error("A request with this idempotency key is still being processed.")]
    IdempotencyKeyInUse,
    /// Every slot of the PDF pool stayed taken for as long as the request could wait. Nothing
    /// was changed; the same request can be sent again.
    #[error(
        "The service is busy with other documents; nothing was changed. Retry after {retry_after_secs} seconds."
    )]
    Busy { retry_after_secs: u64 },
    /// A page of a signing link's document could not be drawn as a picture
    /// ([`crate::SigningService::signing_page_image`]): no renderer, or the page is beyond the
    /// renderer's time or memory. The document itself can still be opened as a PDF. The reason
    /// is for logs only.
    #[error("This page could not be shown as a picture; open the document as a PDF instead.")]
    PageNotDrawable { reason: String },
    /// A backend failed; the cause is for logs only.
    #[error("a backend is unavailable")]
    Unavailable { source: BoxError },
    /// A broken invariant; the detail is for logs only.
    #[error("internal error: {0}")]
    Internal(String),
}

/// The category of an error, which decides the status a front end shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    Authentication,
    Permission,
    NotFound,
    InvalidRequest,
    /// The request is well-formed but its content is unusable (missing data).
    Unprocessable,
    TooLarge,
    Conflict,
    PaymentRequired,
    RateLimited,
    Idempotency,
    IdempotencyInFlight,
    /// The service cannot take the work now but will later (busy); retrying is safe.
    Unavailable,
    /// What was asked for existed and was deleted for good (retention).
    Gone,
    /// The account may not store more (its storage quota); the same request fails again until
    /// data is deleted or the quota raised.
    QuotaExceeded,
    Internal,
}

fn incorrect_code_message(left: u32) -> String {
    let attempts = if left == 1 { "attempt" } else { "attempts" };
    format!(
        "That code is not right. {left} {attempts} left before the link is locked for 15 minutes."
    )
}

/// A time of day in UTC, for messages.
fn hh_mm(t: crate::clock::Timestamp) -> String {
    t.datetime().format("%H:%M UTC").to_string()
}

/// Bytes in MiB with one decimal, for messages.
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

impl Error {
    /// The stable code of decisions.md.
    pub fn code(&self) -> &'static str {
        use Error::*;
        match self {
            InvalidApiKey => "invalid_api_key",
            TestModeOnly => "test_mode_only",
            NotFound { .. } => "resource_missing",
            InvalidBody { .. } => "invalid_body",
            ParameterMissing { .. } => "parameter_missing",
            ParameterInvalid { .. } => "parameter_invalid",
            ParameterUnknown { .. } => "parameter_unknown",
            UnknownDataFields { .. } => "unknown_data_fields",
            MissingData { .. } => "missing_data",
            TooManySigners { .. } => "too_many_signers",
            FileTooLarge { .. } | DocumentsTooLarge { .. } => "file_too_large",
            TooManyPages { .. } | DocumentsTooManyPages { .. } => "too_many_pages",
            InvalidPdf { .. } => "invalid_pdf",
            EnvelopeCompleted => "envelope_completed",
            InvalidState { .. } => "invalid_state",
            FileNotReady { .. } => "file_not_ready",
            FileDeleted { .. } => "file_deleted",
            StorageQuotaExceeded { .. } => "storage_quota_exceeded",
            SignerAmbiguous => "signer_ambiguous",
            SignerNotFound { .. } => "signer_not_found",
            SignerNotActionable { .. } => "signer_not_actionable",
            MissingSigner { .. } => "missing_signer",
            VerificationRequired => "verification_required",
            IncorrectCode { .. } => "incorrect_code",
            VerificationLocked { .. } => "verification_locked",
            CodeExpired => "code_expired",
            CodeRecentlySent { .. } => "code_recently_sent",
            SignerWithoutFields { .. } => "signer_without_fields",
            UrlInvalid { .. } => "url_invalid",
            InsufficientBalance => "insufficient_balance",
            RateLimited { .. } => "rate_limited",
            IdempotencyKeyReused => "idempotency_key_reused",
            IdempotencyKeyInUse => "idempotency_key_in_use",
            Busy { .. } => "service_busy",
            PageNotDrawable { .. } => "page_not_drawable",
            Unavailable { .. } | Internal(_) => "internal_error",
        }
    }

    pub fn kind(&self) -> ErrorKind {
        use Error::*;
        match self {
            InvalidApiKey => ErrorKind::Authentication,
            TestModeOnly | VerificationRequired => ErrorKind::Permission,
            VerificationLocked { .. } | CodeRecentlySent { .. } => ErrorKind::RateLimited,
            NotFound { .. } => ErrorKind::NotFound,
            MissingData { .. } | PageNotDrawable { .. } => ErrorKind::Unprocessable,
            FileTooLarge { .. } | DocumentsTooLarge { .. } => ErrorKind::TooLarge,
            EnvelopeCompleted
            | InvalidState { .. }
            | FileNotReady { .. }
            | SignerNotActionable { .. } => ErrorKind::Conflict,
            InsufficientBalance => ErrorKind::PaymentRequired,
            FileDeleted { .. } => ErrorKind::Gone,
            StorageQuotaExceeded { .. } => ErrorKind::QuotaExceeded,
            RateLimited { .. } => ErrorKind::RateLimited,
            IdempotencyKeyReused => ErrorKind::Idempotency,
            IdempotencyKeyInUse => ErrorKind::IdempotencyInFlight,
            Busy { .. } => ErrorKind::Unavailable,
            Unavailable { .. } | Internal(_) => ErrorKind::Internal,
            InvalidBody { .. }
            | ParameterMissing { .. }
            | ParameterInvalid { .. }
            | ParameterUnknown { .. }
            | UnknownDataFields { .. }
            | TooManySigners { .. }
            | TooManyPages { .. }
            | DocumentsTooManyPages { .. }
            | InvalidPdf { .. }
            | SignerAmbiguous
            | SignerNotFound { .. }
            | MissingSigner { .. }
            | SignerWithoutFields { .. }
            | IncorrectCode { .. }
            | CodeExpired
            | UrlInvalid { .. } => ErrorKind::InvalidRequest,
        }
    }

    /// The parameter at fault, as a dotted path, when one is.
    pub fn param(&self) -> Option<String> {
        use Error::*;
        match self {
            NotFound { param, .. } => param.clone(),
            ParameterMissing { param }
            | ParameterInvalid { param, .. }
            | ParameterUnknown { param }
            | InvalidPdf { param, .. }
            | UrlInvalid { param, .. } => Some(param.clone()),
            UnknownDataFields { names } => names.first().map(|n| format!("data.{n}")),
            MissingData { .. } => Some("data".into()),
            TooManySigners { .. } | MissingSigner { .. } => Some("signers".into()),
            SignerWithoutFields { index, .. } => Some(format!("signers.{index}")),
            FileTooLarge { .. } | TooManyPages { .. } => Some("file".into()),
            DocumentsTooLarge { .. } | DocumentsTooManyPages { .. } => Some("files".into()),
            SignerAmbiguous | SignerNotFound { .. } => Some("signer".into()),
            IncorrectCode { .. } | CodeExpired => Some("code".into()),
            _ => None,
        }
    }

    /// The message shown to callers: never internals.
    pub fn public_message(&self) -> String {
        match self {
            Error::Unavailable { .. } | Error::Internal(_) => {
                "An unexpected error occurred; it has been logged. Retry later.".into()
            }
            e => e.to_string(),
        }
    }

    pub(crate) fn invalid(param: impl Into<String>, message: impl fmt::Display) -> Error {
        Error::ParameterInvalid {
            param: param.into(),
            message: message.to_string(),
        }
    }

    pub(crate) fn missing(param: impl Into<String>) -> Error {
        Error::ParameterMissing {
            param: param.into(),
        }
    }

    pub(crate) fn not_found(resource: &'static str, id: &str) -> Error {
        Error::NotFound {
            resource,
            id: id.chars().take(80).collect(),
            param: None,
        }
    }

    pub(crate) fn state(message: impl Into<String>) -> Error {
        Error::InvalidState {
            message: message.into(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
