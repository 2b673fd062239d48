//! The web explorer's JSON API (`pomset serve`), over real HTTP: a server
//! on a free port, tests posted, verdicts, option flips and located errors
//! checked.

use crate::families;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::OnceLock;

use families::{iriw, sb_ring};
use serde_json::{json, Value};

/// One server for every test of this file, on a free port of 127.0.0.1.
fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| {
        let server = pomset::serve::start("127.0.0.1:0".parse().expect("an address"))
            .expect("the server starts");
        let addr = server.addr;
        std::thread::spawn(move || server.wait());
        addr
    })
}

/// Sends one HTTP/1.0 request and returns the status and the body.
fn request(method: &str, path: &str, body: Option<&Value>) -> (u16, String) {
    let mut stream = TcpStream::connect(server()).expect("the server accepts");
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.0\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("request sent");
    stream.write_all(body.as_bytes()).expect("body sent");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("a response");
    let (head, body) = response.split_once("\r\n\r\n").expect("headers end");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    (status, body.to_string())
}

fn post(path: &str, body: Value) -> (u16, Value) {
    let (status, text) = request("POST", path, Some(&body));
    (status, serde_json::from_str(&text).expect("JSON back"))
}

fn example(path: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    std::fs::read_to_string(root.join(path)).expect("the example exists")
}

fn observation(answer: &Value) -> &str {
    answer["report"]["conditions"][0]["observation"]
        .as_str()
        .expect("an observation")
}

#[test]
fn mp_rel_acq_is_forbidden_under_the_defaults() {
    let (status, answer) = post(
        "/api/decide",
        json!({ "source": example("classic/mp+rel+acq.litmus") }),
    );
    assert_eq!(status, 200, "{answer}");
    assert_eq!(observation(&answer), "Never");
    assert_eq!(answer["report"]["states"].as_array().map(Vec::len), Some(5));
    assert!(answer["text"]
        .as_str()
        .is_some_and(|t| t.starts_with("Test MP+rel+acq Forbidden")));
}

#[test]
fn flipping_c7a_to_direct_allows_mp_with_fences() {
    let src = example("catalogue/c06-mp-fences.litmus");
    let (_, default) = post("/api/decide", json!({ "source": src }));
    let (_, direct) = post(
        "/api/decide",
        json!({ "source": src, "sets": ["c7a=direct"] }),
    );
    assert_eq!(observation(&default), "Never");
    assert_eq!(observation(&direct), "Sometimes");
    let c7a = direct["options"]
        .as_array()
        .and_then(|o| o.iter().find(|o| o["name"] == "c7a"))
        .expect("c7a listed");
    assert_eq!(c7a["value"], "direct");
    assert_eq!(c7a["default"], "closure");
}

