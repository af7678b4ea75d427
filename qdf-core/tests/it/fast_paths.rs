//! The fast paths pinned against their slow twins: the intern front cache (rollback, one-byte
//! differences, kinds), one-pass number sequences (lying size hints, every element kind and
//! tier), columnar skipped columns and string columns (subset decode, multibyte, hostile),
//! and the plain string write (inline short copy, out-of-line growth and long forms).

use std::cell::Cell;

use qdf_core::{DecoderSession, EncoderSession, Options, Value, from_slice, to_vec_with};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

fn tiers() -> [Options; 3] {
    [
        Options::speed(),
        Options::balanced(),
        Options::compression(),
    ]
}

// ---------- 1. intern front cache ----------

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
enum Item {
    S(String),
    #[serde(with = "serde_bytes_like")]
    B(Vec<u8>),
}

mod serde_bytes_like {
    use serde::{Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_borrowed_bytes<E>(self, v: &'de [u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
        }
        d.deserialize_byte_buf(V)
    }
}

/// A frame value that fails after serializing `good` (which interns its strings first).
struct Failing(Vec<Item>);

impl Serialize for Failing {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for x in &self.0 {
            seq.serialize_element(x)?;
        }
        Err(serde::ser::Error::custom("boom"))
    }
}

fn strings_one_byte_apart() -> Vec<String> {
    let mut v = Vec::new();
    for n in 0..=40usize {
        let base: String = (0..n).map(|i| (b'a' + (i % 26) as u8) as char).collect();
        v.push(base.clone());
        for at in 0..n {
            let mut b = base.clone().into_bytes();
            b[at] = b'Z';
            v.push(String::from_utf8(b).unwrap());
        }
    }
    v
}

fn session_frames(round: usize) -> Vec<Vec<Item>> {
    let strs = strings_one_byte_apart();
    let mut frames = Vec::new();
    for f in 0..6 {
        let mut items = Vec::new();
        for (i, s) in strs.iter().enumerate() {
            if (i + f + round).is_multiple_of(3) {
                items.push(Item::S(s.clone()));
                items.push(Item::B(s.clone().into_bytes()));
            } else if (i + f) % 3 == 1 {
                items.push(Item::B(s.clone().into_bytes()));
                items.push(Item::S(s.clone()));
            }
        }
        frames.push(items);
    }
    frames
}

#[test]
fn intern_cache_survives_rollback_and_kinds() {
    for opts in [
        Options::balanced(),
        Options::compression(),
        Options::balanced().min_intern(0),
    ] {
        for round in 0..3 {
            let frames = session_frames(round);
            let mut enc = EncoderSession::new(opts);
            let mut fresh = EncoderSession::new(opts);
            let mut out = Vec::new();
            let mut out_fresh = Vec::new();
            for (k, f) in frames.iter().enumerate() {
                if k == 2 {
                    // fresh strings interned then rolled back; then other strings reuse ids.
                    let mut bad: Vec<Item> = (0..600)
                        .map(|i| Item::S(format!("rolled-back-{i}-{}", "x".repeat(i % 40))))
                        .collect();
                    bad.extend(f.iter().cloned());
                    bad.extend((0..300).map(|i| Item::B(format!("rb-{i}").into_bytes())));
                    let before = out.len();
                    assert!(enc.encode_frame(&Failing(bad), &mut out).is_err());
                    assert_eq!(out.len(), before);
                    // frames with strings equal in length/outer bytes to the rolled back ones
                    let g: Vec<Item> = (0..600)
                        .map(|i| Item::S(format!("rolled-back-{i}-{}", "y".repeat(i % 40))))
                        .collect();
                    enc.encode_frame(&g, &mut out).unwrap();
                    fresh.encode_frame(&g, &mut out_fresh).unwrap();
                    let g2: Vec<Item> = (0..600)
                        .map(|i| Item::S(format!("rolled-back-{i}-{}", "x".repeat(i % 40))))
                        .collect();
                    enc.encode_frame(&g2, &mut out).unwrap();
                    fresh.encode_frame(&g2, &mut out_fresh).unwrap();
                }
                enc.encode_frame(f, &mut out).unwrap();
                fresh.encode_frame(f, &mut out_fresh).unwrap();
            }
            assert_eq!(out, out_fresh, "rollback changed bytes");
            let mut dec = DecoderSession::new(opts);
            let mut pos = 0;
            let mut got = Vec::new();
            while pos < out.len() {
                let (v, n): (Vec<Item>, usize) = dec.decode_frame(&out[pos..]).unwrap().unwrap();
                got.push(v);
                pos += n;
            }
            assert_eq!(got.len(), frames.len() + 2);
            let mut want = frames.clone();
            let g: Vec<Item> = (0..600)
                .map(|i| Item::S(format!("rolled-back-{i}-{}", "y".repeat(i % 40))))
                .collect();
            let g2: Vec<Item> = (0..600)
                .map(|i| Item::S(format!("rolled-back-{i}-{}", "x".repeat(i % 40))))
                .collect();
            want.insert(2, g2);
            want.insert(2, g);
            assert_eq!(got, want);
        }
    }
}

