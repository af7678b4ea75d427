use proptest::prelude::*;

use super::*;
use crate::wire::form::Form;
use crate::wire::varint::write_uvarint;

/// The plain token of `v`, as the serializer writes it.
fn plain(v: NumVal) -> Vec<u8> {
    let f = match v {
        NumVal::Int(i) if i < 0 => Form::i64(i as i64),
        NumVal::Int(i) => Form::u64(i as u64),
        NumVal::F32(b) => Form::f32(f32::from_bits(b)),
        NumVal::F64(b) => Form::f64(f64::from_bits(b)),
    };
    f.buf[..f.len].to_vec()
}

/// Encodes `vals` into slot 0 of a fresh encoder, decodes them back with a fresh decoder,
/// checks every value and the slots after each, and returns the bytes per value.
fn round_trip(vals: &[NumVal]) -> Vec<Vec<u8>> {
    let mut enc = NumSlots::default();
    let mut dec = NumSlots::default();
    let mut wire = Vec::new();
    for &v in vals {
        let mut out = vec![0xAA];
        out.extend_from_slice(&plain(v));
        enc.encode(&mut out, 1, 0);
        let bytes = out[1..].to_vec();
        assert!(bytes.len() <= plain(v).len(), "{v:?}: {bytes:02x?}");
        let got = if is_predicted(bytes[0]) {
            let (got, used) = dec.decode(0, bytes[0], &bytes[1..]).expect("decodes");
            assert_eq!(used + 1, bytes.len(), "{v:?}: {bytes:02x?}");
            got
        } else {
            assert_eq!(bytes, plain(v));
            let got = plain_num(&bytes).expect("a plain number");
            dec.observe(0, got);
            got
        };
        assert_eq!(got, v, "{bytes:02x?}");
        assert_eq!(enc.slots, dec.slots);
        wire.push(bytes);
    }
    wire
}

fn f64s(v: &[f64]) -> Vec<NumVal> {
    v.iter().map(|f| NumVal::F64(f.to_bits())).collect()
}

#[test]
fn plain_num_reads_every_form() {
    for v in [
        0i128,
        127,
        128,
        255,
        256,
        65536,
        u32::MAX as i128 + 1,
        u64::MAX as i128,
        -1,
        -8,
        -9,
        -129,
        -32769,
        i64::MIN as i128,
    ] {
        assert_eq!(plain_num(&plain(NumVal::Int(v))), Some(NumVal::Int(v)));
    }
    assert_eq!(
        plain_num(&[tags::F32, 0, 0, 0xC0, 0x3F]),
        Some(NumVal::F32(0x3FC0_0000))
    );
    assert_eq!(plain_num(&[tags::U16, 1]), None, "cut");
    assert_eq!(plain_num(&[tags::NIL]), None);
    assert_eq!(plain_num(&[]), None);
}

#[test]
fn steady_integers_become_one_byte() {
    let ts: Vec<NumVal> = (0..5)
        .map(|i| NumVal::Int(1_700_000_000 + 10 * i))
        .collect();
    let wire = round_trip(&ts);
    assert_eq!(
        wire[0],
        plain(ts[0]),
        "the first value has nothing to predict from"
    );
    assert_eq!(
        wire[1],
        [tags::NUM_DELTA, 40],
        "delta 10: zigzag 20, mode bit 0"
    );
    assert_eq!(wire[2], [tags::NUM_SAME], "the step repeats");
    assert_eq!(wire[4], [tags::NUM_SAME]);
    // A jitter of 1 on a step of 1000: delta-of-delta (zigzag 2, mode bit 1).
    let jit = [0i128, 1000, 2000, 3001]
        .map(|x| NumVal::Int(1_700_000_000_000 + x))
        .to_vec();
    assert_eq!(round_trip(&jit)[3], [tags::NUM_DELTA, 5]);
}

#[test]
fn small_integers_stay_plain() {
    let wire = round_trip(&[NumVal::Int(5), NumVal::Int(5), NumVal::Int(7)]);
    assert_eq!(
        wire,
        [vec![5], vec![5], vec![7]],
        "ties keep the plain token"
    );
}

#[test]
fn integer_extremes_never_wrap() {
    let vals = [
        NumVal::Int(i64::MIN as i128),
        NumVal::Int(u64::MAX as i128),
        NumVal::Int(i64::MIN as i128),
        NumVal::Int(u64::MAX as i128 - 1),
        NumVal::Int(u64::MAX as i128),
        NumVal::Int(-1),
        NumVal::Int(i64::MAX as i128),
    ];
    let wire = round_trip(&vals);
    assert_eq!(wire[1], plain(vals[1]), "a step beyond i64 is plain");
    assert_eq!(
        wire[4],
        [tags::NUM_DELTA, 4],
        "u64::MAX - 1 → u64::MAX: delta 1"
    );
}

#[test]
fn decimal_floats_step_by_their_last_digit() {
    let wire = round_trip(&f64s(&[1016.6, 1016.6, 1016.7, 1016.5, 1016.5, 4.0, 3.9]));
    assert_eq!(wire[1], [tags::NUM_SAME]);
    // 1016.7 is 10167 / 10: found at exponent 1 (step +1, zigzag 2).
    assert_eq!(wire[2], [tags::NUM_FLOAT, 1, 2]);
    // The exponent is kept: step −2 at exponent 1 (zigzag 3).
    assert_eq!(wire[3], [tags::NUM_DELTA, 3]);
    assert_eq!(wire[6], [tags::NUM_DELTA, 1], "3.9 after 4.0");
}

