//! `SigningService::signing_page_image` with a renderer that counts its calls: what a stranger
//! holding a signing link can make it cost. A page the document does not have is refused without
//! starting a worker; a picture is drawn once and then served from the cache; a page that could
//! not be drawn is refused at once when asked again, rather than costing another worker its
//! whole CPU limit.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use bytes::Bytes;

use envelope_core::render::{PageImage, PageRenderer, RenderError};
use envelope_core::service::CreateEnvelope;
use envelope_core::{Error, SigningService, Upload};

const CONTRACT: &[u8] = include_bytes!("../../examples/contract.pdf");

/// Answers a tiny PNG, or fails when `fail` is set; counts every call.
#[derive(Debug, Default)]
struct Counting {
    calls: AtomicUsize,
    fail: bool,
}

#[async_trait]
impl PageRenderer for Counting {
    async fn render(&self, _pdf: Bytes, _page: u32) -> Result<PageImage, RenderError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if self.fail {
            return Err(RenderError::Failed {
                reason: "too much".into(),
            });
        }
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&2u32.to_be_bytes());
        png.extend_from_slice(&3u32.to_be_bytes());
        Ok(PageImage::from_png(Bytes::from(png)).unwrap())
    }
}

/// A service with `renderer` and the token of a signing link to a one-page envelope.
async fn link(renderer: Arc<Counting>) -> (SigningService, String) {
    let svc = SigningService::builder().renderer(renderer).build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
    let env = svc
        .create_envelope(
            &ctx,
            CreateEnvelope::from_pdf(Upload::new("contract.pdf", CONTRACT.to_vec()))
                .signer("Client", "Zoë Client", "zoe@example.com")
                .signer("Provider", "Pat Provider", "pat@example.com")
                .data("start_date", "2027-01-01"),
        )
        .await
        .unwrap();
    let link = svc
        .signing_link(&ctx, &env.id, Some("Client"))
        .await
        .unwrap();
    (svc, link.token)
}

#[tokio::test]
async fn pages_past_the_last_start_no_worker_and_pictures_are_drawn_once() {
    let r = Arc::new(Counting::default());
    let (svc, token) = link(r.clone()).await;
    for (document, page) in [(1, 0), (1, 2), (1, 99_999), (2, 1)] {
        let e = svc
            .signing_page_image(&token, None, document, page)
            .await
            .unwrap_err();
        assert!(
            matches!(e, Error::NotFound { .. }),
            "{document}/{page}: {e:?}"
        );
    }
    assert_eq!(r.calls.load(Ordering::SeqCst), 0);
    for _ in 0..3 {
        let img = svc.signing_page_image(&token, None, 1, 1).await.unwrap();
        assert_eq!((img.width, img.height), (2, 3));
    }
    assert_eq!(r.calls.load(Ordering::SeqCst), 1, "drawn once, then cached");
}

#[tokio::test]
async fn a_page_that_could_not_be_drawn_is_refused_at_once_when_asked_again() {
    let r = Arc::new(Counting {
        fail: true,
        ..Counting::default()
    });
    let (svc, token) = link(r.clone()).await;
    for _ in 0..3 {
        let e = svc
            .signing_page_image(&token, None, 1, 1)
            .await
            .unwrap_err();
        assert!(matches!(e, Error::PageNotDrawable { .. }), "{e:?}");
    }
    assert_eq!(r.calls.load(Ordering::SeqCst), 1, "one worker, not three");
}
