//! Map columns written by key sets (kind bit `10` on a map column, `docs/SPEC.md` §22.2 "Key
//! sets"): each distinct key sequence once, each map naming its set. Round trips in every
//! tier at sizes 1…300 (string, integer and bool keys, nullable values, nested maps), golden
//! bytes, pinned sizes, subset decode, maps read as structs and enums, duplicate keys,
//! sessions; hostile bodies are typed errors where the walker agrees.

use std::collections::{BTreeMap, HashMap};

use crate::common::{columns, mutate, tiers, unhex, xorshift};
use crate::inspect::agree;
use qdf_core::inspect::ColumnValues;
use qdf_core::{Category, DecoderSession, EncoderSession, Options, Value};
use serde::{Deserialize, Serialize};

/// Zipkin-like tag key sets: a span's tags are one of these.
const SETS: &[&[&str]] = &[
    &["http.path"],
    &["http.method", "http.path"],
    &["db.statement", "db.system", "db.user", "net.peer.name"],
    &[],
    &["error", "http.method", "http.path", "http.status_code"],
];

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Span {
    name: String,
    tags: BTreeMap<String, String>,
    /// Keys that are integers, values that may be null.
    codes: BTreeMap<u32, Option<u16>>,
    flags: BTreeMap<bool, u8>,
}

fn spans(n: usize) -> Vec<Span> {
    (0..n)
        .map(|i| {
            let set = SETS[(i * 7 + i / 3) % SETS.len()];
            Span {
                name: format!("op {}", i % 4),
                tags: set
                    .iter()
                    .enumerate()
                    .map(|(k, key)| (key.to_string(), format!("{key}={}", (i + k) % 9)))
                    .collect(),
                codes: (0..(i % 3) as u32)
                    .map(|c| (200 + c, (i % 4 != 0).then_some(i as u16)))
                    .collect(),
                flags: [(true, (i % 2) as u8)].into(),
            }
        })
        .collect()
}

/// Per map column: (depth, name, entries, sets, keys); sets and keys 0 for the lengths form.
fn map_forms(b: &[u8], opts: &Options) -> Vec<(u32, String, u64, u64, u64)> {
    columns(b, opts, |d, n, v| match *v {
        ColumnValues::KeySets {
            entries,
            sets,
            keys,
        } => Some((d, n.to_string(), entries, sets, keys)),
        ColumnValues::Map { entries, .. } => Some((d, n.to_string(), entries, 0, 0)),
        _ => None,
    })
}

#[test]
fn maps_by_key_sets_come_back_exactly_in_every_tier() {
    for n in [1, 2, 3, 5, 15, 16, 17, 40, 100, 300] {
        let s = spans(n);
        for (tier, opts) in tiers() {
            let b = qdf_core::to_vec_with(&s, opts).unwrap();
            let back: Vec<Span> =
                qdf_core::from_slice_with(&b, opts).unwrap_or_else(|e| panic!("{tier} {n}: {e}"));
            assert_eq!(back, s, "{tier} {n}");
            agree(&b, &opts, tier);
        }
    }
    // 100 spans in Balanced: the tags in 5 sets of 11 keys, the integer keys in 3 sets
    // ({}, {200}, {200, 201}), the bool keys in one.
    let b = qdf_core::to_vec(&spans(100)).unwrap();
    let tags_entries: u64 = spans(100).iter().map(|s| s.tags.len() as u64).sum();
    let codes_entries: u64 = spans(100).iter().map(|s| s.codes.len() as u64).sum();
    assert_eq!(
        map_forms(&b, &Options::default()),
        [
            (2, "tags".to_string(), tags_entries, 5, 11),
            (2, "codes".to_string(), codes_entries, 3, 3),
            (2, "flags".to_string(), 100, 1, 1),
        ]
    );
}

#[test]
fn golden_bytes_of_the_spec_examples() {
    #[derive(Serialize)]
    struct T {
        t: BTreeMap<&'static str, u32>,
    }
    let rows: Vec<T> = (0..16)
        .map(|i| T {
            t: [("a", i % 2), ("b", i)].into(),
        })
        .collect();
    let b = qdf_core::to_vec(&rows).unwrap();
    assert_eq!(
        b,
        unhex(
            "51 44 46 01 03 ef 10 00 01 81 74 19 04 01 01 a1 02 e5 03 00 00 10 81 61 81 62 \
             e5 03 04 00 20 00 11 20 31 40 51 60 71 80 91 a0 b1 c0 d1 e0 f1"
        )
    );
    #[derive(Serialize)]
    struct M {
        m: BTreeMap<&'static str, u32>,
    }
    let rows: Vec<M> = (0..4)
        .map(|i| M {
            m: if i % 2 == 0 {
                [("a", i), ("b", i + 1)].into()
            } else {
                [("c", i)].into()
            },
        })
        .collect();
    let b = qdf_core::to_vec(&rows).unwrap();
    assert_eq!(
        b,
        unhex(
            "51 44 46 01 03 ef 04 00 01 81 6d 19 04 01 02 a2 02 01 a4 00 01 00 01 \
             81 61 81 62 81 63 a6 00 01 01 02 03 03"
        )
    );
}

