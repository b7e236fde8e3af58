//! A real S3-compatible server for tests: moto's standalone server (`moto_server`, from PyPI
//! `moto[server]`; `scripts/install-test-deps.sh` installs it) on a free port of 127.0.0.1,
//! stopped on drop. Used by envelope-core/tests/store_s3.rs, the server's durability tests and
//! benches/load_scale_out.rs.
//!
//! Without `moto_server` a test prints why it skipped and passes, except in CI (`CI=true`),
//! where the tool is installed and its absence fails the test.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running moto server.
#[derive(Debug)]
pub struct Moto {
    child: Child,
    port: u16,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The credentials moto accepts (it checks none).
pub const ACCESS_KEY: &str = "testing";
/// The secret key that goes with [`ACCESS_KEY`].
pub const SECRET_KEY: &str = "testing";
/// The region the clients are configured with.
pub const REGION: &str = "us-east-1";

impl Moto {
    /// Starts moto, or says why not: `None` (after printing the reason) when `moto_server` is
    /// not installed outside CI. In CI a missing server fails `test`.
    pub fn start(test: &str) -> Option<Moto> {
        let found = Command::new("moto_server")
            .arg("--help")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !found {
            let why = "moto_server is not installed (scripts/install-test-deps.sh installs \
                       it: pip install 'moto[server]')";
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{test}: {why}");
            }
            eprintln!("{test}: SKIPPED: {why}");
            return None;
        }
        // A free port: taken from the OS, released, and handed to the server right away.
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start moto_server");
        let mut moto = Moto { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if moto
                .request("GET", "/", "")
                .is_ok_and(|r| r.starts_with("HTTP/1.1 200"))
            {
                return Some(moto);
            }
            if let Ok(Some(status)) = moto.child.try_wait() {
                panic!("moto_server exited at start: {status}");
            }
            assert!(
                Instant::now() < deadline,
                "moto_server did not answer on port {port} within 30 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The server's URL (`http://127.0.0.1:<port>`).
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The settings of `S3BlobStore::with_config` for this server.
    pub fn config(&self) -> Vec<(&'static str, String)> {
        // The builder's names are the variables' in lowercase.
        self.env()
            .into_iter()
            .map(|(k, v)| (ENV_TO_CONFIG.iter().find(|(e, _)| *e == k).unwrap().1, v))
            .collect()
    }

    /// The `AWS_*` variables that point a server process at this server.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT_URL", self.endpoint()),
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY.into()),
            ("AWS_SECRET_ACCESS_KEY", SECRET_KEY.into()),
            ("AWS_REGION", REGION.into()),
            ("AWS_ALLOW_HTTP", "true".into()),
        ]
    }

    /// Creates a bucket (moto needs no signature for it).
    pub fn create_bucket(&self, bucket: &str) {
        let answer = self.request("PUT", &format!("/{bucket}"), "").unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 200"),
            "create bucket: {answer}"
        );
    }

    /// The keys of every object in the bucket (up to 1,000), in order.
    pub fn keys(&self, bucket: &str) -> Vec<String> {
        let answer = self
            .request("GET", &format!("/{bucket}?list-type=2"), "")
            .unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "list: {answer}");
        answer
            .split("<Key>")
            .skip(1)
            .filter_map(|s| s.split_once("</Key>").map(|(k, _)| k.to_string()))
            .collect()
    }

    /// The ETag of an object, from the bucket's listing (moto refuses an unsigned HEAD of an
    /// object): a multipart upload's ends in `-<parts>`.
    pub fn etag(&self, bucket: &str, key: &str) -> Option<String> {
        let answer = self
            .request("GET", &format!("/{bucket}?list-type=2&prefix={key}"), "")
            .unwrap();
        answer.split("<Contents>").skip(1).find_map(|c| {
            let k = c.split_once("<Key>")?.1.split_once("</Key>")?.0;
            let e = c.split_once("<ETag>")?.1.split_once("</ETag>")?.0;
            (k == key).then(|| {
                e.replace("&#34;", "")
                    .replace("&quot;", "")
                    .replace('"', "")
            })
        })
    }

    /// One HTTP/1.1 request; the whole answer as text.
    fn request(&self, method: &str, path: &str, body: &str) -> std::io::Result<String> {
        let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port))?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            self.port,
            body.len()
        )?;
        let mut out = Vec::new();
        stream.read_to_end(&mut out)?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}

const ENV_TO_CONFIG: [(&str, &str); 5] = [
    ("AWS_ENDPOINT_URL", "aws_endpoint_url"),
    ("AWS_ACCESS_KEY_ID", "aws_access_key_id"),
    ("AWS_SECRET_ACCESS_KEY", "aws_secret_access_key"),
    ("AWS_REGION", "aws_region"),
    ("AWS_ALLOW_HTTP", "aws_allow_http"),
];
