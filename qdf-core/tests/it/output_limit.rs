//! The decoded-output limit (`docs/SPEC.md` §13): what `to_vec_with(opts)` or an
//! `EncoderSession` accepts decodes under the same `opts`, and the encoder refuses (typed,
//! `ErrorCode::OutputLimit`) what would not. Issue 16, item 1.

use std::collections::BTreeMap;

use proptest::prelude::*;
use qdf_core::{Category, DecoderSession, EncoderSession, ErrorCode, Features, Options, Value};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};

const TIERS: [Options; 3] = [
    Options::speed(),
    Options::balanced(),
    Options::compression(),
];

/// The tiers, plus the opt-in features that change forms: map key-set shapes, and the
/// column index (string columns always as blocks).
fn all_forms() -> [Options; 5] {
    let b = Options::balanced();
    let c = Options::compression();
    [
        Options::speed(),
        b,
        c,
        b.features(b.features.with(Features::MAP_SHAPE)),
        c.features(
            c.features
                .with(Features::COLUMN_INDEX)
                .with(Features::MAP_SHAPE),
        ),
    ]
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Row {
    id: u32,
    s: String,
}

/// `(needed, limit)` of an `OutputLimit` error, panicking on any other error.
fn limit_of(e: &qdf_core::Error) -> (u64, u64) {
    assert_eq!(e.classify(), Category::Limit, "{e}");
    match e.code() {
        ErrorCode::OutputLimit { needed, limit } => (*needed, *limit),
        other => panic!("expected OutputLimit, got {other:?} ({e})"),
    }
}

/// The decoded size the encoder measures for `v` under `opts`: the `needed` of its refusal at
/// a limit of 0 (0 if it fits in 0).
fn measure<T: Serialize + ?Sized>(v: &T, opts: Options) -> u64 {
    match qdf_core::to_vec_with(v, opts.max_output(0)) {
        Ok(_) => 0,
        Err(e) => {
            let (needed, limit) = limit_of(&e);
            assert_eq!(limit, 0);
            needed
        }
    }
}

fn round_trip<T>(v: &T, opts: Options) -> Vec<u8>
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let bytes = qdf_core::to_vec_with(v, opts).unwrap();
    let back: T = qdf_core::from_slice_with(&bytes, opts)
        .unwrap_or_else(|e| panic!("{:?}: {e}", opts.features));
    assert_eq!(&back, v);
    bytes
}

/// Issue 16: 1 000 copies of a 1.1 KB string are 2 110 bytes in the Dense tiers, 1.1 MB of
/// decoded output: above the old `max(1 MiB, 256 × input)` default, within the new one.
#[test]
fn repeated_strings_round_trip_at_default_options() {
    let v = vec!["x".repeat(1100); 1000];
    for opts in TIERS {
        let bytes = round_trip(&v, opts);
        if opts.features.contains(Features::DENSE) {
            assert_eq!(bytes.len(), 2110, "{:?}", opts.features);
        }
    }
    assert_eq!(measure(&v, Options::balanced()), 1000 + 1100 * 1000);
    let bytes = qdf_core::to_vec(&v).unwrap();
    let back: Vec<String> = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(back, v);
}

/// Issue 16: `Vec<{id, s}>` × 1 000 with one repeated 1.1 KB string (a columnar container
/// whose string column is a constant block): 1 129 bytes; 53 under Compression, whose
/// entropy stage codes the constant block's 1.1 KB value in a few bytes.
#[test]
fn struct_rows_with_a_repeated_string_round_trip() {
    let rows: Vec<Row> = (0..1000)
        .map(|id| Row {
            id,
            s: "y".repeat(1100),
        })
        .collect();
    for opts in TIERS {
        let bytes = round_trip(&rows, opts);
        if opts.features.contains(Features::DENSE) {
            let want = if opts.features.contains(Features::ENTROPY) {
                53
            } else {
                1129
            };
            assert_eq!(bytes.len(), want, "{:?}", opts.features);
        }
        let v: Value = qdf_core::from_slice_with(&bytes, opts).unwrap();
        assert_eq!(v.as_array().map(|a| a.len()), Some(1000));
    }
}

