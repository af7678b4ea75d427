//! QPack through serde (Balanced): which sequences are packed, golden bytes, decoding into
//! every integer width, arrays, tuples and `Value`, fallbacks, and damaged packed bodies.

use std::collections::VecDeque;

use proptest::prelude::*;
use qdf_core::{Category, ErrorCode, Options, Value};
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;

/// The QPack tags, and `FE`: an entropy-coded block holding one (Compression).
const QPACK_TAGS: [u8; 10] = [0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xEB, 0xED, 0xEE, 0xF4, 0xFE];

fn bal<T: Serialize + ?Sized>(v: &T) -> Vec<u8> {
    qdf_core::to_vec_with(v, Options::balanced()).unwrap()
}

fn comp<T: Serialize + ?Sized>(v: &T) -> Vec<u8> {
    qdf_core::to_vec_with(v, Options::compression()).unwrap()
}

fn speed<T: Serialize + ?Sized>(v: &T) -> Vec<u8> {
    qdf_core::to_vec_with(v, Options::speed()).unwrap()
}

fn packed(bytes: &[u8]) -> bool {
    QPACK_TAGS.contains(&bytes[5])
}

/// Round-trips `v` through Balanced and Compression; asserts it is packed and that the
/// `Value` decode re-encodes to the same bytes and equals the Speed decode's `Value`.
fn round_trip<T>(v: &T)
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    for bytes in [bal(v), comp(v)] {
        assert!(
            packed(&bytes),
            "not packed: {:02x?}",
            &bytes[..bytes.len().min(16)]
        );
        let back: T = qdf_core::from_slice(&bytes).unwrap();
        assert_eq!(&back, v);
        let value: Value = qdf_core::from_slice(&bytes).unwrap();
        let plain: Value = qdf_core::from_slice(&speed(v)).unwrap();
        assert_eq!(value, plain);
        let opts = if bytes == bal(v) {
            Options::balanced()
        } else {
            Options::compression()
        };
        assert_eq!(qdf_core::to_vec_with(&value, opts).unwrap(), bytes);
    }
    assert!(bal(v).len() < speed(v).len());
}

#[test]
fn golden_bytes() {
    // 1..=8 as u8: delta + FOR, kind U64, width 0, first 1, zigzag(min Δ = 1) = 2, n = 8.
    // Header flags 03: Dense, and the QPack hint because a QPack tag was written.
    let v: Vec<u8> = (1..=8).collect();
    assert_eq!(
        bal(&v),
        [
            0x51, 0x44, 0x46, 0x01, 0x03, 0xE6, 0x03, 0x00, 0x01, 0x02, 0x08
        ]
    );
    // Nine bools: E3, n = 9, two bytes LSB-first.
    let b = [true, false, true, true, false, false, false, false, true];
    assert_eq!(&bal(&b)[5..], [0xE3, 0x09, 0x0D, 0x01]);
    // Eight equal negative i16: FOR width 0, kind I64, min zigzag(−3) = 5.
    assert_eq!(&bal(&[-3i16; 8])[5..], [0xE5, 0x07, 0x00, 0x05, 0x08]);
    // Eight equal f32 in Balanced: ALP-RD (kind 0E), r = 16, one left part 3FC0, eight
    // 16-bit right parts 0, no exception: 24 bytes against raw's 35.
    let f = [1.5f32; 8];
    let mut want = vec![0xF4, 0x0E, 0x08, 0x10, 0x01, 0xC0, 0x7F];
    want.extend([0; 16]);
    want.push(0x00);
    assert_eq!(&bal(&f)[5..], want);
    // Eight f32 of eight exponents: no cut pays, raw F32.
    let f = [1.5f32, -2.5, 0.0625, 7.0, -0.001, 1e6, -0.125, 123.25];
    let bytes = bal(&f);
    assert_eq!(&bytes[5..8], [0xE4, 0x0A, 0x08]);
    assert_eq!(bytes.len(), 5 + 3 + 32);
}

