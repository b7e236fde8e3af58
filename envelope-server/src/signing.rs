//! The sealers of `serve`: the configured key and certificate chain (PEM), or a self-signed
//! development certificate generated on first start and kept in the data dir, with the core's
//! RFC 3161 timestamp authority client when `--tsa-url` is given. Test mode has a sealer of its
//! own, configured the same way (`--test-signing-key`) or generated beside the development
//! certificate with a subject that says "test mode"; it is never the live key.
//!
//! The private key and its password never reach a log line or a `Debug` string: they are held
//! as [`Secret`]s until `envelope_core` parses them.

use std::path::Path;
use std::sync::Arc;

use envelope_core::error::BoxError;
use envelope_core::model::SealLevel;
use envelope_core::seal::{HttpTimestampAuthority, LocalSealer, Sealer, SigningIdentity};

/// A string that must not be shown: `Debug` prints `"***"`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Keeps `s` as a secret.
    pub fn new(s: impl Into<String>) -> Self {
        Secret(s.into())
    }

    /// The secret itself, for the one place that uses it; never for a log line.
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
    /// RFC 3161 timestamp authority; each seal then carries a signature timestamp (PAdES B-T),
    /// and B-LTA files a document timestamp.
    pub tsa_url: Option<String>,
    /// `--pades-level`; `None`: B-LTA with a timestamp authority, else B-B.
    pub pades_level: Option<SealLevel>,
    /// Test mode's private key (`--test-signing-key`), in the same forms as `key`.
    pub test_key: Option<Secret>,
    /// Test mode's certificate chain (`--test-signing-cert`).
    pub test_cert: Option<String>,
    /// Password of test mode's key (`ENVELOPE_TEST_SIGNING_KEY_PASSWORD`).
    pub test_key_password: Option<Secret>,
}

impl SigningOptions {
    /// The PAdES level seals are to reach: `--pades-level`, else B-LTA with `--tsa-url` and B-B
    /// without. A level from B-T up without `--tsa-url` is refused: it could never be reached.
    pub fn pades_level(&self) -> Result<SealLevel, BoxError> {
        match (self.pades_level, &self.tsa_url) {
            (Some(level), None) if level > SealLevel::BB => Err(format!(
                "--pades-level {} needs a timestamp authority (--tsa-url): only b-b is made \
                 without one",
                level.as_str()
            )
            .into()),
            (Some(level), _) => Ok(level),
            (None, Some(_)) => Ok(SealLevel::BLta),
            (None, None) => Ok(SealLevel::BB),
        }
    }
}

/// The two sealers of `serve`: one per mode, never the same key.
#[derive(Clone)]
pub struct Sealers {
    /// Seals live documents.
    pub live: Arc<dyn Sealer>,
    /// Seals test documents.
    pub test: Arc<dyn Sealer>,
}

impl std::fmt::Debug for Sealers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sealers")
            .field("live", self.live.certificate())
            .field("test", self.test.certificate())
            .finish()
    }
}

/// Which identity an option configures: the names its messages use and where its generated
/// certificate lives.
struct Which {
    key_option: &'static str,
    cert_option: &'static str,
    /// Under the data dir.
    dir: &'static str,
    key_file: &'static str,
    cert_file: &'static str,
    /// After the service name in the generated certificate's common name.
    name: &'static str,
    /// What the log says the identity seals.
    seals: &'static str,
    /// A generated live certificate is worth a warning; a test-mode one is what test mode is.
    live: bool,
}

const LIVE: Which = Which {
    key_option: "--signing-key",
    cert_option: "--signing-cert",
    dir: DEV_DIR,
    key_file: DEV_KEY,
    cert_file: DEV_CERT,
    name: "(development)",
    seals: "signed documents",
    live: true,
};

const TEST: Which = Which {
    key_option: "--test-signing-key",
    cert_option: "--test-signing-cert",
    dir: TEST_DIR,
    key_file: TEST_KEY,
    cert_file: TEST_CERT,
    name: "test mode (development)",
    seals: "test-mode documents",
    live: false,
};

/// Files of the development certificate, under the data dir.
const DEV_DIR: &str = "signing";
const DEV_KEY: &str = "development-key.pem";
const DEV_CERT: &str = "development-cert.pem";
/// Files of the generated test-mode certificate, in their own folder beside them.
const TEST_DIR: &str = "signing/test-mode";
const TEST_KEY: &str = "test-mode-key.pem";
const TEST_CERT: &str = "test-mode-cert.pem";

