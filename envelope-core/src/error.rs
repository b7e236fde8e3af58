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
    /// The API key is unknown, malformed or revoked.
    ///
    /// Code `invalid_api_key`, kind [`ErrorKind::Authentication`] (401).
    #[error("Invalid API key provided.")]
    InvalidApiKey,
    /// A test-only operation (a test helper such as `test_complete`) was called with a live key.
    ///
    /// Code `test_mode_only`, kind [`ErrorKind::Permission`] (403).
    #[error("This operation is only available with a test key.")]
    TestModeOnly,
    /// A builder link's token (extensions E11) used for something other than reading, editing
    /// or sending the one object it opens.
    ///
    /// Code `outside_link_scope`, kind [`ErrorKind::Permission`] (403).
    #[error("{message}")]
    OutsideLinkScope {
        /// What the link may do, in a sentence.
        message: String,
    },
    /// Unknown ID, or an ID of another account or mode (indistinguishable on purpose).
    ///
    /// Code `resource_missing`, kind [`ErrorKind::NotFound`] (404).
    #[error("No such {resource}: '{id}'")]
    NotFound {
        /// The kind of object looked up (`envelope`, `template`, ...), as the message names it.
        resource: &'static str,
        /// The ID as given, cut to 80 characters.
        id: String,
        /// The parameter that carried the ID, when it came from one.
        param: Option<String>,
    },
    /// The body is not valid JSON or multipart, or not an object.
    ///
    /// Code `invalid_body`, kind [`ErrorKind::InvalidRequest`] (400).
    #[error("{message}")]
    InvalidBody {
        /// What is wrong with the body, shown to the caller as is.
        message: String,
    },
    /// A required parameter is absent or empty.
    ///
    /// Code `parameter_missing`, kind [`ErrorKind::InvalidRequest`] (400).
    #[error("Missing required parameter: {param}.")]
    ParameterMissing {
        /// The dotted path of the missing parameter.
        param: String,
    },
    /// A parameter is present but its value is not acceptable (wrong type, out of range, badly
    /// formed).
    ///
    /// Code `parameter_invalid`, kind [`ErrorKind::InvalidRequest`] (400).
    #[error("Invalid {param}: {message}")]
    ParameterInvalid {
        /// The dotted path of the parameter at fault.
        param: String,
        /// Why the value was refused, for the caller.
        message: String,
    },
    /// The request has a parameter the operation does not know; unknown parameters are refused
    /// rather than ignored.
    ///
    /// Code `parameter_unknown`, kind [`ErrorKind::InvalidRequest`] (400).
    #[error("Received unknown parameter: {param}.")]
    ParameterUnknown {
        /// The dotted path of the unknown parameter.
        param: String,
    },
    /// `data` names keys that match no sender field of the document or template.
    ///
    /// Code `unknown_data_fields`, kind [`ErrorKind::InvalidRequest`] (400); the param is the first
    /// unknown key (`data.<name>`).
    #[error("Unknown data fields: {}.", names.join(", "))]
    UnknownDataFields {
        /// Every unknown key, in the order given.
        names: Vec<String>,
    },
    /// Required sender fields got no value in `data`.
    ///
    /// Code `missing_data`, kind [`ErrorKind::Unprocessable`] (422); the param is `data`.
    #[error("Required data fields are missing: {}.", keys.join(", "))]
    MissingData {
        /// The keys of the required sender fields left without a value.
        keys: Vec<String>,
    },
    /// An envelope was given more signers than the limit allows.
    ///
    /// Code `too_many_signers`, kind [`ErrorKind::InvalidRequest`] (400); the param is `signers`.
    #[error("An envelope has at most {max} signers; {given} were given.")]
    TooManySigners {
        /// How many signers the request named.
        given: usize,
        /// The most signers an envelope may have.
        max: usize,
    },
    /// The uploaded file is larger than the file size limit.
    ///
    /// Code `file_too_large`, kind [`ErrorKind::TooLarge`] (413); the param is `file`.
    #[error("The file is larger than the limit of {max_bytes} bytes.")]
    FileTooLarge {
        /// The file size limit, in bytes.
        max_bytes: usize,
    },
    /// The uploaded PDF has more pages than the page limit.
    ///
    /// Code `too_many_pages`, kind [`ErrorKind::InvalidRequest`] (400); the param is `file`.
    #[error("The PDF has {pages} pages; at most {max} are allowed.")]
    TooManyPages {
        /// How many pages the PDF has.
        pages: u32,
        /// The most pages a document may have.
        max: u32,
    },
    /// Several documents (extensions E5) larger together than the file limit.
    ///
    /// Code `file_too_large`, kind [`ErrorKind::TooLarge`] (413); the param is `files`.
    #[error("The documents together are larger than the limit of {max_bytes} bytes.")]
    DocumentsTooLarge {
        /// The file size limit the documents together exceed, in bytes.
        max_bytes: usize,
    },
    /// Several documents (extensions E5) with more pages together than the page limit.
    ///
    /// Code `too_many_pages`, kind [`ErrorKind::InvalidRequest`] (400); the param is `files`.
    #[error("The documents have at least {pages} pages together; at most {max} are allowed.")]
    DocumentsTooManyPages {
        /// How many pages the documents were counted to have when the limit was passed (a
        /// lower bound).
        pages: u32,
        /// The most pages the documents of one envelope may have together.
        max: u32,
    },
    /// A file could not be read as a PDF (not a PDF, damaged, encrypted, or beyond what the
    /// engine reads).
    ///
    /// Code `invalid_pdf`, kind [`ErrorKind::InvalidRequest`] (400).
    #[error("The file is not a readable PDF: {reason}")]
    InvalidPdf {
        /// The dotted path of the file parameter (`file`, `files.1`, ...).
        param: String,
        /// What the PDF engine could not read, shown in the message.
        reason: String,
    },
    /// A void was asked for an envelope that is already completed.
    ///
    /// Code `envelope_completed`, kind [`ErrorKind::Conflict`] (409).
    #[error("A completed envelope cannot be voided.")]
    EnvelopeCompleted,
    /// The object is not in a state that allows the operation (for example sending an envelope
    /// that was already sent, or editing an archived template).
    ///
    /// Code `invalid_state`, kind [`ErrorKind::Conflict`] (409).
    #[error("{message}")]
    InvalidState {
        /// What state the object is in and why that forbids the operation, for the caller.
        message: String,
    },
    /// An edit required the object to be at a version it is no longer at (extensions E11,
    /// HTTP's `If-Match`): another write changed it since the caller read it. Nothing was
    /// written.
    ///
    /// Code `edit_conflict`, kind [`ErrorKind::Conflict`] (409).
    #[error(
        "This {resource} was changed since you read it (it is now at version {version}); \
         nothing was written. Read it again and apply your change to the current version."
    )]
    EditConflict {
        /// The object's kind (`envelope`, `template`).
        resource: &'static str,
        /// The object's current version, for the caller to read again (the server's `ETag`).
        version: u64,
    },
    /// A file of an envelope that only exists once the envelope is completed (the signed PDF,
    /// the audit trail, the archive) was asked for before that.
    ///
    /// Code `file_not_ready`, kind [`ErrorKind::Conflict`] (409).
    #[error("The {kind} file is available once the envelope is completed.")]
    FileNotReady {
        /// The file kind asked for (`signed`, `audit_trail`, `archive`).
        kind: &'static str,
    },
    /// Live retention deleted the envelope's PDFs; the record stays.
    ///
    /// Code `file_deleted`, kind [`ErrorKind::Gone`] (410).
    #[error(
        "The {kind} file of this envelope was deleted on {deleted_at} under the data retention \
         policy; the envelope and its events are kept."
    )]
    FileDeleted {
        /// The file kind asked for (`original`, `signed`, `audit_trail`, `archive`).
        kind: &'static str,
        /// When retention deleted the file.
        deleted_at: crate::clock::Timestamp,
    },
    /// The create would take the account past its storage quota. Nothing was written.
    ///
    /// Code `storage_quota_exceeded`, kind [`ErrorKind::QuotaExceeded`] (403).
    #[error(
        "This account stores {} of its {} storage quota and this request needs {} more; \
         nothing was created. Delete data or ask for a larger quota.",
        mib(*used_bytes), mib(*quota_bytes), mib(*needed_bytes)
    )]
    StorageQuotaExceeded {
        /// The account's storage quota, in bytes.
        quota_bytes: u64,
        /// What the account stores now, in bytes.
        used_bytes: u64,
        /// What the refused request would have added, in bytes.
        needed_bytes: u64,
    },
    /// A signing URL was asked for without `signer` while more than one signer can sign now.
    ///
    /// Code `signer_ambiguous`, kind [`ErrorKind::InvalidRequest`] (400); the param is `signer`.
    #[error("Several signers can sign now; name one with `signer`.")]
    SignerAmbiguous,
    /// `signer` names neither a role nor a signer ID of the envelope.
    ///
    /// Code `signer_not_found`, kind [`ErrorKind::InvalidRequest`] (400); the param is `signer`.
    #[error("No signer of this envelope has the role or ID '{signer}'.")]
    SignerNotFound {
        /// The role or signer ID as given.
        signer: String,
    },
    /// The named signer cannot act now: not their turn in the signing order, or they already
    /// signed or declined, or the envelope is no longer out for signature.
    ///
    /// Code `signer_not_actionable`, kind [`ErrorKind::Conflict`] (409).
    #[error("Signer {signer} cannot sign now: {reason}.")]
    SignerNotActionable {
        /// The signer's ID.
        signer: String,
        /// Why the signer cannot act, a phrase for the message (`it is not this signer's turn`).
        reason: &'static str,
    },
    /// The signer must enter their code first (extensions E2): the document, signing and
    /// declining are out of reach until then.
    ///
    /// Code `verification_required`, kind [`ErrorKind::Permission`] (403).
    #[error("Enter your code to verify your identity before you continue.")]
    VerificationRequired,
    /// A wrong code; after the last attempt the link locks.
    ///
    /// Code `incorrect_code`, kind [`ErrorKind::InvalidRequest`] (400); the param is `code`.
    #[error("{}", incorrect_code_message(*attempts_left))]
    IncorrectCode {
        /// How many more wrong codes the signer may enter before the link locks.
        attempts_left: u32,
    },
    /// Too many wrong codes: no code is checked before `until`, or, when `until` is `None`,
    /// before the sender unlocks the link or reassigns the signer (extensions E8).
    ///
    /// Code `verification_locked`, kind [`ErrorKind::RateLimited`] (429).
    #[error("Too many wrong codes. The link is locked until {}.", locked_until(*until))]
    VerificationLocked {
        /// When codes are checked again; `None` when only the sender can lift the lock.
        until: Option<crate::clock::Timestamp>,
    },
    /// No emailed code is valid now (none was sent yet, it expired, or it was used).
    ///
    /// Code `code_expired`, kind [`ErrorKind::InvalidRequest`] (400); the param is `code`.
    #[error("This code is no longer valid. Ask for a new code and enter it within 10 minutes.")]
    CodeExpired,
    /// A code email was asked for less than a minute after the previous one.
    ///
    /// Code `code_recently_sent`, kind [`ErrorKind::RateLimited`] (429).
    #[error(
        "A code was sent less than a minute ago. You can ask for a new one in {retry_after_secs} seconds."
    )]
    CodeRecentlySent {
        /// Seconds until a new code may be asked for.
        retry_after_secs: u64,
    },
    /// A signer asked for more code emails in 24 hours than the 10 a day allows (extensions
    /// E8).
    ///
    /// Code `code_daily_limit`, kind [`ErrorKind::RateLimited`] (429).
    #[error(
        "Too many codes were sent to this signer today. You can ask for a new one at {}.",
        hh_mm(*until)
    )]
    CodeDailyLimit {
        /// When a new code may be asked for.
        until: crate::clock::Timestamp,
    },
    /// The document has fields for a role that no signer of the request has.
    ///
    /// Code `missing_signer`, kind [`ErrorKind::InvalidRequest`] (400); the param is `signers`.
    #[error("The document has fields for role '{role}' but no signer has that role.")]
    MissingSigner {
        /// The role that has fields but no signer.
        role: String,
    },
    /// A signer would have no signature field: none is tagged or given for their role and no
    /// `signature_page` places one.
    ///
    /// Code `signer_without_fields`, kind [`ErrorKind::InvalidRequest`] (400); the param is
    /// `signers.<index>`.
    #[error(
        "Signer {index} ({role}) has no signature field; tag one, give one in `fields`, or set `signature_page`."
    )]
    SignerWithoutFields {
        /// The signer's position in `signers`, from 0.
        index: usize,
        /// The signer's role.
        role: String,
    },
    /// A webhook endpoint's `url` is not acceptable: not `https://` (unless insecure URLs are
    /// allowed), not a URL, or aimed at an address that is not public.
    ///
    /// Code `url_invalid`, kind [`ErrorKind::InvalidRequest`] (400).
    #[error("{message}")]
    UrlInvalid {
        /// The dotted path of the URL parameter.
        param: String,
        /// Why the URL was refused, for the caller.
        message: String,
    },
    /// A live envelope was sent when the account's signature allowance for the period is used up.
    ///
    /// Code `insufficient_balance`, kind [`ErrorKind::PaymentRequired`] (402).
    #[error("No live signatures are left in this period's allowance.")]
    InsufficientBalance,
    /// The API key made more requests than its rate limit allows in the current window.
    ///
    /// Code `rate_limited`, kind [`ErrorKind::RateLimited`] (429).
    #[error("Too many requests; retry after {retry_after_secs} seconds.")]
    RateLimited {
        /// Seconds until the window has room again (the `Retry-After` of the response).
        retry_after_secs: u64,
    },
    /// An `Idempotency-Key` was sent again with a request that differs from the first one it
    /// was used with.
    ///
    /// Code `idempotency_key_reused`, kind [`ErrorKind::Idempotency`] (422).
    #[error("This idempotency key was already used with a different request.")]
    IdempotencyKeyReused,
    /// An `Idempotency-Key` was sent again while the first request with it is still running.
    ///
    /// Code `idempotency_key_in_use`, kind [`ErrorKind::IdempotencyInFlight`] (409).
    #[error("A request with this idempotency key is still being processed.")]
    IdempotencyKeyInUse,
    /// An `Idempotency-Key` was sent again, its first request finished, and the response
    /// stored for it does not open under this server's key (the servers on one database do
    /// not share one key file, or the record was altered). Nothing was run again.
    ///
    /// Code `idempotency_key_unreadable`, kind [`ErrorKind::Idempotency`] (422).
    #[error(
        "The response stored for this idempotency key cannot be read by this server; the first \
         request finished and was not run again. Check whether it took effect before sending it \
         with a new idempotency key."
    )]
    IdempotencyRecordUnreadable,
    /// Every slot of the PDF pool stayed taken for as long as the request could wait. Nothing
    /// was changed; the same request can be sent again.
    ///
    /// Code `service_busy`, kind [`ErrorKind::Unavailable`] (503).
    #[error(
        "The service is busy with other documents; nothing was changed. Retry after {retry_after_secs} seconds."
    )]
    Busy {
        /// Seconds after which the request is worth sending again.
        retry_after_secs: u64,
    },
    /// A page of a signing link's document could not be drawn as a picture
    /// ([`crate::SigningService::signing_page_image`]): no renderer, or the page is beyond the
    /// renderer's time or memory. The document itself can still be opened as a PDF. The reason
    /// is for logs only.
    ///
    /// Code `page_not_drawable`, kind [`ErrorKind::Unprocessable`] (422).
    #[error("This page could not be shown as a picture; open the document as a PDF instead.")]
    PageNotDrawable {
        /// Why the page could not be drawn, for logs.
        reason: String,
    },
    /// One row of a bulk send (extensions E12) failed a check that `POST /v1/envelopes` would
    /// make: the row's error, with `param` naming the row (`rows[17].signers.Client.email`, or
    /// for CSV `rows[17].Client.email`). Nothing was created.
    ///
    /// Code, kind and message: the row's error's, the message led by the row (and CSV line).
    #[error("Row {row}{}: {source}", csv_line(*line))]
    BulkRow {
        /// The row's index, from 0, over the data rows.
        row: usize,
        /// The CSV line the row starts on (the header is line 1), for CSV rows.
        line: Option<u64>,
        /// The dotted path naming the row and what in it is at fault.
        param: String,
        /// The error the row's envelope would have got.
        source: Box<Error>,
    },
    /// A backend failed; the cause is for logs only.
    ///
    /// Code `internal_error`, kind [`ErrorKind::Internal`] (500); the message callers see never
    /// includes the cause ([`Error::public_message`]).
    #[error("a backend is unavailable")]
    Unavailable {
        /// The backend's own error.
        source: BoxError,
    },
    /// A broken invariant; the detail is for logs only.
    ///
    /// Code `internal_error`, kind [`ErrorKind::Internal`] (500).
    #[error("internal error: {0}")]
    Internal(String),
}

