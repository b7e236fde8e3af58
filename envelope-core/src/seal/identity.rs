//! The signing identity: an ECDSA P-256 key and its certificate chain, from PEM, or a generated
//! self-signed development certificate.
//!
//! The key is held only as a `p256` signing key: `Debug` shows the certificate, never the key,
//! and errors say what was wrong without quoting the input.

use der::Encode;
use p256::ecdsa::SigningKey;
use p256::pkcs8::DecodePrivateKey;
use sha2::{Digest, Sha256};
use x509_cert::Certificate;

use super::SealError;
use crate::clock::{Clock, SystemClock, Timestamp};

/// What may be shown about the signing certificate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificateInfo {
    /// Lowercase hex SHA-256 of the leaf certificate's DER.
    pub sha256_fingerprint: String,
    /// The leaf's subject (RFC 4514 string).
    pub subject: String,
    /// A self-signed certificate generated for development, not one the operator configured.
    pub development: bool,
}

/// A private key and the certificates that go with it (leaf first).
pub struct SigningIdentity {
    key: SigningKey,
    chain: Vec<Certificate>,
    info: CertificateInfo,
}

impl std::fmt::Debug for SigningIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningIdentity")
            .field("certificate", &self.info)
            .field("chain_len", &self.chain.len())
            .finish_non_exhaustive()
    }
}

/// A newly generated development identity and its PEM files, for storing in the data dir.
pub struct DevelopmentIdentity {
    /// The identity, loaded from the two PEM files, ready to seal with.
    pub identity: SigningIdentity,
    /// PKCS#8 PEM of the key: write it with owner-only permissions.
    pub key_pem: String,
    /// PEM of the self-signed certificate, to store next to the key.
    pub cert_pem: String,
}

impl std::fmt::Debug for DevelopmentIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DevelopmentIdentity")
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

impl SigningIdentity {
    /// Reads a PEM private key (PKCS#8 `PRIVATE KEY`, password-protected PKCS#8 `ENCRYPTED
    /// PRIVATE KEY` with `password`, or SEC1 `EC PRIVATE KEY`; P-256 only) and a PEM chain. The
    /// certificate whose public key is the key's becomes the leaf; the others follow in order.
    pub fn from_pem(
        key_pem: &str,
        certs_pem: &str,
        password: Option<&str>,
    ) -> Result<Self, SealError> {
        let key = parse_key(key_pem, password)?;
        let certs = Certificate::load_pem_chain(certs_pem.as_bytes())
            .map_err(|e| SealError::Certificate(format!("not a PEM certificate chain ({e})")))?;
        Self::new(key, certs)
    }

    /// Reads a PKCS#12 file (`.p12`/`.pfx`) holding one P-256 private key and its chain, with
    /// its password (empty for none). OpenSSL 3's defaults (AES-256-CBC, PBKDF2, HMAC-SHA256) and
    /// the legacy ones are both read.
    pub fn from_pkcs12(bytes: &[u8], password: &str) -> Result<Self, SealError> {
        let archive = p12_keystore::Pkcs12Archive::from_pkcs12(bytes, password).map_err(|e| {
            // The message names the failure (bad password, unsupported algorithm), never data.
            SealError::Key(format!("the PKCS#12 file cannot be read ({e})"))
        })?;
        let [bag] = archive.keys.as_slice() else {
            return Err(SealError::Key(format!(
                "the PKCS#12 file must hold exactly one private key; it holds {}",
                archive.keys.len()
            )));
        };
        let key = SigningKey::from_pkcs8_der(bag.key.as_der())
            .map_err(|_| SealError::Key("the PKCS#12 key is not a P-256 key".into()))?;
        let mut certs = Vec::with_capacity(archive.certs.len());
        for c in &archive.certs {
            certs.push(
                <Certificate as der::Decode>::from_der(c.cert.as_der()).map_err(|e| {
                    SealError::Certificate(format!("a PKCS#12 certificate is not X.509 ({e})"))
                })?,
            );
        }
        Self::new(key, certs)
    }

    /// A key and its chain (DER certificates, any order).
    pub fn new(key: SigningKey, certs: Vec<Certificate>) -> Result<Self, SealError> {
        let public = key.verifying_key().to_encoded_point(false);
        let leaf = certs
            .iter()
            .position(|c| {
                c.tbs_certificate
                    .subject_public_key_info
                    .subject_public_key
                    .raw_bytes()
                    == public.as_bytes()
            })
            .ok_or_else(|| {
                SealError::Certificate("no certificate in the chain is for this key".into())
            })?;
        let mut chain = certs;
        let leaf_cert = chain.remove(leaf);
        chain.insert(0, leaf_cert);
        let der = chain[0].to_der()?;
        let info = CertificateInfo {
            sha256_fingerprint: crate::ids::hex(&Sha256::digest(&der)),
            subject: chain[0].tbs_certificate.subject.to_string(),
            development: false,
        };
        Ok(SigningIdentity { key, chain, info })
    }

