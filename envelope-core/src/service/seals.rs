//! The seal of each file and what it reaches (extensions E10): the CMS from the sealer (PAdES
//! B-B, or B-T with its signature timestamp), then, each as one more incremental update, the
//! Document Security Store with the certificates and revocation answers of every signature in
//! the file (B-LT) and a document timestamp over all of it (B-LTA).
//!
//! Nothing outside the process may hold an envelope: a timestamp authority or a revocation
//! service that cannot be had leaves the file at the level it reached (at least B-B), a warning
//! says why, `envelope_seal_below_target_total{missing}` counts it, and the envelope's
//! `seal.level` shows the gap. The upgrade sweep (`seal_sweep.rs`) adds what is missing later
//! with [`Seals::extend`], from whatever level a file stands at: a B-B file gets a document
//! timestamp first (a document timestamp over a signature makes it B-T, ETSI EN 319 142-1 5.4),
//! then the DSS, then a second document timestamp.
//!
//! The PDF side is `pdf/seal.rs` and `pdf/ltv.rs` (run on the PDF pool); the cryptography and the
//! fetching are [`crate::seal`]. This module decides the order and the levels.

use sha2::{Digest, Sha256};

use super::SigningService;
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::ids::EnvelopeId;
use crate::model::{SealLevel, StoredFile};
use crate::pdf;
use std::sync::Arc;

use crate::seal::{self, RevocationFetcher, SealError, Sealer, TimestampAuthority};

/// The level a service can reach with `sealer` and `revocation`, capped by `configured` (the
/// operator's `--pades-level`; `None`: as high as they reach). A sealer without timestamps
/// reaches B-B; without a revocation fetcher, B-T; without a timestamp authority to ask for
/// document timestamps (a sealer that keeps it to itself), B-LT.
pub(crate) fn target_level(
    configured: Option<SealLevel>,
    sealer: &dyn Sealer,
    revocation: Option<&RevocationFetcher>,
) -> SealLevel {
    let reachable = if !sealer.timestamps() {
        SealLevel::BB
    } else if revocation.is_none() {
        SealLevel::BT
    } else if sealer.timestamp_authority().is_none() {
        SealLevel::BLt
    } else {
        SealLevel::BLta
    };
    configured.map_or(reachable, |c| c.min(reachable))
}

impl SigningService {
    /// Stores a file that grew from a stored one, under `file_name`: as a delta over `original`
    /// (a signed copy: the blob holds what follows the original's bytes), or whole (an audit
    /// trail, `original` `None`, or bytes that do not start with the original's length).
    pub(crate) async fn store_grown(
        &self,
        file_name: &str,
        original: Option<&StoredFile>,
        grown: Growing,
    ) -> Result<StoredFile> {
        let sha256 = crate::ids::hex(&grown.sha256());
        match original {
            Some(original) if grown.bytes.len() >= original.size as usize => {
                let base = original.size as usize;
                let (head, tail) = grown.bytes.split_at(base);
                self.put_update(file_name, original, head, tail.to_vec().into(), sha256)
                    .await
            }
            _ => self.put_file(file_name, grown.bytes.into()).await,
        }
    }

    /// A stored file's bytes, whole; a file that is gone is an error (the record names it).
    pub(crate) async fn stored_bytes(&self, file: &StoredFile) -> Result<Vec<u8>> {
        let bytes = self
            .read_file(file)
            .await?
            .ok_or_else(|| Error::Internal(format!("stored file {} is missing", file.blob)))?;
        Ok(bytes.to_vec())
    }

    /// When the upgrade sweep's next attempt is due, after `attempts` attempts of its own (the
    /// completion came first), counted from `now`; `None` once the schedule is used up.
    pub(crate) fn seal_upgrade_due(&self, attempts: u32, now: Timestamp) -> Option<Timestamp> {
        let schedule = &self.inner.settings.seal.retry_schedule;
        Some(now + schedule.next_delay(attempts.checked_add(1)?)?)
    }
}

