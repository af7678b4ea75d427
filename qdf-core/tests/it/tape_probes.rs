//! Probes of the columnar capture tape (`ser/capture.rs`), the column plan's by-address name
//! match, the word-at-a-time packers and the str8 decode fast path: hostile `Serialize`
//! impls, session rollback, exact round trips against row mode, and hostile bytes; then
//! columnar subset decodes in sessions and the Dense predictor checkpoint (a failed message
//! of more than 128 ring pushes, pair-table undo) with hostile references.

use qdf_core::{DecoderSession, EncoderSession, Options, Value, from_slice, to_vec_with};
use serde::ser::{Error as _, SerializeSeq, SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

/// An element whose `Serialize` fails inside it: the error is swallowed by the enclosing
/// sequence impl (a legal, if odd, `Serialize`).
struct Bad;
impl Serialize for Bad {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Bad", 2)?;
        st.serialize_field("a", &1u8)?;
        st.serialize_field("s", "a string written before the error")?;
        Err(S::Error::custom("bad"))
    }
}

/// A sequence that swallows its second element's error.
struct Swallow;
impl Serialize for Swallow {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(3))?;
        seq.serialize_element(&1u8)?;
        let _ = seq.serialize_element(&Bad);
        seq.serialize_element(&2u8)?;
        seq.end()
    }
}

/// A row whose `Serialize` swallows the error of its second field.
struct RowSwallowsField(u32);
impl Serialize for RowSwallowsField {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("R", 3)?;
        st.serialize_field("id", &self.0)?;
        let _ = st.serialize_field("bad", &Bad);
        st.serialize_field("s", "tail")?;
        st.end()
    }
}

#[derive(Serialize)]
struct RowSw {
    id: u32,
    x: Swallow,
}

/// Every tier decodes to what Speed (no capture) wrote.
fn same_as_speed<T: Serialize + ?Sized>(v: &T) {
    let speed: Value = from_slice(&to_vec_with(v, Options::speed()).unwrap()).unwrap();
    for opts in [Options::balanced(), Options::compression()] {
        let got: Value = from_slice(&to_vec_with(v, opts).unwrap()).unwrap();
        assert_eq!(got, speed);
    }
}

/// Every tier refuses, with the ignored item's error, a value whose `Serialize` ignored an
/// item's error: the capture refuses it, and the real serializer, writing it directly,
/// refuses it too (the item's bytes may be partial; issue #16 item 3,
/// `tests/it/encoder_safety.rs`).
fn refused_everywhere<T: Serialize + ?Sized>(v: &T) {
    for opts in [
        Options::speed(),
        Options::balanced(),
        Options::compression(),
    ] {
        let e = to_vec_with(v, opts).unwrap_err();
        assert_eq!(e.code(), &qdf_core::ErrorCode::Message("bad".into()));
    }
}

/// Regression: a compound item whose error the `Serialize` impl ignored left an `Open` with
/// no `End` on the tape, and its replay looped forever (writing without bound).
#[test]
fn swallowed_item_error_is_not_replayed() {
    for n in [1usize, 15, 16, 17, 40] {
        let rows: Vec<RowSw> = (0..n as u32).map(|i| RowSw { id: i, x: Swallow }).collect();
        refused_everywhere(&rows);
        let rows: Vec<RowSwallowsField> = (0..n as u32).map(RowSwallowsField).collect();
        refused_everywhere(&rows);
    }
}

// ---------- shapes that differ per element, failures at every depth, sessions ----------

/// Where an element's `Serialize` fails.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fail {
    No,
    /// After its first two fields (strings written).
    Top,
    /// Inside a nested map, after a key and before its value.
    InMapValue,
    /// Inside the second element of a nested `Vec<struct>`.
    InNestedRow,
    /// Inside an `Option<Option<_>>` payload.
    InSome,
}

/// Strings of every short-copy class and past it, multibyte characters straddling every
/// class boundary.
fn text(i: usize) -> String {
    const LENS: [usize; 22] = [
        0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 256, 70_000,
    ];
    let len = LENS[i % LENS.len()];
    let wide = ['é', '€', '😀'][i % 3];
    let mut s = String::new();
    while s.len() + wide.len_utf8() <= len {
        // A wide character every few bytes, the rest ASCII: boundaries land everywhere.
        if (s.len() + i).is_multiple_of(5) {
            s.push(wide);
        } else {
            s.push((b'a' + (s.len() % 26) as u8) as char);
        }
    }
    while s.len() < len {
        s.push('z');
    }
    s
}

#[derive(Serialize)]
struct Inner {
    k: u8,
    v: String,
}

#[derive(Serialize)]
enum Kind {
    Unit,
    New(String),
    Tup(u8, String),
    Rec { a: i64, b: Option<String> },
}

/// An element with a hand-written `Serialize` whose shape depends on its index.
struct Shapey {
    i: usize,
    salt: usize,
    fail: Fail,
}

struct FailingMap<'a>(&'a Shapey);
impl Serialize for FailingMap<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("a", &text(self.0.i))?;
        m.serialize_key("b")?;
        if self.0.fail == Fail::InMapValue {
            return Err(S::Error::custom("fail in map"));
        }
        m.serialize_value(&(self.0.i as u64 * 3))?;
        m.end()
    }
}

struct NestedRows<'a>(&'a Shapey);
impl Serialize for NestedRows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = 17 + self.0.i % 3;
        let mut seq = s.serialize_seq(Some(n))?;
        for j in 0..n {
            if j == 1 && self.0.fail == Fail::InNestedRow {
                // A half-written struct, then the error.
                struct Half;
                impl Serialize for Half {
                    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                        let mut st = s.serialize_struct("Inner", 2)?;
                        st.serialize_field("k", &9u8)?;
                        Err(S::Error::custom("fail in nested row"))
                    }
                }
                seq.serialize_element(&Half)?;
            }
            seq.serialize_element(&Inner {
                k: j as u8,
                v: text(j + self.0.salt),
            })?;
        }
        seq.end()
    }
}

struct SomeFail<'a>(&'a Shapey);
impl Serialize for SomeFail<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.fail == Fail::InSome {
            return Err(S::Error::custom("fail in some"));
        }
        match self.0.i % 3 {
            0 => s.serialize_none(),
            1 => s.serialize_some(&None::<u8>),
            _ => s.serialize_some(&Some(self.0.i as u8)),
        }
    }
}

