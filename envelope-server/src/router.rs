//! Routes of the API: a plain `match` on the path segments, then on the method.
//!
//! Unknown paths are 404 `route_not_found`; known paths with another method are 405
//! `method_not_allowed` with an `Allow` header. Nothing here looks at IDs beyond taking them.

use hyper::Method;

use envelope_core::service::{BuilderAccess, BuilderAction, BuilderTarget};

use crate::error::ApiError;

/// One operation of the API, with the IDs taken from its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `POST /v1/envelopes`.
    CreateEnvelope,
    /// `GET /v1/envelopes`.
    ListEnvelopes,
    /// `GET /v1/envelopes/{id}`.
    GetEnvelope(String),
    /// `PATCH /v1/envelopes/{id}`: changes a draft (extensions E11).
    UpdateEnvelope(String),
    /// `POST /v1/envelopes/{id}/send`.
    SendEnvelope(String),
    /// `POST /v1/envelopes/{id}/void`.
    VoidEnvelope(String),
    /// `POST /v1/envelopes/{id}/remind`.
    RemindEnvelope(String),
    /// `POST /v1/envelopes/{id}/signers/{signer_id}/reassign`: envelope ID, signer ID.
    ReassignSigner(String, String),
    /// `POST /v1/envelopes/{id}/signers/{signer_id}/unlock`: envelope ID, signer ID.
    UnlockSigner(String, String),
    /// `POST /v1/envelopes/{id}/signing_url`.
    SigningUrl(String),
    /// `GET /v1/envelopes/{id}/files/{kind}`: envelope ID, file kind.
    EnvelopeFile(String, String),
    /// `POST /v1/envelopes/{id}/builder_url`: a builder link to a draft (extensions E11).
    EnvelopeBuilderUrl(String),
    /// `GET /v1/envelopes/{id}/pages`: the documents' page sizes (extensions E11).
    EnvelopePages(String),
    /// `GET /v1/envelopes/{id}/pages/{page}`: a picture of a page; envelope ID, page number.
    EnvelopePage(String, String),
    /// `POST /v1/templates`.
    CreateTemplate,
    /// `GET /v1/templates`.
    ListTemplates,
    /// `GET /v1/templates/{id}`.
    GetTemplate(String),
    /// `PATCH /v1/templates/{id}`.
    UpdateTemplate(String),
    /// `DELETE /v1/templates/{id}`.
    DeleteTemplate(String),
    /// `GET /v1/templates/{id}/file`.
    TemplateFile(String),
    /// `POST /v1/templates/{id}/builder_url`: a builder link to a template (extensions E11).
    TemplateBuilderUrl(String),
    /// `GET /v1/templates/{id}/pages`: the document's page sizes (extensions E11).
    TemplatePages(String),
    /// `GET /v1/templates/{id}/pages/{page}`: a picture of a page; template ID, page number.
    TemplatePage(String, String),
    /// `POST /v1/webhook_endpoints`.
    CreateEndpoint,
    /// `GET /v1/webhook_endpoints`.
    ListEndpoints,
    /// `GET /v1/webhook_endpoints/{id}`.
    GetEndpoint(String),
    /// `PATCH /v1/webhook_endpoints/{id}`.
    UpdateEndpoint(String),
    /// `DELETE /v1/webhook_endpoints/{id}`.
    DeleteEndpoint(String),
    /// `GET /v1/events`.
    ListEvents,
    /// `GET /v1/events/{id}`.
    GetEvent(String),
    /// `GET /v1/events/{id}/deliveries`.
    EventDeliveries(String),
    /// `POST /v1/events/{id}/resend`.
    ResendEvent(String),
    /// `GET /v1/account`.
    Account,
    /// `GET /v1/balance`.
    Balance,
    /// `POST /v1/test_helpers/envelopes/{id}/complete`.
    TestComplete(String),
    /// `POST /v1/bulk_sends` (extensions E12).
    CreateBulkSend,
    /// `GET /v1/bulk_sends`.
    ListBulkSends,
    /// `GET /v1/bulk_sends/{id}`.
    GetBulkSend(String),
}