/// Decodes every frame of `wire` with a fresh session under `opts`.
fn decode_frames<T: DeserializeOwned>(wire: &[u8], opts: Options) -> Vec<T> {
    let mut dec = DecoderSession::new(opts);
    let mut at = 0;
    let mut out = Vec::new();
    while at < wire.len() {
        let (v, n) = dec
            .decode_frame::<T>(&wire[at..])
            .unwrap_or_else(|e| panic!("frame {}: {e}", out.len() + 1))
            .unwrap();
        out.push(v);
        at += n;
    }
    out
}

/// Issue 16: in a Compression session, frame 1 (the long string inline) decoded and the
/// identical frame 2 (a reference to it, a few hundred bytes) failed and broke the session.
/// The limit is per frame and absolute, so every frame decodes.
#[test]
fn identical_session_frames_all_decode() {
    let opts = Options::compression();
    // 245 × 4 367 bytes: 1.07 MB, over 1 MiB but under 256 × the first frame's length.
    let strings = vec!["z".repeat(4367); 245];
    let rows: Vec<Row> = (0..321)
        .map(|id| Row {
            id,
            s: "z".repeat(4367),
        })
        .collect();
    let mut enc = EncoderSession::new(opts);
    let mut wire = Vec::new();
    for _ in 0..3 {
        enc.encode_frame(&strings, &mut wire).unwrap();
    }
    let back: Vec<Vec<String>> = decode_frames(&wire, opts);
    assert_eq!(back, vec![strings.clone(); 3]);
    let mut enc = EncoderSession::new(opts);
    let mut wire = Vec::new();
    for _ in 0..3 {
        enc.encode_frame(&rows, &mut wire).unwrap();
    }
    let back: Vec<Vec<Row>> = decode_frames(&wire, opts);
    assert_eq!(back, vec![rows.clone(); 3]);
}

/// A bomb: 70 000 references to one interned 1 000-byte string are 70 KB of input and 70 MB
/// of output, above the default limit (64 MiB; 64 × the input is less). The encoder refuses
/// it at default options; written by an encoder with no limit it is refused on decode, and
/// the message names the configured limit and the amount asked for.
#[test]
fn a_bomb_is_refused_on_both_sides_with_the_limit_and_the_amount() {
    let v = vec!["b".repeat(1000); 70_000];
    let want = 70_000 + 1000 * 70_000;
    let e = qdf_core::to_vec(&v).unwrap_err();
    assert_eq!(limit_of(&e), (want, (64 << 20)));
    assert_eq!(
        e.to_string(),
        format!(
            "decoded output of at least {want} units exceeds the limit of 67108864 units \
             (a unit per string byte, element or entry, 8 per packed value or columnar row) \
             at byte {}",
            e.offset().unwrap()
        )
    );
    let loose = Options::balanced().max_output(u64::MAX);
    let bytes = qdf_core::to_vec_with(&v, loose).unwrap();
    assert!(bytes.len() < 80_000, "{}", bytes.len());
    for e in [
        qdf_core::from_slice::<Vec<String>>(&bytes).unwrap_err(),
        qdf_core::from_slice::<Value>(&bytes).unwrap_err(),
        qdf_core::from_slice::<IgnoredAny>(&bytes).unwrap_err(),
    ] {
        let (needed, limit) = limit_of(&e);
        assert_eq!(limit, (64 << 20), "{e}");
        assert!(needed > limit && needed <= want, "{e}");
        let text = e.to_string();
        assert!(
            text.starts_with(&format!(
                "decoded output of at least {needed} units exceeds the limit of 67108864 units \
                 (a unit per string byte, element or entry, 8 per packed value or columnar \
                 row) at byte "
            )),
            "{text}"
        );
    }
    let back: Vec<String> = qdf_core::from_slice_with(&bytes, loose).unwrap();
    assert_eq!(back.len(), 70_000);
}

