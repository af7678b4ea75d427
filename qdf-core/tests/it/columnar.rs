//! Columnar containers (`docs/SPEC.md` §22): golden bytes, equality with row
//! mode, string codecs through the columnar path, subset decode, sessions, hostile input.

use std::collections::BTreeMap;

use crate::common::{hex, unhex};
use proptest::prelude::*;
use qdf_core::{Category, DecoderSession, EncoderSession, Features, Options, Value};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize};

const EF: u8 = 0xEF;
const F7: u8 = 0xF7;

fn tag(b: &[u8]) -> u8 {
    b[5]
}

/// Value text of the row-mode (Speed) encoding: what a columnar decode must equal.
fn row_value<T: Serialize>(v: &T) -> String {
    let b = qdf_core::to_vec_with(v, Options::speed()).unwrap();
    qdf_core::from_slice::<Value>(&b).unwrap().to_string()
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Pt {
    x: u8,
    y: i8,
}

fn pts(n: usize) -> Vec<Pt> {
    (0..n)
        .map(|i| Pt {
            x: i as u8,
            y: -(i as i8 % 3),
        })
        .collect()
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Tagged {
    n: u8,
    t: Vec<u8>,
}

#[test]
fn golden_ef_and_f7() {
    let b = qdf_core::to_vec(&pts(16)).unwrap();
    assert_eq!(
        hex(&b),
        "51 44 46 01 03 ef 10 00 02 81 78 01 81 79 00 e6 03 00 00 02 10 e5 07 02 03 10 86 61 18 86"
    );
    let back: Vec<Pt> = qdf_core::from_slice(&b).unwrap();
    assert_eq!(back, pts(16));

    let v: Vec<Tagged> = (0..16)
        .map(|i| Tagged {
            n: i,
            t: vec![i; (i % 2) as usize],
        })
        .collect();
    // Without struct and list columns (§22.2) the list field stays in the rows.
    let flat = Options::balanced().features(Features::BALANCED - Features::NESTED_COLUMNS);
    let b = qdf_core::to_vec_with(&v, flat).unwrap();
    assert_eq!(tag(&b), F7);
    assert_eq!(
        hex(&b),
        "51 44 46 01 03 f7 10 00 02 81 6e 01 81 74 0f e6 03 00 00 02 10 a0 a1 01 a0 a1 03 a0 a1 05 a0 a1 07 a0 a1 09 a0 a1 0b a0 a1 0d a0 a1 0f"
    );
    let back: Vec<Tagged> = qdf_core::from_slice(&b).unwrap();
    assert_eq!(back, v);
    assert_eq!(
        qdf_core::from_slice::<Value>(&b).unwrap().to_string(),
        row_value(&v)
    );
}

/// Around the threshold: 15 rows stay an array, 16 and 17 become containers.
#[test]
fn fifteen_is_row_mode_sixteen_and_seventeen_are_columnar() {
    for (n, want) in [(15, 0xAF), (16, EF), (17, EF)] {
        let b = qdf_core::to_vec(&pts(n)).unwrap();
        assert_eq!(tag(&b), want, "{n} rows");
        assert_eq!(qdf_core::from_slice::<Vec<Pt>>(&b).unwrap(), pts(n));
    }
}

/// Rows that give up (15 rows, or a row whose fields contradict the plan) are replayed
/// through the real serializer: the bytes equal those of an encoder that cannot write
/// containers (QPack off changes nothing else for rows of scalars).
#[test]
fn fallback_replay_is_byte_identical() {
    let no_columnar = Options::balanced().features(Features::BALANCED.without(Features::QPACK));
    let v = pts(15);
    assert_eq!(
        qdf_core::to_vec(&v).unwrap(),
        qdf_core::to_vec_with(&v, no_columnar).unwrap()
    );
    // 20 rows, the 18th with its fields reordered: the batch gives up at that row.
    let rows: Vec<Flex> = (0..20)
        .map(|i| Flex {
            i,
            reorder: i == 17,
            skip: false,
        })
        .collect();
    let b = qdf_core::to_vec(&rows).unwrap();
    assert_eq!(b, qdf_core::to_vec_with(&rows, no_columnar).unwrap());
    assert_eq!(tag(&b), 0xB4);
    assert_eq!(
        qdf_core::from_slice::<Value>(&b).unwrap().to_string(),
        row_value(&rows)
    );
}

/// A hand-written `Serialize` that skips a field or reorders the fields on some rows.
#[derive(Debug, Clone, PartialEq)]
struct Flex {
    i: u32,
    reorder: bool,
    skip: bool,
}

impl Serialize for Flex {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = if self.skip && !self.reorder { 2 } else { 3 };
        let mut st = s.serialize_struct("Flex", len)?;
        if self.reorder {
            st.serialize_field("b", &format!("v{}", self.i))?;
            st.serialize_field("a", &self.i)?;
        } else {
            st.serialize_field("a", &self.i)?;
            if !self.skip {
                st.serialize_field("b", &format!("v{}", self.i))?;
            }
        }
        st.serialize_field("c", &self.i.is_multiple_of(2))?;
        st.end()
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Mode {
    Off,
    Level(u8),
    Pair(i16, String),
    Named { w: Option<u8> },
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Item {
    id: u64,
    delta: i64,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    note: Option<String>,
    maybe: Option<u32>,
    twice: Option<Option<u8>>,
    ratio: f64,
    small: f32,
    flag: bool,
    mode: Mode,
    tags: Vec<String>,
    c: char,
}

fn item() -> impl Strategy<Value = Item> {
    let mode = prop_oneof![
        Just(Mode::Off),
        any::<u8>().prop_map(Mode::Level),
        (any::<i16>(), "[a-c]{0,3}").prop_map(|(a, b)| Mode::Pair(a, b)),
        proptest::option::of(any::<u8>()).prop_map(|w| Mode::Named { w }),
    ];
    (
        (0u64..5000, any::<i64>(), "[a-d]{0,6}"),
        (
            proptest::option::of("[x-z]{0,5}"),
            proptest::option::of(0u32..70000),
            proptest::option::of(proptest::option::of(any::<u8>())),
        ),
        (-1e6f64..1e6, -1e3f32..1e3, any::<bool>()),
        (
            mode,
            proptest::collection::vec("[a-b]{1,2}", 0..3),
            any::<char>(),
        ),
    )
        .prop_map(
            |((id, delta, name), (note, maybe, twice), (ratio, small, flag), (mode, tags, c))| {
                Item {
                    id,
                    delta,
                    name,
                    note,
                    maybe,
                    twice,
                    ratio,
                    small,
                    flag,
                    mode,
                    tags,
                    c,
                }
            },
        )
}

fn check_equal_to_row_mode<T>(v: &Vec<T>, opts: Options, flat: Options)
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let b = qdf_core::to_vec_with(v, opts).unwrap();
    let back: Vec<T> = qdf_core::from_slice(&b).unwrap();
    assert_eq!(&back, v);
    let val: Value = qdf_core::from_slice(&b).unwrap();
    assert_eq!(val.to_string(), row_value(v));
    if v.len() == 15 {
        // Below 16 rows a batch is a container only with a struct or list column (`tags`
        // here) and only when that is strictly smaller than its rows by exact cost.
        let rows = qdf_core::to_vec_with(v, flat).unwrap();
        assert_eq!(tag(&rows), 0xAF);
        if tag(&b) != 0xAF {
            assert!(matches!(tag(&b), EF | F7), "{:02x}", tag(&b));
            assert!(b.len() < rows.len(), "{} >= {}", b.len(), rows.len());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn columnar_equals_row_mode(
        v in prop_oneof![
            proptest::collection::vec(item(), 15..=15),
            proptest::collection::vec(item(), 16..=17),
            proptest::collection::vec(item(), 0..60),
        ],
        compression in any::<bool>(),
    ) {
        let (opts, feats) = if compression {
            (Options::compression(), Features::COMPRESSION)
        } else {
            (Options::balanced(), Features::BALANCED)
        };
        let flat = opts.features(feats.without(Features::NESTED_COLUMNS));
        check_equal_to_row_mode(&v, opts, flat);
    }

    #[test]
    fn hand_written_serialize_equals_row_mode(
        flags in proptest::collection::vec((any::<bool>(), any::<bool>()), 15..40),
    ) {
        let rows: Vec<Flex> = flags
            .iter()
            .enumerate()
            .map(|(i, &(r, s))| Flex { i: i as u32, reorder: r && i % 5 == 0, skip: s })
            .collect();
        let b = qdf_core::to_vec(&rows).unwrap();
        prop_assert_eq!(qdf_core::from_slice::<Value>(&b).unwrap().to_string(), row_value(&rows));
        if rows.iter().any(|r| r.reorder) {
            prop_assert!(tag(&b) != EF && tag(&b) != F7, "a reordered row gives up");
        }
    }
}

/// The 16/17-row cases of the generated items are containers for a fixed seed of values.
#[test]
fn items_become_containers() {
    let items: Vec<Item> = (0..17)
        .map(|i| Item {
            id: i,
            delta: -(i as i64),
            name: format!("n{}", i % 3),
            note: (i % 2 == 0).then(|| "note".into()),
            maybe: (i % 3 != 0).then_some(i as u32),
            twice: match i % 3 {
                0 => None,
                1 => Some(None),
                _ => Some(Some(i as u8)),
            },
            ratio: i as f64 / 4.0,
            small: i as f32,
            flag: i % 2 == 1,
            mode: match i % 4 {
                0 => Mode::Off,
                1 => Mode::Level(i as u8),
                2 => Mode::Pair(-1, "ab".into()),
                _ => Mode::Named { w: None },
            },
            tags: vec!["a".into(); (i % 3) as usize],
            c: 'q',
        })
        .collect();
    for n in [16, 17] {
        let v = items[..n].to_vec();
        let b = qdf_core::to_vec(&v).unwrap();
        assert_eq!(tag(&b), F7, "{n} rows");
        let flat = Features::BALANCED.without(Features::NESTED_COLUMNS);
        check_equal_to_row_mode(&v, Options::balanced(), Options::balanced().features(flat));
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct S {
    s: String,
}

/// One column `s` built for each string block: what, values, tier, the block tag it must take.
fn string_codec_cases() -> Vec<(&'static str, Vec<String>, Options, u8)> {
    // 31 digits: an odd length is not hex text (§22.1), so the alphabet block is chosen.
    let hex32 = |i: u64| {
        format!(
            "{:031x}",
            i.wrapping_mul(0x9E37_79B9_7F4A_7C15) as u128 * 7919
        )
    };
    vec![
        ("F9 constant", vec!["us-east-1".into(); 40], Options::balanced(), 0xF9),
        (
            "F5 dictionary",
            (0..64).map(|i| ["INFO", "WARN", "ERROR", "DEBUG", "TRACE"][(i * 7) % 5].into()).collect(),
            Options::balanced(),
            0xF5,
        ),
        (
            "FA front-coded",
            (0..64).map(|i| format!("/api/v1/resource/{}", ["users", "items", "orders", "carts"][(i * 3) % 4])).collect(),
            Options::balanced(),
            0xFA,
        ),
        (
            "FC dictionary with QPack index",
            (0..120).map(|i| if i < 60 { "INFO" } else { "WARN" }.into()).chain((0..1).map(|_| "ERROR".into())).collect(),
            Options::balanced(),
            0xFC,
        ),
        ("FB alphabet", (0..40).map(hex32).collect(), Options::balanced(), 0xFB),
        (
            "F8 slab",
            (0..40u32).map(|i| (0..12u32).map(|j| char::from(b'!' + ((i * 31 + j * 17) % 90) as u8)).collect()).collect(),
            Options::balanced(),
            0xF8,
        ),
        (
            "F6 FSST",
            (0..200).map(|i| format!("GET /index.html HTTP/1.1 user agent Mozilla/5.0 request number {i} from host-{}", i % 7)).collect(),
            Options::compression().features(Features::COMPRESSION.without(Features::ENTROPY)),
            0xF6,
        ),
        (
            "FE entropy-coded block",
            (0..200).map(|i| format!("GET /index.html HTTP/1.1 user agent Mozilla/5.0 request number {i} from host-{}", i % 7)).collect(),
            Options::compression(),
            0xFE,
        ),
    ]
}

/// Each string block is chosen through the columnar path on a column built for it; the block
/// tag is the first byte of the column body (one column named `s`: `EF M 00 01 81 73 04`).
#[test]
fn each_string_codec_is_chosen() {
    for (what, strs, opts, want) in string_codec_cases() {
        let v: Vec<S> = strs.into_iter().map(|s| S { s }).collect();
        let b = qdf_core::to_vec_with(&v, opts).unwrap();
        assert_eq!(tag(&b), EF, "{what}");
        let body = 5 + 1 + if v.len() < 128 { 1 } else { 2 } + 5;
        assert_eq!(b[body], want, "{what}: {}", hex(&b[..body + 1]));
        assert_eq!(qdf_core::from_slice::<Vec<S>>(&b).unwrap(), v, "{what}");
        assert_eq!(
            qdf_core::from_slice::<Value>(&b).unwrap().to_string(),
            row_value(&v),
            "{what}"
        );
    }
}

/// Every strict prefix of a message holding each string block is an Eof error (a truncated
/// block must not look like a malformed one), into `Value` and into the typed rows.
#[test]
fn every_strict_prefix_of_each_string_block_is_eof() {
    for (what, strs, opts, _) in string_codec_cases() {
        let v: Vec<S> = strs.into_iter().map(|s| S { s }).collect();
        let b = qdf_core::to_vec_with(&v, opts).unwrap();
        for n in 0..b.len() {
            let errs = [
                qdf_core::from_slice::<Value>(&b[..n]).unwrap_err(),
                qdf_core::from_slice::<Vec<S>>(&b[..n]).unwrap_err(),
            ];
            for e in errs {
                assert_eq!(e.classify(), Category::Eof, "{what}: prefix {n}: {e}");
            }
        }
    }
}

/// 64 distinct strings of bytes no alphabet covers, then repeats: per-value strings through
/// the intern table are smaller than any block.
fn per_value_strings(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            let k = (i % 64) as u32;
            (0..10u32)
                .map(|j| char::from(b'!' + ((k * 7 + j * 13) % 90) as u8))
                .collect()
        })
        .collect()
}

// The rows of the subset-decode benchmark, the same file `benches/columnar.rs` uses.
#[path = "../../../tests/support/subset.rs"]
mod subset;
use subset::{Three, Wide, wide};

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Strict {
    f02: f64,
}

#[test]
fn subset_decode_reads_three_of_sixteen() {
    let v = wide(200);
    let want: Vec<Three> = v
        .iter()
        .map(|w| Three {
            f02: w.f02,
            f09: w.f09.clone(),
            f14: w.f14,
        })
        .collect();
    let plain = qdf_core::to_vec(&v).unwrap();
    let indexed_opts =
        Options::balanced().features(Features::BALANCED.with(Features::COLUMN_INDEX));
    let indexed = qdf_core::to_vec_with(&v, indexed_opts).unwrap();
    assert_eq!(
        (plain[4], indexed[4]),
        (0x03, 0x0B),
        "flag 08 only with the index"
    );
    for b in [&plain, &indexed] {
        assert_eq!(tag(b), EF);
        assert_eq!(qdf_core::from_slice::<Vec<Three>>(b).unwrap(), want);
        assert_eq!(qdf_core::from_slice::<Vec<Wide>>(b).unwrap(), v);
        // deny_unknown_fields fails as it does on the row form.
        let e = qdf_core::from_slice::<Vec<Strict>>(b).unwrap_err();
        let row = qdf_core::to_vec_with(&v, Options::speed()).unwrap();
        let e_row = qdf_core::from_slice::<Vec<Strict>>(&row).unwrap_err();
        assert_eq!(e.classify(), e_row.classify());
        assert!(e.to_string().contains("unknown field `f00`"), "{e}");
    }
}

/// A skipped column is readable only as `IgnoredAny`: a later row whose target names it
/// gets a Data error saying why.
#[test]
fn a_skipped_column_refuses_other_requests() {
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct First {
        f00: u32,
    }
    #[derive(Deserialize)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Either {
        A(First),
    }
    let b = qdf_core::to_vec(&wide(20)).unwrap();
    // Value first row decodes everything; typed subset skips.
    struct Mixed;
    impl<'de> serde::de::Visitor<'de> for Mixed {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("rows")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let _: First = seq.next_element()?.unwrap();
            let _: BTreeMap<String, Value> = seq.next_element()?.unwrap();
            Ok(())
        }
    }
    let mut de = qdf_core::Deserializer::from_slice(&b).unwrap();
    let e = serde::Deserializer::deserialize_seq(&mut de, Mixed).unwrap_err();
    assert_eq!(e.classify(), Category::Data);
    assert!(
        e.to_string()
            .contains("skipped because the first row's type did not name it"),
        "{e}"
    );
}

/// The keys a row shows to a struct visitor that takes keys as identifiers and ignores every
/// value (as serde derive treats fields it does not know), counted per row.
struct KeyCount(&'static [&'static str]);

impl<'de> serde::de::DeserializeSeed<'de> for KeyCount {
    type Value = usize;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = usize;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a row")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<usize, A::Error> {
                struct Ident;
                impl<'de> Deserialize<'de> for Ident {
                    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                        d.deserialize_identifier(serde::de::IgnoredAny)
                            .map(|_| Ident)
                    }
                }
                let mut n = 0;
                while m.next_key::<Ident>()?.is_some() {
                    m.next_value::<serde::de::IgnoredAny>()?;
                    n += 1;
                }
                Ok(n)
            }
        }
        d.deserialize_struct("Row", self.0, V)
    }
}

