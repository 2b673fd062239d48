//! The REPL's pure core: a `Session` takes one complete input, a command or a
//! program text, and returns what to print. It owns no terminal, so scripted
//! sessions and snapshot tests drive it exactly as a person does.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use super::output::{Output, Tone};
use crate::model::Model;
use crate::outcome::Limits;
use crate::syntax::{self, core::Program, Litmus};
use crate::workbench::{
    apply_sets, decide, explain_text_within, model_text, pomset_listing, vary, VaryRow,
};

/// One command: its name, its arguments as the help shows them, and one line
/// of help. Completion and `:help` read this table.
pub struct CommandInfo {
    pub name: &'static str,
    pub args: &'static str,
    pub help: &'static str,
}

/// Every command, in the order `:help` lists them.
pub const COMMANDS: &[CommandInfo] = &[
    CommandInfo {
        name: "load",
        args: "FILE",
        help: "load a litmus file; it becomes the current test",
    },
    CommandInfo {
        name: "reload",
        args: "",
        help: "read the loaded file again (after editing it)",
    },
    CommandInfo {
        name: "run",
        args: "",
        help: "decide the current test's conditions: states, verdicts, herd7's summary",
    },
    CommandInfo {
        name: "pomsets",
        args: "[complete|candidates] [--outcome COND]",
        help: "list the complete pomsets (the first few; :show N for the others)",
    },
    CommandInfo {
        name: "show",
        args: "N",
        help: "print pomset N of the last listing",
    },
    CommandInfo {
        name: "explain",
        args: "[COND]",
        help: "why an outcome is forbidden: the failing rule for each way to reach it",
    },
    CommandInfo {
        name: "draw",
        args: "N [--format FORMAT] [-o PATH]",
        help: "draw pomset N of the last listing: text, dot, tikz or svg",
    },
    CommandInfo {
        name: "set",
        args: "OPTION VALUE",
        help: "set a model option for the rest of the session (as --set OPTION=VALUE)",
    },
    CommandInfo {
        name: "unset",
        args: "OPTION",
        help: "forget a :set; the option returns to the test's value or the default",
    },
    CommandInfo {
        name: "options",
        args: "",
        help: "the current model: every option's value, non-defaults marked *",
    },
    CommandInfo {
        name: "vary",
        args: "OPTION",
        help: "decide the current test under every value of OPTION, as a table",
    },
    CommandInfo {
        name: "refine",
        args: "S1 ~> S2",
        help: "check that fragment S2 refines S1 (a compiler transformation)",
    },
    CommandInfo {
        name: "limit",
        args: "[NAME VALUE]",
        help: "the search limits (timeout, max-states, max-pomsets, max-steps, max-memory)",
    },
    CommandInfo {
        name: "let",
        args: "[NAME = FRAGMENT]",
        help: "name a fragment; $NAME in later input stands for it",
    },
    CommandInfo {
        name: "values",
        args: "[{0, 1, 2} | default]",
        help: "the value set V for fragments typed at the prompt",
    },
    CommandInfo {
        name: "scopes",
        args: "[SCOPE-TREE | default]",
        help: "the scope tree for fragments, e.g. gpu { cta { P0 } cta { P1 } }",
    },
    CommandInfo {
        name: "help",
        args: "[COMMAND]",
        help: "this list, or one command's help",
    },
    CommandInfo {
        name: "quit",
        args: "",
        help: "leave (Ctrl-D does too)",
    },
];

/// Longer help for the commands that need an example.
fn details(name: &str) -> &'static str {
    match name {
        "pomsets" => "  :pomsets --outcome r = 1 /\\ s = 1    only pomsets ending in that state\n  :pomsets candidates                  candidates too, complete or not",
        "explain" => "  :explain P0:r = 1 /\\ P1:s = 1\n  Without a condition, each condition of the test is explained.",
        "set" => "  :set c7a direct        (also :set c7a=direct)\n  :options lists the options and their values; Tab completes both.",
        "vary" => "  :vary c7a              one row per value of c7a, one column per condition",
        "let" => "  :let w = x := 1; y.rel := 1\n  $w || r := y.acq; s := x\n  :let alone lists the names.",
        "values" => "  :values {0, 1, 2}      fragments declare V = {0, 1, 2}\n  :values default        V is computed from the program again",
        "scopes" => "  :scopes gpu { cta { P0 } cta { P1 } }\n  Threads of a fragment are named P0, P1, ... in order.",
        "refine" => "  :refine r := x; s := x ~> r := x; s := r",
        "limit" => "  :limit timeout 10       stop each query after 10 s (:limit timeout off)\n  :limit max-states 5000  as run's --max-states; also max-pomsets, max-steps,\n                          max-memory MB. A query that reaches one is Unknown, named.",
        "draw" => "  :draw 1                       the first pomset as a text picture\n  :draw 2 --format svg -o lb.svg  an SVG file (also dot, tikz)",
        _ => "",
    }
}

/// How many pomsets a listing prints before `:show N` takes over.
pub const FIRST_FEW: usize = 3;

/// How many complete pomsets a listing in the REPL enumerates at most.
const LISTED_STATES: usize = 10_000;

/// Where the current test came from.
#[derive(Clone, Debug)]
enum Origin {
    File(PathBuf),
    Input,
}