/// Value round trip keeps string vs bytes kind when they share content.
#[test]
fn intern_str_and_bytes_keep_kind_through_value() {
    for opts in [Options::balanced(), Options::compression()] {
        let strs = strings_one_byte_apart();
        let mut v = Vec::new();
        for s in &strs {
            v.push(Value::Bytes(s.clone().into_bytes()));
            v.push(Value::Str(s.clone()));
            v.push(Value::Bytes(s.clone().into_bytes()));
        }
        let value = Value::Array(v);
        let b = to_vec_with(&value, opts).unwrap();
        let back: Value = from_slice(&b).unwrap();
        assert_eq!(back, value);
    }
}

// ---------- 2. one-pass number sequences ----------

/// An iterator with a chosen size_hint.
#[derive(Clone)]
struct Lying<I> {
    inner: I,
    hint: (usize, Option<usize>),
}
impl<I: Iterator> Iterator for Lying<I> {
    type Item = I::Item;
    fn next(&mut self) -> Option<I::Item> {
        self.inner.next()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.hint
    }
}

struct Collect<T>(Vec<T>, (usize, Option<usize>));
impl<T: Serialize + Clone> Serialize for Collect<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(Lying {
            inner: self.0.iter(),
            hint: self.1,
        })
    }
}
struct Manual<T>(Vec<T>, (usize, Option<usize>));
impl<T: Serialize> Serialize for Manual<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = match self.1 {
            (lo, Some(hi)) if lo == hi => Some(lo),
            _ => None,
        };
        let mut seq = s.serialize_seq(len)?;
        for x in &self.0 {
            seq.serialize_element(x)?;
        }
        seq.end()
    }
}

fn hints(n: usize) -> Vec<(usize, Option<usize>)> {
    vec![
        (n, Some(n)),
        (0, None),
        (0, Some(0)),
        (n / 2, Some(n / 2)),
        (n + 5, Some(n + 5)),
        (n * 3 + 100, None),
        (1, Some(1)),
    ]
}

fn check_seq<T>(v: Vec<T>)
where
    T: Serialize + Clone + for<'de> Deserialize<'de> + std::fmt::Debug,
    Vec<T>: PartialEq,
{
    for opts in tiers() {
        for h in hints(v.len()) {
            let a = to_vec_with(&Collect(v.clone(), h), opts).unwrap();
            let b = to_vec_with(&Manual(v.clone(), h), opts).unwrap();
            assert_eq!(a, b, "bytes differ for hint {h:?} {v:?}");
            let back: Vec<T> = from_slice(&a).unwrap();
            assert_eq!(back, v, "{h:?}");
        }
    }
}

#[test]
fn numbers_in_sequences_every_kind() {
    check_seq::<u8>(vec![]);
    check_seq::<u8>((0..=255).collect());
    check_seq::<u64>((0..2000).map(|i| i * 0x0001_2345_6789).collect());
    check_seq::<i64>((0..300).map(|i| i64::MIN / (i + 1) + i).collect());
    check_seq::<i128>(vec![
        0,
        -1,
        i128::MAX,
        i128::MIN,
        u64::MAX as i128,
        u64::MAX as i128 + 1,
        i64::MIN as i128,
        i64::MIN as i128 - 1,
        5,
        -5,
    ]);
    check_seq::<u128>(vec![
        0,
        1,
        u128::MAX,
        u64::MAX as u128,
        u64::MAX as u128 + 1,
        7,
        8,
        9,
        10,
    ]);
    check_seq::<bool>((0..100).map(|i| i % 3 == 0).collect());
    check_seq::<i8>((-128..=127).collect());
    check_seq::<u16>((0..1000).map(|i| i * 65).collect());
    check_seq::<i32>((0..1000).map(|i| i * -2_000_003).collect());
    check_seq::<f64>((0..100).map(|i| i as f64 * 0.1 - 3.0).collect());
}

