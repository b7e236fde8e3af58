//! Drawing a page with hayro, and the worker process that does it for [`super::ProcessRenderer`].

use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::Arc;

use bytes::Bytes;
use hayro::hayro_interpret::InterpreterSettings;
use hayro::hayro_syntax::Pdf;
use hayro::vello_cpu::color::palette::css::WHITE;
use hayro::{PixmapSettings, RenderCache, RenderSettings};

use super::{MAX_PNG_BYTES, PageImage, RenderError, scale_for};

/// The largest PDF the worker reads from its input (the service's own limit is 25 MB).
const MAX_PDF_BYTES: u64 = 64 * 1024 * 1024;

/// Exit status of a worker asked for a page the document does not have.
pub(super) const EXIT_NO_SUCH_PAGE: u8 = 3;
/// Exit status of a worker that could not draw the page (it says why on stderr).
pub(super) const EXIT_FAILED: u8 = 4;

/// Draws page `page` (from 1) of `pdf` in this process, at [`super::SCALE`] or smaller for huge
/// pages.
///
/// No budget holds this call: a hostile page can make it run for minutes or allocate without
/// bound. Use it on documents you trust, or through [`super::ProcessRenderer`], whose worker
/// ([`run_worker`]) calls it under memory and CPU limits.
pub fn render_page(pdf: &[u8], page: u32) -> Result<PageImage, RenderError> {
    render_owned(pdf.to_vec(), page)
}

/// [`render_page`] on bytes the caller gives up (the worker's input), without a copy.
fn render_owned(pdf: Vec<u8>, page: u32) -> Result<PageImage, RenderError> {
    let doc = Pdf::new(Arc::new(pdf)).map_err(|e| RenderError::Failed {
        reason: format!("not a PDF hayro can read ({e:?})"),
    })?;
    let pages = doc.pages();
    let index = usize::try_from(page.max(1) - 1).unwrap_or(usize::MAX);
    let Some(p) = pages.get(index).filter(|_| page >= 1) else {
        return Err(RenderError::NoSuchPage { page });
    };
    let (w, h) = p.render_dimensions();
    let scale = scale_for(f64::from(w), f64::from(h));
    let cache = RenderCache::new();
    let pixmap = hayro::render(
        p,
        &cache,
        &InterpreterSettings::default(),
        &RenderSettings::default(),
        &PixmapSettings {
            x_scale: scale,
            y_scale: scale,
            bg_color: WHITE,
        },
    );
    let png = pixmap.into_png().map_err(|e| RenderError::Failed {
        reason: format!("PNG encoding failed: {e}"),
    })?;
    PageImage::from_png(Bytes::from(png)).ok_or_else(|| RenderError::Failed {
        reason: "the page has no area".into(),
    })
}

/// What a worker is asked: the page, and the limits it sets on itself before reading the PDF.
#[derive(Debug, Clone, Copy)]
pub struct WorkerRequest {
    /// The page to draw, from 1.
    pub page: u32,
    /// `RLIMIT_CPU`, in seconds.
    pub cpu_seconds: u64,
    /// `RLIMIT_AS`, in bytes.
    pub memory_bytes: u64,
}

/// The worker process of [`super::ProcessRenderer`]: caps its own CPU time and address space,
/// reads a PDF from standard input, writes the PNG of `request.page` to standard output.
///
/// Exit status 0 with the PNG; 3 when there is no such page; 4 with the reason on standard
/// error when the page cannot be drawn. Running out of CPU time ends the process with
/// `SIGXCPU`, and running out of memory with an allocation failure: both are a failed render to
/// the parent. A binary that embeds the service runs this from `main` when started as its
/// worker (the server: `envelope-server render-page`).
pub fn run_worker(request: WorkerRequest) -> ExitCode {
    if let Err(e) = limit_self(request.cpu_seconds, request.memory_bytes) {
        eprintln!("render worker: cannot set its limits: {e}");
        return ExitCode::from(EXIT_FAILED);
    }
    let mut pdf = Vec::new();
    if let Err(e) = std::io::stdin()
        .lock()
        .take(MAX_PDF_BYTES + 1)
        .read_to_end(&mut pdf)
    {
        eprintln!("render worker: cannot read the PDF: {e}");
        return ExitCode::from(EXIT_FAILED);
    }
    if pdf.len() as u64 > MAX_PDF_BYTES {
        eprintln!("render worker: the PDF is larger than {MAX_PDF_BYTES} bytes");
        return ExitCode::from(EXIT_FAILED);
    }
    match render_owned(pdf, request.page) {
        Ok(image) if image.png.len() <= MAX_PNG_BYTES => {
            let mut out = std::io::stdout().lock();
            match out.write_all(&image.png).and_then(|()| out.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("render worker: cannot write the PNG: {e}");
                    ExitCode::from(EXIT_FAILED)
                }
            }
        }
        Ok(image) => {
            eprintln!("render worker: the PNG is {} bytes", image.png.len());
            ExitCode::from(EXIT_FAILED)
        }
        Err(RenderError::NoSuchPage { .. }) => ExitCode::from(EXIT_NO_SUCH_PAGE),
        Err(e) => {
            eprintln!("render worker: {e}");
            ExitCode::from(EXIT_FAILED)
        }
    }
}

#[cfg(unix)]
fn limit_self(cpu_seconds: u64, memory_bytes: u64) -> std::io::Result<()> {
    use rustix::process::{Resource, Rlimit, setrlimit};
    // The soft CPU limit sends SIGXCPU (which ends the process); the hard one a second later
    // sends SIGKILL.
    setrlimit(
        Resource::Cpu,
        Rlimit {
            current: Some(cpu_seconds),
            maximum: Some(cpu_seconds + 1),
        },
    )?;
    setrlimit(
        Resource::As,
        Rlimit {
            current: Some(memory_bytes),
            maximum: Some(memory_bytes),
        },
    )?;
    Ok(())
}

#[cfg(not(unix))]
fn limit_self(_cpu_seconds: u64, _memory_bytes: u64) -> std::io::Result<()> {
    // No rlimits here: the parent's wall-clock kill is the only bound.
    Ok(())
}
