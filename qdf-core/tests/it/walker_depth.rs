//! The inspect walker's depth accounting on columnar containers, tried as a new user would:
//! encoder output (Balanced, ≥ 16 rows) of struct, list, enum, one-entry-map, list-of-list
//! and hybrid (residual) columns, walked and decoded into a `Value` under every
//! `max_depth` from 0 to 12, then with prefixes and one-byte changes under small limits.
//! Walker and decoder must accept the same messages and refuse the rest with the same code
//! at the same offset (`crate::inspect::agree`).

use std::collections::BTreeMap;

use qdf_core::{Options, Value};
use serde::Serialize;

use crate::inspect::agree;

#[derive(Serialize, Clone)]
struct P {
    x: i32,
    y: String,
}

#[derive(Serialize, Clone)]
enum Sh {
    Unit,
    N(u32),
    S(P),
    L(Vec<u32>),
    Ls(Vec<P>),
    T(u8, String),
    Sv { a: u8, b: Vec<P> },
}

fn p(i: usize) -> P {
    P {
        x: i as i32 - 7,
        y: format!("y{}", i % 5),
    }
}

fn sh(i: usize) -> Sh {
    match i % 7 {
        0 => Sh::Unit,
        1 => Sh::N(i as u32),
        2 => Sh::S(p(i)),
        3 => Sh::L((0..i % 4).map(|n| n as u32).collect()),
        4 => Sh::Ls((0..i % 3).map(p).collect()),
        5 => Sh::T(i as u8, "t".repeat(i % 3)),
        _ => Sh::Sv {
            a: i as u8,
            b: vec![p(i)],
        },
    }
}

#[derive(Serialize)]
struct VecOfStruct {
    id: u32,
    pts: Vec<P>,
}

#[derive(Serialize)]
struct OptStruct {
    id: u32,
    p: Option<P>,
}

#[derive(Serialize)]
struct OptEnum {
    id: u32,
    e: Option<Sh>,
}

#[derive(Serialize)]
struct EnumPayloads {
    e: Sh,
    f: Sh,
}

#[derive(Serialize)]
struct OneEntryMap {
    id: u32,
    m: BTreeMap<String, P>,
    n: BTreeMap<String, Vec<u32>>,
}

#[derive(Serialize)]
struct ListsOfLists {
    ll: Vec<Vec<u32>>,
    lls: Vec<Vec<P>>,
    lle: Vec<Vec<Sh>>,
}

#[derive(Serialize)]
struct Hybrid {
    id: u32,
    j: serde_json::Value,
    p: P,
    e: Option<Sh>,
}

#[derive(Serialize)]
struct Deep3 {
    a: Inner2,
    o: Option<Option<P>>,
    vo: Vec<Option<P>>,
    ov: Option<Vec<Sh>>,
}

#[derive(Serialize)]
struct Inner2 {
    b: Inner1,
    k: u8,
}

#[derive(Serialize)]
struct Inner1 {
    c: P,
    d: Vec<Option<Sh>>,
}

const N: usize = 20;

/// One message per shape, each encoded by `to_vec_with(rows, Balanced)`.
fn messages() -> Vec<(&'static str, Vec<u8>)> {
    shapes(N, Options::balanced())
}

