//! The rows of a bulk send as given: a JSON list of `{signers, data, metadata, cc}`, or a CSV
//! file whose header names the columns (`Role.name`, `Role.email`, `data.KEY`,
//! `metadata.KEY`). Each row becomes the parameters of one envelope; an error in a row names it
//! (`rows[17].signers.Client.email`, or for CSV `rows[17].Client.email` and its line).

use std::collections::BTreeMap;

use serde_json::Value;

use super::{MAX_BULK_ROWS, too_many_rows};
use crate::error::{Error, ErrorKind, Result};
use crate::service::Limits;
use crate::service::envelopes::{CcParam, SignerParam, parse_cc, parse_signers};
use crate::service::params::metadata;

/// One row: the parameters of its envelope that differ from row to row.
#[derive(Debug, Clone, Default)]
pub struct BulkRowParams {
    /// The signers, as `signers` of `POST /v1/envelopes`.
    pub signers: Vec<SignerParam>,
    /// True when the signers were keyed by role (always, for CSV).
    pub signers_by_role: bool,
    /// Values for sender data fields, in the order given.
    pub data: Vec<(String, Value)>,
    /// The envelope's metadata.
    pub metadata: BTreeMap<String, String>,
    /// Carbon-copy recipients (JSON rows only).
    pub cc: Vec<CcParam>,
    /// The CSV line the row starts on (the header is line 1); `None` for JSON rows.
    pub line: Option<u64>,
}

/// How the rows were given, which decides how an error names a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowsFormat {
    /// A JSON list: `rows[17].` and the envelope's own path (`signers.Client.email`).
    Json,
    /// A CSV file: `rows[17].` and the column as its header writes it (`Client.email`).
    Csv,
}

impl RowsFormat {
    /// Row `i`'s error `e` (the error its envelope would get), naming the row.
    pub(crate) fn row_error(self, i: usize, row: &BulkRowParams, e: Error) -> Error {
        // A backend's failure is not the row's.
        if matches!(e.kind(), ErrorKind::Internal | ErrorKind::Unavailable) {
            return e;
        }
        let inner = e.param();
        let at = match (self, inner.as_deref()) {
            (_, None) => None,
            (RowsFormat::Json, Some(p)) => Some(p.to_string()),
            (RowsFormat::Csv, Some(p)) => csv_column(p, row),
        };
        let param = match at {
            Some(at) => format!("rows[{i}].{at}"),
            None => format!("rows[{i}]"),
        };
        Error::BulkRow {
            row: i,
            line: row.line,
            param,
            source: Box::new(e),
        }
    }
}

/// The CSV column an envelope's parameter path comes from: `signers.Role.x` is `Role.x`, a
/// signer by index is its role's, `data.KEY` and `metadata.KEY` are themselves; what names
/// no column (`signers`, `data`) is `None`, and the row alone is named.
fn csv_column(param: &str, row: &BulkRowParams) -> Option<String> {
    if param.starts_with("data.") || param.starts_with("metadata.") {
        return Some(param.to_string());
    }
    let rest = param.strip_prefix("signers.")?;
    // `signers.N[.x]`: a signer named by index (its place in the row).
    let (head, tail) = match rest.split_once('.') {
        Some((h, t)) => (h, Some(t)),
        None => (rest, None),
    };
    let role = match head.parse::<usize>() {
        Ok(n) => row.signers.get(n)?.role.clone()?,
        Err(_) => {
            // A role may hold dots: the field is the last part.
            return match rest.rsplit_once('.') {
                Some((role, f)) if f == "name" || f == "email" => Some(format!("{role}.{f}")),
                _ => Some(rest.to_string()),
            };
        }
    };
    Some(match tail {
        Some(t) => format!("{role}.{t}"),
        None => role,
    })
}

/// `rows` of a JSON body: a list of `{signers, data, metadata, cc}`, at most
/// [`MAX_BULK_ROWS`].
pub(super) fn parse_json(v: &Value, limits: &Limits) -> Result<Vec<BulkRowParams>> {
    let Value::Array(items) = v else {
        return Err(Error::invalid(
            "rows",
            "expected a list of {signers, data, metadata, cc} rows",
        ));
    };
    if items.len() > MAX_BULK_ROWS {
        return Err(too_many_rows());
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Value::Object(map) = item else {
            return Err(Error::invalid(
                format!("rows[{i}]"),
                "expected an object {signers, data, metadata, cc}",
            ));
        };
        let row = json_row(map, limits)
            .map_err(|e| RowsFormat::Json.row_error(i, &BulkRowParams::default(), e))?;
        out.push(row);
    }
    Ok(out)
}

