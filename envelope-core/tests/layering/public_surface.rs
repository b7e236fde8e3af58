//! Invariant 19 of docs/ARCHITECTURE.md: the public surface is curated.
//!
//! The crate's default documentation shows the service, its parameters, the typed IDs, the
//! model's views, `Error` and the seams. The modules that implement them are private, and what
//! a caller needs from them is re-exported where it belongs (`store::SqlStore`,
//! `service::Params`, `i18n::Msg`). This is a text check of the declarations, like the layering
//! test: a `pub mod` that slips back fails here before it adds pages to the documentation.

use super::core_sources;

/// The public modules: (file declaring them, module). Any other `pub mod` must be behind the
/// feature `internals` or `conformance`, which the default documentation leaves off.
const PUBLIC_MODULES: &[(&str, &str)] = &[
    ("lib.rs", "clock"),
    ("lib.rs", "error"),
    ("lib.rs", "field"),
    ("lib.rs", "fonts"),
    ("lib.rs", "formula"),
    ("lib.rs", "i18n"),
    ("lib.rs", "ids"),
    ("lib.rs", "mail"),
    ("lib.rs", "model"),
    ("lib.rs", "private_files"),
    ("lib.rs", "render"),
    ("lib.rs", "seal"),
    ("lib.rs", "service"),
    ("lib.rs", "store"),
    ("lib.rs", "webhook"),
    ("model/mod.rs", "account"),
    ("model/mod.rs", "bulk_send"),
    ("model/mod.rs", "email"),
    ("model/mod.rs", "envelope"),
    ("model/mod.rs", "event"),
    ("model/mod.rs", "identity"),
    ("model/mod.rs", "reach"),
    ("model/mod.rs", "template"),
    ("model/mod.rs", "webhook"),
    // Inside modules that exist only with `internals` or `conformance`.
    ("rules.rs", "identity"),
    ("store/conformance.rs", "fixtures"),
];

/// The features whose modules are public for the crate's own tests, benches and fuzzing.
const GATES: [&str; 2] = [
    "#[cfg(feature = \"internals\")]",
    "#[cfg(any(test, feature = \"conformance\"))]",
];

/// Modules made private with their items re-exported: (file, declaration that must be there).
const PRIVATE_MODULES: &[(&str, &str)] = &[
    ("store/mod.rs", "mod sql;"),
    ("store/mod.rs", "mod s3;"),
    ("service/mod.rs", "mod builders;"),
    ("service/mod.rs", "mod json;"),
    ("service/mod.rs", "mod params;"),
    ("i18n/mod.rs", "pub(crate) mod catalog;"),
];

/// Helpers of `ids` that only the crate uses.
const CRATE_HELPERS: &[&str] = &[
    "fn derived_id(",
    "fn new_token(",
    "fn sha256_hex(",
    "fn digest(",
    "fn salted_digest(",
    "fn random_digits(",
    "fn same_digest(",
    "fn hex(",
    "fn has_shape(",
    "const ENVELOPE:",
    "const SIGNER:",
    "const EVENT:",
    "const TEMPLATE:",
    "const ACCOUNT:",
    "const API_KEY:",
    "const WEBHOOK_ENDPOINT:",
    "const DELIVERY:",
    "const EMAIL:",
    "const RECIPIENT:",
    "const WEBHOOK_SECRET:",
];

fn source(file: &str) -> String {
    core_sources()
        .into_iter()
        .find(|(f, _)| f == file)
        .unwrap_or_else(|| panic!("{file} was moved: update tests/layering/public_surface.rs"))
        .1
}

#[test]
fn every_public_module_is_api_or_behind_a_feature() {
    let mut stray = Vec::new();
    for (file, text) in core_sources() {
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let Some(rest) = line.trim_start().strip_prefix("pub mod ") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if PUBLIC_MODULES.contains(&(file.as_str(), name.as_str())) {
                continue;
            }
            // The attributes above the declaration, nearest first.
            let gated = lines[..n]
                .iter()
                .rev()
                .map(|l| l.trim())
                .take_while(|l| l.starts_with("#[") || l.starts_with("//"))
                .any(|l| GATES.contains(&l));
            if !gated {
                stray.push(format!("{file}:{} declares `pub mod {name}`", n + 1));
            }
        }
    }
    assert!(
        stray.is_empty(),
        "an internal module is public (make it private and re-export what the API needs, \
         or add it to PUBLIC_MODULES and invariant 19): {stray:#?}"
    );
}

#[test]
fn the_implementation_modules_are_private() {
    for (file, declaration) in PRIVATE_MODULES {
        let text = source(file);
        assert!(
            text.lines().any(|l| l.trim() == *declaration),
            "{file} no longer has `{declaration}`: keep the module private (invariant 19)"
        );
    }
}

#[test]
fn the_id_helpers_are_the_crates() {
    let ids = source("ids.rs");
    for helper in CRATE_HELPERS {
        assert!(
            !ids.contains(&format!("\npub {helper}")),
            "ids.rs makes `{helper}` public: it is the crate's own helper (invariant 19)"
        );
        assert!(
            ids.contains(&format!("\npub(crate) {helper}")),
            "ids.rs no longer declares `pub(crate) {helper}`: update tests/layering/public_surface.rs"
        );
    }
}