#[derive(Clone, Debug)]
struct Current {
    origin: Origin,
    /// The source as parsed (for a fragment, the wrapped litmus text).
    src: String,
    test: Litmus,
}

/// What one input produced.
#[derive(Clone, Debug, Default)]
pub struct Reply {
    pub output: Output,
    /// The input asked to leave.
    pub quit: bool,
}

/// An interactive session: the current test, model options set with `:set`,
/// named fragments, the value set and scopes for fragments, and the last
/// listing of pomsets.
#[derive(Debug, Default)]
pub struct Session {
    current: Option<Current>,
    /// `:set` overrides in the order given; they apply on top of the test's
    /// `model {}` block exactly as `--set` does.
    sets: Vec<(String, String)>,
    lets: BTreeMap<String, String>,
    values: Option<String>,
    scopes: Option<String>,
    listing: Vec<String>,
    /// The `--outcome` of the last listing, so `:draw N` numbers as it did.
    listing_outcome: Option<String>,
    cancel: Option<&'static AtomicBool>,
    /// How files are read (`--unroll`), as the command line gave it.
    import: crate::import::Options,
    /// `:limit`: the limits of every query (no deadline), and `--timeout`.
    limits: Limits,
    timeout: Option<f64>,
}

/// How many states `:run` lists after Ctrl-C.
pub const INTERRUPTED_STATES: usize = 10;

impl Session {
    pub fn new() -> Session {
        Session::default()
    }

    /// Files are read with these options (`pomset repl --unroll N`).
    pub fn with_import(mut self, import: crate::import::Options) -> Session {
        self.import = import;
        self
    }

    /// A flag that, once set (by a Ctrl-C handler), stops the running query as
    /// a deadline would; the caller clears it before each input.
    pub fn with_cancel(mut self, flag: &'static AtomicBool) -> Session {
        self.cancel = Some(flag);
        self
    }

    /// The names given with `:let`, for completion.
    pub fn let_names(&self) -> impl Iterator<Item = &str> {
        self.lets.keys().map(String::as_str)
    }

    /// Evaluates one complete input: a `:command`, a fragment or a litmus file.
    pub fn eval(&mut self, input: &str) -> Reply {
        let mut out = Output::default();
        let input = input.trim();
        let mut quit = false;
        if input.is_empty() {
        } else if let Some(command) = input.strip_prefix(':') {
            let (name, args) = split_word(command);
            let args = args.trim();
            match name {
                "q" | "quit" | "exit" => quit = true,
                "h" | "help" | "?" => self.help(args, &mut out),
                "load" | "l" => self.load(args, &mut out),
                "reload" | "r" => self.reload(&mut out),
                "run" => self.run(&mut out),
                "pomsets" | "p" => self.pomsets(args, &mut out),
                "show" => self.show(args, &mut out),
                "explain" | "e" => self.explain(args, &mut out),
                "draw" => self.draw(args, &mut out),
                "set" => self.set(args, &mut out),
                "unset" => self.unset(args, &mut out),
                "options" => self.options(&mut out),
                "vary" => self.vary(args, &mut out),
                "refine" => self.refine(args, &mut out),
                "let" => self.define(args, &mut out),
                "limit" => self.limit(args, &mut out),
                "values" => match header_errors("values ", args, "the values") {
                    Some(e) => out.push(Tone::Error, e),
                    None => set_text(&mut self.values, "values", args, &mut out),
                },
                "scopes" => match header_errors("scopes: ", args, "the scope tree") {
                    Some(e) => out.push(Tone::Error, e),
                    None => set_text(&mut self.scopes, "scopes", args, &mut out),
                },
                "" => out.error("a command name follows `:`; :help lists them"),
                other => {
                    let names = COMMANDS.iter().map(|c| c.name);
                    match crate::model::closest(other, names) {
                        Some(s) => {
                            out.error(format!("unknown command `:{other}` (did you mean `:{s}`?)"))
                        }
                        None => out.error(format!(
                            "unknown command `:{other}`; :help lists the commands"
                        )),
                    }
                }
            }
        } else {
            self.program(input, &mut out);
        }
        Reply { output: out, quit }
    }

    fn help(&self, args: &str, out: &mut Output) {
        let name = args.trim_start_matches(':');
        if name.is_empty() {
            out.push(Tone::Heading, "Type a fragment (r := x; y := r), threads (... || ...), a litmus file, or a command:");
            for c in COMMANDS {
                let usage = format!(":{} {}", c.name, c.args);
                if usage.len() > 36 {
                    out.plain(format!("  {usage}"));
                    out.plain(format!("  {:<36} {}", "", c.help));
                } else {
                    out.plain(format!("  {usage:<36} {}", c.help));
                }
            }
            out.hint(
                "A fragment becomes the current test; :run, :vary and :explain then apply to it.",
            );
            return;
        }
        match COMMANDS.iter().find(|c| c.name == name) {
            Some(c) => {
                out.push(Tone::Heading, format!(":{} {}", c.name, c.args).trim_end());
                out.plain(format!("  {}", c.help));
                let more = details(c.name);
                if !more.is_empty() {
                    out.plain(more);
                }
            }
            None => out.error(format!("no command `:{name}`; :help lists them")),
        }
    }