#[test]
fn short_mixed_and_optional_sequences_stay_plain() {
    let seven: Vec<u32> = (0..7).collect();
    assert_eq!(bal(&seven)[5..], speed(&seven)[5..]);
    let opts: Vec<Option<u32>> = (0..20).map(Some).collect();
    assert_eq!(bal(&opts)[5..], speed(&opts)[5..]);
    // A non-number after eight numbers: the buffered numbers go out plain.
    let mut mixed: Vec<Value> = (0..8).map(Value::U64).collect();
    mixed.push(Value::Str("x".into()));
    mixed.extend((0..8).map(Value::U64));
    assert_eq!(bal(&mixed)[5..], speed(&mixed)[5..]);
    // f32 and f64 do not share a body; negative and > i64::MAX integers neither.
    let floats = vec![Value::F32(1.0); 8]
        .into_iter()
        .chain([Value::F64(1.0)])
        .collect::<Vec<_>>();
    assert_eq!(bal(&floats)[5..], speed(&floats)[5..]);
    let wide: Vec<Value> = (0..10)
        .map(|i| {
            if i % 2 == 0 {
                Value::I64(-1)
            } else {
                Value::U64(u64::MAX)
            }
        })
        .collect();
    assert_eq!(bal(&wide)[5..], speed(&wide)[5..]);
    let back: Vec<Value> = qdf_core::from_slice(&bal(&wide)).unwrap();
    assert_eq!(back, wide);
    // Byte strings stay bin (Dense interns them on first sight: E2 len bytes), never packed.
    let bytes = ByteBuf::from(vec![7u8; 40]);
    assert_eq!(bal(&bytes)[5..7], [0xE2, 40]);
    assert_eq!(speed(&bytes)[5..7], [0xD0, 40]);
}

#[test]
fn small_integers_pack_only_when_smaller() {
    // 8 fixints: plain is 9 bytes; the best packed form must be strictly smaller.
    let v = [0u8, 100, 3, 77, 12, 9, 126, 50];
    let b = bal(&v);
    assert!(b.len() <= speed(&v).len());
    let back: [u8; 8] = qdf_core::from_slice(&b).unwrap();
    assert_eq!(back, v);
}

#[test]
fn every_target_kind() {
    round_trip(&(0..100u8).collect::<Vec<_>>());
    round_trip(&(0..100u16).map(|i| i * 600).collect::<Vec<_>>());
    round_trip(&(0..100u32).map(|i| i * 40_000_000).collect::<Vec<_>>());
    round_trip(&(0..100u64).map(|i| u64::MAX - i * i).collect::<Vec<_>>());
    round_trip(&(0..100i8).map(|i| i - 50).collect::<Vec<_>>());
    round_trip(&(0..100i16).map(|i| i * -300).collect::<Vec<_>>());
    round_trip(&(0..100i32).map(|i| i * -20_000_000).collect::<Vec<_>>());
    round_trip(&(0..100i64).map(|i| i64::MIN + i).collect::<Vec<_>>());
    round_trip(&(0..100).map(|i| i % 3 == 0).collect::<Vec<_>>());
    round_trip(&(0..100).map(|i| i as f32 * 0.25).collect::<Vec<_>>());
    round_trip(&(0..100).map(|i| i as f64 / 100.0).collect::<Vec<_>>());
    round_trip(&[7u16; 12]);
    round_trip(&(1u32, 2u32, 3u32, 4u32, 5u32, 6u32, 7u32, 8u32));
    round_trip(&(0..50i64).collect::<VecDeque<_>>());
    let specials = [
        0.0,
        -0.0,
        f64::NAN,
        f64::from_bits(0x7FF0_0000_0000_0001),
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::from_bits(1),
        f64::MAX,
        -1.5,
    ];
    let bytes = comp(&specials);
    let back: [f64; 9] = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(back.map(f64::to_bits), specials.map(f64::to_bits));
}

