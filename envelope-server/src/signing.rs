//! The sealer of `serve`: the configured key and certificate chain (PEM), or a self-signed
//! development certificate generated on first start and kept in the data dir, with the core's
//! RFC 3161 timestamp authority client when `--tsa-url` is given.
//!
//! The private key and its password never reach a log line or a `Debug` string: they are held
//! as [`Secret`]s until `envelope_core` parses them.

use std::path::Path;
use std::sync::Arc;

use envelope_core::error::BoxError;
use envelope_core::seal::{HttpTimestampAuthority, LocalSealer, Sealer, SigningIdentity};

/// A string that must not be shown: `Debug` prints `"***"`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Self {
        Secret(s.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("\"***\"")
    }
}

impl std::str::FromStr for Secret {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Secret(s.to_string()))
    }
}

/// Where the seal's key and certificates come from.
#[derive(Debug, Clone, Default)]
pub struct SigningOptions {
    /// A PEM private key: a file path, or the PEM itself (for secrets passed in the environment).
    pub key: Option<Secret>,
    /// A PEM certificate chain (leaf and intermediates): a file path or the PEM itself.
    pub cert: Option<String>,
    /// Password of an encrypted PKCS#8 key.
    pub key_password: Option<Secret>,
    /// RFC 3161 timestamp authority; each seal then carries a signature timestamp (PAdES B-T).
    pub tsa_url: Option<String>,
}

/// Files of the development certificate, under the data dir.
const DEV_DIR: &str = "signing";
const DEV_KEY: &str = "development-key.pem";
const DEV_CERT: &str = "development-cert.pem";

/// The sealer `serve` always configures: the configured identity, or the development one.
pub fn load_sealer(
    opts: &SigningOptions,
    data_dir: &Path,
    service_name: &str,
) -> Result<Arc<dyn Sealer>, BoxError> {
    let identity = match (&opts.key, &opts.cert) {
        (Some(key), None) if is_pkcs12_path(key.expose()) => {
            let path = key.expose();
            let bytes = std::fs::read(path)
                .map_err(|e| format!("--signing-key: cannot read {path}: {e}"))?;
            let password = opts.key_password.as_ref().map(Secret::expose).unwrap_or("");
            let identity = SigningIdentity::from_pkcs12(&bytes, password)?;
            tracing::info!(
                subject = %identity.info().subject,
                sha256_fingerprint = %identity.info().sha256_fingerprint,
                "signed documents are sealed with the configured PKCS#12 identity"
            );
            identity
        }
        (Some(key), Some(_)) if is_pkcs12_path(key.expose()) => {
            return Err(
                "--signing-key: a PKCS#12 file holds its own chain; leave --signing-cert out"
                    .into(),
            );
        }
        (Some(key), Some(cert)) => {
            let key = read_pem(key.expose(), "--signing-key")?;
            let cert = read_pem(cert, "--signing-cert")?;
            let password = opts.key_password.as_ref().map(Secret::expose);
            let identity = SigningIdentity::from_pem(&key, &cert, password)?;
            tracing::info!(
                subject = %identity.info().subject,
                sha256_fingerprint = %identity.info().sha256_fingerprint,
                "signed documents are sealed with the configured certificate"
            );
            identity
        }
        (None, None) => development_identity(data_dir, service_name)?,
        _ => {
            return Err(
                "--signing-key and --signing-cert go together (or --signing-key alone with a \
                 PKCS#12 file): give both, or neither for a development certificate"
                    .into(),
            );
        }
    };
    let mut sealer = LocalSealer::new(identity);
    if let Some(url) = &opts.tsa_url {
        let tsa = HttpTimestampAuthority::new(url).map_err(|e| format!("--tsa-url: {e}"))?;
        sealer = sealer.with_timestamps(Arc::new(tsa));
        tracing::info!(tsa_url = %url, "seals carry RFC 3161 timestamps (PAdES B-T)");
    }
    Ok(Arc::new(sealer))
}

/// The PEM text of `value`: itself when it is PEM, else the file it names.
fn read_pem(value: &str, option: &str) -> Result<String, BoxError> {
    if value.trim_start().starts_with("-----BEGIN") {
        return Ok(value.to_string());
    }
    std::fs::read_to_string(value).map_err(|e| format!("{option}: cannot read {value}: {e}").into())
}

/// True for a `.p12` / `.pfx` file name.
fn is_pkcs12_path(value: &str) -> bool {
    let lower = value.trim().to_ascii_lowercase();
    !lower.starts_with("-----begin") && (lower.ends_with(".p12") || lower.ends_with(".pfx"))
}

