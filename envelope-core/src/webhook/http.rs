//! The HTTP [`WebhookSink`] (feature `https`): POSTs signed events over HTTPS (rustls, web PKI roots), one attempt
//! per call, no redirects followed, a total timeout, and at most 64 KiB of the answer read.
//!
//! SSRF guard at delivery time: the URL is checked again (scheme, literal addresses), and host
//! names are resolved by [`CheckedResolver`], which refuses the whole attempt when any address
//! is not public. The connection goes to the addresses that were checked, never re-resolved, so
//! DNS rebinding cannot slip a private address in between.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::error::BoxError;
use crate::webhook::{
    SIGNATURE_HEADER, UrlRules, WebhookRequest, WebhookResponse, WebhookSink, address_allowed,
    check_url, resolve_checked,
};
use async_trait::async_trait;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::connect::dns::Name;
use hyper_util::rt::TokioExecutor;

/// Most bytes of a receiver's answer that are read (the body is only drained, never used).
const MAX_ANSWER: usize = 64 * 1024;

/// Resolves host names and refuses non-public addresses.
#[derive(Debug, Clone, Copy)]
pub struct CheckedResolver {
    rules: UrlRules,
}

impl tower_service::Service<Name> for CheckedResolver {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: Name) -> Self::Future {
        let rules = self.rules;
        Box::pin(async move {
            let host = name.as_str().to_string();
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if addrs.is_empty() {
                return Err(format!("{host} resolves to no address").into());
            }
            if let Some(bad) = addrs.iter().find(|a| !address_allowed(a.ip(), rules)) {
                return Err(format!(
                    "refused: {host} resolves to the non-public address {}",
                    bad.ip()
                )
                .into());
            }
            Ok(addrs.into_iter())
        })
    }
}

/// Delivers webhooks over HTTP(S): the sink `serve` uses, and the one an embedding application
/// gives [`SigningServiceBuilder::webhook_sink`](crate::SigningServiceBuilder::webhook_sink) to
/// deliver for real.
#[derive(Clone)]
pub struct HttpSink {
    client: Client<HttpsConnector<HttpConnector<CheckedResolver>>, Full<Bytes>>,
    rules: UrlRules,
    user_agent: String,
}

impl std::fmt::Debug for HttpSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSink")
            .field("rules", &self.rules)
            .finish_non_exhaustive()
    }
}

impl HttpSink {
    /// A sink enforcing `rules` (`allow_insecure` lets http:// and loopback through, for
    /// development only); `service_name` goes into the `User-Agent`.
    pub fn new(rules: UrlRules, service_name: &str) -> HttpSink {
        let mut http = HttpConnector::new_with_resolver(CheckedResolver { rules });
        http.enforce_http(false);
        http.set_connect_timeout(Some(std::time::Duration::from_secs(5)));
        let builder = hyper_rustls::HttpsConnectorBuilder::new().with_webpki_roots();
        let https = if rules.allow_insecure {
            builder.https_or_http().enable_http1().wrap_connector(http)
        } else {
            builder.https_only().enable_http1().wrap_connector(http)
        };
        let client = Client::builder(TokioExecutor::new())
            .pool_max_idle_per_host(4)
            .build(https);
        HttpSink {
            client,
            rules,
            user_agent: format!("{service_name}-Webhooks/{}", env!("CARGO_PKG_VERSION")),
        }
    }

    async fn post(&self, request: &WebhookRequest) -> Result<WebhookResponse, BoxError> {
        let url = check_url(&request.url, self.rules)?;
        if matches!(url.host(), Some(url::Host::Ipv4(_) | url::Host::Ipv6(_))) {
            resolve_checked(&url, self.rules).await?;
        }
        let req = hyper::Request::post(url.as_str())
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .header(hyper::header::USER_AGENT, &self.user_agent)
            .header(SIGNATURE_HEADER, &request.signature)
            .body(Full::new(request.body.clone()))?;
        let resp = self.client.request(req).await?;
        let status = resp.status().as_u16();
        // Drain a bounded part of the answer so the connection can be reused; its content is
        // irrelevant, and a receiver sending more is simply cut off.
        let _ = Limited::new(resp.into_body(), MAX_ANSWER).collect().await;
        Ok(WebhookResponse { status })
    }
}

#[async_trait]
impl WebhookSink for HttpSink {
    async fn deliver(&self, request: &WebhookRequest) -> Result<WebhookResponse, BoxError> {
        match tokio::time::timeout(request.timeout, self.post(request)).await {
            Ok(result) => result,
            Err(_) => Err(format!("no answer within {} s", request.timeout.as_secs()).into()),
        }
    }
}
