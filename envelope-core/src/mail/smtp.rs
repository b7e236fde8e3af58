//! [`SmtpMailer`]: sends through an SMTP relay with lettre's pooled tokio transport.
//!
//! The URL says how to connect, explicitly; nothing is negotiated down:
//!
//! | URL | connection | default port |
//! |---|---|---|
//! | `smtp://host[:port]` | plain TCP, no TLS (local relays, test servers) | 25 |
//! | `smtp://host[:port]?tls=starttls` | STARTTLS, required: fails if the server does not offer it | 587 |
//! | `smtps://host[:port]` | TLS from the first byte (implicit TLS) | 465 |
//!
//! Credentials never come from the URL (it ends up in logs and shell history): the caller reads
//! them, typically with [`SmtpCredentials::from_env`], and they are redacted in `Debug`. They are
//! refused over a connection without TLS unless the host is this machine.

use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use lettre::message::Mailbox as LMailbox;
use lettre::transport::smtp::PoolConfig;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use tokio::sync::Semaphore;

use super::message::{build, mailbox};
use super::{Email, MailError, Mailbox, Mailer};
use crate::clock::{Clock, SystemClock};
use crate::error::BoxError;

/// How the connection is secured; chosen by the URL, see the module doc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Security {
    None,
    StartTls,
    Implicit,
}

/// A user name and password for SMTP AUTH. `Debug` shows neither.
#[derive(Clone)]
pub struct SmtpCredentials {
    username: String,
    password: String,
}

impl SmtpCredentials {
    /// The variable [`from_env`](Self::from_env) reads the user name from.
    pub const USERNAME_VAR: &'static str = "ENVELOPE_SMTP_USERNAME";
    /// The variable [`from_env`](Self::from_env) reads the password from.
    pub const PASSWORD_VAR: &'static str = "ENVELOPE_SMTP_PASSWORD";

    /// Credentials from a user name and a password given directly (not from the environment).
    pub fn new(username: impl Into<String>, password: impl Into<String>) -> Self {
        Self {
            username: username.into(),
            password: password.into(),
        }
    }

    /// Reads `ENVELOPE_SMTP_USERNAME` and `ENVELOPE_SMTP_PASSWORD`: `None` when neither is set
    /// (or both are empty), an error when only one is.
    pub fn from_env() -> Result<Option<Self>, MailError> {
        let get = |k| std::env::var(k).ok().filter(|v: &String| !v.is_empty());
        match (get(Self::USERNAME_VAR), get(Self::PASSWORD_VAR)) {
            (Some(u), Some(p)) => Ok(Some(Self::new(u, p))),
            (None, None) => Ok(None),
            _ => Err(MailError::IncompleteCredentials),
        }
    }
}

impl fmt::Debug for SmtpCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SmtpCredentials { <redacted> }")
    }
}

/// Settings of an [`SmtpMailer`], from [`SmtpMailer::builder`].
pub struct SmtpMailerBuilder {
    clock: Arc<dyn Clock>,
    host: String,
    port: u16,
    security: Security,
    credentials: Option<SmtpCredentials>,
    from: Mailbox,
    timeout: Duration,
    max_connections: u32,
}

impl fmt::Debug for SmtpMailerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpMailerBuilder")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("security", &self.security)
            .field("credentials", &self.credentials)
            .field("from", &self.from)
            .field("timeout", &self.timeout)
            .field("max_connections", &self.max_connections)
            .finish_non_exhaustive()
    }
}

