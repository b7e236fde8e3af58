//! Drawn signatures: PNG bytes -> an image XObject (8-bit RGB or gray) with the PNG's alpha as an
//! `/SMask`, so the ink sits on the page without a white box.
//!
//! A drawing is checked when the signer submits it ([`normalize_drawing`]): decoded under the
//! strict [`DrawingLimits::SUBMITTED`], refused in plain words when it is not a readable, non-blank
//! image of a sensible size, and re-encoded as a fresh 8-bit PNG without ancillary chunks. What
//! is stored is that re-encoding, so stamping at completion decodes only bytes this module
//! wrote itself and cannot fail on what a signer sent. Stamping ([`decode_png`]) keeps the
//! older, wider limits so that drawings stored before the checks existed still stamp.
//!
//! Errors never carry the PNG decoder's own messages: they embed `Debug` output of its internals.

use std::fmt;

use super::filter::deflate;
use super::object::{Dict, ObjRef, Object, Stream};
use super::writer::Update;

/// Bounds on one drawing: what a decoder may cost before a single pixel is trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawingLimits {
    /// PNG bytes, before and after re-encoding.
    pub max_bytes: usize,
    /// Widest drawing accepted, in pixels.
    pub max_width: u32,
    /// Highest drawing accepted, in pixels.
    pub max_height: u32,
    /// Most pixels (width times height) a drawing may have.
    pub max_pixels: u64,
    /// What the PNG decoder may allocate besides the pixels (chunks, rows, inflate state).
    pub decoder_bytes: usize,
}

impl DrawingLimits {
    /// A submitted drawing. The signing page's pad is 600x200; embedders drawing at a 3x pixel
    /// ratio still fit with room to spare (1800x600 is about a quarter of the pixel bound).
    pub const SUBMITTED: DrawingLimits = DrawingLimits {
        max_bytes: 512 * 1024,
        max_width: 4096,
        max_height: 4096,
        max_pixels: 4 << 20,
        decoder_bytes: 32 << 20,
    };

    /// Stamping a stored drawing: what was accepted before submissions were re-encoded.
    const STAMP: DrawingLimits = DrawingLimits {
        max_bytes: usize::MAX,
        max_width: u32::MAX,
        max_height: u32::MAX,
        max_pixels: 16 << 20,
        decoder_bytes: 256 << 20,
    };
}

/// Why a drawing was refused, in words for the signer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DrawingError {
    /// More bytes than [`DrawingLimits::max_bytes`].
    TooManyBytes {
        /// The byte limit that was passed.
        max: usize,
    },
    /// Not a PNG, or a PNG the decoder cannot read to the end of its pixels.
    Unreadable,
    /// Wider, higher or larger than the limits allow.
    TooLarge {
        /// The drawing's width, in pixels.
        width: u32,
        /// The drawing's height, in pixels.
        height: u32,
    },
    /// Every pixel is the same: there is no stroke to show.
    Blank,
}

impl fmt::Display for DrawingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = DrawingLimits::SUBMITTED;
        match self {
            DrawingError::TooManyBytes { max } => {
                write!(
                    f,
                    "the drawing must be a PNG image of at most {} KB",
                    max / 1024
                )
            }
            DrawingError::Unreadable => f.write_str("the drawing is not a readable PNG image"),
            DrawingError::TooLarge { width, height } => write!(
                f,
                "the drawing is {width}x{height} pixels; at most {}x{} and {} pixels in all \
                 are accepted",
                l.max_width, l.max_height, l.max_pixels
            ),
            DrawingError::Blank => f.write_str("the drawing is empty"),
        }
    }
}

impl std::error::Error for DrawingError {}

/// A decoded PNG.
#[derive(Debug, Clone)]
pub struct Png {
    pub width: u32,
    pub height: u32,
    gray: bool,
    color: Vec<u8>,
    alpha: Option<Vec<u8>>,
}

