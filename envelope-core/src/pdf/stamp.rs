//! The signed copy: values drawn on pages (tags covered, explicit boxes filled), form fields given
//! values and appearances, the optional signature page and the optional mark across the top of
//! every page (test mode), all written as one incremental update.
//!
//! Only the pages, fields and page-tree root that change are read and rewritten. It must never
//! modify an original byte, and never leave `q`/`Q` unbalanced in what it adds: each stamped page
//! gets `[q-stream, original contents..., stamp-stream]` where the stamp stream starts with `Q`.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

use super::acroform::{self, FormField};
use super::discover;
use super::draw::{MAX_SIGNATURE_SIZE, Painter, Rect};
use super::filter::deflate;
use super::fonts::Style;
use super::image::decode_png;
use super::object::{Dict, ObjRef, Object, Stream, fmt_num, text_string};
use super::pages::{self, Geometry, Page};
use super::reader::Document;
use super::redact;
use super::room;
use super::seal::{self, PreparedSeal, SealSpec};
use super::text::Extractor;
use super::writer::Update;
use super::{FieldStamp, PageSize, PdfError, SignatureBlock, SignedBy, StampRequest, StampValue};
use crate::field::{FieldSource, FieldType};
use sha2::Sha256;

/// Produces `original ++ update`.
#[cfg_attr(not(feature = "internals"), allow(dead_code))] // tests, benches and examples
pub fn stamp(original: &[u8], request: &StampRequest) -> Result<Vec<u8>, PdfError> {
    let mut doc = Document::load(original)?;
    let pages = pages::pages(&mut doc, None)?;
    let mut up = Update::new(&doc);
    stamp_into(&mut doc, &pages, &mut up, request)?;
    Ok(up.write(&doc))
}

/// Produces the update alone: `original ++ update` is the signed copy.
pub fn stamp_update(original: &[u8], request: &StampRequest) -> Result<Vec<u8>, PdfError> {
    let mut doc = Document::load(original)?;
    let pages = pages::pages(&mut doc, None)?;
    let mut up = Update::new(&doc);
    stamp_into(&mut doc, &pages, &mut up, request)?;
    Ok(up.write_update(&doc))
}

/// Produces the update that also holds the seal's field and its signature dictionary with
/// placeholders (the seal is created in the same revision as the stamps), and hashes `original`
/// unless `hashed` (a SHA-256 that has consumed exactly `original`) is given.
pub fn stamp_for_seal(
    original: &[u8],
    hashed: Option<Sha256>,
    request: &StampRequest,
    spec: &SealSpec,
) -> Result<PreparedSeal, PdfError> {
    seal::beside_the_hash(original, hashed, || {
        let mut doc = Document::load(original)?;
        let pages = pages::pages(&mut doc, None)?;
        let mut up = Update::new(&doc);
        stamp_into(&mut doc, &pages, &mut up, request)?;
        seal::prepare(&mut doc, &pages, up, spec)
    })
}

