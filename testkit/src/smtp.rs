//! A real SMTP server for tests: Python's aiosmtpd with the handler in `smtp_sink.py` beside this
//! file, which stores each message as `.eml` plus a `.json` envelope. Used by
//! envelope-core/tests/mail_smtp.rs and envelope-server/tests/{smtp.rs,durability/email.rs}.

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running aiosmtpd, stopped on drop.
#[derive(Debug)]
pub struct Sink {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

/// One message as the sink received it.
pub struct Received {
    /// The envelope sender (`MAIL FROM`).
    pub mail_from: String,
    /// The envelope recipients (`RCPT TO`).
    pub rcpt_tos: Vec<String>,
    /// The client's address and port.
    pub peer: (String, u16),
    /// The message as sent (RFC 5322).
    pub eml: Vec<u8>,
}

impl std::fmt::Debug for Received {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Received")
            .field("mail_from", &self.mail_from)
            .field("rcpt_tos", &self.rcpt_tos)
            .field("peer", &self.peer)
            .field("eml_len", &self.eml.len())
            .finish()
    }
}

impl Sink {
    /// Starts on a free port of 127.0.0.1; panics without `python3` and `aiosmtpd`.
    pub fn start() -> Sink {
        // A free port: taken from the OS, released, and handed to the server right away.
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Sink::start_on(port)
    }

    /// Starts on a given port (a relay that comes back where the service expects it).
    pub fn start_on(port: u16) -> Sink {
        let probe = Command::new("python3")
            .args(["-c", "import aiosmtpd"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if !probe.is_ok_and(|s| s.success()) {
            panic!(
                "python3 with aiosmtpd is required for the SMTP tests: run scripts/install-test-deps.sh"
            );
        }
        let dir = tempfile::tempdir().unwrap();
        // smtp_sink.py sits beside this file, in the kit's own source tree.
        let support = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let child = Command::new("python3")
            .args(["-m", "aiosmtpd", "-n", "-l"])
            .arg(format!("127.0.0.1:{port}"))
            .args(["-c", "smtp_sink.Sink"])
            .arg(dir.path().join("out"))
            .env("PYTHONPATH", support)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start python3 -m aiosmtpd");
        let mut sink = Sink { child, port, dir };
        sink.wait_until_listening();
        sink
    }

    fn wait_until_listening(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if std::net::TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)).is_ok() {
                return;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                let mut err = String::new();
                if let Some(mut e) = self.child.stderr.take() {
                    std::io::Read::read_to_string(&mut e, &mut err).ok();
                }
                panic!("aiosmtpd exited ({status}) before listening: {err}");
            }
            assert!(
                Instant::now() < deadline,
                "aiosmtpd did not listen within 20 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The server's address as an `smtp://` URL.
    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// The directory the received messages are written to.
    pub fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    /// Waits until `n` messages have arrived and returns them in arrival order.
    pub async fn received(&self, n: usize) -> Vec<Received> {
        self.received_within(n, Duration::from_secs(20)).await
    }

    /// [`Sink::received`], waiting up to `limit`.
    pub async fn received_within(&self, n: usize, limit: Duration) -> Vec<Received> {
        let deadline = Instant::now() + limit;
        loop {
            let mut metas: Vec<PathBuf> = std::fs::read_dir(self.out())
                .map(|d| d.map(|e| e.unwrap().path()).collect())
                .unwrap_or_default();
            metas.retain(|p| p.extension().is_some_and(|e| e == "json"));
            if metas.len() >= n {
                metas.sort();
                return metas.iter().map(|p| read_received(p)).collect();
            }
            assert!(
                Instant::now() < deadline,
                "only {} of {n} messages arrived",
                metas.len()
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_received(meta: &Path) -> Received {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(meta).unwrap()).unwrap();
    Received {
        mail_from: v["mail_from"].as_str().unwrap().to_owned(),
        rcpt_tos: v["rcpt_tos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().to_owned())
            .collect(),
        peer: (
            v["peer"][0].as_str().unwrap().to_owned(),
            v["peer"][1].as_u64().unwrap() as u16,
        ),
        eml: std::fs::read(meta.with_extension("eml")).unwrap(),
    }
}
