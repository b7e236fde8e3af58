//! The HTTP [`WebhookSink`] (feature `https`): POSTs signed events over HTTPS (rustls, web PKI roots), one attempt
//! per call, no redirects followed, a total timeout, and at most 64 KiB of the answer read.
//!
//! SSRF guard at delivery time: the URL is checked again (scheme, literal addresses), and host
//! names are resolved by [`CheckedResolver`], which refuses the whole attempt when any address
//! is not public. The connection goes to the addresses that were checked, never re-resolved, so
//! DNS rebinding cannot slip a private address in between.
//!
//! A failed attempt's error is a [`DeliveryFailure`] category, which the customer sees; what the
//! resolver answered and the transport's own message go to the operator's log only.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::error::BoxError;
use crate::webhook::{
    DeliveryFailure, SIGNATURE_HEADER, UrlRules, WebhookRequest, WebhookResponse, WebhookSink,
    address_allowed, check_url, resolve_checked,
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
            // The errors are categories: the customer who chose the name sees them, and must
            // not learn what this server's resolver answers. The operator's log has the detail.
            let host = name.as_str();
            let addrs: Vec<SocketAddr> = match tokio::net::lookup_host((host, 0)).await {
                Ok(addrs) => addrs.collect(),
                Err(e) => {
                    tracing::info!(host, error = %e, "webhook host does not resolve");
                    return Err(DeliveryFailure::Dns.into());
                }
            };
            if addrs.is_empty() {
                tracing::info!(host, "webhook host resolves to no address");
                return Err(DeliveryFailure::Dns.into());
            }
            if let Some(bad) = addrs.iter().find(|a| !address_allowed(a.ip(), rules)) {
                tracing::warn!(host, address = %bad.ip(), "webhook refused: the host resolves to a non-public address");
                return Err(DeliveryFailure::PrivateAddress.into());
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

    async fn post(&self, request: &WebhookRequest) -> Result<WebhookResponse, DeliveryFailure> {
        let url = check_url(&request.url, self.rules).map_err(|_| {
            // Valid when the endpoint was made: development mode is off now, or the host is a
            // literal address that was allowed then.
            if literal_refused(&request.url, self.rules) {
                DeliveryFailure::PrivateAddress
            } else {
                DeliveryFailure::UrlRefused
            }
        })?;
        if matches!(url.host(), Some(url::Host::Ipv4(_) | url::Host::Ipv6(_))) {
            resolve_checked(&url, self.rules)
                .await
                .map_err(|_| DeliveryFailure::PrivateAddress)?;
        }
        let req = hyper::Request::post(url.as_str())
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .header(hyper::header::USER_AGENT, &self.user_agent)
            .header(SIGNATURE_HEADER, &request.signature)
            .body(Full::new(request.body.clone()))
            .map_err(|_| DeliveryFailure::UrlRefused)?;
        let resp = self.client.request(req).await.map_err(|e| {
            let failure = request_failure(&e);
            tracing::info!(event = %request.event_id, %failure, error = ?e, "webhook attempt failed");
            failure
        })?;
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
            Ok(result) => result.map_err(Into::into),
            Err(_) => Err(DeliveryFailure::Timeout.into()),
        }
    }
}

/// True when the URL's host is a literal address (or `localhost`) that `rules` refuse.
fn literal_refused(raw: &str, rules: UrlRules) -> bool {
    let Ok(url) = url::Url::parse(raw) else {
        return false;
    };
    let ip = match url.host() {
        Some(url::Host::Ipv4(a)) => std::net::IpAddr::V4(a),
        Some(url::Host::Ipv6(a)) => std::net::IpAddr::V6(a),
        Some(url::Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            if d == "localhost" || d.ends_with(".localhost") {
                std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST)
            } else {
                return false;
            }
        }
        None => return false,
    };
    !address_allowed(ip, rules)
}

