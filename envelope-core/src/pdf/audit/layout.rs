//! The page and the writer that fills it: A4 geometry and type sizes, then the drawing
//! primitives (text, rules, rows of wrapped cells that break across pages, headings, label and
//! value blocks, the event table's header row that page breaks repeat).

use std::collections::BTreeMap;

use printpdf::{
    Codepoint, Color, DictItem, ExternalXObject, Greyscale, Line, LinePoint, Op, PaintMode,
    PdfFontHandle, Point, Pt, Rect, TextItem, TextMatrix, XObjectId,
};

use super::fonts::{Style, Used, face, font_id};
use crate::pdf::shape::{self, GlyphTexts, library};

// A4 portrait, in points.
pub(super) const PAGE_W: f32 = 595.276;
pub(super) const PAGE_H: f32 = 841.89;
pub(super) const MARGIN_X: f32 = 50.0;
pub(super) const CONTENT_W: f32 = PAGE_W - 2.0 * MARGIN_X;
/// Top of the content area.
const TOP: f32 = PAGE_H - 50.0;
/// Nothing but the footer goes below this.
const BOTTOM: f32 = 62.0;
pub(super) const FOOTER_BASELINE: f32 = 34.0;
pub(super) const FOOTER_RULE: f32 = 48.0;

pub(super) const BODY: f32 = 9.0;
pub(super) const BODY_LH: f32 = 12.5;
pub(super) const LABEL_W: f32 = 118.0;

pub(super) const TABLE: f32 = 8.0;
pub(super) const TABLE_LH: f32 = 10.5;
pub(super) const CELL_PAD_X: f32 = 3.0;
pub(super) const CELL_PAD_Y: f32 = 3.0;
/// Event table columns: (title, width). The widths add up to [`CONTENT_W`].
pub(super) const EVENT_COLS: [(&str, f32); 4] = [
    ("Time", 104.0),
    ("Event", 86.0),
    ("Who", 125.0),
    ("Detail", CONTENT_W - 104.0 - 86.0 - 125.0),
];
pub(super) const EVENT_HEADER_H: f32 = TABLE_LH + 2.0 * CELL_PAD_Y;
const CONTINUED_H: f32 = 16.0;

pub(super) const BLACK: f32 = 0.0;
pub(super) const GREY: f32 = 0.38;

/// One column of a row: where it starts, how it is drawn, and its already wrapped lines.
#[derive(Debug)]
pub(super) struct Cell {
    pub(super) x: f32,
    pub(super) style: Style,
    pub(super) size: f32,
    pub(super) grey: f32,
    pub(super) lines: Vec<String>,
}

/// What to draw again at the top of a page that a row continues on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Repeat {
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
pub(super) struct Writer {
    pub(super) pages: Vec<Vec<Op>>,
    /// Top of the next thing to draw on the last page.
    pub(super) y: f32,
    /// The glyphs drawn, per face.
    pub(super) used: Used,
    /// What each drawn glyph stands for (`/ToUnicode`).
    pub(super) texts: GlyphTexts,
    /// The drawn signatures shown, as image XObjects.
    pub(super) images: Vec<(XObjectId, ExternalXObject)>,
    /// Whether any character had to be replaced by its code point.
    pub(super) replaced: bool,
    /// The page drawn on, when not the last one (footers).
    pub(super) target: Option<usize>,
}

impl Writer {
    pub(super) fn new() -> Self {
        Writer {
            pages: vec![Vec::new()],
            y: TOP,
            used: Used::new(),
            texts: GlyphTexts::default(),
            images: Vec::new(),
            replaced: false,
            target: None,
        }
    }

