//! The options of `serve` (also the default command) and their conversion into the library's
//! [`ServeOptions`]: one flag, one field; the defaults of the library stay the library's.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use envelope_core::error::BoxError;
use envelope_core::model::SealLevel;
use envelope_core::webhook::RetrySchedule;

use super::{StoreArgs, parse_duration};
use crate::serve::{DailyLimit, RetentionDays, ServeOptions, serve};
use crate::signing::{Secret, SigningOptions};
use crate::signing_page::FrameAncestors;
use crate::{ClientIpHeader, ConnectionLimits, TrustedProxies};

#[derive(Debug, Clone, Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "ENVELOPE_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    #[command(flatten)]
    pub(crate) store: StoreArgs,
    /// Public base URL of the server (download links, {base_url}); default http://<listen>.
    #[arg(long, env = "ENVELOPE_PUBLIC_URL")]
    public_url: Option<String>,
    /// Directory holding Noto Sans CJK (NotoSansCJK-Regular.ttc and -Bold.ttc, or the
    /// NotoSansCJKsc-*.otf files), repeatable; default: the system's font directories
    /// (docs/FONTS.md).
    #[arg(long, env = "ENVELOPE_FONT_DIR", value_delimiter = ':')]
    font_dir: Vec<PathBuf>,
    /// Base URL of signing links; default: --public-url.
    #[arg(long, env = "ENVELOPE_SIGNING_HOST")]
    signing_host: Option<String>,
    /// DEVELOPMENT ONLY: allow http:// and private/loopback webhook URLs.
    #[arg(long, env = "ENVELOPE_ALLOW_INSECURE_WEBHOOKS")]
    allow_insecure_webhooks: bool,
    /// Requests per API key per minute.
    #[arg(long, env = "ENVELOPE_RATE_LIMIT", default_value_t = 600)]
    rate_limit: u32,
    /// Delays between webhook retries (units s, m, h, d).
    #[arg(
        long,
        env = "ENVELOPE_WEBHOOK_RETRY_SCHEDULE",
        default_value = "1m,5m,30m,2h,6h,12h,24h,24h"
    )]
    webhook_retry_schedule: RetrySchedule,
    /// Delays between email retries (units s, m, h, d); when used up, the email is `failed`
    /// (signers[].last_email, event envelope.email_failed).
    #[arg(
        long,
        env = "ENVELOPE_EMAIL_RETRY_SCHEDULE",
        default_value = "1m,5m,15m,1h,2h,4h,8h,12h"
    )]
    email_retry_schedule: RetrySchedule,
    /// SMTP server for emails: smtp://host:port, smtp://host:port?tls=starttls or smtps://host:port.
    /// Credentials come from ENVELOPE_SMTP_USERNAME and ENVELOPE_SMTP_PASSWORD. Without it, emails
    /// are written as .eml files into <data-dir>/mail.
    #[arg(long, env = "ENVELOPE_SMTP_URL")]
    smtp_url: Option<String>,
    /// Sender of emails, as `Name <address>` or an address.
    #[arg(long, env = "ENVELOPE_MAIL_FROM")]
    mail_from: Option<String>,
    /// Sites that may frame the signing pages (embedded signing), space-separated CSP sources:
    /// "https://app.example.com https://*.example.org". Default 'none': no site may.
    #[arg(long, env = "ENVELOPE_FRAME_ANCESTORS", default_value = "'none'", value_parser = FrameAncestors::parse)]
    frame_ancestors: FrameAncestors,
    /// Private key that seals signed PDFs (PAdES): a PEM file (PKCS#8 or SEC1, ECDSA P-256), the
    /// PEM itself, or a PKCS#12 .p12/.pfx file with its chain (then without --signing-cert). With --signing-cert; without both, a self-signed development certificate
    /// is generated into <data-dir>/signing.
    #[arg(long, env = "ENVELOPE_SIGNING_KEY", hide_env_values = true)]
    signing_key: Option<Secret>,
    /// Certificate chain of the sealing key (PEM file or PEM text; leaf and intermediates).
    #[arg(long, env = "ENVELOPE_SIGNING_CERT")]
    signing_cert: Option<String>,
    /// Password of an encrypted PKCS#8 key (environment only).
    #[arg(skip)]
    signing_key_password: Option<Secret>,
    /// RFC 3161 timestamp authority URL: seals then carry a signature timestamp (PAdES B-T and
    /// up; the default level becomes b-lta).
    #[arg(long, env = "ENVELOPE_TSA_URL")]
    tsa_url: Option<String>,
    /// PAdES level of the signed copies and audit trails: b-b, b-t, b-lt (with the certificates
    /// and OCSP/CRL answers in the file) or b-lta (with a document timestamp over them).
    /// Default b-lta with --tsa-url, else b-b; b-t and up need --tsa-url.
    #[arg(long, env = "ENVELOPE_PADES_LEVEL", value_parser = parse_pades_level)]
    pades_level: Option<SealLevel>,
    /// Delays between attempts to add what a seal missed (a timestamp authority or OCSP
    /// responder that was down), counted from completion (units s, m, h, d).
    #[arg(
        long,
        env = "ENVELOPE_SEAL_RETRY_SCHEDULE",
        default_value = "1m,5m,30m,2h,6h,24h"
    )]
    seal_retry_schedule: RetrySchedule,
    /// Private key that seals test-mode documents, in the same forms as --signing-key; never
    /// the live key (refused). With --test-signing-cert; without both, a self-signed test-mode
    /// certificate is generated into <data-dir>/signing/test-mode. Password of an encrypted
    /// key: ENVELOPE_TEST_SIGNING_KEY_PASSWORD (environment only).
    #[arg(long, env = "ENVELOPE_TEST_SIGNING_KEY", hide_env_values = true)]
    test_signing_key: Option<Secret>,
    /// Certificate chain of the test-mode key (PEM file or PEM text).
    #[arg(long, env = "ENVELOPE_TEST_SIGNING_CERT")]
    test_signing_cert: Option<String>,
    #[command(flatten)]
    connections: ConnectionArgs,
    /// PDF inspections and stampings at once (the PDF pool); default one per core, at least 2.
    /// A request that finds every slot busy for 2 s is answered 503 service_busy.
    #[arg(long, env = "ENVELOPE_PDF_WORKERS", value_parser = clap::value_parser!(u32).range(1..))]
    pdf_workers: Option<u32>,
    /// Directory where upload bodies are written while they arrive (files 0600, unlinked as
    /// they are made, so nothing outlives its request); default <data-dir>/spool.
    #[arg(long, env = "ENVELOPE_UPLOAD_SPOOL_DIR")]
    upload_spool_dir: Option<std::path::PathBuf>,
    /// Disk that upload bodies may hold in the spool at once, in MiB; one account at most half.
    /// Default sixty of the largest JSON uploads (about 2 GiB). Past it an upload waits
    /// --upload-wait for room, then gets 503 service_busy with Retry-After.
    #[arg(long, env = "ENVELOPE_MAX_UPLOAD_SPOOL_MIB", value_parser = clap::value_parser!(u32).range(1..))]
    max_upload_spool_mib: Option<u32>,
    /// How long an upload waits for room in the spool, and again for its turn to be read and
    /// inspected (as many at once as --pdf-workers, in turns by account), before it gets 503
    /// service_busy with Retry-After.
    #[arg(long, env = "ENVELOPE_UPLOAD_WAIT", default_value = "30s", value_parser = parse_duration)]
    upload_wait: Duration,
    /// Accepted and ignored, with a warning: uploads are spooled to disk since issue 31, so
    /// memory no longer needs a budget of its own (`--max-upload-spool-mib` bounds the disk).
    /// Kept so that a deployment that still sets it starts.
    #[arg(long, env = "ENVELOPE_MAX_UPLOAD_MEMORY_MIB", hide = true)]
    max_upload_memory_mib: Option<u32>,
    /// Reverse proxies whose --client-ip-header names the client: CIDR[,CIDR...] such as
    /// "10.0.0.0/8,127.0.0.1". The client is the rightmost address of that header that is not
    /// one of them. Without it every forwarding header is ignored.
    #[arg(long, env = "ENVELOPE_TRUSTED_PROXIES", value_parser = TrustedProxies::parse)]
    trusted_proxies: Option<TrustedProxies>,
    /// The one header that names the client, read only from --trusted-proxies:
    /// x-forwarded-for, forwarded (RFC 7239), x-real-ip or any header name your proxy sets.
    /// Every other forwarding header is ignored, whatever it says.
    #[arg(long, env = "ENVELOPE_CLIENT_IP_HEADER", default_value = "x-forwarded-for", value_parser = ClientIpHeader::parse)]
    client_ip_header: ClientIpHeader,
    /// Address of the Prometheus metrics endpoint (`GET /metrics`), such as 127.0.0.1:9100;
    /// never on the API's port. Without it no metrics are kept.
    #[arg(long, env = "ENVELOPE_METRICS_LISTEN")]
    metrics_listen: Option<SocketAddr>,
    /// Test-mode envelopes and templates, with their files, are deleted this many days after
    /// their last change: 1 to 36500, or off.
    #[arg(long, env = "ENVELOPE_TEST_RETENTION_DAYS", default_value = "30", value_parser = RetentionDays::parse)]
    test_retention_days: RetentionDays,
    /// The PDFs of completed and voided live envelopes are deleted this many days after their
    /// last change (the records and events stay; downloads answer 410 file_deleted): 1 to
    /// 36500, or off.
    #[arg(long, env = "ENVELOPE_LIVE_RETENTION_DAYS", default_value = "off", value_parser = RetentionDays::parse)]
    live_retention_days: RetentionDays,
    /// Emails an account may send per UTC day in test mode (signing requests, reminders, codes,
    /// copies, notices), unless `accounts set-email-limit` gave it its own: a number, or
    /// unlimited. Emails past it are not sent: they end failed with reason email_limit.
    #[arg(long, env = "ENVELOPE_TEST_EMAIL_DAILY_LIMIT", default_value = "100", value_parser = DailyLimit::parse)]
    test_email_daily_limit: DailyLimit,
    /// The same in live mode.
    #[arg(long, env = "ENVELOPE_LIVE_EMAIL_DAILY_LIMIT", default_value = "unlimited", value_parser = DailyLimit::parse)]
    live_email_daily_limit: DailyLimit,
    /// With --blob-url s3://...: answer downloads of originals and audit trails with a 302 to
    /// a presigned URL of the bucket (valid 5 minutes) instead of sending the bytes; signed
    /// copies and archives are still sent by the server. Clients must follow redirects.
    #[arg(long, env = "ENVELOPE_BLOB_PRESIGNED_DOWNLOADS")]
    blob_presigned_downloads: bool,
}