/// Both sealers `serve` configures: live as [`load_sealer`] makes it, test mode from the
/// `test_*` options or else its own generated certificate. A test identity with the live key is
/// refused: a test key must never make documents that pass for live ones.
pub fn load_sealers(
    opts: &SigningOptions,
    data_dir: &Path,
    service_name: &str,
) -> Result<Sealers, BoxError> {
    let live = identity(
        &LIVE,
        (&opts.key, &opts.cert, &opts.key_password),
        data_dir,
        service_name,
    )?;
    let test = identity(
        &TEST,
        (&opts.test_key, &opts.test_cert, &opts.test_key_password),
        data_dir,
        service_name,
    )?;
    if test.same_key(&live) {
        return Err(
            "--test-signing-key is the live signing key: test mode must seal with an identity              of its own (give another key, or leave --test-signing-key out for a generated              test-mode certificate)"
                .into(),
        );
    }
    Ok(Sealers {
        live: sealer(live, opts)?,
        test: sealer(test, opts)?,
    })
}

/// The live sealer: the configured identity, or the development one.
pub fn load_sealer(
    opts: &SigningOptions,
    data_dir: &Path,
    service_name: &str,
) -> Result<Arc<dyn Sealer>, BoxError> {
    let options = (&opts.key, &opts.cert, &opts.key_password);
    sealer(identity(&LIVE, options, data_dir, service_name)?, opts)
}

/// The identity that `which` options configure, or its generated development one.
fn identity(
    which: &Which,
    (key, cert, password): (&Option<Secret>, &Option<String>, &Option<Secret>),
    data_dir: &Path,
    service_name: &str,
) -> Result<SigningIdentity, BoxError> {
    let (key_option, cert_option) = (which.key_option, which.cert_option);
    let identity = match (key, cert) {
        (Some(key), None) if is_pkcs12_path(key.expose()) => {
            let path = key.expose();
            let bytes = std::fs::read(path)
                .map_err(|e| format!("{key_option}: cannot read {path}: {e}"))?;
            let password = password.as_ref().map(Secret::expose).unwrap_or("");
            let identity = SigningIdentity::from_pkcs12(&bytes, password)
                .map_err(|e| format!("{key_option}: {e}"))?;
            tracing::info!(
                subject = %identity.info().subject,
                sha256_fingerprint = %identity.info().sha256_fingerprint,
                "{} are sealed with the configured PKCS#12 identity", which.seals
            );
            identity
        }
        (Some(key), Some(_)) if is_pkcs12_path(key.expose()) => {
            return Err(format!(
                "{key_option}: a PKCS#12 file holds its own chain; leave {cert_option} out"
            )
            .into());
        }
        (Some(key), Some(cert)) => {
            let key = read_pem(key.expose(), key_option)?;
            let cert = read_pem(cert, cert_option)?;
            let password = password.as_ref().map(Secret::expose);
            let identity = SigningIdentity::from_pem(&key, &cert, password)
                .map_err(|e| format!("{key_option}: {e}"))?;
            tracing::info!(
                subject = %identity.info().subject,
                sha256_fingerprint = %identity.info().sha256_fingerprint,
                "{} are sealed with the configured certificate", which.seals
            );
            identity
        }
        (None, None) => development_identity(which, data_dir, service_name)?,
        _ => {
            return Err(format!(
                "{key_option} and {cert_option} go together (or {key_option} alone with a \
                 PKCS#12 file): give both, or neither for a development certificate"
            )
            .into());
        }
    };
    Ok(identity)
}

