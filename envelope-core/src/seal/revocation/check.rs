//! Reading certificates, building OCSP requests and checking OCSP responses and CRLs: the parts
//! of revocation fetching that need no network.
//!
//! The basic OCSP response is decoded with this module's own types rather than `x509-ocsp`'s:
//! its times are `GeneralizedTime`, which RFC 6960 does not restrict to whole seconds, and
//! responders send fractions (certomancer does) that `der`'s X.509-profile type refuses. They
//! are read with the timestamp module's `GenTime`, which keeps the bytes as received.

use chrono::{DateTime, Utc};
use der::asn1::{Any, BitString, Null, ObjectIdentifier as Oid, OctetString};
use der::oid::db::{rfc5280, rfc5912};
use der::{Choice, Decode, Encode, Sequence};
use p256::ecdsa::signature::Verifier;
use p256::ecdsa::{DerSignature, VerifyingKey};
use p256::pkcs8::DecodePublicKey;
use sha1::{Digest, Sha1};
use spki::AlgorithmIdentifierOwned;
use x509_cert::Certificate;
use x509_cert::crl::CertificateList;
use x509_cert::ext::Extensions;
use x509_cert::ext::pkix::name::{DistributionPointName, GeneralName};
use x509_cert::ext::pkix::{AuthorityInfoAccessSyntax, CrlDistributionPoints, ExtendedKeyUsage};
use x509_ocsp::{CertId, OcspRequest, OcspResponse, OcspResponseStatus, Request, ResponderId};
use x509_ocsp::{TbsRequest, Version};

use super::RevocationError;
use crate::seal::gen_time::GenTime;

/// `id-pkix-ocsp-basic`.
const OCSP_BASIC: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.48.1.1");

/// A parsed certificate and its DER.
pub(super) struct Cert {
    der: Vec<u8>,
    cert: Certificate,
}

impl Cert {
    pub(super) fn parse(der: &[u8]) -> Result<Cert, RevocationError> {
        let cert = Certificate::from_der(der).map_err(|e| {
            RevocationError::invalid("(chain)", format!("not a DER certificate ({e})"))
        })?;
        Ok(Cert {
            der: der.to_vec(),
            cert,
        })
    }

    /// A certificate from a caIssuers URL: DER, or PEM (some servers send it).
    pub(super) fn parse_any(url: &str, bytes: &[u8]) -> Result<Cert, RevocationError> {
        let cert = Certificate::from_der(bytes)
            .or_else(|_| Certificate::load_pem_chain(bytes).map(|mut c| c.remove(0)))
            .map_err(|e| RevocationError::invalid(url, format!("not a certificate ({e})")))?;
        let der = cert
            .to_der()
            .map_err(|e| RevocationError::invalid(url, e.to_string()))?;
        Ok(Cert { der, cert })
    }

    pub(super) fn der(&self) -> &[u8] {
        &self.der
    }

    pub(super) fn subject(&self) -> String {
        self.cert.tbs_certificate.subject.to_string()
    }

    pub(super) fn self_signed(&self) -> bool {
        self.cert.tbs_certificate.subject == self.cert.tbs_certificate.issuer
    }

    /// Whether `issuer` is this certificate's issuer by name (the signature is the validator's
    /// to check; the revocation answers are checked against `issuer`'s key).
    pub(super) fn issued_by(&self, issuer: &Cert) -> bool {
        self.cert.tbs_certificate.issuer == issuer.cert.tbs_certificate.subject
    }

    fn aia(&self, method: Oid) -> Vec<String> {
        let Ok(Some((_, aia))) = self.cert.tbs_certificate.get::<AuthorityInfoAccessSyntax>()
        else {
            return Vec::new();
        };
        aia.0
            .iter()
            .filter(|d| d.access_method == method)
            .filter_map(|d| http_uri(&d.access_location))
            .collect()
    }

    pub(super) fn ocsp_urls(&self) -> Vec<String> {
        self.aia(rfc5280::ID_AD_OCSP)
    }

    pub(super) fn ca_issuers(&self) -> Vec<String> {
        self.aia(rfc5280::ID_AD_CA_ISSUERS)
    }

