//! [`SigningService`]: one async method per operation of the API.
//!
//! Every method takes an [`AuthContext`] (account, key, mode) obtained from
//! [`SigningService::authenticate`], and runs entirely inside that account and mode. The service
//! owns every business rule; its callers (the HTTP server, embedding applications) only translate.
//! It never speaks HTTP: results are domain values and [`Error`]s.

mod account;
mod admin;
mod archive;
mod builder;
mod builders;
mod bulk_sends;
mod complete;
mod deliveries;
mod download;
mod drafts;
mod email_content;
mod envelopes;
mod events;
mod fair_gate;
mod fields;
mod health;
mod json;
mod key_cache;
mod lifecycle;
mod maintenance;
mod notify;
mod outbox;
mod paging;
mod params;
mod pool;
mod precondition;
mod ratelimit;
mod reach_trail;
mod response_key;
mod retention;
mod seal_renewal;
mod seal_sweep;
mod sealing;
mod seals;
mod signing;
mod templates;
mod views;
mod webhooks;

use std::net::IpAddr;
use std::sync::Arc;

use chrono::Duration;

pub use crate::model::BuilderTarget;
pub use admin::{Admin, NewAccount, NewKey};
pub use archive::{ARCHIVE_PIPE, ArchiveBody, ArchiveOf};
pub use builder::{
    BUILDER_LINK_TTL_MINUTES, BUILDER_TOKEN_PREFIX, BuilderAccess, BuilderAction, BuilderOpen,
    BuilderSession, BuilderUrl, BuilderUrlParams, LayoutDocument, LayoutPage, PageLayout,
    is_builder_token, page_param,
};
pub use builders::{CreateEnvelope, CreateTemplate, DataValue, FieldSpec, Signer};
pub use bulk_sends::{
    BULK_SEND_LEASE, BulkRowParams, CreateBulkSendParams, MAX_BULK_ROWS, RowsFormat,
};
pub use deliveries::{AttemptView, DeliveryView};
pub use download::{Download, DownloadLink, FileBody};
pub use drafts::UpdateDraftParams;
pub use envelopes::{CcParam, CreateEnvelopeParams, MAX_CC, MAX_DOCUMENTS, SignerParam};
pub use fair_gate::{FairGate, Slot as FairSlot};
pub use health::{PROBE_TIMEOUT, READINESS_TTL, Readiness, UnreadyReason};
pub use lifecycle::{
    EXPIRED_LINKS_KEPT_DAYS, FileKind, FileLinkView, Reassign, Reminder, ReminderSkip,
    ReminderTarget, SigningLink, SigningUrl, document_param, field_param,
};
pub use maintenance::Maintenance;
pub use outbox::{EmailDailyLimits, EmailSettings, EmailWorker, WebhookWorker, WorkerSettings};
pub use params::{ListParams, Params, Upload};
pub use pool::{PdfPoolSettings, PdfSlot};
pub use precondition::{Precondition, Versioned};
pub use ratelimit::RateLimitState;
pub use response_key::{KeyCheck, ResponseKey};
pub use retention::{Retention, RetentionReport};
pub use seal_renewal::RenewalReport;
pub use seal_sweep::SealSweepReport;
pub use sealing::{DEVELOPMENT_SEAL, TEST_MODE_SEAL};
pub use signing::{
    AttachmentError, AttachmentLimits, AttachmentType, AttachmentUpload, ClientInfo, DocumentPages,
    DrawingError, DrawingLimits, GRANT_HOURS, LinkState, PageSize, SIGNATURE_FONT, SignInput,
    SignerAuth, SigningSession, Undrawable, ValueProblem, Verification, VerificationGrant,
    attachment_problem, field_value_problem, first_name, value_problem,
};
pub use templates::{CreateTemplateParams, UpdateTemplateParams};
pub use webhooks::{CreateEndpointParams, UpdateEndpointParams};

use crate::clock::{Clock, SystemClock, Timestamp};
use crate::error::{Error, Result};
use crate::ids;
use crate::mail::{Mailer, MemoryMailer};
use crate::model::{Account, ApiKey, Mode, Scope};
use crate::render::{PageCache, PageRenderer};
use crate::seal::{RevocationFetcher, Sealer};
use crate::store::{
    BlobStore, IdempotencyBegin, MemoryBlobStore, MemoryStore, Store, StoredResponse,
};
use crate::webhook::{MemorySink, WebhookSink};