/// One message per shape of `n` rows, each encoded by `to_vec_with(rows, tier)`.
fn shapes(n: usize, tier: Options) -> Vec<(&'static str, Vec<u8>)> {
    macro_rules! enc {
        ($rows:expr) => {
            qdf_core::to_vec_with(&$rows, tier).unwrap()
        };
    }
    let r = 0..n;
    vec![
        (
            "vec of struct",
            enc!(
                r.clone()
                    .map(|i| VecOfStruct {
                        id: i as u32,
                        pts: (0..i % 4).map(p).collect(),
                    })
                    .collect::<Vec<_>>()
            ),
        ),
        (
            "option of struct",
            enc!(
                r.clone()
                    .map(|i| OptStruct {
                        id: i as u32,
                        p: (i % 3 != 0).then(|| p(i)),
                    })
                    .collect::<Vec<_>>()
            ),
        ),
        (
            "option of enum",
            enc!(
                r.clone()
                    .map(|i| OptEnum {
                        id: i as u32,
                        e: (i % 4 != 0).then(|| sh(i)),
                    })
                    .collect::<Vec<_>>()
            ),
        ),
        (
            "enum payloads",
            enc!(
                r.clone()
                    .map(|i| EnumPayloads {
                        e: sh(i),
                        f: sh(i + 3),
                    })
                    .collect::<Vec<_>>()
            ),
        ),
        (
            "one-entry maps",
            enc!(
                r.clone()
                    .map(|i| OneEntryMap {
                        id: i as u32,
                        m: [(format!("k{}", i % 3), p(i))].into(),
                        n: [(format!("n{}", i % 2), vec![i as u32; i % 3])].into(),
                    })
                    .collect::<Vec<_>>()
            ),
        ),
        (
            "lists of lists",
            enc!(
                r.clone()
                    .map(|i| ListsOfLists {
                        ll: (0..i % 3).map(|n| vec![n as u32; i % 4]).collect(),
                        lls: (0..i % 3).map(|n| (0..n).map(p).collect()).collect(),
                        lle: vec![(0..i % 3).map(sh).collect()],
                    })
                    .collect::<Vec<_>>()
            ),
        ),
        (
            "hybrid",
            enc!(
                r.clone()
                    .map(|i| Hybrid {
                        id: i as u32,
                        j: match i % 4 {
                            0 => serde_json::json!(i),
                            1 => serde_json::json!({"a": [1, {"b": [i]}]}),
                            2 => serde_json::json!([[[]]]),
                            _ => serde_json::json!("s"),
                        },
                        p: p(i),
                        e: (i % 2 == 0).then(|| sh(i)),
                    })
                    .collect::<Vec<_>>()
            ),
        ),
        (
            "deep",
            enc!(
                r.clone()
                    .map(|i| Deep3 {
                        a: Inner2 {
                            b: Inner1 {
                                c: p(i),
                                d: (0..i % 3).map(|n| (n != 1).then(|| sh(i + n))).collect(),
                            },
                            k: i as u8,
                        },
                        o: match i % 3 {
                            0 => None,
                            1 => Some(None),
                            _ => Some(Some(p(i))),
                        },
                        vo: vec![None, Some(p(i))],
                        ov: (i % 2 == 1).then(|| vec![sh(i), sh(i + 1)]),
                    })
                    .collect::<Vec<_>>()
            ),
        ),
    ]
}

fn limit(d: u32) -> Options {
    Options::default().max_depth(d)
}

/// The least `max_depth` the `Value` decoder accepts `m` at.
fn least_depth(m: &[u8]) -> u32 {
    (0..64)
        .find(|&d| qdf_core::from_slice_with::<Value>(m, limit(d)).is_ok())
        .unwrap()
}

#[test]
fn walker_and_decoder_agree_at_every_depth_on_encoder_output() {
    for (what, m) in messages() {
        // Container, row and a column value at least: 3 levels.
        let least = least_depth(&m);
        assert!((3..=12).contains(&least), "{what}: least depth {least}");
        for d in 0..=12 {
            agree(&m, &limit(d), &format!("{what} at depth {d}"));
        }
    }
}

#[test]
fn walker_and_decoder_agree_on_prefixes_and_flips_under_small_limits() {
    for (what, m) in messages() {
        let least = least_depth(&m);
        for d in [least.saturating_sub(2), least - 1, least] {
            let opts = limit(d);
            for n in (0..m.len()).step_by(3) {
                agree(&m[..n], &opts, &format!("{what}: prefix {n} at depth {d}"));
            }
            let mut c = m.clone();
            for i in 5..m.len() {
                for x in [0x01u8, 0x80, 0xFF] {
                    c[i] ^= x;
                    agree(
                        &c,
                        &opts,
                        &format!("{what}: byte {i} ^ {x:02x} at depth {d}"),
                    );
                    c[i] ^= x;
                }
            }
        }
    }
}

#[derive(Serialize)]
struct Outer {
    name: String,
    rows: Vec<OptEnum>,
}

fn opt_enums(n: usize) -> Vec<OptEnum> {
    (0..n)
        .map(|i| OptEnum {
            id: i as u32,
            e: (i % 4 != 0).then(|| sh(i)),
        })
        .collect()
}

