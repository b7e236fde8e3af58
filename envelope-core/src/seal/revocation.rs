//! Revocation material for long-term seals (PAdES B-LT): the certificates of a chain and, for
//! each certificate that is not a root, an OCSP response (RFC 6960) from the responder its AIA
//! names, or the CRL of its CRL distribution point where no responder is named or it fails.
//! What [`RevocationFetcher::collect`] returns is what the PDF's Document Security Store takes:
//! three lists of DER.
//!
//! | [`RevocationSource`] | where the questions go |
//! |---|---|
//! | [`MemoryRevocationSource`] | answers held in memory, by URL (tests, offline use) |
//! | `HttpRevocationSource` (feature `https`) | the URLs in the certificates, over HTTP, with a timeout and a size cap |
//!
//! # What is checked, and what is left to validators
//!
//! An answer is taken only when it is about the certificate asked for: an OCSP response must be
//! `successful`, of the basic type, hold a `SingleResponse` whose CertID matches the request
//! (SHA-1 name and key hashes, serial), and carry a signature that verifies with the issuer's
//! key or with a delegated responder certificate (issued by the issuer, with the OCSP-signing
//! extended key usage, its own signature checked too). A CRL must name the certificate's issuer
//! and verify with its key. Signatures are checked for ECDSA P-256 with SHA-256 (the keys this
//! project issues and seals with); other algorithms are left to validators, as are the
//! certificate's status (a `revoked` answer is material too: the validator decides what it
//! means), the freshness policy, and the chain up to a trust anchor.
//!
//! Valid answers are cached until their `nextUpdate` (an answer without one is not cached), in
//! a bounded table keyed by URL and request. This module never decides a seal's level: an error
//! is returned, and the caller seals at the level it can reach.

mod check;
#[cfg(feature = "https")]
mod http;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::clock::{Clock, SystemClock};
use crate::error::BoxError;

#[cfg(feature = "https")]
pub use http::HttpRevocationSource;

/// Most answers kept in a fetcher's cache.
const CACHE_ENTRIES: usize = 256;
/// Most issuers fetched through caIssuers for one collection.
const MAX_CHAIN: usize = 8;

/// The certificates and revocation answers of one or more chains, as DER: what a DSS holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RevocationMaterial {
    /// Every certificate of the chain (leaf first), issuers fetched through caIssuers and
    /// delegated OCSP responders' certificates included; no duplicates.
    pub certs: Vec<Vec<u8>>,
    /// `OCSPResponse`s (the whole response, status and basic response).
    pub ocsps: Vec<Vec<u8>>,
    /// `CertificateList`s.
    pub crls: Vec<Vec<u8>>,
}

impl RevocationMaterial {
    /// Adds `other`'s items that are not here yet (the sealing chain and the TSA's share a root).
    pub fn merge(&mut self, other: RevocationMaterial) {
        for (mine, theirs) in [
            (&mut self.certs, other.certs),
            (&mut self.ocsps, other.ocsps),
            (&mut self.crls, other.crls),
        ] {
            for item in theirs {
                if !mine.contains(&item) {
                    mine.push(item);
                }
            }
        }
    }
}

/// What a [`RevocationSource`] is asked for (it decides the HTTP method and media types).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RevocationKind {
    /// An OCSP request, POSTed as `application/ocsp-request`.
    Ocsp,
    /// A CRL, fetched with GET.
    Crl,
    /// An issuer's certificate from an AIA caIssuers URL, fetched with GET.
    Certificate,
}

/// Why revocation material could not be had.
#[derive(Debug, thiserror::Error)]
pub enum RevocationError {
    /// The service could not be reached, did not answer in time, or answered with an HTTP
    /// error: a later attempt may succeed.
    #[error("{url} is unavailable: {source}")]
    Unavailable {
        /// What was asked.
        url: String,
        /// The transport's error.
        source: BoxError,
    },
    /// The answer was refused: too large, not DER, not about this certificate, a bad signature,
    /// an OCSP status other than `successful`; or the certificate names no service at all.
    #[error("revocation material for {url} was refused: {reason}")]
    Invalid {
        /// What was asked (or the certificate's subject when it names no service).
        url: String,
        /// Why, in words (never the answer's bytes).
        reason: String,
    },
}