/// Numeric limits (interface.md section 8).
#[derive(Debug, Clone)]
pub struct Limits {
    /// Most signers on one envelope (default 10).
    pub max_signers: usize,
    /// Bytes of decoded PDF (25 x 1024 x 1024).
    pub max_file_bytes: usize,
    /// Most pages in an uploaded document (default 200).
    pub max_pages: u32,
    /// Most keys in an envelope's `metadata` (default 20).
    pub max_metadata_keys: usize,
    /// Largest accepted `expires_in_days` (default 90).
    pub max_expires_in_days: u32,
    /// Largest accepted `limit` of a list request (default 100).
    pub max_list_limit: usize,
    /// Most fields on one envelope or template (default 500).
    pub max_fields: usize,
    /// Webhook endpoints per account and mode.
    pub max_webhook_endpoints: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_signers: 10,
            max_file_bytes: 25 * 1024 * 1024,
            max_pages: 200,
            max_metadata_keys: 20,
            max_expires_in_days: 90,
            max_list_limit: 100,
            max_fields: 500,
            max_webhook_endpoints: 16,
        }
    }
}

/// Settings of a service instance.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Shown in emails, the audit trail and webhook user agents.
    pub service_name: String,
    /// Base of download links (`{public_url}/files/{token}`), without a trailing slash.
    pub public_url: String,
    /// Base of signing links (`{signing_host}/sign/{token}`); defaults to `public_url`.
    pub signing_host: Option<String>,
    /// Requests per API key per minute.
    pub rate_limit_per_minute: u32,
    /// `POST /events/{id}/resend` calls per account per minute.
    pub resend_per_minute: u32,
    /// The request limits, see [`Limits`].
    pub limits: Limits,
    /// Development only: accept `http://` and loopback webhook URLs.
    pub allow_insecure_webhook_urls: bool,
    /// Live allowance of new accounts, per month.
    pub default_monthly_allowance: u32,
    /// Where the balance response sends callers to buy more.
    pub purchase_url: String,
    /// Lifetime of a signing link (capped by the envelope's expiry).
    pub signing_link_ttl: Duration,
    /// Lifetime of a download link.
    pub download_link_ttl: Duration,
    /// How long an `Idempotency-Key` and its stored response are kept (default 24 hours).
    pub idempotency_ttl: Duration,
    /// A claim on an idempotency key older than this is considered abandoned.
    pub idempotency_stale_after: Duration,
    /// Shortest time between two reminders to the same signer (default 1 hour).
    pub reminder_interval: Duration,
    /// How many documents are in PDF work at once, and how long callers wait for a slot.
    pub pdf_pool: PdfPoolSettings,
    /// How emails are retried (the email outbox).
    pub email: EmailSettings,
    /// How long test data and the PDFs of finished live envelopes are kept
    /// ([`SigningService::retention_sweep`]).
    pub retention: Retention,
    /// How long an authenticated API key may be served from memory. A key revoked by another
    /// process stops working within this time here; one revoked through this service at once.
    /// Zero reads the store on every request. Default 1 s (docs/API.md, "Revoking keys").
    pub key_cache_ttl: std::time::Duration,
    /// Bytes of page pictures kept in memory for the signing page (with a renderer,
    /// [`SigningServiceBuilder::renderer`]). Default 64 MiB.
    pub page_cache_bytes: usize,
    /// The PAdES level seals reach, and how the sweep retries what was missing (extensions
    /// E10).
    pub seal: SealSettings,
}

/// What seals are to reach, and how long the upgrade sweep keeps trying (docs/SEALS.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealSettings {
    /// The PAdES level to reach (`--pades-level`). `None` (the default): as high as the sealer
    /// and the revocation fetcher allow: B-LTA with a timestamp authority and a
    /// [`RevocationFetcher`], B-T with the authority alone, B-B
    /// without. A level above what they allow is capped to it (a warning says so at build).
    pub level: Option<crate::model::SealLevel>,
    /// The waits before each attempt of the upgrade sweep, counted from completion and then from
    /// each failed attempt (`--seal-retry-schedule`, default `1m,5m,30m,2h,6h,24h`). When they are
    /// used up the envelope stays at the level it reached, with an error in the log. Empty: no
    /// upgrades.
    pub retry_schedule: crate::webhook::RetrySchedule,
}

