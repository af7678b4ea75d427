//! Cross-codec properties: round trips of every codec on shaped inputs, picker choices
//! (every codec is reachable), truncation and mutation safety, pinned sizes.

use super::pick::{choose_f32, choose_f64, choose_index, choose_int};
use super::*;
use crate::options::Features;
use proptest::collection::vec;
use proptest::prelude::*;

const BAL: Features = Features::BALANCED;
const COMP: Features = Features::COMPRESSION;

/// Integer inputs in the shapes that stress codecs differently.
fn shaped_ints() -> impl Strategy<Value = Vec<u64>> {
    let extremes = [0, 1, u64::MAX, i64::MIN as u64, i64::MAX as u64, 1 << 32];
    prop_oneof![
        Just(Vec::new()),
        any::<u64>().prop_map(|v| vec![v]),
        (any::<u64>(), 1usize..300).prop_map(|(v, n)| vec![v; n]),
        (any::<u64>(), 0u64..1 << 20, 1usize..300)
            .prop_map(|(s, d, n)| (0..n as u64).map(|i| s.wrapping_add(i * d)).collect()),
        (any::<u64>(), any::<u64>(), 1usize..300)
            .prop_map(|(a, b, n)| (0..n).map(|i| if i % 2 == 0 { a } else { b }).collect()),
        vec(any::<u64>(), 0..300),
        vec(proptest::sample::select(extremes.to_vec()), 0..100),
        (
            vec(0u64..16, 8..300),
            vec((any::<prop::sample::Index>(), any::<u64>()), 1..5)
        )
            .prop_map(|(mut v, spikes)| {
                for (i, s) in spikes {
                    let at = i.index(v.len());
                    v[at] = s;
                }
                v
            }),
        vec(proptest::sample::select(vec![3u64, 1 << 40, 99, 7]), 0..200),
    ]
}

/// `f64` inputs: arbitrary bits, the specials, decimals, a random walk, repeats.
fn shaped_f64s() -> impl Strategy<Value = Vec<f64>> {
    let specials = vec![
        0.0,
        -0.0,
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7FF0_0000_0000_0001),
        f64::from_bits(0xFFF8_0000_DEAD_BEEF),
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        -f64::from_bits(1),
        f64::MAX,
        f64::MIN,
        1.5,
    ];
    prop_oneof![
        vec(any::<u64>().prop_map(f64::from_bits), 0..200),
        vec(proptest::sample::select(specials), 0..100),
        vec(
            (-100_000i64..100_000, 0i32..4).prop_map(|(i, d)| i as f64 / 10f64.powi(d)),
            0..200
        ),
        (any::<f64>(), vec(-1.0f64..1.0, 0..200)).prop_map(|(s, steps)| {
            steps
                .iter()
                .scan(s, |acc, d| {
                    *acc += d;
                    Some(*acc)
                })
                .collect()
        }),
        (vec(any::<f64>(), 1..20), 0usize..300)
            .prop_map(|(pool, n)| (0..n).map(|i| pool[i * 7 % pool.len()]).collect()),
    ]
}

fn bits64(v: &[f64]) -> Vec<u64> {
    v.iter().map(|f| f.to_bits()).collect()
}

