//! Training: which strings a dictionary should hold, from sample values (`docs/SPEC.md`
//! §25.4, informative).
//!
//! Each sample, turned into a [`Value`] by the caller, is walked: every string and byte string it holds
//! (values, map keys, struct field names, variant names) of at least 2 bytes (or the
//! encoder's `min_intern`, if that is 1) is counted once per sample in which it appears. In a
//! one-shot message only a value's first occurrence costs its bytes (later ones are
//! references either way), so an entry saves, per message that holds it, its definition
//! (`E0 uvarint(len) bytes`) minus a reference (`E1 id`, 2 bytes for the first 128 ids); a
//! string shorter than `min_intern`, which the encoder never interns but looks up in a
//! dictionary, saves its inline form minus the reference. Values seen in a single
//! sample (ids, timestamps as text, other unique values) are left out: a dictionary of them
//! would only fit its training set. The rest is ranked by that saving over all samples, then
//! kind, then bytes (so ties are broken by content, never by hash order), and taken in that
//! order while the file stays within the byte budget; the rank is the id, so the most
//! valuable entries get the short references.
//!
//! Shapes come first: the struct shapes a one-shot message of each sample declares (its
//! field-name lists, as the encoder writes them), counted once per sample, kept when seen in
//! two samples or more, ranked by `samples × (1 + 2 × fields)` (a declaration's `00`, and
//! its names at 2 bytes a reference, that a reuse no longer writes), then by names, and
//! taken in that order within the budget; the entries fill what is left. The keys of a map
//! whose key list is a chosen shape (a struct the encoder will write as the shape's reuse)
//! are not counted as strings: no message writes them.

use std::collections::{BTreeMap, BTreeSet};

use super::file::{MAX_ENTRIES, MAX_ENTRY_LEN, MAX_SHAPES, MAX_TOTAL_BYTES};
use crate::dense::Kind;
use crate::error::Result;
use crate::options::Options;
use crate::value::Value;
use crate::wire::varint::uvarint_len;

/// Bytes of a file with no entry (magic, version, a count up to 3 bytes).
pub(crate) const FILE_OVERHEAD: usize = 4 + 1 + 3;

/// Bytes a reference to one of the first 128 ids costs (`E1 id`).
const REF_LEN: u64 = 2;

/// The shortest string an entry may hold whatever `min_intern` is: one byte inline is no
/// longer than its reference.
const SHORT_MIN: usize = 2;

/// The entries a dictionary trained on `samples` (values, or the error of converting one) holds, in id order: see the module docs.
/// `budget` bounds the file's length in bytes. Deterministic: the same samples and options
/// give the same entries.
/// `shapes` are the shapes the dictionary pre-loads: a map whose keys are one of them, in
/// order (a struct the encoder will write as its reuse), writes no key, so its keys are not
/// counted.
pub(crate) fn select(
    samples: impl Iterator<Item = Result<Value>>,
    shapes: &[Vec<Vec<u8>>],
    opts: &Options,
    budget: usize,
) -> Result<Vec<(Kind, Vec<u8>)>> {
    let shapes: BTreeSet<&[Vec<u8>]> = shapes.iter().map(|l| &l[..]).collect();
    // A string below the encoder's `min_intern` is never interned, but it refers to a
    // dictionary entry (a reference is 2 bytes): 2 bytes and longer save something.
    let min_intern = opts.intern_min_len() as usize;
    let min = min_intern.clamp(1, SHORT_MIN);
    let mut seen: BTreeMap<(Kind, Vec<u8>), u64> = BTreeMap::new();
    for v in samples {
        let v = v?;
        let mut this: BTreeMap<(Kind, &[u8]), ()> = BTreeMap::new();
        walk(&v, &shapes, &mut |kind, bytes| {
            if (min..=MAX_ENTRY_LEN).contains(&bytes.len()) {
                this.insert((kind, bytes), ());
            }
        });
        for &(kind, bytes) in this.keys() {
            *seen.entry((kind, bytes.to_vec())).or_default() += 1;
        }
    }
    let mut ranked: Vec<(u64, Kind, Vec<u8>, u64)> = seen
        .into_iter()
        .filter(|&(_, df)| df >= 2)
        .map(|((kind, bytes), df)| {
            // One-shot cost: a definition, or the inline form below `min_intern`.
            let cost = if bytes.len() < min_intern {
                crate::wire::form::text_len(bytes.len(), kind == Kind::Str) as u64
            } else {
                1 + uvarint_len(bytes.len() as u64) as u64 + bytes.len() as u64
            };
            (df * cost.saturating_sub(REF_LEN), kind, bytes, cost)
        })
        .filter(|&(gain, ..)| gain > 0)
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| (a.1, &a.2).cmp(&(b.1, &b.2))));
    let mut left = budget.saturating_sub(FILE_OVERHEAD);
    // The file format's caps bound a large budget too: past them the file would not read.
    let mut content_left = MAX_TOTAL_BYTES;
    let mut out = Vec::new();
    for (_, kind, bytes, one_shot) in ranked {
        // Ids from 128 on take 3-byte references: an entry there must save more than that.
        if out.len() >= 128 && one_shot <= REF_LEN + 1 {
            continue;
        }
        let cost = uvarint_len((bytes.len() as u64) << 1) + bytes.len();
        if cost <= left && bytes.len() <= content_left && out.len() < MAX_ENTRIES {
            left -= cost;
            content_left -= bytes.len();
            out.push((kind, bytes));
        }
    }
    Ok(out)
}

