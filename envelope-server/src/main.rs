//! `envelope-server`: parses the command line and hands over to the library.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use envelope_core::Mode;
use envelope_core::webhook::RetrySchedule;
use envelope_server::admin::{AdminCommand, run_admin};
use envelope_server::blobs::copy_to_bucket;
use envelope_server::health::{EXIT_STORE_FAILED, StoreFailed};
use envelope_server::serve::{DailyLimit, RetentionDays, ServeOptions, build_service, serve};
use envelope_server::signing::{Secret, SigningOptions};
use envelope_server::signing_page::FrameAncestors;
use envelope_server::store::StoreOptions;
use envelope_server::{ClientIpHeader, ConnectionLimits, TrustedProxies};

/// jemalloc rather than glibc's malloc: every request makes and frees many small allocations,
/// which jemalloc serves faster from its per-thread caches, while its peaks under concurrent
/// uploads stay at glibc's or below and streamed downloads stay bounded (mimalloc was faster but
/// held more memory). Figures: docs/PERFORMANCE.md, "jemalloc". The load bench sets the same.
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The version `--version` prints: the crate's and the git commit it was built from.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("ENVELOPE_GIT_COMMIT"),
    ")"
);

/// The Envelope Signing Service: HTTP server and admin commands.
#[derive(Debug, Parser)]
#[command(version = VERSION, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// How log lines are written to stderr: `text` for people, `json` for a log pipeline (one
    /// object per line: timestamp, level, target, message and the event's fields, such as a
    /// request's request_id, method, path, status and duration_ms).
    #[arg(long, global = true, env = "ENVELOPE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// Options of `serve`, the default command.
    #[command(flatten)]
    serve: ServeArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the HTTP API (the default).
    Serve(Box<ServeArgs>),
    /// Manage accounts.
    Accounts {
        #[command(flatten)]
        store: StoreArgs,
        #[command(subcommand)]
        command: AccountsCommand,
    },
    /// Manage API keys.
    Keys {
        #[command(flatten)]
        store: StoreArgs,
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// Webhook endpoint operations.
    Webhooks {
        #[command(flatten)]
        store: StoreArgs,
        #[command(subcommand)]
        command: WebhooksCommand,
    },
    /// PDFs kept by the store: copy those of the database into an S3 bucket.
    Blobs {
        #[command(flatten)]
        store: StoreArgs,
        #[command(subcommand)]
        command: BlobsCommand,
    },
    /// The page renderer's worker (started by the server itself, one per page drawn): caps its
    /// own CPU time and memory, reads a PDF on standard input and writes the PNG of `page` to
    /// standard output (docs/SIGNING.md, "Pages as pictures").
    #[command(hide = true)]
    RenderPage {
        page: u32,
        cpu_seconds: u64,
        memory_bytes: u64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

/// Logs to stderr at the level `ENVELOPE_LOG` sets (default `info`), in `format`.
fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("ENVELOPE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => logs
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .init(),
        LogFormat::Json => logs
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .init(),
    }
}

#[derive(Debug, Clone, Args)]
struct StoreArgs {
    /// Directory of the data.
    #[arg(
        long,
        global = true,
        env = "ENVELOPE_DATA_DIR",
        default_value = "./envelope-data"
    )]
    data_dir: PathBuf,
    /// Database URL (sqlite://... or postgres://...); default: a store under --data-dir.
    #[arg(long, global = true, env = "ENVELOPE_DATABASE_URL")]
    database_url: Option<String>,
    /// Where PDFs live: s3://bucket/prefix (an S3-compatible bucket; credentials, region and
    /// endpoint from the AWS_* variables); default: in the database.
    #[arg(long, global = true, env = "ENVELOPE_BLOB_URL")]
    blob_url: Option<String>,
    /// Key file of stored idempotency responses and webhook secrets (AES-256-GCM), created on
    /// first start; default <data-dir>/idempotency.key. Servers that share one database must use
    /// the same key: a start with another key than the database's is refused.
    #[arg(long, global = true, env = "ENVELOPE_IDEMPOTENCY_KEY_FILE")]
    idempotency_key_file: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "ENVELOPE_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    #[command(flatten)]
    store: StoreArgs,
    /// Public base URL of the server (download links, {base_url}); default http://<listen>.
    #[arg(long, env = "ENVELOPE_PUBLIC_URL")]
    public_url: Option<String>,
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
    /// RFC 3161 timestamp authority URL: seals then carry a signature timestamp (PAdES B-T).
    #[arg(long, env = "ENVELOPE_TSA_URL")]
    tsa_url: Option<String>,
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
    /// Memory that upload bodies may hold at once, in MiB; default five of the largest JSON
    /// uploads (about 180 MiB). An upload waits up to 10 s for room, then gets 503.
    #[arg(long, env = "ENVELOPE_MAX_UPLOAD_MEMORY_MIB", value_parser = clap::value_parser!(u32).range(1..))]
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
struct ConnectionArgs {
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

/// `250ms`, `10s`, `2m`: a whole number with a unit, from 1 ms to 1 hour.
fn parse_duration(s: &str) -> Result<Duration, String> {
    let err = || format!("'{s}' is not a duration like 500ms, 10s or 2m (at most 1 hour)");
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).ok_or_else(err)?;
    let (num, unit) = s.split_at(split);
    let n: u64 = num.parse().map_err(|_| err())?;
    let d = match unit {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n.checked_mul(60).ok_or_else(err)?),
        _ => return Err(err()),
    };
    if d.is_zero() || d > Duration::from_secs(3600) {
        return Err(err());
    }
    Ok(d)
}

