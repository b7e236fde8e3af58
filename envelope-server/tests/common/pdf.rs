//! A tiny hand-made PDF writer for tests: pages of Helvetica text lines (text tags included),
//! with a correct cross-reference table.

/// One page: lines of text, drawn from the top down.
#[derive(Debug, Clone, Default)]
pub struct Page {
    pub lines: Vec<String>,
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
            objects.push(
                format!(
                    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] \
                     /Resources << /Font << /F1 3 0 R >> >> /Contents {contents} 0 R >>"
                )
                .into_bytes(),
            );
            let mut stream = String::new();
            for (n, line) in page.lines.iter().enumerate() {
                let y = 720 - 24 * n as i32;
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
