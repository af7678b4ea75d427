//! Map columns (`docs/SPEC.md` §22.2, class 9): a column of maps in a columnar container is
//! a lengths column, then a key column and a value column over all its entries.

use std::collections::{BTreeMap, HashMap};

use crate::common::{TIERS, columns, round_trip_as_rows as check};
use qdf_core::inspect::ColumnValues;
use qdf_core::{Features, Options, Value};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Event {
    ts: i64,
    tags: BTreeMap<String, String>,
}

fn events(n: usize) -> Vec<Event> {
    (0..n)
        .map(|i| Event {
            ts: 1_700_000_000 + i as i64,
            tags: [("version", "v3.42.1"), ("client", "go-client/1.20")]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        })
        .collect()
}

/// The map columns a message holds: `(depth, name, entries)`.
fn map_columns(bytes: &[u8], opts: &Options) -> Vec<(u32, String, u64)> {
    columns(bytes, opts, |depth, name, values| match values {
        ColumnValues::Map { entries, .. } => Some((depth, name.to_string(), *entries)),
        _ => None,
    })
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Point {
    x: i32,
    label: Option<String>,
}

/// Maps of every shape a column may hold: string and integer keys, struct, list, map and
/// `Option` values, absent, null and empty maps.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Row {
    id: u32,
    tags: BTreeMap<String, String>,
    counts: HashMap<u16, Option<i64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    points: Option<BTreeMap<String, Point>>,
    lists: BTreeMap<u8, Vec<f64>>,
    nested: Vec<BTreeMap<String, BTreeMap<String, bool>>>,
    maybe: Option<BTreeMap<String, u8>>,
}

fn rows(n: usize) -> Vec<Row> {
    (0..n)
        .map(|i| Row {
            id: i as u32,
            tags: (0..i % 4)
                .map(|k| {
                    (
                        format!("k{k}"),
                        ["GET", "POST", "x"][(i + k) % 3].to_string(),
                    )
                })
                .collect(),
            counts: (0..(i * 7) % 5)
                .map(|k| (k as u16 * 3, (k != 2).then_some(i as i64 - 50 * k as i64)))
                .collect(),
            points: (i % 3 != 0).then(|| {
                (0..i % 3)
                    .map(|k| {
                        let label = (k == 0).then(|| format!("p{i}"));
                        (
                            format!("pt{k}"),
                            Point {
                                x: -(i as i32) * k as i32,
                                label,
                            },
                        )
                    })
                    .collect()
            }),
            lists: (0..i % 2 + 1)
                .map(|k| {
                    (
                        k as u8,
                        (0..k + i % 3).map(|j| j as f64 * 0.25 - i as f64).collect(),
                    )
                })
                .collect(),
            nested: (0..i % 3)
                .map(|k| {
                    let inner: BTreeMap<String, bool> =
                        [("on".to_string(), i % 2 == 0), ("off".to_string(), k == 1)].into();
                    [
                        (format!("outer{k}"), inner),
                        ("z".to_string(), BTreeMap::new()),
                    ]
                    .into()
                })
                .collect(),
            maybe: match i % 3 {
                0 => None,
                1 => Some(BTreeMap::new()),
                _ => Some([("a".to_string(), i as u8)].into_iter().collect()),
            },
        })
        .collect()
}

#[test]
fn map_columns_round_trip_at_every_size() {
    for n in [1, 2, 15, 16, 17, 100, 1000] {
        check(&rows(n));
    }
    // From 16 rows the maps are map columns in Balanced, at the top level, inside a list
    // (depth 3) and as a map's values (depth 4).
    let opts = Options::balanced();
    let bytes = qdf_core::to_vec_with(&rows(100), opts).unwrap();
    let cols: Vec<String> = map_columns(&bytes, &opts)
        .into_iter()
        .map(|(d, name, _)| format!("{d} {name}"))
        .collect();
    for want in [
        "2 tags", "2 counts", "2 points", "2 lists", "2 maybe", "3 ", "4 ",
    ] {
        assert!(cols.iter().any(|c| c == want), "{want}: {cols:?}");
    }
}