#[test]
fn float_bits_survive() {
    let f32s: Vec<u32> = vec![
        (-0.0f32).to_bits(),
        0x7FC0_0001,
        0xFF80_0001,
        0x7F80_0000,
        1,
        0x8000_0001,
        0.5f32.to_bits(),
        0x7FBF_FFFF,
        0,
        3,
    ];
    let f64s: Vec<u64> = vec![
        (-0.0f64).to_bits(),
        0x7FF8_0000_0000_0001,
        0xFFF0_0000_0000_0001,
        1,
        0x8000_0000_0000_0001,
        2.5f64.to_bits(),
        0,
        0x7FF0_0000_0000_0000,
        9,
    ];
    for opts in tiers() {
        for h in hints(10) {
            let v: Vec<f32> = f32s.iter().map(|&b| f32::from_bits(b)).collect();
            let a = to_vec_with(&Collect(v.clone(), h), opts).unwrap();
            let b = to_vec_with(&Manual(v.clone(), h), opts).unwrap();
            assert_eq!(a, b);
            let back: Vec<f32> = from_slice(&a).unwrap();
            assert_eq!(back.iter().map(|f| f.to_bits()).collect::<Vec<_>>(), f32s);
            let v: Vec<f64> = f64s.iter().map(|&b| f64::from_bits(b)).collect();
            let a = to_vec_with(&Collect(v.clone(), h), opts).unwrap();
            let b = to_vec_with(&Manual(v.clone(), h), opts).unwrap();
            assert_eq!(a, b);
            let back: Vec<f64> = from_slice(&a).unwrap();
            assert_eq!(back.iter().map(|f| f.to_bits()).collect::<Vec<_>>(), f64s);
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
enum Mix {
    U(u64),
    I(i64),
    F(f64),
    B(bool),
    S(String),
    O(Option<u32>),
    V(Vec<u32>),
}

#[test]
fn mixed_sequences_every_position() {
    let nonnum = [
        Value::Str("s".into()),
        Value::Nil,
        Value::Array(vec![Value::U64(1u64), Value::U64(2u64)]),
        Value::Bytes(vec![1, 2]),
    ];
    for n in [1usize, 7, 8, 9, 20] {
        for at in 0..n {
            for x in &nonnum {
                let mut v: Vec<Value> = (0..n as u64).map(|i| Value::U64(i * 1000)).collect();
                v[at] = x.clone();
                for opts in tiers() {
                    for h in hints(n) {
                        let a = to_vec_with(&Collect(v.clone(), h), opts).unwrap();
                        let b = to_vec_with(&Manual(v.clone(), h), opts).unwrap();
                        assert_eq!(a, b, "n {n} at {at} {x:?} {h:?}");
                        let back: Vec<Value> = from_slice(&a).unwrap();
                        assert_eq!(back, v);
                    }
                }
                // typed: Option<u32> / Vec<u32> / String mixed with numbers
                let mut t: Vec<Mix> = (0..n as u64).map(Mix::U).collect();
                t[at] = match x {
                    Value::Str(_) => Mix::S("é".into()),
                    Value::Nil => Mix::O(None),
                    _ => Mix::V(vec![1, 2, 3]),
                };
                for opts in tiers() {
                    for h in hints(n) {
                        let a = to_vec_with(&Collect(t.clone(), h), opts).unwrap();
                        let b = to_vec_with(&Manual(t.clone(), h), opts).unwrap();
                        assert_eq!(a, b);
                        let back: Vec<Mix> = from_slice(&a).unwrap();
                        assert_eq!(back, t);
                    }
                }
            }
        }
    }
}

/// An element whose Serialize counts calls: the probe must not make observable double
/// serialization produce different output.
#[test]
fn side_effecting_elements() {
    struct Flip<'a>(&'a Cell<u32>);
    impl Serialize for Flip<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let n = self.0.get();
            self.0.set(n + 1);
            s.serialize_u32(n)
        }
    }
    for opts in tiers() {
        let c = Cell::new(0);
        let items: Vec<Flip> = (0..20).map(|_| Flip(&c)).collect();
        let b = to_vec_with(&items, opts).unwrap();
        let back: Vec<u32> = from_slice(&b).unwrap();
        let c2 = Cell::new(0);
        let items2: Vec<Flip> = (0..20).map(|_| Flip(&c2)).collect();
        let m = to_vec_with(&Manual(items2, (20, Some(20))), opts).unwrap();
        let back2: Vec<u32> = from_slice(&m).unwrap();
        assert_eq!(back, back2, "serialize called a different number of times");
    }
}

#[test]
fn huge_sequence() {
    let v: Vec<u64> = (0..300_000u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 64))
        .collect();
    for opts in tiers() {
        for h in [(v.len(), Some(v.len())), (0, None), (3, Some(3))] {
            let a = to_vec_with(&Collect(v.clone(), h), opts).unwrap();
            let b = to_vec_with(&Manual(v.clone(), h), opts).unwrap();
            assert!(a == b);
            let back: Vec<u64> = from_slice(&a).unwrap();
            assert!(back == v);
        }
    }
}

// ---------- 3. columnar ----------

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Row {
    a: u32,
    name: String,
    opt: Option<String>,
    maybe: Option<u64>,
    tag: String,
    f: f64,
}

fn rows(n: usize, strs: &[&str]) -> Vec<Row> {
    (0..n)
        .map(|i| Row {
            a: i as u32,
            name: format!("{}{}", strs[i % strs.len()], i % 5),
            opt: (i % 3 != 0).then(|| strs[(i + 1) % strs.len()].repeat(i % 4 + 1)),
            maybe: (i % 2 == 0).then_some(i as u64 * 7),
            tag: strs[i % strs.len()].to_string(),
            f: i as f64 / 3.0,
        })
        .collect()
}

