//! The fuzz loop: draws cases from a proptest strategy with a fixed (or given) seed, runs each
//! through `inspect` and `stamp` on a worker thread under a deadline, checks what comes back,
//! and on a failure shrinks it, saves it and fails the test.
//!
//! proptest's own runner is not used because a hung case cannot be stopped: its thread keeps
//! spinning. So hangs are not shrunk unless asked (`PDF_FUZZ_SHRINK_HANGS=1`), and no more than
//! [`MAX_LEAKED`] hung threads are ever left behind.

use std::cell::RefCell;
use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::{Once, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use envelope_core::field::FieldType;
use envelope_core::pdf::{
    AttachmentLimits, EmbeddedFile, FieldStamp, PdfLimits, SignatureBlock, StampRequest,
    StampValue, inspect, normalize_attachment, stamp,
};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// Hung worker threads left spinning at most (each costs a core until the test binary exits).
const MAX_LEAKED: usize = 3;
/// The seed CI uses, so that a red run reproduces.
const DEFAULT_SEED: u64 = 0x5EED_0F11;
/// Stack of a worker thread: that of tokio's blocking pool, where the service runs PDF work.
const WORKER_STACK: usize = 2 << 20;

const WORKER_NAME: &str = "pdf-fuzz-case";

thread_local! {
    /// Where the current worker panicked, kept by the panic hook.
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keeps workers' panics quiet (shrinking would print hundreds of backtraces) and remembers
/// where each happened, for the report.
fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if thread::current().name() == Some(WORKER_NAME) {
                let at = info.location().map(ToString::to_string);
                PANIC_AT.with(|p| *p.borrow_mut() = at);
            } else {
                default(info);
            }
        }));
    });
}

/// What one case did.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Pass(Reach),
    /// Still running at the deadline.
    Hang,
    Panic(String),
    /// Returned, but something it returned breaks a rule (plain-word errors, original bytes kept).
    Broken(String),
}

impl Verdict {
    fn class(&self) -> &'static str {
        match self {
            Verdict::Pass(_) => "pass",
            Verdict::Hang => "hang",
            Verdict::Panic(_) => "panic",
            Verdict::Broken(_) => "broken",
        }
    }
}

/// How far a passing case got: a campaign that is refused at the door tests little.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reach {
    Refused,
    Inspected,
    Stamped,
}

/// One fuzz campaign: its name, case count and the knobs read from the environment.
pub struct Campaign {
    name: &'static str,
    cases: u32,
    seed: u64,
    deadline: Duration,
    shrink_hangs: bool,
    keep_going: Option<usize>,
    verbose: bool,
    scale: u32,
    /// Passing cases slower than this are saved too (to find what is slow, not to fail).
    save_slow: Option<Duration>,
    leaked: usize,
}

fn env_u64(key: &str) -> Option<u64> {
    let v = std::env::var(key).ok()?;
    if key == "PDF_FUZZ_SEED" && v == "random" {
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        return Some(t.map_or(1, |d| d.as_nanos() as u64));
    }
    match v.parse() {
        Ok(n) => Some(n),
        Err(_) => panic!("{key} must be a number, not {v:?}"),
    }
}

impl Campaign {
    /// `cases` unless `PDF_FUZZ_CASES` (or proptest's `PROPTEST_CASES`) says otherwise.
    pub fn new(name: &'static str, cases: u32) -> Campaign {
        let cases = env_u64("PDF_FUZZ_CASES")
            .or_else(|| env_u64("PROPTEST_CASES"))
            .map_or(cases, |n| n as u32);
        Campaign {
            name,
            cases,
            seed: env_u64("PDF_FUZZ_SEED").unwrap_or(DEFAULT_SEED),
            deadline: Duration::from_secs(env_u64("PDF_FUZZ_DEADLINE_SECS").unwrap_or(10)),
            shrink_hangs: std::env::var_os("PDF_FUZZ_SHRINK_HANGS").is_some(),
            keep_going: env_u64("PDF_FUZZ_KEEP_GOING").map(|n| n as usize),
            verbose: std::env::var_os("PDF_FUZZ_VERBOSE").is_some(),
            scale: env_u64("PDF_FUZZ_SCALE").map_or(1, |n| n.clamp(1, 1000) as u32),
            save_slow: env_u64("PDF_FUZZ_SAVE_SLOW_MS").map(Duration::from_millis),
            leaked: 0,
        }
    }

