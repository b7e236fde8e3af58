//! `envelope-server serve`: open the store, build the service, print the first keys, serve
//! until SIGINT or SIGTERM.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use std::sync::Arc;

use envelope_core::error::BoxError;
use envelope_core::mail::{FileMailer, Mailbox, Mailer, SmtpCredentials, SmtpMailer};
use envelope_core::render::ProcessRenderer;
use envelope_core::service::{Retention, WorkerSettings};
use envelope_core::webhook::{RetrySchedule, UrlRules, WebhookSink};
use envelope_core::{Settings, SigningService};

use crate::app::{App, ConnectionLimits};
use crate::client_addr::TrustedProxies;
use crate::health::{
    EXIT_STORE_FAILED, FAILURE_EXIT_DELAY, Stopped, StoreFailed, run_until_store_fails,
};
use crate::signing::{SigningOptions, load_sealers};
use crate::signing_page::{FrameAncestors, PageSecret, PageSettings};
use crate::store::{StoreOptions, open_store};
use envelope_core::webhook::HttpSink;

/// Options of `serve` (the command line fills them).
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The API's address.
    pub listen: SocketAddr,
    /// Where the data is: the database, the PDFs, the idempotency key.
    pub store: StoreOptions,
    /// Base of download links and of `{base_url}`; `None` means `http://<listen>`.
    pub public_url: Option<String>,
    /// Base of signing links; `None` means `public_url`.
    pub signing_host: Option<String>,
    /// Development only: accept `http://` and loopback webhook URLs.
    pub allow_insecure_webhooks: bool,
    /// Requests per API key per minute.
    pub rate_limit_per_minute: u32,
    /// Delays between webhook retries (`--webhook-retry-schedule`).
    pub webhook_retry_schedule: RetrySchedule,
    /// Delays between email retries (`--email-retry-schedule`).
    pub email_retry_schedule: RetrySchedule,
    /// Delays between attempts to upgrade seals below their level (`--seal-retry-schedule`).
    pub seal_retry_schedule: RetrySchedule,
    /// SMTP URL; `None` writes emails as `.eml` files into `<data_dir>/mail`.
    pub smtp_url: Option<String>,
    /// Sender of emails, as `Name <address>` or an address; `None`: the mailer's default.
    pub mail_from: Option<String>,
    /// Who may frame the signing pages (CSP `frame-ancestors`).
    pub frame_ancestors: FrameAncestors,
    /// Keys and certificates of the PAdES seals, live and test mode; none means development
    /// certificates.
    pub signing: SigningOptions,
    /// Connection caps, connection timeouts and the shutdown grace period.
    pub connections: ConnectionLimits,
    /// Slots of the PDF pool; `None` is the core's default (one per core, at least 2).
    pub pdf_workers: Option<usize>,
    /// Where upload bodies are spooled while they arrive; `None` is `<data_dir>/spool`.
    pub upload_spool_dir: Option<std::path::PathBuf>,
    /// Disk spooled upload bodies may hold at once; `None` is `HttpLimits`' default.
    pub max_upload_spool: Option<usize>,
    /// How long an upload waits for spool room or its turn; `None` is `HttpLimits`' default.
    pub upload_wait: Option<Duration>,
    /// Reverse proxies trusted to name the client (`--trusted-proxies`), and the one header they
    /// name it in (`--client-ip-header`).
    pub trusted_proxies: TrustedProxies,
    /// Where `GET /metrics` is served (`--metrics-listen`); `None`: no metrics.
    pub metrics_listen: Option<SocketAddr>,
    /// Days test data is kept after its last change (`--test-retention-days`).
    pub test_retention_days: RetentionDays,
    /// Days the PDFs of finished live envelopes are kept (`--live-retention-days`).
    pub live_retention_days: RetentionDays,
    /// Emails per account and day in test mode, unless the account has its own
    /// (`--test-email-daily-limit`).
    pub test_email_daily_limit: DailyLimit,
    /// The same in live mode (`--live-email-daily-limit`).
    pub live_email_daily_limit: DailyLimit,
    /// Downloads of originals and audit trails answered with `302` to a presigned URL of the
    /// `s3://` bucket (`--blob-presigned-downloads`); refused at start without one.
    pub blob_presigned_downloads: bool,
    /// Directories to look for Noto Sans CJK in (docs/FONTS.md); empty: the system's font
    /// directories (`envelope_core::fonts::SYSTEM_FONT_DIRS`).
    pub font_dirs: Vec<PathBuf>,
}

