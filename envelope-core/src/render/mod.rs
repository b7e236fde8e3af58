//! Pages as pictures: what a signer's browser shows when it has no PDF viewer (issue 18).
//!
//! The signing page draws each page of the document as a PNG with the signer's fields placed
//! over it, so a phone without a PDF plugin shows the document itself. The pictures are made on
//! the server by [hayro](https://docs.rs/hayro), a pure-Rust rasterizer, and the reasons for
//! rendering on the server rather than in the browser are in docs/SIGNING.md.
//!
//! The PDFs come from strangers, and hayro has no work budget of its own: a page can make it run
//! for minutes or allocate gigabytes. So the service never runs it in its own process:
//! [`ProcessRenderer`] starts a worker process per page ([`run_worker`], which the server binary
//! runs as `envelope-server render-page`), which caps its own address space and CPU time before
//! it reads a byte, and the parent kills it at a wall-clock deadline and reads at most
//! [`MAX_PNG_BYTES`] of its answer. A few run at once; past that, callers wait a moment and are
//! told [`RenderError::Busy`].
//!
//! [`PageCache`] keeps the pictures made lately, by the SHA-256 of the bytes rendered and the
//! page number, within a byte budget: a signer's browser asks for each page once per view, and
//! every signer of an envelope sees the same pages until someone signs.
//!
//! The seam is [`PageRenderer`]: an embedder can render elsewhere (a separate service, a
//! container) by implementing it.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;

#[cfg(feature = "render")]
mod hayro_page;
mod process;

#[cfg(feature = "render")]
pub use hayro_page::{WorkerRequest, render_page, run_worker};
pub use process::ProcessRenderer;

/// Scale of the pictures: 2 pixels per point (144 dpi), crisp at a phone's 3 device pixels per
/// CSS pixel for a page shown 390 px wide, and at 2x on a desktop.
pub const SCALE: f32 = 2.0;

/// The longest side of a picture, in pixels: a page with a huge box is drawn smaller rather
/// than at [`SCALE`] (a 200-inch poster would otherwise be 28,800 pixels wide).
pub const MAX_SIDE_PX: u32 = 2_400;

/// The most bytes a worker may answer with; more is refused as a failed render.
pub const MAX_PNG_BYTES: usize = 16 * 1024 * 1024;

/// One page drawn.
#[derive(Clone, PartialEq, Eq)]
pub struct PageImage {
    /// The PNG file.
    pub png: Bytes,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
}

impl fmt::Debug for PageImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PageImage")
            .field("png", &format_args!("{} bytes", self.png.len()))
            .field("width", &self.width)
            .field("height", &self.height)
            .finish()
    }
}

impl PageImage {
    /// A PNG's size from its header, or `None` when `png` is not a PNG.
    pub fn from_png(png: Bytes) -> Option<PageImage> {
        const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
        if png.len() < 24 || &png[..8] != SIGNATURE || &png[12..16] != b"IHDR" {
            return None;
        }
        let width = u32::from_be_bytes(png[16..20].try_into().ok()?);
        let height = u32::from_be_bytes(png[20..24].try_into().ok()?);
        (width > 0 && height > 0).then_some(PageImage { png, width, height })
    }
}

/// Why a page could not be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// The page is past the document's last.
    #[error("the document has no page {page}")]
    NoSuchPage {
        /// The page asked for, from 1.
        page: u32,
    },
    /// The document could not be drawn within the budget: the worker ran out of time or
    /// memory, crashed, or said the file is not a PDF it can draw.
    #[error("the page could not be drawn: {reason}")]
    Failed {
        /// What went wrong, for logs.
        reason: String,
    },
    /// Every worker is busy; try again shortly.
    #[error("every page renderer is busy")]
    Busy,
}

/// Draws one page of a PDF: the seam behind the signing page's pictures.
#[async_trait]
pub trait PageRenderer: Send + Sync + fmt::Debug {
    /// Draws page `page` (from 1) of `pdf` at [`SCALE`], the longest side at most
    /// [`MAX_SIDE_PX`].
    async fn render(&self, pdf: Bytes, page: u32) -> Result<PageImage, RenderError>;
}

/// The scale at which a page of `width` x `height` points is drawn: [`SCALE`], or less so that
/// the longest side stays within [`MAX_SIDE_PX`].
pub fn scale_for(width: f64, height: f64) -> f32 {
    let longest = width.max(height).max(1.0);
    let fit = f64::from(MAX_SIDE_PX) / longest;
    (f64::from(SCALE)).min(fit) as f32
}

