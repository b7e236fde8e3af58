//! The audit trail document: an A4 PDF listing the envelope, every signer, every event and the
//! SHA-256 digests of the original and signed documents (decisions.md).
//!
//! Layout is done here by hand on top of printpdf's page operations: printpdf (built without its
//! `text_layout` feature) neither wraps nor paginates. Text is measured with the embedded font's
//! own advance widths (printpdf does not kern or shape in this build, so measured and drawn
//! widths agree) and every value is wrapped inside its column; words wider than a column are
//! broken between characters. Page breaks repeat the event table's header row.
//!
//! Fonts: DejaVu Sans and DejaVu Sans Bold (vendored, `assets/fonts/`) are embedded as
//! Identity-H CID fonts with a ToUnicode map, so Latin, Polish, Cyrillic, Greek… names come out
//! as the right characters both on screen and in text extraction. printpdf only subsets fonts
//! with `text_layout`, so they are subset here by the stamper's own subsetter
//! ([`TrueType::subset_keeping`], with the tables printpdf reads): glyph ids are kept (the
//! content streams, `/W` and ToUnicode stay valid) but the outlines of unused glyphs are
//! dropped, along with the layout tables a PDF font program does not need.
//!
//! Each signer's entry shows their signature as it was stamped: a typed one in Kristi (the
//! stamper's [`SIGNATURE_FONT`](super::SIGNATURE_FONT), subset the same way, sized by the
//! stamper's rule [`fit_size`]; in DejaVu Sans when Kristi lacks one of its characters), a drawn
//! one as an image XObject made by `pdf/image.rs` and scaled into the box keeping its
//! proportions.
//!
//! Characters the fonts lack (DejaVu has no CJK, for example) are never drawn as a wrong or
//! invisible glyph: each run of them is shown as its code points, `李雷` as `[U+674E U+96F7]`,
//! and the document then ends with a note that says so.
//!
//! Determinism: the same [`AuditTrail`] gives the same bytes. Font resource names are fixed,
//! the document dates come from `generated_at`, and the trailer `/ID` (which printpdf fills
//! with a pseudo-random string) is replaced by a digest of the document.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use std::collections::BTreeMap;

use printpdf::{
    Color, DictItem, ExternalStream, ExternalXObject, FontId, Greyscale, Line, LinePoint, Mm, Op,
    PaintMode, ParsedFont, PdfDocument, PdfFont, PdfFontHandle, PdfPage, PdfParseErrorSeverity,
    PdfSaveOptions, Point, Pt, Px, Rect, Rgb, TextItem, TextMatrix, XObject, XObjectId,
    XObjectTransform,
};
use sha2::{Digest, Sha256};

use super::draw::{MAX_SIGNATURE_SIZE, fit_size};
use super::fonts::{self, Ink};
use super::image::decode_png;
use super::truetype::TrueType;
use super::{AuditTrail, PdfError, StampValue};

/// The stamping font (`fonts::DEJAVU`): included once in the binary.
static REGULAR_TTF: &[u8] = super::fonts::DEJAVU;
static BOLD_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf");
/// The signature face (`fonts::SIGNATURE_FONT`): included once in the binary.
static SCRIPT_TTF: &[u8] = fonts::SIGNATURE_FONT;

/// Shown for a step that was not reached or a value that is absent.
const NOT_REACHED: &str = "—";

// A4 portrait, in points.
const PAGE_W: f32 = 595.276;
const PAGE_H: f32 = 841.89;
const MARGIN_X: f32 = 50.0;
const CONTENT_W: f32 = PAGE_W - 2.0 * MARGIN_X;
/// Top of the content area.
const TOP: f32 = PAGE_H - 50.0;
/// Nothing but the footer goes below this.
const BOTTOM: f32 = 62.0;
const FOOTER_BASELINE: f32 = 34.0;
const FOOTER_RULE: f32 = 48.0;

const BODY: f32 = 9.0;
const BODY_LH: f32 = 12.5;
const LABEL_W: f32 = 118.0;

const TABLE: f32 = 8.0;
const TABLE_LH: f32 = 10.5;
const CELL_PAD_X: f32 = 3.0;
const CELL_PAD_Y: f32 = 3.0;
/// Event table columns: (title, width). The widths add up to [`CONTENT_W`].
const EVENT_COLS: [(&str, f32); 4] = [
    ("Time", 104.0),
    ("Event", 86.0),
    ("Who", 125.0),
    ("Detail", CONTENT_W - 104.0 - 86.0 - 125.0),
];
const EVENT_HEADER_H: f32 = TABLE_LH + 2.0 * CELL_PAD_Y;
const CONTINUED_H: f32 = 16.0;

const BLACK: f32 = 0.0;
const GREY: f32 = 0.38;

/// The box of a signer's signature, beside the value column.
const SIGNATURE_W: f32 = 200.0;
const SIGNATURE_H: f32 = 44.0;
/// The whole "Signature" row: the box, the space above it and the space below its line.
const SIGNATURE_ROW_H: f32 = SIGNATURE_H + 2.0 + BODY_LH / 2.0;
/// The stamper's signature ink.
const INK: (f32, f32, f32) = (0.05, 0.12, 0.45);

/// Renders the audit trail. See the module documentation.
pub(super) fn render(trail: &AuditTrail) -> Result<Vec<u8>, PdfError> {
    let generated = chrono::DateTime::parse_from_rfc3339(&trail.generated_at).map_err(|e| {
        PdfError::InvalidValue {
            key: "generated_at".into(),
            reason: format!("not an RFC 3339 time: {e}"),
        }
    })?;
    let generated =
        printpdf::OffsetDateTime::from_unix_timestamp(generated.timestamp()).map_err(|e| {
            PdfError::InvalidValue {
                key: "generated_at".into(),
                reason: e.to_string(),
            }
        })?;

    let fonts = fonts();
    let mut w = Writer::new(fonts);
    w.title(trail);
    w.envelope(trail);
    w.signers(trail)?;
    w.copies(trail);
    w.events(trail);
    w.integrity(trail);
    if w.replaced {
        w.paragraph(
            "Note: characters that the embedded font cannot display (for example Chinese, \
             Japanese and Korean ideographs) are shown as their Unicode code points in square \
             brackets, such as [U+674E].",
        );
    }
    w.footers(trail);

    let mut doc = PdfDocument::new(&format!("Audit trail — {}", trail.envelope_name));
    let info = &mut doc.metadata.info;
    info.creation_date = generated;
    info.modification_date = generated;
    info.metadata_date = generated;
    info.author = trail.service_name.clone();
    info.creator = trail.service_name.clone();
    info.producer = "envelope-core".into();
    info.subject = format!("Audit trail of envelope {}", trail.envelope_id);

    let faces = [
        (Style::Regular, &fonts.regular),
        (Style::Bold, &fonts.bold),
        (Style::Script, &fonts.script),
    ];
    for (style, face) in faces {
        let used = &w.used[style as usize];
        // Kristi is embedded only when a typed signature is shown.
        if style == Style::Script && used.is_empty() {
            continue;
        }
        let mut parsed = face.parsed.clone();
        parsed.original_bytes = subset(face.file, used);
        parsed.font_name = Some(format!("{}+{}", subset_tag(style, used), face.name));
        doc.resources
            .fonts
            .map
            .insert(style.font_id(), PdfFont::new(parsed));
    }
    for (id, image) in std::mem::take(&mut w.images) {
        doc.resources
            .xobjects
            .map
            .insert(id, XObject::External(image));
    }
    doc.pages = w
        .pages
        .into_iter()
        .map(|ops| PdfPage::new(Mm(210.0), Mm(297.0), ops))
        .collect();

    let mut warnings = Vec::new();
    let opts = PdfSaveOptions {
        subset_fonts: false,
        image_optimization: None,
        ..PdfSaveOptions::default()
    };
    let mut bytes = doc.save(&opts, &mut warnings);
    if let Some(e) = warnings
        .iter()
        .find(|m| m.severity == PdfParseErrorSeverity::Error)
    {
        return Err(PdfError::Invalid(format!(
            "audit trail rendering failed: {}",
            e.msg
        )));
    }
    drop_pdfx_claim(&mut bytes);
    set_document_id(&mut bytes)?;
    Ok(bytes)
}

