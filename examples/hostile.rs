//! Writes the hostile PDFs of issue 11 and measures how the engine answers each one.
//!
//! ```text
//! cargo build --release -p envelope-core --no-default-features --example hostile
//! target/release/examples/hostile --write /tmp/hostile
//! for f in /tmp/hostile/*.pdf; do target/release/examples/hostile --inspect "$f"; done
//! ```
//!
//! `--inspect FILE` runs `inspect` with the default limits (and, when that succeeds, `stamp` with
//! a signature page), then prints the answer, the time each took and the process's peak RSS
//! (`VmHWM` from /proc/self/status), so one process per file gives one file's peak. The
//! generators are the test suite's (`envelope_testkit::pdf::hostile`, testkit/src/pdf/hostile.rs). `--write-big FILE`
//! writes the benchmarks' 200-page document, a happy-path file to compare against.

use std::process::ExitCode;
use std::time::Instant;

use envelope_core::pdf::{PdfLimits, SignatureBlock, StampRequest, StampValue, inspect, stamp};

use envelope_testkit::pdf as support;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["--write", dir] => write(dir),
        ["--inspect", file] => measure(file),
        ["--write-big", file] => std::fs::write(file, support::big_document(200, 120_000))
            .map_err(|e| format!("cannot write {file}: {e}")),
        _ => Err(
            "usage: hostile --write DIR | hostile --inspect FILE | hostile --write-big FILE".into(),
        ),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hostile: {e}");
            ExitCode::FAILURE
        }
    }
}

fn write(dir: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {dir}: {e}"))?;
    for (name, bytes) in support::hostile::corpus() {
        let path = format!("{dir}/{name}");
        std::fs::write(&path, &bytes).map_err(|e| format!("cannot write {path}: {e}"))?;
        println!("{path}: {} bytes", bytes.len());
    }
    Ok(())
}

fn measure(file: &str) -> Result<(), String> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let t = Instant::now();
    let info = inspect(&bytes, &PdfLimits::default());
    let inspect_ms = t.elapsed().as_secs_f64() * 1000.0;
    let answer = match &info {
        Ok(i) => format!("ok: {} pages, {} fields", i.page_count, i.fields.len()),
        Err(e) => format!("refused: {e}"),
    };
    let mut stamped = String::new();
    if info.is_ok() {
        let request = StampRequest {
            page_mark: None,
            fields: Vec::new(),
            signature_page: Some(vec![SignatureBlock {
                role: "Client".into(),
                name: "A".into(),
                email: "a@example.com".into(),
                signature: StampValue::Typed("A".into()),
                signed_at: "2024-05-01 10:00 UTC".into(),
            }]),
        };
        let t = Instant::now();
        let r = stamp(&bytes, &request);
        stamped = format!(
            "; stamp {} in {:.1} ms",
            if r.is_ok() { "ok" } else { "refused" },
            t.elapsed().as_secs_f64() * 1000.0
        );
    }
    println!(
        "{file}: {} bytes; inspect {inspect_ms:.1} ms{stamped}; peak RSS {}; {answer}",
        bytes.len(),
        peak_rss()
    );
    Ok(())
}

fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l["VmHWM:".len()..].trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}
