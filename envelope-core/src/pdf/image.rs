//! Drawn signatures: PNG bytes -> an image XObject (8-bit RGB or gray) with the PNG's alpha as an
//! `/SMask`, so the ink sits on the page without a white box.
//!
//! Decoding is bounded (pixel count, decoder memory). It must never accept bytes the PNG decoder
//! rejects: those are the caller's `InvalidValue`.

use super::filter::deflate;
use super::object::{Dict, ObjRef, Object, Stream};
use super::writer::Update;

/// Largest drawn signature accepted, in pixels.
const MAX_PIXELS: u64 = 16 << 20;

/// A decoded PNG.
#[derive(Debug, Clone)]
pub struct Png {
    pub width: u32,
    pub height: u32,
    gray: bool,
    color: Vec<u8>,
    alpha: Option<Vec<u8>>,
}

/// Decodes a PNG; the error says why, for humans.
pub fn decode_png(bytes: &[u8]) -> Result<Png, String> {
    let mut decoder = png::Decoder::new_with_limits(
        std::io::Cursor::new(bytes),
        png::Limits { bytes: 256 << 20 },
    );
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder
        .read_info()
        .map_err(|e| format!("not a PNG image: {e}"))?;
    let (w, h) = (reader.info().width, reader.info().height);
    if w == 0 || h == 0 || u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(format!(
            "the image is {w}x{h} pixels; at most {MAX_PIXELS} pixels are accepted"
        ));
    }
    let size = reader
        .output_buffer_size()
        .ok_or("the image is too large")?;
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("broken PNG image: {e}"))?;
    buf.truncate(info.buffer_size());
    let channels = info.color_type.samples();
    let (gray, has_alpha) = match info.color_type {
        png::ColorType::Grayscale => (true, false),
        png::ColorType::GrayscaleAlpha => (true, true),
        png::ColorType::Rgb => (false, false),
        png::ColorType::Rgba => (false, true),
        png::ColorType::Indexed => return Err("unexpanded palette image".into()),
    };
    let color_channels = if gray { 1 } else { 3 };
    let pixels = (info.width as usize) * (info.height as usize);
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

/// Writes the image (and its soft mask) into the update.
pub fn add_image(up: &mut Update, png: &Png) -> ObjRef {
    let base = |cs: &[u8]| {
        Dict::new()
            .with(b"Type", Object::name(b"XObject"))
            .with(b"Subtype", Object::name(b"Image"))
            .with(b"Width", i64::from(png.width))
            .with(b"Height", i64::from(png.height))
            .with(b"ColorSpace", Object::name(cs))
            .with(b"BitsPerComponent", 8i64)
            .with(b"Filter", Object::name(b"FlateDecode"))
    };
    let mut dict = base(if png.gray {
        b"DeviceGray"
    } else {
        b"DeviceRGB"
    });
    if let Some(a) = &png.alpha {
        let mask = up.add(Object::Stream(Stream {
            dict: base(b"DeviceGray"),
            data: deflate(a),
        }));
        dict.set(b"SMask", Object::Ref(mask));
    }
    up.add(Object::Stream(Stream {
        dict,
        data: deflate(&png.color),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
