//! Errors of the real mailers. Messages never contain a password or a URL that could hold one.

use std::time::Duration;

/// Why a mailer could not be configured or could not send.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MailError {
    /// The SMTP URL's scheme is not `smtp` or `smtps`.
    #[error("SMTP URL scheme must be smtp or smtps, not \"{scheme}\"")]
    UnsupportedScheme { scheme: String },
    /// The SMTP URL could not be used; the URL itself is not repeated (it may hold secrets).
    #[error("invalid SMTP URL: {reason}")]
    InvalidUrl { reason: &'static str },
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
        address: String,
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
    Timeout { after: Duration },
    /// Writing a file failed.
    #[error("mail file: {0}")]
    Io(#[from] std::io::Error),
}