/// Checks a submitted drawing and returns the PNG to store instead of it: 8-bit gray or RGB,
/// with alpha when the drawing has any, no ancillary chunks. See the module documentation.
pub fn normalize_drawing(bytes: &[u8]) -> Result<Vec<u8>, DrawingError> {
    let limits = DrawingLimits::SUBMITTED;
    if bytes.len() > limits.max_bytes {
        return Err(DrawingError::TooManyBytes {
            max: limits.max_bytes,
        });
    }
    let png = decode(bytes, &limits)?;
    if png.is_blank() {
        return Err(DrawingError::Blank);
    }
    let out = png.encode().ok_or(DrawingError::Unreadable)?;
    // A crafted file can compress far better under its own filters than under ours; the stored
    // copy obeys the same byte bound as the submission.
    if out.len() > limits.max_bytes {
        return Err(DrawingError::TooManyBytes {
            max: limits.max_bytes,
        });
    }
    Ok(out)
}

/// Decodes a stored PNG for stamping; the error says why, for humans.
pub fn decode_png(bytes: &[u8]) -> Result<Png, String> {
    decode(bytes, &DrawingLimits::STAMP).map_err(|e| e.to_string())
}

fn decode(bytes: &[u8], limits: &DrawingLimits) -> Result<Png, DrawingError> {
    let mut decoder = png::Decoder::new_with_limits(
        std::io::Cursor::new(bytes),
        png::Limits {
            bytes: limits.decoder_bytes,
        },
    );
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    // Text and colour profiles are dropped on re-encoding; they need not cost memory either.
    decoder.set_ignore_text_chunk(true);
    decoder.set_ignore_iccp_chunk(true);
    let mut reader = decoder.read_info().map_err(|_| DrawingError::Unreadable)?;
    let (w, h) = (reader.info().width, reader.info().height);
    if w == 0 || h == 0 {
        return Err(DrawingError::Unreadable);
    }
    if w > limits.max_width
        || h > limits.max_height
        || u64::from(w) * u64::from(h) > limits.max_pixels
    {
        return Err(DrawingError::TooLarge {
            width: w,
            height: h,
        });
    }
    let size = reader.output_buffer_size().ok_or(DrawingError::TooLarge {
        width: w,
        height: h,
    })?;
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|_| DrawingError::Unreadable)?;
    buf.truncate(info.buffer_size());
    let channels = info.color_type.samples();
    let (gray, has_alpha) = match info.color_type {
        png::ColorType::Grayscale => (true, false),
        png::ColorType::GrayscaleAlpha => (true, true),
        png::ColorType::Rgb => (false, false),
        png::ColorType::Rgba => (false, true),
        // normalize_to_color8 expands palettes; a decoder that did not is not one to trust.
        png::ColorType::Indexed => return Err(DrawingError::Unreadable),
    };
    let color_channels = if gray { 1 } else { 3 };
    let pixels = (info.width as usize) * (info.height as usize);
    if buf.len() != pixels * channels {
        return Err(DrawingError::Unreadable);
    }
    let mut color = Vec::with_capacity(pixels * color_channels);
    let mut alpha = has_alpha.then(|| Vec::with_capacity(pixels));
    for px in buf.chunks_exact(channels) {
        color.extend_from_slice(&px[..color_channels]);
        if let Some(a) = alpha.as_mut() {
            a.push(px[channels - 1]);
        }
    }
    Ok(Png {
        width: info.width,
        height: info.height,
        gray,
        color,
        alpha,
    })
}

impl Png {
    fn channels(&self) -> usize {
        usize::from(if self.gray { 1u8 } else { 3 }) + usize::from(self.alpha.is_some())
    }

    /// True when no pixel differs from the first: nothing would show on the page.
    fn is_blank(&self) -> bool {
        let c = if self.gray { 1 } else { 3 };
        let first_color = &self.color[..c];
        let colors_same = self.color.chunks_exact(c).all(|px| px == first_color);
        match &self.alpha {
            // Fully transparent ink is invisible whatever its colour.
            Some(a) if a.iter().all(|&v| v == 0) => true,
            Some(a) => colors_same && a.iter().all(|&v| v == a[0]),
            None => colors_same,
        }
    }