impl Serialize for Shapey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let i = self.i;
        let t = text(i + self.salt);
        let mut st = s.serialize_struct("Shapey", 6)?;
        st.serialize_field("id", &(i as u64))?;
        match i % 9 {
            // The same field as a string, as bytes, as a number.
            1 => st.serialize_field("name", serde_bytes::Bytes::new(t.as_bytes()))?,
            2 => st.serialize_field("name", &(i as i32 - 5))?,
            _ => st.serialize_field("name", &t)?,
        }
        if self.fail == Fail::Top {
            return Err(S::Error::custom("fail at top"));
        }
        match i % 5 {
            0 if self.fail != Fail::InSome => st.skip_field("opt")?,
            _ => st.serialize_field("opt", &SomeFail(self))?,
        }
        if i.is_multiple_of(4) || matches!(self.fail, Fail::InMapValue) {
            st.serialize_field("map", &FailingMap(self))?;
        }
        if i % 6 == 1 || matches!(self.fail, Fail::InNestedRow) {
            st.serialize_field("rows", &NestedRows(self))?;
        }
        let kind = match i % 4 {
            0 => Kind::Unit,
            1 => Kind::New(t.clone()),
            2 => Kind::Tup(i as u8, t.clone()),
            _ => Kind::Rec {
                a: -(i as i64),
                b: i.is_multiple_of(2).then(|| t.clone()),
            },
        };
        st.serialize_field("kind", &kind)?;
        // A leaked name: equal by value to the derived one, a different address.
        let id2: &'static str = Box::leak(String::from("id2").into_boxed_str());
        st.serialize_field(id2, &(i as u8))?;
        st.end()
    }
}

fn batch(n: usize, salt: usize, fail_at: Option<(usize, Fail)>) -> Vec<Shapey> {
    (0..n)
        .map(|i| Shapey {
            i,
            salt,
            fail: match fail_at {
                Some((k, f)) if k == i => f,
                _ => Fail::No,
            },
        })
        .collect()
}

fn as_value<T: Serialize + ?Sized>(v: &T) -> Value {
    from_slice(&to_vec_with(v, Options::speed()).unwrap()).unwrap()
}

/// Every shape mix decodes, in every tier, to the Value of Speed's direct encoding.
#[test]
fn per_element_shapes_round_trip_exactly() {
    for n in [1, 15, 16, 17, 33] {
        for salt in [0, 5, 11] {
            same_as_speed(&batch(n, salt, None));
        }
    }
}

/// A failure anywhere in element k fails the encode in every tier (the capture's error is
/// not taken for the real one), for k at the batch's first, threshold and last elements.
#[test]
fn failures_anywhere_fail_the_encode() {
    for n in [15, 16, 17] {
        for k in [0, 1, 14, 15, n - 1].into_iter().filter(|&k| k < n) {
            for f in [Fail::Top, Fail::InMapValue, Fail::InNestedRow, Fail::InSome] {
                for opts in [
                    Options::speed(),
                    Options::balanced(),
                    Options::compression(),
                ] {
                    let b = batch(n, 0, Some((k, f)));
                    assert!(to_vec_with(&b, opts).is_err(), "{n} {k} {f:?}");
                }
            }
        }
    }
}

/// In a session, a message that fails in element k leaves buffer and session as before:
/// the next message encodes to the bytes of a session where the failed one never happened,
/// and everything decodes to the values written.
#[test]
fn failed_message_leaves_the_session_untouched() {
    for opts in [Options::balanced(), Options::compression()] {
        for n in [16, 17] {
            for k in [0, 7, n - 1] {
                for f in [Fail::Top, Fail::InMapValue, Fail::InNestedRow, Fail::InSome] {
                    let m1 = batch(n, 0, None);
                    let bad = batch(n, 3, Some((k, f)));
                    let m3 = batch(n, 3, None);
                    let (mut a, mut fresh) = (EncoderSession::new(opts), EncoderSession::new(opts));
                    let (mut out, mut out_fresh) = (Vec::new(), Vec::new());
                    a.encode_frame(&m1, &mut out).unwrap();
                    fresh.encode_frame(&m1, &mut out_fresh).unwrap();
                    let before = out.clone();
                    assert!(a.encode_frame(&bad, &mut out).is_err());
                    assert_eq!(out, before, "{n} {k} {f:?}");
                    a.encode_frame(&m3, &mut out).unwrap();
                    fresh.encode_frame(&m3, &mut out_fresh).unwrap();
                    a.encode_frame(&m1, &mut out).unwrap();
                    fresh.encode_frame(&m1, &mut out_fresh).unwrap();
                    assert_eq!(out, out_fresh, "{n} {k} {f:?}");
                    let mut dec = DecoderSession::new(opts);
                    let mut pos = 0;
                    for want in [as_value(&m1), as_value(&m3), as_value(&m1)] {
                        let (v, used): (Value, usize) =
                            dec.decode_frame(&out[pos..]).unwrap().unwrap();
                        assert_eq!(v, want);
                        pos += used;
                    }
                    assert_eq!(pos, out.len());
                }
            }
        }
    }
}

const EF: u8 = 0xEF;
const F7: u8 = 0xF7;

/// The first body byte (after the 5-byte header).
fn tag(b: &[u8]) -> u8 {
    b[5]
}

/// The hand-written mixes above do become columnar containers from 16 rows on (so the
/// capture, not only row mode, is what the round trips test).
#[test]
fn per_element_shapes_are_columnar() {
    for n in [16, 17, 33] {
        for opts in [Options::balanced(), Options::compression()] {
            let b = to_vec_with(&batch(n, 0, None), opts).unwrap();
            assert!(matches!(tag(&b), EF | F7), "{n}: {:02x}", tag(&b));
        }
    }
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Plain {
    id: u32,
    name: String,
    score: f64,
}

/// `Plain` with every field name a fresh leaked `&'static str`: equal by value to the
/// derived names, never by address.
struct Leaked<'a>(&'a Plain);
impl Serialize for Leaked<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let leak = |n: &str| -> &'static str { Box::leak(n.to_owned().into_boxed_str()) };
        let mut st = s.serialize_struct(leak("Plain"), 3)?;
        st.serialize_field(leak("id"), &self.0.id)?;
        st.serialize_field(leak("name"), &self.0.name)?;
        st.serialize_field(leak("score"), &self.0.score)?;
        st.end()
    }
}