/// One JSON row; errors name what is wrong inside it (`signers.Client.email`).
fn json_row(map: &serde_json::Map<String, Value>, limits: &Limits) -> Result<BulkRowParams> {
    if let Some(k) = map
        .keys()
        .find(|k| !["signers", "data", "metadata", "cc"].contains(&k.as_str()))
    {
        return Err(Error::ParameterUnknown { param: k.clone() });
    }
    let signers_v = map
        .get("signers")
        .ok_or_else(|| Error::missing("signers"))?;
    let (signers, signers_by_role) = parse_signers(signers_v, limits)?;
    let data = match map.get("data") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(m)) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        Some(_) => return Err(Error::invalid("data", "expected an object of field values")),
    };
    let metadata = metadata(map.get("metadata").cloned(), limits.max_metadata_keys)?;
    let cc = parse_cc(map.get("cc").cloned())?;
    Ok(BulkRowParams {
        signers,
        signers_by_role,
        data,
        metadata,
        cc,
        line: None,
    })
}

/// What one CSV column holds.
enum Column {
    /// `Role.name` or `Role.email`.
    Signer { role: String, email: bool },
    /// `data.KEY`.
    Data(String),
    /// `metadata.KEY`.
    Metadata(String),
}

/// `rows` of a multipart form: CSV text with a header, at most [`MAX_BULK_ROWS`] data rows.
/// Empty cells of `data.` and `metadata.` columns give no value; a signer's name and email are
/// required.
pub(super) fn parse_csv(text: &str, limits: &Limits) -> Result<Vec<BulkRowParams>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .trim(csv::Trim::All)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    let header = reader.headers().map_err(csv_error)?.clone();
    let mut columns = Vec::with_capacity(header.len());
    let mut roles: Vec<String> = Vec::new();
    for name in header.iter() {
        let column = if let Some(k) = name.strip_prefix("data.") {
            Column::Data(k.to_string())
        } else if let Some(k) = name.strip_prefix("metadata.") {
            Column::Metadata(k.to_string())
        } else {
            match name.rsplit_once('.') {
                Some((role, f @ ("name" | "email"))) if !role.is_empty() => {
                    if !roles.iter().any(|r| r == role) {
                        roles.push(role.to_string());
                    }
                    Column::Signer {
                        role: role.to_string(),
                        email: f == "email",
                    }
                }
                _ => {
                    return Err(Error::invalid(
                        "rows",
                        format!(
                            "the CSV column '{}' is none of Role.name, Role.email, data.KEY, \
                             metadata.KEY",
                            name.chars().take(80).collect::<String>()
                        ),
                    ));
                }
            }
        };
        columns.push(column);
    }
    if roles.is_empty() {
        return Err(Error::invalid(
            "rows",
            "the CSV header names no signer (columns Role.name and Role.email)",
        ));
    }
    let mut out = Vec::new();
    for record in reader.records() {
        let record = record.map_err(csv_error)?;
        if out.len() == MAX_BULK_ROWS {
            return Err(too_many_rows());
        }
        let i = out.len();
        let line = record.position().map(|p| p.line());
        let mut row = BulkRowParams {
            signers_by_role: true,
            line,
            ..Default::default()
        };
        let mut signers: Vec<(String, Option<String>, Option<String>)> =
            roles.iter().map(|r| (r.clone(), None, None)).collect();
        let mut meta = serde_json::Map::new();
        for (column, cell) in columns.iter().zip(record.iter()) {
            if cell.is_empty() {
                continue;
            }
            match column {
                Column::Signer { role, email } => {
                    let s = signers
                        .iter_mut()
                        .find(|s| &s.0 == role)
                        .expect("every role is listed");
                    if *email {
                        s.2 = Some(cell.to_string());
                    } else {
                        s.1 = Some(cell.to_string());
                    }
                }
                Column::Data(k) => row.data.push((k.clone(), Value::String(cell.to_string()))),
                Column::Metadata(k) => {
                    meta.insert(k.clone(), Value::String(cell.to_string()));
                }
            }
        }
        // The signers as the object form of `signers` gives them, keyed by role.
        let mut by_role = serde_json::Map::new();
        for (role, name, email) in &signers {
            let mut o = serde_json::Map::new();
            if let Some(n) = name {
                o.insert("name".into(), Value::String(n.clone()));
            }
            if let Some(e) = email {
                o.insert("email".into(), Value::String(e.clone()));
            }
            by_role.insert(role.clone(), Value::Object(o));
        }
        let parsed = parse_signers(&Value::Object(by_role), limits).and_then(|(s, _)| {
            let m = if meta.is_empty() {
                BTreeMap::new()
            } else {
                metadata(Some(Value::Object(meta)), limits.max_metadata_keys)?
            };
            Ok((s, m))
        });
        match parsed {
            Ok((s, m)) => {
                row.signers = s;
                row.metadata = m;
            }
            Err(e) => return Err(RowsFormat::Csv.row_error(i, &row, e)),
        }
        out.push(row);
    }
    if out.is_empty() {
        return Err(Error::invalid("rows", "the CSV has no data rows"));
    }
    Ok(out)
}

