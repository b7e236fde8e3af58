//! A tiny hand-made PDF writer for tests: pages of Helvetica text lines (text tags included),
//! with a correct cross-reference table.

/// One page: lines of text, drawn from the top down.
#[derive(Debug, Clone, Default)]
pub struct Page {
    pub lines: Vec<String>,
    /// Width and height in points; `None` is US Letter (612 x 792).
    pub size: Option<(f64, f64)>,
}

/// Builds a PDF from pages.
#[derive(Debug, Clone, Default)]
pub struct PdfBuilder {
    pages: Vec<Page>,
}

impl PdfBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a page with these lines.
    pub fn page(mut self, lines: &[&str]) -> Self {
        self.pages.push(Page {
            lines: lines.iter().map(|s| s.to_string()).collect(),
            size: None,
        });
        self
    }

    /// Adds a page of `width` x `height` points with these lines.
    pub fn page_sized(mut self, width: f64, height: f64, lines: &[&str]) -> Self {
        self.pages.push(Page {
            lines: lines.iter().map(|s| s.to_string()).collect(),
            size: Some((width, height)),
        });
        self
    }

    pub fn build(&self) -> Vec<u8> {
        let pages = if self.pages.is_empty() {
            vec![Page::default()]
        } else {
            self.pages.clone()
        };
        // Objects: 1 catalog, 2 pages tree, 3 font, then (page, contents) per page.
        let mut objects: Vec<Vec<u8>> = Vec::new();
        let kids: Vec<String> = (0..pages.len())
            .map(|i| format!("{} 0 R", 4 + 2 * i))
            .collect();
        objects.push(b"<< /Type /Catalog /Pages 2 0 R >>".to_vec());
        objects.push(
            format!(
                "<< /Type /Pages /Kids [{}] /Count {} >>",
                kids.join(" "),
                pages.len()
            )
            .into_bytes(),
        );
        objects.push(
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
                .to_vec(),
        );
        for (i, page) in pages.iter().enumerate() {
            let contents = 5 + 2 * i;
            let (w, h) = page.size.unwrap_or((612.0, 792.0));
            objects.push(
                format!(
                    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w} {h}] \
                     /Resources << /Font << /F1 3 0 R >> >> /Contents {contents} 0 R >>"
                )
                .into_bytes(),
            );
            let mut stream = String::new();
            for (n, line) in page.lines.iter().enumerate() {
                let y = h as i32 - 72 - 24 * n as i32;
                stream.push_str(&format!(
                    "BT /F1 12 Tf 72 {y} Td ({}) Tj ET\n",
                    escape(line)
                ));
            }
            let mut obj = format!("<< /Length {} >>\nstream\n", stream.len()).into_bytes();
            obj.extend_from_slice(stream.as_bytes());
            obj.extend_from_slice(b"\nendstream");
            objects.push(obj);
        }

        let mut out: Vec<u8> = b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec();
        let mut offsets = Vec::new();
        for (i, obj) in objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
            out.extend_from_slice(obj);
            out.extend_from_slice(b"\nendobj\n");
        }
        let xref = out.len();
        out.extend_from_slice(format!("xref\n0 {}\n", objects.len() + 1).as_bytes());
        out.extend_from_slice(b"0000000000 65535 f \n");
        for off in offsets {
            out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
        }
        out.extend_from_slice(
            format!(
                "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
                objects.len() + 1
            )
            .as_bytes(),
        );
        out
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('(', "\\(")
        .replace(')', "\\)")
}

/// A one-page contract for a `Client` signer: a signature and a date field.
pub fn client_contract() -> Vec<u8> {
    PdfBuilder::new()
        .page(&[
            "Service agreement",
            "The client agrees to the terms.",
            "Signature: {{signature:Client}}",
            "Date: {{date:Client}}",
        ])
        .build()
}

/// Two pages: a `Client` and a `Provider` who both sign, and a sender data field `start_date`.
pub fn two_party_contract() -> Vec<u8> {
    PdfBuilder::new()
        .page(&["Consulting agreement", "Start date: {{data:start_date}}"])
        .page(&[
            "Client: {{signature:Client}}",
            "Date: {{date:Client}}",
            "Provider: {{signature:Provider}}",
        ])
        .build()
}

/// What a signing page shows: for `Client` a text, a check box, a signature, initials and a
/// date; for `Provider` a signature on page 2.
pub fn signing_contract() -> Vec<u8> {
    PdfBuilder::new()
        .page(&[
            "Supply agreement",
            "Company: {{text:Client:company}}",
            "I accept the terms: {{checkbox:Client:terms}}",
            "Client signature: {{signature:Client}}",
            "Initials: {{initials:Client}}",
            "Date: {{date:Client}}",
        ])
        .page(&["Provider signature: {{signature:Provider}}"])
        .build()
}

/// A PDF of `objects` (object 1 is the catalog), uncompressed, with a classic xref table.
pub fn objects_pdf(objects: &[String]) -> Vec<u8> {
    let objects: Vec<Vec<u8>> = objects.iter().map(|o| o.clone().into_bytes()).collect();
    objects_pdf_bytes(&objects)
}