/// The by-address name match falls back to comparing values: names that are equal but
/// not the same pointer make the same columns, byte for byte.
#[test]
fn names_equal_by_value_make_the_same_columns() {
    for n in [16, 17, 40] {
        let rows: Vec<Plain> = (0..n)
            .map(|i| Plain {
                id: i,
                name: text(i as usize),
                score: i as f64 / 3.0,
            })
            .collect();
        let leaked: Vec<Leaked> = rows.iter().map(Leaked).collect();
        // Alternate derived and leaked rows too.
        struct Mixed<'a>(&'a [Plain]);
        impl Serialize for Mixed<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut seq = s.serialize_seq(Some(self.0.len()))?;
                for (i, r) in self.0.iter().enumerate() {
                    if i % 2 == 0 {
                        seq.serialize_element(r)?;
                    } else {
                        seq.serialize_element(&Leaked(r))?;
                    }
                }
                seq.end()
            }
        }
        for opts in [Options::balanced(), Options::compression()] {
            let want = to_vec_with(&rows, opts).unwrap();
            assert_eq!(tag(&want), EF);
            assert_eq!(to_vec_with(&leaked, opts).unwrap(), want);
            assert_eq!(to_vec_with(&Mixed(&rows), opts).unwrap(), want);
            assert_eq!(from_slice::<Vec<Plain>>(&want).unwrap(), rows);
        }
    }
}

/// A row naming one field twice (the same `&'static str`, so equal by address): no column
/// order fits, the batch gives up, and the rows decode as Speed wrote them.
#[test]
fn duplicate_names_in_a_row_give_up() {
    struct Dup(u32);
    impl Serialize for Dup {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            const A: &str = "a";
            let mut st = s.serialize_struct("Dup", 3)?;
            st.serialize_field(A, &self.0)?;
            st.serialize_field("b", &text(self.0 as usize))?;
            if self.0 >= 5 {
                st.serialize_field(A, &(self.0 + 1))?;
            }
            st.end()
        }
    }
    for n in [16, 17, 30] {
        let rows: Vec<Dup> = (0..n).map(Dup).collect();
        same_as_speed(&rows);
        for opts in [Options::balanced(), Options::compression()] {
            let b = to_vec_with(&rows, opts).unwrap();
            assert!(!matches!(tag(&b), EF | F7));
        }
    }
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
enum Ev2 {
    A,
    B(u16),
    C(String, i8),
    D { x: Option<Option<String>> },
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Sub {
    k: u8,
    v: String,
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Full {
    id: u64,
    s: String,
    oo: Option<Option<u32>>,
    oos: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    maybe: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    subs: Vec<Sub>,
    e: Ev2,
    #[serde(with = "serde_bytes")]
    raw: Vec<u8>,
    big: i128,
    f: f32,
}

fn fulls(n: usize, salt: usize) -> Vec<Full> {
    (0..n)
        .map(|i| {
            let t = text(i * 7 + salt);
            Full {
                id: (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 64),
                s: t.clone(),
                oo: match i % 3 {
                    0 => None,
                    1 => Some(None),
                    _ => Some(Some(i as u32)),
                },
                oos: match i % 4 {
                    0 => None,
                    1 => Some(None),
                    2 => Some(Some(String::new())),
                    _ => Some(Some(t.clone())),
                },
                maybe: (i % 3 == 0).then(|| text(i + 1)),
                subs: (0..(i % 5) * 5)
                    .map(|j| Sub {
                        k: j as u8,
                        v: text(j + i),
                    })
                    .collect(),
                e: match i % 4 {
                    0 => Ev2::A,
                    1 => Ev2::B(i as u16),
                    2 => Ev2::C(t.clone(), -(i as i8)),
                    _ => Ev2::D {
                        x: [None, Some(None), Some(Some(t.clone()))][i % 3].clone(),
                    },
                },
                raw: t.as_bytes().to_vec(),
                big: if i % 2 == 0 {
                    i128::MIN + i as i128
                } else {
                    i as i128
                },
                f: if i % 5 == 0 { f32::NAN } else { i as f32 * 0.5 },
            }
        })
        .collect()
}

/// `Full` with its float bits, since NaN != NaN.
fn bits(v: &[Full]) -> Vec<(String, u32)> {
    v.iter()
        .map(|x| (format!("{x:?}"), x.f.to_bits()))
        .collect()
}

/// Every serde kind in columns and residuals (Option<Option<_>>, skipped fields, nested
/// `Vec<struct>`, enums, byte strings, i128, NaN), typed round trip exact in every tier and
/// inside a session.
#[test]
fn every_kind_round_trips_exactly() {
    for n in [1, 15, 16, 17, 50] {
        let rows = fulls(n, n);
        for opts in [
            Options::speed(),
            Options::balanced(),
            Options::compression(),
        ] {
            let b = to_vec_with(&rows, opts).unwrap();
            let back: Vec<Full> = from_slice(&b).unwrap();
            assert_eq!(bits(&back), bits(&rows), "{n}");
        }
        for opts in [Options::balanced(), Options::compression()] {
            let mut enc = EncoderSession::new(opts);
            let mut out = Vec::new();
            for salt in 0..3 {
                enc.encode_frame(&fulls(n, salt), &mut out).unwrap();
            }
            let mut dec = DecoderSession::new(opts);
            let mut pos = 0;
            for salt in 0..3 {
                let (v, used): (Vec<Full>, usize) = dec.decode_frame(&out[pos..]).unwrap().unwrap();
                assert_eq!(bits(&v), bits(&fulls(n, salt)));
                pos += used;
            }
        }
    }
}

/// String columns at every short-copy boundary, multibyte characters straddling them,
/// beyond 64 bytes and 64 KiB, empty: exact.
#[test]
fn string_columns_at_every_length_class() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct S {
        a: String,
        b: String,
    }
    for n in [16, 17, 23, 64] {
        for shift in 0..3 {
            let rows: Vec<S> = (0..n)
                .map(|i| S {
                    a: text(i + shift),
                    b: text(i * 5 + shift).chars().rev().collect(),
                })
                .collect();
            for opts in [Options::balanced(), Options::compression()] {
                let b = to_vec_with(&rows, opts).unwrap();
                assert_eq!(tag(&b), EF);
                assert_eq!(from_slice::<Vec<S>>(&b).unwrap(), rows);
            }
        }
    }
}

/// A one-string-column row, for the alphabet (FB) column probes.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Id {
    id: String,
}