/// The TelemetryBatch fixture's constant two-tag map: a map column is a few hundred bytes
/// where the rows spent about 10 a map (sizes pinned: the encoder is deterministic).
#[test]
fn a_constant_tag_map_costs_bits_a_row() {
    let v = events(1000);
    check(&v);
    let opts = Options::balanced();
    let with = qdf_core::to_vec_with(&v, opts).unwrap();
    let without = qdf_core::to_vec_with(
        &v,
        opts.features(opts.features.without(Features::NESTED_COLUMNS)),
    )
    .unwrap();
    assert_eq!(map_columns(&with, &opts), [(2, "tags".to_string(), 2000)]);
    assert_eq!((with.len(), without.len()), (SIZE_WITH, SIZE_WITHOUT));
}

const SIZE_WITH: usize = 586;
const SIZE_WITHOUT: usize = 10_066;

#[test]
fn subset_decode_skips_map_columns() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Ids {
        id: u32,
        maybe: Option<BTreeMap<String, u8>>,
    }
    for n in [2, 16, 100] {
        let v = rows(n);
        for opts in TIERS.map(|t| t()) {
            let bytes = qdf_core::to_vec_with(&v, opts).unwrap();
            let ids: Vec<Ids> = qdf_core::from_slice_with(&bytes, opts).unwrap();
            let want: Vec<Ids> = v
                .iter()
                .map(|r| Ids {
                    id: r.id,
                    maybe: r.maybe.clone(),
                })
                .collect();
            assert_eq!(ids, want, "{opts:?}");
        }
    }
}

/// A map column read into a struct (string keys as field names), as row mode reads a map.
#[test]
fn a_map_column_reads_into_a_struct() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Tags {
        version: String,
        client: String,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct E {
        ts: i64,
        tags: Tags,
    }
    let v = events(20);
    let bytes = qdf_core::to_vec_with(&v, Options::balanced()).unwrap();
    assert_eq!(map_columns(&bytes, &Options::balanced()).len(), 1);
    let back: Vec<E> = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(back.len(), 20);
    assert_eq!(back[19].ts, 1_700_000_019);
    assert_eq!(
        back[19].tags,
        Tags {
            version: "v3.42.1".into(),
            client: "go-client/1.20".into()
        }
    );
}

/// 2 rows whose first map repeats key `a` (hand-written: the encoder refuses repeated keys
/// under the option): refused under `deny_duplicate_keys` at the key column's first byte,
/// as row mode refuses them; without it the map target keeps the last value.
#[test]
fn repeated_keys_in_a_map_column() {
    let bytes = crate::common::unhex(
        "51 44 46 01 00 ef 02 00 01 81 6d 09 04 01 a2 02 01 81 61 81 61 81 62 a3 01 02 03",
    );
    #[derive(Deserialize, Debug, PartialEq)]
    struct R {
        m: BTreeMap<String, u8>,
    }
    let opts = Options::balanced().deny_duplicate_keys(true);
    let err = qdf_core::from_slice_with::<Vec<R>>(&bytes, opts).unwrap_err();
    assert_eq!(err.classify(), qdf_core::Category::Data, "{err}");
    assert_eq!(err.offset(), Some(17), "{err}");
    let err = qdf_core::from_slice_with::<Value>(&bytes, opts).unwrap_err();
    assert_eq!(err.classify(), qdf_core::Category::Data, "{err}");
    let back: Vec<R> = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(back[0].m, [("a".to_string(), 2)].into_iter().collect());
    assert_eq!(back[1].m, [("b".to_string(), 3)].into_iter().collect());
}

/// Lengths that claim more entries than the output limit allows are refused when they are
/// read, before a key is: memory stays O(input).
#[test]
fn lengths_past_the_output_limit_are_refused_before_the_entries() {
    // 1 row, a map of 2^40 entries, nothing after.
    let bytes = crate::common::unhex(
        "51 44 46 01 00 ef 01 00 01 81 6d 09 04 01 a1 c6 00 00 00 00 00 01 00 00",
    );
    let err = qdf_core::from_slice::<Value>(&bytes).unwrap_err();
    assert_eq!(err.classify(), qdf_core::Category::Limit, "{err}");
}