#[test]
fn the_sc_and_rc11_deciders_answer_too() {
    let src = example("classic/sb.litmus");
    let (_, sc) = post("/api/decide", json!({ "source": src, "engine": "sc" }));
    let (_, rc11) = post("/api/decide", json!({ "source": src, "model": "rc11" }));
    let (_, named) = post("/api/decide", json!({ "source": src, "model": "sc" }));
    assert_eq!(observation(&sc), "Never", "SC forbids store buffering");
    assert_eq!(
        observation(&named),
        "Never",
        "the model named as on the command line"
    );
    assert_eq!(observation(&rc11), "Sometimes", "RC11 allows relaxed SB");
    let (status, refused) = post(
        "/api/decide",
        json!({ "source": src, "model": "/etc/passwd" }),
    );
    assert_eq!(status, 400);
    assert!(refused["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("no bundled model is called `/etc/passwd`")));
}

#[test]
fn a_syntax_error_is_located_with_line_and_column() {
    let (status, answer) = post(
        "/api/decide",
        json!({ "source": "litmus T\nx := 1;\n|| r := ;\n" }),
    );
    assert_eq!(status, 400);
    let d = &answer["error"]["diagnostics"][0];
    assert_eq!((d["line"].as_u64(), d["col"].as_u64()), (Some(3), Some(9)));
    assert_eq!(d["severity"], "error");
    assert!(answer["error"]["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("test.litmus:3:9:")));
}

#[test]
fn an_error_in_the_condition_is_located_in_the_condition() {
    let (status, answer) = post(
        "/api/explain",
        json!({ "source": example("classic/mp+rel+acq.litmus"), "condition": "P1:r = = 1" }),
    );
    assert_eq!(status, 400);
    let d = &answer["error"]["diagnostics"][0];
    assert_eq!(d["file"], "<condition>");
    assert_eq!((d["line"].as_u64(), d["col"].as_u64()), (Some(1), Some(8)));
}

#[test]
fn bad_options_and_bad_bodies_are_json_errors() {
    let src = example("classic/mp+rel+acq.litmus");
    let (status, answer) = post(
        "/api/decide",
        json!({ "source": src, "sets": ["c7a=bogus"] }),
    );
    assert_eq!(status, 400);
    assert!(answer["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("closure_po")));
    let (status, text) = request("POST", "/api/decide", None);
    assert_eq!(status, 400);
    let v: Value = serde_json::from_str(&text).expect("a JSON error");
    assert!(v["error"]["message"].is_string());
}

#[test]
fn explain_names_the_failing_rule() {
    let (status, answer) = post(
        "/api/explain",
        json!({ "source": example("classic/mp+rel+acq.litmus") }),
    );
    assert_eq!(status, 200);
    let text = answer["text"].as_str().expect("text");
    assert!(text.contains("Forbidden:"), "{text}");
    assert!(text.contains("c8b"), "{text}");
}

#[test]
fn draw_gives_one_svg_per_pomset_of_the_state() {
    let (status, answer) = post(
        "/api/draw",
        json!({ "source": example("classic/mp+rel+acq.litmus"), "condition": "P1:r = 1 /\\ P1:s = 1" }),
    );
    assert_eq!(status, 200, "{answer}");
    let pictures = answer["pictures"].as_array().expect("pictures");
    assert_eq!(pictures.len(), 1);
    assert_eq!(answer["in_all"], 1);
    assert!(pictures[0].as_str().is_some_and(|s| s.starts_with("<svg")));
}

#[test]
fn refine_and_vary_answer() {
    let (_, refined) = post(
        "/api/refine",
        json!({ "refinement": example("refinements/r01-redundant-write.refine") }),
    );
    assert_eq!(refined["verdict"], refined["expected"], "{refined}");
    let (_, table) = post(
        "/api/vary",
        json!({ "source": example("catalogue/c06-mp-fences.litmus"), "option": "c7a" }),
    );
    let rows = table["rows"].as_array().expect("rows");
    let direct = rows
        .iter()
        .find(|r| r["value"] == "direct")
        .expect("direct");
    assert_eq!(direct["verdicts"][0], false, "direct allows the outcome");
    let closure = rows
        .iter()
        .find(|r| r["value"] == "closure")
        .expect("closure");
    assert_eq!(closure["verdicts"][0], true);
}

#[test]
fn a_request_stops_at_its_pomset_limit() {
    let (status, answer) = post(
        "/api/decide",
        json!({ "source": example("classic/iriw.litmus"), "max_pomsets": 3 }),
    );
    assert_eq!(status, 200, "{answer}");
    assert!(answer["report"]["limit"].is_string(), "{answer}");
    // Issue 74: a verdict only where a state found before the limit
    // settles it (the ring's `exists`: one found state that makes it true).
    let c = &answer["report"]["conditions"][0];
    assert!(
        c["ok"].is_null() || (c["ok"] == json!(true) && c["positive"].as_u64() > Some(0)),
        "{c}"
    );
    assert_eq!(answer["report"]["states_at_least"], json!(true));
}

#[test]
fn concurrent_requests_are_answered() {
    let src = example("classic/mp+rel+acq.litmus");
    let threads: Vec<_> = (0..6)
        .map(|_| {
            let src = src.clone();
            std::thread::spawn(move || post("/api/decide", json!({ "source": src })))
        })
        .collect();
    for t in threads {
        let (status, answer) = t.join().expect("a thread");
        assert_eq!(status, 200);
        assert_eq!(observation(&answer), "Never");
    }
}

#[test]
fn the_page_and_the_examples_are_served() {
    let (status, page) = request("GET", "/", None);
    assert_eq!(status, 200);
    assert!(
        page.contains("<script src=\"app.js\""),
        "the page loads its script"
    );
    let (status, list) = request("GET", "/api/examples", None);
    assert_eq!(status, 200);
    let list: Value = serde_json::from_str(&list).expect("JSON");
    assert!(list
        .as_array()
        .is_some_and(|l| l.iter().any(|e| e["path"] == "classic/mp+rel+acq.litmus")));
    let (status, options) = request("GET", "/api/options", None);
    assert_eq!(status, 200);
    let options: Value = serde_json::from_str(&options).expect("JSON");
    assert_eq!(
        options["options"].as_array().map(Vec::len),
        Some(pomset::model::Model::OPTIONS.len())
    );
}

#[test]
fn pomsets_and_candidates_are_listed_as_the_command_line_lists_them() {
    let src = example("classic/lb+datas.litmus");
    let (status, complete) = post("/api/pomsets", json!({ "source": src }));
    assert_eq!(status, 200, "{complete}");
    let (_, candidates) = post(
        "/api/pomsets",
        json!({ "source": src, "which": "candidates" }),
    );
    let count = |v: &Value, key: &str| v[key].as_u64().expect("a count");
    assert!(count(&complete, "count") >= 1);
    assert_eq!(count(&candidates, "complete"), count(&complete, "count"));
    assert!(count(&candidates, "count") > count(&candidates, "complete"));
    assert!(candidates["summary"]
        .as_str()
        .is_some_and(|s| s.contains("candidate pomsets")));
}

/// Six threads of four accesses each: far more than a fraction of a
/// second of search, so the request's timeout ends it.
fn big_test() -> String {
    let threads: Vec<String> = (0..6)
        .map(|i| format!("x := {}; y := 1; r{i} := x; s{i} := y;", i % 2))
        .collect();
    format!("litmus BIG\n{}\n", threads.join("\n|| "))
}

#[test]
fn a_large_test_stops_at_the_request_timeout_with_the_limit_named() {
    let (status, answer) = post(
        "/api/decide",
        json!({ "source": big_test(), "timeout": 0.2 }),
    );
    assert_eq!(status, 200, "{answer}");
    let limit = answer["report"]["limit"].as_str().expect("a limit");
    assert!(limit.contains("timeout"), "{limit}");
    // Meanwhile the server still answers small tests.
    let (_, small) = post(
        "/api/decide",
        json!({ "source": example("classic/mp+rel+acq.litmus") }),
    );
    assert_eq!(observation(&small), "Never");
}

/// A bundled Vulkan example (the page lists `examples/vulkan`): the pomset
/// semantics refuses it by name on every endpoint, pointing at `--model
/// vulkan`, and the Vulkan model decides it.
#[test]
fn a_vulkan_example_is_refused_by_pwt_and_decided_by_vulkan() {
    let src = example("vulkan/mp-avvis.litmus");
    let (status, answer) = post("/api/decide", json!({ "source": src }));
    assert_eq!(status, 200, "{answer}");
    let why = answer["report"]["unsupported"].as_str().unwrap_or_default();
    assert!(
        why.contains("Vulkan model only") && why.contains("--model vulkan"),
        "{answer}"
    );
    for endpoint in ["/api/pomsets", "/api/explain", "/api/draw"] {
        let (status, refused) = post(endpoint, json!({ "source": src }));
        assert_eq!(status, 400, "{endpoint}: {refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("--model vulkan")),
            "{endpoint}: {refused}"
        );
    }
    let (status, vulkan) = post("/api/decide", json!({ "source": src, "model": "vulkan" }));
    assert_eq!(status, 200, "{vulkan}");
    assert_eq!(observation(&vulkan), "Never", "{vulkan}");
}

fn states(v: &Value) -> &Vec<Value> {
    v.as_array().expect("a list of states")
}

#[test]
fn decide_lists_one_page_of_states_with_the_count_and_judges_them_all() {
    let src = sb_ring(6);
    let (status, first) = post("/api/decide", json!({ "source": src }));
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["page"]["total"], 729, "3^6 states in all");
    assert_eq!(first["page"]["offset"], 0);
    assert_eq!(
        states(&first["report"]["states"]).len(),
        pomset::serve::api::DEFAULT_PAGE
    );
    // The verdict is the one over every state, not over the page.
    assert_eq!(observation(&first), "Sometimes");
    let (_, small) = post("/api/decide", json!({ "source": src, "page": 7 }));
    assert_eq!(states(&small["report"]["states"]).len(), 7);
    assert_eq!(
        small["report"]["states"].as_array().map(|s| &s[..]),
        first["report"]["states"].as_array().map(|s| &s[..7]),
        "a smaller page is the start of the same list"
    );
}

/// The explorer keeps states as `pomset run` does: IRIW with six relaxed
/// readers (3^12 states, each reader kept apart) is decided in full, its
/// determined states held for paging (the first ones, as `run` lists its
/// first thousand), and `page.all` counts every state.
#[test]
fn decide_holds_the_first_states_of_a_test_with_more_than_it_holds() {
    let src = iriw(6, "");
    let (status, first) = post("/api/decide", json!({ "source": src }));
    assert_eq!(status, 200, "{first}");
    assert!(
        first["report"]["limit"].is_null(),
        "{}",
        first["report"]["limit"]
    );
    assert_eq!(observation(&first), "Sometimes");
    assert_eq!(first["page"]["all"], 531_441, "1, 0 or `?` per read");
    assert_eq!(
        first["page"]["total"], 4096,
        "the determined ones: 0 or 1 per read"
    );
    let row = &states(&first["report"]["states"])[0];
    let values: Vec<i64> = row["values"]
        .as_array()
        .expect("values")
        .iter()
        .filter_map(|v| v[1].as_i64())
        .collect();
    assert_eq!(
        values,
        [vec![0; 12], vec![1, 1]].concat(),
        "the least first"
    );
}

#[test]
fn states_serves_the_later_pages_of_a_decision_without_deciding_again() {
    let src = sb_ring(6);
    let (_, all) = post("/api/decide", json!({ "source": src, "page": 1000 }));
    let all = states(&all["report"]["states"]).clone();
    assert_eq!(all.len(), 729);
    let (_, first) = post("/api/decide", json!({ "source": src, "page": 100 }));
    let id = first["page"]["id"].clone();
    let mut listed = states(&first["report"]["states"]).clone();
    while listed.len() < 729 {
        let (status, next) = post(
            "/api/states",
            json!({ "id": id, "offset": listed.len(), "page": 300 }),
        );
        assert_eq!(status, 200, "{next}");
        assert_eq!(next["total"], 729);
        assert_eq!(next["offset"], listed.len());
        let more = states(&next["states"]);
        assert!(!more.is_empty(), "a page before the end is not empty");
        listed.extend(more.iter().cloned());
    }
    assert_eq!(listed, all, "the pages join into the whole list");
    let (_, past) = post("/api/states", json!({ "id": id, "offset": 729 }));
    assert_eq!(states(&past["states"]).len(), 0);
}

#[test]
fn states_of_a_forgotten_decision_ask_for_a_new_run() {
    let (status, answer) = post("/api/states", json!({ "id": 987_654_321u64, "offset": 0 }));
    assert_eq!(status, 400);
    let message = answer["error"]["message"].as_str().expect("a message");
    assert!(message.contains("no longer held"), "{message}");
    let (status, _) = post("/api/states", json!({ "offset": 0 }));
    assert_eq!(status, 400, "no id");
}

#[test]
fn the_held_states_forget_the_oldest_decisions_past_their_bound() {
    use pomset::report::StateCount;
    use pomset::serve::held::{Held, MAX_HELD};
    let held = Held::default();
    let one = |v: i64| StateCount {
        values: vec![("r".to_string(), Some(v))],
        count: 1,
    };
    let ids: Vec<u64> = (0..=MAX_HELD as i64)
        .map(|v| held.keep(&[one(v), one(v + 100)]))
        .collect();
    assert!(
        held.page(ids[0], 0, 10).is_none(),
        "the oldest is forgotten"
    );
    let last = held.page(ids[MAX_HELD], 1, 10).expect("the latest is held");
    assert_eq!(last.total, 2);
    assert_eq!(
        last.states,
        [json!({ "values": [["r", MAX_HELD as i64 + 100]], "count": 1 })]
    );
}

/// The issue's test: 3^12 states. The request's timeout ends the search and
/// the answer carries one page, whatever was found.
#[test]
fn a_twelve_thread_ring_stays_within_the_request_bounds() {
    let (status, body) = request(
        "POST",
        "/api/decide",
        Some(&json!({ "source": sb_ring(12), "timeout": 0.5 })),
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.len() < 1_000_000, "{} bytes", body.len());
    let answer: Value = serde_json::from_str(&body).expect("JSON back");
    let limit = answer["report"]["limit"].as_str().expect("a limit");
    assert!(limit.contains("timeout"), "{limit}");
    // Issue 74: a verdict only where a state found before the limit
    // settles it (the ring's `exists`: one found state that makes it true).
    let c = &answer["report"]["conditions"][0];
    assert!(
        c["ok"].is_null() || (c["ok"] == json!(true) && c["positive"].as_u64() > Some(0)),
        "{c}"
    );
    assert_eq!(answer["report"]["states_at_least"], json!(true));
    assert!(states(&answer["report"]["states"]).len() <= pomset::serve::api::DEFAULT_PAGE);
}

#[test]
fn vary_rows_say_which_verdicts_the_file_expects() {
    let (_, table) = post(
        "/api/vary",
        json!({ "source": example("catalogue/c06-mp-fences.litmus"), "option": "c7a" }),
    );
    let rows = table["rows"].as_array().expect("rows");
    // c06 expects the outcome allowed under the direct c7a, forbidden otherwise.
    for r in rows {
        assert_eq!(r["met"], json!([true]), "{r}");
    }
}

/// Six relaxed reads of one location: 7107 local pomsets on each side,
/// which the page's Check once decided for minutes and gigabytes.
const SIX_READS: &str = "r1 := x; r2 := x; r3 := x; r4 := x; r5 := x; r6 := x;";

#[test]
fn a_refinement_that_would_run_away_stops_at_its_time_limit_with_the_limit_named() {
    let started = std::time::Instant::now();
    let (status, refined) = post(
        "/api/refine",
        json!({ "from": SIX_READS, "to": SIX_READS, "timeout": 1 }),
    );
    let took = started.elapsed().as_secs_f64();
    assert_eq!(status, 200, "{refined}");
    assert_eq!(refined["verdict"], "unknown", "{refined}");
    let limit = refined["limit"].as_str().expect("the limit is named");
    assert!(limit.contains("--timeout 1"), "{limit}");
    assert!(refined["text"]
        .as_str()
        .is_some_and(|t| t.contains("--timeout 1")));
    // The deadline is asked between steps: a second or two past it at most.
    assert!(
        took < 6.0,
        "the refinement took {took:.1} s past a 1 s limit"
    );
}

/// `GET /api/status` of a server: its computations under way.
fn running(addr: SocketAddr) -> u64 {
    let mut stream = TcpStream::connect(addr).expect("the server accepts");
    stream
        .write_all(b"GET /api/status HTTP/1.0\r\nHost: localhost\r\n\r\n")
        .expect("request sent");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("a response");
    let (_, body) = response.split_once("\r\n\r\n").expect("headers end");
    let v: Value = serde_json::from_str(body).expect("JSON back");
    v["running"].as_u64().expect("a count")
}

#[test]
fn a_request_whose_client_goes_away_stops_computing() {
    // A server of its own, so that no other test's requests are counted.
    let server = pomset::serve::start("127.0.0.1:0".parse().expect("an address"))
        .expect("the server starts");
    let addr = server.addr;
    std::thread::spawn(move || server.wait());
    let body = json!({ "from": SIX_READS, "to": SIX_READS, "timeout": 60 }).to_string();
    let mut stream = TcpStream::connect(addr).expect("the server accepts");
    let head = format!(
        "POST /api/refine HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("request sent");
    stream.write_all(body.as_bytes()).expect("body sent");
    let wait_for = |want: u64| {
        let started = std::time::Instant::now();
        while running(addr) != want {
            assert!(
                started.elapsed().as_secs() < 10,
                "still {} computations, not {want}",
                running(addr)
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        started.elapsed()
    };
    wait_for(1);
    drop(stream);
    let stopped = wait_for(0);
    assert!(stopped.as_secs_f64() < 5.0, "stopped after {stopped:?}");
}

#[test]
fn check_uses_the_chosen_model() {
    // Moving a read after a later write: load buffering, which the pomset
    // semantics allows and RC11 (po ∪ rf acyclic) forbids.
    let pair = json!({ "from": "r := y; x := 1;", "to": "x := 1; r := y;", "timeout": 30 });
    let (_, pwt) = post("/api/refine", pair.clone());
    assert_eq!(pwt["model"], "pwt", "{pwt}");
    assert_eq!(pwt["verdict"], "sound", "{pwt}");
    let mut rc11 = pair;
    rc11["model"] = json!("rc11");
    let (status, rc11) = post("/api/refine", rc11);
    assert_eq!(status, 200, "{rc11}");
    assert_eq!(rc11["model"], "rc11", "{rc11}");
    assert_eq!(rc11["verdict"], "unsound", "{rc11}");
    assert!(rc11["text"]
        .as_str()
        .is_some_and(|t| t.contains("under RC11: unsound")));
    assert!(rc11["counterexample"].is_string(), "{rc11}");
}

#[test]
fn options_say_whether_the_chosen_model_reads_them() {
    let src = example("classic/mp+rel+acq.litmus");
    let applies = |answer: &Value| -> Vec<bool> {
        answer["options"]
            .as_array()
            .expect("options")
            .iter()
            .map(|o| o["applies"].as_bool().expect("applies"))
            .collect()
    };
    let (_, pwt) = post("/api/decide", json!({ "source": src }));
    assert!(applies(&pwt).iter().all(|&a| a), "{pwt}");
    let (_, rc11) = post("/api/decide", json!({ "source": src, "model": "rc11" }));
    assert!(!applies(&rc11).is_empty() && applies(&rc11).iter().all(|&a| !a));
    let (_, options) = post("/api/options", json!({ "model": "sc" }));
    assert!(applies(&options).iter().all(|&a| !a), "{options}");
}

#[test]
fn compare_decides_the_test_under_every_model() {
    let (status, table) = post(
        "/api/compare",
        json!({ "source": example("classic/mp+rel+acq.litmus") }),
    );
    assert_eq!(status, 200, "{table}");
    let models: Vec<&str> = table["models"]
        .as_array()
        .expect("models")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let verdict = |m: &str| {
        let i = models.iter().position(|x| *x == m).expect("the model");
        table["rows"][0]["verdicts"][i]
            .as_str()
            .expect("a verdict")
            .to_string()
    };
    assert_eq!(verdict("pwt"), "Never");
    assert_eq!(verdict("sc"), "Never");
    assert_eq!(verdict("rc11"), "Never");
}

/// The cells of a table answer, one `(model, cell)` per family and model.
fn cells(answer: &Value) -> Vec<(String, Value)> {
    answer["families"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|f| f["cells"].as_array().cloned().unwrap_or_default())
        .map(|c| (c["model"].as_str().unwrap_or_default().to_string(), c))
        .collect()
}

#[test]
fn the_transformation_schemas_are_listed_with_their_instances() {
    let (status, text) = request("GET", "/api/transformations", None);
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).expect("JSON back");
    assert_eq!(
        answer["models"],
        json!([
            "pwt",
            "rc11",
            "ptx",
            "vulkan",
            "hrf-direct",
            "hrf-indirect",
            "sc"
        ])
    );
    let roach = answer["schemas"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == "roach-acq"))
        .expect("roach-acq listed");
    assert_eq!(
        roach["instances"],
        json!(["roach-acq[M1=wk]", "roach-acq[M1=rlx]"])
    );
}

#[test]
fn one_schema_is_decided_under_the_chosen_models_with_each_unsound_cells_test() {
    // The book's table: roach-acq is unsound under SC (a test shows it),
    // bounded under RC11 (no context of the bound distinguishes); with a
    // plain (wk) write most of RC11's contexts race (vacuous).
    let (status, answer) = post(
        "/api/transformations",
        json!({ "schema": "roach-acq", "models": "sc,rc11", "timeout": 60 }),
    );
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["models"], json!(["sc", "rc11"]));
    assert_eq!(answer["instances"], 2);
    assert_eq!(answer["limit"], Value::Null);
    let families = answer["families"].as_array().expect("families");
    assert_eq!(families.len(), 2, "{answer}");
    assert_eq!(families[0]["holes"], "M1=wk");
    assert_eq!(families[0]["words"], json!(["unsound", "vacuous"]));
    let rc11 = &families[0]["cells"][1];
    assert_eq!(rc11["model"], "rc11", "{answer}");
    assert!(rc11["vacuous"].as_u64().is_some_and(|v| v > 0), "{rc11}");
    assert_eq!(rc11["contexts"], json!(661), "{rc11}");
    assert_eq!(families[1]["holes"], "M1=rlx");
    assert_eq!(families[1]["words"], json!(["unsound", "bounded"]));
    let cells = cells(&answer);
    let (_, sc) = cells.iter().find(|(m, _)| m == "sc").expect("an sc cell");
    let test = sc["target_test"].as_str().expect("the distinguishing test");
    let parsed = pomset::syntax::parse(test).expect("the test parses");
    assert!(!parsed.program.conditions.is_empty(), "{test}");
    assert!(sc["instance"]
        .as_str()
        .is_some_and(|i| i.starts_with("roach-acq[")));
    // One instance alone, and the models as a list.
    let (_, one) = post(
        "/api/transformations",
        json!({ "schema": "roach-acq", "instance": "roach-acq[M1=rlx]", "models": ["rc11"], "timeout": 60 }),
    );
    assert_eq!(one["instances"], 1, "{one}");
    assert_eq!(one["families"][0]["words"], json!(["bounded"]));
}

#[test]
fn a_table_request_names_the_limit_that_stopped_it() {
    let (status, answer) = post(
        "/api/transformations",
        json!({ "schema": "elim-fence", "models": "sc,rc11", "timeout": 0.01 }),
    );
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["limit"], "--timeout 0.01", "{answer}");
    // A cell decided before the deadline keeps its word; every other one
    // is unknown, with the limit and how far its search got: stopped
    // between contexts ("stopped by --timeout 0.01: k of n contexts
    // tried") or inside the last one ("1 of the n contexts left undecided
    // (the first: --timeout 0.01 s while deciding …)").
    let unknown: Vec<Value> = cells(&answer)
        .into_iter()
        .map(|(_, c)| c)
        .filter(|c| c["verdict"] == "unknown")
        .collect();
    assert!(!unknown.is_empty(), "{answer}");
    assert!(
        unknown.iter().all(|c| c["why"]
            .as_str()
            .is_some_and(|w| w.contains("--timeout 0.01") && w.contains(" of "))),
        "{answer}"
    );
    let (status, bad) = post("/api/transformations", json!({ "schema": "no-such" }));
    assert_eq!(status, 400);
    assert!(bad["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("no bundled schema is called `no-such`")));
    let (status, _) = post(
        "/api/transformations",
        json!({ "schema": "elim-fence", "models": "/etc/passwd" }),
    );
    assert_eq!(status, 400, "the server reads no file a request names");
}

#[test]
fn a_sweep_decided_chunk_by_chunk_lists_the_minimal_distinguishing_tests() {
    // SC against RC11 over two threads of two relaxed accesses: store
    // buffering and its kin, each program once.
    let bound = json!({ "models": ["sc", "rc11"], "threads": 2, "per_thread": 2, "locations": 2, "timeout": 60 });
    let mut body = bound.clone();
    body["chunk"] = json!(0);
    let (status, first) = post("/api/distinguish", body);
    assert_eq!(status, 200, "{first}");
    let (chunks, programs) = (
        first["chunks"].as_u64().unwrap(),
        first["programs"].as_u64().unwrap(),
    );
    assert!(chunks > 1, "cut into chunks: {first}");
    assert_eq!(first["complete"], false);
    assert!(first["headline"]
        .as_str()
        .unwrap()
        .starts_with("incomplete"));
    let mut last = first.clone();
    for k in 1..chunks {
        let mut body = bound.clone();
        body["chunk"] = json!(k);
        body["chunks"] = json!(chunks);
        body["sweep"] = first["sweep"].clone();
        let (status, answer) = post("/api/distinguish", body);
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["limit"], Value::Null);
        last = answer;
    }
    assert_eq!(last["complete"], true, "{last}");
    assert_eq!(last["decided"].as_u64(), Some(programs));
    let headline = last["headline"].as_str().unwrap();
    assert!(
        headline.contains(&format!(
            "of the {programs} programs of threads=2 per-thread=2"
        )),
        "{headline}"
    );
    let tests = last["tests"].as_array().expect("tests");
    assert!(!tests.is_empty(), "SC and RC11 differ: {last}");
    assert!(tests.iter().all(|t| t["allowed_by"] == "rc11"), "{last}");
    for t in tests {
        let litmus = t["litmus"].as_str().unwrap();
        pomset::syntax::parse(litmus).expect("a minimal test parses");
    }
    assert!(last["summary"]
        .as_str()
        .unwrap()
        .starts_with("sc vs rc11 over threads=2"));
}

#[test]
fn a_sweep_stops_at_the_request_limit_with_the_limit_and_the_count_named() {
    let (status, answer) = post(
        "/api/distinguish",
        // 1368 programs: more than 10 ms of work even in a release build
        // (19 000 programs a second in `cargo bench`), so the limit is met.
        json!({ "models": "sc,rc11", "threads": 2, "per_thread": 2, "modes": "rlx,acq,rel", "chunks": 1, "timeout": 0.01 }),
    );
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["limit"], "--timeout 0.01", "{answer}");
    let programs = answer["programs"].as_u64().unwrap();
    let headline = answer["headline"].as_str().unwrap();
    assert!(
        headline.starts_with("stopped by --timeout 0.01 after ")
            && headline.contains(&format!(" of {programs} programs")),
        "{headline}"
    );
    assert!(answer["summary"]
        .as_str()
        .unwrap()
        .contains("INCOMPLETE: stopped by --timeout 0.01"));
    let (status, _) = post("/api/distinguish", json!({ "models": ["sc"] }));
    assert_eq!(status, 400, "two models");
    let (status, _) = post("/api/distinguish", json!({ "threads": 9 }));
    assert_eq!(status, 400, "a bound past the explorer's");
}

/// The book as the explorer serves it (`serve::book`): mdBook's heading
/// ids, links between chapters to their rendered pages, every chapter
/// rendered, a chapter's Markdown moved to its page, pictures as they are.
#[test]
fn the_book_is_served_rendered_with_its_pictures_and_links() {
    use pomset::serve::book::{heading_ids, page, render, Served, FILES};
    assert_eq!(
        heading_ids(
            "# A b\n\n## The cat engine: a write's co positions\n\n## `x` and y\n\n## A b\n"
        ),
        [
            "a-b",
            "the-cat-engine-a-writes-co-positions",
            "x-and-y",
            "a-b-1"
        ]
    );
    let html = render(
        "# T\n\nSee [the diagrams](diagrams.md#arrows) and ![a](explorer/x.png) and [web](https://x.org/a.md).\n",
    );
    assert!(html.contains("href=\"diagrams.html#arrows\""), "{html}");
    assert!(html.contains("src=\"explorer/x.png\""), "{html}");
    assert!(html.contains("href=\"https://x.org/a.md\""), "{html}");
    assert!(html.contains("<h1 id=\"t\">T</h1>"), "{html}");
    assert!(html.contains("<title>T (pomset book)</title>"), "{html}");
    for (path, _) in FILES {
        if let Some(stem) = path.strip_suffix(".md") {
            let Some(Served::File(kind, body)) = page(&format!("{stem}.html")) else {
                panic!("{path} is not served");
            };
            assert!(kind.starts_with("text/html"));
            assert!(String::from_utf8_lossy(&body).contains("<h1"), "{path}");
        }
    }
    assert!(matches!(page("explorer.md"), Some(Served::Moved(p)) if p == "explorer.html"));
    assert!(page("nonesuch.html").is_none());
    assert!(matches!(
        page("explorer/error.png"),
        Some(Served::File("image/png", _))
    ));
    // Over HTTP: the contents, a chapter with its picture, the old address moved.
    let (status, contents) = request("GET", "/book/", None);
    assert_eq!(status, 200);
    assert!(contents.contains("href=\"explorer.html\""), "{contents}");
    let (status, chapter) = request("GET", "/book/explorer.html", None);
    assert_eq!(status, 200);
    assert!(
        chapter.contains("<img src=\"explorer/mp-rel-acq.png\""),
        "{chapter}"
    );
    let (status, _) = request("GET", "/book/explorer.md", None);
    assert_eq!(status, 301);
    let (status, _) = request("GET", "/book/nonesuch.html", None);
    assert_eq!(status, 404);
}

/// Heavy requests run a few at a time (`serve::Queue`): the others wait
/// their turn, each can learn its place, and all are answered.
#[test]
fn heavy_requests_wait_their_turn_in_the_queue() {
    // A server of its own, so that no other test's requests are counted.
    let server = pomset::serve::start("127.0.0.1:0".parse().expect("an address"))
        .expect("the server starts");
    let addr = server.addr;
    std::thread::spawn(move || server.wait());
    let status = |ticket: &str| -> Value {
        let mut stream = TcpStream::connect(addr).expect("the server accepts");
        stream
            .write_all(
                format!("GET /api/status?ticket={ticket} HTTP/1.0\r\nHost: localhost\r\n\r\n")
                    .as_bytes(),
            )
            .expect("request sent");
        let mut response = String::new();
        stream.read_to_string(&mut response).expect("a response");
        serde_json::from_str(response.split_once("\r\n\r\n").expect("a body").1).expect("JSON")
    };
    let at_once = status("")["at_once"].as_u64().expect("at_once") as usize;
    assert!((1..=4).contains(&at_once));
    let send = move |ticket: String| {
        std::thread::spawn(move || {
            let body = json!({ "from": SIX_READS, "to": SIX_READS, "timeout": 2 }).to_string();
            let mut stream = TcpStream::connect(addr).expect("the server accepts");
            let head = format!(
                "POST /api/refine HTTP/1.0\r\nHost: localhost\r\nContent-Type: application/json\r\nx-pomset-ticket: {ticket}\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            stream.write_all(head.as_bytes()).expect("request sent");
            stream.write_all(body.as_bytes()).expect("body sent");
            let mut response = String::new();
            stream.read_to_string(&mut response).expect("a response");
            response.split_whitespace().nth(1).map(str::to_string)
        })
    };
    let clients: Vec<_> = (0..at_once + 2).map(|k| send(format!("t{k}"))).collect();
    let started = std::time::Instant::now();
    let mut most = 0;
    let mut places = std::collections::BTreeSet::new();
    while started.elapsed().as_secs() < 30 {
        let s = status("t0");
        let running = s["running"].as_u64().unwrap_or(0) as usize;
        most = most.max(running);
        for k in 0..at_once + 2 {
            let t = status(&format!("t{k}"));
            most = most.max(t["running"].as_u64().unwrap_or(0) as usize);
            if let Some(p) = t["position"].as_u64() {
                places.insert(p);
            }
        }
        if s["waiting"] == 0 && running == 0 && places.len() >= 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    for c in clients {
        assert_eq!(c.join().expect("a client").as_deref(), Some("200"));
    }
    assert!(most <= at_once, "{most} ran at once, more than {at_once}");
    assert_eq!(
        places,
        [1, 2].into_iter().collect(),
        "the two beyond the turns waited, first and second"
    );
}

/// A decision lists (and holds for paging) at most `MAX_LISTED` states,
/// the first determined ones, whatever the engine kept: listed states are
/// plain values, and 200 000 of them took hundreds of megabytes a request.
/// A ring of ten store-buffering threads has 3^10 states, 2^10 of them
/// without `?`.
#[test]
fn a_decision_lists_at_most_max_listed_states() {
    let (status, answer) = post(
        "/api/decide",
        json!({ "source": sb_ring(10), "timeout": 60 }),
    );
    assert_eq!(status, 200, "{answer}");
    assert!(
        answer["report"]["limit"].is_null(),
        "{}",
        answer["report"]["limit"]
    );
    assert_eq!(answer["page"]["all"], 59049);
    assert_eq!(answer["page"]["total"], 1024, "the determined ones held");
    assert!(1024 <= pomset::serve::api::MAX_LISTED && 59049 > pomset::serve::api::MAX_LISTED);
}

#[test]
fn fields_the_api_would_ignore_or_change_are_refused_by_name() {
    let src = example("classic/sb.litmus");
    for (body, names) in [
        (
            json!({ "source": src, "engine": "bogus" }),
            "`engine: \"bogus\"`",
        ),
        (
            json!({ "source": src, "engine": "sc", "model": "rc11" }),
            "`engine: \"sc\"`",
        ),
        (
            json!({ "source": src, "max_pomsets": 0 }),
            "`max_pomsets: 0`",
        ),
        (
            json!({ "source": src, "max_pomsets": 10_000_000 }),
            "`max_pomsets: 10000000`",
        ),
        (json!({ "source": src, "timeout": -1 }), "`timeout: -1`"),
        (json!({ "source": src, "page": 0 }), "`page: 0`"),
        (
            json!({ "source": src, "model": "rc11[c7a=direct]" }),
            "has no option `c7a`",
        ),
    ] {
        let (status, answer) = post("/api/decide", body.clone());
        assert_eq!(status, 400, "{body}: {answer}");
        let message = answer["error"]["message"].as_str().expect("a message");
        assert!(message.contains(names), "{body}: {message}");
    }
    // The older names still work.
    let (status, answer) = post("/api/decide", json!({ "source": src, "engine": "sc" }));
    assert_eq!(status, 200, "{answer}");
}

#[test]
fn refine_honours_context_size_and_refuses_one_outside_its_range() {
    let pair = json!({ "from": "x := 1; r := x;", "to": "x := 1; r := 1;", "context_size": 1 });
    let (status, refined) = post("/api/refine", pair);
    assert_eq!(status, 200, "{refined}");
    let text = refined["text"].as_str().expect("the text");
    assert!(text.contains("of size ≤ 1 "), "{text}");
    let pair = json!({ "from": "x := 1; r := x;", "to": "x := 1; r := 1;", "context_size": 9 });
    let (status, refused) = post("/api/refine", pair);
    assert_eq!(status, 400, "{refused}");
    assert!(refused["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("`context_size: 9`")));
}

#[test]
fn refine_says_unsound_star_as_the_table_does() {
    // The pomset-level check finds a target pomset with no match; no
    // context of the bound shows it: the table's `unsound*`.
    let pair = json!({ "from": "x := 1; r := x;", "to": "x := 1; r := 1;" });
    let (_, refined) = post("/api/refine", pair);
    assert_eq!(refined["verdict"], "unsound*", "{refined}");
    let text = refined["text"].as_str().expect("the text");
    assert!(text.contains("quick: unsound* ("), "{text}");
    assert!(
        text.contains("unsound*: a target pomset has no match"),
        "{text}"
    );
}
