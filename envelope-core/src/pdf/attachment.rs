//! A signer's file for an `attachment` field (extensions E14), checked the moment it arrives.
//!
//! The type is what the bytes are, never what the sender says: a PDF (`%PDF-` near the start),
//! a PNG or a JPEG (their signatures), anything else refused. Each is then read under a budget
//! before a byte is kept:
//! - a PDF with the engine's own reader under [`PdfLimits`] (the budgets of every upload: the
//!   page tree walked, at most 200 pages, encrypted files refused). It is kept as sent: a PDF
//!   cannot be re-encoded without changing what it says, and the reader found it sound;
//! - a PNG or JPEG decoded whole under [`AttachmentLimits`] (dimensions and memory checked from
//!   the header, before the pixels) and stored as the service's own re-encoding: a PNG as an
//!   8- or 16-bit PNG without ancillary chunks, a JPEG as a baseline JPEG of quality 90 (75 when
//!   90 would pass the byte bound) with the camera's rotation applied to the pixels and its
//!   metadata (EXIF, GPS position, thumbnails) gone. What was sent is never stored.
//!
//! Errors are the service's plain words; they never carry a decoder's own message.

use std::fmt;
use std::io::Cursor;

use super::{PdfError, PdfLimits};

/// What an attachment is, from its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttachmentType {
    /// `application/pdf`.
    Pdf,
    /// `image/png`.
    Png,
    /// `image/jpeg`.
    Jpeg,
}

impl AttachmentType {
    /// The media type the file is stored and served as.
    pub fn mime(self) -> &'static str {
        match self {
            AttachmentType::Pdf => "application/pdf",
            AttachmentType::Png => "image/png",
            AttachmentType::Jpeg => "image/jpeg",
        }
    }

    /// A media type this module stores; `None` for anything else.
    pub fn from_mime(mime: &str) -> Option<AttachmentType> {
        match mime {
            "application/pdf" => Some(AttachmentType::Pdf),
            "image/png" => Some(AttachmentType::Png),
            "image/jpeg" => Some(AttachmentType::Jpeg),
            _ => None,
        }
    }

    /// The file name extension the stored name ends with.
    pub fn extension(self) -> &'static str {
        match self {
            AttachmentType::Pdf => "pdf",
            AttachmentType::Png => "png",
            AttachmentType::Jpeg => "jpg",
        }
    }

    /// The type of `bytes` by their signature; `None` when they are none of the three. A PDF's
    /// header may follow up to 1024 bytes of junk, as readers allow.
    pub fn sniff(bytes: &[u8]) -> Option<AttachmentType> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            return Some(AttachmentType::Png);
        }
        if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            return Some(AttachmentType::Jpeg);
        }
        let head = &bytes[..bytes.len().min(1024)];
        head.windows(5)
            .any(|w| w == b"%PDF-")
            .then_some(AttachmentType::Pdf)
    }
}

/// Bounds on one attachment: what reading it may cost before it is trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttachmentLimits {
    /// Bytes of the file as sent, and of its re-encoding (10 MiB).
    pub max_bytes: usize,
    /// Widest and highest image accepted, in pixels.
    pub max_side: u32,
    /// Most pixels (width times height) of an image: a 36-megapixel photo, beyond what phone
    /// cameras save by default.
    pub max_pixels: u64,
}

impl AttachmentLimits {
    /// The limits of a signer's attachment.
    pub const SUBMITTED: AttachmentLimits = AttachmentLimits {
        max_bytes: 10 * 1024 * 1024,
        max_side: 12_000,
        max_pixels: 36 << 20,
    };
}

