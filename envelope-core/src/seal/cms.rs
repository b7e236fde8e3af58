//! CMS `SignedData` (RFC 5652) as CAdES wants it: signed attributes content-type, message-digest
//! and signing-certificate-v2 (RFC 5035), SHA-256, ECDSA with SHA-256, the certificate chain
//! included. No signing-time attribute: PAdES takes the claimed time from the signature
//! dictionary's `/M`.
//!
//! Assembled from the `cms` crate's types rather than its builder (whose feature pulls in the
//! `rsa` crate).

use cms::cert::{CertificateChoices, IssuerAndSerialNumber};
use cms::content_info::{CmsVersion, ContentInfo};
use cms::signed_data::{
    CertificateSet, EncapsulatedContentInfo, SignedData, SignerIdentifier, SignerInfo, SignerInfos,
};
use der::asn1::{ObjectIdentifier as Oid, OctetString, SetOfVec};
use der::{Any, Decode, Encode, Sequence};
use p256::ecdsa::DerSignature;
use p256::ecdsa::signature::Signer;
use sha2::{Digest, Sha256};
use spki::AlgorithmIdentifierOwned;
use x509_cert::attr::Attribute;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::serial_number::SerialNumber;

use super::SealError;
use super::identity::SigningIdentity;

pub const ID_DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.1");
pub const ID_SIGNED_DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.2");
pub const ID_CT_TST_INFO: Oid = Oid::new_unwrap("1.2.840.113549.1.9.16.1.4");
const CONTENT_TYPE: Oid = Oid::new_unwrap("1.2.840.113549.1.9.3");
const MESSAGE_DIGEST: Oid = Oid::new_unwrap("1.2.840.113549.1.9.4");
const SIGNING_CERTIFICATE_V2: Oid = Oid::new_unwrap("1.2.840.113549.1.9.16.2.47");
pub const SIGNATURE_TIME_STAMP_TOKEN: Oid = Oid::new_unwrap("1.2.840.113549.1.9.16.2.14");
pub const SHA256: Oid = Oid::new_unwrap("2.16.840.1.101.3.4.2.1");
const ECDSA_WITH_SHA256: Oid = Oid::new_unwrap("1.2.840.10045.4.3.2");

/// `ESSCertIDv2` with the default hash algorithm (SHA-256, so omitted in DER).
#[derive(Debug, Sequence)]
struct EssCertIdV2 {
    cert_hash: OctetString,
    issuer_serial: IssuerSerial,
}

#[derive(Debug, Sequence)]
struct IssuerSerial {
    issuer: Vec<GeneralName>,
    serial_number: SerialNumber,
}

#[derive(Debug, Sequence)]
struct SigningCertificateV2 {
    certs: Vec<EssCertIdV2>,
}

pub fn sha256_algorithm() -> AlgorithmIdentifierOwned {
    AlgorithmIdentifierOwned {
        oid: SHA256,
        parameters: None,
    }
}

fn attribute(oid: Oid, value: Any) -> Result<Attribute, SealError> {
    let mut values = SetOfVec::new();
    values.insert(value)?;
    Ok(Attribute { oid, values })
}