    pub(super) fn ops(&mut self) -> &mut Vec<Op> {
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
    pub(super) fn keep(&mut self, h: f32) {
        if h > self.space_left() && h <= TOP - BOTTOM {
            self.new_page(Repeat::Nothing);
        }
    }

    /// Displayable, wrapped lines of `s`.
    pub(super) fn lines(&mut self, style: Style, size: f32, s: &str, max: f32) -> Vec<String> {
        let face = face(style);
        let (text, replaced) = face.displayable(s);
        self.replaced |= replaced;
        face.wrap(&text, size, max)
    }

    /// Draws one line of displayable text with its baseline at `baseline`.
    pub(super) fn text(
        &mut self,
        style: Style,
        size: f32,
        x: f32,
        baseline: f32,
        s: &str,
        grey: f32,
    ) {
        let col = Color::Greyscale(Greyscale::new(grey, None));
        self.show(style, size, [x, baseline], s, col, 0.0);
    }

    /// [`Self::text`] in any colour, slanted by `slant` (x moves by `slant` times y). The text
    /// is set by [`shape::set`]: glyph ids of each face's subset, repositioned where the shaper
    /// moved them (kerning, marks), and `/ActualText` spans around the clusters the
    /// `/ToUnicode` maps cannot explain (see [`GlyphTexts`]).
    pub(super) fn show(
        &mut self,
        style: Style,
        size: f32,
        at: [f32; 2],
        s: &str,
        col: Color,
        slant: f32,
    ) {
        if s.is_empty() {
            return;
        }
        let line = shape::set(s, style);
        let slant = if line.slant && slant == 0.0 {
            crate::pdf::fonts::SLANT as f32
        } else {
            slant
        };
        let lib = library();
        let mut ops = vec![
            Op::StartTextSection,
            Op::SetFillColor { col },
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
        ];
        let mut items: Vec<TextItem> = Vec::new();
        let flush = |ops: &mut Vec<Op>, items: &mut Vec<TextItem>| {
            if !items.is_empty() {
                ops.push(Op::ShowText {
                    items: std::mem::take(items),
                });
            }
        };
        let (mut pen, mut rise) = (0.0f64, 0.0f64);
        let mut font = None;
        for cluster in &line.clusters {
            let glyphs = &line.glyphs[cluster.glyphs.clone()];
            let codes: Vec<_> = glyphs
                .iter()
                .map(|g| (g.face, self.used.entry(g.face).or_default().remap(g.gid)))
                .collect();
            let plain = self.texts.record(cluster, &codes);
            if !plain {
                flush(&mut ops, &mut items);
                let text: Vec<u8> = [0xFE, 0xFF]
                    .into_iter()
                    .chain(
                        cluster
                            .extracted()
                            .encode_utf16()
                            .flat_map(u16::to_be_bytes),
                    )
                    .collect();
                ops.push(Op::BeginMarkedContentWithProperties {
                    tag: "Span".into(),
                    properties: DictItem::Dict {
                        map: BTreeMap::from([(
                            "ActualText".to_string(),
                            DictItem::String {
                                data: text,
                                literal: false,
                            },
                        )]),
                    },
                });
            }
            for (g, (face, code)) in glyphs.iter().zip(codes) {
                if font != Some(face) {
                    flush(&mut ops, &mut items);
                    ops.push(Op::SetFont {
                        font: PdfFontHandle::External(font_id(face)),
                        size: Pt(size),
                    });
                    font = Some(face);
                }
                if (g.y - rise).abs() > 0.001 {
                    flush(&mut ops, &mut items);
                    ops.push(Op::SetLineOffset {
                        multiplier: (g.y / 1000.0) as f32 * size,
                    });
                    rise = g.y;
                }
                let adjust = pen - g.x;
                if adjust.abs() > 0.001 {
                    items.push(TextItem::Offset(adjust as f32));
                }
                items.push(TextItem::GlyphIds(vec![Codepoint::with_cid(
                    code,
                    0.0,
                    self.texts.get(face, code).to_string(),
                )]));
                pen = g.x + lib.face(face).pdf_width(g.gid);
            }
            if !plain {
                flush(&mut ops, &mut items);
                ops.push(Op::EndMarkedContent);
            }
        }
        flush(&mut ops, &mut items);
        if rise != 0.0 {
            ops.push(Op::SetLineOffset { multiplier: 0.0 });
        }
        ops.push(Op::EndTextSection);
        self.ops().extend(ops);
    }

    pub(super) fn rule(&mut self, x0: f32, x1: f32, y: f32, thickness: f32, grey: f32) {
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

    pub(super) fn row_height(cells: &[Cell], lh: f32, pad: f32) -> f32 {
        let n = cells.iter().map(|c| c.lines.len()).max().unwrap_or(1);
        n as f32 * lh + 2.0 * pad
    }

    /// Draws a row of cells line by line. The row moves whole to the next page when it fits
    /// there but not here; a row taller than a page continues on the next one, after `repeat`.
    pub(super) fn row(&mut self, cells: &[Cell], lh: f32, pad: f32, repeat: Repeat) {
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

    pub(super) fn paragraph(&mut self, s: &str) {
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
    pub(super) fn heading(&mut self, s: &str, min_after: f32) {
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
    pub(super) fn kv_block(&mut self, title: Option<&str>, rows: &[(&str, String)], after: f32) {
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

    pub(super) fn event_header(&mut self) {
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
}