/// Why an attachment was refused, in words for the signer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttachmentError {
    /// More bytes than [`AttachmentLimits::max_bytes`].
    TooManyBytes {
        /// The byte limit that was passed.
        max: usize,
    },
    /// An empty file.
    Empty,
    /// Not a PDF, PNG or JPEG.
    NotAcceptedType,
    /// A PNG or JPEG that could not be decoded to its last pixel.
    UnreadableImage(AttachmentType),
    /// An image wider, higher or larger than the limits allow.
    ImageTooLarge {
        /// The image's width, in pixels.
        width: u32,
        /// The image's height, in pixels.
        height: u32,
    },
    /// A PDF the reader cannot read within its budgets.
    UnreadablePdf,
    /// An encrypted PDF.
    EncryptedPdf,
    /// A PDF of more pages than allowed.
    TooManyPages {
        /// The most pages allowed.
        max: u32,
    },
}

impl fmt::Display for AttachmentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = AttachmentLimits::SUBMITTED;
        match self {
            AttachmentError::TooManyBytes { max } => {
                write!(f, "the file must be at most {} MB", max / (1024 * 1024))
            }
            AttachmentError::Empty => f.write_str("the file is empty"),
            AttachmentError::NotAcceptedType => {
                f.write_str("the file must be a PDF, PNG or JPEG file")
            }
            AttachmentError::UnreadableImage(t) => write!(
                f,
                "the file is not a readable {} image",
                match t {
                    AttachmentType::Jpeg => "JPEG",
                    _ => "PNG",
                }
            ),
            AttachmentError::ImageTooLarge { width, height } => write!(
                f,
                "the image is {width}x{height} pixels; at most {side}x{side} and {} megapixels \
                 are accepted",
                l.max_pixels >> 20,
                side = l.max_side
            ),
            AttachmentError::UnreadablePdf => f.write_str("the file is not a readable PDF"),
            AttachmentError::EncryptedPdf => f.write_str("the PDF is encrypted"),
            AttachmentError::TooManyPages { max } => {
                write!(f, "the PDF has more than {max} pages")
            }
        }
    }
}

impl std::error::Error for AttachmentError {}

/// Checks an attachment and returns its type and the bytes to store: a PDF as sent, an image
/// as this module re-encoded it. See the module documentation.
pub fn normalize_attachment(
    bytes: &[u8],
    limits: &AttachmentLimits,
    pdf_limits: &PdfLimits,
) -> Result<(AttachmentType, Vec<u8>), AttachmentError> {
    if bytes.len() > limits.max_bytes {
        return Err(AttachmentError::TooManyBytes {
            max: limits.max_bytes,
        });
    }
    if bytes.is_empty() {
        return Err(AttachmentError::Empty);
    }
    let kind = AttachmentType::sniff(bytes).ok_or(AttachmentError::NotAcceptedType)?;
    let out = match kind {
        AttachmentType::Pdf => {
            check_pdf(bytes, pdf_limits)?;
            bytes.to_vec()
        }
        AttachmentType::Png | AttachmentType::Jpeg => reencode(bytes, kind, limits)?,
    };
    // A crafted image can compress far better under its own settings than under ours; the
    // stored copy obeys the same bound as the submission.
    if out.len() > limits.max_bytes {
        return Err(AttachmentError::TooManyBytes {
            max: limits.max_bytes,
        });
    }
    Ok((kind, out))
}

/// Reads the PDF's structure and page tree under `limits`, as an upload is read.
fn check_pdf(bytes: &[u8], limits: &PdfLimits) -> Result<(), AttachmentError> {
    match super::page_sizes(bytes, limits) {
        Ok(pages) if pages.is_empty() => Err(AttachmentError::UnreadablePdf),
        Ok(_) => Ok(()),
        Err(PdfError::Encrypted) => Err(AttachmentError::EncryptedPdf),
        Err(PdfError::TooManyPages { max, .. }) => Err(AttachmentError::TooManyPages { max }),
        Err(_) => Err(AttachmentError::UnreadablePdf),
    }
}

