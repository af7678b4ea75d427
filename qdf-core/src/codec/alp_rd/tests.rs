use super::*;
use crate::codec::{Packed, decode_one};
use crate::error::ErrorCode;

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

/// Uniform in [−1, 1), as the mesh fixture's coordinates.
fn unit(n: usize, seed: u64) -> Vec<f64> {
    rand_u64s(n, seed)
        .iter()
        .map(|&u| (u >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
        .collect()
}

fn enc<F: AlpFloat>(vals: &[F], p: &Plan) -> Vec<u8> {
    let mut out = Vec::new();
    p.encode(vals, &mut out);
    out
}

/// The plan's bytes decode to `vals` bit for bit, its cost is exact, and `plan_below`
/// agrees with it at and above its cost.
fn round_trip<F: AlpFloat + std::fmt::Debug>(vals: &[F]) -> Vec<u8> {
    let p = plan(vals);
    let out = enc(vals, &p);
    assert_eq!(p.cost(), out.len(), "cost of {} values", vals.len());
    let got: Vec<u64> = match decode_one(&out).unwrap() {
        Packed::F32s(v) if F::WIDTH == 4 => v.iter().map(|f| f.to_bits() as u64).collect(),
        Packed::F64s(v) if F::WIDTH == 8 => v.iter().map(|f| f.to_bits()).collect(),
        other => panic!("wrong width: {other:?}"),
    };
    assert_eq!(got, vals.iter().map(|v| v.bits()).collect::<Vec<_>>());
    assert_eq!(out[..2], [0xF4, F::KIND | 4]);
    let below = plan_below(vals, p.cost() + 1).expect("under cost + 1");
    assert_eq!(enc(vals, &below), out);
    assert!(plan_below(vals, p.cost()).is_none());
    out
}

/// `docs/SPEC.md` §19's example: 15 values of ±[0.5, 1) and 0.001, cut after the exponent
/// (r = 23, left parts 0x17E and 0x7E, 1-bit codes); 0.001's left part 0x75 is an exception.
pub(crate) const GOLDEN: [f32; 16] = [
    0.62476355,
    0.5883534,
    0.95811343,
    0.5094258,
    -0.94093376,
    0.001,
    -0.61009717,
    0.501147,
    0.7389899,
    -0.77162534,
    0.9252377,
    -0.73624897,
    -0.99899024,
    -0.7319121,
    -0.6521114,
    -0.8492088,
];

#[test]
fn golden_small_f32() {
    let out = round_trip(&GOLDEN);
    let p = plan(&GOLDEN);
    assert_eq!((p.right_bits(), p.dict()), (23, &[0x17E, 0x7E][..]));
    let hex = "f4 0e 10 17 02 fe 02 7e 81 f0 9f 54 9e 96 ec 46 f5 bb 69 82 09 e1 70 6f 12 03 54 2f \
               1c 2b 4b 80 71 2e bd 3d 89 45 61 dc ec d0 7a 3c d3 bd 7f 97 5e 3b c6 f0 26 bf 65 \
               59 01 05 75";
    let want: Vec<u8> = hex
        .split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect();
    assert_eq!(out, want);
    // Raw is 3 + 64 bytes.
    assert_eq!(out.len(), 59);
}

fn specials32() -> Vec<f32> {
    [
        0x7FC0_0000u32, // quiet NaN
        0x7FC0_1234,    // NaN payload
        0xFF80_0001,    // signalling NaN, sign set
        0x8000_0000,    // −0.0
        0x0000_0000,
        0x7F80_0000, // +Inf
        0xFF80_0000, // −Inf
        0x0000_0001, // smallest subnormal
        0x807F_FFFF, // largest negative subnormal
        0x3F80_0000, // 1.0
    ]
    .iter()
    .map(|&b| f32::from_bits(b))
    .collect()
}

fn specials64() -> Vec<f64> {
    [
        0x7FF8_0000_0000_0000u64,
        0x7FF8_0000_0000_BEEF,
        0xFFF0_0000_0000_0001,
        0x8000_0000_0000_0000,
        0,
        0x7FF0_0000_0000_0000,
        0xFFF0_0000_0000_0000,
        1,
        0x800F_FFFF_FFFF_FFFF,
        0x3FF0_0000_0000_0000,
    ]
    .iter()
    .map(|&b| f64::from_bits(b))
    .collect()
}

#[test]
fn f32_round_trips_by_bits() {
    for n in [1, 15, 16, 17, 100, 1000, 125_000] {
        let mesh: Vec<f32> = unit(n, n as u64).iter().map(|&v| v as f32).collect();
        round_trip(&mesh);
        let random: Vec<f32> = rand_u64s(n, 7)
            .iter()
            .map(|&b| f32::from_bits(b as u32))
            .collect();
        round_trip(&random);
        round_trip(&vec![0.1f32; n]);
        // Specials among mesh values: exceptions or dictionary entries, bit-exact either way.
        let mut mixed = mesh.clone();
        for (i, s) in specials32().into_iter().enumerate() {
            mixed[(i * 37) % n] = s;
        }
        round_trip(&mixed);
    }
    round_trip(&specials32());
    round_trip::<f32>(&[]);
}

#[test]
fn f64_round_trips_by_bits() {
    for n in [1, 15, 16, 17, 100, 1000, 125_000] {
        let mesh = unit(n, n as u64 + 99);
        round_trip(&mesh);
        let random: Vec<f64> = rand_u64s(n, 8).iter().map(|&b| f64::from_bits(b)).collect();
        round_trip(&random);
        round_trip(&vec![-0.0f64; n]);
        let mut mixed = mesh.clone();
        for (i, s) in specials64().into_iter().enumerate() {
            mixed[(i * 41) % n] = s;
        }
        round_trip(&mixed);
    }
    round_trip(&specials64());
    round_trip::<f64>(&[]);
}

/// Issue #20's mesh: `f32` uniform in [−1, 1) cut after the top exponent bits, 8 entries,
/// about 3.4 bytes a value.
#[test]
fn mesh_floats_cost_about_3_4_bytes() {
    let n = 125_000;
    let vals: Vec<f32> = unit(n, 20).iter().map(|&v| v as f32).collect();
    let p = plan(&vals);
    // Left parts: the sign and the exponent's top 5 bits, 0b01111 holding every |x| ≥ 2^−7.
    assert_eq!((p.right_bits(), p.dict()), (26, &[0x2F, 0x0F][..]));
    assert_eq!(p.cost(), 424_155);
    assert!(p.cost() * 100 < 340 * n, "{} bytes", p.cost());
    let f64s = unit(n, 21);
    let p = plan(&f64s);
    assert_eq!((p.right_bits(), p.dict().len()), (52, 8));
    assert_eq!(p.cost(), 882_697);
}

/// Values with every bit pattern: no cut pays, and the sample says so before any value
/// is costed (the bound is raw's size).
#[test]
fn random_bits_do_not_pay() {
    let vals: Vec<f32> = rand_u64s(10_000, 3)
        .iter()
        .map(|&b| f32::from_bits(b as u32))
        .collect();
    let raw = 3 + uvarint_len(10_000) + 4 * 10_000;
    assert!(plan(&vals).cost() >= raw);
    assert!(plan_below(&vals, raw).is_none());
}

fn err(bytes: &[u8]) -> (ErrorCode, Option<u64>) {
    let e = decode_one(bytes).unwrap_err();
    (e.code().clone(), e.offset())
}

fn bad(what: &'static str, at: u64) -> (ErrorCode, Option<u64>) {
    (ErrorCode::BadCodec(what), Some(at))
}

#[test]
fn hostile_bodies_are_typed_errors_at_their_byte() {
    // A valid base: 2 f32, r = 31, d = 1 (left 0), codes 0 bits, rights 1 and 1.
    let ok = [
        0xF4, 0x0E, 0x02, 0x1F, 0x01, 0x00, 0x01, 0, 0, 0x80, 0, 0, 0, 0, 0x00,
    ];
    assert!(decode_one(&ok).is_ok());
    assert_eq!(
        err(&[0xF4, 0x0E, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00]),
        bad("ALP-RD right width out of range", 3)
    );
    assert_eq!(
        err(&[0xF4, 0x0E, 0x01, 0x20, 0x01, 0x00, 0x00, 0x00]),
        bad("ALP-RD right width out of range", 3)
    );
    assert_eq!(
        err(&[0xF4, 0x0F, 0x01, 0x40, 0x01, 0x00, 0x00, 0x00]),
        bad("ALP-RD right width out of range", 3)
    );
    assert_eq!(
        err(&[0xF4, 0x0E, 0x01, 0x10, 0x00, 0x00, 0x00, 0x00]),
        bad("ALP-RD dictionary size not in 1..=8", 4)
    );
    assert_eq!(
        err(&[0xF4, 0x0E, 0x01, 0x10, 0x09, 0x00, 0x00, 0x00]),
        bad("ALP-RD dictionary size not in 1..=8", 4)
    );
    // r = 31 leaves one left bit: 2 is too wide; 1 twice is a repeat.
    assert_eq!(
        err(&[0xF4, 0x0E, 0x01, 0x1F, 0x02, 0x00, 0x02, 0, 0, 0, 0, 0]),
        bad("ALP-RD left value wider than W − r bits", 6)
    );
    assert_eq!(
        err(&[0xF4, 0x0E, 0x01, 0x1F, 0x02, 0x01, 0x01, 0, 0, 0, 0, 0]),
        bad("ALP-RD dictionary entry repeated", 6)
    );
    // d = 3 at r = 16: width 18, code 3 in value 1 (bits 34..36).
    let mut codes = vec![0xF4, 0x0E, 0x02, 0x10, 0x03, 0x00, 0x01, 0x02];
    codes.extend_from_slice(&[0, 0, 0, 0, 0x0C, 0x00]);
    assert_eq!(
        err(&codes),
        bad("ALP-RD code not below the dictionary size", 10)
    );
    // Non-zero padding after 2 × 31 bits.
    let mut pad = ok;
    pad[13] = 0x80;
    assert_eq!(
        err(&pad),
        bad("non-zero padding bits after a packed body", 14)
    );
    // Exceptions: count above n, position ≥ n, a repeated position, a wide left value.
    let with = |tail: &[u8]| {
        let mut b = ok[..14].to_vec();
        b.extend_from_slice(tail);
        b
    };
    assert_eq!(
        err(&with(&[0x03, 0, 0, 0, 0, 0, 0])),
        bad("ALP-RD exception count above n", 14)
    );
    // Two exceptions in two bytes: a truncated body.
    assert_eq!(
        err(&with(&[0x02, 0, 0])),
        (
            ErrorCode::LengthOverrun {
                len: 4,
                remaining: 2
            },
            Some(14)
        )
    );
    assert_eq!(
        err(&with(&[0x01, 0x02, 0x01])),
        bad("exception index out of range", 15)
    );
    assert_eq!(
        err(&with(&[0x02, 0x01, 0x01, 0x00, 0x01])),
        bad("exception index out of range", 17)
    );
    assert_eq!(
        err(&with(&[0x01, 0x00, 0x02])),
        bad("ALP-RD left value wider than W − r bits", 16)
    );
    assert!(decode_one(&with(&[0x02, 0x00, 0x01, 0x01, 0x01])).is_ok());
    // Truncated anywhere: an Eof error, never a panic.
    let mut f = unit(40, 5);
    f[7] = 1e-30;
    f[30] = -1e-30;
    let good = round_trip(&f);
    // The list ends in an exception's left part, not in a zero count.
    assert_ne!(good.last(), Some(&0));
    for cut in 0..good.len() {
        let e = decode_one(&good[..cut]).unwrap_err();
        assert!(e.is_eof(), "prefix {cut}: {e}");
    }
    // A count of 2^40 with a few bytes of body: refused before allocating.
    let huge = [
        0xF4, 0x0F, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x01, 0x01, 0x00, 0,
    ];
    assert!(matches!(err(&huge).0, ErrorCode::LengthOverrun { .. }));
    // The output budget is charged before the values exist.
    let mut budget = 8;
    let e = crate::codec::decode(&ok, 0, &mut budget).unwrap_err();
    assert!(matches!(e.code(), ErrorCode::OutputLimit { .. }), "{e}");
}

/// The inspector names ALP-RD bodies by their kind byte, and their element types.
#[test]
fn inspector_names_alp_rd() {
    use crate::inspect::Codec;
    assert_eq!(Codec::from_tag(0xF4, Some(KIND_F32)), Some(Codec::AlpRd));
    assert_eq!(Codec::from_tag(0xF4, Some(KIND_F64)), Some(Codec::AlpRd));
    assert_eq!(Codec::from_tag(0xF4, Some(0x0B)), Some(Codec::Alp));
    assert_eq!(Codec::AlpRd.to_string(), "ALP-RD");
    assert_eq!(crate::inspect::kind_name(KIND_F32), "f32");
    assert_eq!(crate::inspect::kind_name(KIND_F64), "f64");
}