/// The category of a failed request: hyper's own timeout and unreadable-answer errors, which only
/// this file may name (invariant 1), then [`DeliveryFailure::of`] for the rest of the chain.
fn request_failure(error: &(dyn std::error::Error + 'static)) -> DeliveryFailure {
    let mut unreadable = false;
    let mut next = Some(error);
    while let Some(e) = next {
        if let Some(h) = e.downcast_ref::<hyper::Error>() {
            if h.is_timeout() {
                return DeliveryFailure::Timeout;
            }
            unreadable |= h.is_parse() || h.is_parse_status() || h.is_incomplete_message();
        }
        next = e.source();
    }
    match DeliveryFailure::of(error) {
        DeliveryFailure::Connection if unreadable => DeliveryFailure::Protocol,
        found => found,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    fn request(url: String, timeout: Duration) -> WebhookRequest {
        WebhookRequest {
            url,
            body: Bytes::from_static(b"{}"),
            signature: "t=1,v1=00".into(),
            event_id: "evt_test".into(),
            timeout,
        }
    }

    /// A local receiver that reads the request, then answers `answer` (or holds the connection
    /// open without a word when it is `None`).
    async fn receiver(answer: Option<&'static [u8]>) -> u16 {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            while let Ok((mut conn, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let mut buf = [0u8; 4096];
                    let _ = conn.read(&mut buf).await;
                    match answer {
                        Some(a) => {
                            let _ = conn.write_all(a).await;
                            let _ = conn.shutdown().await;
                        }
                        None => tokio::time::sleep(Duration::from_secs(600)).await,
                    }
                });
            }
        });
        port
    }

    async fn failure(sink: &HttpSink, url: String, timeout: Duration) -> DeliveryFailure {
        let e = sink.deliver(&request(url, timeout)).await.unwrap_err();
        let failure = DeliveryFailure::of(e.as_ref());
        assert_eq!(
            e.to_string(),
            failure.to_string(),
            "the error is its category"
        );
        failure
    }

    /// Each way a real attempt fails lands in its category, and the error says nothing else.
    #[tokio::test]
    async fn real_failures_are_named_by_their_category() {
        let dev = HttpSink::new(
            UrlRules {
                allow_insecure: true,
            },
            "Test",
        );
        let strict = HttpSink::new(UrlRules::default(), "Test");
        let long = Duration::from_secs(30);

        let closed = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        assert_eq!(
            failure(&dev, format!("http://127.0.0.1:{closed}/x"), long).await,
            DeliveryFailure::ConnectionRefused
        );

        let plain = receiver(Some(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")).await;
        assert_eq!(
            failure(&dev, format!("https://127.0.0.1:{plain}/x"), long).await,
            DeliveryFailure::Tls
        );
        let ok = dev
            .deliver(&request(format!("http://127.0.0.1:{plain}/x"), long))
            .await
            .unwrap();
        assert_eq!(ok.status, 200);

        let garbage = receiver(Some(b"this is not HTTP\r\n\r\n")).await;
        assert_eq!(
            failure(&dev, format!("http://127.0.0.1:{garbage}/x"), long).await,
            DeliveryFailure::Protocol
        );

        let silent = receiver(None).await;
        assert_eq!(
            failure(
                &dev,
                format!("http://127.0.0.1:{silent}/x"),
                Duration::from_millis(200)
            )
            .await,
            DeliveryFailure::Timeout
        );

        // Literal private addresses, and names that resolve to one.
        for url in [
            "https://10.1.2.3/x",
            "https://127.0.0.1/x",
            "https://localhost/x",
        ] {
            assert_eq!(
                failure(&strict, url.into(), long).await,
                DeliveryFailure::PrivateAddress,
                "{url}"
            );
        }
        assert_eq!(
            failure(&dev, "https://10.1.2.3/x".into(), long).await,
            DeliveryFailure::PrivateAddress
        );
        // A URL fine in development but not once it is off.
        assert_eq!(
            failure(&strict, "http://hooks.example.com/x".into(), long).await,
            DeliveryFailure::UrlRefused
        );
    }

    /// The resolver refuses a name that resolves to a loopback address with the category
    /// alone: what it resolved to is not in the error.
    #[tokio::test]
    async fn a_name_resolving_to_a_private_address_is_refused_without_the_address() {
        let mut resolver = CheckedResolver {
            rules: UrlRules::default(),
        };
        let e = tower_service::Service::call(&mut resolver, Name::from_str("localhost").unwrap())
            .await
            .unwrap_err();
        assert_eq!(
            DeliveryFailure::of(e.as_ref()),
            DeliveryFailure::PrivateAddress
        );
        let text = e.to_string();
        assert!(
            !text.contains("127.0.0.1") && !text.contains("::1"),
            "{text}"
        );
        let e = tower_service::Service::call(
            &mut resolver,
            Name::from_str("no-such-host.invalid").unwrap(),
        )
        .await
        .unwrap_err();
        assert_eq!(DeliveryFailure::of(e.as_ref()), DeliveryFailure::Dns);
    }
}