/// 64 symbols (base64url's set, in ASCII order of classes): the first `a` of them make an
/// alphabet of `a` symbols.
fn id_symbols() -> Vec<u8> {
    (b'0'..=b'9')
        .chain(b'a'..=b'z')
        .chain(b'A'..=b'Z')
        .chain([b'-', b'_'])
        .collect()
}

/// Alphabet-packable id columns for every code width (alphabets of 2..=64 symbols), value
/// lengths around every multiple of the per-word chunk, fixed and varying lengths.
#[test]
fn alphabet_columns_every_width_and_tail() {
    let syms = id_symbols();
    let mut alpha = 0;
    for a in [2usize, 3, 4, 5, 8, 9, 16, 17, 32, 33, 64] {
        for len in [
            1usize, 7, 9, 10, 11, 12, 13, 16, 20, 21, 22, 31, 32, 33, 63, 64, 65,
        ] {
            for varying in [false, true] {
                let rows: Vec<Id> = (0..40usize)
                    .map(|i| {
                        let l = if varying {
                            1 + (len + i) % (len + 3)
                        } else {
                            len
                        };
                        let id = (0..l)
                            .map(|j| syms[(i * 31 + j * 7 + j * j) % a] as char)
                            .collect::<String>();
                        Id { id }
                    })
                    .collect();
                for opts in [Options::balanced(), Options::compression()] {
                    let b = to_vec_with(&rows, opts).unwrap();
                    // EF M 00 01 (name "id") kind, then the column's codec tag.
                    alpha += usize::from(b[13] == 0xFB);
                    let back: Vec<Id> = from_slice(&b).unwrap();
                    assert_eq!(back, rows, "alphabet {a} len {len} varying {varying}");
                }
            }
        }
    }
    assert!(alpha > 100, "only {alpha} columns were alphabet-packed");
}

// ---------- the str8 decode fast path ----------

const STR8: u8 = 0xCD;

/// `header ‖ tag ‖ [len] ‖ body` of a string of `len` bytes in the smallest form (Speed).
fn plain_string(len: usize) -> Vec<u8> {
    let s: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
    to_vec_with(&s, Options::speed()).unwrap()
}

/// Decodes `b` as a `String` (the fast path), a borrowed `&str`, a `Value` and a struct
/// field value: all agree (on the value or on the error code and offset).
fn all_ways(b: &[u8]) -> Result<String, (String, Option<u64>)> {
    #[derive(Deserialize)]
    struct W(String);
    let err = |e: qdf_core::Error| (format!("{:?}", e.code()), e.offset());
    let owned = from_slice::<String>(b).map_err(err);
    let borrowed = from_slice::<&str>(b).map(str::to_owned).map_err(err);
    let newtype = from_slice::<W>(b).map(|w| w.0).map_err(err);
    let value = from_slice::<Value>(b).map_err(err).map(|v| match v {
        Value::Str(ref s) => s.to_string(),
        other => panic!("not a string: {other:?}"),
    });
    assert_eq!(owned, borrowed);
    assert_eq!(owned, newtype);
    assert_eq!(owned, value);
    owned
}

/// Invalid UTF-8 at every byte of str8 strings of 32..=255 bytes (and fixstr, str16 around
/// them) is refused at its offset by every path, never a `String` holding it.
#[test]
fn str8_invalid_utf8_everywhere() {
    for len in (0..=40).chain(250..=260) {
        let good = plain_string(len);
        let head = good.len() - len;
        assert_eq!(all_ways(&good).unwrap().len(), len);
        if (32..=255).contains(&len) {
            assert_eq!(good[5], STR8);
            assert_eq!(head, 7);
        }
        for at in 0..len {
            for bad in [0xFFu8, 0x80, 0xC3, 0xED] {
                let mut b = good.clone();
                b[head + at] = bad;
                // A lead byte at the end, or 0xC3 followed by ASCII: never valid.
                let (code, off) = all_ways(&b).unwrap_err();
                assert_eq!(code, "InvalidUtf8", "len {len} at {at}");
                assert_eq!(off, Some((head + at) as u64), "len {len} at {at}");
            }
        }
    }
}

/// A str8 for a string of fewer than 32 bytes is non-minimal and refused by every path
/// (the fast path must not take it), as is a truncated str8 of every length.
#[test]
fn str8_non_minimal_and_truncated() {
    for len in 0..32usize {
        let mut b = plain_string(0)[..5].to_vec();
        b.extend([STR8, len as u8]);
        b.extend(std::iter::repeat_n(b'x', len));
        let (code, _) = all_ways(&b).unwrap_err();
        assert!(code.contains("NonMinimal"), "len {len}: {code}");
    }
    for len in [32usize, 33, 64, 200, 255] {
        let good = plain_string(len);
        for cut in 5..good.len() {
            assert!(all_ways(&good[..cut]).is_err(), "len {len} cut {cut}");
        }
    }
}

/// The output budget is charged the string's length on the fast path exactly as on the
/// others: a budget of the length is enough, one less is refused.
#[test]
fn str8_budget_at_the_boundary() {
    for len in [0usize, 1, 31, 32, 33, 100, 255, 256, 300] {
        let b = plain_string(len);
        let at = |budget: u64| {
            let o = Options::speed().max_output(budget);
            let owned = qdf_core::from_slice_with::<String>(&b, o).is_ok();
            let value = qdf_core::from_slice_with::<Value>(&b, o).is_ok();
            assert_eq!(owned, value, "len {len} budget {budget}");
            owned
        };
        assert!(at(len as u64), "len {len}");
        assert!(len == 0 || !at(len as u64 - 1), "len {len}");
    }
}

