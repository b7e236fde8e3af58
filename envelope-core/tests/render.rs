//! `ProcessRenderer` against workers that misbehave, as a hostile page can make the real one
//! behave: one that never answers is killed at the deadline, one that floods its output is cut
//! off, one that answers garbage is refused, and a full pool answers `Busy`. The workers are
//! `sh` scripts, so each outcome is certain. The real worker (`run_worker`, hayro) is exercised
//! through the server binary in envelope-server/tests/http/pages.rs.

use std::time::Duration;

use bytes::Bytes;
use envelope_core::render::{PageRenderer, ProcessRenderer, RenderError, RenderLimits};

/// A renderer whose worker is `sh -c script`; the request's three arguments follow as `$1..$3`.
fn sh(script: &str, limits: RenderLimits) -> ProcessRenderer {
    ProcessRenderer::new("sh", ["-c", script, "worker"]).with_limits(limits)
}

/// A deadline no answer on a busy machine comes near (starting `sh` can take a while when the
/// whole suite runs on 2 cores); the deadline test sets its own short one.
fn limits() -> RenderLimits {
    RenderLimits {
        timeout: Duration::from_secs(20),
        queue_wait: Duration::from_millis(100),
        concurrency: 1,
        ..RenderLimits::default()
    }
}

fn pdf() -> Bytes {
    Bytes::from_static(b"%PDF-1.7\n")
}

#[tokio::test]
async fn a_worker_that_never_answers_is_killed_at_the_deadline() {
    let r = sh(
        "exec sleep 600",
        RenderLimits {
            timeout: Duration::from_millis(500),
            ..limits()
        },
    );
    match r.render(pdf(), 1).await {
        Err(RenderError::Failed { reason }) => assert!(reason.contains("longer than"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_flood_of_output_is_cut_off() {
    let r = sh(
        "head -c 40000000 /dev/zero",
        RenderLimits {
            timeout: Duration::from_secs(30),
            ..limits()
        },
    );
    match r.render(pdf(), 1).await {
        Err(RenderError::Failed { reason }) => assert!(reason.contains("bytes"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn garbage_failures_and_missing_pages_are_told_apart() {
    let garbage = sh("cat >/dev/null; echo not a png", limits());
    assert!(matches!(
        garbage.render(pdf(), 1).await,
        Err(RenderError::Failed { reason }) if reason.contains("not a PNG")
    ));
    let failing = sh("cat >/dev/null; echo 'cannot draw' >&2; exit 4", limits());
    assert!(matches!(
        failing.render(pdf(), 1).await,
        Err(RenderError::Failed { reason }) if reason == "cannot draw"
    ));
    // The page number is the first argument; status 3 says there is no such page.
    let pages = sh("cat >/dev/null; [ \"$1\" = 7 ] && exit 3; exit 4", limits());
    assert_eq!(
        pages.render(pdf(), 7).await,
        Err(RenderError::NoSuchPage { page: 7 })
    );
    // A worker that stops reading its input early does not block the renderer.
    let early = sh("exit 3", limits());
    let big = Bytes::from(vec![b'%'; 8 * 1024 * 1024]);
    assert_eq!(
        early.render(big, 2).await,
        Err(RenderError::NoSuchPage { page: 2 })
    );
}

#[tokio::test]
async fn a_full_pool_answers_busy() {
    let r = sh(
        "exec sleep 600",
        RenderLimits {
            timeout: Duration::from_secs(5),
            ..limits()
        },
    );
    let first = {
        let r = r.clone();
        tokio::spawn(async move { r.render(pdf(), 1).await })
    };
    // The first holds the only slot until its deadline; the second waits 100 ms, then gives up.
    // The first takes the slot before it starts its worker: half a second is ample for that.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(r.render(pdf(), 1).await, Err(RenderError::Busy));
    first.abort();
}

/// Secrets of the kinds a server process holds, set in the probe's parent environment.
const PROBE_SECRETS: &[(&str, &str)] = &[
    ("AWS_SECRET_ACCESS_KEY", "probe-aws-secret-3f9a"),
    ("ENVELOPE_SMTP_PASSWORD", "probe-smtp-password-77c1"),
    (
        "ENVELOPE_SIGNING_KEY",
        "-----BEGIN PRIVATE KEY-----probe-----END PRIVATE KEY-----",
    ),
];

/// The worker parses untrusted PDFs, so it must hold no secret of the server's: its
/// environment, as the kernel shows it in `/proc/<pid>/environ`, is empty even when the parent
/// holds credentials. This process cannot set variables in itself (`unsafe_code` is forbidden,
/// and rightly: it races with other threads), so it runs itself again with the secrets set, on
/// [`worker_environment_probe`] alone.
#[test]
fn the_worker_starts_with_an_empty_environment() {
    let mut probe = std::process::Command::new(std::env::current_exe().unwrap());
    probe.args([
        "--exact",
        "worker_environment_probe",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (name, value) in PROBE_SECRETS {
        probe.env(name, value);
    }
    let out = probe.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // The probe ran, saw the secrets in its own environment, and checked the worker's.
    assert!(stdout.contains("worker environment checked"), "{stdout}");
    assert!(stdout.contains("1 passed"), "{stdout}");
}

/// Run by [`the_worker_starts_with_an_empty_environment`] with secrets in its environment;
/// on its own (a plain `cargo test`) it has nothing to check and says so.
#[tokio::test]
async fn worker_environment_probe() {
    if std::env::var_os(PROBE_SECRETS[0].0).is_none() {
        println!("not run by the_worker_starts_with_an_empty_environment: nothing to check");
        return;
    }
    for (name, value) in PROBE_SECRETS {
        assert_eq!(
            std::env::var(name).as_deref(),
            Ok(*value),
            "the parent holds {name}"
        );
    }
    // The worker prints the environment it was started with, as the kernel recorded it, and
    // fails so that its standard error is the reason.
    let r = sh(
        "cat >/dev/null; printf 'environ:' >&2; cat /proc/$$/environ >&2; exit 4",
        limits(),
    );
    match r.render(pdf(), 1).await {
        Err(RenderError::Failed { reason }) => {
            for (name, value) in PROBE_SECRETS {
                assert!(
                    !reason.contains(name) && !reason.contains(value),
                    "{reason}"
                );
            }
            assert_eq!(reason, "environ:", "the worker's environment is not empty");
        }
        other => panic!("{other:?}"),
    }
    println!("worker environment checked");
}
