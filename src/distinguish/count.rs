//! How many programs a sweep visits, counted without listing them, so that
//! progress shows `k/total` and an estimate from the first program.
//!
//! The programs `enumerate::programs` lists are the orbits of the tuples of
//! threads under the symmetries (`canon.rs`): the group of thread
//! permutations (none under a scope tree) times the renamings of locations,
//! each location's written values renamed apart (when values are names).
//! Burnside's lemma counts the orbits as the average, over the group, of
//! the tuples a symmetry fixes. A tuple is fixed by (thread permutation π,
//! renaming σ) when each cycle of π of length k carries a thread fixed by
//! σ^k, repeated around the cycle; a thread is fixed when each access is,
//! so the threads fixed by σ^k are counted by length from the accesses
//! alone. The renamings are summed up to what matters: per cycle of the
//! location permutation, the cycle type of the value permutation around it.

use super::enumerate::dep_choices;
use super::shape::{Kind, Op, Space};

/// The most (location permutation, value cycle types) the sum visits
/// before [`programs`] gives up (many values at many locations).
const MAX_TERMS: usize = 1_000_000;

/// The number of programs `enumerate::programs(space)` lists, or `None`
/// when the sum is too large to take (more than [`MAX_TERMS`] terms) or
/// overflows; a caller then counts by listing.
pub fn programs(space: &Space) -> Option<u64> {
    let b = &space.bound;
    let locations = usize::from(b.locations);
    // Values renamed per location: 1 ..= m; with values not names, none.
    let m = if space.values_are_names() {
        usize::from(b.values).saturating_sub(1)
    } else {
        0
    };
    let types = partitions(m);
    let perms = permutations(locations);
    let terms = perms.iter().try_fold(0usize, |acc, p| {
        let n = cycles(p).len() as u32;
        acc.checked_add(types.len().checked_pow(n)?)
    })?;
    if terms > MAX_TERMS {
        return None;
    }
    let ops = space.ops();
    let interchangeable = space.threads_are_interchangeable();
    let counts: Vec<usize> = match interchangeable {
        true => (1..=b.threads).collect(),
        false => vec![b.threads],
    };
    let m_fact = factorial(m)?;
    // The group's size: the location permutations, each location's values.
    let group = factorial(locations)?.checked_mul(m_fact.checked_pow(b.locations.into())?)?;
    let mut sum = vec![0u128; counts.len()];
    for tau in &perms {
        let cs = cycles(tau);
        let mut choice = vec![0usize; cs.len()];
        loop {
            // The weight of this choice of value cycle types: each cycle of
            // length c reaches a product of its c value permutations of each
            // type in (m!)^(c-1) ways.
            let mut weight = 1u128;
            let mut rho: Vec<Vec<u8>> = vec![identity(m); locations];
            for (c, &t) in cs.iter().zip(&choice) {
                let ways = m_fact.checked_pow(c.len() as u32 - 1)?;
                weight = weight.checked_mul(ways.checked_mul(m_fact / z(&types[t])?)?)?;
                rho[c[0]] = with_cycles(m, &types[t]);
            }
            let renaming = Renaming { tau, rho: &rho };
            let fixed: Vec<Vec<u128>> = (1..=b.threads)
                .map(|k| fixed_threads(space, &ops, &renaming, k))
                .collect::<Option<_>>()?;
            for (slot, &n) in counts.iter().enumerate() {
                let tuples = fixed_tuples(&fixed, n, b.total, interchangeable)?;
                sum[slot] = sum[slot].checked_add(weight.checked_mul(tuples)?)?;
            }
            if !next(&mut choice, types.len()) {
                break;
            }
        }
    }
    let mut total = 0u128;
    for (slot, &n) in counts.iter().enumerate() {
        let perms = if interchangeable { factorial(n)? } else { 1 };
        total = total.checked_add(sum[slot] / group.checked_mul(perms)?)?;
    }
    u64::try_from(total).ok()
}

