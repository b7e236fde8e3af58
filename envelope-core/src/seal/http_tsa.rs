//! The HTTP client of an RFC 3161 timestamp authority (feature `https`): what
//! [`LocalSealer::with_timestamps`](super::LocalSealer::with_timestamps) takes to give each seal
//! a signature timestamp (PAdES B-T).

use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

use super::TimestampAuthority;
use crate::error::BoxError;

/// Most bytes of a timestamp response that are read.
const MAX_TSA_RESPONSE: usize = 256 * 1024;
const TSA_TIMEOUT: Duration = Duration::from_secs(30);

/// Posts `application/timestamp-query` to a TSA over HTTP or HTTPS (many public TSAs are plain
/// HTTP: the token is signed, the transport need not be).
#[derive(Clone)]
pub struct HttpTimestampAuthority {
    url: hyper::Uri,
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
}

impl std::fmt::Debug for HttpTimestampAuthority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTimestampAuthority")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl HttpTimestampAuthority {
    /// A client of the authority at `url` (`http://` or `https://`).
    pub fn new(url: &str) -> Result<Self, BoxError> {
        let uri: hyper::Uri = url.parse().map_err(|e| format!("not a URL: {e}"))?;
        if !matches!(uri.scheme_str(), Some("http" | "https")) {
            return Err("the timestamp authority needs an http:// or https:// URL".into());
        }
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_connect_timeout(Some(Duration::from_secs(10)));
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        Ok(HttpTimestampAuthority {
            url: uri,
            client: Client::builder(TokioExecutor::new()).build(https),
        })
    }

    async fn post(&self, request: Vec<u8>) -> Result<Vec<u8>, BoxError> {
        let req = hyper::Request::post(self.url.clone())
            .header(hyper::header::CONTENT_TYPE, "application/timestamp-query")
            .header(hyper::header::ACCEPT, "application/timestamp-reply")
            .body(Full::new(Bytes::from(request)))?;
        let resp = self.client.request(req).await?;
        if !resp.status().is_success() {
            return Err(format!("the TSA answered HTTP {}", resp.status().as_u16()).into());
        }
        let body = Limited::new(resp.into_body(), MAX_TSA_RESPONSE)
            .collect()
            .await?
            .to_bytes();
        Ok(body.to_vec())
    }
}

#[async_trait]
impl TimestampAuthority for HttpTimestampAuthority {
    async fn exchange(&self, request: Vec<u8>) -> Result<Vec<u8>, BoxError> {
        match tokio::time::timeout(TSA_TIMEOUT, self.post(request)).await {
            Ok(result) => result,
            Err(_) => {
                Err(format!("the TSA gave no answer within {} s", TSA_TIMEOUT.as_secs()).into())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_urls_are_taken() {
        assert!(HttpTimestampAuthority::new("ftp://tsa.example").is_err());
        assert!(HttpTimestampAuthority::new("not a url").is_err());
        assert!(HttpTimestampAuthority::new("http://timestamp.example/tsa").is_ok());
    }
}
