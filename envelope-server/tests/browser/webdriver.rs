//! A small W3C WebDriver client over reqwest, and a chromedriver process to talk to.
//!
//! Hand-written rather than a crate: the tests need a dozen commands, and this keeps the
//! dependency tree (and its TLS stack) out of the build. Commands follow
//! <https://www.w3.org/TR/webdriver2/>.

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};

/// The key of an element reference in WebDriver JSON.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Finds a program on PATH (or in /usr/bin).
fn program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin")])
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// A running chromedriver, killed on drop.
pub struct Driver {
    child: Child,
    pub url: String,
    chromium: PathBuf,
}

impl Driver {
    /// Starts chromedriver on a free port. Fails (never skips) when Chromium or chromedriver is
    /// missing.
    pub async fn start() -> Driver {
        let missing = "Chromium and chromedriver are required for the browser tests: run \
                       scripts/install-test-deps.sh (Debian packages chromium and chromium-driver)";
        let chromium = program("chromium").unwrap_or_else(|| panic!("{missing}"));
        let driver = program("chromedriver").unwrap_or_else(|| panic!("{missing}"));
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let d = Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
            chromium,
        };
        let http = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(r) = http.get(format!("{}/status", d.url)).send().await
                && let Ok(v) = r.json::<Value>().await
                && v["value"]["ready"] == true
            {
                return d;
            }
            assert!(
                Instant::now() < deadline,
                "chromedriver did not start in 30 s"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A new headless browser session with a fresh profile in `profile`.
    pub async fn session(&self, profile: &Path) -> Session {
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--lang=en-US",
            "--window-size=1280,900",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("--user-data-dir={}", profile.display())])
        .collect::<Vec<_>>();
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": self.chromium, "args": args}
        }}});
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(120))
            .build()
            .unwrap();
        let v = call(
            &http,
            reqwest::Method::POST,
            &format!("{}/session", self.url),
            Some(caps),
        )
        .await;
        let id = v["sessionId"].as_str().expect("a session id").to_string();
        Session {
            http,
            base: format!("{}/session/{id}", self.url),
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn call(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    body: Option<Value>,
) -> Value {
    let mut req = http.request(method.clone(), url);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let res = req
        .send()
        .await
        .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = res.status();
    let v: Value = res.json().await.expect("WebDriver answers JSON");
    assert!(status.is_success(), "{method} {url}: {status} {v}");
    v["value"].clone()
}

/// One browser session. Delete it with [`Session::quit`].
pub struct Session {
    http: reqwest::Client,
    base: String,
}

/// An element of the current page.
#[derive(Clone, Debug)]
pub struct Element(pub String);

impl Element {
    fn json(&self) -> Value {
        json!({ ELEMENT: self.0 })
    }
}

impl Session {
    async fn cmd(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        call(&self.http, method, &format!("{}{path}", self.base), body).await
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        self.cmd(reqwest::Method::POST, path, Some(body)).await
    }

    pub async fn goto(&self, url: &str) {
        self.post("/url", json!({ "url": url })).await;
    }

    pub async fn set_window(&self, width: u32, height: u32) {
        self.post("/window/rect", json!({"width": width, "height": height}))
            .await;
    }

    /// The first element matching a CSS selector, waiting up to 10 s for it to appear.
    pub async fn find(&self, css: &str) -> Element {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let res = self
                .http
                .post(format!("{}/element", self.base))
                .json(&json!({"using": "css selector", "value": css}))
                .send()
                .await
                .unwrap();
            let ok = res.status().is_success();
            let v: Value = res.json().await.unwrap();
            if ok {
                return Element(v["value"][ELEMENT].as_str().unwrap().to_string());
            }
            assert!(Instant::now() < deadline, "no element {css}: {v}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn click(&self, e: &Element) {
        self.post(&format!("/element/{}/click", e.0), json!({}))
            .await;
    }

    pub async fn type_text(&self, e: &Element, text: &str) {
        self.post(&format!("/element/{}/value", e.0), json!({ "text": text }))
            .await;
    }

    /// Runs a script; `args` may hold elements (`Element::json`).
    pub async fn script(&self, script: &str, args: Vec<Value>) -> Value {
        self.post("/execute/sync", json!({"script": script, "args": args}))
            .await
    }

    pub async fn script_on(&self, script: &str, e: &Element) -> Value {
        self.script(script, vec![e.json()]).await
    }

    /// The text of the page's body.
    pub async fn body_text(&self) -> String {
        self.script("return document.body.innerText;", vec![])
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Waits up to 10 s until the body's text contains `needle`.
    pub async fn wait_for_text(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let text = self.body_text().await;
            if text.contains(needle) {
                return text;
            }
            assert!(
                Instant::now() < deadline,
                "no {needle:?} in the page: {text}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Draws a stroke through `points` (offsets from the element's centre) with a mouse, as
    /// real pointer events.
    pub async fn draw(&self, e: &Element, points: &[(i64, i64)]) {
        let mut actions = Vec::new();
        let (x0, y0) = points[0];
        actions.push(
            json!({"type": "pointerMove", "origin": e.json(), "x": x0, "y": y0, "duration": 0}),
        );
        actions.push(json!({"type": "pointerDown", "button": 0}));
        for &(x, y) in &points[1..] {
            actions.push(
                json!({"type": "pointerMove", "origin": e.json(), "x": x, "y": y, "duration": 40}),
            );
        }
        actions.push(json!({"type": "pointerUp", "button": 0}));
        self.mouse(actions).await;
    }

    /// Presses keys on whatever has the focus, as a real keyboard would: each character of
    /// `keys` is pressed and released in turn (WebDriver's key codes: `\u{E004}` Tab,
    /// `\u{E015}` ArrowDown, `\u{E007}` Enter...).
    pub async fn keys(&self, keys: &str) {
        let mut actions = Vec::new();
        for c in keys.chars() {
            actions.push(json!({"type": "keyDown", "value": c.to_string()}));
            actions.push(json!({"type": "keyUp", "value": c.to_string()}));
        }
        self.keyboard(actions).await;
    }

    /// Drags with a mouse, as real pointer events: presses on the centre of `from`, moves in
    /// steps to `(x, y)` from the centre of `to`, releases there.
    pub async fn drag(&self, from: &Element, to: &Element, x: i64, y: i64) {
        let actions = vec![
            json!({"type": "pointerMove", "origin": from.json(), "x": 0, "y": 0, "duration": 0}),
            json!({"type": "pointerDown", "button": 0}),
            json!({"type": "pointerMove", "origin": from.json(), "x": 12, "y": 8, "duration": 50}),
            json!({"type": "pointerMove", "origin": to.json(), "x": x, "y": y, "duration": 250}),
            json!({"type": "pause", "duration": 50}),
            json!({"type": "pointerUp", "button": 0}),
        ];
        self.mouse(actions).await;
    }

    /// Presses each key of `keys` in turn while Shift is held.
    pub async fn shift_keys(&self, keys: &str) {
        const SHIFT: &str = "\u{E008}";
        let mut actions = vec![json!({"type": "keyDown", "value": SHIFT})];
        for c in keys.chars() {
            actions.push(json!({"type": "keyDown", "value": c.to_string()}));
            actions.push(json!({"type": "keyUp", "value": c.to_string()}));
        }
        actions.push(json!({"type": "keyUp", "value": SHIFT}));
        self.keyboard(actions).await;
    }

    /// Performs pointer `actions` with a mouse, then releases whatever is still pressed.
    async fn mouse(&self, actions: Vec<Value>) {
        self.post(
            "/actions",
            json!({"actions": [{
                "type": "pointer", "id": "mouse",
                "parameters": {"pointerType": "mouse"},
                "actions": actions
            }]}),
        )
        .await;
        self.cmd(reqwest::Method::DELETE, "/actions", None).await;
    }

    /// Performs key `actions` on whatever has the focus, then releases every key.
    async fn keyboard(&self, actions: Vec<Value>) {
        self.post(
            "/actions",
            json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]}),
        )
        .await;
        self.cmd(reqwest::Method::DELETE, "/actions", None).await;
    }

    /// Enters the frame `e` of the current page.
    pub async fn enter_frame(&self, e: &Element) {
        self.post("/frame", json!({ "id": e.json() })).await;
    }

    pub async fn leave_frame(&self) {
        self.post("/frame/parent", json!({})).await;
    }

    /// A PNG of the viewport (WebDriver's own screenshot).
    pub async fn viewport_png(&self) -> Vec<u8> {
        let v = self.cmd(reqwest::Method::GET, "/screenshot", None).await;
        base64::engine::general_purpose::STANDARD
            .decode(v.as_str().expect("screenshot data"))
            .unwrap()
    }

    pub async fn quit(self) {
        let _ = self.http.delete(&self.base).send().await;
    }
}