/// Connection caps and timeouts (docs/HTTP.md). Durations take a unit: ms, s or m.
#[derive(Debug, Clone, Args)]
pub(crate) struct ConnectionArgs {
    /// Open connections at most; past it new connections are answered 503 at once.
    #[arg(long, env = "ENVELOPE_MAX_CONNECTIONS", default_value = "1024", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
    /// Open connections per client address (IPv6: per /64). Behind a reverse proxy every
    /// client shares the proxy's address: set it to --max-connections there.
    #[arg(long, env = "ENVELOPE_MAX_CONNECTIONS_PER_ADDRESS", default_value = "64", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections_per_address: u32,
    /// How long a new connection may stay silent before its first byte.
    #[arg(long, env = "ENVELOPE_FIRST_BYTE_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    first_byte_timeout: Duration,
    /// How long a request head may take from its first byte; also the keep-alive idle limit
    /// of HTTP/1.
    #[arg(long, env = "ENVELOPE_HEADER_READ_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    header_read_timeout: Duration,
    /// How long an HTTP/2 connection may stay without open streams.
    #[arg(long, env = "ENVELOPE_HTTP2_IDLE_TIMEOUT", default_value = "30s", value_parser = parse_duration)]
    http2_idle_timeout: Duration,
    /// How long SIGINT/SIGTERM waits for requests in flight before closing their connections.
    #[arg(long, env = "ENVELOPE_SHUTDOWN_GRACE", default_value = "3s", value_parser = parse_duration)]
    shutdown_grace: Duration,
}

