//! [`ProcessRenderer`]: each page drawn by a worker process under limits, killed at a deadline.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio::sync::Semaphore;

use super::{MAX_PNG_BYTES, PageImage, PageRenderer, RenderError, RenderLimits};

/// Exit statuses of the worker (`hayro_page.rs`, kept in step by hand: the worker may be built
/// without the `render` feature's parent side and the other way round).
const EXIT_NO_SUCH_PAGE: i32 = 3;

/// The most of a worker's standard error kept for the failure's reason.
const MAX_REASON_BYTES: u64 = 2 * 1024;

/// Draws pages in worker processes: `program args.. <page> <cpu-seconds> <memory-bytes>`, the
/// PDF on its standard input, the PNG on its standard output ([`super::run_worker`] is such a
/// worker; the server starts itself as `envelope-server render-page`).
///
/// At most [`RenderLimits::concurrency`] run at once; each is killed at
/// [`RenderLimits::timeout`] and its answer is read up to [`MAX_PNG_BYTES`]. Workers start with
/// an empty environment: nothing of this process's variables, secrets included, reaches them.
#[derive(Debug, Clone)]
pub struct ProcessRenderer {
    program: PathBuf,
    args: Vec<OsString>,
    limits: RenderLimits,
    permits: Arc<Semaphore>,
}

impl ProcessRenderer {
    /// Workers run as `program args..` followed by the request's three arguments, with the
    /// default [`RenderLimits`].
    pub fn new(
        program: impl Into<PathBuf>,
        args: impl IntoIterator<Item = impl Into<OsString>>,
    ) -> Self {
        let limits = RenderLimits::default();
        ProcessRenderer {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            permits: Arc::new(Semaphore::new(limits.concurrency.max(1))),
            limits,
        }
    }

    /// Other limits.
    pub fn with_limits(mut self, limits: RenderLimits) -> Self {
        self.permits = Arc::new(Semaphore::new(limits.concurrency.max(1)));
        self.limits = limits;
        self
    }

    /// The limits in force.
    pub fn limits(&self) -> &RenderLimits {
        &self.limits
    }

    async fn run(&self, pdf: Bytes, page: u32) -> Result<PageImage, RenderError> {
        let failed = |reason: String| RenderError::Failed { reason };
        // The worker parses untrusted PDFs: it starts with an empty environment, so that a
        // parser exploit finds no credentials there (storage keys, SMTP passwords, the signing
        // key's PEM). It needs none: everything it reads comes in its arguments and on stdin.
        let mut child = Command::new(&self.program)
            .env_clear()
            .args(&self.args)
            .arg(page.to_string())
            .arg(self.limits.cpu_seconds.to_string())
            .arg(self.limits.memory_bytes.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| failed(format!("cannot start the worker: {e}")))?;
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(failed("the worker has no pipes".into()));
        };
        // Written while the answer is read: a worker that stops reading must not block us, and
        // one that answers early (no such page) must not either.
        let writer = async move {
            let _ = stdin.write_all(&pdf).await;
            drop(stdin);
        };
        let reader = async move {
            let mut png = Vec::new();
            let mut out = stdout.take(MAX_PNG_BYTES as u64 + 1);
            out.read_to_end(&mut png).await.map(|_| png)
        };
        let reasons = async move {
            let mut text = Vec::new();
            let _ = stderr.take(MAX_REASON_BYTES).read_to_end(&mut text).await;
            text
        };
        let ((), png, reason) = tokio::join!(writer, reader, reasons);
        let status = child
            .wait()
            .await
            .map_err(|e| failed(format!("cannot wait for the worker: {e}")))?;
        let reason = String::from_utf8_lossy(&reason).trim().to_string();
        // Cut off at the cap, the worker may have died of the closed pipe: the size is why.
        if png.as_ref().is_ok_and(|png| png.len() > MAX_PNG_BYTES) {
            return Err(failed(format!("the picture is over {MAX_PNG_BYTES} bytes")));
        }
        if status.code() == Some(EXIT_NO_SUCH_PAGE) {
            return Err(RenderError::NoSuchPage { page });
        }
        if !status.success() {
            return Err(failed(if reason.is_empty() {
                format!("the worker ended with {status}")
            } else {
                reason
            }));
        }
        let png = png.map_err(|e| failed(format!("cannot read the worker's answer: {e}")))?;
        PageImage::from_png(Bytes::from(png))
            .ok_or_else(|| failed("the worker's answer is not a PNG".into()))
    }
}

#[async_trait]
impl PageRenderer for ProcessRenderer {
    async fn render(&self, pdf: Bytes, page: u32) -> Result<PageImage, RenderError> {
        let permit =
            tokio::time::timeout(self.limits.queue_wait, self.permits.clone().acquire_owned())
                .await
                .map_err(|_| RenderError::Busy)?
                .map_err(|_| RenderError::Busy)?;
        // Past the deadline the future is dropped, and with it the child (kill_on_drop).
        let outcome = tokio::time::timeout(self.limits.timeout, self.run(pdf, page)).await;
        drop(permit);
        match outcome {
            Ok(r) => r,
            Err(_) => Err(RenderError::Failed {
                reason: format!(
                    "the page took longer than {} s to draw",
                    self.limits.timeout.as_secs()
                ),
            }),
        }
    }
}