    pub(super) fn crl_urls(&self) -> Vec<String> {
        let Ok(Some((_, points))) = self.cert.tbs_certificate.get::<CrlDistributionPoints>() else {
            return Vec::new();
        };
        points
            .0
            .iter()
            .filter_map(|p| match &p.distribution_point {
                Some(DistributionPointName::FullName(names)) => Some(names),
                _ => None,
            })
            .flatten()
            .filter_map(http_uri)
            .collect()
    }

    fn public_key_bits(&self) -> &[u8] {
        self.cert
            .tbs_certificate
            .subject_public_key_info
            .subject_public_key
            .raw_bytes()
    }

    /// The certificate's key when it is P-256; `None` for any other algorithm.
    fn p256_key(&self) -> Option<VerifyingKey> {
        let spki = self
            .cert
            .tbs_certificate
            .subject_public_key_info
            .to_der()
            .ok()?;
        VerifyingKey::from_public_key_der(&spki).ok()
    }
}

/// Only http URLs are followed: RFC 5280 (4.2.2.1, 4.2.1.13) names HTTP for both, and an
/// `ldap:` or `https:` entry beside it is skipped.
fn http_uri(name: &GeneralName) -> Option<String> {
    match name {
        GeneralName::UniformResourceIdentifier(uri) if uri.as_str().starts_with("http://") => {
            Some(uri.as_str().to_string())
        }
        _ => None,
    }
}

/// The CertID of `cert` (RFC 6960 4.1.1 with SHA-1, as RFC 5019 profiles it).
fn cert_id(cert: &Cert, issuer: &Cert) -> Result<CertId, der::Error> {
    let name = issuer.cert.tbs_certificate.subject.to_der()?;
    Ok(CertId {
        hash_algorithm: AlgorithmIdentifierOwned {
            oid: rfc5912::ID_SHA_1,
            parameters: Some(Any::from(Null)),
        },
        issuer_name_hash: OctetString::new(Sha1::digest(&name).to_vec())?,
        issuer_key_hash: OctetString::new(Sha1::digest(issuer.public_key_bits()).to_vec())?,
        serial_number: cert.cert.tbs_certificate.serial_number.clone(),
    })
}

/// The DER `OCSPRequest` for `cert`: one request, unsigned, without a nonce (so that the answer
/// can be cached, as RFC 5019 intends).
pub(super) fn ocsp_request(
    cert: &Cert,
    issuer: &Cert,
    url: &str,
) -> Result<Vec<u8>, RevocationError> {
    let encode = |e: der::Error| RevocationError::invalid(url, e.to_string());
    let request = OcspRequest {
        tbs_request: TbsRequest {
            version: Version::V1,
            requestor_name: None,
            request_list: vec![Request {
                req_cert: cert_id(cert, issuer).map_err(encode)?,
                single_request_extensions: None,
            }],
            request_extensions: None,
        },
        optional_signature: None,
    };
    request.to_der().map_err(encode)
}

#[derive(Sequence)]
struct BasicResponse {
    tbs_response_data: Any,
    signature_algorithm: AlgorithmIdentifierOwned,
    signature: BitString,
    #[asn1(context_specific = "0", optional = "true", tag_mode = "EXPLICIT")]
    certs: Option<Vec<Certificate>>,
}

#[derive(Sequence)]
struct ResponseData {
    #[asn1(
        context_specific = "0",
        default = "Default::default",
        tag_mode = "EXPLICIT"
    )]
    version: Version,
    responder_id: ResponderId,
    produced_at: GenTime,
    responses: Vec<SingleResponse>,
    #[asn1(context_specific = "1", optional = "true", tag_mode = "EXPLICIT")]
    response_extensions: Option<Extensions>,
}

#[derive(Sequence)]
struct SingleResponse {
    cert_id: CertId,
    cert_status: CertStatus,
    this_update: GenTime,
    #[asn1(context_specific = "0", optional = "true", tag_mode = "EXPLICIT")]
    next_update: Option<GenTime>,
    #[asn1(context_specific = "1", optional = "true", tag_mode = "EXPLICIT")]
    single_extensions: Option<Extensions>,
}