impl ConnectionArgs {
    fn limits(&self) -> ConnectionLimits {
        ConnectionLimits {
            max_connections: self.max_connections as usize,
            max_connections_per_address: self.max_connections_per_address as usize,
            first_byte_timeout: self.first_byte_timeout,
            header_read_timeout: self.header_read_timeout,
            http2_idle_timeout: self.http2_idle_timeout,
            shutdown_grace: self.shutdown_grace,
        }
    }
}

impl ServeArgs {
    /// Serves until shutdown.
    pub(crate) async fn run(self) -> Result<(), BoxError> {
        serve(self.options()).await
    }

    /// The library's options; the signing keys' passwords come from the environment only.
    fn options(self) -> ServeOptions {
        if self.max_upload_memory_mib.is_some() {
            tracing::warn!(
                "--max-upload-memory-mib (ENVELOPE_MAX_UPLOAD_MEMORY_MIB) is ignored: uploads are \
                 spooled to disk; --max-upload-spool-mib bounds them"
            );
        }
        ServeOptions {
            listen: self.listen,
            store: self.store.options(),
            public_url: self.public_url,
            signing_host: self.signing_host,
            allow_insecure_webhooks: self.allow_insecure_webhooks,
            rate_limit_per_minute: self.rate_limit,
            webhook_retry_schedule: self.webhook_retry_schedule,
            email_retry_schedule: self.email_retry_schedule,
            seal_retry_schedule: self.seal_retry_schedule,
            smtp_url: self.smtp_url,
            mail_from: self.mail_from,
            frame_ancestors: self.frame_ancestors,
            signing: SigningOptions {
                key: self.signing_key,
                cert: self.signing_cert,
                key_password: self.signing_key_password.or_else(|| {
                    std::env::var("ENVELOPE_SIGNING_KEY_PASSWORD")
                        .ok()
                        .map(Secret::new)
                }),
                tsa_url: self.tsa_url,
                pades_level: self.pades_level,
                test_key: self.test_signing_key,
                test_cert: self.test_signing_cert,
                test_key_password: std::env::var("ENVELOPE_TEST_SIGNING_KEY_PASSWORD")
                    .ok()
                    .map(Secret::new),
            },
            connections: self.connections.limits(),
            pdf_workers: self.pdf_workers.map(|n| n as usize),
            upload_spool_dir: self.upload_spool_dir,
            max_upload_spool: self.max_upload_spool_mib.map(|m| m as usize * 1024 * 1024),
            upload_wait: Some(self.upload_wait),
            trusted_proxies: self
                .trusted_proxies
                .unwrap_or_default()
                .reading(self.client_ip_header),
            metrics_listen: self.metrics_listen,
            test_retention_days: self.test_retention_days,
            live_retention_days: self.live_retention_days,
            test_email_daily_limit: self.test_email_daily_limit,
            live_email_daily_limit: self.live_email_daily_limit,
            blob_presigned_downloads: self.blob_presigned_downloads,
            font_dirs: self.font_dir,
        }
    }
}

