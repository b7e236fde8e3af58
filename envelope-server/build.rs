//! Records the git commit the binary is built from, for `--version` (issue 16). Outside a git
//! checkout (a crate tarball) or without git, the commit is "unknown".

use std::process::Command;

fn main() {
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=ENVELOPE_GIT_COMMIT={commit}");
    // Rebuilt when HEAD moves (a commit, a checkout). The paths are the workspace's .git.
    // Only paths that exist: cargo reruns a build script on every build for a missing one.
    for path in ["../.git/HEAD", "../.git/refs/heads", "../.git/packed-refs"] {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
