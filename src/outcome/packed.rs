//! A state's values packed into bytes, in the same order as the values.
//!
//! `Orbits` and the pomset engine keep millions of states as their values
//! (registers, then memory). As `Vec<Option<i64>>` each value takes 16
//! bytes on the heap behind a 24-byte vector; most values are small
//! (0, 1, `?`), so one byte each, held inline for up to 24 of them, takes a
//! tenth of that (SB-10: 59 049 states of 20 values).
//!
//! The code of one value is prefix-free and its bytes compare as the values
//! do (`None` first, then the integers in order), so packed states compare
//! as their value lists do: a `BTreeMap` of packed states iterates in the
//! order the reports list states in (`State`'s order).

use smallvec::SmallVec;

/// `None`.
const UNKNOWN: u8 = 0x00;
/// A negative value whose one's complement takes n bytes: `NEGATIVE - n`
/// (0x01..=0x09), then those bytes inverted, big-endian.
const NEGATIVE: u8 = 0x09;
/// 0..=`SMALL_MAX` in one byte: `SMALL + v` (0x0A..=0xF6).
const SMALL: u8 = 0x0A;
const SMALL_MAX: u64 = 0xF6 - 0x0A;
/// A larger value in n bytes: `LARGE + n - 1` (0xF7..=0xFE), then its bytes,
/// big-endian.
const LARGE: u8 = 0xF7;

/// A state's values, packed (see the module's comment).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Packed(SmallVec<[u8; 24]>);

impl Packed {
    pub fn new(values: &[Option<i64>]) -> Packed {
        let mut out = SmallVec::new();
        for v in values {
            push(&mut out, *v);
        }
        Packed(out)
    }

    /// The values, into `out` (cleared first).
    pub fn unpack_into(&self, out: &mut Vec<Option<i64>>) {
        out.clear();
        let mut bytes = self.0.iter().copied();
        while let Some(tag) = bytes.next() {
            out.push(match tag {
                UNKNOWN => None,
                t if t <= NEGATIVE => {
                    let n = usize::from(NEGATIVE - t);
                    let u = (&mut bytes)
                        .take(n)
                        .fold(0u64, |a, b| a << 8 | u64::from(!b));
                    Some(!(u as i64))
                }
                t if t < LARGE => Some(i64::from(t - SMALL)),
                t => {
                    let n = usize::from(t - LARGE) + 1;
                    Some(
                        (&mut bytes)
                            .take(n)
                            .fold(0u64, |a, b| a << 8 | u64::from(b))
                            as i64,
                    )
                }
            });
        }
    }

    pub fn values(&self) -> Vec<Option<i64>> {
        let mut out = Vec::new();
        self.unpack_into(&mut out);
        out
    }
}

/// The bytes that hold `u`, at least `min` of them.
fn width(u: u64, min: usize) -> usize {
    (8 - u.leading_zeros() as usize / 8).max(min)
}

/// Appends the code of one value.
fn push(out: &mut SmallVec<[u8; 24]>, v: Option<i64>) {
    let Some(v) = v else {
        out.push(UNKNOWN);
        return;
    };
    if v < 0 {
        // More bytes of !v is a more negative v: a smaller tag.
        let u = !v as u64;
        let n = width(u, 0);
        out.push(NEGATIVE - n as u8);
        out.extend((0..n).rev().map(|k| !(u >> (8 * k)) as u8));
        return;
    }
    let u = v as u64;
    if u <= SMALL_MAX {
        out.push(SMALL + u as u8);
        return;
    }
    let n = width(u, 1);
    out.push(LARGE + n as u8 - 1);
    out.extend((0..n).rev().map(|k| (u >> (8 * k)) as u8));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values at every boundary of the code, in order.
    fn samples() -> Vec<Option<i64>> {
        let mut v = vec![None, Some(i64::MIN), Some(i64::MAX)];
        for k in [0i64, 1, 2, 255, 256, 65_535, 65_536, 1 << 40] {
            for d in [-1, 0, 1] {
                v.extend([Some(k + d), Some(-(k + d))]);
            }
        }
        for x in [SMALL_MAX as i64, SMALL_MAX as i64 + 1] {
            v.extend([Some(x), Some(-x)]);
        }
        v.sort();
        v.dedup();
        v
    }

    #[test]
    fn packed_values_round_trip_and_order_as_the_values() {
        let s = samples();
        for a in &s {
            for b in &s {
                let (x, y) = (vec![*a, *b], vec![*b, *a]);
                let (px, py) = (Packed::new(&x), Packed::new(&y));
                assert_eq!(px.values(), x);
                assert_eq!(px.cmp(&py), x.cmp(&y), "{x:?} against {y:?}");
            }
        }
    }
}