fn parse_pades_level(s: &str) -> Result<SealLevel, String> {
    s.parse()
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::Cli;

    /// The budgets' defaults are the library's; `unlimited` and numbers parse, nothing else.
    #[test]
    fn email_limit_options() {
        let cli = Cli::try_parse_from(["envelope-server"]).unwrap();
        let lib = envelope_core::service::EmailDailyLimits::default();
        assert_eq!(cli.serve.test_email_daily_limit, DailyLimit(lib.test));
        assert_eq!(cli.serve.live_email_daily_limit, DailyLimit(lib.live));
        assert_eq!(lib.test, Some(100));
        let cli = Cli::try_parse_from([
            "envelope-server",
            "--test-email-daily-limit",
            "unlimited",
            "--live-email-daily-limit",
            "5000",
        ])
        .unwrap();
        assert_eq!(cli.serve.test_email_daily_limit, DailyLimit(None));
        assert_eq!(cli.serve.live_email_daily_limit, DailyLimit(Some(5000)));
        for bad in ["-1", "lots", "", "1.5"] {
            let e = Cli::try_parse_from(["envelope-server", "--test-email-daily-limit", bad]);
            assert!(e.is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn connection_defaults_match_the_library() {
        let cli = Cli::try_parse_from(["envelope-server"]).unwrap();
        assert_eq!(cli.serve.connections.limits(), ConnectionLimits::default());
    }

    /// Without the option every download is sent by the server, as before it existed.
    #[test]
    fn presigned_downloads_are_off_by_default() {
        let cli = Cli::try_parse_from(["envelope-server"]).unwrap();
        assert!(!cli.serve.blob_presigned_downloads);
        let cli = Cli::try_parse_from([
            "envelope-server",
            "--blob-url",
            "s3://pdfs/x",
            "--blob-presigned-downloads",
        ])
        .unwrap();
        assert!(cli.serve.blob_presigned_downloads);
    }

    #[test]
    fn retention_options() {
        let cli = Cli::try_parse_from(["envelope-server"]).unwrap();
        assert_eq!(cli.serve.test_retention_days, RetentionDays(Some(30)));
        assert_eq!(cli.serve.live_retention_days, RetentionDays(None));
        let cli = Cli::try_parse_from([
            "envelope-server",
            "--test-retention-days",
            "off",
            "--live-retention-days",
            "365",
        ])
        .unwrap();
        assert_eq!(cli.serve.test_retention_days, RetentionDays(None));
        assert_eq!(cli.serve.live_retention_days, RetentionDays(Some(365)));
        for bad in ["0", "-1", "36501", "30d", "", "never"] {
            let e = Cli::try_parse_from(["envelope-server", "--test-retention-days", bad]);
            assert!(e.is_err(), "{bad:?} is accepted");
        }
    }
}
