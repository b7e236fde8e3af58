//! Why a webhook attempt failed, in words that are safe to show the endpoint's owner.
//!
//! An attempt's `error` is shown to the customer (`GET /v1/events/{id}/deliveries`, the admin
//! CLI). It names a category only, never what the server's resolver answered, an internal
//! address, or a library's message: a customer who points an endpoint at a name of their
//! choosing must learn nothing of the server's network from the answer. The detail goes to the
//! operator's log instead (the HTTP sink logs it).

/// The category of an attempt that got no acceptable answer. Its `Display` is the text stored
/// and shown (`private address refused`, `timeout`, `HTTP status 503`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DeliveryFailure {
    /// The URL's host is, or resolves to, an address that is not public (SSRF guard).
    #[error("private address refused")]
    PrivateAddress,
    /// The URL is no longer acceptable (an `http://` URL once development mode is off).
    #[error("URL refused")]
    UrlRefused,
    /// The host name did not resolve.
    #[error("DNS lookup failed")]
    Dns,
    /// No answer within the attempt's time (connecting included).
    #[error("timeout")]
    Timeout,
    /// The receiver's host refused the connection.
    #[error("connection refused")]
    ConnectionRefused,
    /// The connection could not be made or was lost (reset, unreachable network).
    #[error("connection failed")]
    Connection,
    /// The TLS handshake failed (certificate, protocol, or not TLS at all).
    #[error("TLS error")]
    Tls,
    /// The receiver's answer was not valid HTTP.
    #[error("invalid HTTP answer")]
    Protocol,
    /// The receiver answered with a status that is not 2xx.
    #[error("HTTP status {0}")]
    Status(u16),
}

impl DeliveryFailure {
    /// The category of a transport error: a [`DeliveryFailure`] anywhere in its chain is taken
    /// as it is; otherwise the chain's I/O errors say which; anything else is
    /// [`DeliveryFailure::Connection`]. The HTTP client's own errors (timeouts, unreadable
    /// answers) are read in `http.rs`, the one file that names the HTTP stack.
    pub fn of(error: &(dyn std::error::Error + 'static)) -> DeliveryFailure {
        let mut found = None;
        let mut next = Some(error);
        while let Some(e) = next {
            if let Some(f) = e.downcast_ref::<DeliveryFailure>() {
                return *f;
            }
            if let Some(io) = e.downcast_ref::<std::io::Error>() {
                // An I/O error may wrap another error, which `source` skips: look inside.
                if let Some(inner) = io.get_ref()
                    && let Some(f) = inner.downcast_ref::<DeliveryFailure>()
                {
                    return *f;
                }
                found = found.or(io_category(io));
            }
            next = e.source();
        }
        found.unwrap_or(DeliveryFailure::Connection)
    }
}

/// The category of an I/O error, when its kind says one. A TLS library reports a handshake
/// that fails on what the peer sent as `InvalidData` (a TCP connect never does).
fn io_category(io: &std::io::Error) -> Option<DeliveryFailure> {
    use std::io::ErrorKind as K;
    match io.kind() {
        K::ConnectionRefused => Some(DeliveryFailure::ConnectionRefused),
        K::TimedOut => Some(DeliveryFailure::Timeout),
        K::InvalidData => Some(DeliveryFailure::Tls),
        K::ConnectionReset
        | K::ConnectionAborted
        | K::NotConnected
        | K::BrokenPipe
        | K::UnexpectedEof
        | K::HostUnreachable
        | K::NetworkUnreachable
        | K::NetworkDown
        | K::AddrNotAvailable => Some(DeliveryFailure::Connection),
        _ => match io.get_ref() {
            // `io::Error::other(inner)`: the inner error's own kind, if it is an I/O error.
            Some(inner) => inner.downcast_ref::<std::io::Error>().and_then(io_category),
            None => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error as IoError, ErrorKind};

    #[derive(Debug, thiserror::Error)]
    #[error("outer: {0}")]
    struct Outer(#[source] Box<dyn std::error::Error + Send + Sync>);

    #[test]
    fn each_category_has_its_words() {
        let cases = [
            (DeliveryFailure::PrivateAddress, "private address refused"),
            (DeliveryFailure::UrlRefused, "URL refused"),
            (DeliveryFailure::Dns, "DNS lookup failed"),
            (DeliveryFailure::Timeout, "timeout"),
            (DeliveryFailure::ConnectionRefused, "connection refused"),
            (DeliveryFailure::Connection, "connection failed"),
            (DeliveryFailure::Tls, "TLS error"),
            (DeliveryFailure::Protocol, "invalid HTTP answer"),
            (DeliveryFailure::Status(503), "HTTP status 503"),
        ];
        for (failure, words) in cases {
            assert_eq!(failure.to_string(), words);
        }
    }

    #[test]
    fn errors_are_sorted_into_categories_whatever_they_say() {
        let secret = "resolves to the non-public address 10.20.30.40";
        let cases: Vec<(Box<dyn std::error::Error + Send + Sync>, DeliveryFailure)> = vec![
            (
                Box::new(DeliveryFailure::PrivateAddress),
                DeliveryFailure::PrivateAddress,
            ),
            (
                Box::new(Outer(Box::new(DeliveryFailure::Dns))),
                DeliveryFailure::Dns,
            ),
            // Inside an I/O error (which `source` would skip).
            (
                Box::new(Outer(Box::new(IoError::other(
                    DeliveryFailure::PrivateAddress,
                )))),
                DeliveryFailure::PrivateAddress,
            ),
            (
                Box::new(IoError::new(ErrorKind::ConnectionRefused, secret)),
                DeliveryFailure::ConnectionRefused,
            ),
            (
                Box::new(Outer(Box::new(IoError::new(ErrorKind::TimedOut, secret)))),
                DeliveryFailure::Timeout,
            ),
            (
                Box::new(IoError::new(ErrorKind::ConnectionReset, secret)),
                DeliveryFailure::Connection,
            ),
            (
                Box::new(IoError::new(ErrorKind::HostUnreachable, secret)),
                DeliveryFailure::Connection,
            ),
            // A TLS handshake's failure, as hyper-rustls wraps it.
            (
                Box::new(IoError::other(IoError::new(ErrorKind::InvalidData, secret))),
                DeliveryFailure::Tls,
            ),
            // Anything else is a failed connection, never its message.
            (
                Box::new(IoError::other(secret)),
                DeliveryFailure::Connection,
            ),
            (secret.into(), DeliveryFailure::Connection),
        ];
        for (error, want) in cases {
            let got = DeliveryFailure::of(error.as_ref());
            assert_eq!(got, want, "{error}");
            assert!(!got.to_string().contains("10.20"), "{got}");
        }
    }
}
