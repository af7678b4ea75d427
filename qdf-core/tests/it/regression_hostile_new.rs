//! Hostile and edge-case input for today's additions: the entropy stage (`FE`) in the
//! Compression tier, renewal (`FF`) under tiny caps, and the inspect walker agreeing with the
//! decoder on damaged bytes.

use qdf_core::{DecoderSession, EncoderSession, Options, Value};
use serde::{Deserialize, Serialize};

fn xorshift(mut s: u64) -> impl FnMut() -> u64 {
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

fn round_trip<T>(v: &T) -> Vec<u8>
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let bytes = qdf_core::to_vec_with(v, Options::compression()).unwrap();
    let back: T = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(&back, v);
    bytes
}

#[test]
fn compression_round_trips_edge_values() {
    let long = "x".repeat(300);
    round_trip(&vec![long; 1000]);
    let all: String = (0u32..0x800).filter_map(char::from_u32).collect();
    round_trip(&vec![all.clone(); 40]);
    round_trip(
        &(0..256)
            .map(|i| all.chars().take(i).collect::<String>())
            .collect::<Vec<_>>(),
    );
    let mut r = xorshift(7);
    round_trip(&(0..5000).map(|_| r()).collect::<Vec<u64>>());
    round_trip(&(0..5000).map(|_| r() as i64).collect::<Vec<i64>>());
    round_trip(&(0..5000).map(|i| r() % (i + 1)).collect::<Vec<u64>>());
    let bytes: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    round_trip(&serde_bytes::ByteBuf::from(bytes));
}

#[test]
fn compression_keeps_nan_payloads_by_bits() {
    let mut r = xorshift(11);
    let f64s: Vec<u64> = (0..2000)
        .map(|i| match i % 4 {
            0 => 0x7FF8_0000_0000_0000 | (r() & 0xF_FFFF_FFFF_FFFF),
            1 => 0xFFF0_0000_0000_0001 | (r() & 0xF_FFFF),
            2 => (1.5f64 + i as f64 * 0.01).to_bits(),
            _ => (-0.0f64).to_bits(),
        })
        .collect();
    let v: Vec<f64> = f64s.iter().map(|&b| f64::from_bits(b)).collect();
    let bytes = qdf_core::to_vec_with(&v, Options::compression()).unwrap();
    let back: Vec<f64> = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(back.iter().map(|f| f.to_bits()).collect::<Vec<_>>(), f64s);
    let f32s: Vec<u32> = (0..2000)
        .map(|i| match i % 3 {
            0 => 0x7FC0_0000 | (r() as u32 & 0x3F_FFFF),
            1 => 0xFF80_0001 | (r() as u32 & 0xFF),
            _ => (i as f32 * 0.25).to_bits(),
        })
        .collect();
    let v: Vec<f32> = f32s.iter().map(|&b| f32::from_bits(b)).collect();
    let bytes = qdf_core::to_vec_with(&v, Options::compression()).unwrap();
    let back: Vec<f32> = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(back.iter().map(|f| f.to_bits()).collect::<Vec<_>>(), f32s);
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Row {
    path: String,
    host: String,
    ms: u64,
    ratio: f64,
}

fn rows(n: u64) -> Vec<Row> {
    (0..n)
        .map(|i| Row {
            path: format!(
                "GET /api/{}/{}",
                ["a", "bb", "ccc"][(i % 3) as usize],
                i % 17
            ),
            host: format!("host-{}", i % 5),
            ms: 10 + i * i % 300,
            ratio: (i % 7) as f64 * 0.125,
        })
        .collect()
}

/// Every single-byte flip and every truncation of an `FE`-bearing message: the inspect walker
/// and `from_slice::<Value>` agree (both accept or both reject), and nothing panics.
#[test]
fn inspect_and_decoder_agree_on_damaged_entropy_messages() {
    let good = qdf_core::to_vec_with(&rows(300), Options::compression()).unwrap();
    assert_eq!(good[4] & 0x04, 0x04, "the message holds an FE block");
    let opts = Options::compression();
    let check = |b: &[u8]| {
        let dec = qdf_core::from_slice::<Value>(b);
        let ins = qdf_core::inspect::message(b, &opts, &mut |_| {});
        assert_eq!(
            dec.is_ok(),
            ins.is_ok(),
            "decoder {:?} vs inspect {:?} on {} bytes",
            dec.as_ref().err(),
            ins.as_ref().err().map(|e| e.to_string()),
            b.len()
        );
    };
    for cut in 0..good.len() {
        check(&good[..cut]);
    }
    let mut b = good.clone();
    for i in 5..b.len() {
        for x in [0x01u8, 0x80, 0xFF] {
            b[i] ^= x;
            check(&b);
            b[i] ^= x;
        }
    }
}

/// Thousands of frames under caps of 8 entries / 256 bytes with renewal on: every value
/// arrives exactly, and renewals happen.
#[test]
fn renewal_under_tiny_caps_over_thousands_of_frames() {
    let opts = Options::balanced()
        .max_intern_entries(8)
        .max_intern_bytes(256)
        .max_shapes(4)
        .session_renewal(true);
    let mut enc = EncoderSession::new(opts);
    let mut dec = DecoderSession::new(opts);
    let mut wire = Vec::new();
    let all: Vec<Vec<Row>> = (0..3000u64)
        .map(|i| {
            let mut v = rows(1 + i % 20);
            for (k, r) in v.iter_mut().enumerate() {
                r.host = format!("h{}-{}", i % 97, k % 11);
            }
            v
        })
        .collect();
    for v in &all {
        enc.encode_frame(v, &mut wire).unwrap();
    }
    let renewals = wire.windows(2).filter(|w| w == &[0xFF, 0x01]).count();
    assert!(renewals > 0, "no renewal under tiny caps");
    let mut pos = 0;
    for (i, v) in all.iter().enumerate() {
        let (back, used): (Vec<Row>, usize) = dec
            .decode_frame(&wire[pos..])
            .unwrap_or_else(|e| panic!("frame {i}: {e}"))
            .expect("complete frame");
        assert_eq!(&back, v, "frame {i}");
        pos += used;
    }
    assert_eq!(pos, wire.len());
}

/// A value whose serialization fails after some strings were written.
struct Boom;
impl Serialize for Boom {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("boom"))
    }
}