/// The category of an error, which decides the status a front end shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The caller is not authenticated: no valid API key (401).
    Authentication,
    /// The caller is authenticated but may not do this: a test-only operation with a live key, a
    /// signer who has not verified their code (403).
    Permission,
    /// The object does not exist for this caller (404).
    NotFound,
    /// The request is malformed or its parameters are invalid (400).
    InvalidRequest,
    /// The request is well-formed but its content is unusable (missing data).
    Unprocessable,
    /// A file is larger than the size limit (413).
    TooLarge,
    /// The object's state forbids the operation (409).
    Conflict,
    /// The account's allowance of live signatures is used up (402).
    PaymentRequired,
    /// Too many requests or attempts in a window; retry after the time the error gives (429).
    RateLimited,
    /// An idempotency key was reused with a different request (422).
    Idempotency,
    /// A request with the same idempotency key is still running; retry once it has finished (409).
    IdempotencyInFlight,
    /// The service cannot take the work now but will later (busy); retrying is safe.
    Unavailable,
    /// What was asked for existed and was deleted for good (retention).
    Gone,
    /// The account may not store more (its storage quota); the same request fails again until
    /// data is deleted or the quota raised.
    QuotaExceeded,
    /// A broken invariant or a failed backend; details are logged, never shown (500).
    Internal,
}