impl Default for SealSettings {
    fn default() -> Self {
        SealSettings {
            level: None,
            retry_schedule: "1m,5m,30m,2h,6h,24h"
                .parse()
                .expect("the default schedule parses"),
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            service_name: "Envelope".into(),
            public_url: "http://127.0.0.1:8080".into(),
            signing_host: None,
            rate_limit_per_minute: 600,
            resend_per_minute: 30,
            limits: Limits::default(),
            allow_insecure_webhook_urls: false,
            default_monthly_allowance: 100,
            purchase_url: "http://127.0.0.1:8080/billing".into(),
            signing_link_ttl: Duration::days(30),
            download_link_ttl: Duration::minutes(5),
            idempotency_ttl: Duration::hours(24),
            idempotency_stale_after: Duration::minutes(5),
            reminder_interval: Duration::hours(1),
            pdf_pool: PdfPoolSettings::default(),
            email: EmailSettings::default(),
            retention: Retention::default(),
            key_cache_ttl: std::time::Duration::from_secs(1),
            page_cache_bytes: 64 * 1024 * 1024,
            seal: SealSettings::default(),
        }
    }
}

impl Settings {
    /// Base of signing links, without a trailing slash: `signing_host`, else `public_url`.
    pub fn signing_base(&self) -> &str {
        self.signing_host
            .as_deref()
            .unwrap_or(&self.public_url)
            .trim_end_matches('/')
    }
    fn public_base(&self) -> &str {
        self.public_url.trim_end_matches('/')
    }
}

/// Who is calling: the account, the key, and so the mode.
#[derive(Debug, Clone)]
pub struct AuthContext {
    /// The account the key belongs to.
    pub account: Account,
    /// The key the request was authenticated with.
    pub key: ApiKey,
    /// For a request under an idempotency key: the `origin` that
    /// [`SigningService::idempotency_begin`] returned. Operations that create an envelope, a
    /// template or a webhook endpoint then derive its ID from it, so that a retry of a request
    /// whose process died after committing finds the object instead of creating a second one.
    /// `None` (the default) gives random IDs.
    pub idempotency_origin: Option<String>,
    /// The client address the request came from, when the caller knows it (the server sets
    /// it). Recorded with what the request leaves as evidence, such as a signing link issued
    /// through the API (extensions E8). `None` (the default) records none. Written out only
    /// where it is recorded.
    pub ip_address: Option<IpAddr>,
}

impl AuthContext {
    /// The ID of the object this request creates as `what`: derived from the idempotency origin
    /// when there is one, random otherwise.
    pub(crate) fn new_id(&self, prefix: &str, what: &str) -> String {
        match &self.idempotency_origin {
            Some(origin) => ids::derived_id(prefix, &format!("{origin}:{what}")),
            None => ids::new_id(prefix),
        }
    }

    /// The mode (test or live) of the key, which decides which data the request sees.
    pub fn mode(&self) -> Mode {
        self.key.mode
    }
    /// The account and mode that scope every store query of the request.
    pub fn scope(&self) -> Scope {
        Scope {
            account: self.account.id.clone(),
            mode: self.key.mode,
        }
    }
}

pub(crate) struct Inner {
    pub store: Arc<dyn Store>,
    pub blobs: Arc<dyn BlobStore>,
    pub mailer: Arc<dyn Mailer>,
    #[allow(dead_code)] // delivered by the webhook worker
    pub sink: Arc<dyn WebhookSink>,
    pub clock: Arc<dyn Clock>,
    /// Seals the signed copies and audit trails of live envelopes; `None` leaves them unsealed.
    pub sealer: Option<Arc<dyn Sealer>>,
    /// Seals those of test envelopes: never the live identity (`SigningServiceBuilder::build`).
    pub test_sealer: Option<Arc<dyn Sealer>>,
    /// Collects the certificates and revocation answers of PAdES B-LT (`seals.rs`).
    pub revocation: Option<Arc<RevocationFetcher>>,
    pub settings: Settings,
    pub limiter: ratelimit::RateLimiter,
    pub resend_limiter: ratelimit::RateLimiter,
    pub pool: pool::PdfPool,
    /// Seals the responses kept by idempotency records (they may carry secrets).
    pub response_key: ResponseKey,
    /// The last readiness probe's answer (`health.rs`).
    pub readiness: health::ReadinessCache,
    /// Email sends running in this process (`outbox/email.rs`).
    pub emails_in_flight: Arc<outbox::InFlight>,
    /// Where the retention sweep's look at blobs goes on (`retention.rs`).
    pub orphan_cursor: retention::OrphanCursor,
    /// Keys that authenticated lately (`key_cache.rs`).
    pub keys: key_cache::KeyCache,
    /// Pictures of pages for the signing page (`signing/pictures.rs`), when a renderer is set.
    pub pictures: Option<signing::Pictures>,
    /// What signers are shown of unsigned documents, by version (`signing/preview.rs`).
    pub previews: signing::Previews,
    /// Envelope views as JSON, by record version (`views.rs`).
    pub views: views::EnvelopeViews,
}