/// The earlier of two times, either of which may be unknown (the archive expiry of an envelope
/// is its files' earliest).
pub(crate) fn earliest(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<Timestamp> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A whole sealed file as it grows, with the SHA-256 that has consumed it (every step continues
/// it: the file is hashed once).
pub(crate) struct Growing {
    /// The file.
    pub bytes: Vec<u8>,
    /// SHA-256 fed with `bytes` and nothing else.
    pub hashed: Sha256,
    /// The level the file has reached.
    pub level: SealLevel,
    /// When the newest document timestamp's certificates stop vouching for it (B-LTA only).
    pub archive_expires_at: Option<Timestamp>,
}

impl Growing {
    /// A stored file at `level`: hashed here, once.
    pub fn stored(bytes: Vec<u8>, level: SealLevel) -> Growing {
        let hashed = Sha256::new_with_prefix(&bytes);
        Growing {
            bytes,
            hashed,
            level,
            archive_expires_at: None,
        }
    }

    /// The whole file's SHA-256.
    pub fn sha256(&self) -> [u8; 32] {
        self.hashed.clone().finalize().into()
    }

    fn append(&mut self, update: &[u8]) {
        self.bytes.extend_from_slice(update);
        self.hashed.update(update);
    }
}

/// The seals of one envelope (a completion, or one attempt of the upgrade sweep), and the levels
/// they reach.
///
/// After one timestamp or revocation failure, the envelope's later files do without asking
/// again: a service that is down (or slow to time out) costs one wait per envelope, not one per
/// document. Only a sealer that cannot sign at all fails a completion, as unavailable (the signer
/// may retry).
pub(crate) struct Seals<'a> {
    /// `None` when renewing: no file is sealed then.
    sealer: Option<&'a dyn Sealer>,
    /// Gives the document timestamps: the sealer's, or the one renewal was given.
    tsa: Option<Arc<dyn TimestampAuthority>>,
    revocation: Option<&'a RevocationFetcher>,
    target: SealLevel,
    envelope: EnvelopeId,
    /// Set by the first timestamp that could not be had.
    timestamp_failed: bool,
    /// Set by the first revocation material that could not be had.
    revocation_failed: bool,
}

impl<'a> Seals<'a> {
    pub fn new(
        sealer: &'a dyn Sealer,
        revocation: Option<&'a RevocationFetcher>,
        target: SealLevel,
        envelope: &EnvelopeId,
    ) -> Self {
        Seals {
            sealer: Some(sealer),
            tsa: sealer.timestamp_authority(),
            revocation,
            target,
            envelope: envelope.clone(),
            timestamp_failed: false,
            revocation_failed: false,
        }
    }

    /// For renewal ([`Self::renew`]): document timestamps from `tsa`, no sealing.
    pub fn renewing(
        tsa: Arc<dyn TimestampAuthority>,
        revocation: Option<&'a RevocationFetcher>,
        envelope: &EnvelopeId,
    ) -> Self {
        Seals {
            sealer: None,
            tsa: Some(tsa),
            revocation,
            target: SealLevel::BLta,
            envelope: envelope.clone(),
            timestamp_failed: false,
            revocation_failed: false,
        }
    }

    /// What the files are to reach.
    pub fn target_level(&self) -> SealLevel {
        self.target
    }

    /// Signs a prepared file's digest and writes the CMS into its update; `what` names the file
    /// in warnings. B-T when the sealer timestamps and its authority answers, else B-B.
    pub async fn seal(
        &mut self,
        (prepared, digest): (pdf::PreparedSeal, [u8; 32]),
        what: &str,
    ) -> Result<(pdf::SealedUpdate, SealLevel)> {
        let started = std::time::Instant::now();
        let signed = self.sign(digest, what).await;
        metrics::histogram!("envelope_seal_seconds").record(started.elapsed().as_secs_f64());
        let (cms, level) = signed.map_err(|e| match e {
            SealError::Unavailable { source } => Error::Unavailable { source },
            other => Error::Internal(format!("sealing failed: {other}")),
        })?;
        let sealed = prepared
            .fill(&cms)
            .map_err(|e| Error::Internal(format!("sealing failed: {e}")))?;
        Ok((sealed, level))
    }

    async fn sign(
        &mut self,
        digest: [u8; 32],
        what: &str,
    ) -> std::result::Result<(Vec<u8>, SealLevel), SealError> {
        let Some(sealer) = self.sealer else {
            return Err(SealError::Key("no sealer is set for this work".into()));
        };
        if !sealer.timestamps() {
            return Ok((sealer.sign(digest).await?, SealLevel::BB));
        }
        if !self.timestamp_failed && self.target >= SealLevel::BT {
            match sealer.sign(digest).await {
                Ok(cms) => return Ok((cms, SealLevel::BT)),
                Err(e @ (SealError::Unavailable { .. } | SealError::Timestamp(_))) => {
                    self.timestamp_missing(what, &e);
                }
                Err(e) => return Err(e),
            }
        }
        Ok((sealer.sign_without_timestamp(digest).await?, SealLevel::BB))
    }

    fn timestamp_missing(&mut self, what: &str, e: &dyn std::fmt::Display) {
        tracing::warn!(
            envelope = %self.envelope,
            file = what,
            error = %e,
            "no timestamp: this envelope's files stay below their target level for now (the \
             upgrade sweep adds it later), and the envelope completes"
        );
        self.timestamp_failed = true;
        metrics::counter!("envelope_seal_below_target_total", "missing" => "timestamp")
            .increment(1);
    }

    /// Whether [`Self::extend`] has work to do on a file at `level`.
    pub fn extends(&self, level: SealLevel) -> bool {
        level < self.target
    }

    /// Brings `file` toward the target, one incremental update per level: a document timestamp
    /// (B-B to B-T), the DSS (B-T to B-LT), a document timestamp (B-LT to B-LTA). Stops at the
    /// first part that cannot be had, with a warning and the counter; the file keeps every update
    /// made before. Errors only for PDF work that fails (a file this service sealed reads).
    pub async fn extend(
        &mut self,
        service: &SigningService,
        mut file: Growing,
        what: &str,
    ) -> Result<Growing> {
        while file.level < self.target {
            let reached = match file.level {
                SealLevel::BB | SealLevel::BLt => {
                    self.document_timestamp(service, &mut file, what).await?
                }
                SealLevel::BT => {
                    self.security_store(service, &mut file, Material::Everything, what)
                        .await?
                }
                SealLevel::BLta => break,
            };
            if !reached {
                break;
            }
        }
        Ok(file)
    }

    /// Renews a B-LTA file: the DSS gains the certificates and revocation answers of its newest
    /// document timestamp, then a new document timestamp covers it all, then the DSS gains the
    /// new timestamp's material (as Adobe and pyHanko end a timestamped file). `None` when a part
    /// could not be had (warned and counted as for a seal); the file as it was stays valid.
    pub async fn renew(
        &mut self,
        service: &SigningService,
        mut file: Growing,
        what: &str,
    ) -> Result<Option<Growing>> {
        if !self
            .security_store(service, &mut file, Material::NewestTimestamp, what)
            .await?
        {
            return Ok(None);
        }
        // One more document timestamp over the DSS: as from B-LT.
        file.level = SealLevel::BLt;
        if !self.document_timestamp(service, &mut file, what).await? {
            return Ok(None);
        }
        // The new timestamp's own material, after it: its authority may be a new one, whose
        // chain and answers nothing in the file holds yet (the next renewal's timestamp covers
        // this update).
        let stamped = file.archive_expires_at;
        if !self
            .security_store(service, &mut file, Material::NewestTimestamp, what)
            .await?
        {
            return Ok(None);
        }
        file.level = SealLevel::BLta;
        file.archive_expires_at = stamped;
        Ok(Some(file))
    }

    /// Appends a document timestamp; `false` when none could be had.
    async fn document_timestamp(
        &mut self,
        service: &SigningService,
        file: &mut Growing,
        what: &str,
    ) -> Result<bool> {
        let Some(tsa) = self.tsa.clone() else {
            return Ok(false);
        };
        if self.timestamp_failed {
            return Ok(false);
        }
        let bytes = std::mem::take(&mut file.bytes);
        let hashed = file.hashed.clone();
        let (bytes, prepared) = service
            .completion_blocking("document_timestamp", move || {
                let prepared = pdf::prepare_document_timestamp_hashed(
                    &bytes,
                    hashed,
                    pdf::DOC_TIMESTAMP_CAPACITY,
                );
                (bytes, prepared)
            })
            .await?;
        file.bytes = bytes;
        let prepared = prepared.map_err(|e| {
            Error::Internal(format!("preparing the document timestamp failed: {e}"))
        })?;
        let token = match seal::timestamp_digest(tsa.as_ref(), prepared.digest()).await {
            Ok(token) => token,
            Err(e) => {
                self.timestamp_missing(what, &e);
                return Ok(false);
            }
        };
        let expires = match seal::earliest_expiry(&token) {
            Ok(at) => at.map(Timestamp::from),
            Err(e) => {
                self.timestamp_missing(what, &e);
                return Ok(false);
            }
        };
        let sealed = match prepared.fill(&token) {
            Ok(sealed) => sealed,
            Err(e) => {
                // A token larger than the room kept for it: the authority's answer, not ours.
                self.timestamp_missing(what, &e);
                return Ok(false);
            }
        };
        file.append(&sealed.update);
        file.level = if file.level == SealLevel::BB {
            SealLevel::BT
        } else {
            file.archive_expires_at = expires;
            SealLevel::BLta
        };
        Ok(true)
    }

    /// Appends the DSS with the certificates and revocation answers of every signature in the
    /// file; `false` when the material could not be had.
    async fn security_store(
        &mut self,
        service: &SigningService,
        file: &mut Growing,
        material: Material,
        what: &str,
    ) -> Result<bool> {
        let Some(fetcher) = self.revocation else {
            return Ok(false);
        };
        if self.revocation_failed {
            return Ok(false);
        }
        let bytes = std::mem::take(&mut file.bytes);
        let (bytes, certs) = service
            .completion_blocking("validation_data", move || {
                let certs = certificates_of(&bytes, material);
                (bytes, certs)
            })
            .await?;
        file.bytes = bytes;
        let certs = certs?;
        let (certs, held) = certs;
        let material = match fetcher.collect_with_issuers(&certs, &held).await {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(
                    envelope = %self.envelope,
                    file = what,
                    error = %e,
                    "no revocation material: this envelope's files stay below their target \
                     level for now (the upgrade sweep adds it later), and the envelope completes"
                );
                self.revocation_failed = true;
                metrics::counter!("envelope_seal_below_target_total", "missing" => "revocation")
                    .increment(1);
                return Ok(false);
            }
        };
        let data = pdf::ValidationData {
            certs: material.certs,
            ocsps: material.ocsps,
            crls: material.crls,
        };
        let bytes = std::mem::take(&mut file.bytes);
        let (bytes, update) = service
            .completion_blocking("dss", move || {
                let update = pdf::dss_update(&bytes, &data);
                (bytes, update)
            })
            .await?;
        file.bytes = bytes;
        let update = update.map_err(|e| Error::Internal(format!("writing the DSS failed: {e}")))?;
        file.append(&update);
        file.level = SealLevel::BLt;
        Ok(true)
    }
}

