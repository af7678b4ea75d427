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
        ColumnValues::Map { entries, .. } | ColumnValues::KeySets { entries, .. } => {
            Some((depth, name.to_string(), *entries))
        }
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

// Key sets (§22.2): 586 -> 337 (one set of two keys instead of 2 000 keys).
const SIZE_WITH: usize = 337;
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

/// Rows whose `tags` map holds a URL distinct per row (the same URLs in every release) and,
/// on every third row, a version that changes with release `k` (a deploy).
fn events_of_release(n: usize, k: usize) -> Vec<Event> {
    (0..n)
        .map(|i| {
            let mut tags = BTreeMap::new();
            tags.insert("url".to_string(), format!("/api/v1/customers/{i}/orders"));
            if i % 3 == 0 {
                tags.insert("version".to_string(), format!("v3.{}.{}", 42 + k, i % 4));
            }
            Event {
                ts: 1_700_000_000 + i as i64,
                tags,
            }
        })
        .collect()
}

/// In a session a map column's keys and values may be per-value strings through the intern
/// table (§22.2, "Codecs"): after a frame of rows that interns the URLs, the map column refers
/// to them (a block would spell them out again), in two frames and a deploy's frame that
/// also defines new versions; the walker and a `DecoderSession` agree on the stream, its
/// prefixes and bit flips.
#[test]
fn session_map_columns_refer_to_the_intern_table() {
    let urls: Vec<String> = events_of_release(100, 0)
        .into_iter()
        .map(|e| e.tags["url"].clone())
        .collect();
    let frames = [
        events_of_release(100, 0),
        events_of_release(100, 0),
        events_of_release(100, 1),
        events_of_release(3, 1),
    ];
    for opts in [Options::balanced(), Options::compression()] {
        let mut enc = qdf_core::EncoderSession::new(opts);
        let mut dec = qdf_core::DecoderSession::new(opts);
        let mut stream = Vec::new();
        enc.encode_frame(&urls, &mut stream).unwrap();
        let mut sizes = Vec::new();
        for f in &frames {
            let before = stream.len();
            enc.encode_frame(f, &mut stream).unwrap();
            sizes.push(stream.len() - before);
        }
        let (back, mut at): (Vec<String>, usize) = dec.decode_frame(&stream).unwrap().unwrap();
        assert_eq!(back, urls);
        for f in &frames {
            let (back, used): (Vec<Event>, usize) =
                dec.decode_frame(&stream[at..]).unwrap().unwrap();
            assert_eq!(&back, f);
            at += used;
        }
        assert_eq!(at, stream.len());
        // Per frame: map columns, and per-value string columns among their children.
        let (mut maps, mut per_value) = (0, 0);
        qdf_core::inspect::stream(&stream, &opts, 1 << 20, &mut |e| {
            if let qdf_core::inspect::EventKind::Column { values, .. } = &e.kind {
                maps += usize::from(matches!(
                    values,
                    ColumnValues::Map { .. } | ColumnValues::KeySets { .. }
                ));
                per_value += usize::from(matches!(values, ColumnValues::PerValue));
            }
        })
        .unwrap();
        assert_eq!(maps, 3, "{opts:?}");
        assert!(per_value >= 3, "{per_value}");
        // The URLs are references: the frame is well under the message that spells them out.
        let one_shot = qdf_core::to_vec_with(&frames[0], opts).unwrap();
        assert!(
            sizes[0] * 3 < one_shot.len() * 2,
            "{sizes:?} vs {}",
            one_shot.len()
        );
        assert!(sizes[1] < sizes[0] && sizes[1] < sizes[2], "{sizes:?}");
        if opts == Options::balanced() {
            // Key sets (§22.2): [376, 334, 362, 61] / 2 077 before.
            assert_eq!((sizes, one_shot.len()), (vec![364, 315, 343, 54], 2065));
        }
        crate::inspect::agree_stream(&stream, &opts);
        for n in 0..stream.len() {
            crate::inspect::agree_stream(&stream[..n], &opts);
        }
        let mut c = stream.clone();
        for i in 0..c.len() {
            c[i] ^= 0x01;
            crate::inspect::agree_stream(&c, &opts);
            c[i] ^= 0x01;
        }
    }
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
    // Compression writes child strings as blocks only: the keys of the maps' two key sets
    // (§22.2) are a block too, read through the same path once repeated per entry.
    let opts = Options::compression();
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
