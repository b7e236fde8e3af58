//! AcroForm fields: the walk of `/AcroForm /Fields` (fully qualified names, inherited `/FT` and
//! `/Ff`, widgets and their pages) and the naming rules that turn them into fields.
//!
//! Reads only; the stamper writes values. Bounded against loops and deep `/Kids` chains.

use std::collections::{HashMap, HashSet};

use super::PdfError;
use super::geometry_box;
use super::object::{Dict, ObjRef, Object, decode_text_string};
use super::pages::Page;
use super::reader::Document;
use crate::field::{Field, FieldSource, FieldType, PlacedField, SENDER};

const MAX_DEPTH: usize = 32;
const MAX_FIELDS: usize = 10_000;

/// A terminal form field.
#[derive(Debug, Clone)]
pub struct FormField {
    pub name: String,
    pub id: ObjRef,
    /// `/FT` (inherited): `Tx`, `Btn`, `Ch`, `Sig`.
    pub ft: Vec<u8>,
    pub flags: i64,
    pub widgets: Vec<Widget>,
}

/// One widget annotation of a field.
#[derive(Debug, Clone)]
pub struct Widget {
    pub id: ObjRef,
    pub rect: [f64; 4],
    /// Index into the page list.
    pub page: Option<usize>,
}

impl FormField {
    /// The field type, or `None` for kinds the engine does not fill (radio groups, push buttons,
    /// choice lists).
    pub fn kind(&self) -> Option<FieldType> {
        match self.ft.as_slice() {
            b"Tx" => Some(FieldType::Text),
            b"Sig" => Some(FieldType::Signature),
            b"Btn" if self.flags & (1 << 15 | 1 << 16) == 0 => Some(FieldType::Checkbox),
            _ => None,
        }
    }
}

/// All terminal fields of the document's AcroForm (empty when there is none).
pub fn form_fields(doc: &mut Document<'_>, pages: &[Page]) -> Result<Vec<FormField>, PdfError> {
    let catalog = doc.catalog()?;
    let Some(form) = doc.dict(catalog.get(b"AcroForm"))? else {
        return Ok(Vec::new());
    };
    let roots = match form.get(b"Fields") {
        Some(f) => doc
            .resolve(f)?
            .as_array()
            .map(<[Object]>::to_vec)
            .unwrap_or_default(),
        None => return Ok(Vec::new()),
    };
    let mut page_of: HashMap<ObjRef, usize> = HashMap::new();
    let mut by_page: HashMap<ObjRef, usize> = HashMap::new();
    for (i, p) in pages.iter().enumerate() {
        by_page.insert(p.id, i);
        if let Some(a) = p.dict.get(b"Annots") {
            for annot in doc.resolve(a)?.as_array().unwrap_or(&[]) {
                if let Some(r) = annot.as_ref() {
                    page_of.insert(r, i);
                }
            }
        }
    }
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut stack: Vec<(Object, String, Vec<u8>, i64, usize)> = roots
        .into_iter()
        .rev()
        .map(|o| (o, String::new(), Vec::new(), 0, 0))
        .collect();
    while let Some((node, parent_name, ft, ff, depth)) = stack.pop() {
        let Some(id) = node.as_ref() else { continue };
        if depth > MAX_DEPTH || out.len() > MAX_FIELDS || !seen.insert(id) {
            continue;
        }
        let Some(d) = doc.dict(Some(&node))? else {
            continue;
        };
        let part = d.get(b"T").and_then(Object::as_str).map(decode_text_string);
        let name = match (&part, parent_name.is_empty()) {
            (Some(p), true) => p.clone(),
            (Some(p), false) => format!("{parent_name}.{p}"),
            (None, _) => parent_name.clone(),
        };
        let ft = d.name(b"FT").map(<[u8]>::to_vec).unwrap_or(ft);
        let ff = d.get(b"Ff").and_then(Object::as_i64).unwrap_or(ff);
        let kids = match d.get(b"Kids") {
            Some(k) => doc
                .resolve(k)?
                .as_array()
                .map(<[Object]>::to_vec)
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let mut child_fields = Vec::new();
        let mut widgets = Vec::new();
        for k in kids {
            let Some(kd) = doc.dict(Some(&k))? else {
                continue;
            };
            if kd.get(b"T").is_some() || kd.get(b"FT").is_some() && kd.get(b"Rect").is_none() {
                child_fields.push(k);
            } else if let Some(r) = k.as_ref() {
                widgets.push(widget(doc, r, &kd, &page_of, &by_page)?);
            }
        }
        if d.get(b"Rect").is_some() {
            widgets.insert(0, widget(doc, id, &d, &page_of, &by_page)?);
        }
        for k in child_fields.into_iter().rev() {
            stack.push((k, name.clone(), ft.clone(), ff, depth + 1));
        }
        if !widgets.is_empty() && !name.is_empty() {
            out.push(FormField {
                name,
                id,
                ft,
                flags: ff,
                widgets,
            });
        }
    }
    Ok(out)
}

fn widget(
    doc: &mut Document<'_>,
    id: ObjRef,
    d: &Dict,
    page_of: &HashMap<ObjRef, usize>,
    by_page: &HashMap<ObjRef, usize>,
) -> Result<Widget, PdfError> {
    let rect = match d.get(b"Rect") {
        Some(r) => {
            let a = doc.resolve(r)?;
            let v: Vec<f64> = a
                .as_array()
                .unwrap_or(&[])
                .iter()
                .filter_map(Object::as_f64)
                .collect();
            if v.len() == 4 {
                [
                    v[0].min(v[2]),
                    v[1].min(v[3]),
                    v[0].max(v[2]),
                    v[1].max(v[3]),
                ]
            } else {
                [0.0; 4]
            }
        }
        None => [0.0; 4],
    };
    let page = page_of.get(&id).copied().or_else(|| {
        d.get(b"P")
            .and_then(Object::as_ref)
            .and_then(|p| by_page.get(&p).copied())
    });
    Ok(Widget { id, rect, page })
}

/// The field a form field makes, from its first widget that is on a page (key not yet unique).
pub fn form_field(f: &FormField, pages: &[Page]) -> Option<PlacedField> {
    let kind = f.kind()?;
    let w = f.widgets.iter().find(|w| w.page.is_some())?;
    let page_index = w.page?;
    let page = pages.get(page_index)?;
    let (x, y, width, height) = geometry_box(&page.geometry, w.rect);
    let (role, key, required) = match f.name.split_once('.') {
        Some((role, key)) if !role.is_empty() && !key.is_empty() => (
            Some(role.to_string()),
            key.to_string(),
            kind == FieldType::Signature || f.flags & 2 != 0,
        ),
        _ if kind == FieldType::Signature => {
            (Some(f.name.clone()), format!("{}_signature", f.name), true)
        }
        _ => (None, f.name.clone(), false),
    };
    let filled_by = role.clone().unwrap_or_else(|| SENDER.to_string());
    Some(PlacedField {
        field: Field {
            key,
            kind,
            role,
            filled_by,
            required,
            page: page_index as u32 + 1,
            x,
            y,
            width,
            height,
            document: 1,
        },
        source: FieldSource::Form {
            name: f.name.clone(),
        },
    })
}