/// The upload spool directory, created owner-only, with what a crash left in it removed
/// (`body/spool.rs`).
fn upload_spool_dir(opts: &ServeOptions) -> Result<std::path::PathBuf, BoxError> {
    let dir = opts
        .upload_spool_dir
        .clone()
        .unwrap_or_else(|| opts.store.data_dir.join("spool"));
    envelope_core::private_files::create_dir_all(&dir)
        .map_err(|e| format!("cannot create the upload spool {}: {e}", dir.display()))?;
    let removed = crate::body::Uploads::sweep(&dir)
        .map_err(|e| format!("cannot sweep the upload spool {}: {e}", dir.display()))?;
    tracing::info!(dir = %dir.display(), removed, "upload spool ready");
    Ok(dir)
}

/// How long a presigned download URL works: long enough for a client to follow the redirect
/// on a slow network, short enough that a leaked URL is soon useless.
pub const PRESIGNED_DOWNLOAD_TTL: std::time::Duration = std::time::Duration::from_secs(5 * 60);

/// A retention period: a whole number of days (1 to 36 500), or `off` to keep data for ever.
/// `0` is refused rather than read as "delete at once" or "off": a typo must not delete data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetentionDays(pub Option<u32>);

impl RetentionDays {
    /// Reads a number of days or `off`; the error is the message for the command line.
    pub fn parse(s: &str) -> Result<RetentionDays, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("off") {
            return Ok(RetentionDays(None));
        }
        match s.parse::<u32>() {
            Ok(d @ 1..=36_500) => Ok(RetentionDays(Some(d))),
            _ => Err(format!(
                "'{s}' is not a retention period: give a number of days from 1 to 36500, or off"
            )),
        }
    }
}

impl std::fmt::Display for RetentionDays {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(d) => write!(f, "{d}"),
            None => f.write_str("off"),
        }
    }
}

/// A daily email budget: a whole number of emails (0 sends none), or `unlimited`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DailyLimit(pub Option<u32>);

impl DailyLimit {
    /// Reads a number of emails or `unlimited`; the error is the message for the command line.
    pub fn parse(s: &str) -> Result<DailyLimit, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("unlimited") {
            return Ok(DailyLimit(None));
        }
        s.parse::<u32>().map(|n| DailyLimit(Some(n))).map_err(|_| {
            format!("'{s}' is not a daily email limit: give a number of emails, or unlimited")
        })
    }
}

impl std::fmt::Display for DailyLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(n) => write!(f, "{n}"),
            None => f.write_str("unlimited"),
        }
    }
}

/// Builds the service that the admin commands run on (they send no email and no webhook).
pub async fn build_service(
    store: &StoreOptions,
    settings: Settings,
) -> Result<SigningService, BoxError> {
    let opened = open_store(store).await?;
    // Admin commands complete no envelope: nothing to seal, so no identity to make.
    let svc = SigningService::builder()
        .store(opened.store)
        .blobs(opened.blobs)
        .response_key(opened.response_key)
        .settings(settings)
        .unsealed()
        .build();
    Ok(svc)
}