fn bits32(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

fn ints_of(p: Packed) -> Vec<u64> {
    match p {
        Packed::Ints(_, v) => v,
        other => panic!("expected integers, got {other:?}"),
    }
}

fn f64s_of(p: Packed) -> Vec<u64> {
    match p {
        Packed::F64s(v) => bits64(&v),
        other => panic!("expected f64s, got {other:?}"),
    }
}

fn f32s_of(p: Packed) -> Vec<u32> {
    match p {
        Packed::F32s(v) => bits32(&v),
        other => panic!("expected f32s, got {other:?}"),
    }
}

/// Every strict prefix fails and single-byte mutations never panic.
fn check_damage(enc: &[u8]) {
    for cut in 0..enc.len() {
        assert!(
            decode_one(&enc[..cut]).is_err(),
            "prefix {cut} of {enc:02x?}"
        );
    }
    for i in 0..enc.len().min(24) {
        for x in [0x01, 0x80, 0xFF] {
            let mut m = enc.to_vec();
            m[i] ^= x;
            let _ = decode_one(&m);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn int_codecs_round_trip(vals in shaped_ints(), signed in any::<bool>()) {
        let kind = if signed { Kind::I64 } else { Kind::U64 };
        let mut encs = Vec::new();
        let mut e = Vec::new();
        raw::encode(vals.iter().copied(), kind, &mut e);
        encs.push(e);
        let mut e = Vec::new();
        for_::encode(&vals, kind, &mut e);
        encs.push(e);
        if !vals.is_empty() {
            let mut e = Vec::new();
            delta::encode(&vals, kind, &mut e);
            encs.push(e);
            let (min, max) = for_::min_max(&vals, signed).unwrap();
            let bits = for_::width(min, max);
            let (best, exceptions) = pfor::best_width(&vals, min, bits.max(1), 64);
            let floor = pfor::cost_floor(vals.len(), min, best, exceptions, signed);
            prop_assert!(floor <= pfor::cost(&vals, min, best, signed));
            for b in [0, best, bits / 2] {
                let mut e = Vec::new();
                pfor::encode_with(&vals, kind, min, b, &mut e);
                prop_assert_eq!(e.len(), pfor::cost(&vals, min, b, signed));
                encs.push(e);
            }
        }
        let mut e = Vec::new();
        rle::encode(&vals, kind, &mut e);
        encs.push(e);
        if let Some(d) = dict::distinct(&vals).filter(|d| !d.is_empty()) {
            let mut e = Vec::new();
            dict::encode_with(&vals, kind, &d, &mut e);
            encs.push(e);
        }
        let mut e = Vec::new();
        encode_ints(&vals, kind, &mut e);
        prop_assert_eq!(e.len(), choose_int(&vals, kind).1);
        prop_assert!(e.len() <= raw::cost(vals.len(), kind));
        encs.push(e);
        for enc in &encs {
            prop_assert_eq!(&ints_of(decode_one(enc).unwrap()), &vals, "{:02x?}", enc);
        }
        if vals.len() < 40 {
            encs.iter().for_each(|e| check_damage(e));
        }
    }

    /// On a dictionary index (every id of `0..d` occurs) the index search skips FOR and the
    /// integer dictionary and still finds what the full search finds below the plain index.
    #[test]
    fn index_search_equals_the_full_search(
        d in 2u64..40,
        ids in vec(0u64..40, 0..300),
        runs in 1usize..20,
    ) {
        let mut vals: Vec<u64> = (0..d).collect();
        vals.extend(ids.iter().map(|&k| k % d).flat_map(|k| std::iter::repeat_n(k, runs)));
        let bound = crate::wire::varint::uvarint_len(vals.len() as u64)
            + crate::codec::bitpack::packed_len(vals.len(), dict::index_bits(d as usize));
        let full = choose_int(&vals, Kind::U64);
        let want = (full.1 < bound).then_some(full);
        prop_assert_eq!(choose_index(&vals, bound), want);
    }

    #[test]
    fn narrow_kinds_round_trip(raw_vals in shaped_ints(), k in 0usize..6) {
        let kind = [Kind::U8, Kind::U16, Kind::U32, Kind::I8, Kind::I16, Kind::I32][k];
        let shift = 64 - 8 * kind.width() as u32;
        let vals: Vec<u64> = raw_vals.iter().map(|&v| {
            if kind.is_signed() { (((v << shift) as i64) >> shift) as u64 } else { (v << shift) >> shift }
        }).collect();
        let mut e = Vec::new();
        encode_ints(&vals, kind, &mut e);
        prop_assert!(e.len() <= raw::cost(vals.len(), kind));
        let (p, _) = decode(&e, 0, &mut u64::MAX.clone()).unwrap();
        match &p {
            Packed::Ints(k2, _) => prop_assert!(*k2 == kind || *k2 == kind.widened()),
            other => prop_assert!(false, "expected ints, got {:?}", other),
        }
        prop_assert_eq!(ints_of(p), vals);
    }

    #[test]
    fn f64_codecs_round_trip(vals in shaped_f64s(), d in 0u8..16, div in any::<bool>()) {
        let want = bits64(&vals);
        let mut encs = Vec::new();
        let mut e = Vec::new();
        gorilla::encode_f64(&vals, &mut e);
        prop_assert_eq!(e.len(), gorilla::cost_f64(&vals));
        encs.push(e);
        let mut e = Vec::new();
        chimp::encode(&vals, &mut e);
        prop_assert_eq!(e.len(), chimp::cost(&vals));
        encs.push(e);
        for exp in [d | if div { 0x80 } else { 0 }, alp::choose_exp(&vals)] {
            let plan = alp::analyze(&vals, exp);
            let mut e = Vec::new();
            plan.encode(0x0B, &mut e);
            prop_assert_eq!(e.len(), plan.cost());
            encs.push(e);
        }
        for feats in [BAL, COMP] {
            let mut e = Vec::new();
            encode_f64s(&vals, &mut e, feats);
            prop_assert_eq!(e.len(), choose_f64(&vals, feats).1);
            prop_assert!(e.len() <= raw::cost(vals.len(), Kind::F64));
            encs.push(e);
        }
        for enc in &encs {
            prop_assert_eq!(&f64s_of(decode_one(enc).unwrap()), &want, "{:02x?}", enc);
        }
        if vals.len() < 24 {
            encs.iter().for_each(|e| check_damage(e));
        }
    }

    #[test]
    fn f32_codecs_round_trip(vals in shaped_f64s(), d in 0u8..16) {
        let vals: Vec<f32> = vals.iter().map(|&v| v as f32).collect();
        let want = bits32(&vals);
        let mut encs = Vec::new();
        let mut e = Vec::new();
        gorilla::encode_f32(&vals, &mut e);
        prop_assert_eq!(e.len(), gorilla::cost_f32(&vals));
        encs.push(e);
        for exp in [d, alp::choose_exp(&vals)] {
            let mut e = Vec::new();
            alp::analyze(&vals, exp).encode(0x0A, &mut e);
            encs.push(e);
        }
        for feats in [BAL, COMP] {
            let mut e = Vec::new();
            encode_f32s(&vals, &mut e, feats);
            prop_assert_eq!(e.len(), choose_f32(&vals, feats).1);
            encs.push(e);
        }
        for enc in &encs {
            prop_assert_eq!(&f32s_of(decode_one(enc).unwrap()), &want, "{:02x?}", enc);
        }
    }

    #[test]
    fn bools_round_trip(vals in vec(any::<bool>(), 0..200)) {
        let mut e = Vec::new();
        encode_bools(&vals, &mut e);
        prop_assert_eq!(e.len(), bools::cost(vals.len()));
        match decode_one(&e).unwrap() {
            Packed::Bools(b) => prop_assert_eq!(b, vals),
            other => prop_assert!(false, "expected bools, got {:?}", other),
        }
        if e.len() < 8 {
            check_damage(&e);
        }
    }
}

/// A fixed pseudo-random sequence (SplitMix64).
fn rand_u64s(n: usize, seed: u64) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
}

fn head_u(vals: &[u64], kind: Kind) -> [u8; 2] {
    let mut e = Vec::new();
    encode_ints(vals, kind, &mut e);
    assert_eq!(ints_of(decode_one(&e).unwrap()), vals);
    [e[0], e[1]]
}

fn head_f64(vals: &[f64], feats: Features) -> [u8; 2] {
    let mut e = Vec::new();
    encode_f64s(vals, &mut e, feats);
    assert_eq!(f64s_of(decode_one(&e).unwrap()), bits64(vals));
    [e[0], e[1]]
}

fn head_f32(vals: &[f32], feats: Features) -> [u8; 2] {
    let mut e = Vec::new();
    encode_f32s(vals, &mut e, feats);
    assert_eq!(f32s_of(decode_one(&e).unwrap()), bits32(vals));
    [e[0], e[1]]
}

#[test]
fn picker_reaches_every_integer_codec() {
    let r = rand_u64s(1000, 1);
    assert_eq!(head_u(&r[..100], Kind::U64), [0xE4, 0x03]);
    let i32s: Vec<u64> = r[..100].iter().map(|&v| v as i32 as i64 as u64).collect();
    assert_eq!(head_u(&i32s, Kind::I32), [0xE4, 0x06]);
    let near: Vec<u64> = r[..100].iter().map(|v| 1000 + v % 256).collect();
    assert_eq!(head_u(&near, Kind::U64), [0xE5, 0x03]);
    let ts: Vec<u64> = (0..1024).map(|i| 1_700_000_000 + i).collect();
    assert_eq!(head_u(&ts, Kind::I64), [0xE6, 0x07]);
    let runs: Vec<u64> = [5u64; 100].iter().chain(&[7u64; 100]).copied().collect();
    assert_eq!(head_u(&runs, Kind::U64), [0xEB, 0x03]);
    let pool = [
        1_000_000_000_000u64,
        77_777_777_777,
        5,
        123_456_789_012,
        999_999_999,
    ];
    let picks: Vec<u64> = r[..200].iter().map(|v| pool[(v % 5) as usize]).collect();
    assert_eq!(head_u(&picks, Kind::U64), [0xED, 0x03]);
    let mut spiky: Vec<u64> = (0..1000).map(|i| i % 16).collect();
    for at in [10, 500, 900] {
        spiky[at] = 1 << 40;
    }
    assert_eq!(head_u(&spiky, Kind::U64), [0xEE, 0x03]);
    let mut e = Vec::new();
    encode_bools(&[true; 9], &mut e);
    assert_eq!(e[0], 0xE3);
}

#[test]
fn picker_reaches_every_float_codec() {
    let r = rand_u64s(300, 2);
    let random: Vec<f64> = r.iter().map(|&b| f64::from_bits(b)).collect();
    assert_eq!(head_f64(&random, BAL), [0xE4, 0x0B]);
    assert_eq!(head_f64(&random, COMP), [0xE4, 0x0B]);
    let random32: Vec<f32> = r.iter().map(|&b| f32::from_bits(b as u32)).collect();
    assert_eq!(head_f32(&random32, BAL), [0xE4, 0x0A]);
    assert_eq!(head_f32(&random32, COMP), [0xE4, 0x0A]);
    // Two zero bits on top of random ones: ALP-RD's one-entry dictionary saves them.
    let noise: Vec<f64> = r.iter().map(|&b| f64::from_bits(b >> 2)).collect();
    assert_eq!(head_f64(&noise, BAL), [0xF4, 0x0F]);
    assert_eq!(head_f64(&noise, COMP), [0xF4, 0x0F]);
    assert_eq!(
        head_f64(&noise, BAL.without(Features::FLOAT_SPLIT)),
        [0xE4, 0x0B]
    );
    // Uniform in [−1, 1), as issue #20's mesh: ALP-RD in both tiers.
    let unit: Vec<f64> = r
        .iter()
        .map(|&u| (u >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
        .collect();
    assert_eq!(head_f64(&unit, BAL), [0xF4, 0x0F]);
    assert_eq!(head_f64(&unit, COMP), [0xF4, 0x0F]);
    let unit32: Vec<f32> = unit.iter().map(|&v| v as f32).collect();
    assert_eq!(head_f32(&unit32, BAL), [0xF4, 0x0E]);
    assert_eq!(head_f32(&unit32, COMP), [0xF4, 0x0E]);
    // Neighbours differ in the low bits only and need 17 digits: Gorilla's window wins.
    let walk: Vec<f64> = (0..200)
        .map(|i| f64::from_bits(0x4009_21FB_5444_2D18 + i * 3))
        .collect();
    assert_eq!(head_f64(&walk, BAL), [0xF4, 0x0F]);
    assert_eq!(head_f64(&walk, COMP), [0xE7, 0x0B]);
    let walk32: Vec<f32> = (0..200)
        .map(|i| f32::from_bits(0x4049_0FDB + i * 3))
        .collect();
    assert_eq!(head_f32(&walk32, BAL), [0xF4, 0x0E]);
    // One mantissa over a wide range of exponents: no decimal form, an 8-bit XOR window.
    let scaled: Vec<f32> = r[..200]
        .iter()
        .map(|v| f32::from_bits(0x0012_3457 | ((100 + (v % 60) as u32) << 23)))
        .collect();
    assert_eq!(head_f32(&scaled, COMP), [0xE7, 0x0A]);
    let cycle: Vec<f64> = (0..300).map(|i| noise[i % 10]).collect();
    assert_eq!(head_f64(&cycle, COMP), [0xE7, 0x0F]);
    let prices: Vec<f64> = r.iter().map(|v| (v % 100_000) as f64 / 100.0).collect();
    assert_eq!(head_f64(&prices, BAL), [0xF4, 0x0F]);
    assert_eq!(head_f64(&prices, COMP), [0xF4, 0x0B]);
    let prices32: Vec<f32> = r.iter().map(|v| (v % 10_000) as f32 / 10.0).collect();
    assert_eq!(head_f32(&prices32, COMP), [0xF4, 0x0A]);
}

#[test]
fn timestamps_pack_to_at_most_16_bytes() {
    let ts: Vec<i64> = (0..1024).map(|i| 1_767_225_600 + i).collect();
    let mut e = Vec::new();
    encode_i64s(&ts, &mut e);
    // E6 07 00 | zigzag(first) 5 bytes | zigzag(1) | uvarint(1024) 2 bytes.
    assert_eq!(e.len(), 11);
    let mut u = Vec::new();
    encode_u64s(&ts.iter().map(|&t| t as u64).collect::<Vec<_>>(), &mut u);
    assert!(u.len() <= 16);
}

#[test]
fn bad_tags_kinds_and_budget() {
    let e = decode_one(&[0xC0]).unwrap_err();
    assert!(matches!(e.code(), ErrorCode::BadTag { found: 0xC0, .. }));
    assert_eq!(e.classify(), crate::Category::Syntax);
    for bad in [
        &[0xE5, 0x02, 0x00, 0x00, 0x00][..],
        &[0xE4, 0x0D, 0x00],
        &[0xE4, 0x08, 0x00],
        &[0xE7, 0x03, 0x00],
        &[0xF4, 0x0C, 0x00],
        &[0xF4, 0x0E, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00],
        &[0xF4, 0x0A, 0x01, 0x82, 0x00, 0x00, 0x00],
        &[0xF4, 0x0B, 0x01, 0x10, 0x00, 0x00, 0x00],
    ] {
        let e = decode_one(bad).unwrap_err();
        assert_eq!(e.classify(), crate::Category::Syntax, "{bad:02x?}");
        assert!(
            matches!(e.code(), ErrorCode::BadCodec(_)),
            "{bad:02x?}: {e}"
        );
    }
    // A count of 2^40 raw u64s with 2 bytes of body: rejected before allocating.
    let huge = [0xE4, 0x03, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 1, 2];
    assert!(matches!(
        decode_one(&huge).unwrap_err().code(),
        ErrorCode::LengthOverrun { .. }
    ));
    let mut e = Vec::new();
    encode_u64s(&(0..100).collect::<Vec<_>>(), &mut e);
    // 100 elements × 8 bytes each.
    let mut budget = 799;
    let err = decode(&e, 0, &mut budget).unwrap_err();
    assert_eq!(
        err.code(),
        &ErrorCode::OutputLimit {
            needed: 800,
            limit: 799
        }
    );
    let mut budget = 800;
    assert!(decode(&e, 0, &mut budget).is_ok());
    assert_eq!(budget, 0);
}

/// Raw stores at every width (one loop per width): the low `width` bytes of each value,
/// little-endian, whatever the host's byte order; golden bytes, then decoded back.
#[test]
fn raw_encode_every_width_golden() {
    let vals = [0x0102_0304_0506_0708u64, u64::MAX - 1, 0x80];
    let cases: [(Kind, &[u8]); 10] = [
        (Kind::U8, &[0x08, 0xFE, 0x80]),
        (Kind::I8, &[0x08, 0xFE, 0x80]),
        (Kind::U16, &[0x08, 0x07, 0xFE, 0xFF, 0x80, 0x00]),
        (Kind::I16, &[0x08, 0x07, 0xFE, 0xFF, 0x80, 0x00]),
        (
            Kind::U32,
            &[8, 7, 6, 5, 0xFE, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0],
        ),
        (
            Kind::I32,
            &[8, 7, 6, 5, 0xFE, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0],
        ),
        (
            Kind::F32,
            &[8, 7, 6, 5, 0xFE, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0],
        ),
        (
            Kind::U64,
            &[
                8, 7, 6, 5, 4, 3, 2, 1, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0, 0,
                0, 0, 0, 0, 0,
            ],
        ),
        (
            Kind::I64,
            &[
                8, 7, 6, 5, 4, 3, 2, 1, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0, 0,
                0, 0, 0, 0, 0,
            ],
        ),
        (
            Kind::F64,
            &[
                8, 7, 6, 5, 4, 3, 2, 1, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0, 0,
                0, 0, 0, 0, 0,
            ],
        ),
    ];
    for (kind, body) in cases {
        let mut e = Vec::new();
        raw::encode(vals.iter().copied(), kind, &mut e);
        let mut want = vec![0xE4, kind.byte(), 3];
        want.extend_from_slice(body);
        assert_eq!(e, want, "{kind:?}");
        assert_eq!(e.len(), raw::cost(vals.len(), kind), "{kind:?}");
        let mut budget = u64::MAX;
        let (back, end) = decode(&e, 0, &mut budget).unwrap();
        assert_eq!(end, e.len(), "{kind:?}");
        let w = 8 * kind.width() as u32;
        let low = |v: u64| if w == 64 { v } else { v & ((1 << w) - 1) };
        let ext = |v: u64| ((v << (64 - w)) as i64 >> (64 - w)) as u64;
        let got: Vec<u64> = match back {
            Packed::F64s(f) => f.iter().map(|f| f.to_bits()).collect(),
            Packed::F32s(f) => f.iter().map(|f| u64::from(f.to_bits())).collect(),
            Packed::Ints(k, i) if k == kind => i,
            other => panic!("{kind:?}: {other:?}"),
        };
        let want: Vec<u64> = vals
            .iter()
            .map(|&v| if kind.is_signed() { ext(v) } else { low(v) })
            .collect();
        assert_eq!(got, want, "{kind:?}");
    }
}
