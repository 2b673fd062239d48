//! Every choice the note leaves open, as one named option with a documented
//! default (semantics.md §7). The semantics branches on these where the note
//! branches, and nowhere else.
//!
//! The defaults follow Fig. 1 as printed, except where the printed rule cannot
//! give the note's own verdicts (`c8a`, `fence_match`); those defaults are the
//! ones that reproduce the most verdicts the note states, and say so. The
//! book's "Model options and readings of the note" lists them.

use std::fmt;

/// One option: its name, its values and the default, for help and completion.
#[derive(Clone, Copy, Debug)]
pub struct OptionInfo {
    pub name: &'static str,
    pub values: &'static [&'static str],
    pub default: &'static str,
    pub doc: &'static str,
}

/// Why `--set key=value` was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetError {
    UnknownOption {
        name: String,
        suggestion: Option<&'static str>,
    },
    UnknownValue {
        option: &'static str,
        value: String,
        values: &'static [&'static str],
    },
}

impl fmt::Display for SetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetError::UnknownOption {
                name,
                suggestion: Some(s),
            } => {
                write!(f, "unknown model option `{name}` (did you mean `{s}`?)")
            }
            SetError::UnknownOption {
                name,
                suggestion: None,
            } => {
                write!(f, "unknown model option `{name}`")
            }
            SetError::UnknownValue {
                option,
                value,
                values,
            } => {
                write!(
                    f,
                    "`{value}` is not a value of `{option}`; use one of: {}",
                    values.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for SetError {}

macro_rules! model_options {
    ($(
        $(#[doc = $doc:literal])+
        $field:ident $name:literal : $ty:ident = $default:ident {
            $( $(#[doc = $vdoc:literal])* $variant:ident => $spelling:literal ),+ $(,)?
        }
    )+) => {
        $(
            $(#[doc = $doc])+
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub enum $ty { $( $(#[doc = $vdoc])* $variant ),+ }

            impl $ty {
                pub const VALUES: &'static [&'static str] = &[$($spelling),+];

                pub const fn as_str(self) -> &'static str {
                    match self { $( $ty::$variant => $spelling ),+ }
                }

                pub fn parse(s: &str) -> Option<$ty> {
                    match s { $( $spelling => Some($ty::$variant), )+ _ => None }
                }
            }

            impl Default for $ty {
                fn default() -> $ty { $ty::$default }
            }
        )+

        /// A setting of every option.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
        pub struct Model {
            $( $(#[doc = $doc])+ pub $field: $ty, )+
        }

        impl Model {
            /// Every option, in the order of semantics.md §7.
            pub const OPTIONS: &'static [OptionInfo] = &[$(
                OptionInfo {
                    name: $name,
                    values: $ty::VALUES,
                    default: $ty::$default.as_str(),
                    doc: concat!($($doc, "\n"),+),
                }
            ),+];

            /// Sets one option by name, as `--set name=value` does.
            pub fn set(&mut self, name: &str, value: &str) -> Result<(), SetError> {
                match name {
                    $( $name => {
                        self.$field = $ty::parse(value).ok_or_else(|| SetError::UnknownValue {
                            option: $name,
                            value: value.to_string(),
                            values: $ty::VALUES,
                        })?;
                        Ok(())
                    } )+
                    _ => Err(SetError::UnknownOption {
                        name: name.to_string(),
                        suggestion: closest(name, Model::OPTIONS.iter().map(|o| o.name)),
                    }),
                }
            }

            /// The current value of one option, by name.
            pub fn get(&self, name: &str) -> Option<&'static str> {
                match name {
                    $( $name => Some(self.$field.as_str()), )+
                    _ => None,
                }
            }
        }
    };
}

model_options! {
    /// A1: which order rf (c6) and the dependencies of κ' go into. `split`: rf and
    /// dependencies in ⊴, sync-delays/c7a/c7b in ≤ (the note's "synchronization
    /// is not included in dependency order", §5, §11). `single`: one order.
    orders "orders": Orders = Split { Split => "split", Single => "single" }

    /// A5: the form of c7a. `direct`: the old rule (d rf e, strongly matching, gives
    /// d ≤ e). `closure`: Fig. 1's c7a'. `closure_po`: c7a'' (closure within a
    /// thread). `closure_rmw`: Anton's c7a''' through rmw chains, with M9b'.
    c7a "c7a": C7a = Closure {
        Direct => "direct", Closure => "closure", ClosurePo => "closure_po",
        ClosureRmw => "closure_rmw",
    }

    /// A6: c7b, strongly-fencing events are ≤-ordered one way or the other. Fig. 1
    /// prints it, with "[Todo: Is this right?]".
    c7b "c7b": C7b = On { On => "on", Off => "off" }

    /// A2, A3: c8a, rf ⊆ ⊑. `strong` as printed; `weak` adds ⊑ only between
    /// strongly-overlapping pairs. Default `weak`: TC16_WK is allowed only so,
    /// and no stated verdict needs `strong`.
    c8a "c8a": C8a = Weak { Strong => "strong", Weak => "weak" }

    /// A2: c8b's fulfilment order. `weak`: Fig. 1's ⊑̇. `strong`: IMM's form with ⊑.
    c8b "c8b": C8b = Weak { Weak => "weak", Strong => "strong" }

    /// A7: whether release/acquire fences take part in strongly-matches. `literal`:
    /// as defined, only accesses to one location do; `fences`: F^⊒rel or W^⊒rel
    /// against F^⊒acq or R^⊒acq, subject to the scope conditions. Default
    /// `fences`: MP-FENCES is forbidden only so, and no stated verdict needs `literal`.
    fence_match "fence_match": FenceMatch = Fences { Literal => "literal", Fences => "fences" }

    /// A8, footnote 1: add (R x, R^⊒acq x) to sync-delays, as PTX would.
    ptx_acq_sync "ptx_acq_sync": PtxAcqSync = Off { Off => "off", On => "on" }

    /// A9, §11: `sec11` adds sc to c8b's ⊑̇ and sc accesses to sync-delays.
    sc_order "sc_order": ScOrder = Fig1 { Fig1 => "fig1", Sec11 => "sec11" }

    /// A10, §10: an acquire fulfilled by a relaxed write of its own thread acts as rlx.
    rfi_acq_weakening "rfi_acq_weakening": RfiAcqWeakening = Off { Off => "off", On => "on" }

    /// A12: add (Rx, Rx) to co-delays (read-read coherence); the note omits it.
    co_delays_rr "co_delays_rr": CoDelaysRr = Off { Off => "off", On => "on" }

    /// A17, §12: the two-order idea, d ⊑ e when d ⊴ e and they conflict.
    two_order "two_order": TwoOrder = Off { Off => "off", On => "on" }

    /// A4: forbid cycles in ≤ ∪ ⊑ (the note's "cycle" arguments in §10, §11).
    acyclic_union "acyclic_union": AcyclicUnion = Off { Off => "off", On => "on" }

    /// A14, §2: events may carry stronger modes than the syntax (and scopes).
    monotonicity "monotonicity": Monotonicity = Off { Off => "off", Modes => "modes", ModesScopes => "modes_scopes" }

    /// A15, A16, §2: merging a write with later writes and reads: off, the binary
    /// merge function, or the multi-event (π) proposal.
    merge "merge": Merge = Off { Off => "off", Binary => "binary", Multi => "multi" }

    /// A15, §2: a write-read merge needs κ2' ≡ κ1 as s3c is printed, or drops the
    /// read's precondition as the prose after it argues ("does not persist").
    merge_read "merge_read": MergeRead = Printed { Printed => "printed", Prose => "prose" }

    /// R4c, §2 (R03): what a relaxed read with no event leaves in its register,
    /// "(∀s) τ^D(ψ) ≡ ψ[s/r]". `symbol`: s is a fresh symbol that every
    /// precondition and outcome must hold for (`run` shows the register as `?`);
    /// `unchanged`: s may also be the register's value before the read, the one
    /// term the note's R03 ([r := x] ⊇ [skip]) needs. Only the pomset-level
    /// refinement check decides `unchanged`; every command that decides
    /// outcomes refuses it.
    dropped_read "dropped_read": DroppedRead = Symbol { Symbol => "symbol", Unchanged => "unchanged" }

    /// A18: implicit initial writes, as a top-level prefix of rlx or wk writes, or none.
    init "init": Init = Rlx { Rlx => "rlx", Wk => "wk", None => "none" }

    /// A19: what `[x] = v` means after the threads end: the ⊑-maximal write, or the
    /// value an observer thread reads after all threads.
    final_ "final": Final = LocMax { LocMax => "loc_max", Observer => "observer" }

    /// A22, §1.6: if-closure, READ and WRITE generalised to several events with
    /// partitioned preconditions. `registers`: the guards θ_e range over the
    /// partitions of the valuations of the registers in scope (exact, under
    /// `--max-partitions`); `on` (any formulas) is refused.
    if_closure "if_closure": IfClosure = Off { Off => "off", Registers => "registers", On => "on" }
}

impl Model {
    /// The options whose value differs from the default, as `name=value`.
    pub fn non_defaults(&self) -> Vec<String> {
        Model::OPTIONS
            .iter()
            .filter_map(|o| {
                let v = self.get(o.name)?;
                (v != o.default).then(|| format!("{}={}", o.name, v))
            })
            .collect()
    }
}

/// The candidate nearest to `word` by edit distance, if it is close.
pub fn closest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut row = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            row.push((prev[j] + cost).min(prev[j + 1] + 1).min(row[j] + 1));
        }
        prev = row;
    }
    prev[b.len()]
}

/// The model in one phrase: "the default model", or its non-default options.
pub fn model_text(model: &Model) -> String {
    let set = model.non_defaults();
    if set.is_empty() {
        "the default model".to_string()
    } else {
        set.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_round_trips_every_value() {
        for opt in Model::OPTIONS {
            for v in opt.values {
                let mut m = Model::default();
                m.set(opt.name, v).expect("listed value");
                assert_eq!(m.get(opt.name), Some(*v));
            }
            assert_eq!(Model::default().get(opt.name), Some(opt.default));
        }
    }

    #[test]
    fn unknown_names_get_suggestions() {
        let mut m = Model::default();
        let err = m.set("c7", "closure").unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown model option `c7` (did you mean `c7a`?)"
        );
        let err = m.set("c7a", "closur").unwrap_err();
        assert!(err.to_string().contains("closure_po"), "{err}");
        m.set("final", "observer").expect("final is an option");
        assert_eq!(m.get("final"), Some("observer"));
        assert_eq!(m.non_defaults(), vec!["final=observer".to_string()]);
    }
}