#[test]
fn sizes_are_pinned() {
    let s = spans(300);
    let got: Vec<usize> = [
        Options::balanced(),
        Options::compression(),
        Options::speed(),
    ]
    .iter()
    .map(|o| qdf_core::to_vec_with(&s, *o).unwrap().len())
    .collect();
    assert_eq!(got, [2_155, 1_971, 28_130]);
}

#[test]
fn maps_whose_key_sequences_do_not_repeat_keep_their_lengths() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct R {
        m: BTreeMap<String, u8>,
    }
    let rows: Vec<R> = (0..40)
        .map(|i| R {
            m: [(format!("k{i}"), 1), (format!("j{i}"), 2)].into(),
        })
        .collect();
    let b = qdf_core::to_vec(&rows).unwrap();
    assert_eq!(
        map_forms(&b, &Options::default()),
        [(2, "m".to_string(), 80, 0, 0)]
    );
    assert_eq!(qdf_core::from_slice::<Vec<R>>(&b).unwrap(), rows);
}

#[test]
fn readers_that_skip_the_map_or_read_it_as_a_struct() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct NameOnly {
        name: String,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Tags {
        #[serde(rename = "http.path")]
        path: Option<String>,
        #[serde(rename = "http.method")]
        method: Option<String>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct TagsOnly {
        tags: Tags,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct AsHashMap {
        tags: HashMap<String, String>,
        flags: BTreeMap<bool, u8>,
    }
    let s = spans(60);
    for (tier, opts) in tiers() {
        let b = qdf_core::to_vec_with(&s, opts).unwrap();
        let names: Vec<NameOnly> = qdf_core::from_slice_with(&b, opts).unwrap();
        assert!(
            names.iter().zip(&s).all(|(a, b)| a.name == b.name),
            "{tier}"
        );
        let tags: Vec<TagsOnly> = qdf_core::from_slice_with(&b, opts).unwrap();
        for (a, b) in tags.iter().zip(&s) {
            assert_eq!(a.tags.path.as_ref(), b.tags.get("http.path"), "{tier}");
            assert_eq!(a.tags.method.as_ref(), b.tags.get("http.method"), "{tier}");
        }
        let maps: Vec<AsHashMap> = qdf_core::from_slice_with(&b, opts).unwrap();
        for (a, b) in maps.iter().zip(&s) {
            assert_eq!(a.tags, b.tags.clone().into_iter().collect(), "{tier}");
            assert_eq!(a.flags, b.flags, "{tier}");
        }
    }
}

#[test]
fn one_entry_maps_by_key_sets_read_as_an_enum() {
    #[derive(Deserialize, Debug, PartialEq)]
    enum E {
        A(u32),
        B(u32),
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct R {
        m: E,
    }
    // SPEC §22.2's 4-row example with sets {"A"} and {"B"}.
    let b = unhex(
        "51 44 46 01 03 ef 04 00 01 81 6d 19 04 01 02 a2 01 01 a4 00 01 00 01 \
         81 41 81 42 a4 01 02 03 04",
    );
    let rows: Vec<R> = qdf_core::from_slice(&b).unwrap();
    assert_eq!(
        rows,
        [
            R { m: E::A(1) },
            R { m: E::B(2) },
            R { m: E::A(3) },
            R { m: E::B(4) }
        ]
    );
}

/// A map whose serializer writes a key twice (no std map does).
struct Pairs(Vec<(&'static str, u8)>);

impl Serialize for Pairs {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

#[test]
fn a_repeated_key_inside_a_set_is_kept_and_refused_under_deny_duplicate_keys() {
    #[derive(Serialize)]
    struct R {
        m: Pairs,
    }
    let rows: Vec<R> = (0..20)
        .map(|i| R {
            m: Pairs(vec![("a", i), ("b", 1), ("a", 2)]),
        })
        .collect();
    let b = qdf_core::to_vec(&rows).unwrap();
    assert_eq!(
        map_forms(&b, &Options::default()),
        [(2, "m".to_string(), 60, 1, 3)]
    );
    let v: Value = qdf_core::from_slice(&b).unwrap();
    let text = v.to_string();
    assert!(
        text.starts_with(r#"[{"m": {"a": 0, "b": 1, "a": 2}}, {"m": {"a": 1, "b": 1, "a": 2}}"#),
        "{text}"
    );
    let strict = Options::default().deny_duplicate_keys(true);
    let e = qdf_core::from_slice_with::<Value>(&b, strict).unwrap_err();
    assert_eq!(
        (e.classify(), e.offset()),
        (Category::Data, Some(22)),
        "{e}"
    );
}

#[test]
fn sessions_write_key_sets_frame_by_frame() {
    for opts in [Options::balanced(), Options::compression()] {
        let mut enc = EncoderSession::new(opts);
        let mut wire = Vec::new();
        let mut at_frames = Vec::new();
        for k in 0..4 {
            at_frames.push(wire.len());
            enc.encode_frame(&spans(30 + 7 * k), &mut wire).unwrap();
        }
        let mut dec = DecoderSession::new(opts);
        let mut at = 0;
        for k in 0..4 {
            let (v, used): (Vec<Span>, usize) = dec.decode_frame(&wire[at..]).unwrap().unwrap();
            assert_eq!(v, spans(30 + 7 * k));
            at += used;
        }
        assert_eq!(at, wire.len());
        let mut sets = 0;
        qdf_core::inspect::stream(&wire, &opts, 1 << 20, &mut |e| {
            if let qdf_core::inspect::EventKind::Column {
                values: ColumnValues::KeySets { .. },
                ..
            } = &e.kind
            {
                sets += 1;
            }
        })
        .unwrap();
        assert!(sets >= 4, "{sets} key-set columns in 4 frames");
    }
}

/// A hostile case: its name, the message after the header, and the error (`None`: decodes).
type Case = (&'static str, String, Option<(Category, u64)>);

#[test]
fn hostile_key_sets_are_typed_errors_where_the_walker_agrees() {
    use Category::{Data, Eof, Limit, Syntax};
    // SPEC §22.2's 4-row example: sets, keys and values after the declaration.
    const D: &str = "ef 04 00 01 81 6d 19 04 01";
    const KV: &str = "81 61 81 62 81 63 a6 00 01 01 02 03 03";
    let sets = |sets: &str| format!("{D} {sets} {KV}");
    let decl = |decl: &str| format!("ef 04 00 01 81 6d {decl} 02 a2 02 01 a4 00 01 00 01 {KV}");
    let cases: Vec<Case> = vec![
        ("valid", sets("02 a2 02 01 a4 00 01 00 01"), None),
        (
            "no set",
            sets("00 a2 02 01 a4 00 01 00 01"),
            Some((Syntax, 14)),
        ),
        (
            "more sets than maps",
            sets("05 a2 02 01 a4 00 01 00 01"),
            Some((Syntax, 14)),
        ),
        (
            "S past u64",
            sets("ff ff ff ff ff ff ff ff ff 01"),
            Some((Syntax, 14)),
        ),
        (
            "a set past the sets",
            sets("02 a2 02 01 a4 00 02 00 01"),
            Some((Syntax, 18)),
        ),
        (
            "set lengths not ints",
            sets("02 a2 c1 01 a4 00 01 00 01"),
            Some((Data, 16)),
        ),
        (
            "sets not ints",
            sets("02 a2 02 01 a4 00 c1 00 01"),
            Some((Data, 20)),
        ),
        (
            "set lengths past 2^32 keys",
            sets("02 a2 c5 ff ff ff ff 02 a4 00 01 00 01"),
            Some((Syntax, 15)),
        ),
        (
            "set lengths past the output limit",
            sets("02 a2 c5 00 00 10 00 01 a4 00 01 00 01"),
            Some((Limit, 22)),
        ),
        (
            "sets name more entries than the values",
            sets("02 a2 02 01 a4 00 00 00 00"),
            Some((Syntax, 29)),
        ),
        (
            "cut in the sets",
            format!("{D} 02 a2 02 01 a4 00"),
            Some((Eof, 19)),
        ),
        ("nullable key column", decl("19 84 01"), Some((Syntax, 12))),
        ("list key column", decl("19 07 04 01"), Some((Syntax, 12))),
    ];
    let opts = Options::default().max_output(1 << 20);
    for (name, msg, want) in &cases {
        let b = unhex(&format!("51 44 46 01 00 {msg}"));
        let got = qdf_core::from_slice_with::<Value>(&b, opts);
        match want {
            None => {
                got.unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            Some((cat, at)) => {
                let e = got.err().unwrap_or_else(|| panic!("{name}: decoded"));
                assert_eq!((e.classify(), e.offset()), (*cat, Some(*at)), "{name}: {e}");
            }
        }
        agree(&b, &opts, name);
    }
}

#[test]
fn mutated_messages_never_panic_and_the_walker_agrees() {
    let mut next = xorshift(0x6b65_7973);
    for opts in [Options::balanced(), Options::compression()] {
        let m = qdf_core::to_vec_with(&spans(40), opts).unwrap();
        for _ in 0..400 {
            let mut b = m.clone();
            mutate(&mut b, &mut next);
            agree(&b, &opts, "mutated");
        }
    }
}