/// DER certificates.
type Ders = Vec<Vec<u8>>;

/// Whose certificates a DSS update is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Material {
    /// Every signature and document timestamp of the file (B-LT).
    Everything,
    /// The newest document timestamp only (renewal: the older material is in the DSS already,
    /// and the seal's own certificate may have expired since).
    NewestTimestamp,
}

/// The certificates to collect material for: those in the file's signatures and document
/// timestamps (with their timestamps'), each once, all of them or the newest document
/// timestamp's; and, for the newest timestamp, the certificates the file holds already (its
/// DSS and its other signatures), where its issuers are looked for first.
fn certificates_of(file: &[u8], material: Material) -> Result<(Ders, Ders)> {
    let unreadable =
        |e: pdf::PdfError| Error::Internal(format!("reading the file's signatures failed: {e}"));
    let signatures = pdf::signatures(file).map_err(unreadable)?;
    let all = certificates_in(&signatures)?;
    if material == Material::Everything {
        return Ok((all, Vec::new()));
    }
    // Form order is the order they were added.
    let newest: Vec<_> = signatures
        .iter()
        .rfind(|s| s.doc_timestamp)
        .cloned()
        .into_iter()
        .collect();
    let mut held = pdf::stored_validation_data(file).map_err(unreadable)?.certs;
    held.extend(all);
    Ok((certificates_in(&newest)?, held))
}