// ---------------------------------------------------------------------------------------------
// Fonts

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Regular = 0,
    Bold = 1,
    /// Typed signatures (Kristi).
    Script = 2,
}

impl Style {
    fn font_id(self) -> FontId {
        FontId(
            match self {
                Style::Regular => "F1",
                Style::Bold => "F2",
                Style::Script => "F3",
            }
            .into(),
        )
    }
}

#[derive(Debug)]
struct Face {
    parsed: ParsedFont,
    /// The font file (compiled in).
    file: &'static [u8],
    name: &'static str,
    units_per_em: f32,
}

#[derive(Debug)]
struct Fonts {
    regular: Face,
    bold: Face,
    script: Face,
}

impl Fonts {
    fn face(&self, style: Style) -> &Face {
        match style {
            Style::Regular => &self.regular,
            Style::Bold => &self.bold,
            Style::Script => &self.script,
        }
    }
}

/// The parsed vendored fonts, parsed once per process.
fn fonts() -> &'static Fonts {
    static FONTS: OnceLock<Fonts> = OnceLock::new();
    FONTS.get_or_init(|| {
        let load = |bytes: &'static [u8], name| {
            let mut warnings = Vec::new();
            // The fonts are compiled in; the tests render them, so this cannot fail at run time.
            let parsed =
                ParsedFont::from_bytes(bytes, 0, &mut warnings).expect("the vendored fonts parse");
            let units_per_em = f32::from(parsed.units_per_em.max(1));
            Face {
                parsed,
                file: bytes,
                name,
                units_per_em,
            }
        };
        Fonts {
            regular: load(REGULAR_TTF, "DejaVuSans"),
            bold: load(BOLD_TTF, "DejaVuSans-Bold"),
            script: load(SCRIPT_TTF, "Kristi"),
        }
    })
}

impl Face {
    fn glyph(&self, c: char) -> Option<u16> {
        self.parsed
            .lookup_glyph_index(u32::from(c))
            .filter(|&g| g != 0)
    }

    fn char_width(&self, c: char, size: f32) -> f32 {
        let units = self
            .glyph(c)
            .and_then(|g| self.parsed.get_glyph_width(g))
            .unwrap_or(0);
        f32::from(units) * size / self.units_per_em
    }

    fn width(&self, s: &str, size: f32) -> f32 {
        s.chars().map(|c| self.char_width(c, size)).sum()
    }

    /// `s` with every character this face can draw kept, whitespace made plain spaces, and each
    /// run of other characters replaced by its code points, `[U+674E U+96F7]`. Also says whether
    /// anything was replaced.
    fn displayable(&self, s: &str) -> (String, bool) {
        fn flush(out: &mut String, missing: &mut Vec<char>) {
            if missing.is_empty() {
                return;
            }
            out.push('[');
            for (i, c) in missing.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(&format!("U+{:04X}", u32::from(*c)));
            }
            out.push(']');
            missing.clear();
        }
        let mut out = String::with_capacity(s.len());
        let mut missing = Vec::new();
        let mut replaced = false;
        for c in s.chars() {
            let c = if c.is_whitespace() { ' ' } else { c };
            if c == ' ' || (!c.is_control() && self.glyph(c).is_some()) {
                flush(&mut out, &mut missing);
                out.push(c);
            } else {
                replaced = true;
                missing.push(c);
            }
        }
        flush(&mut out, &mut missing);
        (out, replaced)
    }

    /// Greedy word wrap of displayable text into lines no wider than `max`. A word wider than
    /// `max` is broken between characters. Always at least one line.
    fn wrap(&self, s: &str, size: f32, max: f32) -> Vec<String> {
        let space = self.char_width(' ', size);
        let mut lines = Vec::new();
        let mut line = String::new();
        let mut line_w = 0.0;
        for word in s.split_whitespace() {
            let word_w = self.width(word, size);
            if !line.is_empty() && line_w + space + word_w <= max {
                line.push(' ');
                line.push_str(word);
                line_w += space + word_w;
                continue;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
                line_w = 0.0;
            }
            if word_w <= max {
                line.push_str(word);
                line_w = word_w;
                continue;
            }
            for c in word.chars() {
                let cw = self.char_width(c, size);
                if !line.is_empty() && line_w + cw > max {
                    lines.push(std::mem::take(&mut line));
                    line_w = 0.0;
                }
                line.push(c);
                line_w += cw;
            }
        }
        if !line.is_empty() || lines.is_empty() {
            lines.push(line);
        }
        lines
    }

    /// One line of at most `max`, cut with an ellipsis when needed.
    fn truncate(&self, s: &str, size: f32, max: f32) -> String {
        if self.width(s, size) <= max {
            return s.to_string();
        }
        let budget = max - self.char_width('…', size);
        let mut out = String::new();
        let mut w = 0.0;
        for c in s.chars() {
            let cw = self.char_width(c, size);
            if w + cw > budget {
                break;
            }
            out.push(c);
            w += cw;
        }
        out.push('…');
        out
    }
}

/// A deterministic six-letter subset tag (ISO 32000-1, 9.6.4) from the glyphs kept.
fn subset_tag(style: Style, used: &BTreeSet<u16>) -> String {
    let mut h = Sha256::new();
    h.update([style as u8]);
    for g in used {
        h.update(g.to_be_bytes());
    }
    h.finalize()
        .iter()
        .take(6)
        .map(|b| char::from(b'A' + b % 26))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Layout

/// One column of a row: where it starts, how it is drawn, and its already wrapped lines.
#[derive(Debug)]
struct Cell {
    x: f32,
    style: Style,
    size: f32,
    grey: f32,
    lines: Vec<String>,
}

/// What to draw again at the top of a page that a row continues on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Repeat {
    Nothing,
    EventHeader,
}

impl Repeat {
    fn height(self) -> f32 {
        match self {
            Repeat::Nothing => 0.0,
            Repeat::EventHeader => CONTINUED_H + EVENT_HEADER_H,
        }
    }
}

#[derive(Debug)]
struct Writer<'f> {
    fonts: &'f Fonts,
    pages: Vec<Vec<Op>>,
    /// Top of the next thing to draw on the last page.
    y: f32,
    /// Glyph ids drawn, per [`Style`].
    used: [BTreeSet<u16>; 3],
    /// The drawn signatures shown, as image XObjects.
    images: Vec<(XObjectId, ExternalXObject)>,
    /// Whether any character had to be replaced by its code point.
    replaced: bool,
    /// The page drawn on, when not the last one (footers).
    target: Option<usize>,
}