/// Queues every change of the signed copy into `up`.
fn stamp_into(
    doc: &mut Document<'_>,
    pages: &[Page],
    up: &mut Update,
    request: &StampRequest,
) -> Result<(), PdfError> {
    let shared_res = up.add(Object::Null); // filled in once the fonts and images are known
    let mut painter = Painter::default();
    let mut page_ops: BTreeMap<usize, String> = BTreeMap::new();
    let mut tag_pages: BTreeSet<usize> = BTreeSet::new();
    let mut form: Option<Vec<FormField>> = None;
    // The text of each page that has a tag's signature to draw (where it may grow), kept for
    // cutting the tags out of it after.
    let mut text_on: BTreeMap<usize, (Vec<Rect>, Option<PageText>)> = BTreeMap::new();
    // Signers' files (extensions E14), embedded once the pages are stamped.
    let embedded: Vec<&super::EmbeddedFile> = request
        .fields
        .iter()
        .filter_map(|fs| match &fs.value {
            Some(StampValue::Attachment(f)) => Some(f),
            _ => None,
        })
        .collect();

    for fs in &request.fields {
        let f = &fs.field.field;
        let index = (f.page as usize)
            .checked_sub(1)
            .filter(|&i| i < pages.len())
            .ok_or_else(|| PdfError::InvalidValue {
                key: f.key.clone(),
                reason: format!("page {} does not exist", f.page),
            })?;
        let page = &pages[index];
        let size = page.geometry.size();
        let r = Rect {
            x: f.x,
            y: size.height - f.y - f.height,
            w: f.width,
            h: f.height,
        };
        match &fs.field.source {
            FieldSource::Form { name } => {
                let Some(value) = &fs.value else { continue };
                if form.is_none() {
                    form = Some(acroform::form_fields(doc, pages)?);
                }
                let field = form
                    .as_ref()
                    .and_then(|all| all.iter().find(|ff| &ff.name == name))
                    .ok_or_else(|| PdfError::InvalidValue {
                        key: f.key.clone(),
                        reason: format!("the document has no form field named \"{name}\""),
                    })?;
                fill_form_field(doc, up, &mut painter, field, fs, value, pages, shared_res)?;
            }
            source => {
                let ops = page_ops.entry(index).or_default();
                if *source == FieldSource::Tag {
                    Painter::cover(ops, r);
                    tag_pages.insert(index);
                }
                if let Some(v) = &fs.value {
                    let by = fs.signed_by.as_ref();
                    let marked = matches!(f.kind, FieldType::Signature | FieldType::Initials);
                    let r = if *source == FieldSource::Tag && marked {
                        let text = match text_on.entry(index) {
                            Entry::Occupied(e) => e.into_mut(),
                            Entry::Vacant(e) => {
                                let read = PageText::read(doc, page)?;
                                e.insert((read.boxes(page), Some(read)))
                            }
                        };
                        room::signature_room(r, &text.0, size.height)
                    } else {
                        r
                    };
                    let ops = page_ops.entry(index).or_default();
                    draw_value(up, &mut painter, ops, &f.key, f.kind, v, r, by)?;
                }
            }
        }
    }

    // The mark goes over everything else on every page, so no value can hide it.
    if let Some(mark) = &request.page_mark {
        for (index, page) in pages.iter().enumerate() {
            let ops = page_ops.entry(index).or_default();
            painter.mark(ops, mark, page.geometry.size());
        }
    }

    let signature_page = match &request.signature_page {
        Some(blocks) => {
            let last = pages.last().map(|p| p.geometry.size()).unwrap_or(PageSize {
                width: 612.0,
                height: 792.0,
            });
            let mut ops = signature_page_ops(up, &mut painter, blocks, last)?;
            if let Some(mark) = &request.page_mark {
                painter.mark(&mut ops, mark, last);
            }
            Some((last, ops))
        }
        None => None,
    };

    // Resources shared by appearance streams and the signature page.
    let font_entries = painter.fonts.finish(up)?;
    let image_entries: Vec<(Vec<u8>, Object)> = painter
        .images
        .iter()
        .map(|(n, r)| (n.as_bytes().to_vec(), Object::Ref(*r)))
        .collect();
    let mut res = Dict::new();
    res.set(b"Font", Dict::from_pairs(font_entries.clone()));
    if !image_entries.is_empty() {
        res.set(b"XObject", Dict::from_pairs(image_entries.clone()));
    }
    up.replace(shared_res, Object::Dict(res));

    if !page_ops.is_empty() {
        let q = up.add(stream(b"q\n".to_vec()));
        for (index, ops) in page_ops {
            let page = &pages[index];
            let content = format!(
                "Q\nq\n{} cm\n{ops}Q\n",
                matrix(&page.geometry.display_matrix())
            );
            let content = up.add(stream(content.into_bytes()));
            let mut dict = page.dict.clone();
            let mut contents = vec![Object::Ref(q)];
            if tag_pages.contains(&index) {
                // Cut the tag text itself, so extraction of the signed copy finds no `{{`.
                let without = match text_on.get_mut(&index).and_then(|t| t.1.take()) {
                    Some(read) => read.without_tags(),
                    None => PageText::read(doc, page)?.without_tags(),
                };
                contents.push(Object::Ref(up.add(Object::Stream(Stream {
                    dict: Dict::new().with(b"Filter", Object::name(b"FlateDecode")),
                    data: deflate(&without),
                }))));
            } else {
                match dict.get(b"Contents").cloned() {
                    Some(Object::Array(a)) => contents.extend(a),
                    Some(r @ Object::Ref(_)) => match doc.resolve(&r)? {
                        Object::Array(a) => contents.extend(a),
                        _ => contents.push(r),
                    },
                    _ => {}
                }
            }
            contents.push(Object::Ref(content));
            dict.set(b"Contents", Object::Array(contents));
            let merged = merge_resources(doc, page, &font_entries, &image_entries)?;
            dict.set(b"Resources", merged);
            up.replace(page.id, Object::Dict(dict));
        }
    }

    if let Some((size, ops)) = signature_page {
        append_page(doc, up, pages, size, ops, shared_res)?;
    }
    super::embed::embed_files(doc, up, &embedded)?;
    Ok(())
}