/// Decodes a PNG or JPEG under `limits` and encodes the pixels again.
fn reencode(
    bytes: &[u8],
    kind: AttachmentType,
    limits: &AttachmentLimits,
) -> Result<Vec<u8>, AttachmentError> {
    use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader};
    let unreadable = || AttachmentError::UnreadableImage(kind);
    let format = match kind {
        AttachmentType::Png => ImageFormat::Png,
        _ => ImageFormat::Jpeg,
    };
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let mut budget = image::Limits::default();
    budget.max_image_width = Some(limits.max_side);
    budget.max_image_height = Some(limits.max_side);
    // The pixels at 8 bits per channel with alpha, and room for the decoder's own buffers:
    // about 200 MiB for the largest photo. A 16-bit PNG gets half the pixels.
    budget.max_alloc = Some(limits.max_pixels * 4 + (64 << 20));
    reader.limits(budget);
    let mut decoder = reader.into_decoder().map_err(|_| unreadable())?;
    let (width, height) = decoder.dimensions();
    if width == 0 || height == 0 {
        return Err(unreadable());
    }
    if width > limits.max_side
        || height > limits.max_side
        || u64::from(width) * u64::from(height) > limits.max_pixels
    {
        return Err(AttachmentError::ImageTooLarge { width, height });
    }
    // A phone stores a portrait photo sideways with a rotation tag: the tag goes with the
    // metadata, so the rotation goes into the pixels.
    let orientation = decoder.orientation().ok();
    let mut img = DynamicImage::from_decoder(decoder).map_err(|_| unreadable())?;
    if let Some(o) = orientation {
        img.apply_orientation(o);
    }
    let mut out = Vec::new();
    match kind {
        AttachmentType::Png => img
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .map_err(|_| unreadable())?,
        _ => {
            // JPEG holds 8-bit gray or colour, no alpha.
            let img = if img.color().has_color() {
                DynamicImage::ImageRgb8(img.into_rgb8())
            } else {
                DynamicImage::ImageLuma8(img.into_luma8())
            };
            // Quality 90 keeps a photo's detail; a file sent at a lower quality can grow past
            // the bound at 90, and then gets 75, about what phones save at.
            for quality in [90, 75] {
                out.clear();
                let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality);
                img.write_with_encoder(encoder).map_err(|_| unreadable())?;
                if out.len() <= limits.max_bytes {
                    break;
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(w, h, |x, y| image::Rgb([x as u8, y as u8, 7]));
        let mut out = Vec::new();
        image::DynamicImage::ImageRgb8(img)
            .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
            .unwrap();
        out
    }

    fn jpeg(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(w, h, |x, y| image::Rgb([x as u8, y as u8, 7]));
        let mut out = Vec::new();
        image::DynamicImage::ImageRgb8(img)
            .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Jpeg)
            .unwrap();
        out
    }

    fn check(bytes: &[u8]) -> Result<(AttachmentType, Vec<u8>), AttachmentError> {
        normalize_attachment(bytes, &AttachmentLimits::SUBMITTED, &PdfLimits::default())
    }

    #[test]
    fn images_are_stored_as_the_service_encodes_them() {
        let mut with_text = png(8, 4);
        // A tEXt chunk after IHDR (8 + 25 bytes): dropped on re-encoding.
        let chunk = {
            let data = b"Comment\0secret";
            let mut c = (data.len() as u32).to_be_bytes().to_vec();
            c.extend_from_slice(b"tEXt");
            c.extend_from_slice(data);
            let crc = crc32(&c[4..]);
            c.extend_from_slice(&crc.to_be_bytes());
            c
        };
        with_text.splice(33..33, chunk);
        let (kind, out) = check(&with_text).expect("a PNG with text");
        assert_eq!(kind, AttachmentType::Png);
        assert!(!out.windows(6).any(|w| w == b"secret"));
        let (kind, out) = check(&jpeg(16, 9)).expect("a JPEG");
        assert_eq!(kind, AttachmentType::Jpeg);
        let back = image::load_from_memory(&out).unwrap();
        assert_eq!((back.width(), back.height()), (16, 9));
    }

    #[test]
    fn a_phones_rotation_goes_into_the_pixels_and_its_metadata_goes() {
        use image::ImageEncoder;
        // EXIF (TIFF, little-endian): one entry, Orientation (0x0112) = 6, "rotate 90° clockwise".
        let mut exif = b"II\x2a\x00\x08\x00\x00\x00\x01\x00".to_vec();
        exif.extend_from_slice(&[0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]);
        let img = image::RgbImage::from_fn(16, 9, |x, _| image::Rgb([x as u8 * 15, 0, 0]));
        let mut sent = Vec::new();
        let mut enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut sent, 90);
        enc.set_exif_metadata(exif).unwrap();
        enc.write_image(img.as_raw(), 16, 9, image::ExtendedColorType::Rgb8)
            .unwrap();
        assert!(
            sent.windows(4).any(|w| w == b"Exif"),
            "the test photo has EXIF"
        );
        let (_, kept) = check(&sent).expect("a photo");
        assert!(!kept.windows(4).any(|w| w == b"Exif"), "metadata gone");
        let back = image::load_from_memory(&kept).unwrap();
        assert_eq!((back.width(), back.height()), (9, 16), "turned upright");
    }

    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = 0xFFFF_FFFFu32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn refusals_are_plain_words() {
        let mut junk_png = b"\x89PNG\r\n\x1a\n".to_vec();
        junk_png.extend_from_slice(b"\0\0\0\rjunkjunkjunkjunkjunk");
        let mut huge = png(1, 1);
        // IHDR width and height (bytes 16..24) claim 20000 x 20000.
        huge[16..20].copy_from_slice(&20_000u32.to_be_bytes());
        huge[20..24].copy_from_slice(&20_000u32.to_be_bytes());
        let cases: Vec<(Vec<u8>, AttachmentError)> = vec![
            (Vec::new(), AttachmentError::Empty),
            (b"hello, world".to_vec(), AttachmentError::NotAcceptedType),
            (b"GIF89a....".to_vec(), AttachmentError::NotAcceptedType),
            (
                junk_png,
                AttachmentError::UnreadableImage(AttachmentType::Png),
            ),
            (
                jpeg(8, 8)[..40].to_vec(),
                AttachmentError::UnreadableImage(AttachmentType::Jpeg),
            ),
            (
                b"%PDF-1.7\nnot really".to_vec(),
                AttachmentError::UnreadablePdf,
            ),
            (
                vec![0; AttachmentLimits::SUBMITTED.max_bytes + 1],
                AttachmentError::TooManyBytes {
                    max: AttachmentLimits::SUBMITTED.max_bytes,
                },
            ),
        ];
        for (bytes, want) in cases {
            assert_eq!(check(&bytes).unwrap_err(), want, "{want}");
            let words = want.to_string();
            assert!(!words.contains('{') && !words.contains("Error"), "{words}");
        }
        match check(&huge).unwrap_err() {
            AttachmentError::ImageTooLarge { .. } | AttachmentError::UnreadableImage(_) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn types_come_from_the_bytes() {
        assert_eq!(AttachmentType::sniff(&png(1, 1)), Some(AttachmentType::Png));
        assert_eq!(
            AttachmentType::sniff(&jpeg(1, 1)),
            Some(AttachmentType::Jpeg)
        );
        assert_eq!(
            AttachmentType::sniff(b"\n\n%PDF-1.4"),
            Some(AttachmentType::Pdf)
        );
        assert_eq!(AttachmentType::sniff(b"PK\x03\x04"), None);
        for t in [
            AttachmentType::Pdf,
            AttachmentType::Png,
            AttachmentType::Jpeg,
        ] {
            assert_eq!(AttachmentType::from_mime(t.mime()), Some(t));
        }
    }
}
