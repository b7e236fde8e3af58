//! The TypeScript client (clients/typescript): the package and its tests and examples compiled
//! with the pinned `tsc` (a type error fails here), then `node --test` on the shared server: the
//! verifier's cases, and the quick start with a verified webhook (test/e2e.test.ts).

use std::process::Command;

use super::{SERVER, clients_dir, run, typescript_tools};
use crate::tools;

/// The number in a `# <name> N` line of node's test runner summary.
fn count(out: &str, name: &str) -> Option<u32> {
    let prefix = format!("# {name} ");
    out.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|n| n.trim().parse().ok())
}

#[test]
fn typescript_client_signs_an_envelope_and_verifies_its_webhook() {
    let test = "typescript_client_signs_an_envelope_and_verifies_its_webhook";
    if !tools::command("node", test) || !typescript_tools(test) {
        return;
    }
    let dir = clients_dir().join("typescript");
    let tsc = dir.join("node_modules/.bin/tsc");
    // The package first: the tests and examples import it by its name, as users do.
    run(
        Command::new(&tsc)
            .args(["-p", "tsconfig.json"])
            .current_dir(&dir),
        "tsc -p tsconfig.json",
    );
    run(
        Command::new(&tsc)
            .args(["-p", "tsconfig.test.json"])
            .current_dir(&dir),
        "tsc -p tsconfig.test.json",
    );
    let s = &*SERVER;
    let out = run(
        Command::new("node")
            .args(["--test", "build-test/test/"])
            .current_dir(&dir)
            .env("ENVELOPE_URL", &s.base)
            .env("ENVELOPE_API_KEY", &s.test_key)
            .env("ENVELOPE_TEST_PDF", &s.pdf),
        "node --test",
    );
    println!("{out}");
    assert_eq!(count(&out, "fail"), Some(0), "{out}");
    assert_eq!(
        count(&out, "skipped"),
        Some(0),
        "nothing may be skipped here:\n{out}"
    );
    assert!(count(&out, "pass").unwrap_or(0) >= 5, "{out}");
    assert!(
        out.contains("verified webhook: envelope.completed"),
        "{out}"
    );

    // What `npm publish` would ship: the compiled package and its README, no sources or tests.
    let packed = run(
        Command::new("npm")
            .args(["pack", "--dry-run", "--ignore-scripts", "--json"])
            .current_dir(&dir),
        "npm pack --dry-run",
    );
    let start = packed.find('[').expect("npm pack prints JSON");
    let listing: serde_json::Value = serde_json::Deserializer::from_str(&packed[start..])
        .into_iter()
        .next()
        .unwrap()
        .unwrap();
    let files: Vec<&str> = listing[0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    for needed in [
        "package.json",
        "README.md",
        "dist/index.js",
        "dist/index.d.ts",
        "dist/webhooks.d.ts",
        "dist/generated/sdk.gen.js",
    ] {
        assert!(files.contains(&needed), "{needed} is not packed: {files:?}");
    }
    assert!(
        files
            .iter()
            .all(|f| f.starts_with("dist/") || !f.contains('/')),
        "only dist/ and the top files are packed: {files:?}"
    );
}