#[derive(Serialize)]
struct Half<'a> {
    a: &'a str,
    b: &'a str,
    c: Boom,
}

/// A renewal the encoder decided on, then a message that fails: the next frame carries the
/// renewal with the same generation and the decoder stays in step.
#[test]
fn renewal_survives_a_failed_message() {
    let opts = Options::balanced();
    let mut enc = EncoderSession::new(opts);
    let mut dec = DecoderSession::new(opts);
    let mut wire = Vec::new();
    enc.encode_frame(&["alpha-long", "beta-long"], &mut wire)
        .unwrap();
    enc.renew();
    let before = wire.len();
    let half = Half {
        a: "gamma-long",
        b: "alpha-long",
        c: Boom,
    };
    assert!(enc.encode_frame(&half, &mut wire).is_err());
    assert_eq!(wire.len(), before, "a failed frame leaves `out` as it was");
    enc.encode_frame(&["gamma-long", "alpha-long"], &mut wire)
        .unwrap();
    enc.renew();
    enc.encode_frame(&["alpha-long", "delta-long"], &mut wire)
        .unwrap();
    assert_eq!(enc.renewals(), 2);
    let mut pos = 0;
    for want in [
        ["alpha-long", "beta-long"],
        ["gamma-long", "alpha-long"],
        ["alpha-long", "delta-long"],
    ] {
        let (got, used): ([String; 2], usize) = dec.decode_frame(&wire[pos..]).unwrap().unwrap();
        assert_eq!(got, want.map(String::from));
        pos += used;
    }
    assert_eq!(pos, wire.len());
}

/// `FF` in a stream without flag 01 (Speed) is an unassigned tag, whatever follows.
#[test]
fn renewal_in_a_speed_stream_is_a_bad_tag() {
    let wire = [0x51, 0x44, 0x46, 0x01, 0x00, 0x03, 0xFF, 0x01, 0xC0];
    let mut dec = DecoderSession::new(Options::speed());
    let e = dec.decode_frame::<Value>(&wire).unwrap_err();
    assert!(
        matches!(e.code(), qdf_core::ErrorCode::BadTag { found: 0xFF, .. }),
        "{e}"
    );
    let mut dec = DecoderSession::new(Options::balanced());
    assert!(dec.decode_frame::<Value>(&wire).is_err());
}

