//! The real `envelope-server` binary as a child process (`envelope_testkit::process`, shared
//! with the scale-out bench), and what these tests add: requests read whole, list walks and a
//! seeded generator.

use serde_json::Value;

pub use envelope_testkit::process::{ServerProcess, create_account, free_port, test_key_in};

/// The binary cargo built for these tests, which every start of a process names.
pub const BIN: &str = env!("CARGO_BIN_EXE_envelope-server");

/// A response read whole; `None` status means the request got no answer (connection refused or
/// cut by the kill).
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub replayed: bool,
    pub body: Value,
}

impl Answer {
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or("")
    }
}

/// Sends `req`; `None` when there is no complete answer.
pub async fn send(req: reqwest::RequestBuilder) -> Option<Answer> {
    let res = req.send().await.ok()?;
    let status = res.status().as_u16();
    let replayed = res
        .headers()
        .get("idempotent-replayed")
        .is_some_and(|v| v == "true");
    let bytes = res.bytes().await.ok()?;
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)));
    Some(Answer {
        status,
        replayed,
        body,
    })
}

/// Every item of a list route, newest first, walking `starting_after` pages of 100.
pub async fn list_all(client: &reqwest::Client, base: &str, key: &str, path: &str) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    loop {
        let mut url = format!("{base}{path}?limit=100");
        if let Some(last) = out.last() {
            url.push_str(&format!("&starting_after={}", last["id"].as_str().unwrap()));
        }
        let page = send(client.get(&url).bearer_auth(key))
            .await
            .unwrap_or_else(|| panic!("no answer to GET {url}"));
        assert_eq!(page.status, 200, "{}", page.body);
        out.extend(page.body["data"].as_array().unwrap().iter().cloned());
        if page.body["has_more"] != true {
            return out;
        }
    }
}

/// SplitMix64: a seeded generator, so that a failing run can be replayed with its seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo)
    }
}