impl<'f> Writer<'f> {
    fn new(fonts: &'f Fonts) -> Self {
        Writer {
            fonts,
            pages: vec![Vec::new()],
            y: TOP,
            used: [BTreeSet::new(), BTreeSet::new(), BTreeSet::new()],
            images: Vec::new(),
            replaced: false,
            target: None,
        }
    }

    fn ops(&mut self) -> &mut Vec<Op> {
        if self.pages.is_empty() {
            self.pages.push(Vec::new());
        }
        let page = self.target.unwrap_or(self.pages.len() - 1);
        &mut self.pages[page]
    }

    fn new_page(&mut self, repeat: Repeat) {
        self.pages.push(Vec::new());
        self.y = TOP;
        if repeat == Repeat::EventHeader {
            let lines = self.lines(Style::Bold, BODY, "Events (continued)", CONTENT_W);
            self.text(Style::Bold, BODY, MARGIN_X, self.y - BODY, &lines[0], GREY);
            self.y -= CONTINUED_H;
            self.event_header();
        }
    }

    fn space_left(&self) -> f32 {
        self.y - BOTTOM
    }

    /// Starts a new page unless `h` points fit on this one (or would not fit on any page).
    fn keep(&mut self, h: f32) {
        if h > self.space_left() && h <= TOP - BOTTOM {
            self.new_page(Repeat::Nothing);
        }
    }

    /// Displayable, wrapped lines of `s`.
    fn lines(&mut self, style: Style, size: f32, s: &str, max: f32) -> Vec<String> {
        let face = self.fonts.face(style);
        let (text, replaced) = face.displayable(s);
        self.replaced |= replaced;
        face.wrap(&text, size, max)
    }

    /// Draws one line of displayable text with its baseline at `baseline`.
    fn text(&mut self, style: Style, size: f32, x: f32, baseline: f32, s: &str, grey: f32) {
        let col = Color::Greyscale(Greyscale::new(grey, None));
        self.show(style, size, [x, baseline], s, col, 0.0);
    }

    /// [`Self::text`] in any colour, slanted by `slant` (x moves by `slant` times y).
    fn show(&mut self, style: Style, size: f32, at: [f32; 2], s: &str, col: Color, slant: f32) {
        if s.is_empty() {
            return;
        }
        let face = self.fonts.face(style);
        for c in s.chars() {
            if let Some(g) = face.glyph(c) {
                self.used[style as usize].insert(g);
            }
        }
        self.ops().extend([
            Op::StartTextSection,
            Op::SetFillColor { col },
            Op::SetFont {
                font: PdfFontHandle::External(style.font_id()),
                size: Pt(size),
            },
            if slant == 0.0 {
                Op::SetTextCursor {
                    pos: Point {
                        x: Pt(at[0]),
                        y: Pt(at[1]),
                    },
                }
            } else {
                Op::SetTextMatrix {
                    matrix: TextMatrix::Raw([1.0, 0.0, slant, 1.0, at[0], at[1]]),
                }
            },
            Op::ShowText {
                items: vec![TextItem::Text(s.to_string())],
            },
            Op::EndTextSection,
        ]);
    }

    fn rule(&mut self, x0: f32, x1: f32, y: f32, thickness: f32, grey: f32) {
        let point = |x: f32| LinePoint {
            p: Point { x: Pt(x), y: Pt(y) },
            bezier: false,
        };
        self.ops().extend([
            Op::SetOutlineColor {
                col: Color::Greyscale(Greyscale::new(grey, None)),
            },
            Op::SetOutlineThickness { pt: Pt(thickness) },
            Op::DrawLine {
                line: Line {
                    points: vec![point(x0), point(x1)],
                    is_closed: false,
                },
            },
        ]);
    }

    fn fill(&mut self, x: f32, y: f32, width: f32, height: f32, grey: f32) {
        self.ops().extend([
            Op::SetFillColor {
                col: Color::Greyscale(Greyscale::new(grey, None)),
            },
            Op::DrawRectangle {
                rectangle: Rect {
                    x: Pt(x),
                    y: Pt(y),
                    width: Pt(width),
                    height: Pt(height),
                    mode: Some(PaintMode::Fill),
                    winding_order: None,
                },
            },
        ]);
    }

    fn row_height(cells: &[Cell], lh: f32, pad: f32) -> f32 {
        let n = cells.iter().map(|c| c.lines.len()).max().unwrap_or(1);
        n as f32 * lh + 2.0 * pad
    }

    /// Draws a row of cells line by line. The row moves whole to the next page when it fits
    /// there but not here; a row taller than a page continues on the next one, after `repeat`.
    fn row(&mut self, cells: &[Cell], lh: f32, pad: f32, repeat: Repeat) {
        let h = Self::row_height(cells, lh, pad);
        if h > self.space_left() && h <= TOP - BOTTOM - repeat.height() {
            self.new_page(repeat);
        }
        let n = cells.iter().map(|c| c.lines.len()).max().unwrap_or(1);
        self.y -= pad;
        for i in 0..n {
            if lh > self.space_left() {
                self.new_page(repeat);
            }
            for cell in cells {
                if let Some(line) = cell.lines.get(i) {
                    let baseline = self.y - (lh + cell.size * 0.72) / 2.0;
                    self.text(cell.style, cell.size, cell.x, baseline, line, cell.grey);
                }
            }
            self.y -= lh;
        }
        self.y -= pad;
    }

    fn paragraph(&mut self, s: &str) {
        let lines = self.lines(Style::Regular, BODY, s, CONTENT_W);
        self.y -= 6.0;
        let cell = Cell {
            x: MARGIN_X,
            style: Style::Regular,
            size: BODY,
            grey: GREY,
            lines,
        };
        self.row(&[cell], BODY_LH, 0.0, Repeat::Nothing);
    }

    /// A section heading, kept on the same page as the first `min_after` points of what follows.
    fn heading(&mut self, s: &str, min_after: f32) {
        self.y -= 10.0;
        self.keep(24.0 + min_after);
        let lines = self.lines(Style::Bold, 13.0, s, CONTENT_W);
        for line in &lines {
            self.text(Style::Bold, 13.0, MARGIN_X, self.y - 13.0, line, BLACK);
            self.y -= 17.0;
        }
        self.rule(MARGIN_X, MARGIN_X + CONTENT_W, self.y, 0.6, 0.6);
        self.y -= 6.0;
    }

    fn kv_cells(&mut self, label: &str, value: &str) -> Vec<Cell> {
        let label_lines = self.lines(Style::Regular, BODY, label, LABEL_W - 8.0);
        let value_lines = self.lines(Style::Regular, BODY, value, CONTENT_W - LABEL_W);
        vec![
            Cell {
                x: MARGIN_X,
                style: Style::Regular,
                size: BODY,
                grey: GREY,
                lines: label_lines,
            },
            Cell {
                x: MARGIN_X + LABEL_W,
                style: Style::Regular,
                size: BODY,
                grey: BLACK,
                lines: value_lines,
            },
        ]
    }

