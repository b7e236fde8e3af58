//! The PAdES seal's cryptography: the signing identity (an ECDSA P-256 key and its certificate
//! chain), the detached CMS `SignedData` (CAdES: signing-certificate-v2, SHA-256) and, optionally,
//! an RFC 3161 signature timestamp (PAdES B-T). A timestamp that cannot be had never stops a
//! seal: the caller seals without it (B-B) through [`Sealer::sign_without_timestamp`].
//!
//! | implementation | what signs |
//! |---|---|
//! | [`LocalSealer`] | a [`SigningIdentity`] held in memory, with an optional [`TimestampAuthority`] |
//!
//! | [`TimestampAuthority`] | where the RFC 3161 request goes |
//! |---|---|
//! | [`LocalTimestampAuthority`] | answered in process (tests, development) |
//! | `HttpTimestampAuthority` (feature `https`) | `--tsa-url`, over HTTP |
//!
//! [`RevocationFetcher`] collects the certificates and OCSP responses or CRLs of a chain (the
//! material of a PAdES B-LT Document Security Store) through a [`RevocationSource`].
//!
//! The PDF side (the `/Sig` field, `/ByteRange`, filling `/Contents`) lives in the crate's PDF
//! engine (`pdf::PreparedSeal`, public with the `internals` feature); this module never reads a PDF. It must never let the private
//! key reach a log line, a `Debug` string or an error message.

mod cms;
mod gen_time;
#[cfg(feature = "https")]
mod http_tsa;
mod identity;
mod revocation;
mod tsp;

use std::sync::Arc;

use async_trait::async_trait;

use crate::error::BoxError;

pub use cms::{certificates_in, earliest_expiry};
#[cfg(feature = "https")]
pub use http_tsa::HttpTimestampAuthority;
pub use identity::{CertificateInfo, DevelopmentIdentity, SigningIdentity};
#[cfg(feature = "https")]
pub use revocation::HttpRevocationSource;
pub use revocation::{
    MemoryRevocationSource, RevocationError, RevocationFetcher, RevocationKind, RevocationMaterial,
    RevocationSource,
};
pub use tsp::{LocalTimestampAuthority, TimestampAuthority, timestamp_digest};

/// Why a seal could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// The private key could not be read (the message never contains key material).
    #[error("the signing key could not be used: {0}")]
    Key(String),
    /// The certificate chain could not be read or does not match the key.
    #[error("the signing certificate could not be used: {0}")]
    Certificate(String),
    /// DER encoding or decoding failed.
    #[error("CMS encoding failed: {0}")]
    Encoding(#[from] der::Error),
    /// The timestamp authority answered with an error or a token that does not match.
    #[error("the timestamp authority's answer was refused: {0}")]
    Timestamp(String),
    /// The timestamp authority could not be reached.
    #[error("the timestamp authority is unavailable: {source}")]
    Unavailable {
        /// The transport's error.
        source: BoxError,
    },
}

