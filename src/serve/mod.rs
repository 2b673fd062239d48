//! `pomset serve`: the web explorer. An axum server on 127.0.0.1 by default
//! with a JSON API over `workbench` (`api.rs`) and one embedded page
//! (`page/`: HTML, CSS and JavaScript, no network at run time). Every
//! decision runs on a blocking thread within the request's limits, so
//! requests run side by side and none can hang the server.

pub mod api;
pub mod held;

use std::net::SocketAddr;

use axum::extract::rejection::JsonRejection;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::workbench::Problem;
use api::Request;
use held::Held;

const INDEX: &str = include_str!("page/index.html");
const STYLE: &str = include_str!("page/style.css");
const SCRIPT: &str = include_str!("page/app.js");

/// The routes: the page, its two assets, and the API.
pub fn router() -> Router {
    let held = std::sync::Arc::new(Held::default());
    let held2 = held.clone();
    Router::new()
        .route(
            "/",
            get(|| async { page(INDEX, "text/html; charset=utf-8") }),
        )
        .route(
            "/style.css",
            get(|| async { page(STYLE, "text/css; charset=utf-8") }),
        )
        .route(
            "/app.js",
            get(|| async { page(SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route("/api/examples", get(|| async { Json(api::examples()) }))
        .route("/api/options", get(|| async { answer(api::options(None)) }))
        .route(
            "/api/options",
            post(|body| endpoint(body, |r| api::options(Some(r)))),
        )
        .route(
            "/api/decide",
            post(|body| endpoint(body, move |r| api::decide(r, &held))),
        )
        .route(
            "/api/states",
            post(|body| endpoint(body, move |r| api::states(r, &held2))),
        )
        .route("/api/explain", post(|body| endpoint(body, api::explain)))
        .route("/api/pomsets", post(|body| endpoint(body, api::pomsets)))
        .route("/api/draw", post(|body| endpoint(body, api::draw)))
        .route("/api/refine", post(|body| endpoint(body, api::refine)))
        .route("/api/vary", post(|body| endpoint(body, api::vary)))
}

fn page(text: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], text).into_response()
}

/// A result as a response: the value, or `{"error": Problem}` with 400.
fn answer(result: Result<Value, Problem>) -> Response {
    match result {
        Ok(v) => Json(v).into_response(),
        Err(p) => (StatusCode::BAD_REQUEST, Json(json!({ "error": p }))).into_response(),
    }
}

/// Runs `f` on a blocking thread; a malformed body is a located JSON error
/// and a panic is a 500 with a message, never a dropped connection.
async fn endpoint(
    body: Result<Json<Request>, JsonRejection>,
    f: impl FnOnce(&Request) -> Result<Value, Problem> + Send + 'static,
) -> Response {
    let req = match body {
        Ok(Json(req)) => req,
        Err(why) => {
            return answer(Err(Problem::message(format!(
                "the request is not the JSON the API takes: {}",
                why.body_text()
            ))))
        }
    };
    match tokio::task::spawn_blocking(move || f(&req)).await {
        Ok(result) => answer(result),
        Err(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({ "error": Problem::message("internal error: the request's computation failed (please report the test)") })),
        )
            .into_response(),
    }
}

/// A running server: where it listens. It stops with the process.
pub struct Server {
    pub addr: SocketAddr,
    thread: std::thread::JoinHandle<std::io::Result<()>>,
}

impl Server {
    /// Serves until the process ends.
    pub fn wait(self) -> Result<(), String> {
        match self.thread.join() {
            Ok(r) => r.map_err(|e| format!("the server stopped: {e}")),
            Err(_) => Err("the server stopped unexpectedly".into()),
        }
    }
}

/// Binds `addr` (port 0: a free one) and serves on a thread of its own.
pub fn start(addr: SocketAddr) -> Result<Server, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(addr))
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let thread = std::thread::spawn(move || {
        runtime.block_on(async move { axum::serve(listener, router()).await })
    });
    Ok(Server { addr, thread })
}

/// `pomset serve`: starts, prints the address, serves until interrupted.
pub fn run(bind: &str, port: u16) -> Result<(), String> {
    let ip: std::net::IpAddr = bind
        .parse()
        .map_err(|_| format!("--bind takes an IP address such as 127.0.0.1, not `{bind}`"))?;
    let server = start(SocketAddr::new(ip, port))?;
    println!(
        "pomset explorer at http://{}/ (Ctrl-C stops it)",
        server.addr
    );
    if !ip.is_loopback() {
        eprintln!("warning: listening on {ip}, which other machines may reach; the explorer has no authentication");
    }
    server.wait()
}