    /// Label/value rows, with an optional bold sub-title, kept on one page when they fit
    /// together with the `after` points that follow them.
    fn kv_block(&mut self, title: Option<&str>, rows: &[(&str, String)], after: f32) {
        let title = title.map(|t| self.lines(Style::Bold, 10.0, t, CONTENT_W));
        let rows: Vec<Vec<Cell>> = rows
            .iter()
            .map(|(label, value)| self.kv_cells(label, value))
            .collect();
        let title_h = title.as_ref().map_or(0.0, |t| t.len() as f32 * 14.0 + 4.0);
        let h = after
            + title_h
            + rows
                .iter()
                .map(|r| Self::row_height(r, BODY_LH, 0.5))
                .sum::<f32>();
        self.keep(h);
        if let Some(title) = title {
            let cell = Cell {
                x: MARGIN_X,
                style: Style::Bold,
                size: 10.0,
                grey: BLACK,
                lines: title,
            };
            self.y -= 4.0;
            self.row(&[cell], 14.0, 0.0, Repeat::Nothing);
        }
        for row in &rows {
            self.row(row, BODY_LH, 0.5, Repeat::Nothing);
        }
    }

    fn title(&mut self, trail: &AuditTrail) {
        for line in self.lines(Style::Bold, 20.0, "Audit trail", CONTENT_W) {
            self.text(Style::Bold, 20.0, MARGIN_X, self.y - 20.0, &line, BLACK);
            self.y -= 26.0;
        }
        let service = Cell {
            x: MARGIN_X,
            style: Style::Bold,
            size: 11.0,
            grey: BLACK,
            lines: self.lines(Style::Bold, 11.0, &trail.service_name, CONTENT_W),
        };
        self.row(&[service], 15.0, 0.0, Repeat::Nothing);
        let generated = format!("Generated {}", trail.generated_at);
        let cell = Cell {
            x: MARGIN_X,
            style: Style::Regular,
            size: BODY,
            grey: GREY,
            lines: self.lines(Style::Regular, BODY, &generated, CONTENT_W),
        };
        self.row(&[cell], BODY_LH, 0.0, Repeat::Nothing);
    }

    fn envelope(&mut self, trail: &AuditTrail) {
        self.heading("Envelope", 4.0 * BODY_LH);
        let mode = if trail.livemode { "live" } else { "test" };
        self.kv_block(
            None,
            &[
                ("Envelope ID", trail.envelope_id.clone()),
                ("Name", or_dash(&trail.envelope_name)),
                ("Mode", mode.to_string()),
                ("Status", or_dash(&trail.status)),
                ("Created", or_dash(&trail.created_at)),
                ("Sent", opt(&trail.sent_at)),
                ("Completed", opt(&trail.completed_at)),
            ],
            0.0,
        );
    }

    fn signers(&mut self, trail: &AuditTrail) -> Result<(), PdfError> {
        self.heading(&format!("Signers ({})", trail.signers.len()), 4.0 * BODY_LH);
        if trail.signers.is_empty() {
            self.paragraph("No signers.");
        }
        for (i, s) in trail.signers.iter().enumerate() {
            let title = format!("Signer {}: {}", i + 1, s.name);
            let mut rows = vec![("Name", or_dash(&s.name)), ("Email", or_dash(&s.email))];
            // Only when set (extensions E4): trails of signers without a locale are unchanged.
            if let Some(l) = &s.locale {
                rows.push(("Locale", or_dash(l)));
            }
            rows.extend([
                ("Role", or_dash(&s.role)),
                ("Signer ID", or_dash(&s.id)),
                ("IP address", opt(&s.ip_address)),
                ("User agent", opt(&s.user_agent)),
                ("Created", or_dash(&s.created_at)),
                ("Sent", opt(&s.sent_at)),
                ("Viewed", opt(&s.viewed_at)),
                ("Signed", opt(&s.signed_at)),
                ("Declined", opt(&s.declined_at)),
                ("Completed", opt(&s.completed_at)),
            ]);
            let after = if s.signature.is_some() {
                SIGNATURE_ROW_H
            } else {
                0.0
            };
            self.kv_block(Some(&title), &rows, after);
            if let Some(signature) = &s.signature {
                self.signature(i, signature)?;
            }
        }
        Ok(())
    }

    /// The "Signature" row of signer `i`: the value as it was stamped, in a box under the
    /// value column, over a thin line.
    fn signature(&mut self, i: usize, value: &StampValue) -> Result<(), PdfError> {
        self.keep(SIGNATURE_ROW_H);
        let top = self.y - 2.0;
        let label = self.lines(Style::Regular, BODY, "Signature", LABEL_W - 8.0);
        self.text(Style::Regular, BODY, MARGIN_X, top - BODY, &label[0], GREY);
        let (x, y) = (MARGIN_X + LABEL_W, top - SIGNATURE_H);
        let pad = 2.0;
        let (w, h_in) = (SIGNATURE_W - 2.0 * pad, SIGNATURE_H - 2.0 * pad);
        match value {
            StampValue::Typed(text) => self.typed(text, x + pad, y + pad, w, h_in),
            StampValue::Drawn(png) => {
                let png = decode_png(png).map_err(|reason| PdfError::InvalidValue {
                    key: format!("signers.{i}.signature"),
                    reason,
                })?;
                let parts = png.streams();
                let (pw, ph) = (parts.width as f32, parts.height as f32);
                let scale = (w / pw).min(h_in / ph);
                let (dw, dh) = (pw * scale, ph * scale);
                let id = XObjectId(format!("Sig{}", i + 1));
                self.images.push((id.clone(), image_xobject(parts)));
                self.ops().push(Op::UseXobject {
                    id,
                    transform: XObjectTransform {
                        translate_x: Some(Pt(x + pad)),
                        translate_y: Some(Pt(y + pad + (h_in - dh) / 2.0)),
                        scale_x: Some(dw),
                        scale_y: Some(dh),
                        no_auto_scale: true,
                        ..XObjectTransform::default()
                    },
                });
            }
            StampValue::Text(_) | StampValue::Checkbox(_) => {}
        }
        self.rule(x, x + SIGNATURE_W, y, 0.5, 0.6);
        self.y = y - BODY_LH / 2.0;
        Ok(())
    }

    /// A typed signature fitted to the box at (`x`, `y`), `w` by `h`, by the stamper's rule: in
    /// Kristi when it has every character, else in DejaVu Sans slanted, as the stamper draws it
    /// (with code points for what DejaVu lacks too).
    fn typed(&mut self, text: &str, x: f32, y: f32, w: f32, h: f32) {
        let text = text.trim();
        let (style, text, ink, slant) = match fonts::script_ink(text) {
            Some(ink) => (Style::Script, text.to_string(), ink, 0.0),
            None => {
                let face = self.fonts.face(Style::Regular);
                let (shown, replaced) = face.displayable(text);
                self.replaced |= replaced;
                let width = f64::from(face.width(&shown, 1.0));
                // DejaVu's descender and ascender, and the slant's shift at both.
                let (bottom, top) = (-0.24, 0.93);
                let ink = Ink {
                    left: fonts::SLANT * bottom,
                    right: width + fonts::SLANT * top,
                    bottom,
                    top,
                };
                (Style::Regular, shown, ink, fonts::SLANT as f32)
            }
        };
        let size = fit_size(&ink, f64::from(w), f64::from(h), MAX_SIGNATURE_SIZE);
        let left = x - (ink.left * size) as f32;
        let baseline = y + ((f64::from(h) - ink.height() * size) / 2.0 - ink.bottom * size) as f32;
        let (r, g, b) = INK;
        let col = Color::Rgb(Rgb::new(r, g, b, None));
        self.show(style, size as f32, [left, baseline], &text, col, slant);
    }