#[test]
fn decode_into_other_widths() {
    let small: Vec<u64> = (0..64).collect();
    let bytes = bal(&small);
    let as_u8: Vec<u8> = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(as_u8, (0..64).collect::<Vec<u8>>());
    let as_i16: Vec<i16> = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(as_i16[63], 63);
    let eight: [i32; 8] = qdf_core::from_slice(&bal(&[9u8; 8])).unwrap();
    assert_eq!(eight, [9; 8]);
    let tuple: (u8, i64, u16, u32, u8, u8, u8, i8) =
        qdf_core::from_slice(&bal(&[3u64; 8])).unwrap();
    assert_eq!(tuple, (3, 3, 3, 3, 3, 3, 3, 3));
    let big: Vec<u32> = (0..64).map(|i| i * 10).collect();
    let e = qdf_core::from_slice::<Vec<u8>>(&bal(&big)).unwrap_err();
    assert_eq!(e.classify(), Category::Data);
    let neg: Vec<i32> = (0..64).map(|i| -i).collect();
    let e = qdf_core::from_slice::<Vec<u32>>(&bal(&neg)).unwrap_err();
    assert_eq!(e.classify(), Category::Data);
    let e = qdf_core::from_slice::<[u8; 10]>(&bal(&small)).unwrap_err();
    assert_eq!(e.classify(), Category::Data);
    let e = qdf_core::from_slice::<Vec<String>>(&bal(&small)).unwrap_err();
    assert_eq!(e.classify(), Category::Data);
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Series {
    name: String,
    timestamps: Vec<i64>,
    values: Vec<f64>,
    flags: Vec<bool>,
}

#[test]
fn nested_sequences_and_sizes() {
    let s = Series {
        name: "service.cpu.load".into(),
        timestamps: (0..1024).map(|i| 1_700_000_000 + i).collect(),
        values: (0..1024).map(|i| ((i * 37) % 101) as f64 / 10.0).collect(),
        flags: (0..1024).map(|i| i % 3 == 0).collect(),
    };
    let b = bal(&s);
    let back: Series = qdf_core::from_slice(&b).unwrap();
    assert_eq!(back, s);
    let c = comp(&s);
    assert_eq!(qdf_core::from_slice::<Series>(&c).unwrap(), s);
    // Timestamps: 11 bytes; values: raw f64 in Balanced, ALP in Compression; flags: 130 bytes.
    let ts_len = bal(&s.timestamps).len() - 5;
    assert_eq!(ts_len, 11);
    assert!(ts_len <= 16);
    assert!(
        c.len() < b.len() / 2,
        "compression {} vs balanced {}",
        c.len(),
        b.len()
    );
}

fn every_prefix_fails(bytes: &[u8]) {
    for cut in 5..bytes.len() {
        let e = qdf_core::from_slice::<Value>(&bytes[..cut]).unwrap_err();
        assert!(
            matches!(e.classify(), Category::Eof | Category::Syntax),
            "prefix {cut}: {e}"
        );
    }
}

#[test]
fn damaged_packed_bodies() {
    let samples = [
        bal(&(0..40u32).map(|i| i * 3 + (i % 5)).collect::<Vec<_>>()),
        bal(&[5u64, 1 << 40, 5, 6, 7, 5, 6, 7, 5, 9, 1, 2]),
        bal(&(0..20).map(|i| i % 2 == 0).collect::<Vec<_>>()),
        comp(&(0..20).map(|i| i as f64 * 0.1).collect::<Vec<_>>()),
        comp(
            &(0..20)
                .map(|i| f64::from_bits(0x4009_21FB_5444_2D18 + i))
                .collect::<Vec<_>>(),
        ),
    ];
    for bytes in &samples {
        assert!(packed(bytes));
        every_prefix_fails(bytes);
        for i in 5..bytes.len() {
            for x in [0x01u8, 0x40, 0xFF] {
                let mut m = bytes.clone();
                m[i] ^= x;
                let _ = qdf_core::from_slice::<Value>(&m);
                let _ = qdf_core::from_slice::<Vec<u64>>(&m);
            }
        }
    }
    // A bad kind byte is a Syntax error at its offset.
    let mut bad = bal(&(1..=8u8).collect::<Vec<_>>());
    bad[6] = 0x02;
    let e = qdf_core::from_slice::<Value>(&bad).unwrap_err();
    assert_eq!(e.classify(), Category::Syntax);
    assert_eq!(e.offset(), Some(6));
    // A packed count beyond the output budget.
    let long = bal(&vec![0u8; 5000]);
    let e = qdf_core::from_slice_with::<Vec<u8>>(&long, Options::default().max_output(100))
        .unwrap_err();
    assert_eq!(
        e.code(),
        &ErrorCode::OutputLimit {
            needed: 40_000,
            limit: 100
        }
    );
    // Two million zeros pack into a few bytes and decode at default options (16 MB of
    // output, under the 64 MiB limit).
    let zeros = bal(&vec![0u8; 2_000_000]);
    assert!(zeros.len() < 16);
    assert_eq!(
        qdf_core::from_slice::<Vec<u8>>(&zeros).unwrap().len(),
        2_000_000
    );
    // Ten million are more than a tiny message may expand to: the encoder refuses them at
    // default options, and what a looser encoder wrote decodes only with a larger limit.
    let many = vec![0u8; 10_000_000];
    let e = qdf_core::to_vec(&many).unwrap_err();
    assert_eq!(
        e.code(),
        &ErrorCode::OutputLimit {
            needed: 80_000_000,
            limit: 64 << 20
        }
    );
    let opts = Options::default().max_output(80_000_000); // 8 units per packed element
    let zeros = qdf_core::to_vec_with(&many, opts).unwrap();
    assert!(zeros.len() < 16);
    let e = qdf_core::from_slice::<Vec<u8>>(&zeros).unwrap_err();
    assert_eq!(e.classify(), Category::Limit);
    assert_eq!(
        qdf_core::from_slice_with::<Vec<u8>>(&zeros, opts)
            .unwrap()
            .len(),
        10_000_000
    );
    // Trailing bytes after a packed body.
    let mut trail = bal(&[1u8; 9]);
    trail.push(0);
    assert!(matches!(
        qdf_core::from_slice::<Vec<u8>>(&trail).unwrap_err().code(),
        ErrorCode::TrailingBytes(1)
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn int_vectors_round_trip(v in proptest::collection::vec(any::<i64>(), 0..80), shift in 0u32..63) {
        let v: Vec<i64> = v.iter().map(|x| x >> shift).collect();
        let b = bal(&v);
        prop_assert!(b.len() <= speed(&v).len());
        prop_assert_eq!(qdf_core::from_slice::<Vec<i64>>(&b).unwrap(), v.clone());
        let value: Value = qdf_core::from_slice(&b).unwrap();
        prop_assert_eq!(qdf_core::to_vec(&value).unwrap(), b);
    }

    #[test]
    fn float_vectors_round_trip(v in proptest::collection::vec(any::<u64>(), 0..60)) {
        let f: Vec<f64> = v.iter().map(|&b| f64::from_bits(b)).collect();
        for bytes in [bal(&f), comp(&f)] {
            let back: Vec<f64> = qdf_core::from_slice(&bytes).unwrap();
            prop_assert_eq!(back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), v.clone());
        }
    }
}

/// Header flag `02` (QPack hint, SPEC §1): a single message sets it exactly when its body has
/// a QPack tag; a stream header sets it whenever the encoder may pack; decoders ignore it.
#[test]
fn qpack_header_hint() {
    // Header flags (`docs/SPEC.md` §1): Dense 01, QPack 02.
    const FLAG_DENSE: u8 = 0x01;
    const FLAG_QPACK: u8 = 0x02;
    let packed: Vec<u32> = (0..100).collect();
    let short: Vec<u32> = vec![1, 2, 3];
    let nested = (vec!["a"; 3], vec![packed.clone()]);
    for (opts, want_packed) in [
        (Options::balanced(), FLAG_DENSE | FLAG_QPACK),
        (Options::compression(), FLAG_DENSE | FLAG_QPACK),
        (Options::speed(), 0),
    ] {
        let flags = |b: &[u8]| b[4];
        let a = qdf_core::to_vec_with(&packed, opts).unwrap();
        assert_eq!(flags(&a), want_packed, "{opts:?}");
        let b = qdf_core::to_vec_with(&short, opts).unwrap();
        assert_eq!(flags(&b), want_packed & FLAG_DENSE, "too short to pack");
        let c = qdf_core::to_vec_with(&nested, opts).unwrap();
        assert_eq!(flags(&c), want_packed, "a packed sequence inside a tuple");
        let mut w = Vec::new();
        qdf_core::to_writer_with(&mut w, &packed, opts).unwrap();
        assert_eq!(w, a, "to_writer builds the same message");
        // The hint changes nothing for the decoder: with or without it, the same values.
        for f in [0u8, FLAG_QPACK] {
            let mut m = a.clone();
            m[4] = (m[4] & !FLAG_QPACK) | f;
            assert_eq!(qdf_core::from_slice::<Vec<u32>>(&m).unwrap(), packed);
            let mut m = b.clone();
            m[4] |= f;
            assert_eq!(qdf_core::from_slice::<Vec<u32>>(&m).unwrap(), short);
        }
    }
    // Streams: the header precedes frames not yet encoded, so it says "may appear".
    let mut enc = qdf_core::EncoderSession::new(Options::balanced());
    let mut out = Vec::new();
    enc.encode_frame(&short, &mut out).unwrap();
    // 0x40: per-field strings (`docs/SPEC.md` §15.3), which Balanced sessions keep.
    assert_eq!(out[4], FLAG_DENSE | FLAG_QPACK | 0x40);
    let mut enc = qdf_core::EncoderSession::new(Options::speed());
    let mut out = Vec::new();
    enc.encode_frame(&packed, &mut out).unwrap();
    assert_eq!(out[4], 0);
}