/// The signing service. Cheap to clone; share one per process.
#[derive(Clone)]
pub struct SigningService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for SigningService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningService")
            .field("settings", &self.inner.settings)
            .finish_non_exhaustive()
    }
}

/// Builds a [`SigningService`]. Every seam defaults to its in-memory implementation and the
/// clock to the system clock.
///
/// Sealing is a choice the embedder makes: [`sealer`](Self::sealer) gives the identity that
/// seals, [`unsealed`](Self::unsealed) says that nothing is sealed, and a builder told neither
/// seals with an ephemeral development identity ([`DEVELOPMENT_SEAL`]) and warns that it does.
/// Test mode always seals with an identity of its own ([`test_sealer`](Self::test_sealer)).
#[derive(Default)]
pub struct SigningServiceBuilder {
    store: Option<Arc<dyn Store>>,
    blobs: Option<Arc<dyn BlobStore>>,
    mailer: Option<Arc<dyn Mailer>>,
    sink: Option<Arc<dyn WebhookSink>>,
    clock: Option<Arc<dyn Clock>>,
    sealing: sealing::Sealing,
    test_sealer: Option<Arc<dyn Sealer>>,
    response_key: Option<ResponseKey>,
    renderer: Option<Arc<dyn PageRenderer>>,
    revocation: Revocation,
    settings: Settings,
}

/// What the builder was told about revocation material.
#[derive(Default)]
enum Revocation {
    /// Nothing: over HTTP with the `https` feature, else none.
    #[default]
    Default,
    /// `without_revocation()`.
    Off,
    /// `revocation(..)`.
    With(Arc<RevocationFetcher>),
}

