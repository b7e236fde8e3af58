//! The Python client (clients/python): its unit tests and the quick start with a verified
//! webhook (tests/test_e2e.py) on the shared server, importing the package from its source
//! directory as an installed copy would be imported.

use std::process::Command;

use super::{SERVER, clients_dir, run};
use crate::tools;

#[test]
fn python_client_signs_an_envelope_and_verifies_its_webhook() {
    let test = "python_client_signs_an_envelope_and_verifies_its_webhook";
    // The generated code's two dependencies (pyproject.toml).
    if !tools::python_module("httpx", test) || !tools::python_module("attrs", test) {
        return;
    }
    let dir = clients_dir().join("python");
    let s = &*SERVER;
    let out = run(
        Command::new("python3")
            .args(["-m", "unittest", "discover", "-v", "-s", "tests"])
            .current_dir(&dir)
            .env("PYTHONPATH", &dir)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("ENVELOPE_URL", &s.base)
            .env("ENVELOPE_API_KEY", &s.test_key)
            .env("ENVELOPE_TEST_PDF", &s.pdf),
        "python3 -m unittest",
    );
    println!("{out}");
    assert!(
        !out.contains("skipped"),
        "nothing may be skipped here:\n{out}"
    );
    assert!(out.contains("\nOK"), "{out}");
    assert!(
        out.contains("verified webhook: envelope.completed"),
        "{out}"
    );
}
