//! Invariants 1, 6, 19 (public_surface.rs), 20 and 21 of docs/ARCHITECTURE.md, read off the
//! core's sources.
//!
//! Invariant 1, the core knows nothing of the HTTP API: it is an HTTP *client* in three places
//! only, each behind a feature: the webhook sink and the timestamp authority client (`https`,
//! through hyper) and the S3 blob store (`s3`, through object_store and `http`). Nothing else in
//! it names those crates, and nothing in it names an HTTP status code: the mapping of errors to
//! statuses is the server's (envelope-server/src/error.rs).
//!
//! Invariant 6, time comes from `Clock`: only `SystemClock` reads the wall clock, and the
//! monotonic clock is read only where real time is bounded or measured, never business time.

use std::path::{Path, PathBuf};

mod public_surface;

/// Crates of the core that only some of its files may name.
struct Fence {
    /// How the crates appear in Rust source (see [`names`]).
    names: &'static [&'static str],
    /// The files that may name them; a path ending in `/` is a folder.
    owners: &'static [&'static str],
}

const FENCES: [Fence; 2] = [
    // The HTTP stack of the three HTTPS clients (feature `https`).
    Fence {
        names: &[
            "hyper::",
            "hyper_util",
            "hyper_rustls",
            "http_body_util",
            "tower_service",
        ],
        owners: &[
            "webhook/http.rs",
            "seal/http_tsa.rs",
            "seal/revocation/http.rs",
        ],
    },
    // The S3 client and the `http` crate it speaks with (feature `s3`).
    Fence {
        names: &["object_store", "http::"],
        owners: &["store/s3.rs", "store/s3/"],
    },
];

/// Reads of the wall clock. Only `SystemClock` makes one (`clock.rs`).
const WALL_CLOCK: [&str; 3] = ["Utc::now", "Local::now", "SystemTime::now"];
const WALL_CLOCK_OWNER: &str = "clock.rs";

