//! The pages of a link's documents as the signing page lays them out, and their pictures
//! (issue 18): sizes from the page tree, pictures from the [`PageRenderer`] behind a cache.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use super::SigningService;
use crate::error::{Error, Result};
use crate::ids::EnvelopeId;
use crate::pdf::{self, PageSize};
use crate::render::{PageCache, PageImage, PageRenderer, RenderError};

/// The most documents whose page sizes, or versions whose digests, are kept; past it the map
/// starts again.
const MAX_SIZED_DOCUMENTS: usize = 4_096;

/// How long a signer's browser is told to wait when every renderer is busy.
const BUSY_RETRY_SECS: u64 = 2;

/// The renderer and what it made lately.
pub(crate) struct Pictures {
    pub renderer: Arc<dyn PageRenderer>,
    pub cache: PageCache,
    /// Page sizes by blob key: the originals never change.
    pub sizes: Mutex<HashMap<String, Arc<Vec<PageSize>>>>,
    /// The digest of what a document shows, by envelope, document and record version: a cached
    /// picture is then found without preparing the document again.
    pub shown: Mutex<HashMap<(EnvelopeId, u32, u64), [u8; 32]>>,
    /// Pages that could not be drawn, by digest and page: asking again is refused at once
    /// rather than costing another worker its whole CPU limit.
    pub failed: Mutex<HashSet<([u8; 32], u32)>>,
}

/// One document of a signing link, as the signing page lays it out.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentPages {
    /// From 1, as fields' `document`.
    pub index: u32,
    /// The file name.
    pub name: String,
    /// Each page's displayed size in points, in order: the space of fields' `x`, `y`, `width`
    /// and `height`.
    pub pages: Vec<PageSize>,
}

impl SigningService {
    /// True when the service draws pages as pictures ([`SigningServiceBuilder::renderer`]).
    ///
    /// [`SigningServiceBuilder::renderer`]: crate::SigningServiceBuilder::renderer
    pub fn draws_pages(&self) -> bool {
        self.inner.pictures.is_some()
    }

    /// The documents of the envelope behind a signing link with the size of each page, guarded
    /// like [`SigningService::signing_document`].
    pub async fn signing_pages(
        &self,
        token: &str,
        grant: Option<&str>,
    ) -> Result<Vec<DocumentPages>> {
        let rec = self.viewable_record(token, grant).await?;
        let mut out = Vec::new();
        for view in rec.documents_view() {
            let (original, _) = rec
                .document(view.index)
                .ok_or_else(|| Error::Internal(format!("document {} is missing", view.index)))?;
            let pages = self.page_sizes_of(original).await?;
            out.push(DocumentPages {
                index: view.index,
                name: view.name,
                pages: pages.as_ref().clone(),
            });
        }
        Ok(out)
    }

    pub(crate) async fn page_sizes_of(
        &self,
        file: &crate::model::StoredFile,
    ) -> Result<Arc<Vec<PageSize>>> {
        let known = self.inner.pictures.as_ref().and_then(|p| {
            let sizes = p.sizes.lock().unwrap_or_else(|e| e.into_inner());
            sizes.get(&file.blob).cloned()
        });
        if let Some(sizes) = known {
            return Ok(sizes);
        }
        let bytes = self
            .read_file(file)
            .await?
            .ok_or_else(|| Error::Internal(format!("document {} is missing", file.blob)))?;
        let limits = pdf::PdfLimits::default();
        let sizes = self
            .blocking("page sizes", move || pdf::page_sizes(&bytes, &limits))
            .await?
            .map_err(|e| Error::Internal(format!("page sizes of an accepted PDF: {e}")))?;
        let sizes = Arc::new(sizes);
        if let Some(p) = &self.inner.pictures {
            let mut map = p.sizes.lock().unwrap_or_else(|e| e.into_inner());
            if map.len() >= MAX_SIZED_DOCUMENTS {
                map.clear();
            }
            map.insert(file.blob.clone(), sizes.clone());
        }
        Ok(sizes)
    }

