//! Errors of the real mailers. Messages never contain a password or a URL that could hold one.

use std::time::Duration;

/// Why a mailer could not be configured or could not send.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MailError {
    /// The SMTP URL's scheme is not `smtp` or `smtps`.
    #[error("SMTP URL scheme must be smtp or smtps, not \"{scheme}\"")]
    UnsupportedScheme {
        /// The scheme the URL has.
        scheme: String,
    },
    /// The SMTP URL could not be used; the URL itself is not repeated (it may hold secrets).
    #[error("invalid SMTP URL: {reason}")]
    InvalidUrl {
        /// What is wrong with the URL, in words that never quote it.
        reason: &'static str,
    },
    /// Credentials belong in the environment, not in a URL that ends up in logs and shell history.
    #[error(
        "the SMTP URL must not contain a user name or password; set ENVELOPE_SMTP_USERNAME and ENVELOPE_SMTP_PASSWORD"
    )]
    CredentialsInUrl,
    /// Only one of the two credential variables is set.
    #[error("set both ENVELOPE_SMTP_USERNAME and ENVELOPE_SMTP_PASSWORD, or neither")]
    IncompleteCredentials,
    /// Credentials would travel in clear text to a host other than this machine.
    #[error(
        "refusing to send SMTP credentials without TLS to a non-loopback host; use smtps:// or ?tls=starttls"
    )]
    CredentialsWithoutTls,
    /// An address (sender or recipient) is not a valid email address.
    #[error("invalid email address \"{address}\"")]
    InvalidAddress {
        /// The address as given.
        address: String,
        /// Why the address was refused.
        #[source]
        source: lettre::address::AddressError,
    },
    /// lettre could not build the message.
    #[error("could not build the message")]
    Build(#[from] lettre::error::Error),
    /// The SMTP exchange failed (connection, TLS, authentication, or a refusal by the server).
    #[error("SMTP: {0}")]
    Smtp(#[from] lettre::transport::smtp::Error),
    /// The whole send took longer than the configured timeout.
    #[error("SMTP send timed out after {} ms", after.as_millis())]
    Timeout {
        /// The configured timeout that ran out.
        after: Duration,
    },
    /// Writing a file failed.
    #[error("mail file: {0}")]
    Io(#[from] std::io::Error),
}

impl MailError {
    /// What went wrong in plain words for the API (`last_error` of an email), and whether a
    /// retry cannot help. Never the server's own text (it may quote the message or the address).
    ///
    /// Permanent: an address that is not valid, and the mail server's refusals about the message
    /// or its recipient (5.5.x replies such as 550 "mailbox unavailable"). Every other failure is
    /// retried, including a refusal of the relay itself (530 or 535 authentication): the operator
    /// can fix those before the retry schedule runs out.
    pub fn describe(&self) -> (String, bool) {
        use lettre::transport::smtp::response::{Category, Severity};
        match self {
            MailError::InvalidAddress { .. } => ("the email address is not valid".into(), true),
            MailError::Smtp(e) => match e.status() {
                Some(code) if code.severity == Severity::PermanentNegativeCompletion => {
                    let recipient = code.category == Category::MailSystem;
                    let words = if recipient {
                        "the mail server refused the message for good"
                    } else {
                        "the mail server refused the message"
                    };
                    (format!("{words} (SMTP {code})"), recipient)
                }
                Some(code) => (
                    format!("the mail server deferred the message (SMTP {code})"),
                    false,
                ),
                None if e.is_timeout() => ("the mail server did not answer in time".into(), false),
                None if e.is_tls() => {
                    ("the TLS connection to the mail server failed".into(), false)
                }
                None => ("the mail server could not be reached".into(), false),
            },
            MailError::Timeout { .. } => ("the mail server did not answer in time".into(), false),
            MailError::Io(_) => ("the email file could not be written".into(), false),
            _ => ("the mailer could not send the message".into(), false),
        }
    }
}