fn json_objects(n: usize) -> serde_json::Value {
    (0..n)
        .map(|i| serde_json::json!({"id": i, "p": {"x": i, "y": "s"}, "l": [i, {"z": [i]}]}))
        .collect()
}

/// Columnar containers below the top: in a struct, a list, a map, an `Option`, a JSON
/// array of objects, and a hybrid's residual column holding such an array.
fn wrapped(n: usize, tier: Options) -> Vec<(&'static str, Vec<u8>)> {
    let enc = |v: &dyn erased_serde_like::Enc| v.enc(tier);
    let hybrid: Vec<Hybrid> = (0..n)
        .map(|i| Hybrid {
            id: i as u32,
            j: if i % 2 == 0 {
                json_objects(17)
            } else {
                serde_json::json!(i)
            },
            p: p(i),
            e: None,
        })
        .collect();
    vec![
        (
            "in a struct",
            enc(&Outer {
                name: "o".into(),
                rows: opt_enums(n),
            }),
        ),
        ("in a list", enc(&vec![opt_enums(n), opt_enums(n + 1)])),
        (
            "in a map",
            enc(&BTreeMap::from([("a".to_string(), opt_enums(n))])),
        ),
        ("in an option", enc(&Some(opt_enums(n)))),
        ("json objects", enc(&json_objects(n))),
        ("json in a residual", enc(&hybrid)),
    ]
}

/// `to_vec_with` behind `&dyn`, so one closure encodes values of several types.
mod erased_serde_like {
    use qdf_core::Options;

    pub trait Enc {
        fn enc(&self, tier: Options) -> Vec<u8>;
    }

    impl<T: serde::Serialize> Enc for T {
        fn enc(&self, tier: Options) -> Vec<u8> {
            qdf_core::to_vec_with(self, tier).unwrap()
        }
    }
}

/// Every shape, at several row counts, from the Balanced and Compression tiers.
fn all_messages() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (tier, name) in [
        (Options::balanced(), "balanced"),
        (Options::compression(), "compression"),
    ] {
        for n in [16, 17, 40, 300] {
            for (what, m) in shapes(n, tier).into_iter().chain(wrapped(n, tier)) {
                out.push((format!("{what}, {n} rows, {name}"), m));
            }
        }
    }
    out
}

#[test]
fn walker_and_decoder_agree_at_every_depth_on_nested_and_larger_containers() {
    for (what, m) in all_messages() {
        let least = least_depth(&m);
        assert!((3..=14).contains(&least), "{what}: least depth {least}");
        for d in 0..=least + 1 {
            agree(&m, &limit(d), &format!("{what} at depth {d}"));
        }
    }
}

/// Bytes set to small values (row counts, lengths, kinds and ids of 0, 1, 2) or flipped,
/// at every depth up to the message's own: the walker may not check the columns before
/// the rows' depth where the decoder does the reverse.
#[test]
fn walker_and_decoder_agree_on_set_bytes_at_every_depth() {
    let small = shapes(16, Options::balanced())
        .into_iter()
        .chain(wrapped(16, Options::balanced()))
        .chain(shapes(17, Options::compression()));
    for (what, m) in small {
        if m.len() > 1500 {
            continue;
        }
        let least = least_depth(&m);
        let mut c = m.clone();
        for d in 0..=least {
            let opts = limit(d);
            for i in 5..m.len() {
                for x in [0x00u8, 0x01, 0x02, c[i] ^ 0x80] {
                    let was = c[i];
                    c[i] = x;
                    agree(
                        &c,
                        &opts,
                        &format!("{what}: byte {i} = {x:02x} at depth {d}"),
                    );
                    c[i] = was;
                }
            }
        }
    }
}

#[test]
fn walker_and_decoder_agree_on_random_mutations_at_random_depths() {
    let mut next = crate::common::xorshift(0x2545_F491_4F6C_DD1Du64);
    let msgs = all_messages();
    for round in 0..20_000 {
        let (what, base) = &msgs[round % msgs.len()];
        let mut m = base.clone();
        crate::common::mutate(&mut m, &mut next);
        let d = (next() % 13) as u32;
        agree(
            &m,
            &limit(d),
            &format!("{what}: round {round} at depth {d}"),
        );
    }
}
