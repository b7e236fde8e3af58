//! The real `envelope-server` binary as a child process, for the server's durability tests and
//! the scale-out bench: start it, wait until its port accepts, read the keys it prints,
//! SIGTERM or SIGKILL it. A process left running by a failed test is killed on drop.
//!
//! The kit depends on neither crate, so the binary is the caller's to name: cargo gives its
//! path to a crate's integration tests and benches as `env!("CARGO_BIN_EXE_envelope-server")`.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Generous: a debug binary on a loaded 2-core machine migrates and binds well within this.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// A free TCP port on 127.0.0.1 (bound, then released for the server to take).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A running server process.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    /// `http://127.0.0.1:<port>`, where it listens.
    pub base: String,
    stdout: mpsc::Receiver<String>,
}

impl ServerProcess {
    /// Starts `bin serve` with `store_args` (`--data-dir D` or `--database-url U`) on a free port
    /// and waits until the port accepts connections. `log` receives stderr; the process runs in
    /// `log`'s folder.
    pub fn start(bin: impl AsRef<Path>, store_args: &[&str], log: &Path) -> ServerProcess {
        ServerProcess::start_with_env(bin, store_args, &[], log)
    }

    /// [`ServerProcess::start`] with environment variables set for the process (after the
    /// defaults, so `ENVELOPE_LOG` can be raised).
    pub fn start_with_env(
        bin: impl AsRef<Path>,
        store_args: &[&str],
        env: &[(&str, &str)],
        log: &Path,
    ) -> ServerProcess {
        let port = free_port();
        let listen = format!("127.0.0.1:{port}");
        let stderr = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .unwrap();
        let mut child = Command::new(bin.as_ref())
            .arg("serve")
            .args(["--listen", &listen])
            .args(store_args)
            // The tests send far more than the default 600 requests per minute.
            .args(["--rate-limit", "100000000"])
            .env("ENVELOPE_LOG", "warn")
            // The tests (and the scale-out bench) send more test emails than a day's default
            // budget; a test of the budget sets its own through `env`.
            .env("ENVELOPE_TEST_EMAIL_DAILY_LIMIT", "unlimited")
            .env_remove("ENVELOPE_DATABASE_URL")
            .env_remove("ENVELOPE_DATA_DIR")
            .env_remove("ENVELOPE_BLOB_URL")
            .envs(env.iter().copied())
            // Nothing may land in the source tree, whatever the arguments.
            .current_dir(log.parent().unwrap())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("start envelope-server");
        let (tx, rx) = mpsc::channel();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = ServerProcess {
            child,
            base: format!("http://{listen}"),
            stdout: rx,
        };
        server.wait_ready(port, log);
        server
    }

    fn wait_ready(&mut self, port: u16, log: &Path) {
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!(
                    "envelope-server exited at start ({status}); stderr:\n{}",
                    std::fs::read_to_string(log).unwrap_or_default()
                );
            }
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "envelope-server did not accept on {addr} within {START_TIMEOUT:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The test key the server prints on its first start (an empty store).
    pub fn printed_test_key(&self) -> String {
        test_key_in(self.stdout.iter())
    }

    /// The test and live keys the server prints on its first start (an empty store).
    pub fn printed_keys(&self) -> (String, String) {
        let (mut test, mut live) = (None, None);
        for line in self.stdout.iter() {
            for (prefix, slot) in [("sk_test_", &mut test), ("sk_live_", &mut live)] {
                if let Some(i) = line.find(prefix) {
                    *slot = Some(line[i..].trim().to_string());
                }
            }
            if let (Some(t), Some(l)) = (&test, &live) {
                return (t.clone(), l.clone());
            }
        }
        panic!("no keys printed");
    }

    /// The process ID.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGTERM, as an orchestrator stops a service (through kill(1): no unsafe code here).
    pub fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -TERM failed");
    }

    /// Waits up to `limit` for the process to exit; `None` if it is still running.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// SIGKILL: no shutdown code runs, as in a crash or an OOM kill.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Creates an account named `name` with `bin`'s admin command on `database_url` (run in `dir`,
/// with the key file `dir/idempotency.key`) and returns its test key.
pub fn create_account(bin: impl AsRef<Path>, database_url: &str, dir: &Path, name: &str) -> String {
    let out = Command::new(bin.as_ref())
        .args([
            "accounts",
            "--database-url",
            database_url,
            "create",
            "--name",
            name,
        ])
        // The key file the servers on this database share: the first process on a database
        // records its key, and a server with another one refuses to start.
        .arg("--idempotency-key-file")
        .arg(dir.join("idempotency.key"))
        .env("ENVELOPE_LOG", "warn")
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "accounts create: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    test_key_in(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(String::from),
    )
}

/// Finds `sk_test_...` in lines like `  test key key_...: sk_test_...`.
pub fn test_key_in(lines: impl IntoIterator<Item = String>) -> String {
    for line in lines {
        if let Some(i) = line.find("sk_test_") {
            return line[i..].trim().to_string();
        }
    }
    panic!("no test key printed");
}