/// Signs the digest of a PDF's `/ByteRange` as a detached CMS `SignedData`.
///
/// # Contract
///
/// - [`Sealer::sign`] returns the DER of a `ContentInfo` holding a `SignedData` without
///   encapsulated content whose signer's message-digest attribute is `digest` (SHA-256), signed
///   by the certificate described by [`Sealer::certificate`], carrying the signing-certificate-v2
///   attribute (SubFilter `ETSI.CAdES.detached`), and never longer than [`Sealer::capacity`]
///   bytes. It may take time (a remote signer, a timestamp authority) and fails with
///   [`SealError::Unavailable`] when a remote part is down.
/// - A sealer whose [`Sealer::timestamps`] is `true` puts an RFC 3161 signature timestamp
///   (unsigned attribute `id-aa-signatureTimeStampToken`) into every CMS that `sign` returns,
///   which makes the seal PAdES B-T, or fails: it never returns a CMS without it. When the
///   timestamp cannot be had it fails with [`SealError::Unavailable`] (the authority did not
///   answer) or [`SealError::Timestamp`] (it refused, or answered with something unusable).
/// - [`Sealer::sign_without_timestamp`] returns the same CMS without a timestamp (PAdES B-B),
///   and asks no timestamp authority. Its default calls `sign`, which is right for a sealer
///   that never timestamps (the defaults of both methods describe one).
///
/// # Levels, and who falls back
///
/// The sealer does not choose a weaker seal on its own: `sign` gives the level it is configured
/// for or fails, and `timestamps` says what that level is. The caller decides what a failure
/// means. `SigningService` (completion, `service/complete.rs`) never lets a missing timestamp
/// stop an envelope: when `sign` of a timestamping sealer fails with `Unavailable` or
/// `Timestamp`, it logs a warning with the reason, seals that document with
/// `sign_without_timestamp`, and records the level each document reached (`b-t` or `b-b`,
/// the envelope's `seal`). A sealer whose own signing is down (a remote signer, not its
/// timestamp authority) fails `sign_without_timestamp` too, and the completion fails as
/// unavailable, as before. B-LT and B-LTA add to the PDF, not to the CMS: they are not a
/// sealer's business.
#[async_trait]
pub trait Sealer: Send + Sync + 'static {
    /// The certificate that signs (shown in the account view and the audit trail).
    fn certificate(&self) -> &CertificateInfo;
    /// Bytes to reserve for the CMS in the PDF (room for a timestamp when
    /// [`Self::timestamps`]).
    fn capacity(&self) -> usize;
    /// Whether [`Self::sign`] adds a signature timestamp (PAdES B-T); `false` (B-B) unless the
    /// sealer says so.
    fn timestamps(&self) -> bool {
        false
    }
    /// The CMS over data whose SHA-256 is `digest`, with a signature timestamp when
    /// [`Self::timestamps`].
    async fn sign(&self, digest: [u8; 32]) -> Result<Vec<u8>, SealError>;
    /// The CMS over data whose SHA-256 is `digest`, without a signature timestamp (PAdES B-B),
    /// whatever [`Self::timestamps`] says: the seal made when the timestamp cannot be had.
    async fn sign_without_timestamp(&self, digest: [u8; 32]) -> Result<Vec<u8>, SealError> {
        self.sign(digest).await
    }
    /// The timestamp authority of [`Self::sign`]'s signature timestamps, which also gives the
    /// document timestamps of PAdES B-LTA (`timestamp_digest`); `None` (the default) when the
    /// sealer has none or keeps it to itself.
    fn timestamp_authority(&self) -> Option<Arc<dyn TimestampAuthority>> {
        None
    }
}

/// A [`Sealer`] with the key in memory: deterministic ECDSA (RFC 6979), and an RFC 3161 token
/// in the unsigned attribute `id-aa-signatureTimeStampToken` when a [`TimestampAuthority`] is set.
#[derive(Debug)]
pub struct LocalSealer {
    identity: SigningIdentity,
    tsa: Option<Arc<dyn TimestampAuthority>>,
}

/// Room for the signature, attributes and structure beyond the certificates.
const BASE_CAPACITY: usize = 4 * 1024;
/// Room for a timestamp token (it carries the TSA's own certificates).
const TIMESTAMP_CAPACITY: usize = 16 * 1024;

impl LocalSealer {
    /// A sealer that signs with `identity`, without timestamps (PAdES B-B) until
    /// [`Self::with_timestamps`].
    pub fn new(identity: SigningIdentity) -> Self {
        LocalSealer {
            identity,
            tsa: None,
        }
    }

    /// Adds a timestamp from `tsa` to every seal (PAdES B-T): [`Sealer::sign`] then fails when
    /// the authority does, and [`Sealer::sign_without_timestamp`] is the B-B seal without it.
    pub fn with_timestamps(mut self, tsa: Arc<dyn TimestampAuthority>) -> Self {
        self.tsa = Some(tsa);
        self
    }

    /// The identity the sealer signs with.
    pub fn identity(&self) -> &SigningIdentity {
        &self.identity
    }
}

#[async_trait]
impl Sealer for LocalSealer {
    fn certificate(&self) -> &CertificateInfo {
        self.identity.info()
    }

    fn capacity(&self) -> usize {
        let tsa = if self.tsa.is_some() {
            TIMESTAMP_CAPACITY
        } else {
            0
        };
        (self.identity.chain_der_len() + BASE_CAPACITY + tsa).max(16 * 1024)
    }

    fn timestamps(&self) -> bool {
        self.tsa.is_some()
    }

    async fn sign(&self, digest: [u8; 32]) -> Result<Vec<u8>, SealError> {
        let mut info = cms::signer_info(&self.identity, cms::ID_DATA, &digest)?;
        if let Some(tsa) = &self.tsa {
            let token = tsp::timestamp(tsa.as_ref(), info.signature.as_bytes()).await?;
            cms::add_timestamp(&mut info, &token)?;
        }
        cms::signed_data(&self.identity, info, cms::ID_DATA, None)
    }

    async fn sign_without_timestamp(&self, digest: [u8; 32]) -> Result<Vec<u8>, SealError> {
        let info = cms::signer_info(&self.identity, cms::ID_DATA, &digest)?;
        cms::signed_data(&self.identity, info, cms::ID_DATA, None)
    }

    fn timestamp_authority(&self) -> Option<Arc<dyn TimestampAuthority>> {
        self.tsa.clone()
    }
}
