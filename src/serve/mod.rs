//! `pomset serve`: the web explorer. An axum server on 127.0.0.1 by default
//! with a JSON API over `workbench` (`api.rs`) and one embedded page
//! (`page/`: HTML, CSS and JavaScript, no network at run time). Every
//! decision runs on a blocking thread within the request's limits, so
//! requests run side by side and none can hang the server.

pub mod api;
pub mod book;
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

/// What the requests of one router share: the held states, the sweeps
/// under way, the number of computations under way (`GET /api/status`),
/// and the queue of the heavy ones.
#[derive(Default)]
pub struct Work {
    pub held: Held,
    pub sweeps: Sweeps,
    running: AtomicUsize,
    pub queue: Queue,
}

/// The heavy requests (every decision, explanation, drawing, refinement,
/// comparison, table schema and sweep chunk) run at most `Queue::limit` at
/// once; the others wait their turn in order of arrival, so memory grows
/// with the limit, not with the number of requests (each request's own
/// memory is bounded by its limits). A waiting request that its client
/// abandons leaves the queue; past `MAX_WAITING` waiting, a request is
/// refused at once (503) with the reason. A client may name its request
/// (`x-pomset-ticket`) and ask `GET /api/status?ticket=T` for its place in
/// the queue, as the page does.
pub struct Queue {
    permits: Arc<tokio::sync::Semaphore>,
    limit: usize,
    /// The requests waiting, first first: an id of the server's and the
    /// client's ticket.
    waiting: Mutex<Vec<(u64, String)>>,
    next: AtomicUsize,
}

/// The most requests that wait for their turn at once.
pub const MAX_WAITING: usize = 64;

impl Default for Queue {
    fn default() -> Queue {
        Queue::new(default_running())
    }
}

/// Heavy requests run at once by default: one per core, at most 4 (a
/// decision may itself use several cores).
pub fn default_running() -> usize {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, 4)
}

impl Queue {
    pub fn new(limit: usize) -> Queue {
        let limit = limit.max(1);
        Queue {
            permits: Arc::new(tokio::sync::Semaphore::new(limit)),
            limit,
            waiting: Mutex::new(Vec::new()),
            next: AtomicUsize::new(0),
        }
    }

    /// How many heavy requests run at once.
    pub fn limit(&self) -> usize {
        self.limit
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, Vec<(u64, String)>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many requests wait, and the place (1 = next) of the one with
    /// `ticket`, if it waits.
    pub fn position(&self, ticket: Option<&str>) -> (usize, Option<usize>) {
        let waiting = self.waiting();
        let place = ticket.and_then(|t| waiting.iter().position(|(_, w)| w == t).map(|k| k + 1));
        (waiting.len(), place)
    }

    /// Waits for a turn (in order of arrival); `Err` with the reason when
    /// too many wait already. Dropping the future leaves the queue; the
    /// permit goes with the computation, which returns it when it ends.
    async fn turn(&self, ticket: String) -> Result<tokio::sync::OwnedSemaphorePermit, String> {
        let id = self.next.fetch_add(1, Ordering::SeqCst) as u64;
        {
            let mut waiting = self.waiting();
            if waiting.len() >= MAX_WAITING {
                return Err(format!(
                    "the explorer is busy: {} requests are waiting for the {} that run at once; try again when they are done",
                    waiting.len(),
                    self.limit
                ));
            }
            waiting.push((id, ticket));
        }
        struct Leave<'a>(&'a Queue, u64);
        impl Drop for Leave<'_> {
            fn drop(&mut self) {
                self.0.waiting().retain(|(i, _)| *i != self.1);
            }
        }
        let _leave = Leave(self, id);
        self.permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| "the server is stopping".to_string())
    }
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
            "/book",
            get(|| async { (StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, "/book/")]) }),
        )
        .route("/book/", get(|| async { book_page(String::new()) }))
        .route(
            "/book/{*path}",
            get(|path: axum::extract::Path<String>| async move { book_page(path.0) }),
        )
        .route("/api/examples", get(|| async { Json(api::examples()) }))
        .route(
            "/api/status",
            get(
                move |q: axum::extract::Query<std::collections::HashMap<String, String>>| async move {
                    let (waiting, position) = status.queue.position(q.get("ticket").map(String::as_str));
                    Json(json!({
                        "running": status.running.load(Ordering::SeqCst),
                        "waiting": waiting,
                        "at_once": status.queue.limit(),
                        "position": position,
                    }))
                },
            ),
        )
        .route("/api/options", get(|| async { answer(api::options(None)) }))
        .route(
            "/api/options",
            api_route(&work, Light, |r, _| api::options(Some(r))),
        )
        .route(
            "/api/decide",
            api_route(&work, Heavy, |r, w| api::decide(r, &w.held)),
        )
        .route(
            "/api/states",
            api_route(&work, Light, |r, w| api::states(r, &w.held)),
        )
        .route("/api/explain", api_route(&work, Heavy, |r, _| api::explain(r)))
        .route("/api/pomsets", api_route(&work, Heavy, |r, _| api::pomsets(r)))
        .route("/api/draw", api_route(&work, Heavy, |r, _| api::draw(r)))
        .route("/api/refine", api_route(&work, Heavy, |r, _| api::refine(r)))
        .route("/api/vary", api_route(&work, Heavy, |r, _| api::vary(r)))
        .route("/api/compare", api_route(&work, Heavy, |r, _| api::compare(r)))
        .route(
            "/api/transformations",
            get(|| async { answer(api::transformations_list()) }),
        )
        .route(
            "/api/transformations",
            api_route(&work, Heavy, |r, _| api::transformations(r)),
        )
        .route(
            "/api/distinguish/count",
            api_route(&work, Light, |r, _| api::distinguish_count(r)),
        )
        .route(
            "/api/distinguish",
            api_route(&work, Heavy, |r, w| api::distinguish(r, &w.sweeps)),
        )
}