fn csv_line(line: Option<u64>) -> String {
    line.map(|l| format!(" (CSV line {l})")).unwrap_or_default()
}

fn incorrect_code_message(left: u32) -> String {
    let attempts = if left == 1 { "attempt" } else { "attempts" };
    format!("That code is not right. {left} {attempts} left before the link is locked.")
}

/// A time of day in UTC, for messages.
fn hh_mm(t: crate::clock::Timestamp) -> String {
    t.datetime().format("%H:%M UTC").to_string()
}

fn locked_until(t: Option<crate::clock::Timestamp>) -> String {
    t.map_or_else(|| "the sender unlocks it".to_string(), hh_mm)
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
            OutsideLinkScope { .. } => "outside_link_scope",
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
            EditConflict { .. } => "edit_conflict",
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
            CodeDailyLimit { .. } => "code_daily_limit",
            SignerWithoutFields { .. } => "signer_without_fields",
            UrlInvalid { .. } => "url_invalid",
            InsufficientBalance => "insufficient_balance",
            RateLimited { .. } => "rate_limited",
            IdempotencyKeyReused => "idempotency_key_reused",
            IdempotencyKeyInUse => "idempotency_key_in_use",
            IdempotencyRecordUnreadable => "idempotency_key_unreadable",
            Busy { .. } => "service_busy",
            PageNotDrawable { .. } => "page_not_drawable",
            BulkRow { source, .. } => source.code(),
            Unavailable { .. } | Internal(_) => "internal_error",
        }
    }

    /// The category of the error, which decides the status a front end shows (the HTTP server maps
    /// each kind to one status in one place).
    pub fn kind(&self) -> ErrorKind {
        use Error::*;
        match self {
            InvalidApiKey => ErrorKind::Authentication,
            TestModeOnly | OutsideLinkScope { .. } | VerificationRequired => ErrorKind::Permission,
            VerificationLocked { .. } | CodeRecentlySent { .. } | CodeDailyLimit { .. } => {
                ErrorKind::RateLimited
            }
            NotFound { .. } => ErrorKind::NotFound,
            MissingData { .. } | PageNotDrawable { .. } => ErrorKind::Unprocessable,
            FileTooLarge { .. } | DocumentsTooLarge { .. } => ErrorKind::TooLarge,
            EnvelopeCompleted
            | InvalidState { .. }
            | EditConflict { .. }
            | FileNotReady { .. }
            | SignerNotActionable { .. } => ErrorKind::Conflict,
            InsufficientBalance => ErrorKind::PaymentRequired,
            FileDeleted { .. } => ErrorKind::Gone,
            StorageQuotaExceeded { .. } => ErrorKind::QuotaExceeded,
            RateLimited { .. } => ErrorKind::RateLimited,
            IdempotencyKeyReused | IdempotencyRecordUnreadable => ErrorKind::Idempotency,
            IdempotencyKeyInUse => ErrorKind::IdempotencyInFlight,
            Busy { .. } => ErrorKind::Unavailable,
            BulkRow { source, .. } => source.kind(),
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
            | UrlInvalid { param, .. }
            | BulkRow { param, .. } => Some(param.clone()),
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

/// The result of every fallible call of the service, with [`Error`] as the default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;
