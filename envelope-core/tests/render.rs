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
