//! How a one-shot message writes the string columns under a struct or map column
//! (`docs/SPEC.md` §20.8, §22.2): in Balanced per-value strings when they are smaller (a
//! repeat is a reference), a dictionary when that is smaller even though the column's head
//! looks distinct; under the entropy stage (Compression) a block only.

use std::collections::BTreeMap;

use qdf::Options;
use qdf::inspect::{self, ColumnValues, EventKind, StringBlock};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Inner {
    s: String,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Row {
    n: u32,
    p: Option<Inner>,
}

/// 32 rows, 7 of them with a `p` whose `s` is one of two 24-byte names: a child column of 7
/// values (below 16, so no dictionary), 5 of them repeats.
fn rows() -> Vec<Row> {
    (0..32)
        .map(|i| Row {
            n: i,
            p: (i % 5 == 0).then(|| Inner {
                s: format!("checkout-service-{}-pod", i % 2),
            }),
        })
        .collect()
}

/// The values of the columns named `name`, in message order.
fn column_values(bytes: &[u8], opts: &Options, name: &str) -> Vec<ColumnValues> {
    let mut got = Vec::new();
    inspect::message(bytes, opts, &mut |e| {
        if let EventKind::Column {
            name: n, values, ..
        } = &e.kind
            && *n == name
        {
            got.push(*values);
        }
    })
    .unwrap();
    got
}

fn round_trip<T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>(
    v: &T,
    opts: Options,
) -> Vec<u8> {
    let bytes = qdf::to_vec_with(v, opts).unwrap();
    let back: T = qdf::from_slice_with(&bytes, opts).unwrap();
    assert_eq!(&back, v);
    bytes
}

#[test]
fn balanced_child_strings_may_be_per_value() {
    let v = rows();
    let balanced = round_trip(&v, Options::balanced());
    // Two definitions and five references, not a slab of seven 24-byte values.
    assert_eq!(
        column_values(&balanced, &Options::balanced(), "s"),
        [ColumnValues::PerValue]
    );
    // Compression has blocks only there: a slab of seven values is larger than `p` in the
    // rows, so `p` stays residual.
    let compression = round_trip(&v, Options::compression());
    assert_eq!(
        column_values(&compression, &Options::compression(), "p"),
        [ColumnValues::Residual]
    );
    assert_eq!((balanced.len(), compression.len()), (87, 121));
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Tagged {
    n: u32,
    m: BTreeMap<String, String>,
}

/// 200 rows of maps of two entries whose values interleave: the value column's first 64
/// values are all distinct, 64 in all, each about 30 bytes.
fn tagged() -> Vec<Tagged> {
    (0..200u32)
        .map(|i| {
            let k = (i % 32) as usize;
            let mut m = BTreeMap::new();
            m.insert(
                "a".to_string(),
                format!("alpha-value-number-{k:02}-of-the-set"),
            );
            m.insert(
                "b".to_string(),
                format!("beta-value-number-{k:02}-of-the-other"),
            );
            Tagged { n: i, m }
        })
        .collect()
}

#[test]
fn balanced_child_dictionaries_are_not_judged_by_their_head() {
    let v = tagged();
    let bytes = round_trip(&v, Options::balanced());
    // The map column's key column (its one key set's two keys, per-value strings,
    // `docs/SPEC.md` §22.2), then its value column: a dictionary.
    let values = column_values(&bytes, &Options::balanced(), "");
    assert_eq!(values.len(), 2, "{values:?}");
    assert_eq!(values[0], ColumnValues::PerValue, "{values:?}");
    assert!(
        matches!(
            values[1],
            ColumnValues::Block(StringBlock::Dict | StringBlock::Front | StringBlock::DictQ)
        ),
        "{values:?}"
    );
    // 2 537 bytes before key sets.
    assert_eq!(bytes.len(), 2_486);
}
