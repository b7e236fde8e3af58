//! Holds one real response to the OpenAPI document: its status must be listed for the
//! operation, its required headers present and of their schema, its content type one the
//! response names, and its JSON body valid against that content's schema (JSON Schema 2020-12,
//! with `format` checked).

use std::collections::BTreeSet;
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::common::Resp;

pub struct Document {
    pub doc: Value,
    /// `METHOD /path` of every operation a successful response was checked for.
    succeeded: Mutex<BTreeSet<String>>,
    /// How many responses were checked.
    checked: Mutex<usize>,
}

impl Document {
    pub fn parse(text: &str) -> Document {
        Document {
            doc: serde_json::from_str(text).expect("the document is JSON"),
            succeeded: Mutex::default(),
            checked: Mutex::default(),
        }
    }

    /// The object behind a local `$ref`, or the value itself.
    fn deref<'a>(&'a self, v: &'a Value) -> &'a Value {
        match v.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let pointer = r.strip_prefix('#').expect("local reference");
                self.doc
                    .pointer(pointer)
                    .unwrap_or_else(|| panic!("dangling reference {r}"))
            }
            None => v,
        }
    }

    /// Validates `instance` against `schema`, whose `$ref`s point into the document.
    pub fn validate(&self, schema: &Value, instance: &Value) -> Result<(), String> {
        let mut root = schema.clone();
        let Value::Object(map) = &mut root else {
            return Err(format!("schema is not an object: {schema}"));
        };
        map.insert("components".into(), self.doc["components"].clone());
        map.insert(
            "$schema".into(),
            json!("https://json-schema.org/draft/2020-12/schema"),
        );
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&root)
            .map_err(|e| format!("the schema does not compile: {e}"))?;
        let errors: Vec<String> = validator
            .iter_errors(instance)
            .map(|e| format!("at {}: {e}", e.instance_path()))
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.join("\n"))
        }
    }

    /// Checks `resp`, the answer to `METHOD template` (a path of the document, such as
    /// `/v1/envelopes/{id}`), and returns its JSON body (`null` for other content).
    #[track_caller]
    pub fn check(&self, method: &str, template: &str, resp: &Resp) -> Value {
        let op_name = format!("{method} {template}");
        let op = self
            .doc
            .pointer(&format!(
                "/paths/{}/{}",
                template.replace('~', "~0").replace('/', "~1"),
                method.to_lowercase()
            ))
            .unwrap_or_else(|| panic!("{op_name} is not in the document"));
        let status = resp.status.to_string();
        let body_text = String::from_utf8_lossy(&resp.body).into_owned();
        let response = op["responses"].get(&status).unwrap_or_else(|| {
            panic!("{op_name}: status {status} is not documented; body: {body_text}")
        });
        let response = self.deref(response);
        for (name, header) in response["headers"].as_object().into_iter().flatten() {
            let header = self.deref(header);
            let value = resp.header(name);
            if header["required"] == true {
                assert!(
                    value.is_some(),
                    "{op_name} {status}: header {name} is missing"
                );
            }
            if let (Some(v), Some(schema)) = (value, header.get("schema")) {
                let as_json = match schema["type"].as_str() {
                    Some("integer") => json!(v.parse::<i64>().unwrap_or_else(|_| panic!(
                        "{op_name} {status}: header {name} is not an integer: {v}"
                    ))),
                    _ => json!(v),
                };
                if let Err(e) = self.validate(schema, &as_json) {
                    panic!("{op_name} {status}: header {name}: {v}: {e}");
                }
            }
        }
        let content_type = resp.header("content-type").unwrap_or_default();
        let media = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        let body = match response.get("content") {
            None => {
                assert!(
                    resp.body.is_empty(),
                    "{op_name} {status}: no content is documented"
                );
                Value::Null
            }
            Some(content) => {
                let media_doc = content.get(&media).unwrap_or_else(|| {
                    panic!("{op_name} {status}: content type {content_type} is not documented")
                });
                if media == "application/json" {
                    let body: Value = serde_json::from_slice(&resp.body).unwrap_or_else(|e| {
                        panic!("{op_name} {status}: not JSON ({e}): {body_text}")
                    });
                    if let Err(e) = self.validate(&media_doc["schema"], &body) {
                        panic!(
                            "{op_name} {status}: the body does not match the document:\n{e}\nbody: {body:#}"
                        );
                    }
                    body
                } else {
                    Value::Null
                }
            }
        };
        *self.checked.lock().unwrap() += 1;
        if resp.status < 300 {
            self.succeeded.lock().unwrap().insert(op_name);
        }
        body
    }

    /// Operations of the document that no checked response succeeded for.
    pub fn not_succeeded(&self) -> Vec<String> {
        let done = self.succeeded.lock().unwrap();
        let mut missing = Vec::new();
        for (path, item) in self.doc["paths"].as_object().unwrap() {
            for (method, _) in item.as_object().unwrap() {
                let op = format!("{} {path}", method.to_uppercase());
                if !done.contains(&op) {
                    missing.push(op);
                }
            }
        }
        missing
    }

    pub fn checked(&self) -> usize {
        *self.checked.lock().unwrap()
    }
}

/// The checker itself catches drift: an unknown member, a missing one, a wrong format.
#[test]
fn the_checker_catches_drift() {
    let d = Document::parse(envelope_server::openapi::DOCUMENT);
    let error = json!({"$ref": "#/components/schemas/Error"});
    let good = json!({"object": "error", "status": 404, "type": "invalid_request_error",
                      "code": "resource_missing", "message": "No such envelope.", "param": "id",
                      "request_id": "req_1"});
    d.validate(&error, &good).unwrap();
    let mut extra = good.clone();
    extra["hint"] = json!("x");
    assert!(d.validate(&error, &extra).is_err(), "an unknown member");
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("param");
    assert!(d.validate(&error, &missing).is_err(), "a missing member");
    let mut code = good.clone();
    code["code"] = json!("no_such_code");
    assert!(d.validate(&error, &code).is_err(), "an undocumented code");
    let balance = json!({"$ref": "#/components/schemas/Balance"});
    let b = json!({"object": "balance", "livemode": false, "remaining": 1, "allowance": 1,
                   "used": 0, "period_start": "yesterday", "period_end": "2026-01-01T00:00:00.000Z",
                   "purchase_url": "https://example.com"});
    assert!(
        d.validate(&balance, &b).is_err(),
        "a timestamp that is not date-time"
    );
}