    /// How much larger than in CI the generator's rare blow-ups are (`PDF_FUZZ_SCALE`, 1).
    pub fn scale(&self) -> u32 {
        self.scale
    }

    /// Runs the campaign; panics with a report (and the saved files) when a case fails.
    pub fn run<S: Strategy>(
        mut self,
        strategy: S,
        to_bytes: impl Fn(&S::Value) -> Vec<u8>,
        describe: impl Fn(&S::Value) -> String,
    ) where
        S::Value: Debug,
    {
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&self.seed.to_le_bytes());
        seed[8..16].copy_from_slice(self.name.as_bytes().get(..8).unwrap_or(b"campaign"));
        let config = Config {
            cases: self.cases,
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner =
            TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
        let started = Instant::now();
        let (mut bytes_total, mut slowest) = (0usize, Duration::ZERO);
        let mut failures: Vec<String> = Vec::new();
        let (mut executed, mut reached) = (0u32, [0u32; 3]);
        for case in 0..self.cases {
            let mut tree = match strategy.new_tree(&mut runner) {
                Ok(t) => t,
                Err(e) => panic!("the {} generator gave up: {e}", self.name),
            };
            let bytes = to_bytes(&tree.current());
            bytes_total += bytes.len();
            let t = Instant::now();
            let verdict = self.check(bytes.clone());
            slowest = slowest.max(t.elapsed());
            if self.verbose {
                let ms = t.elapsed().as_millis();
                println!(
                    "{} case {case}: {} bytes, {ms} ms, {}",
                    self.name,
                    bytes.len(),
                    verdict.class()
                );
            }
            executed += 1;
            if let Verdict::Pass(reach) = verdict {
                reached[reach as usize] += 1;
                if self.save_slow.is_some_and(|slow| t.elapsed() > slow) {
                    save(self.name, case, "slow", &bytes, &describe(&tree.current()));
                }
                continue;
            }
            let (bytes, verdict, value) = self.shrink(&mut tree, bytes, verdict, &to_bytes);
            let saved = save(
                self.name,
                case,
                verdict.class(),
                &bytes,
                &format!("{verdict:?}\n\n{}", describe(&value)),
            );
            let line = format!(
                "{} case {case} (seed {}): {} {} bytes, saved as {}{}",
                self.name,
                self.seed,
                verdict.class(),
                bytes.len(),
                saved.display(),
                match &verdict {
                    Verdict::Panic(m) | Verdict::Broken(m) => format!(": {m}"),
                    _ => String::new(),
                }
            );
            eprintln!("{line}");
            failures.push(line);
            let go_on = self
                .keep_going
                .is_some_and(|n| failures.len() < n && self.leaked < MAX_LEAKED);
            if !go_on {
                break;
            }
        }
        println!(
            "pdf_fuzz {}: {executed} cases (scale {}) from seed {} in {:.1} s, {} KB generated, slowest case {} ms; refused {}, inspected {}, stamped {}; {} failures",
            self.name,
            self.scale,
            self.seed,
            started.elapsed().as_secs_f64(),
            bytes_total / 1024,
            slowest.as_millis(),
            reached[0],
            reached[1],
            reached[2],
            failures.len()
        );
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// Runs saved files (the committed seeds, and any named in `PDF_FUZZ_REPLAY`, separated by
    /// `:`); panics naming every one that fails.
    pub fn replay(mut self, dir: &std::path::Path) {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        paths.retain(|p| p.extension().is_some_and(|e| e == "pdf"));
        paths.sort();
        assert!(!paths.is_empty(), "no seeds in {}", dir.display());
        if let Some(extra) = std::env::var_os("PDF_FUZZ_REPLAY") {
            paths.extend(std::env::split_paths(&extra));
        }
        let mut failures = Vec::new();
        for path in &paths {
            let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let t = Instant::now();
            let verdict = self.check(bytes);
            println!(
                "{}: {} in {} ms",
                path.display(),
                verdict.class(),
                t.elapsed().as_millis()
            );
            if !matches!(verdict, Verdict::Pass(_)) {
                failures.push(format!("{}: {verdict:?}", path.display()));
                if self.leaked >= MAX_LEAKED {
                    break;
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// proptest's shrinking, driven by hand: simplify while the failure keeps its class.
    fn shrink<V: ValueTree>(
        &mut self,
        tree: &mut V,
        bytes: Vec<u8>,
        verdict: Verdict,
        to_bytes: &impl Fn(&V::Value) -> Vec<u8>,
    ) -> (Vec<u8>, Verdict, V::Value) {
        let mut best = (bytes, verdict, tree.current());
        if matches!(best.1, Verdict::Hang) && !self.shrink_hangs {
            return best;
        }
        let mut more = tree.simplify();
        for _ in 0..256 {
            if !more || self.leaked >= MAX_LEAKED {
                break;
            }
            let candidate = to_bytes(&tree.current());
            let v = self.check(candidate.clone());
            if v.class() == best.1.class() {
                best = (candidate, v, tree.current());
                more = tree.simplify();
            } else {
                more = tree.complicate();
            }
        }
        best
    }

    /// Runs one case on a worker thread; a case past the deadline is left running and counted.
    fn check(&mut self, bytes: Vec<u8>) -> Verdict {
        install_panic_hook();
        let (tx, rx) = mpsc::channel();
        let spawned = thread::Builder::new()
            .name(WORKER_NAME.into())
            .stack_size(WORKER_STACK)
            .spawn(move || {
                let outcome = catch_unwind(AssertUnwindSafe(|| exercise(&bytes))).map_err(|p| {
                    let at = PANIC_AT.with(|a| a.borrow_mut().take()).unwrap_or_default();
                    format!("{} at {at}", panic_message(p.as_ref()))
                });
                let _ = tx.send(outcome);
            });
        if let Err(e) = spawned {
            panic!("cannot start a worker thread: {e}");
        }
        match rx.recv_timeout(self.deadline) {
            Ok(Ok(Ok(reach))) => Verdict::Pass(reach),
            Ok(Ok(Err(broken))) => Verdict::Broken(broken),
            Ok(Err(panic)) => Verdict::Panic(panic),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                self.leaked += 1;
                Verdict::Hang
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                Verdict::Panic("the worker thread died without an answer".into())
            }
        }
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Writes the case to `target/tmp/pdf_fuzz/`; returns the `.pdf` path.
fn save(name: &str, case: u32, class: &str, bytes: &[u8], description: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pdf_fuzz");
    let _ = std::fs::create_dir_all(&dir);
    let stem = dir.join(format!("{name}-{case}-{class}"));
    let pdf = stem.with_extension("pdf");
    let _ = std::fs::write(&pdf, bytes);
    let _ = std::fs::write(stem.with_extension("txt"), format!("{description}\n"));
    pdf
}

/// `inspect`, then `stamp` of every field found, then `inspect` of the signed copy. `Err` names
/// a broken rule; a panic or a hang is caught by the caller.
pub fn exercise(bytes: &[u8]) -> Result<Reach, String> {
    let limits = PdfLimits::default();
    // Every case is also a signer's attachment (extensions E14): the check a file gets on
    // arrival must return, in plain words, and what it keeps must pass it again.
    match normalize_attachment(bytes, &AttachmentLimits::SUBMITTED, &limits) {
        Ok((_, kept)) => {
            if let Err(e) = normalize_attachment(&kept, &AttachmentLimits::SUBMITTED, &limits) {
                return Err(format!("a kept attachment is refused again: {e}"));
            }
        }
        Err(e) => plain_words(&e.to_string())?,
    }
    let info = match inspect(bytes, &limits) {
        Ok(info) => info,
        Err(e) => return plain_words(&e.to_string()).map(|()| Reach::Refused),
    };
    if info.pages.len() != info.page_count as usize || info.page_count > limits.max_pages {
        return Err(format!(
            "inspect reported {} pages but {} page sizes",
            info.page_count,
            info.pages.len()
        ));
    }
    for f in &info.fields {
        let f = &f.field;
        if f.page == 0 || f.page > info.page_count {
            return Err(format!(
                "field {} is on page {} of {}",
                f.key, f.page, info.page_count
            ));
        }
        if ![f.x, f.y, f.width, f.height].iter().all(|v| v.is_finite()) {
            return Err(format!(
                "field {} has a coordinate that is not a number",
                f.key
            ));
        }
    }
    let request = StampRequest {
        page_mark: None,
        fields: info
            .fields
            .iter()
            .map(|f| FieldStamp {
                field: f.clone(),
                signed_by: None,
                value: Some(value_for(&f.field)),
            })
            .collect(),
        signature_page: bytes.len().is_multiple_of(2).then(|| {
            vec![SignatureBlock {
                role: "Client".into(),
                name: "Ada Lovelace".into(),
                email: "ada@example.com".into(),
                signature: StampValue::Typed("Ada Lovelace".into()),
                signed_at: "2024-05-01 10:00 UTC".into(),
            }]
        }),
    };
    let signed = match stamp(bytes, &request) {
        Ok(s) => s,
        Err(e) => return plain_words(&e.to_string()).map(|()| Reach::Inspected),
    };
    if !signed.starts_with(bytes) {
        return Err("the signed copy changed bytes of the original".into());
    }
    // Reading the signed copy must return too; whether it reads depends on the original's damage.
    let _ = inspect(&signed, &limits);
    Ok(Reach::Stamped)
}

fn value_for(field: &envelope_core::field::Field) -> StampValue {
    match field.kind {
        FieldType::Signature | FieldType::Initials => StampValue::Typed("Ada L.".into()),
        FieldType::Date => StampValue::Text("2024-05-01".into()),
        FieldType::Text => StampValue::Text("Acme {{not a tag}} (x)".into()),
        FieldType::Checkbox => StampValue::Checkbox(true),
        // A discovered choice field always has options; its last one is chosen.
        FieldType::Radio | FieldType::Select => StampValue::Text(
            field
                .options
                .as_ref()
                .and_then(|o| o.last().cloned())
                .unwrap_or_default(),
        ),
        FieldType::Number => StampValue::Text("-12.50".into()),
        FieldType::Attachment => StampValue::Attachment(EmbeddedFile {
            key: format!("{} - scan (1).png", field.key),
            file_name: "scan (1).png".into(),
            mime: "image/png".into(),
            description: "Attachment (test)".into(),
            bytes: bytes::Bytes::from_static(b"\x89PNG\r\n\x1a\n"),
        }),
    }
}

/// An error message must be plain words: no Rust `Debug` output such as `Some(..)`, quoted
/// strings, `Variant { .. }`, or a bare `CamelCase` variant name (PDF names like `/FlateDecode`
/// are fine). A heuristic, tuned to this crate's messages.
pub fn plain_words(msg: &str) -> Result<(), String> {
    let debugish = ["Some(", "None", "Ok(", "Err(", "\"", " { ", "\\u{", "[0x"];
    if let Some(p) = debugish.iter().find(|p| msg.contains(*p)) {
        return Err(format!("error message has Debug output ({p}): {msg}"));
    }
    for word in msg.split(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '/') {
        let camel = word.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && word.chars().any(|c| c.is_ascii_lowercase())
            && word.chars().skip(1).any(|c| c.is_ascii_uppercase());
        if camel && !word.starts_with('/') {
            return Err(format!(
                "error message has a Debug variant name ({word}): {msg}"
            ));
        }
    }
    // A unit variant printed with `{:?}` at the end: "stream: Corrupt".
    if let Some((_, last)) = msg.rsplit_once(": ")
        && last.len() > 1
        && last.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && last.chars().skip(1).all(|c| c.is_ascii_lowercase())
    {
        return Err(format!(
            "error message ends in a Debug variant name ({last}): {msg}"
        ));
    }
    Ok(())
}