/// The shapes to pre-load from `per_sample` (the field-name lists each sample's message
/// declares), in id order, and the file bytes they take (their count included), within
/// `budget` bytes: see the module docs.
pub(crate) fn select_shapes(
    per_sample: &[Vec<Vec<Vec<u8>>>],
    budget: usize,
) -> (Vec<Vec<Vec<u8>>>, usize) {
    let mut seen: BTreeMap<&[Vec<u8>], u64> = BTreeMap::new();
    for lists in per_sample {
        let this: BTreeSet<&[Vec<u8>]> = lists
            .iter()
            .filter(|l| !l.is_empty())
            .map(|l| &l[..])
            .collect();
        for l in this {
            *seen.entry(l).or_default() += 1;
        }
    }
    let mut ranked: Vec<(u64, &[Vec<u8>])> = seen
        .into_iter()
        .filter(|&(_, df)| df >= 2)
        .map(|(l, df)| (df * (1 + 2 * l.len() as u64), l))
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    // The shape count's varint (at most 2 bytes under the file's 4 096 shapes).
    let mut left = budget.saturating_sub(FILE_OVERHEAD + 2);
    let mut content_left = MAX_TOTAL_BYTES;
    let mut out = Vec::new();
    let mut used = 0;
    for (_, names) in ranked {
        let bytes: usize = names.iter().map(|n| n.len()).sum();
        let cost = uvarint_len(names.len() as u64)
            + names
                .iter()
                .map(|n| uvarint_len(n.len() as u64) + n.len())
                .sum::<usize>();
        if cost <= left
            && bytes <= content_left
            && out.len() < MAX_SHAPES
            && names.iter().all(|n| n.len() <= MAX_ENTRY_LEN)
        {
            left -= cost;
            used += cost;
            content_left -= bytes;
            out.push(names.to_vec());
        }
    }
    let used = if out.is_empty() { 0 } else { used + 2 };
    (out, used)
}

/// Calls `f` with every string and byte string of `v`, in order, except the keys of a map
/// whose keys are one of `shapes` (see [`select`]).
fn walk<'v>(v: &'v Value, shapes: &BTreeSet<&[Vec<u8>]>, f: &mut impl FnMut(Kind, &'v [u8])) {
    match v {
        Value::Str(s) => f(Kind::Str, s.as_bytes()),
        Value::Bytes(b) => f(Kind::Bin, b),
        Value::Array(items) => items.iter().for_each(|x| walk(x, shapes, f)),
        Value::Map(pairs) => {
            let shaped = !shapes.is_empty() && is_shape(pairs, shapes);
            for (k, x) in pairs {
                if !shaped {
                    walk(k, shapes, f);
                }
                walk(x, shapes, f);
            }
        }
        Value::Some(x) => walk(x, shapes, f),
        Value::Variant(var) => {
            f(Kind::Str, var.name.as_bytes());
            walk(&var.value, shapes, f);
        }
        _ => {}
    }
}

/// Whether the keys of `pairs` are strings whose list is one of `shapes`.
fn is_shape(pairs: &[(Value, Value)], shapes: &BTreeSet<&[Vec<u8>]>) -> bool {
    let keys: Option<Vec<Vec<u8>>> = pairs
        .iter()
        .map(|(k, _)| match k {
            Value::Str(s) => Some(s.as_bytes().to_vec()),
            _ => None,
        })
        .collect();
    keys.is_some_and(|k| shapes.contains(&k[..]))
}