/// The files that read the monotonic clock, and what for: each bounds or measures real time,
/// none decides anything of the domain with it.
const MONOTONIC: [(&str, &str); 6] = [
    ("pdf/budget.rs", "the PDF reader's deadline (invariant 13)"),
    ("service/key_cache.rs", "the age of a cached API key"),
    ("service/pool.rs", "how long PDF work took (a metric)"),
    ("service/seals.rs", "how long the sealer took (a metric)"),
    (
        "service/outbox/webhook.rs",
        "how long a delivery attempt took",
    ),
    ("store/sql/mod.rs", "how long a commit took (a metric)"),
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn core_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(files.len() > 50, "the core's sources were found");
    files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `text` names `name` as a crate: anywhere it appears, except inside a longer
/// identifier, as a later segment of a path (`webhook::http::`, `hyper::http::`), or, in a file
/// that declares a module of that name (`mod http;`), at the head of a path (that module).
fn names(text: &str, name: &str) -> bool {
    let bare = name.trim_end_matches("::");
    let own_module =
        text.contains(&format!("mod {bare};")) || text.contains(&format!("mod {bare} "));
    text.match_indices(name).any(|(at, _)| {
        let before = &text[..at];
        if before.ends_with(is_ident) {
            return false;
        }
        match before.strip_suffix("::") {
            // `::http::` is the crate; `something::http::` a module.
            Some(rest) => !rest.ends_with(is_ident),
            None => !own_module,
        }
    })
}

fn owned_by(file: &str, owners: &[&str]) -> bool {
    owners
        .iter()
        .any(|o| file == *o || (o.ends_with('/') && file.starts_with(o)))
}

#[test]
fn fenced_crates_are_named_only_by_their_owners() {
    let sources = core_sources();
    for fence in &FENCES {
        let mut outside = Vec::new();
        for (file, text) in &sources {
            for name in fence.names {
                if names(text, name) && !owned_by(file, fence.owners) {
                    outside.push(format!("{file} names {name}"));
                }
            }
        }
        assert!(
            outside.is_empty(),
            "only {:?} may name these (invariant 1): {outside:#?}",
            fence.owners
        );
        // And each owner file does (the check above would pass on a renamed file).
        for owner in fence.owners.iter().filter(|o| !o.ends_with('/')) {
            let text = &sources
                .iter()
                .find(|(f, _)| f == owner)
                .unwrap_or_else(|| panic!("{owner} was moved: update FENCES and invariant 1"))
                .1;
            assert!(
                fence.names.iter().any(|n| names(text, n)),
                "{owner} names none of {:?}: update FENCES and invariant 1",
                fence.names
            );
        }
    }
}

#[test]
fn the_name_matcher_tells_crates_from_modules() {
    assert!(names("use http::Method;", "http::"));
    assert!(names("let m = ::http::Method::GET;", "http::"));
    assert!(names("f(http::Method::GET)", "http::"));
    // The core's own modules named `http`, and hyper's re-export, are not the crate.
    assert!(!names("mod http;\npub use http::HttpSink;", "http::"));
    assert!(!names("use crate::webhook::http::HttpSink;", "http::"));
    assert!(!names("hyper::http::Uri", "http::"));
    assert!(!names("\"https://example.com\" // https::", "http::"));
    assert!(names("use object_store::path::Path;", "object_store"));
    assert!(!names("my_object_store", "object_store"));
}

#[test]
fn only_system_clock_reads_the_wall_clock() {
    let mut found = Vec::new();
    for (file, text) in core_sources() {
        for name in WALL_CLOCK {
            if text.contains(name) {
                found.push(format!("{file} calls {name}"));
            }
        }
    }
    let outside: Vec<_> = found
        .iter()
        .filter(|f| !f.starts_with(&format!("{WALL_CLOCK_OWNER} ")))
        .collect();
    assert!(
        outside.is_empty(),
        "time comes from a Clock (invariant 6): {outside:#?}"
    );
    assert!(
        found
            .iter()
            .any(|f| f.starts_with(&format!("{WALL_CLOCK_OWNER} "))),
        "SystemClock left {WALL_CLOCK_OWNER}: update WALL_CLOCK_OWNER and invariant 6"
    );
}

#[test]
fn the_monotonic_clock_is_read_only_where_listed() {
    let readers: Vec<String> = core_sources()
        .into_iter()
        .filter(|(_, text)| text.contains("Instant::now"))
        .map(|(file, _)| file)
        .collect();
    for file in &readers {
        assert!(
            MONOTONIC.iter().any(|(f, _)| f == file),
            "{file} reads Instant::now: business time comes from a Clock (invariant 6); \
             a bound or a measure of real time goes into MONOTONIC with its reason"
        );
    }
    for (file, why) in MONOTONIC {
        assert!(
            readers.iter().any(|r| r == file),
            "{file} ({why}) no longer reads Instant::now: remove it from MONOTONIC"
        );
    }
}

#[test]
fn the_core_has_no_status_codes() {
    for (file, text) in core_sources() {
        assert!(
            !text.contains("StatusCode"),
            "{file} names StatusCode: statuses are the server's"
        );
    }
    // The errors carry kinds and codes; no number in their module's code is a status.
    let error = core_sources()
        .into_iter()
        .find(|(f, _)| f == "error.rs")
        .unwrap()
        .1;
    for (n, line) in error.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let status = code
            .split(|c: char| !c.is_ascii_digit())
            .find(|w| w.len() == 3 && (w.starts_with('4') || w.starts_with('5')));
        assert!(
            status.is_none(),
            "error.rs:{} has the number {status:?}: the status of an error kind is the server's",
            n + 1
        );
    }
}

/// Invariant 20, the floors of the core: each folder imports only from the floors below it, so
/// that a seam (`mail`, `webhook`) never reaches into the store or the service, the model never
/// reaches up into a seam, and the store knows nothing of the workers that drive it. The
/// service, on the top floor, may use anything; the ground (`clock`, `error`, `ids`, `field`,
/// `i18n`, `private_files`) imports nothing above it.
const FLOORS: [(&str, &[&str]); 6] = [
    (
        "model/",
        &["clock", "error", "field", "i18n", "ids", "model"],
    ),
    (
        "store/",
        &["clock", "error", "ids", "model", "private_files", "store"],
    ),
    (
        "mail/",
        &["clock", "error", "ids", "model", "private_files", "mail"],
    ),
    ("webhook/", &["clock", "error", "ids", "model", "webhook"]),
    ("seal/", &["clock", "error", "ids", "seal"]),
    (
        "rules/",
        &["clock", "error", "field", "i18n", "ids", "model", "rules"],
    ),
];