#[derive(Debug, Subcommand)]
enum AccountsCommand {
    /// Create an account; prints its test and live keys once.
    Create {
        #[arg(long, env = "ENVELOPE_ACCOUNT_NAME")]
        name: String,
    },
    /// List accounts.
    List,
    /// Set an account's live allowance per month.
    SetAllowance {
        #[arg(long, env = "ENVELOPE_ACCOUNT")]
        account: String,
        #[arg(long, env = "ENVELOPE_ALLOWANCE")]
        allowance: u32,
    },
    /// Set the storage quota of an account (MiB of PDFs its test and live records may hold), or
    /// remove it with --clear. Creates past it answer 403 storage_quota_exceeded.
    SetQuota {
        #[arg(long, env = "ENVELOPE_ACCOUNT")]
        account: String,
        #[arg(
            long,
            env = "ENVELOPE_STORAGE_MIB",
            required_unless_present = "clear",
            conflicts_with = "clear",
            value_parser = clap::value_parser!(u64).range(0..=MAX_QUOTA_MIB)
        )]
        storage_mib: Option<u64>,
        /// No quota: the account may store any amount.
        #[arg(long)]
        clear: bool,
    },
    /// Set how many emails an account may send per UTC day in one mode, or return it to the
    /// server's default (--test-email-daily-limit, --live-email-daily-limit) with --clear.
    SetEmailLimit {
        #[arg(long, env = "ENVELOPE_ACCOUNT")]
        account: String,
        #[arg(long, env = "ENVELOPE_KEY_MODE", value_enum)]
        mode: ModeArg,
        /// Emails per day (0 sends none).
        #[arg(long, required_unless_present = "clear", conflicts_with = "clear")]
        daily: Option<u32>,
        /// Back to the server's default.
        #[arg(long)]
        clear: bool,
    },
}

/// The largest quota in MiB whose bytes fit the store's 64-bit counters.
const MAX_QUOTA_MIB: u64 = (i64::MAX as u64) >> 20;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ModeArg {
    Test,
    Live,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Test => Mode::Test,
            ModeArg::Live => Mode::Live,
        }
    }
}

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Create a key; prints it once.
    Create {
        #[arg(long, env = "ENVELOPE_ACCOUNT")]
        account: String,
        #[arg(long, env = "ENVELOPE_KEY_MODE", value_enum)]
        mode: ModeArg,
    },
    /// List an account's keys (prefixes only).
    List {
        #[arg(long, env = "ENVELOPE_ACCOUNT")]
        account: String,
    },
    /// Revoke a key: running servers refuse it within 1 s (docs/API.md, "Revoking keys").
    Revoke {
        #[arg(long, env = "ENVELOPE_ACCOUNT")]
        account: String,
        #[arg(long, env = "ENVELOPE_KEY")]
        key: String,
    },
}