/// The number of threads of accesses the sweep's enumeration holds
/// (`enumerate::skeletons`: sequences of 1 to `per_thread` accesses, each
/// in the weakest mode of its chain, with their dependencies), counted
/// without listing them; `None` past `u128`. This bounds a sweep's memory
/// (`Space::check`): the programs are tuples of them, listed lazily.
/// `ops`: the skeletons' accesses (`enumerate::skeleton_ops`).
pub fn threads(space: &Space, ops: &[Op]) -> Option<u128> {
    let ops = ops.to_vec();
    let longest = space.bound.per_thread.min(space.bound.total);
    // Prefixes by whether they hold a read that surely happens.
    let (mut layer, mut all) = ([1u128, 0u128], 0u128);
    for _ in 0..longest {
        let mut next = [0u128, 0u128];
        for (after_read, &n) in layer.iter().enumerate() {
            if n == 0 {
                continue;
            }
            for &op in &ops {
                for dep in dep_choices(space, op, after_read == 1) {
                    let to = usize::from(after_read == 1 || op.kind.assigns_surely(dep));
                    next[to] = next[to].checked_add(n)?;
                }
            }
        }
        layer = next;
        all = all.checked_add(layer[0])?.checked_add(layer[1])?;
    }
    Some(all)
}

/// A renaming of locations (`tau`) and, per location, of written values.
struct Renaming<'a> {
    tau: &'a [usize],
    /// `rho[l][v]` for v in 1 ..= m; index 0 unused.
    rho: &'a [Vec<u8>],
}

impl Renaming<'_> {
    /// `op` renamed, as `canon::normalise` renames (fences stay).
    fn apply(&self, op: Op) -> Op {
        if op.kind == Kind::Fence {
            return op;
        }
        let l = usize::from(op.loc);
        let renamed = matches!(op.kind, Kind::Write | Kind::Exchg) && op.val != 0;
        let val = match self.rho[l].get(usize::from(op.val)) {
            Some(&v) if renamed => v,
            _ => op.val,
        };
        Op {
            loc: self.tau[l] as u8,
            val,
            ..op
        }
    }
}

/// The threads σ^k fixes, by length (index 0 unused): sequences of fixed
/// accesses with the dependencies each may carry (`enumerate::threads`).
fn fixed_threads(space: &Space, ops: &[Op], r: &Renaming, k: usize) -> Option<Vec<u128>> {
    let fixed: Vec<Op> = ops
        .iter()
        .copied()
        .filter(|&op| (0..k).fold(op, |o, _| r.apply(o)) == op)
        .collect();
    let longest = space.bound.per_thread.min(space.bound.total);
    let mut out = vec![0u128; longest + 1];
    // Prefixes by whether they hold a read (which dependencies need).
    let mut layer = [1u128, 0u128];
    for slot in out.iter_mut().skip(1) {
        let mut next = [0u128, 0u128];
        for (after_read, &n) in layer.iter().enumerate() {
            if n == 0 {
                continue;
            }
            for &op in &fixed {
                // A read under a control dependency may not happen: it
                // gives later accesses no register to depend on.
                for dep in dep_choices(space, op, after_read == 1) {
                    let to = usize::from(after_read == 1 || op.kind.assigns_surely(dep));
                    next[to] = next[to].checked_add(n)?;
                }
            }
        }
        layer = next;
        *slot = layer[0].checked_add(layer[1])?;
    }
    Some(out)
}

