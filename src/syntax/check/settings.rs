//! The `model {}` block, `--unroll`, and the value set V a file declares.

use super::*;

impl Checker {
    /// The bound: `--unroll`, else the file's `unroll = N`, else the default.
    pub(super) fn unroll_setting(&mut self, settings: &[ast::Setting], cli: Option<u32>) -> u32 {
        let from_file = settings.iter().find(|s| s.name.as_str() == "unroll");
        let file_value = from_file.and_then(|s| match s.value.as_str().parse::<u32>() {
            Ok(n) if (1..=MAX_UNROLL).contains(&n) => Some(n),
            _ => {
                let d = Diagnostic::error(
                    format!("`unroll = {}` is not a loop bound", s.value),
                    s.value.span,
                )
                .with_label(format!("expected a number from 1 to {MAX_UNROLL}"))
                .with_hint("`unroll = 3` runs each loop's body at most 3 times");
                self.error(d);
                None
            }
        });
        cli.or(file_value).unwrap_or(DEFAULT_UNROLL)
    }

    pub(super) fn model(&mut self, settings: &[ast::Setting]) -> Model {
        let mut model = Model::default();
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for s in settings {
            if let Some(prev) = seen.insert(s.name.as_str(), s.name.span) {
                let d = Diagnostic::error(format!("option `{}` is set twice", s.name), s.name.span)
                    .with_label("second setting")
                    .with_also(prev, "first setting");
                self.error(d);
                continue;
            }
            // The loop bound is the checker's, read by `unroll_setting`.
            if s.name.as_str() == "unroll" {
                continue;
            }
            self.setting(&mut model, s);
        }
        model
    }

    /// Applies one `name = value`, reporting unknown names and values.
    pub(super) fn setting(
        &mut self,
        model: &mut Model,
        s: &ast::Setting,
    ) -> Option<(&'static str, &'static str)> {
        match model.set(s.name.as_str(), s.value.as_str()) {
            Ok(()) => {
                let info = Model::OPTIONS.iter().find(|o| o.name == s.name.as_str())?;
                let value = info.values.iter().find(|v| **v == s.value.as_str())?;
                Some((info.name, *value))
            }
            Err(e @ model::SetError::UnknownOption { .. }) => {
                let d = Diagnostic::error(e.to_string(), s.name.span)
                    .with_label("unknown option")
                    .with_hint("`pomset options` lists every option with its values");
                self.error(d);
                None
            }
            Err(e @ model::SetError::UnknownValue { .. }) => {
                let d = Diagnostic::error(e.to_string(), s.value.span).with_label("unknown value");
                self.error(d);
                None
            }
        }
    }

    pub(super) fn values(&mut self, file: &ast::File) -> (Vec<i64>, bool) {
        let Some((declared, span)) = &file.values else {
            // The default V starts from 0, 1 and the literals; `close_values`
            // widens it with every value an execution may store.
            let mut values: Vec<i64> = self.literals.iter().map(|l| l.0).chain([0, 1]).collect();
            values.sort_unstable();
            values.dedup();
            return (values, false);
        };
        let mut values = declared.clone();
        values.sort_unstable();
        values.dedup();
        if values.is_empty() {
            let d = Diagnostic::error("V is empty", *span)
                .with_label("no values")
                .with_hint("write `values {0, 1}`");
            self.error(d);
        }
        let shown = values
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let outside: Vec<(i64, Span)> = self
            .literals
            .iter()
            .filter(|(v, _, u)| *u == Use::Stored && values.binary_search(v).is_err())
            .map(|(v, s, _)| (*v, *s))
            .collect();
        for (v, s) in outside {
            let d = Diagnostic::error(format!("value {v} is outside V = {{{shown}}}"), s)
                .with_label("not in V")
                .with_also(*span, "V is declared here")
                .with_hint("add it to `values`, or drop `values` to use the computed default");
            self.error(d);
        }
        (values, true)
    }

    // ------------------------------------------------------------ conditions
}