/// The status of the certificate in a response. Read to reach the times after it; its meaning
/// is the validator's.
#[derive(Choice)]
#[allow(dead_code)]
enum CertStatus {
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT")]
    Good(Null),
    #[asn1(context_specific = "1", tag_mode = "IMPLICIT", constructed = "true")]
    Revoked(RevokedInfo),
    #[asn1(context_specific = "2", tag_mode = "IMPLICIT")]
    Unknown(Null),
}

#[derive(Sequence)]
struct RevokedInfo {
    revocation_time: GenTime,
    #[asn1(context_specific = "0", optional = "true", tag_mode = "EXPLICIT")]
    revocation_reason: Option<Any>,
}

/// What a checked OCSP response gives the fetcher.
pub(super) struct CheckedOcsp {
    /// Until when the answer may be reused.
    pub(super) next_update: Option<DateTime<Utc>>,
    /// A delegated responder's certificate (DER), for the DSS.
    pub(super) responder: Option<Vec<u8>>,
}

/// Checks that `answer` is a successful, signed basic OCSP response about `cert`.
pub(super) fn ocsp_response(
    url: &str,
    answer: &[u8],
    cert: &Cert,
    issuer: &Cert,
) -> Result<CheckedOcsp, RevocationError> {
    let bad = |reason: String| RevocationError::invalid(url, reason);
    let response = OcspResponse::from_der(answer)
        .map_err(|e| bad(format!("not a DER OCSP response ({e})")))?;
    if response.response_status != OcspResponseStatus::Successful {
        return Err(bad(format!(
            "the responder answered {:?}",
            response.response_status
        )));
    }
    let bytes = response
        .response_bytes
        .ok_or_else(|| bad("a successful response without a body".into()))?;
    if bytes.response_type != OCSP_BASIC {
        return Err(bad(format!(
            "response type {} is not basic",
            bytes.response_type
        )));
    }
    let basic = BasicResponse::from_der(bytes.response.as_bytes())
        .map_err(|e| bad(format!("unreadable basic response ({e})")))?;
    let tbs = basic
        .tbs_response_data
        .to_der()
        .map_err(|e| bad(e.to_string()))?;
    let data =
        ResponseData::from_der(&tbs).map_err(|e| bad(format!("unreadable ResponseData ({e})")))?;

    let wanted = cert_id(cert, issuer).map_err(|e| bad(e.to_string()))?;
    let single = data
        .responses
        .iter()
        .find(|r| r.cert_id == wanted)
        .ok_or_else(|| bad("no answer about this certificate (CertID differs)".into()))?;
    let next_update = match &single.next_update {
        Some(t) => Some(t.instant().map_err(|e| bad(format!("nextUpdate: {e}")))?),
        None => None,
    };
    single
        .this_update
        .instant()
        .map_err(|e| bad(format!("thisUpdate: {e}")))?;

    // Who signed: the issuer itself, or a responder certificate the issuer delegated to.
    let names_issuer = match &data.responder_id {
        ResponderId::ByName(name) => *name == issuer.cert.tbs_certificate.subject,
        ResponderId::ByKey(hash) => {
            hash.as_bytes() == Sha1::digest(issuer.public_key_bits()).as_slice()
        }
    };
    let mut responder = None;
    let signer_key = if names_issuer {
        issuer.p256_key()
    } else {
        let delegate = basic
            .certs
            .iter()
            .flatten()
            .find(|c| match &data.responder_id {
                ResponderId::ByName(name) => c.tbs_certificate.subject == *name,
                ResponderId::ByKey(hash) => {
                    hash.as_bytes()
                        == Sha1::digest(
                            c.tbs_certificate
                                .subject_public_key_info
                                .subject_public_key
                                .raw_bytes(),
                        )
                        .as_slice()
                }
            })
            .ok_or_else(|| bad("the responder's certificate is not in the response".into()))?;
        let der = delegate.to_der().map_err(|e| bad(e.to_string()))?;
        let delegate = Cert::parse(&der)?;
        check_delegate(url, &delegate, issuer)?;
        responder = Some(der);
        delegate.p256_key()
    };
    if let Some(key) = signer_key {
        verify(
            url,
            &key,
            &basic.signature_algorithm,
            &tbs,
            &basic.signature,
        )?;
    }
    Ok(CheckedOcsp {
        next_update,
        responder,
    })
}

