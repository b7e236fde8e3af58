//! A throwaway PKI that answers OCSP, serves CRLs and timestamps: certomancer's Animator
//! (`certomancer animate`, from PyPI `certomancer[web-api]`; `scripts/install-test-deps.sh`
//! installs it) with the configuration in `testkit/pki/certomancer.yml`, on a free port of
//! 127.0.0.1, stopped when the last handle is dropped.
//!
//! The PKI (every key ECDSA P-256, in `testkit/pki/keys/`): a root CA, an intermediate CA, the
//! sealing certificate `seal` (AIA with OCSP and caIssuers, a CRL distribution point), the same
//! shape revoked (`seal-revoked`), and one with only a CRL distribution point (`seal-crl-only`).
//! The intermediate answers OCSP with its own key; the root through a delegated responder
//! certificate (`root-ocsp`). The timestamp authorities have a hierarchy of their own, as they
//! usually do: a root (`tsa-ca`) that issues `tsa` (2060) and `tsa2` (2090), each with a CRL
//! distribution point and caIssuers, served at `/envelope/tsa/tsa` and `/envelope/tsa/tsa2`.
//! Every URL in the certificates names the running server: the configuration's URL prefix is
//! replaced by `--service-url-prefix` with the port.
//!
//! There is no skip: a test that needs the PKI fails when certomancer is missing, with a
//! message that names the script that installs it.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// The PKI architecture's label in the configuration (the first segment of every URL path).
const ARCH: &str = "envelope";
/// Generous: certomancer loads its keys and imports werkzeug on a loaded 2-core machine.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// A running Animator. Shared by the tests of one binary through [`Pki::shared`].
#[derive(Debug)]
pub struct Pki {
    child: Child,
    port: u16,
}

impl Drop for Pki {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The handle the tests of a binary share; the server stops when the last `Arc` goes.
static SHARED: Mutex<Weak<Pki>> = Mutex::new(Weak::new());

impl Pki {
    /// The running PKI of this test binary, started on first use (and again after every handle
    /// of the previous one was dropped). Panics when certomancer is not installed, naming
    /// `scripts/install-test-deps.sh`.
    pub fn shared() -> Arc<Pki> {
        let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(pki) = shared.upgrade() {
            return pki;
        }
        let pki = Arc::new(Pki::start());
        *shared = Arc::downgrade(&pki);
        pki
    }

    /// Starts a PKI of its own (a test that stops it, for instance).
    pub fn start() -> Pki {
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Pki::start_at(port)
    }