impl std::fmt::Debug for SigningServiceBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningServiceBuilder")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl SigningServiceBuilder {
    /// Uses `store` for the records instead of the in-memory store.
    pub fn store(mut self, store: Arc<dyn Store>) -> Self {
        self.store = Some(store);
        self
    }
    /// Uses `blobs` for the documents instead of the in-memory blob store.
    pub fn blobs(mut self, blobs: Arc<dyn BlobStore>) -> Self {
        self.blobs = Some(blobs);
        self
    }
    /// Uses `mailer` to send emails instead of the in-memory outbox.
    pub fn mailer(mut self, mailer: Arc<dyn Mailer>) -> Self {
        self.mailer = Some(mailer);
        self
    }
    /// Uses `sink` to deliver webhooks instead of the in-memory sink.
    pub fn webhook_sink(mut self, sink: Arc<dyn WebhookSink>) -> Self {
        self.sink = Some(sink);
        self
    }
    /// Uses `clock` for the current time instead of the system clock.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }
    /// Replaces the default [`Settings`].
    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }
    /// Seals every signed copy and audit trail of live envelopes with a PAdES signature by
    /// `sealer` (a [`LocalSealer`](crate::seal::LocalSealer) with your
    /// [`SigningIdentity`](crate::seal::SigningIdentity), say). Test envelopes are sealed by
    /// [`test_sealer`](Self::test_sealer), or else by an ephemeral identity of their own
    /// ([`TEST_MODE_SEAL`]): never by this one. Replaces an earlier [`unsealed`](Self::unsealed).
    pub fn sealer(mut self, sealer: Arc<dyn Sealer>) -> Self {
        self.sealing = sealing::Sealing::With(sealer);
        self
    }
    /// Seals the documents of test envelopes with `sealer`, whose certificate should say that it
    /// is for tests. One whose certificate is the live sealer's is not used (a test key must not
    /// make documents that pass for live ones): test mode then gets an ephemeral identity.
    pub fn test_sealer(mut self, sealer: Arc<dyn Sealer>) -> Self {
        self.test_sealer = Some(sealer);
        self
    }
    /// Seals nothing: signed copies and audit trails are stamped but carry no PAdES signature
    /// (an embedder that seals them itself, or tests that compare bytes). Test envelopes are
    /// still sealed if [`test_sealer`](Self::test_sealer) is given. Replaces an earlier
    /// [`sealer`](Self::sealer).
    pub fn unsealed(mut self) -> Self {
        self.sealing = sealing::Sealing::Unsealed;
        self
    }
    /// The key that encrypts the responses idempotency records keep and webhook endpoints'
    /// signing secrets. Without one the service makes a random key, which suits a store that
    /// lives no longer than the process; a persistent store needs a persistent key, shared by
    /// every server on it, or replays and webhook deliveries after a restart fail (the server
    /// keeps it in `<data-dir>/idempotency.key`). Check it against the store with
    /// [`ResponseKey::check_against`] before serving, as the server does at every start.
    pub fn response_key(mut self, key: ResponseKey) -> Self {
        self.response_key = Some(key);
        self
    }
    /// Draws the pages of documents as pictures for the signing page
    /// ([`SigningService::signing_page_image`]); without one, signers see the document only as
    /// a PDF. The server sets a [`ProcessRenderer`](crate::render::ProcessRenderer).
    pub fn renderer(mut self, renderer: Arc<dyn PageRenderer>) -> Self {
        self.renderer = Some(renderer);
        self
    }
    /// Collects the certificates and OCSP responses or CRLs that PAdES B-LT puts in each sealed
    /// file with `fetcher`. Without this call the builder makes one that asks the URLs in the
    /// sealing and timestamp certificates over HTTP (feature `https`, 10 s and 1 MiB per answer,
    /// answers cached until their `nextUpdate`); without that feature, seals stop at B-T.
    pub fn revocation(mut self, fetcher: Arc<RevocationFetcher>) -> Self {
        self.revocation = Revocation::With(fetcher);
        self
    }
    /// Fetches no revocation material: seals stop at B-T (with a timestamp authority).
    pub fn without_revocation(mut self) -> Self {
        self.revocation = Revocation::Off;
        self
    }
    /// Builds the service.
    pub fn build(self) -> SigningService {
        let settings = self.settings;
        let clock = self.clock.unwrap_or_else(|| Arc::new(SystemClock));
        let (sealer, test_sealer) = sealing::choose(self.sealing, self.test_sealer, clock.now());
        let revocation = match self.revocation {
            Revocation::With(f) => Some(f),
            Revocation::Off => None,
            #[cfg(feature = "https")]
            Revocation::Default => Some(Arc::new(
                RevocationFetcher::new(Arc::new(crate::seal::HttpRevocationSource::new()))
                    .with_clock(clock.clone()),
            )),
            #[cfg(not(feature = "https"))]
            Revocation::Default => None,
        };
        for (mode, s) in [("live", &sealer), ("test", &test_sealer)] {
            let (Some(s), Some(wanted)) = (s, settings.seal.level) else {
                continue;
            };
            let reached = seals::target_level(Some(wanted), s.as_ref(), revocation.as_deref());
            if reached < wanted {
                tracing::warn!(
                    mode,
                    wanted = wanted.as_str(),
                    reached = reached.as_str(),
                    "the PAdES level asked for needs a timestamp authority (B-T and up) and a                      revocation fetcher (B-LT and up): seals stop at the level reached"
                );
            }
        }
        SigningService {
            inner: Arc::new(Inner {
                store: self.store.unwrap_or_else(|| Arc::new(MemoryStore::new())),
                blobs: self
                    .blobs
                    .unwrap_or_else(|| Arc::new(MemoryBlobStore::new())),
                mailer: self.mailer.unwrap_or_else(|| Arc::new(MemoryMailer::new())),
                sink: self.sink.unwrap_or_else(|| Arc::new(MemorySink::new())),
                clock,
                sealer,
                test_sealer,
                revocation,
                response_key: self.response_key.unwrap_or_else(ResponseKey::random),
                limiter: ratelimit::RateLimiter::new(settings.rate_limit_per_minute),
                resend_limiter: ratelimit::RateLimiter::new(settings.resend_per_minute),
                pool: pool::PdfPool::new(settings.pdf_pool.clone()),
                readiness: health::ReadinessCache::default(),
                emails_in_flight: Arc::default(),
                orphan_cursor: retention::OrphanCursor::default(),
                keys: key_cache::KeyCache::new(settings.key_cache_ttl),
                pictures: self.renderer.map(|renderer| signing::Pictures {
                    renderer,
                    cache: PageCache::new(settings.page_cache_bytes),
                    sizes: Default::default(),
                    shown: Default::default(),
                    failed: Default::default(),
                }),
                previews: signing::Previews::default(),
                views: views::EnvelopeViews::default(),
                settings,
            }),
        }
    }
}