/// The mailer of `serve`: SMTP when configured, otherwise `.eml` files in the data dir, so that
/// nothing is silently dropped.
fn mailer(opts: &ServeOptions) -> Result<Arc<dyn Mailer>, BoxError> {
    let from = match &opts.mail_from {
        Some(f) => Some(parse_mailbox(f)?),
        None => None,
    };
    Ok(match &opts.smtp_url {
        Some(url) => {
            let mailer = SmtpMailer::from_url(url, SmtpCredentials::from_env()?, from)?;
            tracing::info!("emails go out through SMTP");
            Arc::new(mailer)
        }
        None => {
            let dir = opts.store.data_dir.join("mail");
            let mut mailer = FileMailer::new(&dir)?;
            if let Some(from) = from {
                mailer = mailer.with_from(from)?;
            }
            tracing::info!(dir = %dir.display(), "no --smtp-url: emails are written as .eml files");
            Arc::new(mailer)
        }
    })
}

/// `Name <address>` or a bare address.
fn parse_mailbox(s: &str) -> Result<Mailbox, BoxError> {
    let s = s.trim();
    let (name, email) = match (s.find('<'), s.ends_with('>')) {
        (Some(i), true) => (
            s[..i].trim().trim_matches('"').to_string(),
            s[i + 1..s.len() - 1].trim().to_string(),
        ),
        _ => (String::new(), s.to_string()),
    };
    if !email.contains('@') || email.contains(char::is_whitespace) {
        return Err(format!("--mail-from is not an email address: {s}").into());
    }
    Ok(Mailbox { name, email })
}

/// `http://<listen address>`, with 127.0.0.1 for an unspecified address (`0.0.0.0`).
/// Loads the stamping fonts before the first request (docs/FONTS.md) and says what was found: a
/// font directory that does not exist is a configuration error; a machine without Noto Sans CJK
/// serves, with a warning that CJK characters will be refused.
fn load_fonts(dirs: &[PathBuf]) -> Result<(), BoxError> {
    if let Some(missing) = dirs.iter().find(|d| !d.is_dir()) {
        return Err(format!("--font-dir {}: not a directory", missing.display()).into());
    }
    if !dirs.is_empty() {
        envelope_core::fonts::use_font_dirs(dirs.to_vec());
    }
    let loaded = envelope_core::fonts::load();
    match &loaded.cjk_file {
        Some(file) => tracing::info!(
            faces = loaded.faces.len(),
            cjk = %file.display(),
            "fonts loaded; Noto Sans CJK is read when a CJK character first needs it"
        ),
        None => tracing::warn!(
            faces = loaded.faces.len(),
            "Noto Sans CJK not found (install fonts-noto-cjk, or give --font-dir): Chinese, \
             Japanese and Korean characters in values will be refused"
        ),
    }
    Ok(())
}

fn default_public_url(listen: SocketAddr) -> String {
    let mut addr = listen;
    if addr.ip().is_unspecified() {
        addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
    }
    format!("http://{addr}")
}

