//! The Python tools the OpenAPI tests run (installed by `scripts/install-test-deps.sh`): in CI
//! (`CI=true`) a missing tool fails the test; elsewhere the test skips with a printed reason.

use std::process::Command;

/// True when `python3 -c "import <module>"` works. Otherwise fails the test in CI, and prints
/// why the test is skipped elsewhere.
pub fn python_module(module: &str, test: &str) -> bool {
    let found = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    found || missing(&format!("the Python module {module}"), test)
}

/// True when `<command> --version` runs; otherwise as [`python_module`].
pub fn command(name: &str, test: &str) -> bool {
    let found = Command::new(name)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    found || missing(&format!("the command {name}"), test)
}

/// Fails the test in CI, prints why it is skipped elsewhere; false.
pub fn missing(what: &str, test: &str) -> bool {
    let why = format!("{what} is not installed (scripts/install-test-deps.sh installs it)");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{test}: {why}");
    }
    eprintln!("{test}: SKIPPED: {why}");
    false
}