/// A sealer of `identity`, with timestamps when `--tsa-url` is set.
fn sealer(identity: SigningIdentity, opts: &SigningOptions) -> Result<Arc<dyn Sealer>, BoxError> {
    let mut sealer = LocalSealer::new(identity);
    if let Some(url) = &opts.tsa_url {
        let tsa = HttpTimestampAuthority::new(url).map_err(|e| format!("--tsa-url: {e}"))?;
        sealer = sealer.with_timestamps(Arc::new(tsa));
        tracing::info!(tsa_url = %url, "seals carry RFC 3161 timestamps");
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

/// Loads a development certificate from the data dir, generating it on first start.
fn development_identity(
    which: &Which,
    data_dir: &Path,
    service_name: &str,
) -> Result<SigningIdentity, BoxError> {
    let dir = data_dir.join(which.dir);
    let (key_path, cert_path) = (dir.join(which.key_file), dir.join(which.cert_file));
    let live = which.live;
    if key_path.exists() && cert_path.exists() {
        let identity = SigningIdentity::from_pem(
            &std::fs::read_to_string(&key_path)?,
            &std::fs::read_to_string(&cert_path)?,
            None,
        )?
        .development(true);
        let fingerprint = &identity.info().sha256_fingerprint;
        if live {
            tracing::warn!(
                certificate = %cert_path.display(),
                sha256_fingerprint = %fingerprint,
                "no --signing-key/--signing-cert: sealing with the self-signed DEVELOPMENT \
                 certificate (validators will not trust it)"
            );
        } else {
            tracing::info!(
                certificate = %cert_path.display(),
                sha256_fingerprint = %fingerprint,
                "test-mode documents are sealed with the generated test-mode certificate"
            );
        }
        return Ok(identity);
    }
    let dev = SigningIdentity::generate_development(&format!("{service_name} {}", which.name))?;
    envelope_core::private_files::create_dir_all(&dir)?;
    write_private(&key_path, dev.key_pem.as_bytes())?;
    write_private(&cert_path, dev.cert_pem.as_bytes())?;
    let fingerprint = &dev.identity.info().sha256_fingerprint;
    if live {
        tracing::warn!(
            certificate = %cert_path.display(),
            sha256_fingerprint = %fingerprint,
            "no --signing-key/--signing-cert: generated a self-signed DEVELOPMENT certificate for \
             sealing documents (validators will not trust it; configure a real one for production)"
        );
    } else {
        tracing::info!(
            certificate = %cert_path.display(),
            sha256_fingerprint = %fingerprint,
            "no --test-signing-key/--test-signing-cert: generated a test-mode certificate for \
             sealing test-mode documents"
        );
    }
    Ok(dev.identity)
}

/// Writes a file readable by its owner only (on Unix), creating it anew.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    envelope_core::private_files::create_new(path)?.write_all(bytes)
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
            ..SigningOptions::default()
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
    fn test_mode_gets_its_own_certificate_made_once_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let first = load_sealers(&SigningOptions::default(), dir.path(), "Envelope").unwrap();
        let (live, test) = (first.live.certificate(), first.test.certificate());
        assert_ne!(live.sha256_fingerprint, test.sha256_fingerprint);
        assert!(
            test.development && test.subject.contains("test mode"),
            "{test:?}"
        );
        assert!(!live.subject.contains("test mode"), "{live:?}");
        let again = load_sealers(&SigningOptions::default(), dir.path(), "Envelope").unwrap();
        assert_eq!(again.test.certificate(), test);
        assert_eq!(again.live.certificate(), live);
        let test_dir = dir.path().join(TEST_DIR);
        assert!(test_dir.join(TEST_CERT).exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(test_dir.join(TEST_KEY))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn a_configured_test_identity_is_used_and_the_live_key_is_refused_for_test_mode() {
        let dir = tempfile::tempdir().unwrap();
        let live = SigningIdentity::generate_development("Acme seal").unwrap();
        let test = SigningIdentity::generate_development("Acme test mode seal").unwrap();
        let opts = |test_key: &str, test_cert: &str| SigningOptions {
            key: Some(Secret::new(live.key_pem.clone())),
            cert: Some(live.cert_pem.clone()),
            test_key: Some(Secret::new(test_key)),
            test_cert: Some(test_cert.into()),
            ..SigningOptions::default()
        };
        let sealers = load_sealers(&opts(&test.key_pem, &test.cert_pem), dir.path(), "E").unwrap();
        assert_eq!(
            sealers.test.certificate().sha256_fingerprint,
            test.identity.info().sha256_fingerprint
        );
        assert_eq!(
            sealers.live.certificate().sha256_fingerprint,
            live.identity.info().sha256_fingerprint
        );
        assert!(!sealers.test.certificate().development);
        assert!(!dir.path().join(DEV_DIR).exists(), "nothing generated");

        // The live key as the test one, with its own certificate or with another one made for
        // the same key: refused, naming the option.
        std::fs::write(dir.path().join("live-key.pem"), &live.key_pem).unwrap();
        let status = std::process::Command::new("openssl")
            .args([
                "req",
                "-new",
                "-x509",
                "-days",
                "30",
                "-subj",
                "/CN=Acme test mode seal",
            ])
            .arg("-key")
            .arg(dir.path().join("live-key.pem"))
            .arg("-out")
            .arg(dir.path().join("renamed.pem"))
            .status()
            .expect("openssl is installed (scripts/install-test-deps.sh installs it)");
        assert!(status.success());
        let renamed = std::fs::read_to_string(dir.path().join("renamed.pem")).unwrap();
        for cert in [&live.cert_pem, &renamed] {
            let Err(err) = load_sealers(&opts(&live.key_pem, cert), dir.path(), "E") else {
                panic!("the live key was taken as the test key");
            };
            let err = err.to_string();
            assert!(
                err.starts_with("--test-signing-key is the live signing key"),
                "{err}"
            );
        }
        // Half a test configuration is refused like half a live one.
        let half = SigningOptions {
            test_key: Some(Secret::new(test.key_pem.clone())),
            ..SigningOptions::default()
        };
        let err = load_sealers(&half, dir.path(), "E")
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("--test-signing-cert"), "{err}");
    }

    #[test]
    fn the_live_development_key_cannot_be_test_modes() {
        let dir = tempfile::tempdir().unwrap();
        let live = load_sealer(&SigningOptions::default(), dir.path(), "E").unwrap();
        let path = |file: &str| dir.path().join(DEV_DIR).join(file);
        let opts = SigningOptions {
            test_key: Some(Secret::new(path(DEV_KEY).to_str().unwrap())),
            test_cert: Some(path(DEV_CERT).to_str().unwrap().into()),
            ..SigningOptions::default()
        };
        let err = load_sealers(&opts, dir.path(), "E")
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("live signing key"), "{err}");
        assert!(live.certificate().development);
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
