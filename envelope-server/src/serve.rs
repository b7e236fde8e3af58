//! `envelope-server serve`: open the store, build the service, print the first keys, serve
//! until SIGINT or SIGTERM.

use std::net::SocketAddr;
use std::time::Duration;

use envelope_core::error::BoxError;
use envelope_core::{Settings, SigningService};

use crate::app::App;
use crate::store::{StoreOptions, open_store};

/// Options of `serve` (the command line fills them).
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub listen: SocketAddr,
    pub store: StoreOptions,
    /// Base of download links and of `{base_url}`; `None` means `http://<listen>`.
    pub public_url: Option<String>,
    /// Base of signing links; `None` means `public_url`.
    pub signing_host: Option<String>,
    /// Development only: accept `http://` and loopback webhook URLs.
    pub allow_insecure_webhooks: bool,
    /// Requests per API key per minute.
    pub rate_limit_per_minute: u32,
}

/// Builds the service that `serve` and the admin commands run on.
pub async fn build_service(
    store: &StoreOptions,
    settings: Settings,
) -> Result<SigningService, BoxError> {
    let opened = open_store(store).await?;
    let svc = SigningService::builder()
        .store(opened.store)
        .blobs(opened.blobs)
        .settings(settings)
        .build();
    Ok(svc)
}

/// `http://<listen address>`, with 127.0.0.1 for an unspecified address (`0.0.0.0`).
fn default_public_url(listen: SocketAddr) -> String {
    let mut addr = listen;
    if addr.ip().is_unspecified() {
        addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
    }
    format!("http://{addr}")
}

/// Runs the server until a shutdown signal.
pub async fn serve(opts: ServeOptions) -> Result<(), BoxError> {
    let public_url = opts
        .public_url
        .clone()
        .unwrap_or_else(|| default_public_url(opts.listen));
    let settings = Settings {
        public_url: public_url.trim_end_matches('/').to_string(),
        signing_host: opts.signing_host.clone(),
        allow_insecure_webhook_urls: opts.allow_insecure_webhooks,
        rate_limit_per_minute: opts.rate_limit_per_minute,
        ..Settings::default()
    };
    if opts.allow_insecure_webhooks {
        tracing::warn!(
            "INSECURE: --allow-insecure-webhooks is on; webhooks may go to http:// and private \
             addresses. Never use this outside local development."
        );
    }
    let svc = build_service(&opts.store, settings).await?;
    if let Some(acct) = svc.admin().bootstrap("Default account").await? {
        let mut out = std::io::stdout().lock();
        crate::admin::print_new_account(&acct, &mut out)?;
    }
    let listener = tokio::net::TcpListener::bind(opts.listen).await?;
    tracing::info!(address = %listener.local_addr()?, base_url = %format!("{public_url}/v1"), "listening");
    let expiry = tokio::spawn(expire_periodically(svc.clone()));
    crate::run(listener, App::new(svc), shutdown_signal()).await?;
    expiry.abort();
    Ok(())
}

/// Voids expired envelopes in the background (reads settle expiry too; this makes the
/// `envelope.voided` events timely for envelopes nobody reads).
async fn expire_periodically(svc: SigningService) {
    let mut tick = tokio::time::interval(Duration::from_secs(60));
    loop {
        tick.tick().await;
        match svc.expire_due().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(count = n, "expired envelopes voided"),
            Err(e) => tracing::error!(error = ?e, "expiry sweep failed"),
        }
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
