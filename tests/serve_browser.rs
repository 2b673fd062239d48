//! The web explorer in a real browser: headless Chromium loads the page
//! served by `pomset::serve`, which decides MP+rel+acq, flips an option
//! through its menu (the page's `flip=` link parameter does what a click
//! does), and draws the chosen state's pomsets. The test reads the DOM
//! Chromium dumps. Without Chromium (Debian's `chromium`) it prints that it
//! was skipped. `UPDATE_SCREENSHOTS=1` also writes the book's screenshots
//! (book/src/explorer/*.png).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Chromium binary, if one is installed.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
}

/// Chromium's flags for one headless run in a fresh profile.
fn headless(browser: &Path, profile: &Path) -> Command {
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        "--virtual-time-budget=30000",
        "--window-size=1400,1300",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    cmd
}

/// Runs a Chromium command to its end, killing it after a minute (a hung
/// browser fails the test instead of hanging `cargo test`); its stdout.
fn finish(mut cmd: Command) -> (bool, String) {
    use std::io::Read;
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("chromium can be waited for") {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish within a minute");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    (status.success(), reader.join().unwrap_or_default())
}

/// The page's DOM after its scripts ran, for the link `fragment`.
fn dom(browser: &Path, base: &str, fragment: &str) -> String {
    let profile = tempdir("dom");
    let mut cmd = headless(browser, &profile);
    cmd.arg("--dump-dom").arg(format!("{base}#{fragment}"));
    let (_, out) = finish(cmd);
    let _ = std::fs::remove_dir_all(&profile);
    out
}

/// A screenshot of the page at `fragment`, into the book.
fn screenshot(browser: &Path, base: &str, fragment: &str, name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("book/src/explorer");
    std::fs::create_dir_all(&dir).expect("book/src/explorer can be created");
    let profile = tempdir("shot");
    let file = dir.join(name);
    let mut cmd = headless(browser, &profile);
    cmd.arg(format!("--screenshot={}", file.display()))
        .arg(format!("{base}#{fragment}"));
    let (ok, _) = finish(cmd);
    let _ = std::fs::remove_dir_all(&profile);
    assert!(ok && file.is_file(), "screenshot {name}");
    eprintln!("wrote {}", file.display());
}

fn tempdir(what: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let dir =
        std::env::temp_dir().join(format!("pomset-chromium-{}-{what}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

/// The observation cells of the verdicts table, in order.
fn observations(dom: &str) -> Vec<&str> {
    dom.split("data-observation=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .collect()
}

#[test]
fn the_page_decides_flips_an_option_and_draws() {
    let Some(browser) = chromium() else {
        println!("skipped: Chromium is not installed (apt-get install chromium runs this test)");
        return;
    };
    let server = pomset::serve::start("127.0.0.1:0".parse().expect("an address"))
        .expect("the server starts");
    let base = format!("http://{}/", server.addr);

    // MP+rel+acq, then c7a flipped to direct through its menu: still forbidden.
    let mp = dom(
        &browser,
        &base,
        "ex=classic%2Fmp%2Brel%2Bacq.litmus&flip=c7a=direct",
    );
    assert!(
        mp.contains("data-ready=\"yes\""),
        "the page finished:\n{mp}"
    );
    assert_eq!(observations(&mp), ["Never"], "MP+rel+acq is forbidden");
    assert!(
        mp.contains("(1 not default)"),
        "the flipped option is marked"
    );
    assert!(mp.contains("<svg"), "a pomset is drawn as SVG");
    assert!(
        mp.contains(">rel</tspan>") && mp.contains(">acq</tspan>"),
        "the release write and the acquire read are drawn"
    );
    assert!(!mp.contains("flipped (was"), "no verdict flipped");

    // The tutorial's flip: c7a = direct allows MP with fences; the verdict is marked.
    let fences = dom(
        &browser,
        &base,
        "ex=catalogue%2Fc06-mp-fences.litmus&flip=c7a=direct&vary=c7a",
    );
    assert_eq!(observations(&fences), ["Sometimes"]);
    assert!(
        fences.contains("flipped (was Never)"),
        "the flipped verdict is marked"
    );
    // `vary` decides under every value of c7a: only direct allows the outcome.
    assert!(fences.contains("Varying c7a"), "the vary table is shown");
    let row = |value: &str| {
        fences
            .split("<tr>")
            .find(|r| r.starts_with(&format!("<td>{value}")))
            .map(|r| r.contains("<td class=\"no\">No</td>"))
    };
    assert_eq!(row("direct (current)"), Some(true), "direct: No");
    assert_eq!(row("closure (default)"), Some(false), "closure: Ok");

    // A syntax error is shown located.
    let broken = dom(
        &browser,
        &base,
        "src=litmus%20T%0Ax%20%3A%3D%201%3B%0A%7C%7C%20r%20%3A%3D%20%3B%0A",
    );
    assert!(
        broken.contains("test.litmus:3:9: error"),
        "located error shown:\n{broken}"
    );

    if std::env::var_os("UPDATE_SCREENSHOTS").is_some() {
        screenshot(
            &browser,
            &base,
            "ex=classic%2Fmp%2Brel%2Bacq.litmus&explain=",
            "mp-rel-acq.png",
        );
        screenshot(
            &browser,
            &base,
            "ex=catalogue%2Fc06-mp-fences.litmus&flip=c7a=direct&vary=c7a",
            "flip-c7a.png",
        );
        screenshot(
            &browser,
            &base,
            "src=litmus%20T%0Ax%20%3A%3D%201%3B%0A%7C%7C%20r%20%3A%3D%20%3B%0A",
            "error.png",
        );
    }
}