#[derive(Debug, Subcommand)]
enum WebhooksCommand {
    /// Print the signing secret of an endpoint.
    RevealSecret {
        #[arg(long, env = "ENVELOPE_ENDPOINT")]
        endpoint: String,
    },
    /// Give an endpoint a new secret; the old one keeps signing for 24 hours.
    RotateSecret {
        #[arg(long, env = "ENVELOPE_ENDPOINT")]
        endpoint: String,
    },
    /// Show the deliveries of an event and their attempts.
    Deliveries {
        #[arg(long, env = "ENVELOPE_EVENT")]
        event: String,
    },
    /// Deliver an event again, to one endpoint or to every subscribed one.
    Resend {
        #[arg(long, env = "ENVELOPE_EVENT")]
        event: String,
        #[arg(long, env = "ENVELOPE_ENDPOINT")]
        endpoint: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
enum BlobsCommand {
    /// Copy every PDF of the database (its `blobs` table) into an S3-compatible bucket, for a
    /// move to --blob-url: credentials, region and endpoint from the AWS_* variables. Blobs
    /// the bucket already holds with the same size are skipped, so running it again resumes
    /// a copy cut short; nothing is deleted. Then start the server with --blob-url <same URL>.
    Copy {
        /// The bucket and prefix: s3://bucket/prefix.
        #[arg(long)]
        to: String,
    },
}

impl StoreArgs {
    fn options(&self) -> StoreOptions {
        StoreOptions {
            data_dir: self.data_dir.clone(),
            database_url: self.database_url.clone(),
            blob_url: self.blob_url.clone(),
            idempotency_key_file: self.idempotency_key_file.clone(),
        }
    }
}

/// How long the runtime waits, once `main`'s work is done, for blocking tasks (a PDF
/// inspection has no await point at which it could be stopped).
const BLOCKING_TASKS_LIMIT: Duration = Duration::from_millis(500);

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(Command::RenderPage {
        page,
        cpu_seconds,
        memory_bytes,
    }) = cli.command
    {
        // No runtime and no logging: the worker reads, draws and writes, under its limits.
        return envelope_core::render::run_worker(envelope_core::render::WorkerRequest {
            page,
            cpu_seconds,
            memory_bytes,
        });
    }
    init_logging(cli.log_format);
    // Built by hand rather than with `#[tokio::main]`: dropping a runtime waits for every
    // blocking task without limit, and SIGTERM must end the process whatever PDF work runs.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(run_command(cli));
    runtime.shutdown_timeout(BLOCKING_TASKS_LIMIT);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            exit_code(&*e)
        }
    }
}