    /// Page `page` (from 1) of document `document` of a signing link as a picture: the document
    /// as [`SigningService::signing_document_n`] shows it (values so far, tags painted over),
    /// drawn by the service's renderer, kept in its cache.
    ///
    /// Errors: the link's ([`Error::NotFound`] and the rest, as for the document); a page or
    /// document past the last is `NotFound`; no renderer, or a page that cannot be drawn
    /// within the renderer's limits, is [`Error::PageNotDrawable`]; every renderer busy is
    /// [`Error::Busy`].
    pub async fn signing_page_image(
        &self,
        token: &str,
        grant: Option<&str>,
        document: u32,
        page: u32,
    ) -> Result<Arc<PageImage>> {
        let Some(pictures) = self.inner.pictures.as_ref() else {
            return Err(Error::PageNotDrawable {
                reason: "this service draws no pages".into(),
            });
        };
        let rec = self.viewable_record(token, grant).await?;
        // A page the document does not have is refused here, before any worker is started.
        let not_found = || Error::not_found("page", &page.to_string());
        let pages = rec
            .documents_view()
            .into_iter()
            .find(|d| d.index == document)
            .ok_or_else(|| Error::not_found("document", &document.to_string()))?
            .page_count;
        if page == 0 || pages.is_some_and(|n| page > n) {
            return Err(not_found());
        }
        let version = (rec.id.clone(), document, rec.version);
        let known = pictures
            .shown
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&version)
            .copied();
        if let Some(hit) = known.and_then(|digest| pictures.cache.get(&digest, page)) {
            metrics::counter!("envelope_page_pictures_total", "outcome" => "cached").increment(1);
            return Ok(hit);
        }
        let (_, bytes) = self.shown_document(&rec, document).await?;
        let digest: [u8; 32] = Sha256::digest(&bytes).into();
        {
            let mut shown = pictures.shown.lock().unwrap_or_else(|e| e.into_inner());
            if shown.len() >= MAX_SIZED_DOCUMENTS {
                shown.clear();
            }
            shown.insert(version, digest);
        }
        self.draw_page(pictures, bytes, digest, page).await
    }

    /// Page `page` of a stored original as it was uploaded, drawn by the service's renderer
    /// and kept in its cache by the file's digest (the builder's pictures, extensions E11).
    pub(crate) async fn original_page_image(
        &self,
        file: &crate::model::StoredFile,
        page: u32,
    ) -> Result<Arc<PageImage>> {
        let Some(pictures) = self.inner.pictures.as_ref() else {
            return Err(Error::PageNotDrawable {
                reason: "this service draws no pages".into(),
            });
        };
        let mut digest = [0u8; 32];
        let known = file.sha256.len() == 64
            && file
                .sha256
                .as_bytes()
                .chunks(2)
                .zip(digest.iter_mut())
                .all(|(pair, out)| {
                    std::str::from_utf8(pair)
                        .ok()
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                        .map(|b| *out = b)
                        .is_some()
                });
        if known && let Some(hit) = pictures.cache.get(&digest, page) {
            metrics::counter!("envelope_page_pictures_total", "outcome" => "cached").increment(1);
            return Ok(hit);
        }
        let bytes = self
            .read_file(file)
            .await?
            .ok_or_else(|| Error::Internal(format!("document {} is missing", file.blob)))?;
        let digest: [u8; 32] = Sha256::digest(&bytes).into();
        self.draw_page(pictures, bytes, digest, page).await
    }

    /// A picture of page `page` of `bytes` (whose SHA-256 is `digest`): from the cache, or drawn
    /// by the renderer and kept; a page that failed before is refused at once.
    async fn draw_page(
        &self,
        pictures: &Pictures,
        bytes: bytes::Bytes,
        digest: [u8; 32],
        page: u32,
    ) -> Result<Arc<PageImage>> {
        let not_found = || Error::not_found("page", &page.to_string());
        if let Some(hit) = pictures.cache.get(&digest, page) {
            metrics::counter!("envelope_page_pictures_total", "outcome" => "cached").increment(1);
            return Ok(hit);
        }
        let known_bad = pictures
            .failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&(digest, page));
        if known_bad {
            return Err(Error::PageNotDrawable {
                reason: "this page could not be drawn before".into(),
            });
        }
        match pictures.renderer.render(bytes, page).await {
            Ok(image) => {
                metrics::counter!("envelope_page_pictures_total", "outcome" => "drawn")
                    .increment(1);
                let image = Arc::new(image);
                pictures.cache.put(&digest, page, image.clone());
                Ok(image)
            }
            Err(RenderError::NoSuchPage { .. }) => Err(not_found()),
            Err(RenderError::Busy) => {
                metrics::counter!("envelope_page_pictures_total", "outcome" => "busy").increment(1);
                Err(Error::Busy {
                    retry_after_secs: BUSY_RETRY_SECS,
                })
            }
            Err(RenderError::Failed { reason }) => {
                metrics::counter!("envelope_page_pictures_total", "outcome" => "failed")
                    .increment(1);
                tracing::warn!(page, %reason, "a page could not be drawn");
                let mut failed = pictures.failed.lock().unwrap_or_else(|e| e.into_inner());
                if failed.len() >= MAX_SIZED_DOCUMENTS {
                    failed.clear();
                }
                failed.insert((digest, page));
                Err(Error::PageNotDrawable { reason })
            }
        }
    }
}