    /// A plain 8-bit PNG of the pixels. `None` only if the encoder refuses its own input, which
    /// dimensions already checked by the decoder rule out.
    fn encode(&self) -> Option<Vec<u8>> {
        let color_type = match (self.gray, self.alpha.is_some()) {
            (true, false) => png::ColorType::Grayscale,
            (true, true) => png::ColorType::GrayscaleAlpha,
            (false, false) => png::ColorType::Rgb,
            (false, true) => png::ColorType::Rgba,
        };
        let data = match &self.alpha {
            None => std::borrow::Cow::Borrowed(&self.color[..]),
            Some(a) => {
                let c = if self.gray { 1 } else { 3 };
                let mut data = Vec::with_capacity(a.len() * self.channels());
                for (px, &alpha) in self.color.chunks_exact(c).zip(a) {
                    data.extend_from_slice(px);
                    data.push(alpha);
                }
                std::borrow::Cow::Owned(data)
            }
        };
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, self.width, self.height);
        enc.set_color(color_type);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Balanced);
        let mut w = enc.write_header().ok()?;
        w.write_image_data(&data).ok()?;
        w.finish().ok()?;
        Some(out)
    }
}

/// An image XObject's parts, deflated, ready for whichever writer embeds them: the stamper's
/// [`Update`] ([`add_image`]) or the audit trail's printpdf.
#[derive(Debug)]
pub struct ImageStreams {
    pub width: u32,
    pub height: u32,
    /// `DeviceGray` or `DeviceRGB`, 8 bits per component.
    pub color_space: &'static [u8],
    /// The samples, FlateDecode.
    pub color: Vec<u8>,
    /// The alpha channel as a `DeviceGray` soft mask of the same size, FlateDecode.
    pub alpha: Option<Vec<u8>>,
}

impl Png {
    /// The image's streams (see [`ImageStreams`]).
    pub fn streams(&self) -> ImageStreams {
        ImageStreams {
            width: self.width,
            height: self.height,
            color_space: if self.gray {
                b"DeviceGray"
            } else {
                b"DeviceRGB"
            },
            color: deflate(&self.color),
            alpha: self.alpha.as_deref().map(deflate),
        }
    }
}

