//! `pomset serve`: the web explorer. An axum server on 127.0.0.1 by default
//! with a JSON API over `workbench` (`api.rs`) and one embedded page
//! (`page/`: HTML, CSS and JavaScript, no network at run time). Every
//! decision runs on a blocking thread within the request's limits, so
//! requests run side by side and none can hang the server.

pub mod api;
pub mod held;
pub mod sweeps;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::rejection::JsonRejection;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::workbench::Problem;
use api::Request;
use held::Held;
use sweeps::Sweeps;

const INDEX: &str = include_str!("page/index.html");
const STYLE: &str = include_str!("page/style.css");
const SCRIPT: &str = include_str!("page/app.js");
/// The book's chapter on the explorer, linked from the page (which fetches
/// nothing from the network).
const CHAPTER: &str = include_str!("../../book/src/explorer.md");
/// The chapters the explorer's transformation table and distinguish form
/// link to.
const TRANSFORMATIONS: &str = include_str!("../../book/src/transformations.md");
const DISTINGUISH: &str = include_str!("../../book/src/distinguish.md");

/// What the requests of one router share: the held states, the sweeps
/// under way, and the number of computations under way (`GET /api/status`).
#[derive(Default)]
pub struct Work {
    pub held: Held,
    pub sweeps: Sweeps,
    running: AtomicUsize,
}

/// The routes: the page, its two assets, and the API.
pub fn router() -> Router {
    let work = Arc::new(Work::default());
    let status = work.clone();
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
        .route(
            "/book/explorer.md",
            get(|| async { page(CHAPTER, "text/plain; charset=utf-8") }),
        )
        .route(
            "/book/transformations.md",
            get(|| async { page(TRANSFORMATIONS, "text/plain; charset=utf-8") }),
        )
        .route(
            "/book/distinguish.md",
            get(|| async { page(DISTINGUISH, "text/plain; charset=utf-8") }),
        )
        .route("/api/examples", get(|| async { Json(api::examples()) }))
        .route(
            "/api/status",
            get(move || async move {
                Json(json!({ "running": status.running.load(Ordering::SeqCst) }))
            }),
        )
        .route("/api/options", get(|| async { answer(api::options(None)) }))
        .route(
            "/api/options",
            api_route(&work, |r, _| api::options(Some(r))),
        )
        .route(
            "/api/decide",
            api_route(&work, |r, w| api::decide(r, &w.held)),
        )
        .route(
            "/api/states",
            api_route(&work, |r, w| api::states(r, &w.held)),
        )
        .route("/api/explain", api_route(&work, |r, _| api::explain(r)))
        .route("/api/pomsets", api_route(&work, |r, _| api::pomsets(r)))
        .route("/api/draw", api_route(&work, |r, _| api::draw(r)))
        .route("/api/refine", api_route(&work, |r, _| api::refine(r)))
        .route("/api/vary", api_route(&work, |r, _| api::vary(r)))
        .route("/api/compare", api_route(&work, |r, _| api::compare(r)))
        .route(
            "/api/transformations",
            get(|| async { answer(api::transformations_list()) }),
        )
        .route(
            "/api/transformations",
            api_route(&work, |r, _| api::transformations(r)),
        )
        .route(
            "/api/distinguish",
            api_route(&work, |r, w| api::distinguish(r, &w.sweeps)),
        )
}

/// A `POST` endpoint over `f`, run by `endpoint`.
fn api_route<F>(work: &Arc<Work>, f: F) -> MethodRouter
where
    F: Fn(&Request, &Work) -> Result<Value, Problem> + Clone + Send + Sync + 'static,
{
    let work = work.clone();
    post(move |body: Result<Json<Request>, JsonRejection>| {
        let (work, f) = (work.clone(), f.clone());
        async move { endpoint(body, work, f).await }
    })
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

/// Runs `f` on a blocking thread with a cancel flag in the request's
/// limits, set when the client goes away (axum drops this future when the
/// connection closes: the page's Cancel aborts its fetch), so no search
/// outlives its client; a malformed body is a located JSON error and a
/// panic is a 500 with a message, never a dropped connection.
async fn endpoint<F>(body: Result<Json<Request>, JsonRejection>, work: Arc<Work>, f: F) -> Response
where
    F: FnOnce(&Request, &Work) -> Result<Value, Problem> + Send + 'static,
{
    let mut req = match body {
        Ok(Json(req)) => req,
        Err(why) => {
            return answer(Err(Problem::message(format!(
                "the request is not the JSON the API takes: {}",
                why.body_text()
            ))))
        }
    };
    // A field the API would ignore or change quietly is refused, named.
    if let Err(p) = req.check() {
        return answer(Err(p));
    }
    let flag = Arc::new(Flag::take());
    req.cancel = Some(flag.0);
    let mut gone = CancelOnDrop {
        flag: flag.clone(),
        done: false,
    };
    let job = tokio::task::spawn_blocking(move || {
        work.running.fetch_add(1, Ordering::SeqCst);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&req, &work)));
        work.running.fetch_sub(1, Ordering::SeqCst);
        drop(flag);
        result
    });
    let result = job.await;
    gone.done = true;
    match result {
        Ok(Ok(result)) => answer(result),
        _ => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({ "error": Problem::message("internal error: the request's computation failed (please report the test)") })),
        )
            .into_response(),
    }
}

/// The cancel flags of requests under way. `Limits::cancel` is a
/// `&'static AtomicBool` (the REPL's Ctrl-C), so each flag is made once and
/// returned here when its request ends: as many flags as requests ever ran
/// at once.
static FLAGS: Mutex<Vec<&'static AtomicBool>> = Mutex::new(Vec::new());

/// One request's cancel flag, back in `FLAGS` when the last holder drops it.
struct Flag(&'static AtomicBool);

impl Flag {
    fn take() -> Flag {
        let spare = FLAGS.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let flag = spare.unwrap_or_else(|| Box::leak(Box::new(AtomicBool::new(false))));
        flag.store(false, Ordering::SeqCst);
        Flag(flag)
    }
}

impl Drop for Flag {
    fn drop(&mut self) {
        FLAGS.lock().unwrap_or_else(|e| e.into_inner()).push(self.0);
    }
}

/// Sets the flag when dropped before the computation is done: the client left.
struct CancelOnDrop {
    flag: Arc<Flag>,
    done: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.done {
            self.flag.0.store(true, Ordering::SeqCst);
        }
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