    /// Carbon-copy recipients, when there are any: they sign nothing and receive the signed copy
    /// and this audit trail.
    fn copies(&mut self, trail: &AuditTrail) {
        if trail.cc.is_empty() {
            return;
        }
        self.heading(
            &format!("Copies sent to ({})", trail.cc.len()),
            4.0 * BODY_LH,
        );
        for (i, (id, name, email)) in trail.cc.iter().enumerate() {
            let title = format!("Copy {}: {}", i + 1, name);
            self.kv_block(
                Some(&title),
                &[
                    ("Name", or_dash(name)),
                    ("Email", or_dash(email)),
                    ("Recipient ID", or_dash(id)),
                ],
                0.0,
            );
        }
    }

    fn event_header(&mut self) {
        let top = self.y;
        self.fill(
            MARGIN_X,
            top - EVENT_HEADER_H,
            CONTENT_W,
            EVENT_HEADER_H,
            0.9,
        );
        let mut x = MARGIN_X;
        let mut cells = Vec::new();
        for (title, width) in EVENT_COLS {
            let lines = self.lines(Style::Bold, TABLE, title, width - 2.0 * CELL_PAD_X);
            cells.push(Cell {
                x: x + CELL_PAD_X,
                style: Style::Bold,
                size: TABLE,
                grey: BLACK,
                lines: lines.into_iter().take(1).collect(),
            });
            x += width;
        }
        self.row(&cells, TABLE_LH, CELL_PAD_Y, Repeat::Nothing);
        self.y = top - EVENT_HEADER_H;
    }

    fn events(&mut self, trail: &AuditTrail) {
        let rows: Vec<Vec<Cell>> = trail
            .events
            .iter()
            .map(|e| {
                let mut x = MARGIN_X;
                let mut cells = Vec::new();
                for ((_, width), value) in
                    EVENT_COLS.iter().zip([&e.at, &e.what, &e.who, &e.detail])
                {
                    let max = width - 2.0 * CELL_PAD_X;
                    cells.push(Cell {
                        x: x + CELL_PAD_X,
                        style: Style::Regular,
                        size: TABLE,
                        grey: BLACK,
                        lines: self.lines(Style::Regular, TABLE, &or_dash(value), max),
                    });
                    x += width;
                }
                cells
            })
            .collect();
        // Keep the heading and the header row with the first event.
        let first = rows
            .first()
            .map_or(BODY_LH, |r| Self::row_height(r, TABLE_LH, CELL_PAD_Y));
        self.heading(
            &format!("Events ({})", trail.events.len()),
            EVENT_HEADER_H + first,
        );
        if rows.is_empty() {
            self.paragraph("No events recorded.");
            return;
        }
        self.event_header();
        for cells in &rows {
            self.row(cells, TABLE_LH, CELL_PAD_Y, Repeat::EventHeader);
            self.rule(MARGIN_X, MARGIN_X + CONTENT_W, self.y, 0.4, 0.75);
        }
    }

    fn integrity(&mut self, trail: &AuditTrail) {
        self.heading("Document integrity", 4.0 * BODY_LH);
        let mut rows: Vec<(String, &String)> = if trail.documents.is_empty() {
            vec![
                (
                    "SHA-256 of the original document".into(),
                    &trail.original_sha256,
                ),
                (
                    "SHA-256 of the signed document".into(),
                    &trail.signed_sha256,
                ),
            ]
        } else {
            // Several documents (extensions E5): each one's pair, in order.
            trail
                .documents
                .iter()
                .enumerate()
                .flat_map(|(i, d)| {
                    [
                        (
                            format!("Document {} \"{}\": SHA-256 of the original", i + 1, d.name),
                            &d.original_sha256,
                        ),
                        (
                            format!("Document {}: SHA-256 of the signed copy", i + 1),
                            &d.signed_sha256,
                        ),
                    ]
                })
                .collect()
        };
        if let Some(cert) = &trail.signing_certificate_sha256 {
            rows.push(("SHA-256 of the sealing certificate".into(), cert));
        }
        for (label, digest) in rows {
            let label = label.as_str();
            let label = Cell {
                x: MARGIN_X,
                style: Style::Bold,
                size: BODY,
                grey: BLACK,
                lines: self.lines(Style::Bold, BODY, label, CONTENT_W),
            };
            let value = Cell {
                x: MARGIN_X,
                style: Style::Regular,
                size: BODY,
                grey: BLACK,
                lines: self.lines(Style::Regular, BODY, &or_dash(digest), CONTENT_W),
            };
            self.keep(2.0 * BODY_LH + 8.0);
            self.row(std::slice::from_ref(&label), BODY_LH, 1.0, Repeat::Nothing);
            self.row(std::slice::from_ref(&value), BODY_LH, 1.0, Repeat::Nothing);
            self.y -= 4.0;
        }
        self.paragraph(
            "Each digest is the SHA-256 of the exact bytes of the document, in lowercase \
             hexadecimal.",
        );
        if trail.signing_certificate_sha256.is_some() {
            self.paragraph(
                "The signed document and this audit trail carry a PAdES signature by the \
                 certificate above (SHA-256 of its DER encoding): any change to either file \
                 breaks it.",
            );
        }
    }

    /// "Page N of M" and the envelope id at the foot of every page.
    fn footers(&mut self, trail: &AuditTrail) {
        let total = self.pages.len();
        let regular = self.fonts.face(Style::Regular);
        let left = if trail.service_name.trim().is_empty() {
            format!("Audit trail · Envelope {}", trail.envelope_id)
        } else {
            format!(
                "{} · Audit trail · Envelope {}",
                trail.service_name, trail.envelope_id
            )
        };
        let (left, replaced) = regular.displayable(&left);
        self.replaced |= replaced;
        for page in 0..total {
            let label = format!("Page {} of {}", page + 1, total);
            let label_w = regular.width(&label, TABLE);
            let left = regular.truncate(&left, TABLE, CONTENT_W - label_w - 24.0);
            self.target = Some(page);
            self.rule(MARGIN_X, MARGIN_X + CONTENT_W, FOOTER_RULE, 0.4, 0.75);
            self.text(
                Style::Regular,
                TABLE,
                MARGIN_X,
                FOOTER_BASELINE,
                &left,
                GREY,
            );
            let x = MARGIN_X + CONTENT_W - label_w;
            self.text(Style::Regular, TABLE, x, FOOTER_BASELINE, &label, GREY);
        }
        self.target = None;
    }
}

/// A drawn signature's streams (`pdf/image.rs`) as printpdf's external XObject: the soft mask
/// nested in the dictionary, which printpdf writes as its own object.
fn image_xobject(parts: super::image::ImageStreams) -> ExternalXObject {
    let dict = |cs: &[u8]| {
        BTreeMap::from([
            ("Type".to_string(), DictItem::Name(b"XObject".to_vec())),
            ("Subtype".to_string(), DictItem::Name(b"Image".to_vec())),
            ("Width".to_string(), DictItem::Int(i64::from(parts.width))),
            ("Height".to_string(), DictItem::Int(i64::from(parts.height))),
            ("ColorSpace".to_string(), DictItem::Name(cs.to_vec())),
            ("BitsPerComponent".to_string(), DictItem::Int(8)),
            (
                "Filter".to_string(),
                DictItem::Name(b"FlateDecode".to_vec()),
            ),
        ])
    };
    let mut map = dict(parts.color_space);
    if let Some(alpha) = parts.alpha {
        let stream = ExternalStream {
            dict: dict(b"DeviceGray"),
            content: alpha,
            compress: false,
        };
        map.insert("SMask".into(), DictItem::Stream { stream });
    }
    ExternalXObject {
        stream: ExternalStream {
            dict: map,
            content: parts.color,
            compress: false,
        },
        width: Some(Px(parts.width as usize)),
        height: Some(Px(parts.height as usize)),
        dpi: None,
    }
}