/// How a route takes a request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyPolicy {
    /// No body is read (GET, DELETE).
    None,
    /// A small JSON object (actions and updates).
    Json,
    /// JSON or multipart/form-data, large enough for a PDF (the two creates).
    Upload,
}

impl Route {
    /// One route of each kind, with placeholder IDs: what the route-coverage tests walk
    /// (`openapi.rs` holds the OpenAPI document to it). The `match` below fails to compile when
    /// a kind is added without being listed here.
    pub fn all() -> Vec<Route> {
        use Route::*;
        let x = || "x_1".to_string();
        let all = vec![
            CreateEnvelope,
            ListEnvelopes,
            GetEnvelope(x()),
            UpdateEnvelope(x()),
            SendEnvelope(x()),
            VoidEnvelope(x()),
            RemindEnvelope(x()),
            ReassignSigner(x(), x()),
            UnlockSigner(x(), x()),
            SigningUrl(x()),
            EnvelopeFile(x(), x()),
            EnvelopeBuilderUrl(x()),
            EnvelopePages(x()),
            EnvelopePage(x(), x()),
            CreateTemplate,
            ListTemplates,
            GetTemplate(x()),
            UpdateTemplate(x()),
            DeleteTemplate(x()),
            TemplateFile(x()),
            TemplateBuilderUrl(x()),
            TemplatePages(x()),
            TemplatePage(x(), x()),
            CreateEndpoint,
            ListEndpoints,
            GetEndpoint(x()),
            UpdateEndpoint(x()),
            DeleteEndpoint(x()),
            ListEvents,
            GetEvent(x()),
            EventDeliveries(x()),
            ResendEvent(x()),
            Account,
            Balance,
            TestComplete(x()),
            CreateBulkSend,
            ListBulkSends,
            GetBulkSend(x()),
        ];
        // Exhaustive on purpose: a new kind must be added to the list above (and so to the
        // document) before this compiles again.
        for route in &all {
            match route {
                CreateEnvelope
                | ListEnvelopes
                | GetEnvelope(_)
                | UpdateEnvelope(_)
                | SendEnvelope(_)
                | VoidEnvelope(_)
                | RemindEnvelope(_)
                | ReassignSigner(..)
                | UnlockSigner(..)
                | SigningUrl(_)
                | EnvelopeFile(..)
                | EnvelopeBuilderUrl(_)
                | EnvelopePages(_)
                | EnvelopePage(..)
                | CreateTemplate
                | ListTemplates
                | GetTemplate(_)
                | UpdateTemplate(_)
                | DeleteTemplate(_)
                | TemplateFile(_)
                | TemplateBuilderUrl(_)
                | TemplatePages(_)
                | TemplatePage(..)
                | CreateEndpoint
                | ListEndpoints
                | GetEndpoint(_)
                | UpdateEndpoint(_)
                | DeleteEndpoint(_)
                | ListEvents
                | GetEvent(_)
                | EventDeliveries(_)
                | ResendEvent(_)
                | Account
                | Balance
                | TestComplete(_)
                | CreateBulkSend
                | ListBulkSends
                | GetBulkSend(_) => {}
            }
        }
        all
    }