/// The signer's info: signed attributes over `digest` (of content of type `content_type`) and
/// the ECDSA signature of their DER.
pub fn signer_info(
    id: &SigningIdentity,
    content_type: Oid,
    digest: &[u8; 32],
) -> Result<SignerInfo, SealError> {
    let leaf = &id.chain()[0];
    let issuer = leaf.tbs_certificate.issuer.clone();
    let serial = leaf.tbs_certificate.serial_number.clone();
    let signing_certificate = SigningCertificateV2 {
        certs: vec![EssCertIdV2 {
            cert_hash: OctetString::new(Sha256::digest(leaf.to_der()?).to_vec())?,
            issuer_serial: IssuerSerial {
                issuer: vec![GeneralName::DirectoryName(issuer.clone())],
                serial_number: serial.clone(),
            },
        }],
    };
    let attrs = SetOfVec::try_from(vec![
        attribute(CONTENT_TYPE, Any::encode_from(&content_type)?)?,
        attribute(
            MESSAGE_DIGEST,
            Any::encode_from(&OctetString::new(digest.to_vec())?)?,
        )?,
        attribute(
            SIGNING_CERTIFICATE_V2,
            Any::encode_from(&signing_certificate)?,
        )?,
    ])?;
    // The signature covers the attributes' DER with the SET OF tag (RFC 5652, 5.4).
    let signature: DerSignature = id.key().sign(&attrs.to_der()?);
    Ok(SignerInfo {
        version: CmsVersion::V1,
        sid: SignerIdentifier::IssuerAndSerialNumber(IssuerAndSerialNumber {
            issuer,
            serial_number: serial,
        }),
        digest_alg: sha256_algorithm(),
        signed_attrs: Some(attrs),
        signature_algorithm: AlgorithmIdentifierOwned {
            oid: ECDSA_WITH_SHA256,
            parameters: None,
        },
        signature: OctetString::new(signature.as_bytes().to_vec())?,
        unsigned_attrs: None,
    })
}

/// Adds an RFC 3161 token (a DER `ContentInfo`) as the unsigned attribute
/// `id-aa-signatureTimeStampToken`.
pub fn add_timestamp(info: &mut SignerInfo, token: &[u8]) -> Result<(), SealError> {
    let attr = attribute(SIGNATURE_TIME_STAMP_TOKEN, Any::from_der(token)?)?;
    let mut attrs = info.unsigned_attrs.take().unwrap_or_default();
    attrs.insert(attr)?;
    info.unsigned_attrs = Some(attrs);
    Ok(())
}

/// The DER `ContentInfo` of a `SignedData` with one signer and the identity's chain; `econtent`
/// embeds the content (timestamp tokens), `None` makes it detached (the PDF seal).
pub fn signed_data(
    id: &SigningIdentity,
    info: SignerInfo,
    content_type: Oid,
    econtent: Option<Vec<u8>>,
) -> Result<Vec<u8>, SealError> {
    let mut certs = SetOfVec::new();
    for c in id.chain() {
        certs.insert(CertificateChoices::Certificate(c.clone()))?;
    }
    let mut digests = SetOfVec::new();
    digests.insert(sha256_algorithm())?;
    let mut infos = SetOfVec::new();
    infos.insert(info)?;
    let econtent = match econtent {
        Some(bytes) => Some(Any::encode_from(&OctetString::new(bytes)?)?),
        None => None,
    };
    let sd = SignedData {
        // v3 when the content is not id-data (RFC 5652, 5.1).
        version: if content_type == ID_DATA {
            CmsVersion::V1
        } else {
            CmsVersion::V3
        },
        digest_algorithms: digests,
        encap_content_info: EncapsulatedContentInfo {
            econtent_type: content_type,
            econtent,
        },
        certificates: Some(CertificateSet(certs)),
        crls: None,
        signer_infos: SignerInfos(infos),
    };
    let ci = ContentInfo {
        content_type: ID_SIGNED_DATA,
        content: Any::encode_from(&sd)?,
    };
    Ok(ci.to_der()?)
}

/// The certificates a CMS `ContentInfo` of `SignedData` carries, and those of the timestamp
/// tokens in its signers' unsigned attributes (`id-aa-signatureTimeStampToken`), as DER, each
/// once, in the order found. For a seal that is the sealing chain, then the TSA's; for a
/// timestamp token (a document timestamp) the TSA's. The certificates a PAdES B-LT DSS must hold
/// start here (`RevocationFetcher` completes and checks them).
pub fn certificates_in(content_info: &[u8]) -> Result<Vec<Vec<u8>>, SealError> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    collect_certificates(content_info, &mut out, 0)?;
    Ok(out)
}