/// A small `max_output` on both sides: the encoder refuses what the decoder would, with the
/// same typed error; what a looser encoder wrote fails to decode, typed.
#[test]
fn a_small_limit_binds_encoder_and_decoder_alike() {
    let v = vec!["x".repeat(1100); 10];
    let want = 10 + 11_000;
    for tier in TIERS {
        let tight = tier.max_output(10_000);
        let e = qdf_core::to_vec_with(&v, tight).unwrap_err();
        assert_eq!(limit_of(&e), (want, 10_000), "{:?}", tier.features);
        let bytes = qdf_core::to_vec_with(&v, tier).unwrap();
        let e = qdf_core::from_slice_with::<Vec<String>>(&bytes, tight).unwrap_err();
        let (needed, limit) = limit_of(&e);
        assert_eq!(limit, 10_000);
        assert!(needed > 10_000 && needed <= want, "{e}");
        // At exactly the measure both sides agree.
        let exact = tier.max_output(want);
        let bytes = qdf_core::to_vec_with(&v, exact).unwrap();
        let back: Vec<String> = qdf_core::from_slice_with(&bytes, exact).unwrap();
        assert_eq!(back, v);
        // A session refuses the frame and stays usable: the next one goes through.
        let mut enc = EncoderSession::new(tight);
        let mut wire = Vec::new();
        let e = enc.encode_frame(&v, &mut wire).unwrap_err();
        assert_eq!(limit_of(&e), (want, 10_000));
        assert!(wire.is_empty());
        enc.encode_frame(&v[..5], &mut wire).unwrap();
        let back: Vec<Vec<String>> = decode_frames(&wire, tight);
        assert_eq!(back, vec![v[..5].to_vec()]);
    }
}

/// Checks that the encoder's measure `m` of `v` is what the decoder charges: the message
/// encodes and decodes (as `Value`, as `T`, skipped) at a limit of `m`, the encoder refuses at
/// `m - 1` and the `Value` decode of the bytes refuses too.
pub(crate) fn measure_is_exact<T>(v: &T, tier: Options)
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let m = measure(v, tier);
    let at = tier.max_output(m);
    let bytes = qdf_core::to_vec_with(v, at).unwrap();
    let back: T = qdf_core::from_slice_with(&bytes, at).unwrap();
    assert_eq!(&back, v);
    qdf_core::from_slice_with::<Value>(&bytes, at).unwrap();
    qdf_core::from_slice_with::<IgnoredAny>(&bytes, at).unwrap();
    if m > 0 {
        let below = tier.max_output(m - 1);
        let e = qdf_core::to_vec_with(v, below).unwrap_err();
        assert_eq!(limit_of(&e), (m, m - 1));
        let e = qdf_core::from_slice_with::<Value>(&bytes, below).unwrap_err();
        let (needed, limit) = limit_of(&e);
        assert_eq!(limit, m - 1);
        assert!(needed >= m, "{e}");
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Log {
    ts: u64,
    level: String,
    msg: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    user: Option<String>,
    tags: BTreeMap<String, String>,
    ratio: f64,
    ok: bool,
    #[serde(with = "serde_bytes")]
    raw: Vec<u8>,
}

/// Two optional fields, never both: rows of either kind have three fields, so a reuse of
/// the first kind's shape escapes after `x` on a row of the other kind.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Either {
    x: u8,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    a: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    b: Option<String>,
    z: String,
}

fn eithers(n: usize) -> Vec<Either> {
    (0..n)
        .map(|i| Either {
            x: i as u8,
            a: (i % 2 == 0).then(|| "left".repeat(i % 4 + 1)),
            b: (i % 2 == 1).then(|| "right".into()),
            z: "zzzz".into(),
        })
        .collect()
}

/// Maps with one key set, then another of the same size and first key (a key-set shape
/// reuse under `MAP_SHAPE` that escapes after the first key), then a longer one.
fn key_sets() -> Vec<BTreeMap<String, u32>> {
    let m = |keys: &[&str]| {
        keys.iter()
            .map(|k| (k.to_string(), k.len() as u32))
            .collect()
    };
    vec![
        m(&["alpha", "beta", "gamma"]),
        m(&["alpha", "beta", "gamma"]),
        m(&["alpha", "delta", "gamma"]),
        m(&["alpha", "beta", "gamma", "omega"]),
        m(&["alpha", "beta"]),
        m(&["alpha", "beta", "gamma"]),
    ]
}