/// Runs the server until a shutdown signal.
pub async fn serve(opts: ServeOptions) -> Result<(), BoxError> {
    load_fonts(&opts.font_dirs)?;
    let public_url = opts
        .public_url
        .clone()
        .unwrap_or_else(|| default_public_url(opts.listen));
    let mut settings = Settings {
        public_url: public_url.trim_end_matches('/').to_string(),
        signing_host: opts.signing_host.clone(),
        allow_insecure_webhook_urls: opts.allow_insecure_webhooks,
        rate_limit_per_minute: opts.rate_limit_per_minute,
        retention: Retention {
            test_days: opts.test_retention_days.0,
            live_days: opts.live_retention_days.0,
            ..Retention::default()
        },
        ..Settings::default()
    };
    settings.email.retry_schedule = opts.email_retry_schedule.clone();
    settings.seal.level = Some(opts.signing.pades_level()?);
    settings.seal.retry_schedule = opts.seal_retry_schedule.clone();
    settings.email.daily_limit = envelope_core::service::EmailDailyLimits {
        test: opts.test_email_daily_limit.0,
        live: opts.live_email_daily_limit.0,
    };
    if let Some(n) = opts.pdf_workers {
        settings.pdf_pool.capacity = n.max(1);
    }
    if opts.allow_insecure_webhooks {
        tracing::warn!(
            "INSECURE: --allow-insecure-webhooks is on; webhooks may go to http:// and private \
             addresses. Never use this outside local development."
        );
    }
    let signing_base = settings.signing_base();
    if signing_base.starts_with("http://")
        && !crate::signing_page::verify::loopback_http(signing_base)
    {
        tracing::warn!(
            signing_host = %signing_base,
            "the signing host is plain http:// on a host other than localhost: signing links, \
             access codes and the code step's cookie cross the network in the clear (the cookie \
             is not Secure there, or browsers would refuse it). Serve signing pages over https:// \
             (--signing-host) outside local development."
        );
    }
    let presigned = opts
        .blob_presigned_downloads
        .then_some(PRESIGNED_DOWNLOAD_TTL);
    if presigned.is_some()
        && !opts
            .store
            .blob_url
            .as_deref()
            .is_some_and(|u| u.starts_with("s3://"))
    {
        return Err(
            "--blob-presigned-downloads needs --blob-url s3://...: only a bucket serves them"
                .into(),
        );
    }
    let opened = open_store(&opts.store).await?;
    let rules = UrlRules {
        allow_insecure: opts.allow_insecure_webhooks,
    };
    let sink: Arc<dyn WebhookSink> = Arc::new(HttpSink::new(rules, &settings.service_name));
    let sealers = load_sealers(&opts.signing, &opts.store.data_dir, &settings.service_name)?;
    let svc = SigningService::builder()
        .store(opened.store)
        .blobs(opened.blobs)
        .mailer(mailer(&opts)?)
        .webhook_sink(sink)
        .sealer(sealers.live)
        .test_sealer(sealers.test)
        .response_key(opened.response_key)
        .settings(settings);
    // Pages as pictures for the signing page: this same binary, started as its render worker.
    let svc = match std::env::current_exe() {
        Ok(exe) => svc.renderer(Arc::new(ProcessRenderer::new(exe, ["render-page"]))),
        Err(e) => {
            tracing::warn!(error = %e, "cannot find this binary: signing pages frame the PDF instead of drawing its pages");
            svc
        }
    };
    let svc = svc.build();
    // Secrets stored before they were sealed (a one-time pass; later starts find none).
    let sealed = svc.seal_webhook_secrets().await?;
    if sealed > 0 {
        tracing::info!(endpoints = sealed, "webhook secrets sealed at rest");
    }
    if let Some(acct) = svc.admin().bootstrap("Default account").await? {
        let mut out = std::io::stdout().lock();
        crate::admin::print_new_account(&acct, &mut out)?;
    }
    // Logs the first readiness ("ready", or why not) before the first request.
    let _ = svc.readiness().await;
    let listener = tokio::net::TcpListener::bind(opts.listen).await?;
    if let Some(addr) = opts.metrics_listen {
        let metrics = tokio::net::TcpListener::bind(addr).await?;
        tracing::info!(address = %metrics.local_addr()?, "metrics at GET /metrics");
        crate::metrics::install(svc.clone(), metrics)?;
    }
    tracing::info!(address = %listener.local_addr()?, base_url = %format!("{public_url}/v1"), "listening");
    // Expiry and purge, retention, webhook and email delivery: the core's one background task.
    let (stop_maintenance, maintenance_stopped) = tokio::sync::oneshot::channel::<()>();
    let maintenance = tokio::spawn(
        svc.maintenance()
            .webhooks(WorkerSettings {
                schedule: opts.webhook_retry_schedule.clone(),
                ..WorkerSettings::default()
            })
            .run(async move {
                let _ = maintenance_stopped.await;
            }),
    );
    tracing::info!(
        test_retention_days = %opts.test_retention_days,
        live_retention_days = %opts.live_retention_days,
        "retention sweep runs now and every 10 minutes"
    );
    tracing::info!(schedule = %opts.webhook_retry_schedule, "webhook worker started");
    tracing::info!(schedule = %opts.email_retry_schedule, "email worker started");
    let pages = PageSettings {
        frame_ancestors: opts.frame_ancestors.clone(),
        secret: page_secret(&opts.store.data_dir)?,
    };
    if !pages.frame_ancestors.is_none() {
        tracing::info!(frame_ancestors = %pages.frame_ancestors.as_sources(), "signing pages may be framed");
    }
    if !opts.trusted_proxies.is_empty() {
        tracing::info!(
            header = %opts.trusted_proxies.header(),
            "trusted proxies set: this header names the client, no other"
        );
    }
    let mut app = App::new(svc)
        .with_pages(pages)
        .with_trusted_proxies(opts.trusted_proxies.clone());
    if let Some(ttl) = presigned {
        tracing::info!(
            expires_in_secs = ttl.as_secs(),
            "presigned downloads: originals and audit trails redirect to the bucket"
        );
        app = app.with_presigned_downloads(ttl);
    }
    let mut limits = app.limits().clone().with_connections(opts.connections);
    if let Some(bytes) = opts.max_upload_spool {
        limits.max_upload_spool = bytes;
    }
    if let Some(wait) = opts.upload_wait {
        limits.upload_wait = wait;
    }
    let spool_dir = upload_spool_dir(&opts)?;
    let app = app.with_upload_spool_dir(spool_dir);
    let stopped = run_until_store_fails(
        listener,
        app.with_limits(limits),
        shutdown_signal(),
        FAILURE_EXIT_DELAY,
    )
    .await?;
    let _ = stop_maintenance.send(());
    if let Stopped::StoreFailed(why) = stopped {
        // No final checkpoint: after a failed fsync the WAL on disk, not the page cache, is
        // the truth, and the next start recovers from it (docs/STORAGE.md).
        tracing::error!(
            exit_status = EXIT_STORE_FAILED,
            "stopped: the store failed for good"
        );
        return Err(StoreFailed(why).into());
    }
    // Bounded like the rest of shutdown: a worker stuck on a slow receiver or a store busy with
    // a request's leftover work must not keep the process alive; both are safe to cut (writes
    // are transactions, and the next start recovers the WAL).
    let cleanup = async {
        // The workers finish what they hold; emails in flight are recorded before the store
        // closes. One cut short is sent again by the next process once its lease ends.
        let _ = maintenance.await;
        // Leaves a SQLite database checkpointed: the next start has no WAL to recover.
        opened.sql.close().await;
    };
    if tokio::time::timeout(CLEANUP_LIMIT, cleanup).await.is_err() {
        tracing::warn!(
            "the workers or the store did not stop in time; exiting anyway (an email cut short \
             goes out again once its lease ends)"
        );
    }
    tracing::info!("stopped");
    Ok(())
}