/// A page's text read once: for where a tag's signature may grow ([`PageText::boxes`]) and for
/// cutting the tags out of its content ([`PageText::without_tags`]).
struct PageText {
    content: Vec<u8>,
    shows: Vec<super::text::ShowOp>,
    glyphs: Vec<super::text::Glyph>,
    /// For each glyph: part of a tag.
    in_tag: Vec<bool>,
}

impl PageText {
    fn read(doc: &mut Document<'_>, page: &Page) -> Result<PageText, PdfError> {
        let content = super::page_content(doc, page)?;
        let mut ex = Extractor::new(doc);
        ex.run(&content, page.resources.as_deref())?;
        let mut in_tag = vec![false; ex.glyphs.len()];
        for tag in discover::find_tags(&ex.glyphs) {
            for flag in in_tag.iter_mut().take(tag.glyphs.1 + 1).skip(tag.glyphs.0) {
                *flag = true;
            }
        }
        Ok(PageText {
            shows: std::mem::take(&mut ex.shows),
            glyphs: std::mem::take(&mut ex.glyphs),
            content,
            in_tag,
        })
    }

    /// Boxes of the page's visible text, tags left out (they are painted over), in display
    /// space with the origin at the bottom left, like the boxes values are drawn in.
    fn boxes(&self, page: &Page) -> Vec<Rect> {
        let height = page.geometry.size().height;
        self.glyphs
            .iter()
            .zip(&self.in_tag)
            .filter(|(g, tag)| !**tag && !g.text.trim().is_empty())
            .map(|(g, _)| {
                let (x, y, w, h) = super::geometry_box(&page.geometry, g.rect);
                Rect {
                    x,
                    y: height - y - h,
                    w,
                    h,
                }
            })
            .collect()
    }

    /// The page's content with every tag's glyphs removed (positions of other text unchanged).
    fn without_tags(&self) -> Vec<u8> {
        redact::remove_glyphs(&self.content, &self.shows, &self.glyphs, &self.in_tag)
    }
}

fn stream(data: Vec<u8>) -> Object {
    Object::Stream(Stream {
        dict: Dict::new(),
        data,
    })
}

fn matrix(m: &[f64; 6]) -> String {
    m.iter().map(|v| fmt_num(*v)).collect::<Vec<_>>().join(" ")
}

/// Draws `v` for a field of `kind` in `r`; a signature with `by` inside its "Signed by" frame
/// when `r` is large enough for one.
#[allow(clippy::too_many_arguments)]
fn draw_value(
    up: &mut Update,
    painter: &mut Painter,
    ops: &mut String,
    key: &str,
    kind: FieldType,
    v: &StampValue,
    r: Rect,
    by: Option<&SignedBy>,
) -> Result<(), PdfError> {
    let framed = |painter: &mut Painter, ops: &mut String| match by {
        Some(by) if kind == FieldType::Signature => painter.frame(ops, r, by).unwrap_or(r),
        _ => r,
    };
    match v {
        StampValue::Typed(s) => {
            let inner = framed(painter, ops);
            painter.signature(ops, s, inner, MAX_SIGNATURE_SIZE)
        }
        StampValue::Text(s) => painter.text(
            ops,
            s,
            Style::Regular,
            r,
            if matches!(
                kind,
                FieldType::Text
                    | FieldType::Date
                    | FieldType::Radio
                    | FieldType::Select
                    | FieldType::Number
                    | FieldType::Attachment
            ) {
                12.0
            } else {
                20.0
            },
        ),
        StampValue::Drawn(png) => {
            let decoded = decode_png(png).map_err(|reason| PdfError::InvalidValue {
                key: key.to_string(),
                reason,
            })?;
            let inner = framed(painter, ops);
            painter.image(up, ops, png, &decoded, inner);
        }
        StampValue::Checkbox(true) => Painter::check(ops, r),
        StampValue::Checkbox(false) => {}
        // The file itself is embedded (`embed.rs`); the box shows its name.
        StampValue::Attachment(f) => painter.text(ops, &f.file_name, Style::Regular, r, 12.0),
    }
    Ok(())
}