impl SmtpMailerBuilder {
    /// The clock that dates messages (the service's); default [`SystemClock`].
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }
    /// Authenticate with these credentials (refused without TLS to a non-loopback host).
    pub fn credentials(mut self, credentials: SmtpCredentials) -> Self {
        self.credentials = Some(credentials);
        self
    }
    /// The `From` of every message; default [`Mailbox::default_from`].
    pub fn from(mut self, from: Mailbox) -> Self {
        self.from = from;
        self
    }
    /// The longest one send may take, connecting included; default 30 seconds. Also the
    /// timeout of each SMTP command.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
    /// The most connections open to the relay at once (sends beyond wait for one, within their
    /// timeout); default 10.
    pub fn max_connections(mut self, n: u32) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// Checks the settings; connects only when the first email is sent.
    ///
    /// Must run inside a Tokio runtime: the connection pool starts its cleanup task here.
    pub fn build(self) -> Result<SmtpMailer, MailError> {
        if self.credentials.is_some() && self.security == Security::None && !is_loopback(&self.host)
        {
            return Err(MailError::CredentialsWithoutTls);
        }
        let from = mailbox(&self.from)?;
        let tls = match self.security {
            Security::None => Tls::None,
            Security::StartTls => Tls::Required(TlsParameters::new(self.host.clone())?),
            Security::Implicit => Tls::Wrapper(TlsParameters::new(self.host.clone())?),
        };
        let mut b = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(self.host.clone())
            .port(self.port)
            .tls(tls)
            .timeout(Some(self.timeout))
            .pool_config(PoolConfig::new().max_size(self.max_connections));
        if let Some(c) = self.credentials {
            b = b.credentials(Credentials::new(c.username, c.password));
        }
        Ok(SmtpMailer {
            transport: b.build(),
            permits: Arc::new(Semaphore::new(self.max_connections as usize)),
            clock: self.clock,
            from,
            timeout: self.timeout,
            host: self.host,
            port: self.port,
            security: self.security,
        })
    }
}

/// Sends emails through an SMTP relay; see the module doc for the URL forms.
///
/// Cheap to share (`Arc<dyn Mailer>`): connections are pooled and reused across sends.
pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    /// lettre's pool caps only the connections it keeps idle; a burst would open one connection
    /// per send, and relays limit concurrent connections. One permit per allowed connection.
    permits: Arc<Semaphore>,
    clock: Arc<dyn Clock>,
    from: LMailbox,
    timeout: Duration,
    host: String,
    port: u16,
    security: Security,
}

impl fmt::Debug for SmtpMailer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpMailer")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("security", &self.security)
            .field("from", &self.from.to_string())
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl SmtpMailer {
    /// Parses `url` (see the module doc); settings start at their defaults.
    pub fn builder(url: &str) -> Result<SmtpMailerBuilder, MailError> {
        let (host, port, security) = parse_url(url)?;
        Ok(SmtpMailerBuilder {
            clock: Arc::new(SystemClock),
            host,
            port,
            security,
            credentials: None,
            from: Mailbox::default_from(),
            timeout: Duration::from_secs(30),
            max_connections: 10,
        })
    }

    /// The common case in one call: `from` defaults to [`Mailbox::default_from`]. Must run
    /// inside a Tokio runtime (see [`SmtpMailerBuilder::build`]).
    pub fn from_url(
        url: &str,
        credentials: Option<SmtpCredentials>,
        from: Option<Mailbox>,
    ) -> Result<Self, MailError> {
        let mut b = Self::builder(url)?;
        if let Some(c) = credentials {
            b = b.credentials(c);
        }
        if let Some(f) = from {
            b = b.from(f);
        }
        b.build()
    }

    /// Connects, greets and authenticates once, to report a bad configuration at start-up
    /// rather than at the first email.
    pub async fn test_connection(&self) -> Result<(), MailError> {
        match tokio::time::timeout(self.timeout, self.transport.test_connection()).await {
            Err(_) => Err(MailError::Timeout {
                after: self.timeout,
            }),
            Ok(Ok(true)) => Ok(()),
            Ok(Ok(false)) => Err(MailError::InvalidUrl {
                reason: "the server did not answer NOOP",
            }),
            Ok(Err(e)) => Err(e.into()),
        }
    }

    async fn send_message(&self, email: &Email) -> Result<(), MailError> {
        let message = build(email, &self.from, self.clock.now())?;
        let send = async {
            let _permit = self
                .permits
                .acquire()
                .await
                .expect("the semaphore is never closed");
            self.transport.send(message).await
        };
        match tokio::time::timeout(self.timeout, send).await {
            Err(_) => Err(MailError::Timeout {
                after: self.timeout,
            }),
            Ok(r) => r.map(|_| ()).map_err(MailError::from),
        }
    }
}

#[async_trait]
impl Mailer for SmtpMailer {
    async fn send(&self, email: &Email) -> Result<(), BoxError> {
        Ok(self.send_message(email).await?)
    }
}