fn logs(n: usize) -> Vec<Log> {
    (0..n)
        .map(|i| Log {
            ts: 1_700_000_000_000 + 37 * i as u64,
            level: ["INFO", "WARN", "ERROR"][i % 3].into(),
            msg: format!(
                "request {} served from cache shard {}",
                i * 7919 % 1000,
                i % 5
            ),
            user: (i % 4 == 0).then(|| format!("user-{}", i % 9)),
            tags: [("region".to_string(), ["eu", "us"][i % 2].to_string())].into(),
            ratio: i as f64 / 8.0,
            ok: i % 7 != 0,
            raw: vec![i as u8; i % 3],
        })
        .collect()
}

/// The measure is exact on every form the encoder writes: plain strings, interned ones and
/// their references, struct shapes (declared, reused, escaped for a skipped field), maps,
/// QPack sequences, columnar containers (numeric, string and bool columns, masks, residual
/// columns) and `Value`s, in every tier.
#[test]
fn the_measure_is_what_the_decoder_charges() {
    for tier in all_forms() {
        measure_is_exact(&vec!["x".repeat(1100); 50], tier);
        measure_is_exact(&logs(3), tier);
        measure_is_exact(&logs(40), tier);
        measure_is_exact(&eithers(6), tier);
        measure_is_exact(&eithers(40), tier);
        measure_is_exact(&key_sets(), tier);
        measure_is_exact(&(0..500u32).collect::<Vec<_>>(), tier);
        measure_is_exact(&vec![0u64; 5000], tier);
        measure_is_exact(&vec![true; 100], tier);
        measure_is_exact(&(0..100).map(|i| i as f64 * 0.25).collect::<Vec<_>>(), tier);
        measure_is_exact(&crate::common::sample(), tier);
        let rows: Vec<Row> = (0..40)
            .map(|id| Row {
                id,
                s: format!("{:x}", id.wrapping_mul(2_654_435_761)),
            })
            .collect();
        measure_is_exact(&rows, tier);
        let v: Value = qdf_core::from_slice(&qdf_core::to_vec(&logs(20)).unwrap()).unwrap();
        measure_is_exact(&v, tier);
    }
}

/// Values whose decoded size the intern table, shapes, QPack and columnar containers
/// amplify: repeated strings, structs with optional fields, numeric runs, string maps.
fn arb_doc() -> impl Strategy<Value = Value> {
    let word = prop::sample::select(vec![
        "a".to_string(),
        "abcd".into(),
        "x".repeat(40),
        "y".repeat(300),
        "ünïcødé".into(),
    ]);
    let leaf = prop_oneof![
        word.clone().prop_map(Value::Str),
        (0u64..300).prop_map(Value::U64),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..0).prop_map(Value::I64),
        Just(Value::Nil),
        prop::collection::vec(0u8..4, 0..20).prop_map(Value::Bytes),
    ];
    leaf.prop_recursive(4, 200, 40, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..40).prop_map(Value::Array),
            (0usize..40, 0u64..3).prop_map(|(n, k)| Value::Array(vec![Value::U64(k); n])),
            prop::collection::vec((word.clone().prop_map(Value::Str), inner.clone()), 0..5)
                .prop_map(Value::Map),
            (16usize..30, inner.clone(), any::<bool>()).prop_map(|(n, v, skip)| {
                // Rows of one struct shape: a columnar candidate, with a field left out of
                // some rows.
                Value::Array(
                    (0..n)
                        .map(|i| {
                            let mut m = vec![
                                (Value::Str("id".into()), Value::U64(i as u64)),
                                (Value::Str("v".into()), v.clone()),
                            ];
                            if !skip || i % 3 != 0 {
                                m.push((Value::Str("s".into()), Value::Str("s".repeat(i % 7))));
                            }
                            Value::Map(m)
                        })
                        .collect(),
                )
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Encoder accepts ⇒ decoder accepts under the same limit, in every tier, and the
    /// measure is exactly what the `Value` decode charges.
    #[test]
    fn encoder_and_decoder_agree_on_the_limit(v in arb_doc()) {
        for tier in all_forms() {
            measure_is_exact(&v, tier);
        }
    }
}