/// Dense bodies with inline (not interned) str8 values: the fast path tells the Dense state
/// of each plain string, so later references resolve the same.
#[test]
fn inline_str8_in_dense_sessions() {
    #[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
    struct M {
        a: String,
        b: Vec<String>,
        c: Option<String>,
    }
    let frames: Vec<M> = (0..8)
        .map(|f| M {
            a: "q".repeat(32 + f * 30),
            b: (0..20)
                .map(|i| format!("{}{}", "s".repeat(28 + (i * 3 + f) % 40), i % 4))
                .collect(),
            c: (f % 2 == 0).then(|| "c".repeat(255)),
        })
        .collect();
    for opts in [
        Options::balanced().min_intern(300),
        Options::balanced().max_intern_entries(3),
        Options::compression().min_intern(40),
        Options::balanced(),
    ] {
        let mut enc = EncoderSession::new(opts);
        let mut out = Vec::new();
        for f in &frames {
            enc.encode_frame(f, &mut out).unwrap();
        }
        let mut dec = DecoderSession::new(opts);
        let mut pos = 0;
        for f in &frames {
            let (v, used): (M, usize) = dec.decode_frame(&out[pos..]).unwrap().unwrap();
            assert_eq!(&v, f);
            pos += used;
        }
        // The same stream as Values.
        let mut dec = DecoderSession::new(opts);
        let mut pos = 0;
        for f in &frames {
            let (v, used): (Value, usize) = dec.decode_frame(&out[pos..]).unwrap().unwrap();
            assert_eq!(v, as_value(f));
            pos += used;
        }
    }
}

/// Every truncation and many single-byte mutations of columnar encodings (alphabet, string,
/// residual columns) decode or fail cleanly: no panic, and a decode that succeeds yields
/// valid values (a typed decode and a `Value` decode agree on success or failure of bytes).
#[test]
fn hostile_bytes_of_columnar_encodings() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Id {
        id: String,
        n: u16,
    }
    let ids: Vec<Id> = (0..19)
        .map(|i| Id {
            id: format!("{:x}", 0xABCDEF_u64.wrapping_mul(i + 3)),
            n: i as u16,
        })
        .collect();
    let plains: Vec<Plain> = (0..17)
        .map(|i| Plain {
            id: i,
            name: text(i as usize % 20),
            score: -(i as f64),
        })
        .collect();
    let small: Vec<Full> = fulls(16, 1)
        .into_iter()
        .map(|mut f| {
            f.s.truncate(f.s.char_indices().nth(40).map_or(f.s.len(), |(i, _)| i));
            f.raw.truncate(8);
            f.subs.truncate(2);
            f.oos = None;
            f.maybe = None;
            f.e = Ev2::B(3);
            f
        })
        .collect();
    for opts in [Options::balanced(), Options::compression()] {
        let encs = [
            to_vec_with(&ids, opts).unwrap(),
            to_vec_with(&plains, opts).unwrap(),
            to_vec_with(&small, opts).unwrap(),
        ];
        for (k, good) in encs.iter().enumerate() {
            assert!(matches!(tag(good), EF | F7));
            let typed = |b: &[u8]| match k {
                0 => from_slice::<Vec<Id>>(b).map(drop),
                1 => from_slice::<Vec<Plain>>(b).map(drop),
                _ => from_slice::<Vec<Full>>(b).map(drop),
            };
            typed(good).unwrap();
            for cut in 0..good.len() {
                assert!(typed(&good[..cut]).is_err(), "{k} cut {cut}");
                assert!(from_slice::<Value>(&good[..cut]).is_err(), "{k} cut {cut}");
            }
            for at in 5..good.len() {
                for x in [0x01u8, 0x80, 0xFF, 0x20] {
                    let mut b = good.clone();
                    b[at] ^= x;
                    let _ = typed(&b);
                    let _ = from_slice::<Value>(&b);
                }
            }
        }
    }
}

// ---------- maps out of order, lying lengths, depth at the limit ----------

/// A map field whose `Serialize` calls the `SerializeMap` methods in the given order
/// (`k` key, `v` value, `e` entry), ignoring errors when `swallow` is set.
struct OddMap {
    calls: &'static str,
    swallow: bool,
}
impl Serialize for OddMap {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        for (i, c) in self.calls.chars().enumerate() {
            let key = format!("key{i}");
            let r = match c {
                'k' => m.serialize_key(&key),
                'v' => m.serialize_value(&text(i)),
                _ => m.serialize_entry(&key, &(i as u8)),
            };
            if !self.swallow {
                r?;
            }
        }
        m.end()
    }
}

#[derive(Serialize)]
struct WithMap {
    id: u32,
    m: OddMap,
}

/// Maps whose keys and values do not alternate, inside columnar rows: every tier ends as
/// Speed does (the same error, or the same value), at the first row, the 16th, the last.
#[test]
fn misordered_maps_in_rows_match_speed() {
    for calls in [
        "kv", "e", "kve", "ekv", "k", "v", "kk", "vv", "kvv", "ekk", "kkv", "",
    ] {
        for swallow in [false, true] {
            for odd_at in [0usize, 15, 16] {
                let rows: Vec<WithMap> = (0..17)
                    .map(|i| WithMap {
                        id: i as u32,
                        m: OddMap {
                            calls: if i == odd_at { calls } else { "kve" },
                            swallow,
                        },
                    })
                    .collect();
                let speed = to_vec_with(&rows, Options::speed());
                for opts in [Options::balanced(), Options::compression()] {
                    let got = to_vec_with(&rows, opts);
                    match &speed {
                        Ok(b) => {
                            let want: Value = from_slice(b).unwrap();
                            let got: Value = from_slice(&got.unwrap()).unwrap();
                            assert_eq!(got, want, "{calls} {swallow} {odd_at}");
                        }
                        Err(e) => {
                            let g = got.expect_err(calls);
                            assert_eq!(g.code(), e.code(), "{calls} {swallow}");
                        }
                    }
                }
            }
        }
    }
}

/// A sequence of rows that announces a wrong length (none, too few, too many, absurd):
/// the same bytes as the truthful one, since the container carries its own count.
#[test]
fn lying_row_counts_write_the_truthful_bytes() {
    struct Lying<'a>(&'a [Plain], Option<usize>);
    impl Serialize for Lying<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(self.1)?;
            for r in self.0 {
                seq.serialize_element(r)?;
            }
            seq.end()
        }
    }
    for n in [15usize, 16, 17, 100] {
        let rows: Vec<Plain> = (0..n as u32)
            .map(|i| Plain {
                id: i,
                name: text(i as usize),
                score: 0.5,
            })
            .collect();
        for opts in [
            Options::speed(),
            Options::balanced(),
            Options::compression(),
        ] {
            let want = to_vec_with(&rows, opts).unwrap();
            for hint in [
                None,
                Some(0),
                Some(1),
                Some(n - 1),
                Some(n + 1),
                Some(u32::MAX as usize),
            ] {
                let got = to_vec_with(&Lying(&rows, hint), opts).unwrap();
                assert_eq!(got, want, "{n} {hint:?}");
            }
        }
    }
}