/// A store that failed for good exits with its own status, so that supervisors and operators
/// can tell it from a bad configuration (docs/OPERATIONS.md).
fn exit_code(e: &(dyn std::error::Error + 'static)) -> ExitCode {
    if e.downcast_ref::<StoreFailed>().is_some() {
        ExitCode::from(EXIT_STORE_FAILED)
    } else {
        ExitCode::FAILURE
    }
}

async fn run_command(cli: Cli) -> Result<(), envelope_core::error::BoxError> {
    match cli.command {
        None => run_serve(cli.serve).await,
        Some(Command::Serve(args)) => run_serve(*args).await,
        // Run by `main` before the runtime starts.
        Some(Command::RenderPage { .. }) => Ok(()),
        Some(Command::Accounts { store, command }) => {
            let cmd = match command {
                AccountsCommand::Create { name } => AdminCommand::CreateAccount { name },
                AccountsCommand::List => AdminCommand::ListAccounts,
                AccountsCommand::SetAllowance { account, allowance } => {
                    AdminCommand::SetAllowance { account, allowance }
                }
                AccountsCommand::SetQuota {
                    account,
                    storage_mib,
                    clear: _,
                } => AdminCommand::SetStorageQuota {
                    account,
                    bytes: storage_mib.map(|m| m << 20),
                },
                AccountsCommand::SetEmailLimit {
                    account,
                    mode,
                    daily,
                    clear: _,
                } => AdminCommand::SetEmailLimit {
                    account,
                    mode: mode.into(),
                    daily,
                },
            };
            run_admin_command(store, cmd).await
        }
        Some(Command::Keys { store, command }) => {
            let cmd = match command {
                KeysCommand::Create { account, mode } => AdminCommand::CreateKey {
                    account,
                    mode: mode.into(),
                },
                KeysCommand::List { account } => AdminCommand::ListKeys { account },
                KeysCommand::Revoke { account, key } => AdminCommand::RevokeKey { account, key },
            };
            run_admin_command(store, cmd).await
        }
        Some(Command::Blobs { store, command }) => match command {
            BlobsCommand::Copy { to } => {
                copy_to_bucket(&store.options(), &to, &mut std::io::stdout().lock()).await?;
                Ok(())
            }
        },
        Some(Command::Webhooks { store, command }) => {
            let cmd = match command {
                WebhooksCommand::RevealSecret { endpoint } => {
                    AdminCommand::RevealWebhookSecret { endpoint }
                }
                WebhooksCommand::RotateSecret { endpoint } => {
                    AdminCommand::RotateWebhookSecret { endpoint }
                }
                WebhooksCommand::Deliveries { event } => AdminCommand::EventDeliveries { event },
                WebhooksCommand::Resend { event, endpoint } => {
                    AdminCommand::ResendEvent { event, endpoint }
                }
            };
            run_admin_command(store, cmd).await
        }
    }
}

async fn run_serve(args: ServeArgs) -> Result<(), envelope_core::error::BoxError> {
    serve(ServeOptions {
        listen: args.listen,
        store: args.store.options(),
        public_url: args.public_url,
        signing_host: args.signing_host,
        allow_insecure_webhooks: args.allow_insecure_webhooks,
        rate_limit_per_minute: args.rate_limit,
        webhook_retry_schedule: args.webhook_retry_schedule,
        email_retry_schedule: args.email_retry_schedule,
        smtp_url: args.smtp_url,
        mail_from: args.mail_from,
        frame_ancestors: args.frame_ancestors,
        signing: SigningOptions {
            key: args.signing_key,
            cert: args.signing_cert,
            key_password: args.signing_key_password.or_else(|| {
                std::env::var("ENVELOPE_SIGNING_KEY_PASSWORD")
                    .ok()
                    .map(Secret::new)
            }),
            tsa_url: args.tsa_url,
            test_key: args.test_signing_key,
            test_cert: args.test_signing_cert,
            test_key_password: std::env::var("ENVELOPE_TEST_SIGNING_KEY_PASSWORD")
                .ok()
                .map(Secret::new),
        },
        connections: args.connections.limits(),
        pdf_workers: args.pdf_workers.map(|n| n as usize),
        max_upload_memory: args.max_upload_memory_mib.map(|m| m as usize * 1024 * 1024),
        trusted_proxies: args
            .trusted_proxies
            .unwrap_or_default()
            .reading(args.client_ip_header),
        metrics_listen: args.metrics_listen,
        test_retention_days: args.test_retention_days,
        live_retention_days: args.live_retention_days,
        test_email_daily_limit: args.test_email_daily_limit,
        live_email_daily_limit: args.live_email_daily_limit,
        blob_presigned_downloads: args.blob_presigned_downloads,
    })
    .await
}

async fn run_admin_command(
    store: StoreArgs,
    cmd: AdminCommand,
) -> Result<(), envelope_core::error::BoxError> {
    let svc = build_service(&store.options(), Default::default()).await?;
    run_admin(&svc, cmd, &mut std::io::stdout().lock()).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_store_has_its_own_exit_status() {
        let failed: envelope_core::error::BoxError = StoreFailed("fsync failed".into()).into();
        assert_eq!(exit_code(&*failed), ExitCode::from(74));
        let other: envelope_core::error::BoxError = "cannot bind".into();
        assert_eq!(exit_code(&*other), ExitCode::FAILURE);
    }

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
        let set = |args: &[&str]| {
            let mut all = vec!["envelope-server", "accounts", "set-email-limit"];
            all.extend_from_slice(args);
            Cli::try_parse_from(all)
        };
        assert!(set(&["--account", "acct_1", "--mode", "test", "--daily", "10"]).is_ok());
        assert!(set(&["--account", "acct_1", "--mode", "live", "--clear"]).is_ok());
        assert!(
            set(&["--account", "acct_1", "--mode", "test"]).is_err(),
            "needs one"
        );
        assert!(
            set(&[
                "--account",
                "acct_1",
                "--mode",
                "test",
                "--daily",
                "1",
                "--clear"
            ])
            .is_err(),
            "not both"
        );
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
        let cli = Cli::try_parse_from([
            "envelope-server",
            "blobs",
            "--data-dir",
            "/tmp/d",
            "copy",
            "--to",
            "s3://pdfs/x",
        ])
        .unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Blobs {
                command: BlobsCommand::Copy { ref to },
                ..
            }) if to == "s3://pdfs/x"
        ));
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

    #[test]
    fn store_options_go_anywhere_on_the_line() {
        let data_dir = |args: &[&str]| -> PathBuf {
            let mut all = vec!["envelope-server"];
            all.extend_from_slice(args);
            match Cli::try_parse_from(all).unwrap_or_else(|e| panic!("{args:?}: {e}")) {
                Cli {
                    command: Some(Command::Accounts { store, .. }),
                    ..
                } => store.data_dir,
                Cli {
                    command: Some(Command::Serve(serve)),
                    ..
                } => serve.store.data_dir,
                Cli {
                    command: None,
                    serve,
                    ..
                } => serve.store.data_dir,
                other => panic!("{other:?}"),
            }
        };
        let d = PathBuf::from("/srv/envelope");
        assert_eq!(
            data_dir(&[
                "accounts",
                "create",
                "--name",
                "X",
                "--data-dir",
                "/srv/envelope"
            ]),
            d
        );
        assert_eq!(
            data_dir(&[
                "accounts",
                "--data-dir",
                "/srv/envelope",
                "create",
                "--name",
                "X"
            ]),
            d
        );
        assert_eq!(
            data_dir(&["accounts", "list", "--data-dir", "/srv/envelope"]),
            d
        );
        assert_eq!(data_dir(&["serve", "--data-dir", "/srv/envelope"]), d);
        assert_eq!(data_dir(&["--data-dir", "/srv/envelope"]), d);
        assert_eq!(
            data_dir(&["accounts", "list"]),
            PathBuf::from("./envelope-data")
        );
    }

    #[test]
    fn log_format_and_version() {
        let cli = Cli::try_parse_from(["envelope-server"]).unwrap();
        assert_eq!(cli.log_format, LogFormat::Text);
        let cli = Cli::try_parse_from([
            "envelope-server",
            "accounts",
            "list",
            "--log-format",
            "json",
        ])
        .unwrap();
        assert_eq!(cli.log_format, LogFormat::Json);
        assert!(Cli::try_parse_from(["envelope-server", "--log-format", "xml"]).is_err());
        let v = Cli::try_parse_from(["envelope-server", "--version"]).unwrap_err();
        assert_eq!(v.kind(), clap::error::ErrorKind::DisplayVersion);
        let text = v.to_string();
        assert!(
            text.contains(env!("CARGO_PKG_VERSION")) && text.contains("(commit "),
            "{text}"
        );
    }

    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn set_quota_takes_mib_or_clear() {
        let parse = |args: &[&str]| {
            let mut all = vec![
                "envelope-server",
                "accounts",
                "set-quota",
                "--account",
                "acct_1",
            ];
            all.extend_from_slice(args);
            Cli::try_parse_from(all)
        };
        let Ok(Cli {
            command:
                Some(Command::Accounts {
                    command: AccountsCommand::SetQuota { storage_mib, .. },
                    ..
                }),
            ..
        }) = parse(&["--storage-mib", "500"])
        else {
            panic!("set-quota --storage-mib 500 does not parse");
        };
        assert_eq!(storage_mib, Some(500));
        assert!(parse(&["--clear"]).is_ok());
        assert!(parse(&[]).is_err(), "one of the two is needed");
        assert!(parse(&["--clear", "--storage-mib", "1"]).is_err());
        assert!(parse(&["--storage-mib", "-1"]).is_err());
    }

    #[test]
    fn durations() {
        let ok = [
            ("250ms", Duration::from_millis(250)),
            ("10s", Duration::from_secs(10)),
            ("2m", Duration::from_secs(120)),
            ("60m", Duration::from_secs(3600)),
        ];
        for (text, d) in ok {
            assert_eq!(parse_duration(text), Ok(d), "{text}");
        }
        for bad in [
            "",
            "10",
            "s",
            "0s",
            "61m",
            "1h",
            "-1s",
            "1.5s",
            "99999999999999999999s",
        ] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.contains("is not a duration"), "{bad}: {e}");
        }
    }
}