/// `page`'s resources (inherited ones included) with the update's fonts and images added.
fn merge_resources(
    doc: &mut Document<'_>,
    page: &Page,
    fonts: &[(Vec<u8>, Object)],
    images: &[(Vec<u8>, Object)],
) -> Result<Object, PdfError> {
    let mut res = doc.dict(page.resources.as_deref())?.unwrap_or_default();
    for (key, entries) in [(&b"Font"[..], fonts), (b"XObject", images)] {
        if entries.is_empty() {
            continue;
        }
        let mut d = doc.dict(res.get(key))?.unwrap_or_default();
        for (k, v) in entries {
            d.set(k, v.clone());
        }
        res.set(key, Object::Dict(d));
    }
    Ok(Object::Dict(res))
}

/// The current version of `r` (queued replacement first).
fn current(doc: &mut Document<'_>, up: &Update, r: ObjRef) -> Result<Dict, PdfError> {
    up.current(doc, r)
}

#[allow(clippy::too_many_arguments)]
fn fill_form_field(
    doc: &mut Document<'_>,
    up: &mut Update,
    painter: &mut Painter,
    field: &FormField,
    fs: &FieldStamp,
    value: &StampValue,
    pages: &[Page],
    shared_res: ObjRef,
) -> Result<(), PdfError> {
    let key = fs.field.field.key.as_str();
    // A form field holds text: a file's name (the file itself is embedded).
    let named;
    let value = match value {
        StampValue::Attachment(f) => {
            named = StampValue::Text(f.file_name.clone());
            &named
        }
        v => v,
    };
    let mut fdict = current(doc, up, field.id)?;
    let flags = fdict
        .get(b"Ff")
        .and_then(Object::as_i64)
        .unwrap_or(field.flags);
    let checked = match value {
        StampValue::Checkbox(b) => *b,
        StampValue::Text(s) | StampValue::Typed(s) => {
            !matches!(s.trim(), "" | "false" | "no" | "0" | "Off")
        }
        StampValue::Drawn(_) | StampValue::Attachment(_) => true,
    };
    let kind = field.kind();
    // A radio group's value is the chosen button's on state (a name).
    let radio_state = match (kind, value) {
        (Some(FieldType::Radio), StampValue::Text(s)) => Some(
            field
                .widgets
                .iter()
                .find_map(|w| w.on.clone().filter(|on| on == s.as_bytes()))
                .ok_or_else(|| PdfError::InvalidValue {
                    key: key.to_string(),
                    reason: format!("the radio group has no button named {s}"),
                })?,
        ),
        _ => None,
    };
    match (kind, value) {
        (Some(FieldType::Checkbox), _) => {}
        (Some(FieldType::Signature), _) => {}
        (Some(FieldType::Radio), _) => {}
        (Some(FieldType::Select), StampValue::Text(s)) => {
            fdict.set(b"V", Object::Str(text_string(s)));
            if let Some(i) = option_index(doc, &fdict, s)? {
                fdict.set(b"I", Object::Array(vec![Object::Int(i as i64)]));
            }
        }
        (_, StampValue::Text(s) | StampValue::Typed(s)) => {
            fdict.set(b"V", Object::Str(text_string(s)))
        }
        (_, StampValue::Checkbox(b)) => fdict.set(
            b"V",
            Object::Str(text_string(if *b { "Yes" } else { "No" })),
        ),
        (_, StampValue::Drawn(_) | StampValue::Attachment(_)) => {}
    }
    fdict.set(b"Ff", Object::Int(flags | 1)); // read-only once signed
    let mut widget_dicts: Vec<(ObjRef, Dict)> = Vec::new();
    let mut on_state: Option<Vec<u8>> = None;
    for w in &field.widgets {
        let mut wd = if w.id == field.id {
            fdict.clone()
        } else {
            current(doc, up, w.id)?
        };
        let geometry = w
            .page
            .and_then(|i| pages.get(i))
            .map(|p| p.geometry)
            .unwrap_or(Geometry {
                x0: 0.0,
                y0: 0.0,
                x1: 1.0,
                y1: 1.0,
                rotate: 0,
            });
        let (dw, dh) = if geometry.rotate % 180 == 0 {
            (w.rect[2] - w.rect[0], w.rect[3] - w.rect[1])
        } else {
            (w.rect[3] - w.rect[1], w.rect[2] - w.rect[0])
        };
        let area = Rect {
            x: 0.0,
            y: 0.0,
            w: dw,
            h: dh,
        };
        let m = geometry.display_matrix();
        let form_dict = |bbox_w: f64, bbox_h: f64| {
            Dict::new()
                .with(b"Type", Object::name(b"XObject"))
                .with(b"Subtype", Object::name(b"Form"))
                .with(
                    b"BBox",
                    Object::Array(vec![
                        Object::Int(0),
                        Object::Int(0),
                        Object::Real(bbox_w),
                        Object::Real(bbox_h),
                    ]),
                )
                .with(
                    b"Matrix",
                    Object::Array(
                        [m[0], m[1], m[2], m[3], 0.0, 0.0]
                            .iter()
                            .map(|v| Object::Real(*v))
                            .collect(),
                    ),
                )
                .with(b"Resources", Object::Ref(shared_res))
        };
        if kind == Some(FieldType::Checkbox) {
            let existing = doc
                .dict(wd.get(b"AP"))?
                .and_then(|ap| ap.get(b"N").cloned());
            let existing = doc.dict(existing.as_ref())?;
            let on = existing
                .as_ref()
                .and_then(|n| n.iter().map(|(k, _)| k.to_vec()).find(|k| k != b"Off"))
                .unwrap_or_else(|| b"Yes".to_vec());
            if existing.is_none() {
                let mut ops = String::new();
                Painter::check(&mut ops, area);
                let on_ap = up.add(Object::Stream(Stream {
                    dict: form_dict(dw, dh),
                    data: ops.into_bytes(),
                }));
                let off_ap = up.add(Object::Stream(Stream {
                    dict: form_dict(dw, dh),
                    data: Vec::new(),
                }));
                wd.set(
                    b"AP",
                    Dict::new().with(
                        b"N",
                        Dict::from_pairs(vec![
                            (on.clone(), Object::Ref(on_ap)),
                            (b"Off".to_vec(), Object::Ref(off_ap)),
                        ]),
                    ),
                );
            }
            wd.set(
                b"AS",
                Object::Name(if checked { on.clone() } else { b"Off".to_vec() }),
            );
            on_state.get_or_insert(on);
        } else if kind == Some(FieldType::Radio) {
            // Each button keeps its own appearances; only the chosen one is on.
            let on = w.on.as_ref().filter(|on| Some(*on) == radio_state.as_ref());
            wd.set(
                b"AS",
                Object::Name(on.cloned().unwrap_or_else(|| b"Off".to_vec())),
            );
        } else {
            let mut ops = String::new();
            let inner = Rect {
                x: 1.0,
                y: 1.0,
                w: (dw - 2.0).max(1.0),
                h: (dh - 2.0).max(1.0),
            };
            draw_value(
                up,
                painter,
                &mut ops,
                key,
                kind.unwrap_or(FieldType::Text),
                value,
                inner,
                fs.signed_by.as_ref(),
            )?;
            let ap = up.add(Object::Stream(Stream {
                dict: form_dict(dw, dh),
                data: ops.into_bytes(),
            }));
            wd.set(b"AP", Dict::new().with(b"N", Object::Ref(ap)));
        }
        if w.id == field.id {
            fdict = wd;
        } else {
            widget_dicts.push((w.id, wd));
        }
    }
    if kind == Some(FieldType::Checkbox) {
        let on = on_state.unwrap_or_else(|| b"Yes".to_vec());
        fdict.set(
            b"V",
            Object::Name(if checked { on } else { b"Off".to_vec() }),
        );
    }
    if let Some(state) = radio_state {
        fdict.set(b"V", Object::Name(state));
    }
    up.replace(field.id, Object::Dict(fdict));
    for (id, d) in widget_dicts {
        up.replace(id, Object::Dict(d));
    }
    Ok(())
}