impl RevocationError {
    pub(crate) fn invalid(url: &str, reason: impl Into<String>) -> Self {
        RevocationError::Invalid {
            url: url.to_string(),
            reason: reason.into(),
        }
    }
}

/// Fetches one answer from a revocation or certificate service.
///
/// # Contract
///
/// - `fetch(url, Some(body), Ocsp)` POSTs `body` (a DER `OCSPRequest`) to `url` and returns the
///   answer's bytes; `fetch(url, None, Crl | Certificate)` GETs `url`.
/// - It gives up after a bounded time and refuses an answer past a bounded size, with
///   [`RevocationError::Unavailable`] (no answer, an HTTP error status) or
///   [`RevocationError::Invalid`] (too large). It does not parse or cache: the
///   [`RevocationFetcher`] above it does.
#[async_trait]
pub trait RevocationSource: Send + Sync + 'static {
    /// The answer of `url` to `body` (POST) or to a GET when `body` is `None`.
    async fn fetch(
        &self,
        url: &str,
        body: Option<Vec<u8>>,
        kind: RevocationKind,
    ) -> Result<Vec<u8>, RevocationError>;
}

/// A [`RevocationSource`] that answers from memory: each URL's bytes as given (OCSP requests
/// are not read, so one answer serves every request to its URL). For tests and offline use; an
/// unknown URL is `Unavailable`, as a host that does not answer would be.
#[derive(Debug, Default)]
pub struct MemoryRevocationSource {
    answers: HashMap<String, Vec<u8>>,
    asked: Mutex<Vec<String>>,
}

impl MemoryRevocationSource {
    /// A source that knows no URL.
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers `url` with `answer`.
    pub fn with_answer(mut self, url: &str, answer: Vec<u8>) -> Self {
        self.answers.insert(url.to_string(), answer);
        self
    }

    /// Every URL asked so far, in order.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[async_trait]
impl RevocationSource for MemoryRevocationSource {
    async fn fetch(
        &self,
        url: &str,
        _: Option<Vec<u8>>,
        _: RevocationKind,
    ) -> Result<Vec<u8>, RevocationError> {
        self.asked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(url.to_string());
        self.answers
            .get(url)
            .cloned()
            .ok_or_else(|| RevocationError::Unavailable {
                url: url.to_string(),
                source: "no answer is held for this URL".into(),
            })
    }
}

/// Collects [`RevocationMaterial`] for certificate chains through a [`RevocationSource`], with a
/// cache of valid answers kept until their `nextUpdate`.
pub struct RevocationFetcher {
    source: Arc<dyn RevocationSource>,
    clock: Arc<dyn Clock>,
    cache: Mutex<HashMap<(String, Vec<u8>), Cached>>,
}

#[derive(Clone)]
struct Cached {
    answer: Vec<u8>,
    until: DateTime<Utc>,
}

impl std::fmt::Debug for RevocationFetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let entries = self.cache.lock().map(|c| c.len()).unwrap_or(0);
        f.debug_struct("RevocationFetcher")
            .field("cached_answers", &entries)
            .finish_non_exhaustive()
    }
}