fn parse_url(raw: &str) -> Result<(String, u16, Security), MailError> {
    let url = url::Url::parse(raw.trim()).map_err(|_| MailError::InvalidUrl {
        reason: "not a URL",
    })?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(MailError::CredentialsInUrl);
    }
    let (mut security, default_port) = match url.scheme() {
        "smtp" => (Security::None, 25),
        "smtps" => (Security::Implicit, 465),
        other => {
            return Err(MailError::UnsupportedScheme {
                scheme: other.into(),
            });
        }
    };
    let host = url
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or(MailError::InvalidUrl { reason: "no host" })?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    if !matches!(url.path(), "" | "/") || url.fragment().is_some() {
        return Err(MailError::InvalidUrl {
            reason: "a path or fragment is not allowed",
        });
    }
    let mut port = None;
    for (k, v) in url.query_pairs() {
        match (k.as_ref(), v.as_ref(), security) {
            ("tls", "starttls", Security::None) => {
                security = Security::StartTls;
                port = Some(587);
            }
            ("tls", "none", Security::None) => {}
            ("tls", _, _) => {
                return Err(MailError::InvalidUrl {
                    reason: "tls must be starttls or none, and only with smtp://",
                });
            }
            _ => {
                return Err(MailError::InvalidUrl {
                    reason: "unknown query parameter (only tls is known)",
                });
            }
        }
    }
    let port = url.port().or(port).unwrap_or(default_port);
    Ok((host, port, security))
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_say_how_to_connect() {
        let ok = [
            ("smtp://127.0.0.1:2525", "127.0.0.1", 2525, Security::None),
            (
                "smtp://mail.example.com",
                "mail.example.com",
                25,
                Security::None,
            ),
            (
                "smtp://mail.example.com?tls=none",
                "mail.example.com",
                25,
                Security::None,
            ),
            (
                "smtp://mail.example.com?tls=starttls",
                "mail.example.com",
                587,
                Security::StartTls,
            ),
            (
                "smtp://mail.example.com:2587/?tls=starttls",
                "mail.example.com",
                2587,
                Security::StartTls,
            ),
            (
                "smtps://mail.example.com",
                "mail.example.com",
                465,
                Security::Implicit,
            ),
            (
                "smtps://mail.example.com:1465",
                "mail.example.com",
                1465,
                Security::Implicit,
            ),
            ("smtp://[::1]:2525", "::1", 2525, Security::None),
        ];
        for (url, host, port, security) in ok {
            assert_eq!(
                parse_url(url).unwrap(),
                (host.to_owned(), port, security),
                "{url}"
            );
        }
        let bad = [
            "http://mail.example.com",
            "mail.example.com:25",
            "smtp://user:secret@mail.example.com",
            "smtp://mail.example.com?tls=yes",
            "smtps://mail.example.com?tls=starttls",
            "smtp://mail.example.com?auth=plain",
            "smtp://mail.example.com/inbox",
        ];
        for url in bad {
            let e = parse_url(url).unwrap_err();
            assert!(!e.to_string().contains("secret"), "{e}");
        }
        assert!(matches!(
            parse_url("smtp://user:secret@mail.example.com"),
            Err(MailError::CredentialsInUrl)
        ));
    }

    #[tokio::test]
    async fn credentials_need_tls_except_on_loopback() {
        let creds = || SmtpCredentials::new("user", "hunter2");
        let built = |url: &str| SmtpMailer::from_url(url, Some(creds()), None);
        assert!(matches!(
            built("smtp://mail.example.com"),
            Err(MailError::CredentialsWithoutTls)
        ));
        for url in [
            "smtp://127.0.0.1:2525",
            "smtp://localhost:2525",
            "smtp://mail.example.com?tls=starttls",
            "smtps://mail.example.com",
        ] {
            built(url).unwrap();
        }
    }

    #[tokio::test]
    async fn secrets_stay_out_of_debug() {
        let creds = SmtpCredentials::new("apikey-user", "hunter2");
        assert!(!format!("{creds:?}").contains("hunter2"));
        assert!(!format!("{creds:?}").contains("apikey-user"));
        let b = SmtpMailer::builder("smtps://mail.example.com")
            .unwrap()
            .credentials(creds);
        assert!(!format!("{b:?}").contains("hunter2"));
        let m = b.build().unwrap();
        let dbg = format!("{m:?}");
        assert!(
            !dbg.contains("hunter2") && dbg.contains("mail.example.com"),
            "{dbg}"
        );
    }

    #[tokio::test]
    async fn a_bad_sender_is_refused_at_construction() {
        let from = Mailbox {
            name: "X".into(),
            email: "not an address".into(),
        };
        assert!(matches!(
            SmtpMailer::from_url("smtp://127.0.0.1:25", None, Some(from)),
            Err(MailError::InvalidAddress { .. })
        ));
    }
}