/// A value nested `d` levels deep in a column encodes in Balanced exactly when it does in
/// Speed (the capture counts depth like the real serializer), at every limit around it.
#[test]
fn depth_limit_in_columns_matches_speed() {
    #[derive(Serialize)]
    struct Deep {
        id: u8,
        v: Value,
    }
    fn nest(d: usize) -> Value {
        let mut v = Value::Str("leaf".into());
        for i in 0..d {
            v = match i % 3 {
                0 => Value::Array(vec![v]),
                1 => Value::Map(vec![(Value::Str("k".into()), v)]),
                _ => Value::Array(vec![Value::U64(1), v]),
            };
        }
        v
    }
    for d in 0..8 {
        for limit in 1..10u32 {
            let rows: Vec<Deep> = (0..16)
                .map(|i| Deep {
                    id: i,
                    v: nest(if i == 9 { d } else { 0 }),
                })
                .collect();
            let speed = to_vec_with(&rows, Options::speed().max_depth(limit));
            for opts in [Options::balanced(), Options::compression()] {
                let got = to_vec_with(&rows, opts.max_depth(limit));
                assert_eq!(got.is_ok(), speed.is_ok(), "depth {d} limit {limit}");
                if let (Ok(g), Ok(s)) = (got, &speed) {
                    let (g, s): (Value, Value) = (from_slice(&g).unwrap(), from_slice(s).unwrap());
                    assert_eq!(g, s);
                }
            }
        }
    }
}

// ---------- subset decodes of columnar batches inside a session ----------

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Rich {
    id: u32,
    /// Unique per row and frame: a per-value column of interned definitions.
    uniq: String,
    /// Repeats: dictionary or interned references.
    tag: String,
    /// Hex: alphabet-packed.
    hex: String,
    /// Residual: strings interned inside the rows of a hybrid container.
    kind: Ev2,
    sub: Option<Sub>,
    score: f64,
}

fn riches(frame: usize, n: usize) -> Vec<Rich> {
    (0..n)
        .map(|i| Rich {
            id: (frame * 1000 + i) as u32,
            uniq: format!("unique-value-{frame}-{i}-{}", "u".repeat(i % 9)),
            tag: ["alpha-tag", "beta-tag", "gamma-tag"][(i + frame) % 3].to_owned(),
            hex: format!(
                "{:012x}",
                (i as u64 + frame as u64).wrapping_mul(0x9E37_79B9)
            ),
            kind: match (i + frame) % 3 {
                0 => Ev2::C(format!("residual-{}", i % 4), 1),
                1 => Ev2::D {
                    x: Some(Some(format!("nested-{frame}-{i}"))),
                },
                _ => Ev2::A,
            },
            sub: (i % 2 == 0).then(|| Sub {
                k: i as u8,
                v: format!("sub-value-{}", (i + frame) % 5),
            }),
            score: i as f64 + 0.25,
        })
        .collect()
}

#[derive(Deserialize, PartialEq, Debug)]
struct OnlyId {
    id: u32,
}

#[derive(Deserialize, PartialEq, Debug)]
struct IdScore {
    score: f64,
    id: u32,
}

#[derive(Deserialize, PartialEq, Debug)]
struct OnlyTag {
    tag: String,
    sub: Option<Sub>,
}

/// Frames decoded as structs naming fewer fields (every skipped column, residual or not,
/// still drives the Dense state), then full decodes of later frames that reference what the
/// skipped columns defined: exact.
#[test]
fn subset_decodes_in_a_session_keep_the_state() {
    // Per frame: 0 full, 1 only id, 2 id+score, 3 tag+sub, 4 Value.
    let plans: [&[u8]; 4] = [
        &[1, 1, 0, 0, 0],
        &[2, 3, 1, 4, 0],
        &[1, 2, 3, 1, 0],
        &[4, 1, 1, 1, 1],
    ];
    for opts in [Options::balanced(), Options::compression()] {
        for n in [16usize, 17, 40] {
            for plan in plans {
                let frames: Vec<Vec<Rich>> = (0..8).map(|f| riches(f % 3, n)).collect();
                assert_eq!(tag(&to_vec_with(&frames[0], opts).unwrap()), F7);
                let mut enc = EncoderSession::new(opts);
                let mut out = Vec::new();
                for f in &frames {
                    enc.encode_frame(f, &mut out).unwrap();
                }
                let mut dec = DecoderSession::new(opts);
                let mut pos = 0;
                for (k, f) in frames.iter().enumerate() {
                    let how = plan.get(k).copied().unwrap_or(0);
                    let buf = &out[pos..];
                    let used = match how {
                        1 => {
                            let (v, u): (Vec<OnlyId>, usize) =
                                dec.decode_frame(buf).unwrap().unwrap();
                            let want: Vec<OnlyId> = f.iter().map(|r| OnlyId { id: r.id }).collect();
                            assert_eq!(v, want);
                            u
                        }
                        2 => {
                            let (v, u): (Vec<IdScore>, usize) =
                                dec.decode_frame(buf).unwrap().unwrap();
                            let want: Vec<IdScore> = f
                                .iter()
                                .map(|r| IdScore {
                                    score: r.score,
                                    id: r.id,
                                })
                                .collect();
                            assert_eq!(v, want);
                            u
                        }
                        3 => {
                            let (v, u): (Vec<OnlyTag>, usize) =
                                dec.decode_frame(buf).unwrap().unwrap();
                            let want: Vec<OnlyTag> = f
                                .iter()
                                .map(|r| OnlyTag {
                                    tag: r.tag.clone(),
                                    sub: r.sub.clone(),
                                })
                                .collect();
                            assert_eq!(v, want);
                            u
                        }
                        4 => {
                            let (v, u): (Value, usize) = dec.decode_frame(buf).unwrap().unwrap();
                            assert_eq!(v, as_value(f));
                            u
                        }
                        _ => {
                            let (v, u): (Vec<Rich>, usize) =
                                dec.decode_frame(buf).unwrap().unwrap();
                            assert_eq!(&v, f, "frame {k} plan {plan:?}");
                            u
                        }
                    };
                    pos += used;
                }
                assert_eq!(pos, out.len());
            }
        }
    }
}