    /// The model the current test runs under: its `model {}` block, then `:set`.
    fn model(&self) -> Model {
        let mut model = self
            .current
            .as_ref()
            .map(|c| c.test.program.model)
            .unwrap_or_default();
        for (k, v) in &self.sets {
            // Every pair was accepted by `Model::set` when it was given.
            let _ = model.set(k, v);
        }
        model
    }

    /// The limits of one query: `:limit`'s, the deadline counted from now.
    fn limits(&self) -> Limits {
        let deadline = self.timeout.map(crate::outcome::limits::deadline_after);
        Limits {
            cancel: self.cancel,
            deadline,
            ..self.limits
        }
    }

    /// `:limit [NAME VALUE]`: lists the limits, or sets one.
    fn limit(&mut self, args: &str, out: &mut Output) {
        let (name, value) = split_word(args);
        let value = value.trim();
        let number = || value.parse::<u64>().ok().filter(|n| *n > 0);
        match (name, value) {
            ("", _) => {
                let timeout = self.timeout.map_or("off".to_string(), |t| format!("{t} s"));
                return out.plain(format!(
                    "timeout {timeout}, max-states {}, max-pomsets {}, max-steps {}, max-memory {} MB",
                    self.limits.max_states,
                    self.limits.max_pomsets,
                    self.limits.max_steps,
                    crate::memory::budget_mb(),
                ));
            }
            ("timeout", "off") => self.timeout = None,
            ("timeout", v) => match v.parse::<f64>() {
                Ok(t) if t > 0.0 && t.is_finite() => self.timeout = Some(t),
                _ => return out.error("timeout takes a number of seconds, or off"),
            },
            ("max-states" | "max-pomsets" | "max-steps" | "max-memory", _) => {
                let Some(n) = number() else {
                    return out.error(format!("{name} takes a positive whole number"));
                };
                let n_usize = usize::try_from(n).unwrap_or(usize::MAX);
                match name {
                    "max-states" => self.limits.max_states = n_usize,
                    "max-pomsets" => self.limits.max_pomsets = n_usize,
                    "max-steps" => self.limits.max_steps = n,
                    _ => crate::memory::set_budget_mb(n_usize),
                }
            }
            _ => {
                return out.error(format!(
                    "no limit `{name}`: timeout, max-states, max-pomsets, max-steps, max-memory"
                ))
            }
        }
        let unit = if name == "timeout" && value != "off" {
            " s"
        } else {
            ""
        };
        out.plain(format!(
            "{name} {value}{unit} (for the queries from now on)"
        ));
    }

    fn current(&self, out: &mut Output) -> Option<&Current> {
        if self.current.is_none() {
            out.error("no current test: type a fragment or :load FILE");
        }
        self.current.as_ref()
    }

    fn load(&mut self, args: &str, out: &mut Output) {
        if args.is_empty() {
            out.error(":load takes a file name");
            return;
        }
        self.load_path(PathBuf::from(args), out);
    }

    fn reload(&mut self, out: &mut Output) {
        match self.current.as_ref().map(|c| &c.origin) {
            Some(Origin::File(path)) => {
                let path = path.clone();
                self.load_path(path, out)
            }
            Some(Origin::Input) => {
                out.error("the current test was typed, not loaded; :reload rereads a file")
            }
            None => out.error("nothing loaded yet: :load FILE"),
        }
    }

    fn load_path(&mut self, path: PathBuf, out: &mut Output) {
        let src = match syntax::diagnostic::read_text(&path) {
            Ok(s) => s,
            Err(e) => return out.error(e),
        };
        let name = path.display().to_string();
        // A file may be in any format `pomset run` reads.
        let Some(test) = load(&src, &name, self.import, out) else {
            return;
        };
        let p = &test.program;
        out.plain(format!(
            "Loaded {} from {name}: {}, {}",
            p.name,
            crate::report::count(p.threads.len(), "thread"),
            crate::report::count(p.conditions.len(), "condition")
        ));
        self.listing.clear();
        self.current = Some(Current {
            origin: Origin::File(path),
            src,
            test,
        });
    }

    /// A fragment or a whole litmus file typed at the prompt.
    fn program(&mut self, input: &str, out: &mut Output) {
        let text = match self.expand(input) {
            Ok(t) => t,
            Err(e) => return out.error(e),
        };
        let (src, parsed) = if text.starts_with("litmus") {
            let src = format!("{text}\n");
            let parsed = parse(&src, "<input>", out);
            (src, parsed)
        } else {
            self.parse_fragment(&text, out)
        };
        let Some(test) = parsed else {
            return;
        };
        let conditions = test.program.conditions.len();
        self.current = Some(Current {
            origin: Origin::Input,
            src,
            test,
        });
        self.listing_outcome = None;
        self.list(None, out);
        if conditions > 0 {
            out.hint(format!(
                "({conditions} condition(s): :run decides them, :explain says why)"
            ));
        }
    }