    /// The method and path template, as logs (and metrics) name the route.
    pub fn template(&self) -> &'static str {
        use Route::*;
        match self {
            CreateEnvelope => "POST /v1/envelopes",
            ListEnvelopes => "GET /v1/envelopes",
            GetEnvelope(_) => "GET /v1/envelopes/{id}",
            UpdateEnvelope(_) => "PATCH /v1/envelopes/{id}",
            SendEnvelope(_) => "POST /v1/envelopes/{id}/send",
            VoidEnvelope(_) => "POST /v1/envelopes/{id}/void",
            RemindEnvelope(_) => "POST /v1/envelopes/{id}/remind",
            ReassignSigner(..) => "POST /v1/envelopes/{id}/signers/{signer_id}/reassign",
            UnlockSigner(..) => "POST /v1/envelopes/{id}/signers/{signer_id}/unlock",
            SigningUrl(_) => "POST /v1/envelopes/{id}/signing_url",
            EnvelopeFile(..) => "GET /v1/envelopes/{id}/files/{kind}",
            EnvelopeBuilderUrl(_) => "POST /v1/envelopes/{id}/builder_url",
            EnvelopePages(_) => "GET /v1/envelopes/{id}/pages",
            EnvelopePage(..) => "GET /v1/envelopes/{id}/pages/{page}",
            CreateTemplate => "POST /v1/templates",
            ListTemplates => "GET /v1/templates",
            GetTemplate(_) => "GET /v1/templates/{id}",
            UpdateTemplate(_) => "PATCH /v1/templates/{id}",
            DeleteTemplate(_) => "DELETE /v1/templates/{id}",
            TemplateFile(_) => "GET /v1/templates/{id}/file",
            TemplateBuilderUrl(_) => "POST /v1/templates/{id}/builder_url",
            TemplatePages(_) => "GET /v1/templates/{id}/pages",
            TemplatePage(..) => "GET /v1/templates/{id}/pages/{page}",
            CreateEndpoint => "POST /v1/webhook_endpoints",
            ListEndpoints => "GET /v1/webhook_endpoints",
            GetEndpoint(_) => "GET /v1/webhook_endpoints/{id}",
            UpdateEndpoint(_) => "PATCH /v1/webhook_endpoints/{id}",
            DeleteEndpoint(_) => "DELETE /v1/webhook_endpoints/{id}",
            ListEvents => "GET /v1/events",
            GetEvent(_) => "GET /v1/events/{id}",
            EventDeliveries(_) => "GET /v1/events/{id}/deliveries",
            ResendEvent(_) => "POST /v1/events/{id}/resend",
            Account => "GET /v1/account",
            Balance => "GET /v1/balance",
            TestComplete(_) => "POST /v1/test_helpers/envelopes/{id}/complete",
            CreateBulkSend => "POST /v1/bulk_sends",
            ListBulkSends => "GET /v1/bulk_sends",
            GetBulkSend(_) => "GET /v1/bulk_sends/{id}",
        }
    }

    /// Routes that only read (file downloads are not among them: they may mint a link).
    pub fn is_read(&self) -> bool {
        use Route::*;
        matches!(
            self,
            ListEnvelopes
                | GetEnvelope(_)
                | ListTemplates
                | GetTemplate(_)
                | EnvelopePages(_)
                | EnvelopePage(..)
                | TemplatePages(_)
                | TemplatePage(..)
                | ListEndpoints
                | GetEndpoint(_)
                | ListEvents
                | GetEvent(_)
                | EventDeliveries(_)
                | Account
                | Balance
                | ListBulkSends
                | GetBulkSend(_)
        )
    }

    /// Routes whose edits take a precondition (`If-Match`, extensions E11).
    pub fn is_conditional(&self) -> bool {
        matches!(self, Route::UpdateEnvelope(_) | Route::UpdateTemplate(_))
    }

    /// What a builder link's token (extensions E11) would do on this route, for the routes such
    /// a token may ever use; `None` for the rest. Whether the token may do it is the core's
    /// decision (`SigningService::authenticate_builder`).
    pub fn builder_access(&self) -> Option<BuilderAccess> {
        use Route::*;
        let template = |id: &str| id.parse().ok().map(BuilderTarget::Template);
        let envelope = |id: &str| id.parse().ok().map(BuilderTarget::Envelope);
        let (target, action) = match self {
            GetTemplate(id) => (template(id)?, BuilderAction::Read),
            UpdateTemplate(id) => (template(id)?, BuilderAction::Edit),
            TemplatePages(id) | TemplatePage(id, _) => (template(id)?, BuilderAction::Pages),
            GetEnvelope(id) => (envelope(id)?, BuilderAction::Read),
            UpdateEnvelope(id) => (envelope(id)?, BuilderAction::Edit),
            EnvelopePages(id) | EnvelopePage(id, _) => (envelope(id)?, BuilderAction::Pages),
            SendEnvelope(id) => (envelope(id)?, BuilderAction::Send),
            _ => return None,
        };
        Some(BuilderAccess { target, action })
    }

    /// Whether and how the route reads a request body.
    pub fn body_policy(&self) -> BodyPolicy {
        use Route::*;
        match self {
            CreateEnvelope | CreateTemplate | CreateBulkSend => BodyPolicy::Upload,
            UpdateEnvelope(_)
            | SendEnvelope(_)
            | VoidEnvelope(_)
            | RemindEnvelope(_)
            | ReassignSigner(..)
            | UnlockSigner(..)
            | SigningUrl(_)
            | UpdateTemplate(_)
            | EnvelopeBuilderUrl(_)
            | TemplateBuilderUrl(_)
            | CreateEndpoint
            | UpdateEndpoint(_)
            | TestComplete(_)
            | ResendEvent(_) => BodyPolicy::Json,
            _ => BodyPolicy::None,
        }
    }
}