impl SigningService {
    /// Starts a builder with in-memory defaults for every dependency.
    pub fn builder() -> SigningServiceBuilder {
        SigningServiceBuilder::default()
    }

    /// The settings the service was built with.
    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    /// The certificate that seals live documents, when they are sealed.
    pub fn signing_certificate(&self) -> Option<&crate::seal::CertificateInfo> {
        self.signing_certificate_of(Mode::Live)
    }

    /// The certificate that seals the documents of `mode`, when they are sealed: test mode has
    /// its own, never the live one.
    pub fn signing_certificate_of(&self, mode: Mode) -> Option<&crate::seal::CertificateInfo> {
        self.sealer_of(mode).map(|s| s.certificate())
    }

    /// The sealer of `mode`'s documents.
    pub(crate) fn sealer_of(&self, mode: Mode) -> Option<&Arc<dyn Sealer>> {
        match mode {
            Mode::Live => self.inner.sealer.as_ref(),
            Mode::Test => self.inner.test_sealer.as_ref(),
        }
    }

    pub(crate) fn now(&self) -> Timestamp {
        self.inner.clock.now()
    }

    /// Operations of the spec's "dashboard": accounts, keys, allowances, webhook secrets.
    pub fn admin(&self) -> Admin<'_> {
        Admin { svc: self }
    }

    /// Resolves an API key (`sk_test_...` / `sk_live_...`). Missing, malformed, unknown and revoked
    /// keys all give [`Error::InvalidApiKey`].
    pub async fn authenticate(&self, api_key: &str) -> Result<AuthContext> {
        let well_formed = (api_key.starts_with("sk_test_") || api_key.starts_with("sk_live_"))
            && api_key.len() <= 128
            && api_key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !well_formed {
            return Err(Error::InvalidApiKey);
        }
        self.key_context(&ids::digest(api_key)).await
    }

    /// The context of the API key whose SHA-256 is `hash`, through the key cache; a revoked or
    /// unknown key is [`Error::InvalidApiKey`].
    pub(crate) async fn key_context(&self, hash: &str) -> Result<AuthContext> {
        let found = match self.inner.keys.get(hash) {
            Some(hit) => Some(hit),
            None => {
                let lookup = self.inner.keys.begin();
                let found = self.inner.store.api_key_with_account(hash).await?;
                if let Some((key, account)) = &found
                    && key.revoked_at.is_none()
                {
                    self.inner.keys.put(lookup, key, account);
                }
                found
            }
        };
        match found {
            Some((key, account)) if key.revoked_at.is_none() => Ok(AuthContext {
                account,
                key,
                idempotency_origin: None,
                ip_address: None,
            }),
            _ => Err(Error::InvalidApiKey),
        }
    }

    /// Counts one request against the allowance of `subject` (an API key ID, or a client address
    /// for requests without a valid key) and reports the window.
    pub fn rate_limit(&self, subject: &str) -> RateLimitState {
        self.inner.limiter.hit(subject, self.now())
    }

    /// Claims an idempotency key for a request with this fingerprint (see
    /// [`idempotency_fingerprint`]). Keys are 1 to 255 characters.
    pub async fn idempotency_begin(
        &self,
        ctx: &AuthContext,
        key: &str,
        fingerprint: &str,
    ) -> Result<IdempotencyBegin> {
        if key.is_empty() || key.len() > 255 || key.chars().any(|c| c.is_control()) {
            return Err(Error::invalid(
                "Idempotency-Key",
                "must be 1 to 255 printable characters",
            ));
        }
        let now = self.now();
        let stale = now - self.inner.settings.idempotency_stale_after;
        let begin = self
            .inner
            .store
            .idempotency_begin(&ctx.scope(), key, fingerprint, now, stale)
            .await?;
        match begin {
            IdempotencyBegin::Replay(stored) => {
                let body = self
                    .inner
                    .response_key
                    .open(&ctx.scope(), key, stored.status, &stored.body)
                    .map_err(|_| {
                        // A start refuses a key that differs from the database's
                        // (`ResponseKey::check_against`); a record that still does not open was
                        // altered, or written before the check existed. Never a 500.
                        tracing::warn!(
                            "an idempotency record does not decrypt: the response key changed \
                             or the record was altered"
                        );
                        Error::IdempotencyRecordUnreadable
                    })?;
                Ok(IdempotencyBegin::Replay(StoredResponse {
                    status: stored.status,
                    body,
                }))
            }
            IdempotencyBegin::Mismatch => Err(Error::IdempotencyKeyReused),
            IdempotencyBegin::InFlight => Err(Error::IdempotencyKeyInUse),
            other => Ok(other),
        }
    }

    /// Stores the response of a request whose key was claimed (kept for the idempotency TTL),
    /// its body encrypted with the service's [`ResponseKey`].
    pub async fn idempotency_finish(
        &self,
        ctx: &AuthContext,
        key: &str,
        response: StoredResponse,
    ) -> Result<()> {
        let expires = self.now() + self.inner.settings.idempotency_ttl;
        let response = StoredResponse {
            body: self
                .inner
                .response_key
                .seal(&ctx.scope(), key, response.status, &response.body),
            status: response.status,
        };
        Ok(self
            .inner
            .store
            .idempotency_finish(&ctx.scope(), key, &response, expires)
            .await?)
    }

    /// Forgets a claim whose request must not be replayed (server errors, rate limits).
    pub async fn idempotency_release(&self, ctx: &AuthContext, key: &str) -> Result<()> {
        Ok(self
            .inner
            .store
            .idempotency_release(&ctx.scope(), key)
            .await?)
    }
}