const MB: &[&str] = &[
    "é",
    "€",
    "😀",
    "aé€😀",
    "ü",
    "日本語",
    "x",
    "€€€€€€€€€€€€€€€€€€€€€",
];

#[derive(Deserialize, Debug, PartialEq)]
struct Sub {
    name: String,
}
#[derive(Deserialize, Debug, PartialEq)]
struct SubDefault {
    name: String,
    #[serde(default)]
    missing: Option<u32>,
    #[serde(default)]
    missing2: String,
}
#[derive(Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct SubStrict {
    name: String,
}
#[derive(Deserialize, Debug, PartialEq)]
struct SubBorrow<'a> {
    #[serde(borrow)]
    tag: std::borrow::Cow<'a, str>,
    maybe: Option<u64>,
}
#[derive(Deserialize, Debug, PartialEq)]
struct SubAlias {
    #[serde(alias = "tag")]
    label: String,
}

#[test]
fn columnar_multibyte_and_subsets() {
    let sets: Vec<Vec<&str>> = vec![
        MB.to_vec(),
        vec!["é"],
        vec!["😀", "😀😀"],
        vec!["ab", "é"],
        (0..MB.len()).map(|i| MB[i]).rev().collect(),
    ];
    for strs in &sets {
        for n in [16usize, 17, 40, 300] {
            let v = rows(n, strs);
            for opts in tiers() {
                let b = to_vec_with(&v, opts).unwrap();
                let back: Vec<Row> = from_slice(&b).unwrap();
                assert_eq!(back, v);
                let val: Value = from_slice(&b).unwrap();
                let val_row: Value =
                    from_slice(&to_vec_with(&v, Options::speed()).unwrap()).unwrap();
                assert_eq!(val, val_row);
                let s: Vec<Sub> = from_slice(&b).unwrap();
                assert_eq!(
                    s.iter().map(|x| &x.name).collect::<Vec<_>>(),
                    v.iter().map(|x| &x.name).collect::<Vec<_>>()
                );
                let s: Vec<SubDefault> = from_slice(&b).unwrap();
                assert!(s.iter().zip(&v).all(|(x, r)| x.name == r.name
                    && x.missing.is_none()
                    && x.missing2.is_empty()));
                assert!(from_slice::<Vec<SubStrict>>(&b).is_err());
                let s: Vec<SubBorrow> = from_slice(&b).unwrap();
                assert!(
                    s.iter()
                        .zip(&v)
                        .all(|(x, r)| x.tag == r.tag && x.maybe == r.maybe)
                );
                let s: Result<Vec<SubAlias>, _> = from_slice(&b);
                let row_alias: Vec<SubAlias> =
                    from_slice(&to_vec_with(&v, Options::speed()).unwrap()).unwrap();
                match s {
                    Ok(s) => assert_eq!(s, row_alias),
                    Err(e) => panic!(
                        "alias subset decode failed (row form ok): {e} opts {:?}",
                        opts.features
                    ),
                }
            }
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct SRow {
    dict: String,
    slab: String,
    konst: String,
    front: String,
    alpha: String,
    o: Option<String>,
}

fn srows(n: usize) -> Vec<SRow> {
    let mut x: u64 = 0x1234_5678;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|i| SRow {
            dict: MB[i % 3].to_string(),
            slab: format!(
                "{}{}{}",
                MB[(rnd() % 8) as usize],
                rnd() % 1000,
                MB[(rnd() % 8) as usize]
            ),
            konst: "😀é".into(),
            front: format!("€€€prefix-é-{i:04}-ü"),
            alpha: (0..(i % 7 + 3))
                .map(|k| if (i >> k) & 1 == 1 { 'é' } else { 'ü' })
                .collect(),
            o: (i % 2 == 0).then(|| format!("日本{i}")),
        })
        .collect()
}

fn all_strs_valid(v: &Value) -> bool {
    match v {
        Value::Str(s) => std::str::from_utf8(s.as_bytes()).is_ok(),
        Value::Array(a) => a.iter().all(all_strs_valid),
        Value::Map(m) => m
            .iter()
            .all(|(k, v)| all_strs_valid(k) && all_strs_valid(v)),
        Value::Some(b) => all_strs_valid(b),
        _ => true,
    }
}

#[test]
fn string_blocks_multibyte_round_trip() {
    for n in [16usize, 33, 200] {
        let v = srows(n);
        for opts in tiers() {
            let b = to_vec_with(&v, opts).unwrap();
            let tags: Vec<u8> = (0xF5..=0xFB).filter(|t| b.contains(t)).collect();
            eprintln!("n {n} {:?} len {} tags {tags:x?}", opts.features, b.len());
            let back: Vec<SRow> = from_slice(&b).unwrap();
            assert_eq!(back, v);
            let val: Value = from_slice(&b).unwrap();
            let val_row: Value = from_slice(&to_vec_with(&v, Options::speed()).unwrap()).unwrap();
            assert_eq!(val, val_row);
        }
    }
}

#[test]
fn hostile_mutations_never_yield_bad_utf8() {
    for n in [16usize, 20] {
        let v = srows(n);
        for opts in tiers() {
            let b = to_vec_with(&v, opts).unwrap();
            let mut oks = 0;
            for pos in 5..b.len() {
                for rep in [0xFFu8, 0x80, 0xC3, 0x28, 0xA9, 0xE2] {
                    if b[pos] == rep {
                        continue;
                    }
                    let mut m = b.clone();
                    m[pos] = rep;
                    let r = std::panic::catch_unwind(|| {
                        let a = from_slice::<Vec<SRow>>(&m).ok().map(|rows| {
                            rows.iter().all(|r| {
                                [&r.dict, &r.slab, &r.konst, &r.front, &r.alpha]
                                    .iter()
                                    .all(|s| std::str::from_utf8(s.as_bytes()).is_ok())
                                    && r.o
                                        .as_ref()
                                        .is_none_or(|s| std::str::from_utf8(s.as_bytes()).is_ok())
                            })
                        });
                        let bv = from_slice::<Value>(&m).ok().map(|v| all_strs_valid(&v));
                        let c = from_slice::<Vec<SubBorrow2>>(&m).ok().map(|rows| {
                            rows.iter().all(|r| {
                                std::str::from_utf8(r.slab.as_bytes()).is_ok()
                                    && std::str::from_utf8(r.dict.as_bytes()).is_ok()
                            })
                        });
                        (a, bv, c)
                    });
                    let (a, bv, c) = r.unwrap_or_else(|_| {
                        panic!("panic at {pos} rep {rep:#x} {:?}", opts.features)
                    });
                    assert_ne!(a, Some(false), "bad utf8 typed at {pos} {rep:#x}");
                    assert_ne!(bv, Some(false), "bad utf8 value at {pos} {rep:#x}");
                    assert_ne!(c, Some(false), "bad utf8 borrowed at {pos} {rep:#x}");
                    if a.is_some() {
                        oks += 1;
                    }
                }
            }
            eprintln!("{:?}: {oks} mutations decoded", opts.features);
        }
    }
}

#[derive(Deserialize, Debug)]
struct SubBorrow2<'a> {
    #[serde(borrow)]
    slab: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    dict: &'a str,
}

#[test]
fn sequences_under_every_feature_combination() {
    use qdf_core::Features;
    let nums: Vec<f64> = (0..40).map(|i| (i as f64) * 1.5 - 7.0).collect();
    let ints: Vec<i64> = (0..40).map(|i| (i * i * 1000) - 500_000).collect();
    let f32s: Vec<f32> = (0..20)
        .map(|i| f32::from_bits(0x7FC0_0000 + i))
        .chain([-0.0f32])
        .collect();
    let mixed: Vec<Value> = (0..20)
        .map(|i| {
            if i % 7 == 3 {
                Value::Str(format!("s{}", i % 2))
            } else {
                Value::F64(i as f64)
            }
        })
        .collect();
    let mut tested = 0;
    for bits in 0..1024u32 {
        let opts = Options::speed().features(Features::from_bits(bits).unwrap());
        for h in [(0, None), (40, Some(40)), (3, Some(3))] {
            let (a, b) = (
                to_vec_with(&Collect(nums.clone(), h), opts),
                to_vec_with(&Manual(nums.clone(), h), opts),
            );
            let (Ok(a), Ok(b)) = (a, b) else { continue };
            tested += 1;
            assert_eq!(a, b, "f64 bits {bits:#x}");
            assert_eq!(from_slice::<Vec<f64>>(&a).unwrap(), nums);
            let a = to_vec_with(&Collect(ints.clone(), h), opts).unwrap();
            let b = to_vec_with(&Manual(ints.clone(), h), opts).unwrap();
            assert_eq!(a, b, "i64 bits {bits:#x}");
            assert_eq!(from_slice::<Vec<i64>>(&a).unwrap(), ints);
            let a = to_vec_with(&Collect(f32s.clone(), h), opts).unwrap();
            let b = to_vec_with(&Manual(f32s.clone(), h), opts).unwrap();
            assert_eq!(a, b, "f32 bits {bits:#x}");
            let back: Vec<f32> = from_slice(&a).unwrap();
            assert_eq!(
                back.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
                f32s.iter().map(|f| f.to_bits()).collect::<Vec<_>>()
            );
            let a = to_vec_with(&Collect(mixed.clone(), h), opts).unwrap();
            let b = to_vec_with(&Manual(mixed.clone(), h), opts).unwrap();
            assert_eq!(a, b, "mixed bits {bits:#x}");
            assert_eq!(from_slice::<Vec<Value>>(&a).unwrap(), mixed);
        }
    }
    assert!(tested > 100, "{tested}");
}

#[test]
fn columnar_rows_under_every_feature_combination() {
    use qdf_core::Features;
    let v = srows(40);
    let r = rows(40, MB);
    for bits in 0..1024u32 {
        let opts = Options::speed().features(Features::from_bits(bits).unwrap());
        let Ok(b) = to_vec_with(&v, opts) else {
            continue;
        };
        assert_eq!(from_slice::<Vec<SRow>>(&b).unwrap(), v, "{bits:#x}");
        let b = to_vec_with(&r, opts).unwrap();
        assert_eq!(from_slice::<Vec<Row>>(&b).unwrap(), r, "{bits:#x}");
        let s: Vec<SubBorrow> = from_slice(&b).unwrap();
        assert!(
            s.iter()
                .zip(&r)
                .all(|(x, y)| x.tag == y.tag && x.maybe == y.maybe)
        );
        assert!(from_slice::<Vec<SubStrict>>(&b).is_err());
    }
}

/// A frame too large (an error after the whole body was encoded, interning included) rolls
/// back like a serde error.
#[test]
fn frame_too_large_rolls_back_interns() {
    for opts in [Options::balanced(), Options::compression()] {
        let mut enc = EncoderSession::new(opts).with_max_frame_length(2000);
        let mut fresh = EncoderSession::new(opts).with_max_frame_length(2000);
        let (mut out, mut out2) = (Vec::new(), Vec::new());
        let small: Vec<String> = (0..20).map(|i| format!("k{i}-é")).collect();
        enc.encode_frame(&small, &mut out).unwrap();
        fresh.encode_frame(&small, &mut out2).unwrap();
        let big: Vec<String> = (0..400)
            .map(|i| format!("big-{i}-{}", "q".repeat(i % 40)))
            .collect();
        assert!(enc.encode_frame(&big, &mut out).is_err());
        for k in 0..5 {
            let f: Vec<String> = (0..60)
                .map(|i| format!("big-{i}-{}", "r".repeat((i + k) % 40)))
                .collect();
            enc.encode_frame(&f, &mut out).unwrap();
            fresh.encode_frame(&f, &mut out2).unwrap();
            enc.encode_frame(&small, &mut out).unwrap();
            fresh.encode_frame(&small, &mut out2).unwrap();
        }
        assert_eq!(out, out2);
        let mut dec = DecoderSession::new(opts);
        let mut pos = 0;
        let mut n = 0;
        while pos < out.len() {
            let (v, used): (Vec<String>, usize) = dec.decode_frame(&out[pos..]).unwrap().unwrap();
            if n % 2 == 0 {
                assert_eq!(v, small);
            } else {
                let k = n / 2;
                let f: Vec<String> = (0..60)
                    .map(|i| format!("big-{i}-{}", "r".repeat((i + k) % 40)))
                    .collect();
                assert_eq!(v, f);
            }
            n += 1;
            pos += used;
        }
        assert_eq!(n, 11);
    }
}

/// Capped intern table with rollbacks at the cap.
#[test]
fn intern_cap_with_rollback() {
    for cap in [1u32, 5, 300] {
        let opts = Options::balanced().max_intern_entries(cap);
        let mut enc = EncoderSession::new(opts);
        let mut fresh = EncoderSession::new(opts);
        let (mut out, mut out2) = (Vec::new(), Vec::new());
        for k in 0..6usize {
            let f: Vec<Item> = (0..50)
                .map(|i| {
                    let s = format!("v{}-{}", (i * 7 + k) % 60, "é".repeat(i % 9));
                    if i % 2 == 0 {
                        Item::S(s)
                    } else {
                        Item::B(s.into_bytes())
                    }
                })
                .collect();
            if k % 2 == 1 {
                let mut bad: Vec<Item> = (0..400).map(|i| Item::S(format!("zz{i}"))).collect();
                bad.extend(f.iter().cloned());
                assert!(enc.encode_frame(&Failing(bad), &mut out).is_err());
            }
            enc.encode_frame(&f, &mut out).unwrap();
            fresh.encode_frame(&f, &mut out2).unwrap();
        }
        assert_eq!(out, out2, "cap {cap}");
    }
}

#[test]
fn lower_bound_lies_huge() {
    for lo in [usize::MAX, 1usize << 40, 1 << 33, isize::MAX as usize] {
        let v: Vec<u32> = (0..200).collect();
        let a = std::panic::catch_unwind(|| {
            to_vec_with(&Collect(v.clone(), (lo, None)), Options::speed())
        });
        match a {
            Ok(r) => {
                let a = r.unwrap();
                assert_eq!(from_slice::<Vec<u32>>(&a).unwrap(), v);
            }
            Err(_) => panic!("collect_seq panicked with size_hint ({lo}, None)"),
        }
    }
}

#[test]
fn exact_hint_lies_huge() {
    for opts in tiers() {
        for lo in [u32::MAX as usize, 1usize << 31, 100_000_000] {
            let v: Vec<u32> = (0..200).collect();
            let s: Vec<String> = (0..20).map(|i| format!("s{i}")).collect();
            let r = std::panic::catch_unwind(|| {
                (
                    to_vec_with(&Collect(v.clone(), (lo, Some(lo))), opts)
                        .map(|a| from_slice::<Vec<u32>>(&a).unwrap() == v),
                    to_vec_with(&Manual(v.clone(), (lo, Some(lo))), opts)
                        .map(|a| from_slice::<Vec<u32>>(&a).unwrap() == v),
                    to_vec_with(&Collect(s.clone(), (lo, Some(lo))), opts)
                        .map(|a| from_slice::<Vec<String>>(&a).unwrap() == s),
                )
            });
            let r = r.unwrap_or_else(|_| panic!("panicked: {:?} {lo}", opts.features));
            eprintln!(
                "{:?} {lo}: {:?}",
                opts.features,
                (
                    r.0.as_ref().map_err(|e| e.to_string()),
                    r.1.as_ref().map_err(|e| e.to_string()),
                    r.2.as_ref().map_err(|e| e.to_string())
                )
            );
            assert!(r.0.unwrap() && r.1.unwrap() && r.2.unwrap());
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Sparse {
    a: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    opt: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    num: Option<i64>,
    name: String,
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct SparseStrict {
    a: u32,
    name: String,
    #[serde(default)]
    num: Option<i64>,
}

#[derive(Deserialize, Debug, PartialEq)]
struct SparseSub {
    #[serde(default)]
    num: Option<i64>,
    name: String,
}

#[test]
fn optional_columns_subset_and_strict() {
    for first_has_opt in [false, true] {
        let v: Vec<Sparse> = (0..40u32)
            .map(|i| Sparse {
                a: i,
                opt: ((i % 3 == 0) == first_has_opt).then(|| MB[i as usize % MB.len()].repeat(2)),
                num: (i % 4 == 1).then_some(-(i as i64) * 1000),
                name: format!("{}-{i}", MB[(i as usize + 3) % MB.len()]),
            })
            .collect();
        let row = to_vec_with(&v, Options::speed()).unwrap();
        for opts in tiers() {
            let b = to_vec_with(&v, opts).unwrap();
            assert_eq!(from_slice::<Vec<Sparse>>(&b).unwrap(), v);
            assert_eq!(
                from_slice::<Value>(&b).unwrap(),
                from_slice::<Value>(&row).unwrap()
            );
            let s: Vec<SparseSub> = from_slice(&b).unwrap();
            let sr: Vec<SparseSub> = from_slice(&row).unwrap();
            assert_eq!(s, sr);
            assert!(
                s.iter()
                    .zip(&v)
                    .all(|(x, y)| x.num == y.num && x.name == y.name)
            );
            let e = from_slice::<Vec<SparseStrict>>(&b);
            let er = from_slice::<Vec<SparseStrict>>(&row);
            assert!(er.is_err());
            assert!(
                e.is_err(),
                "deny_unknown_fields accepted columnar {:?}",
                opts.features
            );
            let opt_rows: Vec<Option<Sparse>> = v
                .iter()
                .enumerate()
                .map(|(i, x)| (i % 5 != 2).then(|| x.clone()))
                .collect();
            let b = to_vec_with(&opt_rows, opts).unwrap();
            assert_eq!(from_slice::<Vec<Option<Sparse>>>(&b).unwrap(), opt_rows);
            let s: Vec<Option<SparseSub>> = from_slice(&b).unwrap();
            assert_eq!(
                s.iter().filter(|x| x.is_some()).count(),
                opt_rows.iter().filter(|x| x.is_some()).count()
            );
        }
    }
}

#[test]
fn value_kinds_inside_number_runs() {
    use qdf_core::{Variant, VariantKind};
    let specials = vec![
        Value::Unit,
        Value::UnitStruct,
        Value::Char('é'),
        Value::U128(u128::MAX),
        Value::I128(i128::MIN),
        Value::U128(5),
        Value::I128(-5),
        Value::F32(f32::from_bits(0x7FC0_0123)),
        Value::F64(-0.0),
        Value::Some(Box::new(Value::Nil)),
        Value::Timestamp { secs: -5, nanos: 7 },
        Value::Variant(Box::new(Variant {
            kind: VariantKind::Newtype,
            name: "N".into(),
            value: Value::U64(9),
        })),
        Value::Variant(Box::new(Variant {
            kind: VariantKind::Unit,
            name: "U".into(),
            value: Value::Unit,
        })),
        Value::Map(vec![(Value::Str("k".into()), Value::U64(1))]),
        Value::Bool(true),
    ];
    for n in [1usize, 8, 12] {
        for at in 0..n {
            for x in &specials {
                let mut v: Vec<Value> = (0..n as u64)
                    .map(|i| Value::I64(-(i as i64) * 77))
                    .collect();
                v[at] = x.clone();
                for opts in tiers() {
                    for h in [(n, Some(n)), (0, None)] {
                        let a = to_vec_with(&Collect(v.clone(), h), opts).unwrap();
                        let b = to_vec_with(&Manual(v.clone(), h), opts).unwrap();
                        assert_eq!(a, b, "n {n} at {at} {x:?}");
                        let back: Vec<Value> = from_slice(&a).unwrap();
                        let want: Vec<Value> =
                            from_slice(&to_vec_with(&v, Options::speed()).unwrap()).unwrap();
                        assert_eq!(
                            format!("{back:?}"),
                            format!("{want:?}"),
                            "{x:?} {:?}",
                            opts.features
                        );
                    }
                }
            }
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Nested {
    v: Vec<u32>,
    s: String,
    f: Vec<f32>,
    m: Vec<Option<i64>>,
}

#[test]
fn number_sequences_inside_columns_and_replays() {
    let v: Vec<Nested> = (0..40u32)
        .map(|i| Nested {
            v: (0..i % 12).map(|k| k * i).collect(),
            s: MB[i as usize % MB.len()].into(),
            f: (0..i % 10)
                .map(|k| f32::from_bits(0x7FC0_0000 | k))
                .collect(),
            m: (0..i % 9)
                .map(|k| (k % 2 == 0).then_some(-(k as i64)))
                .collect(),
        })
        .collect();
    for opts in tiers() {
        let b = to_vec_with(&v, opts).unwrap();
        let back: Vec<Nested> = from_slice(&b).unwrap();
        assert_eq!(format!("{back:?}"), format!("{v:?}"));
        // Value rows whose keys change mid-batch (the capture gives up and replays).
        let mut vals: Vec<Value> = v
            .iter()
            .map(|n| from_slice::<Value>(&to_vec_with(n, Options::speed()).unwrap()).unwrap())
            .collect();
        vals[20] = Value::Map(vec![(
            Value::Str("other".into()),
            Value::Array(vec![Value::U64(1); 9]),
        )]);
        let a = to_vec_with(&Collect(vals.clone(), (0, None)), opts).unwrap();
        let m = to_vec_with(&Manual(vals.clone(), (0, None)), opts).unwrap();
        assert_eq!(a, m);
        let back: Vec<Value> = from_slice(&a).unwrap();
        assert_eq!(format!("{back:?}"), format!("{vals:?}"));
    }
}

#[test]
fn bytes_entry_referenced_as_string_is_checked() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Pair(#[serde(with = "serde_bytes_like")] Vec<u8>, String);
    for bad in [
        &b"\xff\xfe\xfd\xfc"[..],
        b"ab\xc3",
        b"\xed\xa0\x80xx",
        b"abcdefgh\x80",
    ] {
        for opts in [
            Options::balanced(),
            Options::compression(),
            Options::balanced().min_intern(0),
        ] {
            let v = Value::Array(vec![Value::Bytes(bad.to_vec()), Value::Bytes(bad.to_vec())]);
            let b = to_vec_with(&v, opts).unwrap();
            assert_eq!(from_slice::<Value>(&b).unwrap(), v);
            let r = from_slice::<Pair>(&b);
            assert!(r.is_err(), "invalid UTF-8 reference read as String: {r:?}");
            let r = from_slice::<(String, String)>(&b);
            assert!(r.is_err());
        }
    }
}

// ---------- 4. plain string write ----------

/// The Speed tier's string header and bytes at every length class of the inline short copy
/// (0, 1–3, 4–7, 8–16, 17–32, 33–62) and of the out-of-line forms (63+: str8, str16, str32),
/// written into a buffer with no spare capacity (the growth path), with exactly the 64
/// bytes the inline path needs, and with plenty.
#[test]
fn plain_strings_every_length_and_spare_capacity() {
    let lens = [
        0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 61, 62, 63, 64, 255, 256, 65535, 65536,
    ];
    for len in lens {
        let s: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
        let mut want = match len {
            0..=31 => vec![0x80 | len as u8],
            32..=255 => vec![0xcd, len as u8],
            256..=65535 => [&[0xce][..], &(len as u16).to_le_bytes()].concat(),
            _ => [&[0xcf][..], &(len as u32).to_le_bytes()].concat(),
        };
        want.extend_from_slice(s.as_bytes());
        for spare in [0, 63, 64, 4096] {
            let mut buf = Vec::with_capacity(3 + spare);
            buf.extend_from_slice(b"pre");
            buf.reserve_exact(spare);
            let mut ser = qdf_core::Serializer::with_buffer(buf, Options::speed());
            s.serialize(&mut ser).unwrap();
            let out = ser.into_inner();
            assert_eq!(&out[..3], b"pre", "len {len} spare {spare}");
            assert_eq!(&out[3..], &want[..], "len {len} spare {spare}");
        }
        // And as a struct field value and key, the path `Compound::serialize_field` takes.
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Named {
            key_a: String,
            b: u8,
        }
        let v = Named {
            key_a: s.clone(),
            b: 7,
        };
        for opts in tiers() {
            let bytes = to_vec_with(&v, opts).unwrap();
            assert_eq!(from_slice::<Named>(&bytes).unwrap(), v, "len {len}");
        }
    }
}