/// Σ over the cycle types λ of the permutations of `n` threads (only the
/// identity when they are not interchangeable) of their number times the
/// tuples of `n` threads with at most `total` accesses each fixes: a cycle
/// of length k takes a thread σ^k fixes, k times over.
fn fixed_tuples(
    fixed: &[Vec<u128>],
    n: usize,
    total: usize,
    interchangeable: bool,
) -> Option<u128> {
    let types = match interchangeable {
        true => partitions(n),
        false => vec![vec![1; n]],
    };
    let mut out = 0u128;
    for lambda in types {
        // Tuples by number of accesses.
        let mut poly = vec![0u128; total + 1];
        poly[0] = 1;
        for &k in &lambda {
            let mut next = vec![0u128; total + 1];
            for (s, &a) in poly.iter().enumerate().filter(|(_, a)| **a != 0) {
                for (len, &f) in fixed[k - 1].iter().enumerate().skip(1) {
                    let at = s + k * len;
                    if at <= total {
                        next[at] = next[at].checked_add(a.checked_mul(f)?)?;
                    }
                }
            }
            poly = next;
        }
        let tuples = poly.iter().try_fold(0u128, |a, &b| a.checked_add(b))?;
        let how_many = match interchangeable {
            true => factorial(n)? / z(&lambda)?,
            false => 1,
        };
        out = out.checked_add(how_many.checked_mul(tuples)?)?;
    }
    Some(out)
}

/// The partitions of `n` (cycle types), parts in decreasing order.
fn partitions(n: usize) -> Vec<Vec<usize>> {
    fn go(n: usize, most: usize, prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if n == 0 {
            out.push(prefix.clone());
            return;
        }
        for part in (1..=most.min(n)).rev() {
            prefix.push(part);
            go(n - part, part, prefix, out);
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    go(n, n, &mut Vec::new(), &mut out);
    out
}

/// z_λ = Π k^(a_k) a_k!: n! / z_λ permutations have cycle type λ.
fn z(lambda: &[usize]) -> Option<u128> {
    let mut out = 1u128;
    let mut k = 0;
    while k < lambda.len() {
        let part = lambda[k];
        let a = lambda[k..].iter().take_while(|&&p| p == part).count();
        out = out.checked_mul((part as u128).checked_pow(a as u32)?)?;
        out = out.checked_mul(factorial(a)?)?;
        k += a;
    }
    Some(out)
}

fn factorial(n: usize) -> Option<u128> {
    (1..=n as u128).try_fold(1u128, |a, b| a.checked_mul(b))
}

/// The identity on values 1 ..= m (index 0 unused).
fn identity(m: usize) -> Vec<u8> {
    (0..=m).map(|v| v as u8).collect()
}

/// A permutation of 1 ..= m with cycle type `lambda`, cycles laid out in turn.
fn with_cycles(m: usize, lambda: &[usize]) -> Vec<u8> {
    let mut p = identity(m);
    let mut start = 1;
    for &len in lambda {
        for i in 0..len {
            p[start + i] = (start + (i + 1) % len) as u8;
        }
        start += len;
    }
    p
}

/// Every permutation of 0..n.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    for k in 0..n {
        let mut next = Vec::new();
        for p in &out {
            for at in 0..=p.len() {
                let mut q: Vec<usize> = p.clone();
                q.insert(at, k);
                next.push(q);
            }
        }
        out = next;
    }
    out
}

/// The cycles of a permutation, each from its least element.
fn cycles(p: &[usize]) -> Vec<Vec<usize>> {
    let mut seen = vec![false; p.len()];
    let mut out = Vec::new();
    for start in 0..p.len() {
        if seen[start] {
            continue;
        }
        let mut c = Vec::new();
        let mut at = start;
        while !seen[at] {
            seen[at] = true;
            c.push(at);
            at = p[at];
        }
        out.push(c);
    }
    out
}

/// The next choice of one of `n` per slot (an odometer); false after the last.
fn next(choice: &mut [usize], n: usize) -> bool {
    for c in choice.iter_mut() {
        *c += 1;
        if *c < n {
            return true;
        }
        *c = 0;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycle_types_are_counted() {
        assert_eq!(partitions(4).len(), 5);
        // 4!/z over the types of S_4 sums to 4!.
        let sum: u128 = partitions(4)
            .iter()
            .filter_map(|l| z(l))
            .map(|z| 24 / z)
            .sum();
        assert_eq!(sum, 24);
    }
}