/// [`objects_pdf`] for objects that hold binary stream data.
pub fn objects_pdf_bytes(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.7\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let start = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<</Size {} /Root 1 0 R>>\nstartxref\n{start}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

pub fn stream(dict: &str, data: &str) -> String {
    format!(
        "<<{dict} /Length {}>>\nstream\n{data}\nendstream",
        data.len()
    )
}

/// One page drawing form 5; `forms` are objects 5, 6, ... (Helvetica is object 4).
pub fn page_with_forms(forms: Vec<String>) -> Vec<u8> {
    let mut objects = vec![
        "<</Type /Catalog /Pages 2 0 R>>".to_string(),
        "<</Type /Pages /Kids [3 0 R] /Count 1>>".to_string(),
        format!(
            "<</Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources <</XObject <</F 5 0 R>>>> /Contents {} 0 R>>",
            5 + forms.len()
        ),
        "<</Type /Font /Subtype /Type1 /BaseFont /Helvetica>>".to_string(),
    ];
    objects.extend(forms);
    objects.push(stream("", "/F Do"));
    objects_pdf(&objects)
}

/// Eight levels of form XObjects, each drawing the next 20 times, the last showing a line of
/// text: 20^8 copies of a line from a file of about 6 KB. A reader that interprets each use
/// again never finishes; the work budget stops it (the glyph limit).
pub fn fan_out_pdf() -> Vec<u8> {
    let mut forms = Vec::new();
    for level in 0..8 {
        let body: String = (0..20)
            .map(|i| format!("q 1 0 0 1 0 {i} cm /N Do Q "))
            .collect();
        let next = 5 + level + 1;
        forms.push(stream(
            &format!(
                "/Type /XObject /Subtype /Form /BBox [0 0 600 800] /Resources <</XObject <</N {next} 0 R>>>>"
            ),
            &body,
        ));
    }
    forms.push(stream(
        "/Type /XObject /Subtype /Form /BBox [0 0 600 20] /Resources <</Font <</F1 4 0 R>>>>",
        "BT /F1 10 Tf 0 0 Td (A line of text that is shown many times) Tj ET",
    ));
    page_with_forms(forms)
}

/// One page whose content stream inflates to `q Q ` repeated 15 million times (60 MB from about
/// 60 KB): the reader interprets operators until its operator limit or its deadline stops it,
/// the longest piece of bounded work a small upload can cause.
pub fn operator_flood_pdf() -> Vec<u8> {
    use std::io::Write;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    let chunk = "q Q ".repeat(1 << 16);
    for _ in 0..(15_000_000 / (1 << 16)) {
        z.write_all(chunk.as_bytes()).expect("in memory");
    }
    let data = z.finish().expect("in memory");
    let mut content =
        format!("<</Filter /FlateDecode /Length {}>>\nstream\n", data.len()).into_bytes();
    content.extend_from_slice(&data);
    content.extend_from_slice(b"\nendstream");
    objects_pdf_bytes(&[
        b"<</Type /Catalog /Pages 2 0 R>>".to_vec(),
        b"<</Type /Pages /Kids [3 0 R] /Count 1>>".to_vec(),
        b"<</Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R>>".to_vec(),
        content,
    ])
}

/// `pdf` (one of the test builder's, 5 objects) with an unreferenced stream of `extra`
/// pseudo-random bytes (`seed` picks them) appended as an incremental update: a large document
/// that reads fast.
pub fn padded(pdf: &[u8], extra: usize, seed: u64) -> Vec<u8> {
    let tail = std::str::from_utf8(&pdf[pdf.len() - 40..]).unwrap();
    let prev: usize = tail
        .rsplit("startxref\n")
        .next()
        .and_then(|t| t.lines().next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    let mut out = pdf.to_vec();
    let at = out.len();
    out.extend_from_slice(format!("6 0 obj\n<< /Length {extra} >>\nstream\n").as_bytes());
    let mut x = seed | 1;
    out.extend((0..extra).map(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u8
    }));
    out.extend_from_slice(b"\nendstream\nendobj\n");
    let xref = out.len();
    out.extend_from_slice(
        format!(
            "xref\n6 1\n{at:010} 00000 n \ntrailer\n<< /Size 7 /Root 1 0 R /Prev {prev} >>\n\
             startxref\n{xref}\n%%EOF\n"
        )
        .as_bytes(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xref_offsets_point_at_objects() {
        let pdf = PdfBuilder::new().page(&["a (b) \\ c"]).page(&[]).build();
        let tail = std::str::from_utf8(&pdf[pdf.len() - 40..]).unwrap();
        let start: usize = tail
            .rsplit("startxref\n")
            .next()
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(pdf[start..].starts_with(b"xref\n"));
        let table = std::str::from_utf8(&pdf[start..]).unwrap();
        for (n, line) in table.lines().skip(3).take(7).enumerate() {
            let off: usize = line[..10].parse().unwrap();
            let want = format!("{} 0 obj", n + 1);
            assert!(pdf[off..].starts_with(want.as_bytes()), "object {}", n + 1);
        }
    }
}
