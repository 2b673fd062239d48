//! Just enough of the Chrome DevTools Protocol to drive a headless Chromium
//! from a test: start it, open one page, evaluate JavaScript, emulate a
//! window width, take a screenshot. The WebSocket it speaks over is written
//! out here (RFC 6455, text frames only), so the test needs no new crate.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The Chromium binary, if one is installed.
pub fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
}

/// A headless Chromium in a fresh profile, killed when dropped.
pub struct Browser {
    child: Child,
    profile: PathBuf,
    /// host:port of its DevTools endpoint.
    devtools: String,
}

impl Browser {
    /// Chromium started, tried twice: on a loaded two-core machine (the
    /// suite's other tests beside it) a first start once took more than
    /// the 30 s it was given to listen. A start that does not listen in
    /// time is killed before the next.
    pub fn start(binary: &Path) -> Browser {
        let mut last = String::new();
        for attempt in 1..=2 {
            match Browser::try_start(binary, attempt) {
                Ok(browser) => return browser,
                Err(why) => last = why,
            }
        }
        panic!("chromium prints its DevTools address: {last}");
    }

    fn try_start(binary: &Path, attempt: u32) -> Result<Browser, String> {
        let profile =
            std::env::temp_dir().join(format!("pomset-cdp-{}-{attempt}", std::process::id()));
        std::fs::create_dir_all(&profile).expect("a temporary profile");
        let mut child = Command::new(binary)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                "--remote-debugging-port=0",
                "--window-size=1400,1000",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("chromium starts");
        // Chromium prints its DevTools address on stderr once it listens.
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.split("DevTools listening on ws://").nth(1) {
                    let _ = tx.send(url.split('/').next().unwrap_or_default().to_string());
                }
            }
        });
        // Owned from here, so that a start that fails is killed (`Drop`).
        let mut browser = Browser {
            child,
            profile,
            devtools: String::new(),
        };
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(devtools) => {
                browser.devtools = devtools;
                Ok(browser)
            }
            Err(e) => Err(format!("attempt {attempt}: {e}")),
        }
    }

    /// The first page target, over its own WebSocket.
    pub fn page(&self) -> Page {
        let list = http_get(&self.devtools, "/json/list");
        let targets: Value = serde_json::from_str(&list).expect("DevTools lists its targets");
        let url = targets
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| t["type"] == "page")
            .and_then(|t| t["webSocketDebuggerUrl"].as_str())
            .expect("a page target");
        let path = url.splitn(4, '/').nth(3).unwrap_or_default();
        Page {
            socket: Socket::connect(&self.devtools, &format!("/{path}")),
            next: 0,
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// A GET over HTTP/1.1 (DevTools answers no HTTP/1.0 and keeps the
/// connection open): the body, `Content-Length` bytes of it.
fn http_get(host: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(host).expect("DevTools accepts");
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .expect("request sent");
    let head = read_head(&mut stream);
    let length = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).expect("the body");
    String::from_utf8_lossy(&body).into_owned()
}

/// An HTTP answer's status line and headers, up to the blank line.
fn read_head(stream: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).expect("an HTTP answer");
        head.push(byte[0]);
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// One page, driven by DevTools commands.
pub struct Page {
    socket: Socket,
    next: u64,
}

impl Page {
    /// Sends a command and returns its result (events before it are skipped).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let message = json!({ "id": id, "method": method, "params": params });
        self.socket.send(&message.to_string());
        loop {
            let answer: Value =
                serde_json::from_str(&self.socket.receive()).expect("DevTools sends JSON");
            if answer["id"] == id {
                assert!(answer["error"].is_null(), "{method} failed: {answer}");
                return answer["result"].clone();
            }
        }
    }

    /// The value of a JavaScript expression (a promise is awaited).
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        assert!(
            result["exceptionDetails"].is_null(),
            "`{expression}` threw: {}",
            result["exceptionDetails"]
        );
        result["result"]["value"].clone()
    }

    /// Waits until `expression` is true; a page that never gets there fails
    /// the test after `secs` instead of hanging it.
    pub fn wait_for(&mut self, expression: &str, secs: u64) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while self.eval(expression) != Value::Bool(true) {
            assert!(
                Instant::now() < deadline,
                "the page never got to `{expression}`"
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    pub fn navigate(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url }));
    }

    /// The window as `width` CSS pixels wide (a phone held upright is ~400).
    pub fn set_width(&mut self, width: u32, height: u32) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        );
    }

    /// A PNG of the whole page.
    pub fn screenshot(&mut self) -> Vec<u8> {
        let shot = self.call(
            "Page.captureScreenshot",
            json!({ "format": "png", "captureBeyondViewport": true }),
        );
        base64(shot["data"].as_str().expect("PNG data"))
    }
}

/// A client WebSocket over TCP: masked text frames out, frames in.
struct Socket {
    stream: TcpStream,
}

impl Socket {
    fn connect(host: &str, path: &str) -> Socket {
        let mut stream = TcpStream::connect(host).expect("DevTools accepts");
        // A page that stops answering fails the test rather than hanging it.
        let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
        // The key is the RFC's own example: Chromium checks only its form.
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        .expect("handshake sent");
        let head = read_head(&mut stream);
        assert!(head.starts_with("HTTP/1.1 101"), "not a WebSocket: {head}");
        Socket { stream }
    }

    fn send(&mut self, text: &str) {
        let payload = text.as_bytes();
        let mut frame = vec![0x81u8];
        match payload.len() {
            n if n < 126 => frame.push(0x80 | n as u8),
            n if n < 65536 => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                frame.push(0x80 | 127);
                frame.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        let mask = [0x5a, 0x3c, 0x96, 0xe1];
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.stream.write_all(&frame).expect("frame sent");
    }

    /// The next text message, its fragments joined.
    fn receive(&mut self) -> String {
        let mut message = Vec::new();
        loop {
            let mut head = [0u8; 2];
            self.stream.read_exact(&mut head).expect("a frame");
            let len = match head[1] & 0x7f {
                126 => {
                    let mut n = [0u8; 2];
                    self.stream.read_exact(&mut n).expect("a length");
                    u16::from_be_bytes(n) as usize
                }
                127 => {
                    let mut n = [0u8; 8];
                    self.stream.read_exact(&mut n).expect("a length");
                    u64::from_be_bytes(n) as usize
                }
                n => n as usize,
            };
            let mut payload = vec![0u8; len];
            self.stream.read_exact(&mut payload).expect("a payload");
            match head[0] & 0x0f {
                0x8 => panic!("DevTools closed the connection"),
                // Pings and pongs carry nothing for us.
                0x9 | 0xa => continue,
                _ => message.extend_from_slice(&payload),
            }
            if head[0] & 0x80 != 0 {
                return String::from_utf8_lossy(&message).into_owned();
            }
        }
    }
}

/// Standard base64, as DevTools sends screenshots.
fn base64(text: &str) -> Vec<u8> {
    let digit = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> = text
        .bytes()
        .filter(|c| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/')
        .map(digit)
        .collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, d)| n | (u32::from(*d) << (18 - 6 * i)));
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}