/// The index in a choice field's `/Opt` of the first entry whose export value is `value` (for
/// `/I`). One pass over the entries, read in place.
fn option_index(
    doc: &mut Document<'_>,
    fdict: &Dict,
    value: &str,
) -> Result<Option<usize>, PdfError> {
    let Some(opt) = fdict.get(b"Opt") else {
        return Ok(None);
    };
    let opt = doc.resolve(opt)?;
    Ok(opt.as_array().unwrap_or(&[]).iter().position(|o| {
        let s = match o {
            Object::Array(pair) => pair.first().and_then(Object::as_str),
            other => other.as_str(),
        };
        s.is_some_and(|s| super::object::decode_text_string(s) == value)
    }))
}

/// The content of the signature page: a title and one block per signer.
fn signature_page_ops(
    up: &mut Update,
    painter: &mut Painter,
    blocks: &[SignatureBlock],
    size: PageSize,
) -> Result<String, PdfError> {
    let mut ops = String::new();
    let margin = 50.0_f64.min(size.width / 10.0);
    let top = size.height - margin;
    painter.text(
        &mut ops,
        "Signatures",
        Style::Bold,
        Rect {
            x: margin,
            y: top - 24.0,
            w: size.width - 2.0 * margin,
            h: 24.0,
        },
        18.0,
    );
    let n = blocks.len().max(1) as f64;
    let block_h = ((top - 40.0 - margin) / n).min(140.0);
    let width = size.width - 2.0 * margin;
    for (i, b) in blocks.iter().enumerate() {
        let y0 = top - 40.0 - block_h * (i as f64 + 1.0);
        let line = |k: f64| block_h * k;
        painter.text(
            &mut ops,
            &b.role,
            Style::Bold,
            Rect {
                x: margin,
                y: y0 + line(0.82),
                w: width,
                h: line(0.14),
            },
            12.0,
        );
        let sig = Rect {
            x: margin,
            y: y0 + line(0.42),
            w: (width * 0.5).min(260.0),
            h: line(0.38),
        };
        draw_value(
            up,
            painter,
            &mut ops,
            &b.role,
            FieldType::Signature,
            &b.signature,
            sig,
            None,
        )?;
        Painter::line(&mut ops, margin, y0 + line(0.4), margin + sig.w);
        painter.text(
            &mut ops,
            &b.name,
            Style::Regular,
            Rect {
                x: margin,
                y: y0 + line(0.26),
                w: width,
                h: line(0.13),
            },
            11.0,
        );
        painter.text(
            &mut ops,
            &b.email,
            Style::Regular,
            Rect {
                x: margin,
                y: y0 + line(0.13),
                w: width,
                h: line(0.12),
            },
            10.0,
        );
        painter.text(
            &mut ops,
            &format!("Signed {}", b.signed_at),
            Style::Regular,
            Rect {
                x: margin,
                y: y0,
                w: width,
                h: line(0.12),
            },
            10.0,
        );
    }
    Ok(ops)
}