    /// A fragment as a litmus test: `||` separates threads, and the session's
    /// values and scopes become its header.
    fn wrap(&self, fragment: &str) -> String {
        let mut src = String::from("litmus FRAGMENT\n");
        if let Some(v) = &self.values {
            src.push_str(&format!("values {v}\n"));
        }
        if let Some(s) = &self.scopes {
            src.push_str(&format!("scopes: {s}\n"));
        }
        src.push('\n');
        src.push_str(fragment);
        src.push('\n');
        src
    }

    /// Parses a fragment wrapped as a litmus test. Diagnostics that point
    /// into the fragment are shown against the fragment as typed (line 1 is
    /// the first line typed); those about the header the session added
    /// (values, scopes) are shown against the whole wrapped test.
    fn parse_fragment(&self, fragment: &str, out: &mut Output) -> (String, Option<Litmus>) {
        let src = self.wrap(fragment);
        let header = src.len() - fragment.len() - 1;
        let typed = format!("{fragment}\n");
        let render = |d: &syntax::Diagnostics| {
            render_within(d, &src, header, &typed, ("<input>", "the input"))
        };
        let parsed = match syntax::parse(&src) {
            Ok(t) => {
                if !t.warnings.is_empty() {
                    out.push(Tone::Hint, render(&t.warnings));
                }
                Some(t)
            }
            Err(d) => {
                out.push(Tone::Error, render(&d));
                None
            }
        };
        (src, parsed)
    }

    /// Replaces each `$NAME` by the fragment `:let` gave it.
    fn expand(&self, input: &str) -> Result<String, String> {
        let mut out = String::new();
        let mut rest = input;
        while let Some(i) = rest.find('$') {
            out.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            let len = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let name = &after[..len];
            match self.lets.get(name) {
                Some(text) => out.push_str(text),
                None if name.is_empty() => {
                    return Err("`$` is followed by a name given with :let".into())
                }
                None => {
                    return Err(format!(
                        "`${name}` is not defined; :let {name} = FRAGMENT defines it"
                    ))
                }
            }
            rest = &after[len..];
        }
        out.push_str(rest);
        Ok(out)
    }

    fn define(&mut self, args: &str, out: &mut Output) {
        if args.is_empty() {
            if self.lets.is_empty() {
                out.hint("no names yet: :let NAME = FRAGMENT");
            }
            for (k, v) in &self.lets {
                out.plain(format!("{k} = {v}"));
            }
            return;
        }
        let Some((name, body)) = args.split_once('=') else {
            return out.error(":let takes NAME = FRAGMENT");
        };
        let name = name.trim();
        if name.is_empty() {
            return out.error(":let takes NAME = FRAGMENT");
        }
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !valid {
            return out.error(format!("`{name}` is not a name (letters, digits and _)"));
        }
        let body = match self.expand(body.trim()) {
            Ok(b) => b,
            Err(e) => return out.error(e),
        };
        // Check the fragment now, so a typo shows where it was made.
        if self.parse_fragment(&body, out).1.is_none() {
            return;
        }
        out.plain(format!("{name} = {body}"));
        self.lets.insert(name.to_string(), body);
    }

    /// Lists the current test's complete pomsets (those satisfying `filter`).
    fn list(&mut self, filter: Option<(&Program, &crate::syntax::core::Prop)>, out: &mut Output) {
        let model = self.model();
        let Some(cur) = self.current.as_ref() else {
            return out.error("no current test: type a fragment or :load FILE");
        };
        let (p, prop) = match filter {
            Some((p, prop)) => (p, Some(prop)),
            None => (&cur.test.program, None),
        };
        // A preview: enumerating a big test's pomsets in full only to count
        // them would keep the prompt waiting; `:run` has the full limits.
        let limits = Limits {
            max_states: LISTED_STATES,
            ..self.limits()
        };
        let listing = pomset_listing(p, &model, prop, limits);
        for shown in listing.pomsets.iter().take(FIRST_FEW) {
            out.plain(shown);
            out.plain("");
        }
        let summary = listing.summary(FIRST_FEW.min(listing.pomsets.len()));
        out.push(
            if listing.limit.is_some() {
                Tone::Bad
            } else {
                Tone::Heading
            },
            summary,
        );
        if listing.pomsets.len() > FIRST_FEW {
            out.hint(format!(
                "(:show N prints pomset N of {})",
                listing.pomsets.len()
            ));
        }
        self.listing = listing.pomsets;
    }

    fn pomsets(&mut self, args: &str, out: &mut Output) {
        let (kind, rest) = split_word(args);
        let (kind, rest) = match kind {
            "complete" => ("complete", rest.trim()),
            "candidates" => ("candidates", rest.trim()),
            _ => ("complete", args),
        };
        if kind == "candidates" {
            if !rest.is_empty() {
                return out.error("--outcome selects complete pomsets by their final state, which a candidate need not have");
            }
            return self.candidates(out);
        }
        let condition = match rest.strip_prefix("--outcome") {
            Some(c) if c.trim().is_empty() => {
                return out.error("--outcome takes a condition, e.g. --outcome r = 1 /\\ s = 1")
            }
            Some(c) => Some(c.trim()),
            None if rest.is_empty() => None,
            None => {
                return out.error(format!(
                    "unexpected `{rest}`; :pomsets [complete|candidates] [--outcome COND]"
                ))
            }
        };
        self.listing_outcome = condition.map(str::to_string);
        match condition {
            None => self.list(None, out),
            Some(c) => {
                let Some(test) = self.with_condition(c, out) else {
                    return;
                };
                let Some(prop) = test.program.conditions.last().map(|c| c.prop.clone()) else {
                    return;
                };
                self.list(Some((&test.program, &prop)), out);
            }
        }
    }