/// Alphabet columns of every code width, truncated and mutated at every byte: the code
/// unpacker fails cleanly, and whatever a typed decode accepts a `Value` decode accepts.
#[test]
fn hostile_alphabet_columns_every_width() {
    let syms = id_symbols();
    let mut packed = 0;
    for a in [2usize, 4, 8, 16, 32, 64] {
        let rows: Vec<Id> = (0..17usize)
            .map(|i| Id {
                id: (0..(1 + i % 13))
                    .map(|j| syms[(i * 31 + j * 7) % a] as char)
                    .collect(),
            })
            .collect();
        for opts in [Options::balanced(), Options::compression()] {
            let good = to_vec_with(&rows, opts).unwrap();
            // EF M 00 01 (name "id") kind, then the column's codec tag.
            if good[13] != 0xFB {
                continue;
            }
            packed += 1;
            for cut in 0..good.len() {
                assert!(
                    from_slice::<Vec<Id>>(&good[..cut]).is_err(),
                    "{a} cut {cut}"
                );
            }
            for at in 13..good.len() {
                for x in [0x01u8, 0x02, 0x10, 0x80, 0xFF] {
                    let mut b = good.clone();
                    b[at] ^= x;
                    if from_slice::<Vec<Id>>(&b).is_ok() {
                        assert!(from_slice::<Value>(&b).is_ok(), "{a} at {at} ^{x:02x}");
                    }
                }
            }
        }
    }
    assert!(packed >= 8, "only {packed} encodings were alphabet-packed");
}

// ---------- Dense predictor checkpoint: a failed message of more than 128 pushes ----------

/// A message that serializes `strs` (interning or referencing each: one ring push each) and
/// then fails, inside a sequence or at row `fail_row` of a columnar batch.
struct PushThenFail<'a> {
    strs: &'a [String],
    columnar: bool,
}
impl Serialize for PushThenFail<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.columnar {
            struct R<'a>(&'a str, bool);
            impl Serialize for R<'_> {
                fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    if self.1 {
                        return Err(S::Error::custom("row fails"));
                    }
                    let mut st = s.serialize_struct("R", 1)?;
                    st.serialize_field("v", self.0)?;
                    st.end()
                }
            }
            let mut seq = s.serialize_seq(Some(self.strs.len() + 1))?;
            for x in self.strs {
                seq.serialize_element(&R(x, false))?;
            }
            seq.serialize_element(&R("", true))?;
            return seq.end();
        }
        let mut seq = s.serialize_seq(None)?;
        for x in self.strs {
            seq.serialize_element(x)?;
        }
        Err(S::Error::custom("after the pushes"))
    }
}

/// The 400 strings of the stream (ids past 127, where an MTF rank is shorter than an id).
fn pool() -> Vec<String> {
    (0..400).map(|i| format!("pooled-{i:03}")).collect()
}

/// The first `k` strings of message `m`, in an order that makes repeat (`E8`), MTF (`E9`)
/// and pair (`EA`) references all occur: runs of `base, base, base - 13, base + 1` with the
/// bases walking the pool.
fn message(m: usize, k: usize) -> Vec<String> {
    let p = pool();
    (0..k)
        .map(|j| {
            let base = (j / 4 * 13 + m * 5) % 400;
            let i = match j % 4 {
                0 | 1 => base,
                2 => (base + 400 - 13) % 400,
                _ => (base + 1) % 400,
            };
            p[i].clone()
        })
        .collect()
}

/// After a failed message that pushed 0..=600 times onto the MTF ring (from a ring filled to
/// any head), the next messages encode to the bytes of a session where the failed one never
/// happened, and decode exactly.
#[test]
fn failed_message_past_the_ring_restores_it() {
    for opts in [
        Options::balanced(),
        Options::compression(),
        Options::balanced().min_intern(0),
    ] {
        for warm in [0usize, 60, 128, 200, 300] {
            for pushes in [127usize, 128, 129, 130, 255, 256, 257, 600] {
                for columnar in [false, true] {
                    let m1 = message(1, warm);
                    let bad = {
                        // Pushes of other ids over the ring window that the next message
                        // reads (it re-references message 1), and the pairs of a later one.
                        let mut b = message(2, pushes);
                        // Fresh definitions among the references, rolled back with them.
                        b.extend((0..pushes / 3).map(|i| format!("rolled-back-{i}")));
                        b
                    };
                    // Message 1 backwards first: its last ids (past 127) at small ranks of
                    // the window the failed message overwrote, so `E9` references.
                    let later = [
                        m1.iter().rev().cloned().chain(message(1, 300)).collect(),
                        message(2, 300),
                        message(2, 300),
                        message(4, 40),
                    ];
                    let (mut a, mut fresh) = (EncoderSession::new(opts), EncoderSession::new(opts));
                    let (mut out, mut out_fresh) = (Vec::new(), Vec::new());
                    a.encode_frame(&m1, &mut out).unwrap();
                    fresh.encode_frame(&m1, &mut out_fresh).unwrap();
                    let before = out.clone();
                    let stats = a.stats();
                    let failing = PushThenFail {
                        strs: &bad,
                        columnar,
                    };
                    assert!(a.encode_frame(&failing, &mut out).is_err());
                    assert_eq!(out, before);
                    // The tables as before (their allocations may have grown: kept for reuse).
                    let tables = |s: qdf_core::SessionStats| {
                        let t = (s.intern_entries, s.intern_bytes, s.shapes, s.col_shapes);
                        (t, s.shape_bytes)
                    };
                    assert_eq!(tables(a.stats()), tables(stats));
                    // A second failure right after the first, then the good ones.
                    assert!(a.encode_frame(&failing, &mut out).is_err());
                    for l in &later {
                        a.encode_frame(l, &mut out).unwrap();
                        fresh.encode_frame(l, &mut out_fresh).unwrap();
                    }
                    assert!(
                        out == out_fresh,
                        "warm {warm} pushes {pushes} columnar {columnar} {opts:?}"
                    );
                    let mut dec = DecoderSession::new(opts);
                    let mut pos = 0;
                    for want in std::iter::once(&m1).chain(&later) {
                        let (v, used): (Vec<String>, usize) =
                            dec.decode_frame(&out[pos..]).unwrap().unwrap();
                        assert_eq!(&v, want);
                        pos += used;
                    }
                    assert_eq!(pos, out.len());
                }
            }
        }
    }
}

