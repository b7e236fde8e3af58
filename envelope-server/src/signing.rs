//! The sealer of `serve`: the configured key and certificate chain (PEM), or a self-signed
//! development certificate generated on first start and kept in the data dir; and the HTTP
//! client of the RFC 3161 timestamp authority (`--tsa-url`).
//!
//! The private key and its password never reach a log line or a `Debug` string: they are held
//! as [`Secret`]s until `envelope_core` parses them.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use envelope_core::error::BoxError;
use envelope_core::seal::{LocalSealer, Sealer, SigningIdentity, TimestampAuthority};
use http_body_util::{BodyExt, Full, Limited};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

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
        sealer = sealer.with_timestamps(Arc::new(HttpTimestampAuthority::new(url)?));
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

/// Most bytes of a timestamp response that are read.
const MAX_TSA_RESPONSE: usize = 256 * 1024;
const TSA_TIMEOUT: Duration = Duration::from_secs(30);

/// Posts `application/timestamp-query` to a TSA over HTTP or HTTPS (many public TSAs are plain
/// HTTP: the token is signed, the transport need not be).
#[derive(Clone)]
pub struct HttpTimestampAuthority {
    url: hyper::Uri,
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
}

impl std::fmt::Debug for HttpTimestampAuthority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTimestampAuthority")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl HttpTimestampAuthority {
    pub fn new(url: &str) -> Result<Self, BoxError> {
        let uri: hyper::Uri = url
            .parse()
            .map_err(|e| format!("--tsa-url is not a URL: {e}"))?;
        if !matches!(uri.scheme_str(), Some("http" | "https")) {
            return Err("--tsa-url must be an http:// or https:// URL".into());
        }
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_connect_timeout(Some(Duration::from_secs(10)));
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        Ok(HttpTimestampAuthority {
            url: uri,
            client: Client::builder(TokioExecutor::new()).build(https),
        })
    }

    async fn post(&self, request: Vec<u8>) -> Result<Vec<u8>, BoxError> {
        let req = hyper::Request::post(self.url.clone())
            .header(hyper::header::CONTENT_TYPE, "application/timestamp-query")
            .header(hyper::header::ACCEPT, "application/timestamp-reply")
            .body(Full::new(Bytes::from(request)))?;
        let resp = self.client.request(req).await?;
        if resp.status() != hyper::StatusCode::OK {
            return Err(format!("the TSA answered HTTP {}", resp.status()).into());
        }
        let body = Limited::new(resp.into_body(), MAX_TSA_RESPONSE)
            .collect()
            .await?
            .to_bytes();
        Ok(body.to_vec())
    }
}

#[async_trait]
impl TimestampAuthority for HttpTimestampAuthority {
    async fn exchange(&self, request: Vec<u8>) -> Result<Vec<u8>, BoxError> {
        match tokio::time::timeout(TSA_TIMEOUT, self.post(request)).await {
            Ok(result) => result,
            Err(_) => {
                Err(format!("the TSA gave no answer within {} s", TSA_TIMEOUT.as_secs()).into())
            }
        }
    }
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
        assert!(HttpTimestampAuthority::new("ftp://tsa.example").is_err());
    }
}