impl RevocationFetcher {
    /// A fetcher that asks `source`, on the wall clock.
    pub fn new(source: Arc<dyn RevocationSource>) -> Self {
        RevocationFetcher {
            source,
            clock: Arc::new(SystemClock),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Uses `clock` to decide whether a cached answer is still valid.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The material for the certificates `certs` (DER): one chain leaf first, or several chains
    /// in any order (a seal's and its timestamp authority's, as [`crate::seal::certificates_in`]
    /// gives them). A certificate whose issuer is not among them and that is not self-signed gets
    /// it from its caIssuers URL where it names one (at most 8 fetched in all). Every
    /// certificate that is not self-signed gets an OCSP response, or a CRL when its AIA names no
    /// responder or the responder fails; when neither can be had, the error of the last attempt
    /// is returned. `material.certs` holds `certs` in their order, then those fetched.
    pub async fn collect(&self, certs: &[Vec<u8>]) -> Result<RevocationMaterial, RevocationError> {
        self.collect_with_issuers(certs, &[]).await
    }

    /// [`Self::collect`], looking for missing issuers among `issuers` (DER certificates held
    /// already, such as a DSS's) before their caIssuers URLs. An issuer taken from there joins
    /// the certificates checked, so its own revocation answer is collected too; the others are
    /// left out.
    pub async fn collect_with_issuers(
        &self,
        certs: &[Vec<u8>],
        issuers: &[Vec<u8>],
    ) -> Result<RevocationMaterial, RevocationError> {
        let mut certs = certs
            .iter()
            .map(|der| check::Cert::parse(der))
            .collect::<Result<Vec<_>, _>>()?;
        if certs.is_empty() {
            return Err(RevocationError::invalid("(chain)", "the chain is empty"));
        }
        // Unreadable certificates among those held are not the caller's question: skipped.
        let held: Vec<check::Cert> = issuers
            .iter()
            .filter_map(|der| check::Cert::parse(der).ok())
            .collect();
        let mut fetched = 0;
        let mut i = 0;
        while i < certs.len() {
            let cert = &certs[i];
            i += 1;
            if cert.self_signed() || issuer_of(&certs, cert).is_some() {
                continue;
            }
            if let Some(found) = issuer_of(&held, cert) {
                let found = check::Cert::parse(found.der())?;
                certs.push(found);
                continue;
            }
            if fetched >= MAX_CHAIN {
                continue;
            }
            let Some(url) = cert.ca_issuers().into_iter().next() else {
                continue;
            };
            let der = self
                .source
                .fetch(&url, None, RevocationKind::Certificate)
                .await?;
            let issuer = check::Cert::parse_any(&url, &der)?;
            if !cert.issued_by(&issuer) {
                return Err(RevocationError::invalid(
                    &url,
                    "the certificate fetched is not the issuer",
                ));
            }
            fetched += 1;
            certs.push(issuer);
        }

        let mut material = RevocationMaterial::default();
        for cert in &certs {
            push_new(&mut material.certs, cert.der().to_vec());
        }
        for cert in &certs {
            if cert.self_signed() {
                continue;
            }
            let Some(issuer) = issuer_of(&certs, cert) else {
                return Err(RevocationError::invalid(
                    &cert.subject(),
                    "the chain ends without the issuer, and no caIssuers URL gives it",
                ));
            };
            self.revocation_of(cert, issuer, &mut material).await?;
        }
        Ok(material)
    }

    /// Adds an OCSP response for `cert`, or else a CRL.
    async fn revocation_of(
        &self,
        cert: &check::Cert,
        issuer: &check::Cert,
        material: &mut RevocationMaterial,
    ) -> Result<(), RevocationError> {
        let mut failures = Vec::new();
        for url in cert.ocsp_urls() {
            match self.ocsp(&url, cert, issuer).await {
                Ok((response, responder)) => {
                    if let Some(responder) = responder {
                        push_new(&mut material.certs, responder);
                    }
                    push_new(&mut material.ocsps, response);
                    return Ok(());
                }
                Err(e) => {
                    tracing::warn!(url = %url, error = %e, "OCSP failed; trying the CRL");
                    failures.push(e);
                }
            }
        }
        for url in cert.crl_urls() {
            match self.crl(&url, cert, issuer).await {
                Ok(crl) => {
                    push_new(&mut material.crls, crl);
                    return Ok(());
                }
                Err(e) => {
                    tracing::warn!(url = %url, error = %e, "CRL failed");
                    failures.push(e);
                }
            }
        }
        Err(all_failed(&cert.subject(), failures))
    }

    /// A checked OCSP response for `cert`, and the delegated responder's certificate if any.
    async fn ocsp(
        &self,
        url: &str,
        cert: &check::Cert,
        issuer: &check::Cert,
    ) -> Result<(Vec<u8>, Option<Vec<u8>>), RevocationError> {
        let request = check::ocsp_request(cert, issuer, url)?;
        if let Some(answer) = self.cached(url, &request) {
            let checked = check::ocsp_response(url, &answer, cert, issuer)?;
            return Ok((answer, checked.responder));
        }
        let answer = self
            .source
            .fetch(url, Some(request.clone()), RevocationKind::Ocsp)
            .await?;
        let checked = check::ocsp_response(url, &answer, cert, issuer)?;
        if let Some(until) = checked.next_update {
            self.remember(url, request, answer.clone(), until);
        }
        Ok((answer, checked.responder))
    }

    /// A checked CRL of `issuer` from `url`.
    async fn crl(
        &self,
        url: &str,
        cert: &check::Cert,
        issuer: &check::Cert,
    ) -> Result<Vec<u8>, RevocationError> {
        if let Some(answer) = self.cached(url, &[]) {
            // Checked again: two issuers could name one URL.
            check::crl(url, &answer, cert, issuer)?;
            return Ok(answer);
        }
        let answer = self.source.fetch(url, None, RevocationKind::Crl).await?;
        let next_update = check::crl(url, &answer, cert, issuer)?;
        if let Some(until) = next_update {
            self.remember(url, Vec::new(), answer.clone(), until);
        }
        Ok(answer)
    }

    fn cached(&self, url: &str, request: &[u8]) -> Option<Vec<u8>> {
        let now = self.clock.now().datetime();
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .get(&(url.to_string(), request.to_vec()))
            .filter(|c| c.until > now)
            .map(|c| c.answer.clone())
    }

    fn remember(&self, url: &str, request: Vec<u8>, answer: Vec<u8>, until: DateTime<Utc>) {
        let now = self.clock.now().datetime();
        if until <= now {
            return;
        }
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= CACHE_ENTRIES {
            cache.retain(|_, c| c.until > now);
        }
        if cache.len() >= CACHE_ENTRIES {
            // Full of valid answers: the one that expires first goes.
            if let Some(key) = cache
                .iter()
                .min_by_key(|(_, c)| c.until)
                .map(|(k, _)| k.clone())
            {
                cache.remove(&key);
            }
        }
        cache.insert((url.to_string(), request), Cached { answer, until });
    }
}

/// The certificate of `certs` that issued `cert` (by name), other than `cert` itself.
fn issuer_of<'a>(certs: &'a [check::Cert], cert: &check::Cert) -> Option<&'a check::Cert> {
    certs
        .iter()
        .find(|c| c.der() != cert.der() && cert.issued_by(c))
}

