//! The floor a GET of the server is measured against: hyper alone, answering every request on
//! a keep-alive HTTP/1.1 connection with the same bytes, with nothing in between.
//!
//! ```text
//! cargo run --release -p envelope-server --example bare_hyper -- 127.0.0.1:9100 body.json
//! ```
//!
//! `benches/get_instructions.py` runs it under callgrind beside `envelope-server`, with the body
//! of the `GET /v1/envelopes/{id}` it compares, and stops it with SIGTERM (or Ctrl-C).

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::Full;
use hyper::Response;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:9100".into());
    let body = match args.next() {
        Some(path) => Bytes::from(std::fs::read(path)?),
        None => Bytes::from_static(b"{}"),
    };
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("listening on http://{}", listener.local_addr()?);
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => accepted?.0,
            _ = term.recv() => return Ok(()),
            _ = tokio::signal::ctrl_c() => return Ok(()),
        };
        let body = body.clone();
        tokio::spawn(async move {
            let svc = service_fn(move |_req| {
                let body = body.clone();
                async move {
                    Ok::<_, Infallible>(
                        Response::builder()
                            .header("content-type", "application/json")
                            .body(Full::new(body))
                            .expect("a fixed response"),
                    )
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), svc)
                .await;
        });
    }
}