    /// The candidate pomsets (complete or not), as `pomset pomsets --candidates`.
    fn candidates(&mut self, out: &mut Output) {
        let model = self.model();
        let limits = self.limits();
        let Some(cur) = self.current(out) else {
            return;
        };
        let p = &cur.test.program;
        self.listing = match crate::engine::pwt::candidate_texts(p, &model, limits, 10_000) {
            Ok((listed, l)) => {
                for shown in listed.iter().take(FIRST_FEW) {
                    out.plain(shown);
                    out.plain("");
                }
                let more = if listed.len() > FIRST_FEW {
                    format!(", {FIRST_FEW} shown")
                } else {
                    String::new()
                };
                out.push(
                    Tone::Heading,
                    format!(
                        "{}, {} complete{more}",
                        crate::report::count(l.candidates, "candidate pomset"),
                        l.complete
                    ),
                );
                if let Some(limit) = l.limit {
                    out.push(
                        Tone::Bad,
                        format!("Limit reached: {limit} (the list is incomplete)"),
                    );
                }
                if listed.len() > FIRST_FEW {
                    out.hint(format!("(:show N prints candidate N of {})", listed.len()));
                }
                listed
            }
            Err(u) => {
                out.error(u.sentence("is not implemented for listing candidates"));
                Vec::new()
            }
        };
    }

    /// The current test with `exists (COND)` appended, parsed as the CLI does
    /// for `--outcome` and `explain`, so COND names what the file's
    /// conditions name.
    fn with_condition(&self, condition: &str, out: &mut Output) -> Option<Litmus> {
        let cur = self.current(out)?;
        let head = format!("{}\nexists (", cur.src.trim_end());
        let src = format!("{head}{condition})\n");
        match syntax::parse(&src) {
            Ok(t) => Some(t),
            Err(d) => {
                out.push(
                    Tone::Error,
                    render_within(
                        &d,
                        &src,
                        head.len(),
                        condition,
                        ("<condition>", "the condition"),
                    ),
                );
                None
            }
        }
    }

    fn show(&self, args: &str, out: &mut Output) {
        let Ok(n) = args.parse::<usize>() else {
            return out.error(format!(":show takes a pomset number, not `{args}`"));
        };
        match n.checked_sub(1).and_then(|i| self.listing.get(i)) {
            Some(p) => out.plain(p),
            None if self.listing.is_empty() => {
                out.error("no pomsets listed yet: type a fragment or :pomsets")
            }
            None => out.error(format!(
                "the last listing has pomsets 1 to {}",
                self.listing.len()
            )),
        }
    }

    /// `:run`: the test's report, as `pomset run` prints it.
    fn run(&self, out: &mut Output) {
        let Some(cur) = self.current(out) else {
            return;
        };
        let p = &cur.test.program;
        let model = self.model();
        // States kept as compactly as `pomset run` keeps them (one per
        // orbit, readers kept apart), listing what its text shows.
        let limits = Limits {
            orbits: true,
            listed: Some(crate::report::SHOWN_STATES),
            ..self.limits()
        };
        let report = decide(&crate::engine::pwt::Pwt, p, &model, false, limits);
        // Ctrl-C leaves a partial list, possibly of tens of thousands of
        // states: a count and the first few say enough.
        let text = match &report.limit {
            Some(l) if l.starts_with("interrupted") => {
                report.text_cut(p, INTERRUPTED_STATES, "the search was interrupted")
            }
            _ => report.text(p),
        };
        for line in text.lines() {
            // Timings differ from run to run; the REPL leaves them to `pomset run`.
            if line.starts_with("Time ") {
                continue;
            }
            out.push(tone_of(line), line);
        }
        if p.conditions.is_empty() {
            out.hint("(no conditions: :explain COND or :pomsets --outcome COND asks about one)");
        }
    }

    fn explain(&self, args: &str, out: &mut Output) {
        let model = self.model();
        if args.is_empty() {
            let Some(cur) = self.current(out) else {
                return;
            };
            let p = &cur.test.program;
            if p.conditions.is_empty() {
                return out.error("the current test has no conditions; :explain COND names one");
            }
            let all: Vec<usize> = (0..p.conditions.len()).collect();
            return out.plain(explain_text_within(p, &model, &all, &self.limits()));
        }
        let Some(test) = self.with_condition(args, out) else {
            return;
        };
        let p = &test.program;
        out.plain(explain_text_within(
            p,
            &model,
            &[p.conditions.len() - 1],
            &self.limits(),
        ));
    }