/// The module each item re-exported at the crate's root comes from (`pub use clock::{Clock, ..}`
/// in lib.rs), so that `crate::Timestamp` counts as a use of `clock`.
fn root_reexports() -> Vec<(String, String)> {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .unwrap()
        .replace('\n', " ");
    let mut out = Vec::new();
    for part in lib.split("pub use ").skip(1) {
        let Some((module, rest)) = part.split_once("::") else {
            continue;
        };
        let items = match rest.strip_prefix('{') {
            Some(list) => list.split('}').next().unwrap_or(""),
            None => rest.split(';').next().unwrap_or(""),
        };
        for item in items.split(',') {
            let name = item
                .split_whitespace()
                .last()
                .unwrap_or("")
                .trim_end_matches(';');
            if !name.is_empty() {
                out.push((name.to_string(), module.trim().to_string()));
            }
        }
    }
    out
}

/// The top-level modules that `text` uses through `crate::` paths in code (comments, where doc
/// links may name anything, are left out).
fn crate_modules(text: &str) -> Vec<String> {
    let roots = root_reexports();
    crate_paths(text)
        .into_iter()
        .map(|m| {
            roots
                .iter()
                .find(|(name, _)| *name == m)
                .map_or(m, |(_, module)| module.clone())
        })
        .fold(Vec::new(), |mut out, m| {
            if !out.contains(&m) {
                out.push(m);
            }
            out
        })
}

/// The first segment of every `crate::` path in the code of `text`.
fn crate_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (at, _) in code.match_indices("crate::") {
            if code[..at].ends_with(is_ident) {
                continue;
            }
            let module: String = code[at + "crate::".len()..]
                .chars()
                .take_while(|&c| is_ident(c))
                .collect();
            if !module.is_empty() && !out.contains(&module) {
                out.push(module);
            }
        }
    }
    out
}

#[test]
fn no_import_runs_up_a_floor() {
    let sources = core_sources();
    let mut checked = 0;
    for (floor, allowed) in FLOORS {
        for (file, text) in sources.iter().filter(|(f, _)| {
            f.starts_with(floor) || *f == format!("{}.rs", floor.trim_end_matches('/'))
        }) {
            checked += 1;
            for module in crate_modules(text) {
                assert!(
                    allowed.contains(&module.as_str()),
                    "{file} imports crate::{module}, which stands above {floor} (invariant 20)"
                );
            }
        }
    }
    assert!(checked > 40, "the floors' files were found ({checked})");
}

#[test]
fn the_floor_reader_sees_code_not_comments() {
    let text = "use crate::model::X;\n/// [`Y`](crate::service::Y)\nlet a = crate::ids::new(); // crate::store\nfoo_crate::bar";
    assert_eq!(crate_modules(text), ["model", "ids"]);
}

/// Invariant 21, storage by resource: each storage trait (`store/<resource>.rs`) has at most 15
/// methods, and none takes an identifier as a bare string: `id`, `account`, `event`,
/// `endpoint`, `template`, `envelope`, `signer`, `key_id` and `delivery` are typed IDs.
#[test]
fn storage_traits_are_small_and_take_typed_ids() {
    const ID_PARAMS: [&str; 9] = [
        "id", "account", "event", "endpoint", "template", "envelope", "signer", "key_id",
        "delivery",
    ];
    let mut traits = 0;
    for (file, text) in core_sources() {
        let Some(name) = file.strip_prefix("store/") else {
            continue;
        };
        if name.contains('/') {
            continue;
        }
        for (at, _) in text.match_indices("pub trait ") {
            let body_start = at + text[at..].find('{').unwrap();
            let mut depth = 0;
            let mut end = body_start;
            for (i, c) in text[body_start..].char_indices() {
                depth += i32::from(c == '{') - i32::from(c == '}');
                if depth == 0 {
                    end = body_start + i;
                    break;
                }
            }
            let body = &text[body_start..end];
            let trait_name = text[at + "pub trait ".len()..]
                .split(|c: char| !is_ident(c))
                .next()
                .unwrap();
            let methods = body.matches("async fn ").count() + body.matches("\n    fn ").count();
            assert!(
                methods <= 15,
                "{file}: {trait_name} has {methods} methods; split the resource (invariant 21)"
            );
            for param in ID_PARAMS {
                assert!(
                    !body.contains(&format!("{param}: &str")),
                    "{file}: {trait_name} takes `{param}: &str`; an ID is its type (invariant 21)"
                );
            }
            traits += 1;
        }
    }
    assert!(traits >= 12, "the storage traits were found ({traits})");
}