/// Rows of `fields` per entry of `plan`, key counts out.
struct Plan(Vec<&'static [&'static str]>);

impl<'de> serde::de::Visitor<'de> for Plan {
    type Value = Vec<usize>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("rows")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<usize>, A::Error> {
        let mut out = Vec::new();
        for fields in self.0 {
            out.push(seq.next_element_seed(KeyCount(fields))?.unwrap());
        }
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(out)
    }
}

/// A skipped column shows its key until a row of the struct took it as an identifier and
/// ignored its value; then rows of the same field list leave it out, and a row of another
/// field list (or a map) shows it again.
#[test]
fn ignored_skipped_keys_are_left_out_of_the_same_structs_rows() {
    const THREE: &[&str] = &["f02", "f09", "f14"];
    const OTHER: &[&str] = &["f02"];
    let opts = Options::balanced().features(Features::BALANCED.with(Features::COLUMN_INDEX));
    for b in [
        qdf_core::to_vec(&wide(20)).unwrap(),
        qdf_core::to_vec_with(&wide(20), opts).unwrap(),
    ] {
        assert_eq!(tag(&b), EF);
        let plan = Plan(vec![THREE, THREE, THREE, OTHER, THREE]);
        let mut de = qdf_core::Deserializer::from_slice(&b).unwrap();
        let counts = serde::Deserializer::deserialize_seq(&mut de, plan).unwrap();
        assert_eq!(counts, [16, 3, 3, 16, 3]);
        // A map row after hidden ones still sees (and refuses) every skipped column.
        struct MapAfter;
        impl<'de> serde::de::Visitor<'de> for MapAfter {
            type Value = ();
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("rows")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
                let _: Three = seq.next_element()?.unwrap();
                let _: Three = seq.next_element()?.unwrap();
                let _: BTreeMap<String, Value> = seq.next_element()?.unwrap();
                Ok(())
            }
        }
        let mut de = qdf_core::Deserializer::from_slice(&b).unwrap();
        let e = serde::Deserializer::deserialize_seq(&mut de, MapAfter).unwrap_err();
        assert!(e.to_string().contains("skipped because"), "{e}");
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Pv {
    id: u32,
    s: String,
}

#[derive(Deserialize, Debug, PartialEq)]
struct OnlyId {
    id: u32,
}

/// A per-value interned string column skipped by frame 1's target is still walked, so frame
/// 2, which refers to its intern entries, decodes in step.
#[test]
fn session_stays_in_step_when_a_per_value_column_is_skipped() {
    let strs = per_value_strings(100);
    let batch = |base: u32| -> Vec<Pv> {
        (0..100)
            .map(|i| Pv {
                id: base + i as u32,
                s: strs[i].clone(),
            })
            .collect()
    };
    // The `s` column (kind 04) is per-value: its body starts with an intern definition.
    let one = qdf_core::to_vec(&batch(0)).unwrap();
    assert_eq!(
        hex(&one[5..23]),
        "ef 64 00 02 82 69 64 01 81 73 04 e6 03 00 00 02 64 e0"
    );
    let mut enc = EncoderSession::new(Options::balanced());
    let mut wire = Vec::new();
    for f in 0..3 {
        enc.encode_frame(&batch(f * 100), &mut wire).unwrap();
    }
    let mut dec = DecoderSession::new(Options::balanced());
    let mut at = 0;
    let (ids, used): (Vec<OnlyId>, usize) = dec.decode_frame(&wire[at..]).unwrap().unwrap();
    at += used;
    assert_eq!(ids.len(), 100);
    assert_eq!(ids[99].id, 99);
    let (ids, used): (Vec<OnlyId>, usize) = dec.decode_frame(&wire[at..]).unwrap().unwrap();
    at += used;
    assert_eq!(ids[0].id, 100);
    let (full, used): (Vec<Pv>, usize) = dec.decode_frame(&wire[at..]).unwrap().unwrap();
    at += used;
    assert_eq!(full, batch(200));
    assert_eq!(at, wire.len());
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Span {
    id: u64,
    name: String,
    attrs: BTreeMap<String, String>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Scope {
    scope: String,
    spans: Vec<Span>,
}

/// A `Vec<struct>` field of 16 or more structs a row on average is one list column over all
/// of them (`docs/SPEC.md` §22.2): the scopes' 320 spans are one struct column set, not 16
/// containers of their own (each an `EF` of 20 rows before).
#[test]
fn nested_batches_are_columnar() {
    let v: Vec<Scope> = (0..16)
        .map(|s| Scope {
            scope: format!("lib-{}", s % 2),
            spans: (0..20)
                .map(|i| Span {
                    id: s * 100 + i,
                    name: ["GET", "SET", "DEL"][(i % 3) as usize].into(),
                    attrs: [("k".to_string(), format!("v{}", i % 4))]
                        .into_iter()
                        .collect(),
                })
                .collect(),
        })
        .collect();
    let b = qdf_core::to_vec(&v).unwrap();
    assert_eq!(tag(&b), EF);
    let opts = Options::balanced();
    let cols = crate::common::columns(&b, &opts, |depth, name, values| {
        Some((depth, name.to_string(), values.to_string()))
    });
    assert_eq!(cols[1].0, 2);
    assert_eq!(cols[1].1, "spans");
    assert!(cols[1].2.starts_with("list of 320 elements"), "{cols:?}");
    assert!(
        cols[2].2.starts_with("struct of 3 child columns"),
        "{cols:?}"
    );
    // No container inside another.
    assert_eq!(
        b[10..]
            .windows(2)
            .filter(|w| w[0] == EF && w[1] == 20)
            .count(),
        0
    );
    assert_eq!(qdf_core::from_slice::<Vec<Scope>>(&b).unwrap(), v);
    assert_eq!(
        qdf_core::from_slice::<Value>(&b).unwrap().to_string(),
        row_value(&v)
    );
}

#[test]
fn truncation_at_every_byte_is_eof() {
    for b in [
        qdf_core::to_vec(&pts(20)).unwrap(),
        qdf_core::to_vec(&wide(20)).unwrap(),
        qdf_core::to_vec_with(
            &wide(20),
            Options::balanced().features(Features::BALANCED.with(Features::COLUMN_INDEX)),
        )
        .unwrap(),
    ] {
        for cut in 5..b.len() {
            let e = qdf_core::from_slice::<Value>(&b[..cut]).unwrap_err();
            assert!(e.is_eof(), "cut at {cut}: {e}");
            let e = qdf_core::from_slice::<Vec<Three>>(&b[..cut]).unwrap_err();
            assert!(e.is_eof(), "typed, cut at {cut}: {e}");
        }
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Opt {
    a: u8,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    b: Option<bool>,
}

#[test]
fn bad_masks_and_counts_are_syntax_errors() {
    let v: Vec<Opt> = (0..20)
        .map(|i| Opt {
            a: i,
            b: (i % 2 == 0).then_some(i % 4 == 0),
        })
        .collect();
    let b = qdf_core::to_vec(&v).unwrap();
    assert_eq!(
        hex(&b[5..]),
        "ef 14 00 02 81 61 01 81 62 43 e6 03 00 00 02 14 55 55 05 e3 0a 55 01"
    );
    assert_eq!(qdf_core::from_slice::<Vec<Opt>>(&b).unwrap(), v);
    // Padding bit 20 of the presence mask set.
    let mut pad = b.clone();
    pad[23] |= 0x10;
    let e = qdf_core::from_slice::<Value>(&pad).unwrap_err();
    assert_eq!(e.classify(), Category::Syntax, "{e}");
    // One more present row than the bool body holds.
    let mut extra = b.clone();
    extra[22] |= 0x02;
    let e = qdf_core::from_slice::<Value>(&extra).unwrap_err();
    assert_eq!(e.classify(), Category::Syntax, "{e}");
    // Fewer than 16 rows.
    let mut few = b.clone();
    few[6] = 0x0F;
    assert_eq!(
        qdf_core::from_slice::<Value>(&few).unwrap_err().classify(),
        Category::Syntax
    );
    // An unknown column shape id.
    let mut unknown = b.clone();
    unknown[7] = 0x05;
    assert_eq!(
        qdf_core::from_slice::<Value>(&unknown)
            .unwrap_err()
            .classify(),
        Category::Syntax
    );
}

/// A huge row count over a tiny input fails before anything is allocated.
#[test]
fn huge_row_count_is_refused_by_the_budget() {
    // EF, M = 2^40, a declaration of one int column, a constant FOR body.
    let mut msg =
        unhex("51 44 46 01 01 ef 80 80 80 80 80 20 00 01 81 61 01 e5 03 00 00 80 80 80 80 80 20");
    let e = qdf_core::from_slice::<Value>(&msg).unwrap_err();
    assert_eq!(e.classify(), Category::Limit, "{e}");
    msg.truncate(8);
    assert!(qdf_core::from_slice::<Value>(&msg).is_err());
}

/// Borrowing from a columnar string column: blocks that keep values contiguous in the input
/// (F5 dictionary, F8 slab, F9 constant) hand out borrowed strings; blocks that rebuild them
/// (FA front coding, FB alphabet, F6 FSST) cannot, so a `Cow<'a, str>` field comes out owned
/// there and a bare `&'a str` field is a Data error, as serde_json does for escaped strings
/// (docs/SPEC.md §22, "Row presentation").
#[test]
fn string_columns_borrow_where_the_block_keeps_values_in_the_input() {
    use std::borrow::Cow;
    #[derive(Deserialize, Debug)]
    struct CowRow<'a> {
        #[serde(borrow)]
        s: Cow<'a, str>,
    }
    #[derive(Deserialize, Debug)]
    struct StrRow<'a> {
        #[allow(dead_code)]
        s: &'a str,
    }
    let dict: Vec<S> = (0..64)
        .map(|i| S {
            s: ["INFO", "WARN", "ERROR", "DEBUG", "TRACE"][(i * 7) % 5].into(),
        })
        .collect();
    let front: Vec<S> = (0..64)
        .map(|i| S {
            s: format!(
                "/api/v1/resource/{}",
                ["users", "items", "orders", "carts"][(i * 3) % 4]
            ),
        })
        .collect();
    for (v, block, borrowed) in [(dict, 0xF5, true), (front, 0xFA, false)] {
        let b = qdf_core::to_vec(&v).unwrap();
        assert_eq!(b[5 + 1 + 1 + 5], block);
        let rows: Vec<CowRow> = qdf_core::from_slice(&b).unwrap();
        let got: Vec<&str> = rows.iter().map(|r| r.s.as_ref()).collect();
        let want: Vec<&str> = v.iter().map(|r| r.s.as_str()).collect();
        assert_eq!(got, want);
        assert!(
            rows.iter()
                .all(|r| matches!(r.s, Cow::Borrowed(_)) == borrowed),
            "block {block:02X}"
        );
        let strs = qdf_core::from_slice::<Vec<StrRow>>(&b);
        match borrowed {
            true => assert_eq!(strs.unwrap().len(), 64),
            false => assert_eq!(strs.unwrap_err().classify(), Category::Data),
        }
    }
}

/// Errors of the rows themselves point at the container's tag, in row mode's words; a
/// stored cell's depth error at its column (finding 15 of the new-user pass).
#[test]
fn row_errors_point_at_the_container() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct P {
        x: u32,
    }
    let rows: Vec<P> = (0..20).map(|x| P { x }).collect();
    let bytes = qdf_core::to_vec(&rows).unwrap();
    assert_eq!(bytes[5], 0xEF, "a columnar container");
    let shallow = Options::balanced().max_depth(1);
    let e = qdf_core::from_slice_with::<Vec<P>>(&bytes, shallow).unwrap_err();
    assert_eq!(
        e.to_string(),
        "nesting deeper than the limit of 1 at byte 5"
    );
    let e = qdf_core::from_slice::<Vec<(u32,)>>(&bytes).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected a tuple of size 1, found a struct at byte 5"
    );
    // Row mode finds a struct too (at its tag; it names what it wanted in its own words).
    let few = qdf_core::to_vec(&rows[..2]).unwrap();
    let e = qdf_core::from_slice::<Vec<(u32,)>>(&few).unwrap_err();
    assert_eq!(e.to_string(), "expected an array, found a struct at byte 6");
    // A missing field (serde's error, no offset of its own): at the container.
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Q {
        x: u32,
        y: u32,
    }
    let e = qdf_core::from_slice::<Vec<Q>>(&bytes).unwrap_err();
    assert_eq!(e.to_string(), "missing field `y` at byte 5");
    // `Some` of a stored cell one level too deep: at the cell's column, not past the input.
    #[derive(Serialize, Deserialize, Debug)]
    struct O {
        x: Option<u32>,
    }
    let opts: Vec<O> = (0..20).map(|x| O { x: Some(x) }).collect();
    let bytes = qdf_core::to_vec(&opts).unwrap();
    let e =
        qdf_core::from_slice_with::<Vec<O>>(&bytes, Options::balanced().max_depth(2)).unwrap_err();
    // `EF 14 00 01 81 78 01`, then column x's values (`E6 …`) at byte 12.
    assert_eq!(bytes[12], 0xE6, "{bytes:02x?}");
    assert_eq!(
        e.to_string(),
        "nesting deeper than the limit of 2 at byte 12"
    );
}