    fn set(&mut self, args: &str, out: &mut Output) {
        let (k, v) = match args.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => {
                let (k, v) = split_word(args);
                (k, v.trim())
            }
        };
        if k.is_empty() || v.is_empty() {
            return out.error(":set takes OPTION VALUE; :options lists them");
        }
        let mut model = self.model();
        if let Err(e) = apply_sets(&mut model, &[format!("{k}={v}")]) {
            return out.error(e);
        }
        self.sets.retain(|(name, _)| name != k);
        self.sets.push((k.to_string(), v.to_string()));
        out.plain(format!("{k} = {v}"));
    }

    fn unset(&mut self, args: &str, out: &mut Output) {
        if args.is_empty() {
            return out.error(":unset takes an option name; :options lists them");
        }
        let Some(info) = Model::OPTIONS.iter().find(|o| o.name == args) else {
            let names = Model::OPTIONS.iter().map(|o| o.name);
            return match crate::model::closest(args, names) {
                Some(s) => out.error(format!(
                    "unknown model option `{args}` (did you mean `{s}`?)"
                )),
                None => out.error(format!(
                    "unknown model option `{args}`; :options lists them"
                )),
            };
        };
        let before = self.sets.len();
        self.sets.retain(|(name, _)| name != info.name);
        if self.sets.len() == before {
            out.hint(format!("{} was not set in this session", info.name));
        }
        let value = self.model().get(info.name).unwrap_or(info.default);
        out.plain(format!("{} = {value}", info.name));
    }

    fn options(&self, out: &mut Output) {
        let model = self.model();
        let from_test = self
            .current
            .as_ref()
            .map(|c| c.test.program.model)
            .unwrap_or_default();
        out.push(
            Tone::Heading,
            format!("  {:<18} {:<14} {}", "option", "value", "default"),
        );
        for o in Model::OPTIONS {
            let value = model.get(o.name).unwrap_or(o.default);
            let changed = value != o.default;
            let why = if self.sets.iter().any(|(k, _)| k == o.name) {
                "  (:set)"
            } else if from_test.get(o.name) != Some(o.default) {
                "  (the test's model block)"
            } else {
                ""
            };
            let line = format!(
                "{} {:<18} {:<14} {}{why}",
                if changed { "*" } else { " " },
                o.name,
                value,
                o.default
            );
            out.push(if changed { Tone::Bad } else { Tone::Plain }, line);
        }
        out.hint("* marks a value other than the default; :set OPTION VALUE changes one");
    }

    fn vary(&self, args: &str, out: &mut Output) {
        let Some(info) = Model::OPTIONS.iter().find(|o| o.name == args) else {
            let names = Model::OPTIONS.iter().map(|o| o.name);
            return match crate::model::closest(args, names) {
                Some(s) => out.error(format!(
                    "unknown model option `{args}` (did you mean `{s}`?)"
                )),
                None if args.is_empty() => {
                    out.error(":vary takes an option name; :options lists them")
                }
                None => out.error(format!(
                    "unknown model option `{args}`; :options lists them"
                )),
            };
        };
        let Some(cur) = self.current(out) else {
            return;
        };
        let p = &cur.test.program;
        let base = self.model();
        let table = vary(p, &base, info, || self.limits());
        let mut header = vec![info.name.to_string(), "states".to_string()];
        header.extend(table.conditions.iter().cloned());
        let rows: Vec<Vec<String>> = table
            .rows
            .iter()
            .map(|r| vary_cells(r, table.conditions.len()))
            .collect();
        let widths: Vec<usize> = (0..header.len())
            .map(|i| {
                rows.iter()
                    .filter_map(|r| r.get(i))
                    .chain(std::iter::once(&header[i]))
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: &[String]| {
            cells
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:<w$}"))
                .collect::<Vec<_>>()
                .join("  ")
                .trim_end()
                .to_string()
        };
        out.push(
            Tone::Heading,
            format!(
                "{} under {}, varying {}:",
                p.name,
                model_text(&base),
                info.name
            ),
        );
        out.push(Tone::Heading, line(&header));
        for row in &rows {
            let tone = if row.iter().skip(2).any(|c| c == "Unknown") {
                Tone::Bad
            } else {
                Tone::Plain
            };
            out.push(tone, line(row));
        }
        if p.conditions.is_empty() {
            out.hint(
                "(the test has no conditions, so only the number of final states is compared)",
            );
        }
    }

    /// `:draw N [--format text|dot|tikz|svg] [-o PATH]`: pomset N of the last
    /// listing (same numbering, same `--outcome`), as `pomset draw` draws it.
    fn draw(&self, args: &str, out: &mut Output) {
        use crate::render::draw::{DrawOptions, Format, Which};
        use crate::workbench::draw;
        let usage = ":draw N [--format text|dot|tikz|svg] [-o PATH]";
        let mut words = args.split_whitespace();
        let Some(n) = words
            .next()
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n >= 1)
        else {
            return out.error(format!(":draw takes a pomset number from 1: {usage}"));
        };
        let (mut format, mut path) = (Format::Text, None);
        while let Some(w) = words.next() {
            match (w, words.next()) {
                ("--format", Some(f)) => {
                    format = match f {
                        "text" => Format::Text,
                        "dot" => Format::Dot,
                        "tikz" => Format::Tikz,
                        "svg" => Format::Svg,
                        other => {
                            return out.error(format!(
                                "`{other}` is not a format; use text, dot, tikz or svg"
                            ))
                        }
                    }
                }
                ("-o", Some(p)) => path = Some(PathBuf::from(p)),
                ("--format" | "-o", None) => return out.error(format!("{w} takes a value")),
                (other, _) => return out.error(format!("unexpected `{other}`; {usage}")),
            }
        }
        let test = match &self.listing_outcome {
            Some(c) => match self.with_condition(c, out) {
                Some(t) => t,
                None => return,
            },
            None => match self.current(out) {
                Some(cur) => cur.test.clone(),
                None => return,
            },
        };
        let opts = DrawOptions {
            format,
            which: Which::Nth(n),
            outcome: self
                .listing_outcome
                .as_ref()
                .and_then(|_| test.program.conditions.last().map(|c| c.prop.clone())),
            limits: self.limits(),
            ..DrawOptions::default()
        };
        let text = match draw(&test, &self.model(), &opts) {
            Ok(t) => t,
            Err(e) => return out.error(e.to_string()),
        };
        match path {
            Some(p) => match std::fs::write(&p, text) {
                Ok(()) => out.plain(format!("wrote {}", p.display())),
                Err(e) => out.error(format!("cannot write {}: {e}", p.display())),
            },
            None => out.plain(text),
        }
    }

    /// `:refine S1 ~> S2`: `pomset refine --from S1 --to S2`, with the
    /// session's values and `:set` options.
    fn refine(&self, args: &str, out: &mut Output) {
        use crate::refinement::{parse_refinement, refine, Limits as RefineLimits};
        let Some((t1, t2)) = args.split_once("~>") else {
            return out
                .error(":refine takes S1 ~> S2, e.g. :refine r := x; s := x ~> r := x; s := r");
        };
        let (s1, s2) = match (self.expand(t1.trim()), self.expand(t2.trim())) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => return out.error(e),
        };
        let values = self
            .values
            .as_ref()
            .map_or(String::new(), |v| format!("values {v}\n"));
        let head = format!("refine quick\n{values}source {{ ");
        let middle = " }\ntarget { ";
        let src = format!("{head}{s1}{middle}{s2} }}\n");
        let req = match parse_refinement(&src) {
            Ok(r) => r,
            Err(d) => {
                // Where S1 and S2 sit in `src`, and where they were typed.
                fn typed(t: &str, at: usize) -> (usize, &str) {
                    (at + t.len() - t.trim_start().len(), t.trim())
                }
                let (at1, typed1) = typed(t1, 0);
                let (at2, typed2) = typed(t2, t1.len() + 2);
                let parts = [
                    Part {
                        src_at: head.len(),
                        src: &s1,
                        typed_at: at1,
                        typed: typed1,
                    },
                    Part {
                        src_at: head.len() + s1.len() + middle.len(),
                        src: &s2,
                        typed_at: at2,
                        typed: typed2,
                    },
                ];
                return out.push(
                    Tone::Error,
                    moved_to(&d, args, &parts).render("<input>", args),
                );
            }
        };
        let mut model = req.program.model;
        for (k, v) in &self.sets {
            // Every pair was accepted by `Model::set` when it was given.
            let _ = model.set(k, v);
        }
        let defaults = RefineLimits::default();
        let limits = RefineLimits {
            // Refinement's own pomset bound unless `:limit` set one.
            run: Limits {
                max_pomsets: if self.limits.max_pomsets == Limits::default().max_pomsets {
                    defaults.run.max_pomsets
                } else {
                    self.limits.max_pomsets
                },
                ..self.limits()
            },
            ..defaults
        };
        match refine(&req, &model, limits) {
            Ok(report) => {
                for line in report.text().lines() {
                    let tone = if line.contains(": sound") {
                        Tone::Good
                    } else if line.contains(": unsound") {
                        Tone::Bad
                    } else {
                        Tone::Plain
                    };
                    out.push(tone, line);
                }
            }
            Err(e) => out.error(e.to_string()),
        }
    }
}