/// Adds the signature page at the end of the root page tree node.
fn append_page(
    doc: &mut Document<'_>,
    up: &mut Update,
    pages: &[Page],
    size: PageSize,
    ops: String,
    res: ObjRef,
) -> Result<(), PdfError> {
    let catalog = doc.catalog()?;
    let root_ref = catalog
        .get(b"Pages")
        .and_then(Object::as_ref)
        .ok_or_else(|| PdfError::Invalid("the page tree root is not an indirect object".into()))?;
    let mut root = current(doc, up, root_ref)?;
    let content = up.add(stream(ops.into_bytes()));
    let page = Dict::new()
        .with(b"Type", Object::name(b"Page"))
        .with(b"Parent", root_ref)
        .with(
            b"MediaBox",
            Object::Array(vec![
                Object::Int(0),
                Object::Int(0),
                Object::Real(size.width),
                Object::Real(size.height),
            ]),
        )
        .with(b"Rotate", 0i64)
        .with(b"Resources", res)
        .with(b"Contents", content);
    let page = up.add(page.into());
    let mut kids = match root.get(b"Kids") {
        Some(k) => doc
            .resolve(k)?
            .as_array()
            .map(<[Object]>::to_vec)
            .unwrap_or_default(),
        None => Vec::new(),
    };
    kids.push(Object::Ref(page));
    root.set(b"Kids", Object::Array(kids));
    root.set(b"Count", Object::Int(pages.len() as i64 + 1));
    up.replace(root_ref, Object::Dict(root));
    Ok(())
}
