//! Per-field numbers and strings in a session (`docs/SPEC.md` §15.2, §15.3): records whose
//! numbers come from the input (extremes, NaN payloads, −0.0, decimal walks, steady steps) and
//! whose string shares a prefix with the field's last one (URLs with new ids, non-ASCII text
//! cut near a character), with renewals, failing messages and subset reads between them. Every record that encodes decodes to itself bit
//! for bit, a fresh decoder reads the whole stream as `Value`s, and the stream with one byte
//! flipped never panics.

use qdf_core::{DecoderSession, EncoderSession, Features, Options, Value};
use serde::ser::{Error as _, SerializeStruct};
use serde::{Deserialize, Serialize};

/// The record the input describes.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Rec {
    pub a: u64,
    pub b: i64,
    pub c: f64,
    pub d: f32,
    pub e: Option<i64>,
    pub f: u128,
    pub g: String,
}

/// The fields a subset reader wants (the others are ignored, their slots still follow).
#[derive(Deserialize)]
struct Few {
    c: f64,
    e: Option<i64>,
}

/// `Rec`, failing after its first four fields when `fail`.
struct Out<'a>(&'a Rec, bool);

impl Serialize for Out<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mut st = s.serialize_struct("Rec", 7)?;
        st.serialize_field("g", &r.g)?;
        st.serialize_field("a", &r.a)?;
        st.serialize_field("b", &r.b)?;
        st.serialize_field("c", &r.c)?;
        st.serialize_field("d", &r.d)?;
        if self.1 {
            return Err(S::Error::custom("refused half-way"));
        }
        st.serialize_field("e", &r.e)?;
        st.serialize_field("f", &r.f)?;
        st.end()
    }
}

fn same(x: &Rec, y: &Rec) -> bool {
    x.a == y.a
        && x.b == y.b
        && x.c.to_bits() == y.c.to_bits()
        && x.d.to_bits() == y.d.to_bits()
        && x.e == y.e
        && x.f == y.f
        && x.g == y.g
}

/// The next record from 4 input bytes: `op` (bits 0–1: send, subset, fail, renew), then
/// one byte per number family choosing between a step of the previous value and extremes.
fn next(prev: &Rec, k: u8, x: u8, y: u8) -> Rec {
    let step = (x as i64 & 15) - 8;
    let a = match k % 4 {
        0 => prev.a.wrapping_add(1000),
        1 => prev.a.wrapping_add(step as u64),
        2 => u64::MAX - (x as u64),
        _ => (x as u64) << (y % 64),
    };
    let b = match (k >> 2) % 4 {
        0 => prev.b.wrapping_add(step * 7),
        1 => i64::MIN + x as i64,
        2 => i64::MAX - y as i64,
        _ => -(x as i64),
    };
    let c = match (k >> 4) % 4 {
        0 => ((prev.c * 10.0).round() + step as f64) / 10.0,
        1 => f64::from_bits(0x7ff8_0000_0000_0000 | (x as u64) << 8 | y as u64),
        2 => -0.0,
        _ => f64::from_bits(prev.c.to_bits() ^ ((y as u64) << (x % 60))),
    };
    let d = match (k >> 6) % 4 {
        0 => ((prev.d * 100.0).round() + step as f32) / 100.0,
        1 => f32::from_bits(0xffc0_0000 | y as u32),
        2 => f32::MIN_POSITIVE,
        _ => prev.d,
    };
    Rec {
        a,
        b,
        c,
        d,
        e: (y & 1 == 0).then_some(prev.e.unwrap_or(0).wrapping_add(step)),
        f: if y & 2 == 0 {
            prev.f.wrapping_add(x as u128)
        } else {
            u128::MAX - y as u128
        },
        g: match (x ^ y) % 5 {
            0 => format!("https://x.io/e/{x:02x}{y:02x}"),
            1 => format!("café/{}é{}", x % 7, y % 3),
            2 => {
                prev.g
                    .chars()
                    .take(prev.g.chars().count().min(24))
                    .collect::<String>()
                    + "日"
            }
            3 => prev.g.clone(),
            _ => String::new(),
        },
    }
}

/// The fuzz target.
pub fn num_session(data: &[u8]) {
    let opts = Options::balanced()
        .features(Features::BALANCED | Features::STR_STATE)
        .max_shapes(4);
    let mut enc = EncoderSession::new(opts);
    let mut dec = DecoderSession::new(opts);
    let mut wire = Vec::new();
    let mut prev = Rec {
        a: 1_700_000_000,
        b: 0,
        c: 20.5,
        d: 1.25,
        e: None,
        f: 0,
        g: String::new(),
    };
    for chunk in data.chunks_exact(4) {
        let (op, k, x, y) = (chunk[0], chunk[1], chunk[2], chunk[3]);
        if op % 4 == 3 {
            enc.renew();
            continue;
        }
        let rec = next(&prev, k, x, y);
        let start = wire.len();
        let fail = op % 4 == 2;
        let r = enc.encode_frame(&Out(&rec, fail), &mut wire);
        if fail {
            assert!(
                r.is_err() && wire.len() == start,
                "a failing record wrote bytes"
            );
            continue;
        }
        r.expect("a record encodes");
        if op % 4 == 1 {
            let (few, n) = dec
                .decode_frame::<Few>(&wire[start..])
                .expect("decodes")
                .expect("a whole frame");
            assert_eq!(n, wire.len() - start);
            assert!(few.c.to_bits() == rec.c.to_bits() && few.e == rec.e);
        } else {
            let (back, n) = dec
                .decode_frame::<Rec>(&wire[start..])
                .expect("decodes")
                .expect("a whole frame");
            assert_eq!(n, wire.len() - start);
            assert!(same(&back, &rec), "{back:?} != {rec:?}");
        }
        prev = rec;
    }
    let mut fresh = DecoderSession::new(opts);
    let mut rest = wire.as_slice();
    while let Some((_, n)) = fresh.decode_frame::<Value>(rest).expect("decodes") {
        rest = &rest[n..];
    }
    if let Some(&b) = data.first()
        && !wire.is_empty()
    {
        let i = (b as usize * 7919) % wire.len();
        wire[i] ^= b | 1;
        let mut dec = DecoderSession::new(opts);
        let mut rest = wire.as_slice();
        while let Ok(Some((_, n))) = dec.decode_frame::<Value>(rest) {
            rest = &rest[n..];
        }
    }
}