/// Sessions keep maps in the rows (their intern table may hold the keys and values, §22.2):
/// the same batch is a map column one-shot and none in a session's first message; every
/// message round-trips.
#[test]
fn sessions_keep_maps_in_the_rows() {
    let v = events(100);
    let opts = Options::balanced();
    let mut enc = qdf_core::EncoderSession::new(opts);
    let mut dec = qdf_core::DecoderSession::new(opts);
    for i in 0..3 {
        let mut msg = Vec::new();
        enc.encode_message(&v, &mut msg).unwrap();
        let back: Vec<Event> = dec.decode_message(&msg).unwrap();
        assert_eq!(back, v);
        // The first message stands alone (the header, an empty intern table).
        if i == 0 {
            assert_eq!(map_columns(&msg, &opts), []);
        }
    }
    let one_shot = qdf_core::to_vec_with(&v, opts).unwrap();
    assert_eq!(
        map_columns(&one_shot, &opts),
        [(2, "tags".to_string(), 200)]
    );
}

/// A map of string keys and values whose key `a` repeats in row 7 (written as is: the
/// encoder checks keys only under `deny_duplicate_keys`).
struct Repeats(usize);

impl Serialize for Repeats {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let i = self.0;
        let last = if i == 7 { "a" } else { "c" };
        s.collect_map([
            ("a", format!("v{}", i % 5)),
            ("b", "x".to_string()),
            (last, "y".to_string()),
        ])
    }
}

/// Keys and values in string blocks are read without `cell`'s dispatch: a repeated key, a
/// value of another type, a borrowed target and an enum target behave as through any
/// other key and value columns, with their errors at the key or value column.
#[test]
fn string_block_entries_read_as_cells() {
    #[derive(Serialize)]
    struct W {
        id: u32,
        m: Repeats,
    }
    let v: Vec<W> = (0..64)
        .map(|i| W {
            id: i,
            m: Repeats(i as usize),
        })
        .collect();
    let opts = Options::balanced();
    let bytes = qdf_core::to_vec_with(&v, opts).unwrap();
    // The map column's key and value columns, at their first bytes.
    let mut blocks = Vec::new();
    qdf_core::inspect::message(&bytes, &opts, &mut |e| {
        if let qdf_core::inspect::EventKind::Column { values, .. } = &e.kind
            && matches!(values, ColumnValues::Block(_))
            && e.depth > 2
        {
            blocks.push(e.offset);
        }
    })
    .unwrap();
    let [keys_at, vals_at] = blocks[..] else {
        panic!("key and value blocks: {blocks:?}");
    };

    #[derive(Deserialize, Debug, PartialEq)]
    struct R<M> {
        id: u32,
        m: M,
    }
    let back: Vec<R<BTreeMap<String, String>>> = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(back[7].m.len(), 2);
    assert_eq!(back[7].m["a"], "y");
    assert_eq!(back[8].m["c"], "y");
    let back: Vec<R<HashMap<&str, &str>>> = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(back[9].m["a"], "v4");

    let deny = opts.deny_duplicate_keys(true);
    let err =
        qdf_core::from_slice_with::<Vec<R<BTreeMap<String, String>>>>(&bytes, deny).unwrap_err();
    assert_eq!(err.classify(), qdf_core::Category::Data, "{err}");
    assert_eq!(err.offset(), Some(keys_at), "{err}");
    let err = qdf_core::from_slice_with::<Value>(&bytes, deny).unwrap_err();
    assert_eq!(err.offset(), Some(keys_at), "{err}");

    let err = qdf_core::from_slice::<Vec<R<BTreeMap<String, u32>>>>(&bytes).unwrap_err();
    assert_eq!(err.classify(), qdf_core::Category::Data, "{err}");
    assert!(
        err.to_string()
            .contains("(column an element, key or value of a list or map column)"),
        "{err}"
    );
    assert_eq!(err.offset(), Some(vals_at), "{err}");
    let err = qdf_core::from_slice::<Vec<R<BTreeMap<u8, String>>>>(&bytes).unwrap_err();
    assert_eq!(err.offset(), Some(keys_at), "{err}");

    // A 3-entry map is not a variant (the enum form reads 1-entry maps only).
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    enum E {
        A(String),
    }
    let err = qdf_core::from_slice::<Vec<R<E>>>(&bytes).unwrap_err();
    assert_eq!(err.classify(), qdf_core::Category::Data, "{err}");
}