/// How long `serve` waits, after the HTTP server has stopped, for the webhook worker and the
/// store to close.
const CLEANUP_LIMIT: Duration = Duration::from_secs(1);

/// The key of the signing pages' form tokens, kept in `<data_dir>/signing-page.secret` (mode
/// 0600) so that pages open in browsers keep working across restarts. Created on first use;
/// servers sharing a database must share this file too.
fn page_secret(data_dir: &std::path::Path) -> Result<PageSecret, BoxError> {
    let path = data_dir.join("signing-page.secret");
    match std::fs::read(&path) {
        Ok(bytes) => {
            return PageSecret::from_bytes(&bytes)
                .ok_or_else(|| format!("{} holds no usable secret", path.display()).into());
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("cannot read {}: {e}", path.display()).into()),
    }
    std::fs::create_dir_all(data_dir)?;
    let secret = PageSecret::random();
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    match open.open(&path) {
        Ok(mut f) => {
            std::io::Write::write_all(&mut f, secret.to_stored())?;
            f.sync_all()?;
            Ok(secret)
        }
        // Another process created it first: use theirs.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => page_secret(data_dir),
        Err(e) => Err(format!("cannot create {}: {e}", path.display()).into()),
    }
}

/// Completes on SIGINT (Ctrl-C) or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("SIGINT received"),
        () = term => tracing::info!("SIGTERM received"),
    }
}
