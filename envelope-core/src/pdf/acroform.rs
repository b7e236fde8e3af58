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
use crate::field::{Field, FieldSource, FieldType, MAX_OPTIONS, PlacedField, SENDER};

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
    /// The choices of a radio group (its buttons' on-state names, in order) or a choice field
    /// (its `/Opt` export values), repeats dropped; `None` for other kinds, and for a group or
    /// choice field whose options break the rules of [`check_options`](super::check_options).
    pub options: Option<Vec<String>>,
}

/// One widget annotation of a field.
#[derive(Debug, Clone)]
pub struct Widget {
    pub id: ObjRef,
    pub rect: [f64; 4],
    /// Index into the page list.
    pub page: Option<usize>,
    /// A button's on state: the name in its `/AP /N` other than `/Off` (buttons only).
    pub on: Option<Vec<u8>>,
}

/// Field flag of a button that is a radio group (bit 16).
const RADIO: i64 = 1 << 15;
/// Field flag of a push button (bit 17).
const PUSH_BUTTON: i64 = 1 << 16;

impl FormField {
    /// The field type, or `None` for kinds the engine does not fill (push buttons, unknown
    /// types). Radio groups are `radio`, choice fields (combo boxes and lists) `select`.
    pub fn kind(&self) -> Option<FieldType> {
        match self.ft.as_slice() {
            b"Tx" => Some(FieldType::Text),
            b"Sig" => Some(FieldType::Signature),
            b"Btn" if self.flags & PUSH_BUTTON != 0 => None,
            b"Btn" if self.flags & RADIO != 0 => Some(FieldType::Radio),
            b"Btn" => Some(FieldType::Checkbox),
            b"Ch" => Some(FieldType::Select),
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
        let button = ft == b"Btn";
        let mut child_fields = Vec::new();
        let mut widgets = Vec::new();
        for k in kids {
            let Some(kd) = doc.dict(Some(&k))? else {
                continue;
            };
            if kd.get(b"T").is_some() || kd.get(b"FT").is_some() && kd.get(b"Rect").is_none() {
                child_fields.push(k);
            } else if let Some(r) = k.as_ref() {
                widgets.push(widget(doc, r, &kd, &page_of, &by_page, button)?);
            }
        }
        if d.get(b"Rect").is_some() {
            widgets.insert(0, widget(doc, id, &d, &page_of, &by_page, button)?);
        }
        for k in child_fields.into_iter().rev() {
            stack.push((k, name.clone(), ft.clone(), ff, depth + 1));
        }
        if !widgets.is_empty() && !name.is_empty() {
            let options = match ft.as_slice() {
                b"Btn" if ff & (RADIO | PUSH_BUTTON) == RADIO => radio_options(&widgets),
                b"Ch" => match d.get(b"Opt") {
                    Some(o) => {
                        let o = doc.resolve(o)?;
                        choice_options(o.as_array().unwrap_or(&[]))
                    }
                    None => None,
                },
                _ => None,
            };
            out.push(FormField {
                name,
                id,
                ft,
                flags: ff,
                widgets,
                options,
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
    button: bool,
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
    let on = if button {
        let normal = doc.dict(d.get(b"AP"))?.and_then(|ap| ap.get(b"N").cloned());
        doc.dict(normal.as_ref())?
            .and_then(|n| n.iter().map(|(k, _)| k.to_vec()).find(|k| k != b"Off"))
    } else {
        None
    };
    Ok(Widget { id, rect, page, on })
}

/// Collects options in one pass: repeats dropped, `None` at the first option that breaks
/// [`check_option`](super::check_option) or once more than [`MAX_OPTIONS`] distinct ones are seen (so a list of
/// any length costs at most one look at each entry).
fn collect_options(values: impl Iterator<Item = Option<String>>) -> Option<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for v in values {
        let v = v?;
        if seen.contains(&v) {
            continue;
        }
        super::check_option(&v).ok()?;
        if out.len() == MAX_OPTIONS {
            return None;
        }
        seen.insert(v.clone());
        out.push(v);
    }
    super::check_options(&out).ok()?;
    Some(out)
}

/// A radio group's options: its buttons' on states in order (buttons that share a state are one
/// option). A button without an on state, or a state name that is not UTF-8, makes the group
/// unusable (`None`).
fn radio_options(widgets: &[Widget]) -> Option<Vec<String>> {
    collect_options(
        widgets
            .iter()
            .map(|w| w.on.clone().and_then(|n| String::from_utf8(n).ok())),
    )
}

/// A choice field's options: the export value of each `/Opt` entry (a text string, or the first
/// of an `[export display]` pair). Entries that are neither are skipped; entries are read in
/// place, never resolved, so each costs a constant.
fn choice_options(opt: &[Object]) -> Option<Vec<String>> {
    let export = |o: &Object| -> Option<Option<String>> {
        let s = match o {
            Object::Array(pair) => pair.first()?.as_str()?,
            other => other.as_str()?,
        };
        Some(Some(decode_text_string(s)))
    };
    collect_options(opt.iter().filter_map(export))
}

/// The field a form field makes, from its first widget that is on a page (key not yet unique).
/// A radio group or choice field without usable options makes none.
pub fn form_field(f: &FormField, pages: &[Page]) -> Option<PlacedField> {
    let kind = f.kind()?;
    if kind.has_options() && f.options.is_none() {
        return None;
    }
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
            options: if kind.has_options() {
                f.options.clone()
            } else {
                None
            },
            label: None,
            condition: None,
            formula: None,
        },
        source: FieldSource::Form {
            name: f.name.clone(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::super::testpdf::{Builder, Layout, PageSpec, document, helv_text};
    use super::super::{FieldStamp, PdfLimits, StampRequest, StampValue, inspect, stamp};
    use super::*;

    /// A radio group (basic/pro/enterprise), a combo box with a pair in `/Opt`, a choice field
    /// with 100,000 junk entries and 501 distinct values, and a push button.
    fn choices_pdf() -> Vec<u8> {
        let mut b = Builder::new();
        let on = b.stream(
            "/Type /XObject /Subtype /Form /BBox [0 0 12 12]",
            b"0 0 12 12 re f",
        );
        let off = b.stream("/Type /XObject /Subtype /Form /BBox [0 0 12 12]", b"");
        let group = b.reserve();
        let kids: Vec<u32> = ["basic", "pro", "enterprise"]
            .iter()
            .enumerate()
            .map(|(i, state)| {
                let x = 72 + 40 * i;
                b.add(format!(
                    "<</Parent {group} 0 R /Type /Annot /Subtype /Widget /Rect [{x} 700 {} 712] /AP <</N <</{state} {on} 0 R /Off {off} 0 R>>>> /AS /Off>>",
                    x + 12
                ))
            })
            .collect();
        let kid_refs: String = kids.iter().map(|k| format!("{k} 0 R ")).collect();
        b.set(
            group,
            format!("<</FT /Btn /Ff 49152 /T (Client.plan) /Kids [{kid_refs}] /V /Off>>"),
        );
        let color = b.add(
            "<</FT /Ch /Ff 131072 /T (Client.color) /Opt [(r) [(g) (Green)] (b) (r)] /Type /Annot /Subtype /Widget /Rect [72 600 172 620]>>",
        );
        let mut junk = String::new();
        for i in 0..100_000 {
            junk.push_str(if i % 2 == 0 {
                "(same) "
            } else {
                "[(same) (Same)] "
            });
        }
        for i in 0..=MAX_OPTIONS {
            junk.push_str(&format!("(v{i}) "));
        }
        let flood = b.add(format!(
            "<</FT /Ch /T (Client.flood) /Opt [{junk}] /Type /Annot /Subtype /Widget /Rect [72 500 172 520]>>"
        ));
        let push = b.add(
            "<</FT /Btn /Ff 65536 /T (Client.go) /Type /Annot /Subtype /Widget /Rect [300 500 350 520]>>",
        );
        let annots: String = kids
            .iter()
            .chain([color, flood, push].iter())
            .map(|k| format!("{k} 0 R "))
            .collect();
        let mut p = PageSpec::letter(helv_text(12.0, 72.0, 740.0, "Choices."));
        p.extra = format!("/Annots [{annots}]");
        let form =
            format!("/AcroForm <</Fields [{group} 0 R {color} 0 R {flood} 0 R {push} 0 R]>>");
        document(&mut b, &[p], &form, Layout::Classic)
    }

    #[test]
    fn radio_groups_and_choice_fields_become_choices() {
        let pdf = choices_pdf();
        let info = inspect(&pdf, &PdfLimits::default()).expect("inspect");
        let fields: Vec<_> = info.fields.iter().map(|f| &f.field).collect();
        assert_eq!(fields.len(), 2, "{fields:?}");
        let plan = fields.iter().find(|f| f.key == "plan").unwrap();
        assert_eq!(plan.kind, FieldType::Radio);
        assert_eq!(
            plan.options.as_deref().unwrap(),
            ["basic", "pro", "enterprise"]
        );
        assert_eq!(plan.role.as_deref(), Some("Client"));
        let color = fields.iter().find(|f| f.key == "color").unwrap();
        assert_eq!(color.kind, FieldType::Select);
        assert_eq!(color.options.as_deref().unwrap(), ["r", "g", "b"]);

        let request = StampRequest {
            page_mark: None,
            fields: info
                .fields
                .iter()
                .map(|f| FieldStamp {
                    field: f.clone(),
                    signed_by: None,
                    value: Some(StampValue::Text(
                        if f.field.key == "plan" { "pro" } else { "g" }.into(),
                    )),
                })
                .collect(),
            signature_page: None,
        };
        let signed = stamp(&pdf, &request).expect("stamp");
        assert!(signed.starts_with(&pdf));
        let update = String::from_utf8_lossy(&signed[pdf.len()..]);
        assert!(update.contains("/V /pro"), "{update}");
        assert!(update.contains("/AS /pro"));
        assert_eq!(update.matches("/AS /Off").count(), 2);
        assert!(update.contains("/V (g)"));
        assert!(update.contains("/I [1]"));
        // A value that is no button of the group is refused, not written.
        let mut bad = request.clone();
        bad.fields[0].value = Some(StampValue::Text("gold".into()));
        bad.fields[1].value = Some(StampValue::Text("gold".into()));
        assert!(matches!(
            stamp(&pdf, &bad),
            Err(PdfError::InvalidValue { .. })
        ));
    }
}