/// The same through a frame limit: a message of more than 128 pushes refused as too large
/// rolls the ring back too.
#[test]
fn too_large_message_past_the_ring_restores_it() {
    for opts in [Options::balanced(), Options::compression()] {
        // Ids past 127 (where `E9` beats `E1`).
        let m1 = message(1, 400);
        let big = message(2, 400);
        // Message 1's last ids (past 127) first: `E9` ranks into the window.
        let later: Vec<String> = m1.iter().rev().cloned().chain(message(3, 300)).collect();
        let limit = {
            let mut probe = EncoderSession::new(opts);
            let mut o = Vec::new();
            probe.encode_frame(&m1, &mut o).unwrap();
            let n = o.len();
            probe.encode_frame(&later, &mut o).unwrap();
            (o.len() - n).max(n) + 16
        };
        let mut a = EncoderSession::new(opts).with_max_frame_length(limit);
        let mut fresh = EncoderSession::new(opts).with_max_frame_length(limit);
        let (mut out, mut out_fresh) = (Vec::new(), Vec::new());
        a.encode_frame(&m1, &mut out).unwrap();
        fresh.encode_frame(&m1, &mut out_fresh).unwrap();
        let before = out.len();
        let mut huge = big.clone();
        huge.extend((0..2000).map(|i| format!("padding-that-is-long-{i}")));
        let e = a.encode_frame(&huge, &mut out).unwrap_err();
        assert_eq!(out.len(), before);
        assert!(matches!(
            e.code(),
            qdf_core::ErrorCode::FrameTooLarge { .. }
        ));
        a.encode_frame(&later, &mut out).unwrap();
        fresh.encode_frame(&later, &mut out_fresh).unwrap();
        assert_eq!(out, out_fresh);
        let mut dec = DecoderSession::new(opts);
        let (v1, n1): (Vec<String>, usize) = dec.decode_frame(&out).unwrap().unwrap();
        let (v2, n2): (Vec<String>, usize) = dec.decode_frame(&out[n1..]).unwrap().unwrap();
        assert_eq!((v1, v2), (m1, later));
        assert_eq!(n1 + n2, out.len());
    }
}

/// Every byte of a later frame of a Dense stream (E1/E9/EA/E8 references to ids of earlier
/// frames and of the same body, the inline E1 decode) mutated: the session decodes or fails
/// cleanly, never panics; a typed decode that succeeds holds only pool strings or
/// definitions of the mutated frame.
#[test]
fn hostile_references_in_a_dense_stream() {
    for opts in [Options::balanced(), Options::compression()] {
        let m1 = message(1, 200);
        let m2: Vec<String> = m1.iter().rev().cloned().chain(message(3, 150)).collect();
        let mut enc = EncoderSession::new(opts);
        let mut out = Vec::new();
        enc.encode_frame(&m1, &mut out).unwrap();
        let first = out.len();
        enc.encode_frame(&m2, &mut out).unwrap();
        for at in first..out.len() {
            for x in [0x01u8, 0x02, 0x08, 0x40, 0x80, 0xFF] {
                let mut b = out.clone();
                b[at] ^= x;
                let mut dec = DecoderSession::new(opts);
                let (v, n): (Vec<String>, usize) = dec.decode_frame(&b).unwrap().unwrap();
                assert_eq!(v, m1);
                let _ = dec.decode_frame::<Vec<String>>(&b[n..]);
                let mut dec = DecoderSession::new(opts);
                let (_, n): (Value, usize) = dec.decode_frame(&b).unwrap().unwrap();
                let _ = dec.decode_frame::<Value>(&b[n..]);
            }
        }
        for cut in first..out.len() {
            let mut dec = DecoderSession::new(opts);
            let (_, n): (Vec<String>, usize) = dec.decode_frame(&out[..cut]).unwrap().unwrap();
            // A cut frame is incomplete (`None`) or an error, never a value.
            assert!(!matches!(
                dec.decode_frame::<Vec<String>>(&out[n..cut]),
                Ok(Some(_))
            ));
        }
    }
}

/// A failed message that overwrites the pair table's successors of existing ids (ids past
/// 127, where `EA` beats `E1`): the next message, repeating the pairs of message 1, gets
/// the `EA` predictions of a session where the failed one never happened.
#[test]
fn failed_message_restores_the_pair_table() {
    for opts in [Options::balanced(), Options::compression()] {
        for columnar in [false, true] {
            let p = pool();
            // Pairs `p[200 + 2i] → p[201 + 2i]`, each first id once.
            let pairs: Vec<String> = p[200..400].to_vec();
            let m1: Vec<String> = p.iter().chain(&pairs).cloned().collect();
            // The same first ids, each followed by another successor.
            let bad: Vec<String> = pairs
                .iter()
                .step_by(2)
                .flat_map(|a| [a.clone(), p[150].clone()])
                .collect();
            let (mut a, mut fresh) = (EncoderSession::new(opts), EncoderSession::new(opts));
            let (mut out, mut out_fresh) = (Vec::new(), Vec::new());
            a.encode_frame(&m1, &mut out).unwrap();
            fresh.encode_frame(&m1, &mut out_fresh).unwrap();
            let failing = PushThenFail {
                strs: &bad,
                columnar,
            };
            assert!(a.encode_frame(&failing, &mut out).is_err());
            for l in [&pairs, &bad, &m1] {
                a.encode_frame(l, &mut out).unwrap();
                fresh.encode_frame(l, &mut out_fresh).unwrap();
            }
            assert!(out == out_fresh, "columnar {columnar} {opts:?}");
            let mut dec = DecoderSession::new(opts);
            let mut pos = 0;
            for want in [&m1, &pairs, &bad, &m1] {
                let (v, used): (Vec<String>, usize) =
                    dec.decode_frame(&out[pos..]).unwrap().unwrap();
                assert_eq!(&v, want);
                pos += used;
            }
        }
    }
}