/// The earliest `notAfter` over the certificates a CMS `ContentInfo` carries (with those of its
/// signature timestamps, as [`certificates_in`] finds them): for a document timestamp's token,
/// when the TSA's chain stops vouching for it, and a PAdES B-LTA file needs a new one before.
/// `None` when it carries no certificate.
pub fn earliest_expiry(
    content_info: &[u8],
) -> Result<Option<chrono::DateTime<chrono::Utc>>, SealError> {
    let mut earliest = None;
    for der in certificates_in(content_info)? {
        let cert = x509_cert::Certificate::from_der(&der)
            .map_err(|e| SealError::Certificate(format!("an embedded certificate: {e}")))?;
        let at = cert.tbs_certificate.validity.not_after.to_date_time();
        let at =
            chrono::DateTime::<chrono::Utc>::from_timestamp(at.unix_duration().as_secs() as i64, 0);
        earliest = match (earliest, at) {
            (Some(e), Some(a)) => Some(std::cmp::min(e, a)),
            (e, a) => e.or(a),
        };
    }
    Ok(earliest)
}

fn collect_certificates(der: &[u8], out: &mut Vec<Vec<u8>>, depth: u8) -> Result<(), SealError> {
    let bad = |m: &str| SealError::Certificate(format!("not a CMS SignedData: {m}"));
    let info = ContentInfo::from_der(der).map_err(|_| bad("no ContentInfo"))?;
    if info.content_type != ID_SIGNED_DATA {
        return Err(bad("the content is not SignedData"));
    }
    let sd: SignedData = info
        .content
        .decode_as()
        .map_err(|_| bad("unreadable SignedData"))?;
    for choice in sd.certificates.iter().flat_map(|set| set.0.iter()) {
        if let CertificateChoices::Certificate(c) = choice {
            let der = c.to_der()?;
            if !out.contains(&der) {
                out.push(der);
            }
        }
    }
    // A token inside a token is not a thing RFC 3161 makes; one level is all that is read.
    if depth > 0 {
        return Ok(());
    }
    for signer in sd.signer_infos.0.iter() {
        for attr in signer.unsigned_attrs.iter().flat_map(|a| a.iter()) {
            if attr.oid != SIGNATURE_TIME_STAMP_TOKEN {
                continue;
            }
            for token in attr.values.iter() {
                collect_certificates(&token.to_der()?, out, depth + 1)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::signature::Verifier;

    #[test]
    fn the_signature_verifies_over_the_signed_attributes() {
        let dev = SigningIdentity::generate_development("CMS test").expect("identity");
        let id = &dev.identity;
        let digest = [0x42u8; 32];
        let info = signer_info(id, ID_DATA, &digest).expect("signer info");
        let attrs = info.signed_attrs.clone().expect("signed attributes");
        let der = signed_data(id, info, ID_DATA, None).expect("cms");
        let ci = ContentInfo::from_der(&der).expect("content info");
        assert_eq!(ci.content_type, ID_SIGNED_DATA);
        let sd: SignedData = ci.content.decode_as().expect("signed data");
        assert!(sd.encap_content_info.econtent.is_none(), "detached");
        let si = sd.signer_infos.0.get(0).expect("one signer");
        let sig = p256::ecdsa::DerSignature::from_bytes(si.signature.as_bytes()).expect("sig");
        id.key()
            .verifying_key()
            .verify(&attrs.to_der().expect("attrs"), &sig)
            .expect("verifies");
        let md = attrs
            .iter()
            .find(|a| a.oid == MESSAGE_DIGEST)
            .and_then(|a| a.values.get(0))
            .and_then(|v| v.decode_as::<OctetString>().ok())
            .expect("message digest");
        assert_eq!(md.as_bytes(), digest);
        assert!(attrs.iter().any(|a| a.oid == SIGNING_CERTIFICATE_V2));
    }
}