#[test]
fn odd_floats_survive_bit_for_bit() {
    let vals = f64s(&[
        -0.0,
        0.0,
        -0.0,
        f64::from_bits(0x7ff8_0000_0000_0001),
        f64::from_bits(0x7ff8_0000_0000_0002),
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        5e-324,
        f64::MAX,
        1.0,
    ]);
    round_trip(&vals);
    let f32s: Vec<NumVal> = [-0.0f32, 0.0, f32::from_bits(0xffc0_0001), 1.5, 1.25, 1.5]
        .iter()
        .map(|f| NumVal::F32(f.to_bits()))
        .collect();
    let wire = round_trip(&f32s);
    // 1.25 ^ 1.5 is 3 << 21: an XOR form of 3 bytes.
    assert_eq!(wire[4], [tags::NUM_FLOAT, XOR_MODE + 21, 3]);
}

#[test]
fn kinds_switch_through_plain() {
    let vals = [
        NumVal::Int(1_000_000),
        NumVal::F64(1.5f64.to_bits()),
        NumVal::F32(1.5f32.to_bits()),
        NumVal::Int(1_000_000),
        NumVal::Int(1_000_001),
    ];
    let wire = round_trip(&vals);
    for i in 1..4 {
        assert_eq!(wire[i], plain(vals[i]));
    }
}

#[test]
fn rollback_restores_every_slot() {
    let mut enc = NumSlots::default();
    let mut out = plain(NumVal::Int(1000));
    enc.encode(&mut out, 0, 3);
    let before = enc.slots.clone();
    enc.mark();
    for k in [3, 7, 3] {
        let mut out = plain(NumVal::Int(99_999));
        enc.encode(&mut out, 0, k);
    }
    enc.rollback();
    assert_eq!(enc.slots[..4], before[..]);
    assert!(enc.slots[4..].iter().all(|s| *s == Slot::default()));
    enc.clear();
    assert!(enc.slots.is_empty());
}

#[test]
fn bad_forms_are_refused() {
    let mut dec = NumSlots::default();
    let err = |r: Result<(NumVal, usize)>| r.unwrap_err().code().to_string();
    assert!(err(dec.decode(0, tags::NUM_SAME, &[])).contains("no number yet"));
    dec.observe(0, NumVal::Int(u64::MAX as i128));
    dec.observe(0, NumVal::Int(u64::MAX as i128));
    assert!(err(dec.decode(0, tags::NUM_DELTA, &[4])).contains("outside"));
    assert!(err(dec.decode(0, tags::NUM_FLOAT, &[1, 0])).contains("float form"));
    dec.observe(1, NumVal::F64(1.0f64.to_bits()));
    // XOR: an even payload, a payload shifted out, an unknown mode.
    assert!(err(dec.decode(1, tags::NUM_FLOAT, &[XOR_MODE, 2])).contains("canonical"));
    assert!(err(dec.decode(1, tags::NUM_FLOAT, &[XOR_MODE + 63, 3])).contains("canonical"));
    assert!(err(dec.decode(1, tags::NUM_FLOAT, &[16, 0])).contains("mode"));
    assert!(err(dec.decode(1, tags::NUM_FLOAT, &[])).contains("mode"));
    // A decimal step beyond 2^53.
    let big = zigzag(1 << 54);
    let mut payload = vec![0];
    write_uvarint(&mut payload, big);
    assert!(err(dec.decode(1, tags::NUM_FLOAT, &payload)).contains("2^53"));
    // A decimal step from NaN or an infinity says so, in both widths and both forms.
    for (k, v) in [
        (2, NumVal::F64(f64::NAN.to_bits())),
        (3, NumVal::F64(f64::NEG_INFINITY.to_bits())),
        (4, NumVal::F32(f32::INFINITY.to_bits())),
    ] {
        dec.observe(k, v);
        for (tag, payload) in [(tags::NUM_DELTA, &[2][..]), (tags::NUM_FLOAT, &[1, 2][..])] {
            assert_eq!(
                err(dec.decode(k, tag, payload)),
                "malformed codec body: a decimal step from a NaN or infinite number"
            );
        }
    }
    // Cut varints.
    assert!(dec.decode(1, tags::NUM_DELTA, &[0x80]).is_err());
    assert!(dec.decode(1, tags::NUM_FLOAT, &[XOR_MODE, 0x81]).is_err());
}

fn num_val() -> impl Strategy<Value = NumVal> {
    prop_oneof![
        any::<i64>().prop_map(|v| NumVal::Int(v as i128)),
        any::<u64>().prop_map(|v| NumVal::Int(v as i128)),
        (0i128..1000).prop_map(NumVal::Int),
        any::<u64>().prop_map(NumVal::F64),
        any::<u32>().prop_map(NumVal::F32),
        (-100_000i64..100_000, 0u32..4)
            .prop_map(|(n, e)| NumVal::F64((n as f64 / 10f64.powi(e as i32)).to_bits())),
        (-1000i32..1000).prop_map(|n| NumVal::F32((n as f32 / 10.0).to_bits())),
        Just(NumVal::F64((-0.0f64).to_bits())),
        Just(NumVal::F64(0x7ff8_0000_0000_0001)),
    ]
}

proptest! {
    #[test]
    fn random_streams_mirror(vals in proptest::collection::vec(num_val(), 1..40)) {
        round_trip(&vals);
    }

    #[test]
    fn walks_mirror(start in any::<i64>(), steps in proptest::collection::vec(-3i64..4, 1..30)) {
        let mut v = start as i128;
        let vals: Vec<NumVal> = steps
            .iter()
            .map(|s| {
                v = (v + *s as i128 * 1000).clamp(i64::MIN as i128, u64::MAX as i128);
                NumVal::Int(v)
            })
            .collect();
        round_trip(&vals);
    }
}