/// One error for a certificate whose every source failed: `Unavailable` when any of them was
/// (a later attempt may succeed), else `Invalid`; the message lists every failure in order.
fn all_failed(subject: &str, failures: Vec<RevocationError>) -> RevocationError {
    if failures.is_empty() {
        return RevocationError::invalid(
            subject,
            "the certificate names neither an OCSP responder nor a CRL distribution point",
        );
    }
    let unavailable = failures
        .iter()
        .any(|e| matches!(e, RevocationError::Unavailable { .. }));
    let reasons = failures
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ");
    if unavailable {
        RevocationError::Unavailable {
            url: subject.to_string(),
            source: reasons.into(),
        }
    } else {
        RevocationError::invalid(subject, reasons)
    }
}

fn push_new(list: &mut Vec<Vec<u8>>, item: Vec<u8>) {
    if !list.contains(&item) {
        list.push(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{ManualClock, Timestamp};

    fn fetcher_at(clock: Arc<ManualClock>) -> RevocationFetcher {
        RevocationFetcher::new(Arc::new(MemoryRevocationSource::new())).with_clock(clock)
    }

    #[tokio::test]
    async fn a_root_needs_no_answer_and_what_is_not_a_chain_is_invalid() {
        let dev = crate::seal::SigningIdentity::generate_development("Root").unwrap();
        let root = der::Encode::to_der(&dev.identity.chain()[0]).unwrap();
        let source = Arc::new(MemoryRevocationSource::new());
        let fetcher = RevocationFetcher::new(source.clone());
        let got = fetcher.collect(std::slice::from_ref(&root)).await.unwrap();
        assert_eq!(got.certs, vec![root]);
        assert!(got.ocsps.is_empty() && got.crls.is_empty());
        assert!(source.asked().is_empty(), "a root is not asked about");
        assert!(matches!(
            fetcher.collect(&[]).await,
            Err(RevocationError::Invalid { .. })
        ));
        assert!(matches!(
            fetcher.collect(&[b"not a certificate".to_vec()]).await,
            Err(RevocationError::Invalid { .. })
        ));
    }

    #[tokio::test]
    async fn the_memory_source_answers_what_it_holds() {
        let source = MemoryRevocationSource::new().with_answer("http://crl", vec![1, 2]);
        assert_eq!(
            source
                .fetch("http://crl", None, RevocationKind::Crl)
                .await
                .unwrap(),
            vec![1, 2]
        );
        assert!(matches!(
            source.fetch("http://else", None, RevocationKind::Crl).await,
            Err(RevocationError::Unavailable { .. })
        ));
        assert_eq!(source.asked(), vec!["http://crl", "http://else"]);
    }

    #[test]
    fn an_answer_is_served_until_its_next_update_only() {
        let start = Timestamp::from_millis(1_800_000_000_000).unwrap();
        let clock = Arc::new(ManualClock::new(start));
        let fetcher = fetcher_at(clock.clone());
        let until = start.datetime() + chrono::Duration::minutes(10);
        fetcher.remember("http://ocsp", vec![1], vec![9], until);
        assert_eq!(fetcher.cached("http://ocsp", &[1]), Some(vec![9]));
        assert_eq!(fetcher.cached("http://ocsp", &[2]), None, "another request");
        assert_eq!(fetcher.cached("http://other", &[1]), None, "another URL");
        clock.advance(chrono::Duration::minutes(10));
        assert_eq!(fetcher.cached("http://ocsp", &[1]), None, "at nextUpdate");
        // An answer already past its nextUpdate is not kept at all.
        fetcher.remember("http://late", vec![], vec![9], until);
        assert!(
            !fetcher
                .cache
                .lock()
                .unwrap()
                .contains_key(&("http://late".into(), vec![]))
        );
    }

    #[test]
    fn the_cache_is_bounded_and_drops_the_soonest_to_expire() {
        let start = Timestamp::from_millis(1_800_000_000_000).unwrap();
        let fetcher = fetcher_at(Arc::new(ManualClock::new(start)));
        let at = |minutes: i64| start.datetime() + chrono::Duration::minutes(minutes);
        for i in 0..CACHE_ENTRIES {
            fetcher.remember(
                &format!("http://ocsp/{i}"),
                vec![],
                vec![1],
                at(10 + i as i64),
            );
        }
        fetcher.remember("http://ocsp/new", vec![], vec![2], at(1_000));
        assert_eq!(fetcher.cache.lock().unwrap().len(), CACHE_ENTRIES);
        assert_eq!(
            fetcher.cached("http://ocsp/0", &[]),
            None,
            "the soonest went"
        );
        assert_eq!(fetcher.cached("http://ocsp/1", &[]), Some(vec![1]));
        assert_eq!(fetcher.cached("http://ocsp/new", &[]), Some(vec![2]));
    }

    #[test]
    fn merge_keeps_one_of_each() {
        let mut a = RevocationMaterial {
            certs: vec![vec![1], vec![2]],
            ocsps: vec![vec![3]],
            crls: vec![],
        };
        a.merge(RevocationMaterial {
            certs: vec![vec![2], vec![4]],
            ocsps: vec![vec![3]],
            crls: vec![vec![5]],
        });
        assert_eq!(a.certs, vec![vec![1], vec![2], vec![4]]);
        assert_eq!(a.ocsps, vec![vec![3]]);
        assert_eq!(a.crls, vec![vec![5]]);
    }
}