/// Loads the development certificate from the data dir, generating it on first start.
fn development_identity(data_dir: &Path, service_name: &str) -> Result<SigningIdentity, BoxError> {
    let dir = data_dir.join(DEV_DIR);
    let (key_path, cert_path) = (dir.join(DEV_KEY), dir.join(DEV_CERT));
    if key_path.exists() && cert_path.exists() {
        let identity = SigningIdentity::from_pem(
            &std::fs::read_to_string(&key_path)?,
            &std::fs::read_to_string(&cert_path)?,
            None,
        )?
        .development(true);
        tracing::warn!(
            certificate = %cert_path.display(),
            sha256_fingerprint = %identity.info().sha256_fingerprint,
            "no --signing-key/--signing-cert: sealing with the self-signed DEVELOPMENT certificate \
             (validators will not trust it)"
        );
        return Ok(identity);
    }
    let dev = SigningIdentity::generate_development(&format!("{service_name} (development)"))?;
    envelope_core::store::private::create_dir_all(&dir)?;
    write_private(&key_path, dev.key_pem.as_bytes())?;
    write_private(&cert_path, dev.cert_pem.as_bytes())?;
    tracing::warn!(
        certificate = %cert_path.display(),
        sha256_fingerprint = %dev.identity.info().sha256_fingerprint,
        "no --signing-key/--signing-cert: generated a self-signed DEVELOPMENT certificate for \
         sealing documents (validators will not trust it; configure a real one for production)"
    );
    Ok(dev.identity)
}

/// Writes a file readable by its owner only (on Unix), creating it anew.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    envelope_core::store::private::create_new(path)?.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_development_certificate_is_made_once_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let first = load_sealer(&SigningOptions::default(), dir.path(), "Envelope").unwrap();
        assert!(first.certificate().development);
        let again = load_sealer(&SigningOptions::default(), dir.path(), "Envelope").unwrap();
        assert_eq!(
            first.certificate().sha256_fingerprint,
            again.certificate().sha256_fingerprint
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let key = dir.path().join(DEV_DIR).join(DEV_KEY);
            let mode = std::fs::metadata(key).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn a_configured_identity_is_not_development_and_its_key_is_never_shown() {
        let dev = SigningIdentity::generate_development("Configured").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let cert = dir.path().join("chain.pem");
        std::fs::write(&cert, &dev.cert_pem).unwrap();
        // The key inline (as from ENVELOPE_SIGNING_KEY), the chain from a file.
        let opts = SigningOptions {
            key: Some(Secret::new(dev.key_pem.clone())),
            cert: Some(cert.to_str().unwrap().into()),
            key_password: Some(Secret::new("hunter2")),
            tsa_url: None,
        };
        let sealer = load_sealer(&opts, dir.path(), "Envelope").unwrap();
        assert!(!sealer.certificate().development);
        assert_eq!(
            sealer.certificate().sha256_fingerprint,
            dev.identity.info().sha256_fingerprint
        );
        let shown = format!("{opts:?} {sealer:?}", sealer = sealer.certificate());
        assert!(
            !shown.contains("PRIVATE KEY") && !shown.contains("hunter2"),
            "{shown}"
        );
        assert!(!dir.path().join(DEV_DIR).exists(), "no development files");
    }

    #[test]
    fn a_pkcs12_file_from_openssl_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let dev = SigningIdentity::generate_development("P12 test").unwrap();
        std::fs::write(dir.path().join("key.pem"), &dev.key_pem).unwrap();
        std::fs::write(dir.path().join("cert.pem"), &dev.cert_pem).unwrap();
        let p12 = dir.path().join("identity.p12");
        // OpenSSL 3's defaults: AES-256-CBC with PBKDF2, HMAC-SHA256.
        let status = std::process::Command::new("openssl")
            .args(["pkcs12", "-export", "-passout", "pass:s3cret", "-inkey"])
            .arg(dir.path().join("key.pem"))
            .arg("-in")
            .arg(dir.path().join("cert.pem"))
            .arg("-out")
            .arg(&p12)
            .status()
            .expect("openssl is installed (scripts/install-test-deps.sh installs it)");
        assert!(status.success());
        let opts = |password: &str| SigningOptions {
            key: Some(Secret::new(p12.to_str().unwrap())),
            key_password: Some(Secret::new(password)),
            ..SigningOptions::default()
        };
        let sealer = load_sealer(&opts("s3cret"), dir.path(), "E").unwrap();
        assert_eq!(
            sealer.certificate().sha256_fingerprint,
            dev.identity.info().sha256_fingerprint
        );
        assert!(!sealer.certificate().development);
        let err = load_sealer(&opts("wrong"), dir.path(), "E")
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("PKCS#12") && !err.contains("s3cret"), "{err}");
        assert!(
            !dir.path().join(DEV_DIR).exists(),
            "no development certificate was made"
        );
    }

    #[test]
    fn half_a_configuration_and_pkcs12_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let half = SigningOptions {
            cert: Some("chain.pem".into()),
            ..SigningOptions::default()
        };
        assert!(load_sealer(&half, dir.path(), "E").is_err());
        let p12 = SigningOptions {
            key: Some(Secret::new("key.p12")),
            cert: Some("chain.pem".into()),
            ..SigningOptions::default()
        };
        let err = load_sealer(&p12, dir.path(), "E")
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("PKCS#12"), "{err}");
        let tsa = SigningOptions {
            tsa_url: Some("ftp://tsa.example".into()),
            ..SigningOptions::default()
        };
        let err = load_sealer(&tsa, dir.path(), "E")
            .err()
            .unwrap()
            .to_string();
        assert!(err.starts_with("--tsa-url: "), "{err}");
    }
}