/// Writes the image (and its soft mask) into the update.
pub fn add_image(up: &mut Update, png: &Png) -> ObjRef {
    let parts = png.streams();
    let base = |cs: &[u8]| {
        Dict::new()
            .with(b"Type", Object::name(b"XObject"))
            .with(b"Subtype", Object::name(b"Image"))
            .with(b"Width", i64::from(parts.width))
            .with(b"Height", i64::from(parts.height))
            .with(b"ColorSpace", Object::name(cs))
            .with(b"BitsPerComponent", 8i64)
            .with(b"Filter", Object::name(b"FlateDecode"))
    };
    let mut dict = base(parts.color_space);
    if let Some(a) = parts.alpha {
        let mask = up.add(Object::Stream(Stream {
            dict: base(b"DeviceGray"),
            data: a,
        }));
        dict.set(b"SMask", Object::Ref(mask));
    }
    up.add(Object::Stream(Stream {
        dict,
        data: parts.color,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdf::testpdf::png_chunk;

    /// A small RGBA PNG with a diagonal stroke.
    pub fn sample_png() -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, 8, 4);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header().expect("header");
            let mut data = vec![0u8; 8 * 4 * 4];
            for i in 0..4 {
                let p = (i * 8 + i * 2) * 4;
                data[p..p + 4].copy_from_slice(&[0, 0, 128, 255]);
            }
            w.write_image_data(&data).expect("data");
        }
        out
    }

    #[test]
    fn decodes_rgba_into_color_and_alpha() {
        let p = decode_png(&sample_png()).expect("png");
        assert_eq!((p.width, p.height, p.gray), (8, 4, false));
        assert_eq!(p.color.len(), 8 * 4 * 3);
        assert_eq!(
            p.alpha
                .as_ref()
                .map(|a| a.iter().filter(|&&v| v == 255).count()),
            Some(4)
        );
    }

    #[test]
    fn rejects_non_png() {
        assert!(decode_png(b"GIF89a....").is_err());
        let mut cut = sample_png();
        cut.truncate(cut.len() - 20);
        assert!(decode_png(&cut).is_err());
    }

    /// A well-formed header claiming `w`x`h` RGBA pixels, followed by a tiny IDAT.
    fn claimed(w: u32, h: u32) -> Vec<u8> {
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        let mut ihdr = Vec::new();
        ihdr.extend_from_slice(&w.to_be_bytes());
        ihdr.extend_from_slice(&h.to_be_bytes());
        ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
        png_chunk(&mut out, b"IHDR", &ihdr);
        png_chunk(
            &mut out,
            b"IDAT",
            &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
        );
        png_chunk(&mut out, b"IEND", &[]);
        out
    }

    #[test]
    fn a_drawing_is_reencoded_without_ancillary_chunks() {
        let mut with_text = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut with_text, 8, 4);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            enc.add_text_chunk("Comment".into(), "hello from the signer".into())
                .expect("text");
            let mut w = enc.write_header().expect("header");
            let mut data = vec![0u8; 8 * 4 * 4];
            data[..4].copy_from_slice(&[0, 0, 0, 255]);
            w.write_image_data(&data).expect("data");
        }
        let out = normalize_drawing(&with_text).expect("accepted");
        assert!(!out.windows(4).any(|w| w == b"tEXt"), "text chunk stripped");
        let again = decode_png(&out).expect("stamps");
        let orig = decode_png(&with_text).expect("decodes");
        assert_eq!((again.width, again.height), (8, 4));
        assert_eq!((again.color, again.alpha), (orig.color, orig.alpha));
        assert_eq!(normalize_drawing(&out).expect("idempotent"), out);
    }

    #[test]
    fn refusals_are_plain_words() {
        let mut junk = b"\x89PNG\r\n\x1a\n".to_vec();
        junk.extend_from_slice(b"\0\0\0\rjunkjunkjunkjunkjunkjunk");
        let cases: Vec<(Vec<u8>, DrawingError)> = vec![
            (junk, DrawingError::Unreadable),
            (b"GIF89a....".to_vec(), DrawingError::Unreadable),
            (sample_png()[..40].to_vec(), DrawingError::Unreadable),
            (
                claimed(100_000, 100_000),
                DrawingError::TooLarge {
                    width: 100_000,
                    height: 100_000,
                },
            ),
            (
                claimed(5000, 10),
                DrawingError::TooLarge {
                    width: 5000,
                    height: 10,
                },
            ),
            (
                claimed(4096, 4096),
                DrawingError::TooLarge {
                    width: 4096,
                    height: 4096,
                },
            ),
            // Within the limits, but the pixel data stops short.
            (claimed(600, 200), DrawingError::Unreadable),
            (
                vec![0; 600 * 1024],
                DrawingError::TooManyBytes { max: 512 * 1024 },
            ),
        ];
        for (bytes, want) in cases {
            let got = normalize_drawing(&bytes).unwrap_err();
            assert_eq!(got, want);
            let msg = got.to_string();
            assert!(
                !msg.contains('{') && !msg.contains("ChunkType") && msg.starts_with("the drawing"),
                "{msg}"
            );
        }
    }

    #[test]
    fn a_blank_drawing_is_refused() {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, 6, 2);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header().expect("header");
            // Coloured but fully transparent: nothing shows.
            w.write_image_data(&[200u8, 10, 10, 0].repeat(12))
                .expect("data");
        }
        assert_eq!(normalize_drawing(&out), Err(DrawingError::Blank));
    }

    #[test]
    fn palette_and_16_bit_drawings_become_8_bit() {
        let mut pal = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut pal, 4, 1);
            enc.set_color(png::ColorType::Indexed);
            enc.set_depth(png::BitDepth::Eight);
            enc.set_palette(vec![255, 255, 255, 0, 0, 0]);
            enc.set_trns(vec![0, 255]);
            let mut w = enc.write_header().expect("header");
            w.write_image_data(&[0, 1, 1, 0]).expect("data");
        }
        let p = decode_png(&normalize_drawing(&pal).expect("palette")).expect("stamps");
        assert_eq!(p.alpha.as_deref(), Some(&[0, 255, 255, 0][..]));
        let mut deep = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut deep, 2, 1);
            enc.set_color(png::ColorType::Grayscale);
            enc.set_depth(png::BitDepth::Sixteen);
            let mut w = enc.write_header().expect("header");
            w.write_image_data(&[0, 0, 255, 255]).expect("data");
        }
        let p = decode_png(&normalize_drawing(&deep).expect("16 bit")).expect("stamps");
        assert_eq!((p.gray, p.color.as_slice()), (true, &[0u8, 255][..]));
    }
}