/// A delegated responder must be issued by the CA (its signature checked) and be allowed to
/// sign OCSP answers (RFC 6960 4.2.2.2).
fn check_delegate(url: &str, delegate: &Cert, issuer: &Cert) -> Result<(), RevocationError> {
    if !delegate.issued_by(issuer) {
        return Err(RevocationError::invalid(
            url,
            "the responder's certificate is not issued by the certificate's issuer",
        ));
    }
    let eku = delegate
        .cert
        .tbs_certificate
        .get::<ExtendedKeyUsage>()
        .ok()
        .flatten();
    if !eku.is_some_and(|(_, e)| e.0.contains(&rfc5280::ID_KP_OCSP_SIGNING)) {
        return Err(RevocationError::invalid(
            url,
            "the responder's certificate lacks the OCSP-signing usage",
        ));
    }
    if let Some(key) = issuer.p256_key() {
        let tbs = delegate
            .cert
            .tbs_certificate
            .to_der()
            .map_err(|e| RevocationError::invalid(url, e.to_string()))?;
        verify(
            url,
            &key,
            &delegate.cert.signature_algorithm,
            &tbs,
            &delegate.cert.signature,
        )?;
    }
    Ok(())
}

/// Verifies an ECDSA P-256 signature with SHA-256; another algorithm is left to validators.
fn verify(
    url: &str,
    key: &VerifyingKey,
    algorithm: &AlgorithmIdentifierOwned,
    signed: &[u8],
    signature: &BitString,
) -> Result<(), RevocationError> {
    if algorithm.oid != rfc5912::ECDSA_WITH_SHA_256 {
        return Ok(());
    }
    let signature = DerSignature::from_bytes(signature.raw_bytes())
        .map_err(|_| RevocationError::invalid(url, "the signature is not a DER ECDSA value"))?;
    key.verify(signed, &signature)
        .map_err(|_| RevocationError::invalid(url, "the signature does not verify"))
}

/// Checks that `answer` is a CRL of `cert`'s issuer, signed by it; returns its `nextUpdate`.
pub(super) fn crl(
    url: &str,
    answer: &[u8],
    cert: &Cert,
    issuer: &Cert,
) -> Result<Option<DateTime<Utc>>, RevocationError> {
    let list = CertificateList::from_der(answer)
        .map_err(|e| RevocationError::invalid(url, format!("not a DER CRL ({e})")))?;
    if list.tbs_cert_list.issuer != cert.cert.tbs_certificate.issuer {
        return Err(RevocationError::invalid(
            url,
            "the CRL is not issued by the certificate's issuer",
        ));
    }
    if let Some(key) = issuer.p256_key() {
        let tbs = list
            .tbs_cert_list
            .to_der()
            .map_err(|e| RevocationError::invalid(url, e.to_string()))?;
        verify(url, &key, &list.signature_algorithm, &tbs, &list.signature)?;
    }
    Ok(list
        .tbs_cert_list
        .next_update
        .map(|t| DateTime::<Utc>::from(t.to_system_time())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_uris_are_followed() {
        let uri =
            |s: &str| GeneralName::UniformResourceIdentifier(s.to_string().try_into().unwrap());
        assert_eq!(
            http_uri(&uri("http://ocsp.example/")),
            Some("http://ocsp.example/".to_string())
        );
        assert_eq!(http_uri(&uri("ldap://ldap.example/cn=CA")), None);
        assert_eq!(http_uri(&uri("file:///etc/passwd")), None);
    }

    #[test]
    fn garbage_is_invalid_not_a_panic() {
        let dev = crate::seal::SigningIdentity::generate_development("Check").unwrap();
        let der = dev.identity.chain()[0].to_der().unwrap();
        let (leaf, issuer) = (Cert::parse(&der).unwrap(), Cert::parse(&der).unwrap());
        assert!(leaf.self_signed());
        assert!(leaf.ocsp_urls().is_empty() && leaf.crl_urls().is_empty());
        for answer in [&b""[..], b"\x30\x03\x0a\x01\x00", b"not der at all"] {
            assert!(matches!(
                ocsp_response("u", answer, &leaf, &issuer),
                Err(RevocationError::Invalid { .. })
            ));
            assert!(matches!(
                crl("u", answer, &leaf, &issuer),
                Err(RevocationError::Invalid { .. })
            ));
        }
    }
}
