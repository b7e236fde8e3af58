//! The sections of the audit trail, in the order they are written: the title, the envelope,
//! the signers (each with their signature as it was stamped), the copies, the event table, the
//! documents' digests, and the footer of every page.

use std::collections::BTreeMap;

use printpdf::{
    Color, DictItem, ExternalStream, ExternalXObject, Op, Pt, Px, Rgb, XObjectId, XObjectTransform,
};

use super::fonts::{Style, face};
use super::layout::{
    BLACK, BODY, BODY_LH, CELL_PAD_X, CELL_PAD_Y, CONTENT_W, Cell, EVENT_COLS, EVENT_HEADER_H,
    FOOTER_BASELINE, FOOTER_RULE, GREY, LABEL_W, MARGIN_X, Repeat, TABLE, TABLE_LH, Writer,
};
use crate::model::SignerKind;
use crate::pdf::draw::{MAX_SIGNATURE_SIZE, fit_size};
use crate::pdf::fonts;
use crate::pdf::image::decode_png;
use crate::pdf::{AuditTrail, PdfError, StampValue, TEST_MODE_NOTICE};

/// Shown for a step that was not reached or a value that is absent.
const NOT_REACHED: &str = "—";

/// The box of a signer's signature, beside the value column.
const SIGNATURE_W: f32 = 200.0;
const SIGNATURE_H: f32 = 44.0;
/// The whole "Signature" row: the box, the space above it and the space below its line.
const SIGNATURE_ROW_H: f32 = SIGNATURE_H + 2.0 + BODY_LH / 2.0;
/// The stamper's signature ink.
const INK: (f32, f32, f32) = (0.05, 0.12, 0.45);

impl Writer {
    pub(super) fn title(&mut self, trail: &AuditTrail) {
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
        self.test_mode_notice(trail);
    }

    /// Under the title of a test envelope's trail, in bold red: it is evidence of nothing.
    fn test_mode_notice(&mut self, trail: &AuditTrail) {
        if trail.livemode {
            return;
        }
        self.y -= 6.0;
        let red = Color::Rgb(Rgb::new(0.75, 0.0, 0.0, None));
        let at = [MARGIN_X, self.y - 12.0];
        self.show(Style::Bold, 12.0, at, TEST_MODE_NOTICE, red, 0.0);
        self.y -= 16.0;
    }

    pub(super) fn envelope(&mut self, trail: &AuditTrail) {
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

    pub(super) fn signers(&mut self, trail: &AuditTrail) -> Result<(), PdfError> {
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
            rows.extend([("Role", or_dash(&s.role)), ("Signer ID", or_dash(&s.id))]);
            // Only for approvers and viewers (extensions E13): signers' trails are unchanged.
            let done = match s.kind {
                Some(SignerKind::Approver) => {
                    rows.push((
                        "Kind",
                        "Approver (approves or declines; fills no fields)".into(),
                    ));
                    "Approved"
                }
                Some(SignerKind::Viewer) => {
                    rows.push(("Kind", "Viewer (finishes by opening the document)".into()));
                    "Finished (viewed)"
                }
                _ => "Signed",
            };
            if let Some(host) = &s.hosted_by {
                rows.push(("In person", format!("hosted by {host}")));
            }
            rows.extend([
                ("IP address", opt(&s.ip_address)),
                ("User agent", opt(&s.user_agent)),
                ("Created", or_dash(&s.created_at)),
                ("Sent", opt(&s.sent_at)),
                ("Viewed", opt(&s.viewed_at)),
                (done, opt(&s.signed_at)),
                ("Declined", opt(&s.declined_at)),
                ("Completed", opt(&s.completed_at)),
            ]);
            rows.extend(s.reach.iter().map(|(k, v)| (k.as_str(), v.clone())));
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
            StampValue::Text(_) | StampValue::Checkbox(_) | StampValue::Attachment(_) => {}
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
        let (shown, replaced) = face(Style::Regular).displayable(text);
        self.replaced |= replaced;
        let ink = fonts::shaped_ink(&shown, fonts::Style::Script);
        let size = fit_size(&ink, f64::from(w), f64::from(h), MAX_SIGNATURE_SIZE);
        let left = x - (ink.left * size) as f32;
        let baseline = y + ((f64::from(h) - ink.height() * size) / 2.0 - ink.bottom * size) as f32;
        let (r, g, b) = INK;
        let col = Color::Rgb(Rgb::new(r, g, b, None));
        self.show(
            Style::Script,
            size as f32,
            [left, baseline],
            &shown,
            col,
            0.0,
        );
    }

    /// Carbon-copy recipients, when there are any: they sign nothing and receive the signed copy
    /// and this audit trail.
    pub(super) fn copies(&mut self, trail: &AuditTrail) {
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

    pub(super) fn events(&mut self, trail: &AuditTrail) {
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

    pub(super) fn integrity(&mut self, trail: &AuditTrail) {
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
        // The level each signed document's seal reached (extensions E10), against the target.
        let levels: Vec<(String, String)> = match &trail.seal_levels {
            Some(l) if l.documents.len() == 1 => vec![(
                "Seal level of the signed document".into(),
                level_against_target(&l.documents[0], &l.target),
            )],
            Some(l) => l
                .documents
                .iter()
                .enumerate()
                .map(|(i, level)| {
                    (
                        format!("Document {}: seal level", i + 1),
                        level_against_target(level, &l.target),
                    )
                })
                .collect(),
            None => Vec::new(),
        };
        rows.extend(levels.iter().map(|(label, value)| (label.clone(), value)));
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
        if trail.seal_levels.is_some() {
            self.paragraph(
                "Seal levels are those reached when this audit trail was made. A level below \
                 the target means that a part of the seal could not be had then (the timestamp \
                 authority could not be reached); the signature itself is complete.",
            );
        }
    }

    /// "Page N of M" and the envelope id at the foot of every page.
    pub(super) fn footers(&mut self, trail: &AuditTrail) {
        let total = self.pages.len();
        let regular = face(Style::Regular);
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
fn image_xobject(parts: crate::pdf::image::ImageStreams) -> ExternalXObject {
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

/// `PAdES B-T`, or `PAdES B-B (target: PAdES B-T)` when the level is below the target.
fn level_against_target(level: &str, target: &str) -> String {
    if level == target {
        level.to_string()
    } else {
        format!("{level} (target: {target})")
    }
}