/// The pictures drawn lately, by the SHA-256 of the PDF they were drawn from and the page,
/// within a byte budget (least recently used first out).
#[derive(Debug)]
pub struct PageCache {
    inner: Mutex<CacheState>,
    max_bytes: usize,
}

#[derive(Debug, Default)]
struct CacheState {
    map: HashMap<([u8; 32], u32), Arc<PageImage>>,
    /// Keys from the least to the most recently used.
    order: VecDeque<([u8; 32], u32)>,
    bytes: usize,
}

impl PageCache {
    /// A cache holding at most `max_bytes` of PNG.
    pub fn new(max_bytes: usize) -> PageCache {
        PageCache {
            inner: Mutex::new(CacheState::default()),
            max_bytes,
        }
    }

    /// The picture of `page` of the PDF whose digest is `digest`, when it is kept.
    pub fn get(&self, digest: &[u8; 32], page: u32) -> Option<Arc<PageImage>> {
        let mut s = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let key = (*digest, page);
        let hit = s.map.get(&key).cloned()?;
        if let Some(at) = s.order.iter().position(|k| *k == key) {
            s.order.remove(at);
        }
        s.order.push_back(key);
        Some(hit)
    }

    /// Keeps a picture, dropping the least recently used ones past the budget. A picture larger
    /// than the whole budget is not kept.
    pub fn put(&self, digest: &[u8; 32], page: u32, image: Arc<PageImage>) {
        let size = image.png.len();
        if size > self.max_bytes {
            return;
        }
        let mut s = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let key = (*digest, page);
        if let Some(old) = s.map.insert(key, image) {
            s.bytes -= old.png.len();
            if let Some(at) = s.order.iter().position(|k| *k == key) {
                s.order.remove(at);
            }
        }
        s.order.push_back(key);
        s.bytes += size;
        while s.bytes > self.max_bytes {
            let Some(oldest) = s.order.pop_front() else {
                break;
            };
            if let Some(gone) = s.map.remove(&oldest) {
                s.bytes -= gone.png.len();
            }
        }
    }

    /// The bytes of PNG kept.
    pub fn bytes(&self) -> usize {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).bytes
    }
}

/// How long a render may take, and how many run at once: the defaults of
/// [`ProcessRenderer::new`].
#[derive(Debug, Clone, Copy)]
pub struct RenderLimits {
    /// Wall-clock time for one page, start of the worker included; then it is killed.
    pub timeout: Duration,
    /// CPU seconds the worker may use (`RLIMIT_CPU`).
    pub cpu_seconds: u64,
    /// Address space of the worker (`RLIMIT_AS`), in bytes.
    pub memory_bytes: u64,
    /// Workers running at once.
    pub concurrency: usize,
    /// How long a render waits for a free worker before [`RenderError::Busy`].
    pub queue_wait: Duration,
}

impl Default for RenderLimits {
    fn default() -> Self {
        RenderLimits {
            timeout: Duration::from_secs(10),
            cpu_seconds: 8,
            memory_bytes: 1024 * 1024 * 1024,
            concurrency: 2,
            queue_wait: Duration::from_secs(5),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(n: usize) -> Arc<PageImage> {
        Arc::new(PageImage {
            png: Bytes::from(vec![0u8; n]),
            width: 1,
            height: 1,
        })
    }

    #[test]
    fn the_cache_drops_the_least_recently_used_past_its_budget() {
        let cache = PageCache::new(250);
        let d = [7u8; 32];
        cache.put(&d, 1, image(100));
        cache.put(&d, 2, image(100));
        assert!(cache.get(&d, 1).is_some()); // 1 is now the most recent
        cache.put(&d, 3, image(100));
        assert!(cache.get(&d, 2).is_none());
        assert!(cache.get(&d, 1).is_some());
        assert!(cache.get(&d, 3).is_some());
        assert_eq!(cache.bytes(), 200);
        cache.put(&d, 4, image(251));
        assert!(cache.get(&d, 4).is_none());
        assert_eq!(cache.bytes(), 200);
    }

    #[test]
    fn huge_pages_are_drawn_smaller() {
        assert_eq!(scale_for(612.0, 792.0), SCALE);
        let s = scale_for(14_400.0, 100.0);
        assert!((14_400.0 * f64::from(s)) <= f64::from(MAX_SIDE_PX) + 0.5);
    }

    #[test]
    fn a_png_header_gives_the_size() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&1224u32.to_be_bytes());
        png.extend_from_slice(&1584u32.to_be_bytes());
        let img = PageImage::from_png(Bytes::from(png)).unwrap();
        assert_eq!((img.width, img.height), (1224, 1584));
        assert!(PageImage::from_png(Bytes::from_static(b"GIF89a")).is_none());
    }
}