fn or_dash(s: &str) -> String {
    if s.trim().is_empty() {
        NOT_REACHED.to_string()
    } else {
        s.to_string()
    }
}

fn opt(s: &Option<String>) -> String {
    s.as_deref()
        .map_or_else(|| NOT_REACHED.to_string(), or_dash)
}

// ---------------------------------------------------------------------------------------------
// Post-processing of printpdf's bytes

/// printpdf always writes `/GTS_PDFXVersion()` (and an empty `/Identifier()`) into the
/// document information dictionary, which readers take as a claim of PDF/X conformance that
/// this document does not make. Both entries are overwritten with spaces (valid whitespace in a
/// dictionary, and the same length, so the cross-reference offsets stay valid).
fn drop_pdfx_claim(bytes: &mut [u8]) {
    for entry in [&b"/GTS_PDFXVersion()"[..], &b"/Identifier()"[..]] {
        if let Some(at) = find_last(bytes, entry) {
            bytes[at..at + entry.len()].fill(b' ');
        }
    }
}

/// Replaces the trailer's `/ID` strings, which printpdf fills with pseudo-random characters,
/// with the first 16 bytes (as 32 hex digits) of the SHA-256 of the document with that ID
/// blanked. The replacement has the same length, so the cross-reference offsets stay valid.
fn set_document_id(bytes: &mut [u8]) -> Result<(), PdfError> {
    let trailer = find_last(bytes, b"trailer")
        .ok_or_else(|| PdfError::Invalid("audit trail: no trailer written".into()))?;
    let id = find_last(&bytes[trailer..], b"/ID")
        .map(|i| trailer + i)
        .ok_or_else(|| PdfError::Invalid("audit trail: no /ID in the trailer".into()))?;
    // `/ID[(…)(…)]`, maybe with whitespace: locate both literal strings.
    let mut spans = Vec::new();
    let mut i = id + 3;
    while spans.len() < 2 && i < bytes.len() {
        match bytes[i] {
            b'(' => {
                let start = i + 1;
                let end = bytes[start..]
                    .iter()
                    .position(|&b| b == b')' || b == b'\\')
                    .map(|p| start + p)
                    .ok_or_else(|| PdfError::Invalid("audit trail: bad /ID".into()))?;
                if bytes[end] != b')' {
                    return Err(PdfError::Invalid("audit trail: escaped /ID".into()));
                }
                spans.push(start..end);
                i = end + 1;
            }
            b'[' | b' ' | b'\n' | b'\r' => i += 1,
            _ => break,
        }
    }
    if spans.len() != 2 {
        return Err(PdfError::Invalid("audit trail: bad /ID".into()));
    }
    for span in &spans {
        bytes[span.clone()].fill(b'0');
    }
    let digest = Sha256::digest(&*bytes);
    let hex: Vec<u8> = digest
        .iter()
        .flat_map(|b| format!("{b:02x}").into_bytes())
        .collect();
    for span in spans {
        let n = span.len().min(hex.len());
        bytes[span.start..span.start + n].copy_from_slice(&hex[..n]);
    }
    Ok(())
}

