//! The HTTP [`RevocationSource`] (feature `https`): OCSP requests POSTed, CRLs and issuer
//! certificates fetched with GET, each with a timeout and a size cap.

use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

use super::{RevocationError, RevocationKind, RevocationSource};

/// Most bytes of one answer that are read (a CA's CRL can be large; 1 MiB is far past an OCSP
/// response or a certificate).
const MAX_ANSWER: usize = 1024 * 1024;
/// How long one answer may take, connection included.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Asks the services named in certificates over HTTP (RFC 5280 and RFC 6960 name plain HTTP:
/// the answers are signed, the transport need not be; `https` URLs work too).
#[derive(Clone)]
pub struct HttpRevocationSource {
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
    timeout: Duration,
}

impl std::fmt::Debug for HttpRevocationSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpRevocationSource")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Default for HttpRevocationSource {
    fn default() -> Self {
        Self::new()
    }
}

impl HttpRevocationSource {
    /// A client that gives each answer 10 s (`TIMEOUT`).
    pub fn new() -> Self {
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_connect_timeout(Some(TIMEOUT));
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        HttpRevocationSource {
            client: Client::builder(TokioExecutor::new()).build(https),
            timeout: TIMEOUT,
        }
    }

    /// Another time limit per answer (tests; a slow network).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn exchange(
        &self,
        url: &str,
        body: Option<Vec<u8>>,
        kind: RevocationKind,
    ) -> Result<Vec<u8>, RevocationError> {
        let unavailable =
            |e: Box<dyn std::error::Error + Send + Sync>| RevocationError::Unavailable {
                url: url.to_string(),
                source: e,
            };
        let uri: hyper::Uri = url
            .parse()
            .map_err(|e| RevocationError::invalid(url, format!("not a URL ({e})")))?;
        if !matches!(uri.scheme_str(), Some("http" | "https")) {
            return Err(RevocationError::invalid(
                url,
                "not an http:// or https:// URL",
            ));
        }
        let request = match (kind, body) {
            (RevocationKind::Ocsp, Some(body)) => hyper::Request::post(uri)
                .header(hyper::header::CONTENT_TYPE, "application/ocsp-request")
                .header(hyper::header::ACCEPT, "application/ocsp-response")
                .body(Full::new(Bytes::from(body))),
            (_, None) => hyper::Request::get(uri).body(Full::new(Bytes::new())),
            (_, Some(_)) => {
                return Err(RevocationError::invalid(
                    url,
                    "only OCSP requests carry a body",
                ));
            }
        }
        .map_err(|e| RevocationError::invalid(url, e.to_string()))?;
        let response = self
            .client
            .request(request)
            .await
            .map_err(|e| unavailable(e.into()))?;
        if !response.status().is_success() {
            return Err(unavailable(
                format!("HTTP {}", response.status().as_u16()).into(),
            ));
        }
        let too_large = response
            .headers()
            .get(hyper::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
            .is_some_and(|n| n > MAX_ANSWER as u64);
        if too_large {
            return Err(RevocationError::invalid(
                url,
                format!("the answer is larger than {MAX_ANSWER} bytes"),
            ));
        }
        match Limited::new(response.into_body(), MAX_ANSWER)
            .collect()
            .await
        {
            Ok(body) => Ok(body.to_bytes().to_vec()),
            Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(RevocationError::invalid(
                url,
                format!("the answer is larger than {MAX_ANSWER} bytes"),
            )),
            Err(e) => Err(unavailable(e)),
        }
    }
}

#[async_trait]
impl RevocationSource for HttpRevocationSource {
    async fn fetch(
        &self,
        url: &str,
        body: Option<Vec<u8>>,
        kind: RevocationKind,
    ) -> Result<Vec<u8>, RevocationError> {
        match tokio::time::timeout(self.timeout, self.exchange(url, body, kind)).await {
            Ok(result) => result,
            Err(_) => Err(RevocationError::Unavailable {
                url: url.to_string(),
                source: format!("no answer within {} s", self.timeout.as_secs_f32()).into(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_http_urls_are_asked() {
        let source = HttpRevocationSource::new();
        for url in ["ftp://ca.example/crl", "not a url", "ldap://ca.example/"] {
            let got = source.fetch(url, None, RevocationKind::Crl).await;
            assert!(
                matches!(got, Err(RevocationError::Invalid { .. })),
                "{url}: {got:?}"
            );
        }
    }
}