fn csv_error(e: csv::Error) -> Error {
    let line = e.position().map(|p| p.line());
    let why = match e.kind() {
        csv::ErrorKind::UnequalLengths { .. } => {
            "a row has another number of cells than the header".to_string()
        }
        csv::ErrorKind::Utf8 { .. } => "the CSV is not UTF-8 text".to_string(),
        _ => "the CSV could not be read".to_string(),
    };
    match line {
        Some(l) => Error::invalid("rows", format!("{why} (line {l})")),
        None => Error::invalid("rows", why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits::default()
    }

    #[test]
    fn csv_rows_become_signers_by_role_data_and_metadata() {
        let rows = parse_csv(
            "Client.name,Client.email,data.start,metadata.ref\n\
             Ann,ann@example.com,2027-01-01,r1\n\
             \"Bo, Jr\",bo@example.com,,\n",
            &limits(),
        )
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].signers[0].role.as_deref(), Some("Client"));
        assert_eq!(rows[0].signers[0].email, "ann@example.com");
        assert_eq!(
            rows[0].data,
            vec![("start".into(), Value::from("2027-01-01"))]
        );
        assert_eq!(rows[0].metadata["ref"], "r1");
        assert_eq!(rows[1].signers[0].name, "Bo, Jr");
        assert!(rows[1].data.is_empty() && rows[1].metadata.is_empty());
        assert_eq!((rows[0].line, rows[1].line), (Some(2), Some(3)));
    }

    #[test]
    fn csv_errors_name_the_row_and_the_column() {
        let e = parse_csv(
            "Client.name,Client.email\nAnn,ann@example.com\nBo,\n",
            &limits(),
        )
        .unwrap_err();
        assert_eq!(e.param().as_deref(), Some("rows[1].Client.email"));
        assert!(e.to_string().contains("CSV line 3"), "{e}");
        let e = parse_csv("Client.name,Client.email\n,ann@example.com\n", &limits()).unwrap_err();
        assert_eq!(e.param().as_deref(), Some("rows[0].Client.name"));
        let e = parse_csv("Client.phone\n1\n", &limits()).unwrap_err();
        assert_eq!(e.param().as_deref(), Some("rows"));
        let e = parse_csv("Client.name,Client.email\n", &limits()).unwrap_err();
        assert_eq!(e.param().as_deref(), Some("rows"));
        let e = parse_csv("Client.name,Client.email\nAnn\n", &limits()).unwrap_err();
        assert_eq!(e.param().as_deref(), Some("rows"));
    }

    #[test]
    fn json_errors_name_the_row() {
        let v = serde_json::json!([
            {"signers": {"Client": {"name": "A", "email": "a@example.com"}}},
            {"signers": {"Client": {"name": "B"}}},
        ]);
        let e = parse_json(&v, &limits()).unwrap_err();
        assert_eq!(e.param().as_deref(), Some("rows[1].signers.Client.email"));
        assert_eq!(e.code(), "parameter_missing");
        let v = serde_json::json!([{"signers": [], "extra": 1}]);
        let e = parse_json(&v, &limits()).unwrap_err();
        assert_eq!(e.param().as_deref(), Some("rows[0].extra"));
        let v = serde_json::json!([{"signers": {}}, 3]);
        let e = parse_json(&v, &limits()).unwrap_err();
        assert_eq!(e.param().as_deref(), Some("rows[1]"));
    }

    #[test]
    fn more_than_the_limit_is_refused() {
        let mut text = String::from("Client.name,Client.email\n");
        for i in 0..=MAX_BULK_ROWS {
            text.push_str(&format!("N,n{i}@example.com\n"));
        }
        assert_eq!(
            parse_csv(&text, &limits()).unwrap_err().param().as_deref(),
            Some("rows")
        );
    }
}