    /// A new self-signed certificate for `common_name` (ECDSA P-256, valid ten years from
    /// yesterday by the system clock, key usage digital signature and non-repudiation), marked as
    /// a development certificate.
    pub fn generate_development(common_name: &str) -> Result<DevelopmentIdentity, SealError> {
        Self::generate_development_at(common_name, SystemClock.now())
    }

    /// [`Self::generate_development`] valid from the day before `now` (a test's clock).
    pub fn generate_development_at(
        common_name: &str,
        now: Timestamp,
    ) -> Result<DevelopmentIdentity, SealError> {
        let mut params = development_params(common_name, now)?;
        params.key_usages = vec![
            rcgen::KeyUsagePurpose::DigitalSignature,
            rcgen::KeyUsagePurpose::ContentCommitment,
        ];
        generate(params, true)
    }

    /// A self-signed certificate for a test timestamp authority (extended key usage
    /// timeStamping, critical as RFC 3161 requires).
    pub fn generate_timestamp_authority(
        common_name: &str,
    ) -> Result<DevelopmentIdentity, SealError> {
        let mut params = development_params(common_name, SystemClock.now())?;
        params.key_usages = vec![
            rcgen::KeyUsagePurpose::DigitalSignature,
            rcgen::KeyUsagePurpose::ContentCommitment,
        ];
        params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::TimeStamping];
        generate(params, true)
    }

    /// Marks the identity as a development certificate (or not).
    pub fn development(mut self, development: bool) -> Self {
        self.info.development = development;
        self
    }

    /// Whether `other` signs with the same private key, whatever certificates each carries
    /// (the server refuses a test-mode identity that is the live one under another
    /// certificate).
    pub fn same_key(&self, other: &SigningIdentity) -> bool {
        self.key.verifying_key() == other.key.verifying_key()
    }

    /// What may be shown about the identity's certificate.
    pub fn info(&self) -> &CertificateInfo {
        &self.info
    }

    /// The leaf certificate as PEM (for trust stores of validators).
    pub fn certificate_pem(&self) -> String {
        use der::EncodePem;
        self.chain[0]
            .to_pem(der::pem::LineEnding::LF)
            .unwrap_or_default()
    }

    pub(crate) fn key(&self) -> &SigningKey {
        &self.key
    }

    /// Leaf first.
    pub(crate) fn chain(&self) -> &[Certificate] {
        &self.chain
    }

    pub(crate) fn chain_der_len(&self) -> usize {
        self.chain
            .iter()
            .map(|c| c.encoded_len().map_or(4096, |l| u32::from(l) as usize))
            .sum()
    }
}

fn development_params(
    common_name: &str,
    now: Timestamp,
) -> Result<rcgen::CertificateParams, SealError> {
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new())
        .map_err(|e| SealError::Certificate(e.to_string()))?;
    let mut dn = rcgen::DistinguishedName::new();
    dn.push(rcgen::DnType::CommonName, common_name);
    dn.push(
        rcgen::DnType::OrganizationName,
        "Envelope development certificate",
    );
    params.distinguished_name = dn;
    use chrono::Datelike;
    let from = (now.datetime() - chrono::Duration::days(1)).date_naive();
    params.not_before = rcgen::date_time_ymd(from.year(), from.month() as u8, from.day() as u8);
    params.not_after = rcgen::date_time_ymd(
        from.year() + 10,
        from.month() as u8,
        from.day().min(28) as u8,
    );
    let mut serial = [0u8; 16];
    rand::fill(&mut serial);
    serial[0] = (serial[0] & 0x7f) | 0x40; // a positive INTEGER, minimal as it stands
    params.serial_number = Some(rcgen::SerialNumber::from_slice(&serial));
    Ok(params)
}

fn generate(
    params: rcgen::CertificateParams,
    development: bool,
) -> Result<DevelopmentIdentity, SealError> {
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)
        .map_err(|e| SealError::Key(e.to_string()))?;
    let cert = params
        .self_signed(&key)
        .map_err(|e| SealError::Certificate(e.to_string()))?;
    let key_pem = key.serialize_pem();
    let cert_pem = cert.pem();
    let identity = SigningIdentity::from_pem(&key_pem, &cert_pem, None)?.development(development);
    Ok(DevelopmentIdentity {
        identity,
        key_pem,
        cert_pem,
    })
}

/// The first PEM block labelled `label`, with its armour.
fn pem_block<'a>(pem: &'a str, label: &str) -> Option<&'a str> {
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let start = pem.find(&begin)?;
    let stop = pem[start..].find(&end)? + start + end.len();
    Some(&pem[start..stop])
}