fn decode_stream(b: &[u8], opts: Options) -> Result<Vec<Value>, qdf_core::Error> {
    let mut dec = DecoderSession::new(opts);
    let (mut pos, mut out) = (0, Vec::new());
    while let Some((v, used)) = dec.decode_frame::<Value>(&b[pos..])? {
        out.push(v);
        pos += used;
    }
    dec.check_end(&b[pos..])?;
    Ok(out)
}

/// Damaged Dense streams with renewals: the inspect walker and a `DecoderSession` agree.
#[test]
fn inspect_and_session_agree_on_damaged_renewing_streams() {
    let opts = Options::balanced()
        .max_intern_entries(6)
        .session_renewal(true);
    let mut enc = EncoderSession::new(opts);
    let mut wire = Vec::new();
    for i in 0..40u64 {
        enc.encode_frame(&rows(1 + i % 4), &mut wire).unwrap();
    }
    assert!(enc.renewals() > 0);
    let check = |b: &[u8]| {
        let dec = decode_stream(b, opts);
        let ins = qdf_core::inspect::stream(b, &opts, 1 << 20, &mut |_| {});
        assert_eq!(
            dec.is_ok(),
            ins.is_ok(),
            "session {:?} vs inspect {:?}",
            dec.as_ref().err().map(|e| e.to_string()),
            ins.as_ref().err().map(|e| e.to_string()),
        );
    };
    assert_eq!(decode_stream(&wire, opts).unwrap().len(), 40);
    for cut in 0..wire.len() {
        check(&wire[..cut]);
    }
    let mut b = wire.clone();
    for i in 5..b.len() {
        for x in [0x01u8, 0x02, 0x80] {
            b[i] ^= x;
            check(&b);
            b[i] ^= x;
        }
    }
}

/// An `FE` block claiming 2^35 decoded bytes is an output-limit error, not an allocation.
#[test]
fn entropy_block_with_huge_n_is_refused() {
    let mut msg = vec![0x51, 0x44, 0x46, 0x01, 0x07, 0xFE];
    msg.extend([0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x05, 0x02, 0xAA, 0xAA]);
    let e = qdf_core::from_slice::<Value>(&msg).unwrap_err();
    assert!(
        qdf_core::inspect::message(&msg, &Options::balanced(), &mut |_| {}).is_err(),
        "{e}"
    );
    // Constant mode: n copies of one byte, n huge.
    let mut msg = vec![0x51, 0x44, 0x46, 0x01, 0x07, 0xFE];
    msg.extend([0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00, 0xE4]);
    assert!(qdf_core::from_slice::<Value>(&msg).is_err());
}

/// A renewing frame that fails its checksum breaks the session: the next, valid frame is
/// refused rather than decoded against a state that may or may not have been renewed.
#[test]
fn a_renewing_frame_failing_its_checksum_breaks_the_session() {
    let opts = Options::balanced();
    let mut enc = EncoderSession::new(opts).with_checksum(true);
    let mut wire = Vec::new();
    enc.encode_frame(&["attic-long"], &mut wire).unwrap();
    let second = wire.len();
    enc.renew();
    enc.encode_frame(&["attic-long"], &mut wire).unwrap();
    let third = wire.len();
    enc.encode_frame(&["attic-long"], &mut wire).unwrap();
    assert_eq!(&wire[second + 1..second + 3], &[0xFF, 0x01]);
    wire[third - 1] ^= 0x40; // the renewing frame's CRC
    let mut dec = DecoderSession::new(opts);
    let (v, used): (Vec<String>, usize) = dec.decode_frame(&wire).unwrap().unwrap();
    assert_eq!((v, used), (vec!["attic-long".to_string()], second));
    let e = dec
        .decode_frame::<Vec<String>>(&wire[second..])
        .unwrap_err();
    assert!(
        matches!(e.code(), qdf_core::ErrorCode::ChecksumMismatch { .. }),
        "{e}"
    );
    assert!(dec.decode_frame::<Vec<String>>(&wire[third..]).is_err());
}