/// Resolves the path below `/v1` (already split into segments) and the method.
pub fn resolve(method: &Method, segments: &[&str]) -> Result<Route, ApiError> {
    use Route::*;
    if segments.iter().any(|s| s.is_empty()) {
        return Err(ApiError::RouteNotFound);
    }
    let id = |s: &str| s.to_string();
    let m = method;
    let is = |x: &Method| m == x;
    let (allow, route): (&'static str, Option<Route>) = match segments {
        ["envelopes"] => (
            "GET, POST",
            if is(&Method::GET) {
                Some(ListEnvelopes)
            } else if is(&Method::POST) {
                Some(CreateEnvelope)
            } else {
                None
            },
        ),
        ["bulk_sends"] => (
            "GET, POST",
            if is(&Method::GET) {
                Some(ListBulkSends)
            } else if is(&Method::POST) {
                Some(CreateBulkSend)
            } else {
                None
            },
        ),
        ["bulk_sends", b] => ("GET", is(&Method::GET).then(|| GetBulkSend(id(b)))),
        ["envelopes", e] => (
            "GET, PATCH",
            match *m {
                Method::GET => Some(GetEnvelope(id(e))),
                Method::PATCH => Some(UpdateEnvelope(id(e))),
                _ => None,
            },
        ),
        [
            "envelopes",
            e,
            action @ ("send" | "void" | "remind" | "signing_url" | "builder_url"),
        ] => (
            "POST",
            is(&Method::POST).then(|| match *action {
                "send" => SendEnvelope(id(e)),
                "void" => VoidEnvelope(id(e)),
                "remind" => RemindEnvelope(id(e)),
                "builder_url" => EnvelopeBuilderUrl(id(e)),
                _ => SigningUrl(id(e)),
            }),
        ),
        ["envelopes", e, "pages"] => ("GET", is(&Method::GET).then(|| EnvelopePages(id(e)))),
        ["envelopes", e, "pages", p] => {
            ("GET", is(&Method::GET).then(|| EnvelopePage(id(e), id(p))))
        }
        ["envelopes", e, "signers", s, "reassign"] => (
            "POST",
            is(&Method::POST).then(|| ReassignSigner(id(e), id(s))),
        ),
        ["envelopes", e, "signers", s, "unlock"] => (
            "POST",
            is(&Method::POST).then(|| UnlockSigner(id(e), id(s))),
        ),
        ["envelopes", e, "files", kind] => (
            "GET",
            is(&Method::GET).then(|| EnvelopeFile(id(e), id(kind))),
        ),
        ["templates"] => (
            "GET, POST",
            if is(&Method::GET) {
                Some(ListTemplates)
            } else if is(&Method::POST) {
                Some(CreateTemplate)
            } else {
                None
            },
        ),
        ["templates", t] => (
            "GET, PATCH, DELETE",
            match *m {
                Method::GET => Some(GetTemplate(id(t))),
                Method::PATCH => Some(UpdateTemplate(id(t))),
                Method::DELETE => Some(DeleteTemplate(id(t))),
                _ => None,
            },
        ),
        ["templates", t, "file"] => ("GET", is(&Method::GET).then(|| TemplateFile(id(t)))),
        ["templates", t, "builder_url"] => {
            ("POST", is(&Method::POST).then(|| TemplateBuilderUrl(id(t))))
        }
        ["templates", t, "pages"] => ("GET", is(&Method::GET).then(|| TemplatePages(id(t)))),
        ["templates", t, "pages", p] => {
            ("GET", is(&Method::GET).then(|| TemplatePage(id(t), id(p))))
        }
        ["webhook_endpoints"] => (
            "GET, POST",
            if is(&Method::GET) {
                Some(ListEndpoints)
            } else if is(&Method::POST) {
                Some(CreateEndpoint)
            } else {
                None
            },
        ),
        ["webhook_endpoints", w] => (
            "GET, PATCH, DELETE",
            match *m {
                Method::GET => Some(GetEndpoint(id(w))),
                Method::PATCH => Some(UpdateEndpoint(id(w))),
                Method::DELETE => Some(DeleteEndpoint(id(w))),
                _ => None,
            },
        ),
        ["events"] => ("GET", is(&Method::GET).then_some(ListEvents)),
        ["events", e] => ("GET", is(&Method::GET).then(|| GetEvent(id(e)))),
        ["events", e, "deliveries"] => ("GET", is(&Method::GET).then(|| EventDeliveries(id(e)))),
        ["events", e, "resend"] => ("POST", is(&Method::POST).then(|| ResendEvent(id(e)))),
        ["account"] => ("GET", is(&Method::GET).then_some(Account)),
        ["balance"] => ("GET", is(&Method::GET).then_some(Balance)),
        ["test_helpers", "envelopes", e, "complete"] => {
            ("POST", is(&Method::POST).then(|| TestComplete(id(e))))
        }
        _ => return Err(ApiError::RouteNotFound),
    };
    route.ok_or(ApiError::MethodNotAllowed { allow })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(m: Method, path: &str) -> Result<Route, ApiError> {
        let segs: Vec<&str> = path.split('/').collect();
        resolve(&m, &segs)
    }

    /// Each route's template, with its placeholders filled, resolves to that route.
    #[test]
    fn templates_name_their_routes() {
        for route in Route::all() {
            let (method, path) = route.template().split_once(' ').unwrap();
            let path = path.strip_prefix("/v1/").unwrap();
            let filled: Vec<&str> = path
                .split('/')
                .map(|s| if s.starts_with('{') { "x_1" } else { s })
                .collect();
            let method: Method = method.parse().unwrap();
            assert_eq!(
                resolve(&method, &filled).unwrap(),
                route,
                "{}",
                route.template()
            );
        }
    }

    #[test]
    fn routes_and_methods() {
        assert_eq!(r(Method::POST, "envelopes").unwrap(), Route::CreateEnvelope);
        assert_eq!(
            r(Method::GET, "envelopes/env_1/files/signed").unwrap(),
            Route::EnvelopeFile("env_1".into(), "signed".into())
        );
        assert_eq!(
            r(Method::POST, "test_helpers/envelopes/env_1/complete").unwrap(),
            Route::TestComplete("env_1".into())
        );
        assert!(matches!(
            r(Method::DELETE, "envelopes/env_1"),
            Err(ApiError::MethodNotAllowed {
                allow: "GET, PATCH"
            })
        ));
        assert_eq!(
            r(Method::PATCH, "envelopes/env_1").unwrap(),
            Route::UpdateEnvelope("env_1".into())
        );
        assert!(matches!(
            r(Method::PUT, "templates/t"),
            Err(ApiError::MethodNotAllowed {
                allow: "GET, PATCH, DELETE"
            })
        ));
        assert!(matches!(
            r(Method::GET, "envelopes/env_1/sign"),
            Err(ApiError::RouteNotFound)
        ));
        assert!(matches!(
            r(Method::GET, "envelopes/"),
            Err(ApiError::RouteNotFound)
        ));
    }
}