fn parse_key(pem: &str, password: Option<&str>) -> Result<SigningKey, SealError> {
    let bad = |what: &str| SealError::Key(format!("{what} (a P-256 key is required)"));
    if let Some(block) = pem_block(pem, "ENCRYPTED PRIVATE KEY") {
        let password = password.ok_or_else(|| {
            SealError::Key("the key is encrypted and no password was given".into())
        })?;
        return p256::SecretKey::from_pkcs8_encrypted_pem(block, password)
            .map(|k| SigningKey::from(&k))
            .map_err(|_| bad("wrong password or not an encrypted PKCS#8 EC key"));
    }
    if let Some(block) = pem_block(pem, "PRIVATE KEY") {
        return p256::SecretKey::from_pkcs8_pem(block)
            .map(|k| SigningKey::from(&k))
            .map_err(|_| bad("not a PKCS#8 EC key"));
    }
    if let Some(block) = pem_block(pem, "EC PRIVATE KEY") {
        return p256::SecretKey::from_sec1_pem(block)
            .map(|k| SigningKey::from(&k))
            .map_err(|_| bad("not a SEC1 EC key"));
    }
    if pem.contains("-----BEGIN RSA PRIVATE KEY-----") {
        return Err(bad("RSA keys are not supported"));
    }
    Err(bad("no PEM private key found"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn development_identity_round_trips_through_pem_and_hides_its_key() {
        let dev = SigningIdentity::generate_development("Envelope").expect("generate");
        assert!(dev.identity.info().development);
        assert_eq!(dev.identity.info().sha256_fingerprint.len(), 64);
        let again = SigningIdentity::from_pem(&dev.key_pem, &dev.cert_pem, None).expect("load");
        assert_eq!(
            again.info().sha256_fingerprint,
            dev.identity.info().sha256_fingerprint
        );
        assert!(!again.info().development);
        let shown = format!("{dev:?} {again:?}");
        let body: String = dev
            .key_pem
            .lines()
            .filter(|l| !l.starts_with("-----"))
            .collect();
        assert!(!shown.contains(&body[..20]), "{shown}");
        assert!(!shown.to_lowercase().contains("secret"), "{shown}");
    }

    #[test]
    fn the_same_key_is_recognised_under_another_certificate() {
        let a = SigningIdentity::generate_development("A").expect("a");
        let b = SigningIdentity::generate_development("B").expect("b");
        // The same key with a second certificate, made for it under another name.
        let key = rcgen::KeyPair::from_pem(&a.key_pem).expect("key");
        let other = development_params("A again", SystemClock.now())
            .expect("params")
            .self_signed(&key)
            .expect("cert");
        let again = SigningIdentity::from_pem(&a.key_pem, &other.pem(), None).expect("load");
        assert_ne!(
            again.info().sha256_fingerprint,
            a.identity.info().sha256_fingerprint
        );
        assert!(a.identity.same_key(&again));
        assert!(!a.identity.same_key(&b.identity));
    }

    #[test]
    fn refuses_keys_that_do_not_fit() {
        let a = SigningIdentity::generate_development("A").expect("a");
        let b = SigningIdentity::generate_development("B").expect("b");
        assert!(matches!(
            SigningIdentity::from_pem(&a.key_pem, &b.cert_pem, None),
            Err(SealError::Certificate(_))
        ));
        assert!(matches!(
            SigningIdentity::from_pem("garbage", &a.cert_pem, None),
            Err(SealError::Key(_))
        ));
        assert!(matches!(
            SigningIdentity::from_pem(&a.key_pem, "garbage", None),
            Err(SealError::Certificate(_))
        ));
    }

    #[test]
    fn reads_password_protected_pkcs8() {
        use p256::pkcs8::EncodePrivateKey;
        let dev = SigningIdentity::generate_development("Enc").expect("generate");
        let secret = p256::SecretKey::from_pkcs8_pem(&dev.key_pem).expect("key");
        let der = secret.to_pkcs8_der().expect("der");
        let info = pkcs8::PrivateKeyInfo::try_from(der.as_bytes()).expect("info");
        let params = pkcs8::pkcs5::pbes2::Parameters::pbkdf2_sha256_aes256cbc(
            2048,
            b"fixed salt for a test",
            &[7; 16],
        )
        .expect("params");
        let enc = info
            .encrypt_with_params(params, "correct horse")
            .expect("encrypt")
            .to_pem("ENCRYPTED PRIVATE KEY", der::pem::LineEnding::LF)
            .expect("pem");
        let loaded =
            SigningIdentity::from_pem(&enc, &dev.cert_pem, Some("correct horse")).expect("decrypt");
        assert_eq!(
            loaded.info().sha256_fingerprint,
            dev.identity.info().sha256_fingerprint
        );
        for wrong in [None, Some("wrong")] {
            assert!(matches!(
                SigningIdentity::from_pem(&enc, &dev.cert_pem, wrong),
                Err(SealError::Key(_))
            ));
        }
    }
}