/// Whether an endpoint waits its turn in the queue (`Queue`): the ones
/// that decide do, those that read what is held or parse only do not.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Weight {
    Heavy,
    Light,
}
use Weight::{Heavy, Light};

/// A `POST` endpoint over `f`, run by `endpoint`.
fn api_route<F>(work: &Arc<Work>, weight: Weight, f: F) -> MethodRouter
where
    F: Fn(&Request, &Work) -> Result<Value, Problem> + Clone + Send + Sync + 'static,
{
    let work = work.clone();
    post(
        move |headers: axum::http::HeaderMap, body: Result<Json<Request>, JsonRejection>| {
            let (work, f) = (work.clone(), f.clone());
            let ticket = headers
                .get("x-pomset-ticket")
                .and_then(|t| t.to_str().ok())
                .map(str::to_string);
            async move {
                if weight == Light {
                    return endpoint(body, work, f, None).await;
                }
                let queue = work.clone();
                match queue.queue.turn(ticket.unwrap_or_default()).await {
                    Ok(permit) => endpoint(body, work, f, Some(permit)).await,
                    Err(busy) => (
                        StatusCode::SERVICE_UNAVAILABLE,
                        Json(json!({ "error": Problem::message(busy) })),
                    )
                        .into_response(),
                }
            }
        },
    )
}

fn page(text: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], text).into_response()
}

/// A page of the book (`book::page`): a chapter rendered, a picture, a
/// chapter's Markdown moved to its rendered page, or 404.
fn book_page(path: String) -> Response {
    match book::page(&path) {
        Some(book::Served::File(kind, body)) => {
            ([(header::CONTENT_TYPE, kind)], body).into_response()
        }
        Some(book::Served::Moved(to)) => {
            (StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, to)]).into_response()
        }
        None => (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            format!("the book has no page `{path}` (the contents: /book/)"),
        )
            .into_response(),
    }
}

/// A result as a response: the value, or `{"error": Problem}` with 400.
fn answer(result: Result<Value, Problem>) -> Response {
    match result {
        Ok(v) => Json(v).into_response(),
        Err(p) => (StatusCode::BAD_REQUEST, Json(json!({ "error": p }))).into_response(),
    }
}

/// Runs `f` on a blocking thread (holding its turn of the queue, `permit`,
/// until it ends) with a cancel flag in the request's limits, set when the client goes away (axum drops this future when the
/// connection closes: the page's Cancel aborts its fetch), so no search
/// outlives its client; a malformed body is a located JSON error and a
/// panic is a 500 with a message, never a dropped connection.
async fn endpoint<F>(
    body: Result<Json<Request>, JsonRejection>,
    work: Arc<Work>,
    f: F,
    permit: Option<tokio::sync::OwnedSemaphorePermit>,
) -> Response
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
        drop(permit);
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