    /// Starts a PKI of its own on `port`: a test that names its URLs (`--tsa-url`) before the
    /// services run, and starts and stops them under a running server.
    pub fn start_at(port: u16) -> Pki {
        let found = Command::new("certomancer")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            found,
            "certomancer is not installed: run scripts/install-test-deps.sh \
             (pip install 'certomancer[web-api]')"
        );
        let child = Command::new("certomancer")
            .arg("--config")
            .arg(config_path())
            .args(["--service-url-prefix", &format!("http://127.0.0.1:{port}")])
            .args(["animate", "--port", &port.to_string(), "--no-web-ui"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start certomancer animate");
        let mut pki = Pki { child, port };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if pki
                .get(&format!("/{ARCH}/certs/root/ca.crt.pem"))
                .is_ok_and(|(status, _)| status == 200)
            {
                return pki;
            }
            if let Ok(Some(status)) = pki.child.try_wait() {
                panic!("certomancer animate exited at start: {status}");
            }
            assert!(
                Instant::now() < deadline,
                "certomancer did not answer on port {port} within {} s",
                START_TIMEOUT.as_secs()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The OCSP responder for certificates issued by `issuer` (`root` or `interm`).
    pub fn ocsp_url(&self, issuer: &str) -> String {
        format!("{}/{ARCH}/ocsp/{issuer}", self.base_url())
    }

    /// The latest CRL of `issuer` (`root` or `interm`), DER.
    pub fn crl_url(&self, issuer: &str) -> String {
        format!("{}/{ARCH}/crls/{issuer}/latest.crl", self.base_url())
    }

    /// The RFC 3161 timestamp authority (its certificate is `tsa`, issued by `tsa-ca`).
    pub fn tsa_url(&self) -> String {
        self.tsa_url_of("tsa")
    }

    /// The timestamp authority `label` (`tsa` or `tsa2`).
    pub fn tsa_url_of(&self, label: &str) -> String {
        format!("{}/{ARCH}/tsa/{label}", self.base_url())
    }

    /// The PEM of certificate `label` as the running server issued it (`root`, `interm`,
    /// `seal`, `seal-revoked`, `seal-crl-only`, `root-ocsp`, `tsa-ca`, `tsa`, `tsa2`).
    pub fn cert_pem(&self, label: &str) -> String {
        let path = match label {
            "root" | "tsa-ca" => format!("/{ARCH}/certs/{label}/ca.crt.pem"),
            "interm" | "root-ocsp" => format!("/{ARCH}/certs/root/issued/{label}.crt.pem"),
            "tsa" | "tsa2" => format!("/{ARCH}/certs/tsa-ca/issued/{label}.crt.pem"),
            _ => format!("/{ARCH}/certs/interm/issued/{label}.crt.pem"),
        };
        let (status, body) = self
            .get(&path)
            .expect("fetch a certificate from certomancer");
        assert_eq!(status, 200, "certomancer has no certificate {label}");
        String::from_utf8(body).expect("PEM is text")
    }

    /// The DER of certificate `label` (see [`Self::cert_pem`]).
    pub fn cert_der(&self, label: &str) -> Vec<u8> {
        pem_to_der(&self.cert_pem(label))
    }

    /// The chain of `label` as PEM, leaf first, down to the root: what a sealing identity
    /// loads.
    pub fn chain_pem(&self, label: &str) -> String {
        match label {
            "root" | "tsa-ca" => self.cert_pem(label),
            "interm" | "root-ocsp" => self.cert_pem(label) + &self.cert_pem("root"),
            "tsa" | "tsa2" => self.cert_pem(label) + &self.cert_pem("tsa-ca"),
            _ => self.cert_pem(label) + &self.cert_pem("interm") + &self.cert_pem("root"),
        }
    }

    /// The chain of `label` as DER, leaf first, down to the root.
    pub fn chain_der(&self, label: &str) -> Vec<Vec<u8>> {
        split_pem(&self.chain_pem(label))
            .iter()
            .map(|p| pem_to_der(p))
            .collect()
    }

    /// The PKCS#8 PEM private key of `label` (unencrypted; throwaway test keys).
    pub fn key_pem(&self, label: &str) -> String {
        let path = pki_dir().join("keys").join(format!("{label}.key.pem"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// One GET to the server: its status and body.
    fn get(&self, path: &str) -> std::io::Result<(u16, Vec<u8>)> {
        let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port))?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            self.port
        )?;
        let mut out = Vec::new();
        stream.read_to_end(&mut out)?;
        let split = out
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .ok_or_else(|| std::io::Error::other("no end of headers"))?;
        let head = String::from_utf8_lossy(&out[..split]);
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| std::io::Error::other("no status"))?;
        if head
            .lines()
            .any(|l| l.eq_ignore_ascii_case("transfer-encoding: chunked"))
        {
            return Err(std::io::Error::other("chunked answers are not read here"));
        }
        Ok((status, out[split + 4..].to_vec()))
    }
}

fn pki_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("pki")
}

fn config_path() -> PathBuf {
    pki_dir().join("certomancer.yml")
}

/// The PEM blocks of a file, each with its armour.
fn split_pem(pem: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current = String::new();
    for line in pem.lines() {
        current.push_str(line);
        current.push('\n');
        if line.starts_with("-----END ") {
            blocks.push(std::mem::take(&mut current));
        }
    }
    blocks
}

/// The DER inside one PEM block.
fn pem_to_der(pem: &str) -> Vec<u8> {
    let b64: String = pem
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect::<Vec<_>>()
        .concat();
    STANDARD
        .decode(b64.trim())
        .expect("certomancer writes valid PEM")
}