fn find_last(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

// ---------------------------------------------------------------------------------------------
// Font subsetting

/// `font` with only the `used` glyphs' outlines (see [`TrueType::subset_keeping`]), keeping
/// the tables printpdf parses when it embeds the font.
fn subset(font: &'static [u8], used: &BTreeSet<u16>) -> Vec<u8> {
    const PRINTPDF_READS: [[u8; 4]; 4] = [*b"OS/2", *b"cmap", *b"name", *b"post"];
    // The vendored fonts parse; the tests embed all three.
    let parsed = TrueType::parse(font).expect("the vendored fonts parse");
    parsed.subset_keeping(used, &PRINTPDF_READS)
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    use super::*;
    use crate::pdf::{AuditEvent, AuditSigner, audit_trail};

    const NAMES: [&str; 10] = [
        "Łukasz Żółć",
        "Дмитрий Шостакович",
        "李雷",
        "Ελένη Παπαδοπούλου",
        "Zoë Ångström-Øyen",
        "José María Müller-Lüdenscheidt",
        "Søren Kierkegaard Bartholomew Fitzgerald-Montgomery Vanderbilt-Rothschild the Third",
        "Ana Đorđević",
        "Ngô Bảo Châu",
        "O'Brien, Siobhán",
    ];

    /// How a name is expected to read in the extracted text (CJK is shown as code points).
    fn shown(name: &str) -> String {
        name.replace("李雷", "[U+674E U+96F7]")
    }

    fn sample() -> AuditTrail {
        let t = |m: u32| format!("2025-03-01T{:02}:{:02}:{:02}Z", 9 + m / 60, m % 60, m % 7);
        let signers: Vec<AuditSigner> = NAMES
            .iter()
            .enumerate()
            .map(|(i, name)| AuditSigner {
                id: format!("sgn_{:024x}", 0xabc0_0000u64 + i as u64),
                role: if i % 3 == 0 { "approver" } else { "signer" }.into(),
                name: name.to_string(),
                email: format!("signer.number-{i}@very-long-subdomain.example-company.co.uk"),
                locale: (i % 5 == 1).then(|| "pt-BR".to_string()),
                ip_address: Some(if i % 2 == 0 {
                    format!("203.0.113.{}", 10 + i)
                } else {
                    format!("2001:db8:85a3:0:0:8a2e:370:{:x}", 0x7330 + i)
                }),
                user_agent: Some(format!(
                    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like \
                     Gecko) Chrome/124.0.6367.{i} Safari/537.36 Edg/124.0.2478.{i} \
                     SomeEmbeddedWebView/1.{i};ExtraTokenWithoutAnySpacesAtAllThatIsVeryLongIndeed{i}"
                )),
                created_at: t(i as u32),
                sent_at: Some(t(i as u32 + 1)),
                viewed_at: (i % 4 != 3).then(|| t(i as u32 + 10)),
                signed_at: (i % 4 < 2).then(|| t(i as u32 + 20)),
                declined_at: (i % 4 == 2).then(|| t(i as u32 + 21)),
                completed_at: (i % 4 < 2).then(|| t(i as u32 + 30)),
                // Typed (in Kristi or, for names it lacks, DejaVu) and drawn signatures.
                signature: match i % 4 {
                    0 => Some(StampValue::Typed(name.to_string())),
                    1 => Some(StampValue::Drawn(stroke_png())),
                    _ => None,
                },
            })
            .collect();
        let mut events = Vec::new();
        for (i, s) in signers.iter().enumerate() {
            for (k, what) in [
                "sent",
                "viewed",
                "signed",
                "declined",
                "completed",
                "reminded",
            ]
            .iter()
            .enumerate()
            {
                events.push(AuditEvent {
                    at: t((i * 6 + k) as u32),
                    what: format!("signer.{what}"),
                    who: format!("{} <{}>", s.name, s.email),
                    detail: format!(
                        "ip {} — {}",
                        s.ip_address.as_deref().unwrap_or("-"),
                        s.user_agent.as_deref().unwrap_or("-")
                    ),
                });
            }
        }
        AuditTrail {
            service_name: "Envelope Signing Service (staging)".into(),
            envelope_id: "env_01HZX3Q5P8W9K2M4N6R7T8V9W0".into(),
            envelope_name: "Master services agreement — Łódź office, 2025 renewal".into(),
            livemode: false,
            status: "completed".into(),
            created_at: t(0),
            sent_at: Some(t(1)),
            completed_at: None,
            signers,
            cc: vec![(
                "rcp_8Jq2".into(),
                "Carla Copy".into(),
                "carla@example.org".into(),
            )],
            events,
            original_sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
                .into(),
            signed_sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
                .into(),
            documents: Vec::new(),
            signing_certificate_sha256: Some(
                "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8".into(),
            ),
            generated_at: "2025-03-01T12:30:00+01:00".into(),
        }
    }

    /// Runs a PDF tool; a missing tool fails the test (never a silent pass).
    fn run(tool: &str, args: &[&str]) -> std::process::Output {
        match Command::new(tool).args(args).output() {
            Ok(out) => out,
            Err(e) => panic!(
                "cannot run `{tool}` ({e}): install poppler-utils and qpdf with the project's \
                 .ci/run install step (apt-get install poppler-utils qpdf)"
            ),
        }
    }

    fn write(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    fn text(path: &Path, extra: &[&str]) -> String {
        let p = path.to_str().unwrap();
        let mut args = extra.to_vec();
        args.extend([p, "-"]);
        let out = run("pdftotext", &args);
        assert!(out.status.success(), "pdftotext failed: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    fn squash(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn page_count(path: &Path) -> usize {
        let out = run("pdfinfo", &[path.to_str().unwrap()]);
        assert!(out.status.success(), "pdfinfo failed: {out:?}");
        let info = String::from_utf8_lossy(&out.stdout).to_string();
        info.lines()
            .find_map(|l| l.strip_prefix("Pages:"))
            .map(|n| n.trim().parse().unwrap())
            .expect("pdfinfo prints Pages:")
    }

    #[test]
    fn lists_every_signer_value_hash_and_page_number() {
        let trail = sample();
        let bytes = audit_trail(&trail).unwrap();
        let (_dir, path) = write("audit.pdf", &bytes);
        let pages = page_count(&path);
        assert!(pages >= 3, "expected several pages, got {pages}");
        let raw = text(&path, &[]);
        let all = squash(&raw);
        for needle in [
            "Audit trail",
            "Envelope Signing Service (staging)",
            "Document integrity",
        ] {
            assert!(all.contains(needle), "missing {needle:?}");
        }
        assert!(all.contains(&trail.envelope_id));
        for needle in [
            "Copies sent to (1)",
            "Carla Copy",
            "carla@example.org",
            "rcp_8Jq2",
        ] {
            assert!(all.contains(needle), "missing {needle:?}");
        }
        assert!(all.contains("Master services agreement — Łódź office, 2025 renewal"));
        for s in &trail.signers {
            for needle in [
                shown(&s.name),
                s.email.clone(),
                s.ip_address.clone().unwrap(),
            ] {
                assert!(all.contains(&needle), "missing {needle:?}");
            }
            // The user agent is wrapped; its words are all there, in order.
            let ua = s.user_agent.as_deref().unwrap();
            let no_space: String = all.split_whitespace().collect();
            assert!(no_space.contains(&ua.split_whitespace().collect::<String>()));
        }
        // A locale row for exactly the signers that have one (extensions E4).
        let with_locale = trail.signers.iter().filter(|s| s.locale.is_some()).count();
        assert!(with_locale > 0);
        assert_eq!(all.matches("Locale").count(), with_locale, "{all}");
        assert_eq!(all.matches("pt-BR").count(), with_locale);
        // Digests are never wrapped: each is on one line, whole.
        let cert = trail.signing_certificate_sha256.as_ref().unwrap();
        for hash in [&trail.original_sha256, &trail.signed_sha256, cert] {
            assert!(raw.lines().any(|l| l.trim() == hash), "missing {hash}");
        }
        for n in 1..=pages {
            assert!(all.contains(&format!("Page {n} of {pages}")), "no page {n}");
        }
        assert!(
            all.contains("Events (continued)"),
            "event header not repeated"
        );
        assert!(
            all.contains("are shown as their Unicode code points"),
            "no note on replaced characters"
        );
        // Not-reached steps are shown as a dash.
        let layout = squash(&text(&path, &["-layout"]));
        assert!(layout.contains("Declined —"));
        assert!(layout.contains("Completed —"));
    }

    /// Every word pdftotext finds lies inside the left/right margins and on the page.
    /// Returns how many words there were.
    fn assert_inside_margins(path: &Path) -> usize {
        let html = text(path, &["-bbox"]);
        let attr = |tag: &str, name: &str| -> f32 {
            let key = format!(" {name}=\"");
            let start = tag.find(&key).unwrap() + key.len();
            let end = start + tag[start..].find('"').unwrap();
            tag[start..end].parse().unwrap()
        };
        let (mut width, mut height, mut words) = (0.0, 0.0, 0);
        for line in html.lines().map(str::trim) {
            if line.starts_with("<page ") {
                width = attr(line, "width");
                height = attr(line, "height");
                assert!((width - PAGE_W).abs() < 1.0 && (height - PAGE_H).abs() < 1.0);
            } else if line.starts_with("<word ") {
                words += 1;
                let (x0, x1) = (attr(line, "xMin"), attr(line, "xMax"));
                let (y0, y1) = (attr(line, "yMin"), attr(line, "yMax"));
                assert!(
                    x0 >= MARGIN_X - 0.5 && x1 <= width - MARGIN_X + 0.5,
                    "word outside the margins: {line}"
                );
                assert!(y0 >= 0.0 && y1 <= height, "word off the page: {line}");
            }
        }
        words
    }

    #[test]
    fn every_word_stays_inside_the_margins() {
        let bytes = audit_trail(&sample()).unwrap();
        let (_dir, path) = write("audit.pdf", &bytes);
        let words = assert_inside_margins(&path);
        assert!(words > 1000, "only {words} words extracted");
    }

    #[test]
    fn a_row_taller_than_a_page_continues_on_the_next() {
        let mut trail = sample();
        trail.events.truncate(3);
        trail.events[1].detail = (0..2500).map(|i| format!("w{i} ")).collect();
        let bytes = audit_trail(&trail).unwrap();
        let (_dir, path) = write("tall.pdf", &bytes);
        assert_inside_margins(&path);
        let all = squash(&text(&path, &[]));
        assert!(all.contains("w0 w1 w2") && all.contains("w2498 w2499"));
        assert!(all.contains("Events (continued)"));
        let out = run("qpdf", &["--check", path.to_str().unwrap()]);
        assert!(out.status.success(), "{out:?}");
    }

    #[test]
    fn passes_qpdf_check_and_embeds_subset_fonts() {
        let bytes = audit_trail(&sample()).unwrap();
        let (_dir, path) = write("audit.pdf", &bytes);
        let out = run("qpdf", &["--check", path.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "qpdf --check: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let out = run("pdffonts", &[path.to_str().unwrap()]);
        let fonts = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(fonts.contains("+DejaVuSans "), "{fonts}");
        assert!(fonts.contains("+DejaVuSans-Bold "), "{fonts}");
        for line in fonts.lines().skip(2) {
            assert!(
                line.contains(" yes yes "),
                "font not embedded+subset: {line}"
            );
        }
        let info = run("pdfinfo", &[path.to_str().unwrap()]);
        let info = String::from_utf8_lossy(&info.stdout).to_string();
        assert!(!info.contains("PDF/X"), "claims PDF/X: {info}");
        // The whole fonts are 1.4 MB; the subsets keep this small.
        assert!(bytes.len() < 250_000, "{} bytes", bytes.len());
    }

    #[test]
    fn same_input_gives_same_bytes() {
        let trail = sample();
        let a = audit_trail(&trail).unwrap();
        let b = audit_trail(&trail).unwrap();
        assert!(a == b, "two renders differ");
        // Dates come from generated_at (12:30+01:00 is 11:30 UTC), not 1970 nor the clock.
        let s = String::from_utf8_lossy(&a);
        assert!(s.contains("D:20250301113000"), "creation date not set");
        let mut other = trail.clone();
        other.status = "voided".into();
        let c = audit_trail(&other).unwrap();
        let id = |b: &[u8]| {
            let s = String::from_utf8_lossy(b).to_string();
            let at = s.rfind("/ID").unwrap();
            s[at..at + 72].to_string()
        };
        assert_ne!(id(&a), id(&c), "document ID does not depend on the content");
    }

    #[test]
    fn rejects_a_generated_at_that_is_not_rfc3339() {
        let mut trail = sample();
        trail.generated_at = "yesterday".into();
        assert!(matches!(
            audit_trail(&trail),
            Err(PdfError::InvalidValue { key, .. }) if key == "generated_at"
        ));
    }

    #[test]
    fn an_empty_trail_still_renders() {
        let mut trail = sample();
        trail.signers.clear();
        trail.events.clear();
        trail.service_name.clear();
        let bytes = audit_trail(&trail).unwrap();
        let (_dir, path) = write("empty.pdf", &bytes);
        let all = squash(&text(&path, &[]));
        assert!(all.contains("No events recorded."));
        assert!(all.contains("Page 1 of 1"));
    }

    /// A 60x20 RGBA drawing: a blue stroke on transparency.
    fn stroke_png() -> Vec<u8> {
        let (w, h) = (60u32, 20u32);
        let mut data = vec![0u8; (w * h * 4) as usize];
        for x in 0..w {
            let y = 4 + (x / 5) % 12;
            let p = ((y * w + x) * 4) as usize;
            data[p..p + 4].copy_from_slice(&[10, 30, 110, 255]);
        }
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().unwrap();
        writer.write_image_data(&data).unwrap();
        writer.finish().unwrap();
        out
    }

    #[test]
    fn shows_each_signature_as_stamped() {
        let trail = sample();
        let bytes = audit_trail(&trail).unwrap();
        let (_dir, path) = write("signatures.pdf", &bytes);
        let p = path.to_str().unwrap();
        // The three drawn signatures (signers 2, 6 and 10), each with its alpha as a soft mask.
        let out = run("pdfimages", &["-list", p]);
        assert!(out.status.success(), "pdfimages: {out:?}");
        let list = String::from_utf8_lossy(&out.stdout).to_string();
        let rows: Vec<&str> = list.lines().skip(2).collect();
        let column = |l: &str, n: usize| l.split_whitespace().nth(n).map(str::to_string);
        let kinds: Vec<String> = rows.iter().filter_map(|l| column(l, 2)).collect();
        assert_eq!(kinds.iter().filter(|k| *k == "image").count(), 3, "{list}");
        assert_eq!(kinds.iter().filter(|k| *k == "smask").count(), 3, "{list}");
        assert!(
            rows.iter().all(|l| column(l, 3).as_deref() == Some("60")),
            "{list}"
        );
        // Typed ones: in a Kristi subset when it has every character ("Zoë Ångström-Øyen"),
        // in DejaVu Sans otherwise ("Łukasz Żółć", "Ngô Bảo Châu"); all extractable.
        let out = run("pdffonts", &[p]);
        let fonts = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(fonts.contains("+Kristi "), "{fonts}");
        let all = squash(&text(&path, &[]));
        assert_eq!(all.matches("Signature ").count(), 6, "{all}");
        let mut unsigned = trail.clone();
        unsigned.signers.iter_mut().for_each(|s| s.signature = None);
        let (_dir2, path2) = write("unsigned.pdf", &audit_trail(&unsigned).unwrap());
        let without = squash(&text(&path2, &[]));
        for name in ["Zoë Ångström-Øyen", "Łukasz Żółć", "Ngô Bảo Châu"] {
            let (n, m) = (all.matches(name).count(), without.matches(name).count());
            assert_eq!(n, m + 1, "{name} is extracted once more with its signature");
        }
        assert_inside_margins(&path);
        let out = run("qpdf", &["--check", p]);
        assert!(out.status.success(), "{out:?}");
    }

    #[test]
    fn kristi_is_embedded_only_for_a_typed_signature() {
        let mut trail = sample();
        for s in &mut trail.signers {
            s.signature = None;
        }
        let bytes = audit_trail(&trail).unwrap();
        let (_dir, path) = write("unsigned.pdf", &bytes);
        let out = run("pdffonts", &[path.to_str().unwrap()]);
        let fonts = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(!fonts.contains("Kristi"), "{fonts}");
        let out = run("pdfimages", &["-list", path.to_str().unwrap()]);
        assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    }

    #[test]
    fn wrap_keeps_lines_within_width_and_loses_nothing() {
        let face = &fonts().regular;
        let long = format!("short {} words then {}", "x".repeat(300), "y ".repeat(50));
        for max in [20.0, 57.5, 200.0] {
            let lines = face.wrap(&long, 9.0, max);
            for l in &lines {
                assert!(face.width(l, 9.0) <= max + 0.01, "{l:?} wider than {max}");
            }
            let joined: String = lines.concat().split_whitespace().collect();
            assert_eq!(joined, long.split_whitespace().collect::<String>());
        }
        assert_eq!(face.wrap("", 9.0, 100.0), vec![String::new()]);
    }

    #[test]
    fn characters_the_font_lacks_become_code_points() {
        let face = &fonts().regular;
        assert_eq!(
            face.displayable("Łukasz Żółć"),
            ("Łukasz Żółć".into(), false)
        );
        assert_eq!(face.displayable("Дмитрий"), ("Дмитрий".into(), false));
        assert_eq!(
            face.displayable("李雷 Li\tLei"),
            ("[U+674E U+96F7] Li Lei".into(), true)
        );
        assert_eq!(face.displayable("a\u{0}b"), ("a[U+0000]b".into(), true));
    }

    #[test]
    fn stripped_font_keeps_glyph_ids_and_used_outlines() {
        let used: BTreeSet<u16> = "Łukasz"
            .chars()
            .filter_map(|c| fonts().regular.glyph(c))
            .collect();
        let sub = subset(REGULAR_TTF, &used);
        assert!(sub.len() < REGULAR_TTF.len() / 5, "{} bytes", sub.len());
        let mut warnings = Vec::new();
        let parsed = ParsedFont::from_bytes(&sub, 0, &mut warnings).unwrap();
        assert_eq!(
            parsed.codepoint_to_glyph,
            fonts().regular.parsed.codepoint_to_glyph
        );
        let whole = sub.chunks(4).fold(0u32, |sum, chunk| {
            let mut word = [0u8; 4];
            word[..chunk.len()].copy_from_slice(chunk);
            sum.wrapping_add(u32::from_be_bytes(word))
        });
        assert_eq!(whole, 0xB1B0_AFBA, "checkSumAdjustment wrong");
    }
}
