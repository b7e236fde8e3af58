//! A key revoked by the admin command, another process, while a server runs and has the key in
//! its cache of authenticated keys: the server refuses it within 1 s of the command's end
//! (docs/API.md, "Revoking keys"), and a key created meanwhile works at once.

use std::process::Command;
use std::time::Duration;

use crate::process::{BIN, ServerProcess, test_key_in};

/// The promise: a revocation by another process takes effect here within this time.
const REVOCATION_BOUND: Duration = Duration::from_secs(1);

fn admin(data: &str, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .args(["--data-dir", data])
        .env("ENVELOPE_LOG", "warn")
        .env_remove("ENVELOPE_DATABASE_URL")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_revoked_by_the_admin_command_is_refused_within_a_second() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let data = data.to_str().unwrap();
    let server = ServerProcess::start(BIN, &["--data-dir", data], &tmp.path().join("server.log"));
    let key = server.printed_test_key();
    let client = reqwest::Client::new();
    let account_status = |key: String| {
        let req = client
            .get(format!("{}/v1/account", server.base))
            .bearer_auth(key);
        async move { req.send().await.unwrap().status().as_u16() }
    };
    // The server has authenticated the key, so it holds it in its cache.
    assert_eq!(account_status(key.clone()).await, 200);

    let accounts = admin(data, &["accounts", "list"]);
    let account = accounts
        .split_whitespace()
        .find(|w| w.starts_with("acct_"))
        .unwrap_or_else(|| panic!("no account in: {accounts}"));
    let keys = admin(data, &["keys", "list", "--account", account]);
    let key_id = keys
        .lines()
        .find(|l| {
            l.contains("\ttest\t")
                && key.starts_with(l.split('\t').nth(2).unwrap().trim_end_matches('.'))
        })
        .and_then(|l| l.split('\t').next())
        .unwrap_or_else(|| panic!("no test key in: {keys}"));

    // A new key made by another process works at once: only keys that authenticated are cached.
    let created = admin(
        data,
        &["keys", "create", "--account", account, "--mode", "test"],
    );
    let new_key = test_key_in(created.lines().map(str::to_string));
    assert_eq!(account_status(new_key.clone()).await, 200);

    let revoked = admin(
        data,
        &["keys", "revoke", "--account", account, "--key", key_id],
    );
    assert!(revoked.contains("revoked"), "{revoked}");
    // The revocation committed before the command exited; past the bound no copy of the key
    // may be trusted any more.
    tokio::time::sleep(REVOCATION_BOUND + Duration::from_millis(50)).await;
    assert_eq!(
        account_status(key.clone()).await,
        401,
        "a revoked key still works"
    );
    assert_eq!(
        account_status(new_key).await,
        200,
        "the other key was revoked too"
    );
    server.kill();
}
