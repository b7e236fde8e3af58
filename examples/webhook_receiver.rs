//! A webhook receiver that verifies every delivery before trusting it.
//!
//! ```text
//! WEBHOOK_SECRET=whsec_... cargo run -p envelope-server --example webhook_receiver -- 127.0.0.1:9000
//! envelope-server serve --allow-insecure-webhooks      # development: http:// and loopback allowed
//! curl $API/webhook_endpoints -H "Authorization: Bearer $KEY" -d url=http://127.0.0.1:9000/hook
//! ```
//!
//! It answers 400 to a request whose `Service-Signature` does not verify (or is older than five
//! minutes), 200 otherwise, and ignores events it has seen before (deliveries can repeat).

use std::collections::HashSet;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use envelope_core::webhook::{SIGNATURE_HEADER, verify};
use http_body_util::{BodyExt, Full, Limited};
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

type Reply = Response<Full<Bytes>>;

fn reply(status: StatusCode, text: &'static str) -> Reply {
    let mut r = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *r.status_mut() = status;
    r
}

async fn handle(
    req: Request<hyper::body::Incoming>,
    secret: Arc<String>,
    seen: Arc<Mutex<HashSet<String>>>,
) -> Reply {
    let header = req
        .headers()
        .get(SIGNATURE_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    // Read the raw body (bounded): the signature covers these exact bytes.
    let Ok(body) = Limited::new(req.into_body(), 1 << 20)
        .collect()
        .await
        .map(|b| b.to_bytes())
    else {
        return reply(StatusCode::PAYLOAD_TOO_LARGE, "too large");
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    if let Err(e) = verify(&body, &header, &secret, 300, now) {
        eprintln!("refused a delivery: {e}");
        return reply(StatusCode::BAD_REQUEST, "bad signature");
    }
    let Ok(event) = serde_json::from_slice::<serde_json::Value>(&body) else {
        return reply(StatusCode::BAD_REQUEST, "not JSON");
    };
    let id = event["id"].as_str().unwrap_or_default().to_string();
    if !seen
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id.clone())
    {
        println!("{id}: seen before, ignored");
        return reply(StatusCode::OK, "duplicate");
    }
    println!(
        "{id}: {} for envelope {} ({})",
        event["type"].as_str().unwrap_or("?"),
        event["data"]["object"]["id"].as_str().unwrap_or("?"),
        event["data"]["object"]["status"].as_str().unwrap_or("?"),
    );
    reply(StatusCode::OK, "ok")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:9000".into());
    let secret = Arc::new(
        std::env::var("WEBHOOK_SECRET")
            .map_err(|_| "set WEBHOOK_SECRET to the endpoint's whsec_ secret")?,
    );
    let seen = Arc::new(Mutex::new(HashSet::new()));
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("listening on http://{}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let (secret, seen) = (secret.clone(), seen.clone());
        tokio::spawn(async move {
            let svc = service_fn(move |req| {
                let (secret, seen) = (secret.clone(), seen.clone());
                async move { Ok::<_, Infallible>(handle(req, secret, seen).await) }
            });
            if let Err(e) = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), svc)
                .await
            {
                eprintln!("connection error: {e}");
            }
        });
    }
}