/// The errors of `typed` as the header line `keyword typed` of a test
/// (`:values`, `:scopes`), located in what was typed, before the session
/// keeps it; `None` when it parses (or is empty or `default`, which
/// `set_text` reads).
fn header_errors(keyword: &str, typed: &str, what: &str) -> Option<String> {
    if typed.is_empty() || typed == "default" {
        return None;
    }
    let head = format!("litmus HEADER\n{keyword}");
    let src = format!("{head}{typed}\n\nskip;\n");
    let d = syntax::Diagnostics(vec![syntax::parse_file(&src).err()?]);
    // The closing text up to its first token: two newlines, then `skip`.
    Some(match d.within_wrapped(head.len(), typed.len(), 2, what) {
        Some(moved) => moved.render("<input>", typed),
        None => d.render("<input>", &src),
    })
}

/// `:values` and `:scopes`: show, reset with `default`, or set.
fn set_text(slot: &mut Option<String>, what: &str, args: &str, out: &mut Output) {
    match args {
        "" => match slot {
            Some(v) => out.plain(format!("{what} {v}")),
            None => out.plain(format!("{what}: the default (none declared)")),
        },
        "default" => {
            *slot = None;
            out.plain(format!("{what}: the default (none declared)"));
        }
        v => {
            *slot = Some(v.to_string());
            out.plain(format!("{what} {v} (for fragments typed from now on)"));
        }
    }
}