/// The certificates of `signatures` (with their timestamps'), each once.
fn certificates_in(signatures: &[pdf::EmbeddedSignature]) -> Result<Vec<Vec<u8>>> {
    let mut certs: Vec<Vec<u8>> = Vec::new();
    for sig in signatures {
        let found = seal::certificates_in(sig.der())
            .map_err(|e| Error::Internal(format!("reading a signature's certificates: {e}")))?;
        for der in found {
            if !certs.contains(&der) {
                certs.push(der);
            }
        }
    }
    Ok(certs)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use async_trait::async_trait;

    use super::*;
    use crate::seal::CertificateInfo;

    /// A sealer whose `sign` answers `fail` (a timestamp that cannot be had) or succeeds, and
    /// counts its calls.
    struct Counting {
        info: CertificateInfo,
        timestamps: bool,
        fail: fn() -> SealError,
        signed: AtomicUsize,
        signed_without: AtomicUsize,
    }

    impl Counting {
        fn new(timestamps: bool, fail: fn() -> SealError) -> Self {
            Counting {
                info: CertificateInfo {
                    sha256_fingerprint: "00".repeat(32),
                    subject: "CN=Counting".into(),
                    development: true,
                },
                timestamps,
                fail,
                signed: AtomicUsize::new(0),
                signed_without: AtomicUsize::new(0),
            }
        }
    }

    #[async_trait]
    impl Sealer for Counting {
        fn certificate(&self) -> &CertificateInfo {
            &self.info
        }
        fn capacity(&self) -> usize {
            16 * 1024
        }
        fn timestamps(&self) -> bool {
            self.timestamps
        }
        async fn sign(&self, _: [u8; 32]) -> std::result::Result<Vec<u8>, SealError> {
            self.signed.fetch_add(1, Ordering::Relaxed);
            Err((self.fail)())
        }
        async fn sign_without_timestamp(
            &self,
            _: [u8; 32],
        ) -> std::result::Result<Vec<u8>, SealError> {
            self.signed_without.fetch_add(1, Ordering::Relaxed);
            Ok(b"cms".to_vec())
        }
    }

    #[tokio::test]
    async fn a_timestamp_that_cannot_be_had_is_asked_for_once_per_envelope() {
        type Failure = fn() -> SealError;
        let cases: [(&str, Failure); 2] = [
            ("unavailable", || SealError::Unavailable {
                source: "connection refused".into(),
            }),
            ("refused", || SealError::Timestamp("status 2".into())),
        ];
        for (name, fail) in cases {
            let sealer = Counting::new(true, fail);
            let rec = crate::ids::EnvelopeId::new();
            let mut seals = Seals::new(&sealer, None, target_level(None, &sealer, None), &rec);
            assert_eq!(seals.target_level(), SealLevel::BT);
            for n in 0..3 {
                let (cms, level) = seals.sign([0; 32], "document").await.unwrap();
                assert_eq!(
                    (cms.as_slice(), level),
                    (&b"cms"[..], SealLevel::BB),
                    "{name} {n}"
                );
            }
            assert_eq!(sealer.signed.load(Ordering::Relaxed), 1, "{name}");
            assert_eq!(sealer.signed_without.load(Ordering::Relaxed), 3, "{name}");
        }
    }

    #[tokio::test]
    async fn other_failures_fail_the_seal() {
        // A key that cannot sign is no timestamp problem: no weaker seal hides it.
        let sealer = Counting::new(true, || SealError::Key("gone".into()));
        let rec = crate::ids::EnvelopeId::new();
        let mut seals = Seals::new(&sealer, None, target_level(None, &sealer, None), &rec);
        assert!(matches!(
            seals.sign([0; 32], "document").await,
            Err(SealError::Key(_))
        ));
        assert_eq!(sealer.signed_without.load(Ordering::Relaxed), 0);
        // A sealer without timestamps is B-B, and its own failure is the seal's.
        let sealer = Counting::new(false, || SealError::Unavailable {
            source: "remote signer down".into(),
        });
        let mut seals = Seals::new(&sealer, None, target_level(None, &sealer, None), &rec);
        assert_eq!(seals.target_level(), SealLevel::BB);
        assert!(matches!(
            seals.sign([0; 32], "document").await,
            Err(SealError::Unavailable { .. })
        ));
        assert_eq!(sealer.signed_without.load(Ordering::Relaxed), 0);
    }
}