/// The fingerprint of a request for idempotency: SHA-256 over method, path and body.
pub fn idempotency_fingerprint(method: &str, path: &str, body: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(method.as_bytes());
    h.update([0]);
    h.update(path.as_bytes());
    h.update([0]);
    h.update(body);
    ids::hex(&h.finalize())
}

/// `YYYY-MM` of the calendar month (UTC) containing `t`, and its bounds.
pub(crate) fn period_of(t: Timestamp) -> (String, Timestamp, Timestamp) {
    use chrono::{Datelike, TimeZone, Utc};
    let d = t.datetime();
    let start = Utc
        .with_ymd_and_hms(d.year(), d.month(), 1, 0, 0, 0)
        .single()
        .unwrap_or(d);
    let (ny, nm) = if d.month() == 12 {
        (d.year() + 1, 1)
    } else {
        (d.year(), d.month() + 1)
    };
    let end = Utc
        .with_ymd_and_hms(ny, nm, 1, 0, 0, 0)
        .single()
        .unwrap_or(d);
    (
        format!("{:04}-{:02}", d.year(), d.month()),
        Timestamp::from(start),
        Timestamp::from(end),
    )
}

impl SigningService {
    /// Runs PDF work of a request (inspection, a preview) in the PDF pool, off the async
    /// threads. Past the pool's capacity for its `queue_wait`: [`Error::Busy`].
    pub(crate) async fn blocking<T: Send + 'static>(
        &self,
        task: &'static str,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T> {
        self.inner.pool.run(pool::Patience::Request, task, f).await
    }

    /// Runs the PDF work of a completion in the PDF pool, waiting up to `completion_wait`.
    pub(crate) async fn completion_blocking<T: Send + 'static>(
        &self,
        task: &'static str,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T> {
        self.inner
            .pool
            .run(pool::Patience::Completion, task, f)
            .await
    }

    /// Takes one slot of the PDF pool, waiting like a request does (then [`Error::Busy`]).
    ///
    /// For embedders that run their own PDF work (`pdf::stamp`, `pdf::inspect`) beside the
    /// service: holding a slot while doing it keeps the total within the pool's capacity.
    pub async fn pdf_slot(&self) -> Result<PdfSlot> {
        self.inner.pool.slot(pool::Patience::Request).await
    }
}