/// A fragment the REPL wrapped: where it sits in the wrapper, and where in
/// the typed line (`:let` names expanded, it may differ from what was typed).
struct Part<'a> {
    src_at: usize,
    src: &'a str,
    typed_at: usize,
    typed: &'a str,
}

/// The diagnostics against the typed line: a span inside a part moves to
/// where it was typed (to the whole part when a name was expanded); one in
/// the words the REPL added covers the whole line.
/// A span just after a part, in the REPL's closing text (` }`), is at the
/// end of the part as typed, and its message names no token the REPL added.
fn moved_to(d: &syntax::Diagnostics, line: &str, parts: &[Part<'_>]) -> syntax::Diagnostics {
    // The closing text after each part, up to its first token: ` }`.
    const TAIL: usize = 2;
    let part = |sp: syntax::Span| {
        parts
            .iter()
            .find(|p| sp.start >= p.src_at && sp.start <= p.src_at + p.src.len() + TAIL)
    };
    let moved = |sp: syntax::Span| {
        let Some(p) = part(sp) else {
            return syntax::Span::new(0, line.len());
        };
        if sp.start >= p.src_at + p.src.len() {
            let end = p.typed_at + p.typed.len();
            return syntax::Span::new(end, end);
        }
        if p.src != p.typed {
            return syntax::Span::new(p.typed_at, p.typed_at + p.typed.len());
        }
        let end = sp.end.clamp(sp.start, p.src_at + p.src.len());
        syntax::Span::new(
            p.typed_at + sp.start - p.src_at,
            p.typed_at + end - p.src_at,
        )
    };
    let said = d.iter().map(|x| {
        let at_end = part(x.span)
            .filter(|p| x.span.start >= p.src_at + p.src.len())
            .map(|p| match std::ptr::eq(p, &parts[0]) {
                true => "S1",
                false => "S2",
            });
        let moved = syntax::Diagnostics(vec![x.clone()])
            .map_spans(moved)
            .0
            .remove(0);
        match at_end {
            Some(what) => syntax::diagnostic::at_end(moved, what),
            None => moved,
        }
    });
    syntax::Diagnostics(said.collect())
}

/// Renders diagnostics about `src` against `typed`, the part of it that the
/// user typed, which starts at byte `at`, when they all point into that part;
/// otherwise against the whole of `src`.
/// `(name, what)`: the name diagnostics show, and how a message says "the
/// end of" what was typed (the wrapper's closing text is never named).
fn render_within(
    d: &syntax::Diagnostics,
    src: &str,
    at: usize,
    typed: &str,
    (name, what): (&str, &str),
) -> String {
    match d.within_wrapped(at, typed.len(), 1, what) {
        Some(moved) => moved.render(name, typed),
        None => d.render(name, src),
    }
}

/// Reads a file in any format `import::load` knows, rendering diagnostics into `out`.
fn load(src: &str, name: &str, import: crate::import::Options, out: &mut Output) -> Option<Litmus> {
    match crate::import::load(name, src, import) {
        Ok(t) => {
            if !t.warnings.is_empty() {
                out.push(Tone::Hint, t.warnings.render(name, src));
            }
            Some(t)
        }
        Err(d) => {
            out.push(Tone::Error, d.render(name, src));
            None
        }
    }
}

/// Parses a litmus text, rendering diagnostics (warnings too) into `out`.
fn parse(src: &str, name: &str, out: &mut Output) -> Option<Litmus> {
    match syntax::parse(src) {
        Ok(t) => {
            if !t.warnings.is_empty() {
                out.push(Tone::Hint, t.warnings.render(name, src));
            }
            Some(t)
        }
        Err(d) => {
            out.push(Tone::Error, d.render(name, src));
            None
        }
    }
}

/// One row of `:vary`'s table: the value (marked current, default), the
/// number of states, each condition's verdict.
fn vary_cells(row: &VaryRow, conditions: usize) -> Vec<String> {
    let mark = match (row.current, row.default) {
        (true, true) => " (current, default)",
        (true, false) => " (current)",
        (false, true) => " (default)",
        _ => "",
    };
    let mut cells = vec![format!("{}{mark}", row.value)];
    if row.unsupported {
        cells.push("unsupported".into());
        cells.extend((0..conditions).map(|_| "-".to_string()));
        return cells;
    }
    cells.push(match (&row.limit, row.states) {
        (Some(l), _) => format!("? ({l})"),
        (None, n) => n.unwrap_or(0).to_string(),
    });
    cells.extend(row.verdicts.iter().map(|v| {
        match v {
            Some(true) => "Ok",
            Some(false) => "No",
            None => "Unknown",
        }
        .to_string()
    }));
    cells
}

/// The first word and the rest.
fn split_word(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    match s.find(char::is_whitespace) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    }
}

/// Colour for a line of `run`'s herd7-style report.
fn tone_of(line: &str) -> Tone {
    if line.starts_with("Test ") {
        Tone::Heading
    } else if line == "Ok" || line.ends_with(": as expected") {
        Tone::Good
    } else if line == "No"
        || line.contains("NOT AS EXPECTED")
        || line.starts_with("Limit")
        || line.starts_with("Unsupported")
    {
        Tone::Bad
    } else {
        Tone::Plain
    }
}
