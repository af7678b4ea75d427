//! Trying to break pre-shared dictionaries with shapes (`docs/SPEC.md` §25.1–§25.4): serde
//! shapes the golden tests do not cover, every tier and feature mix, one-shot messages and
//! sessions (renewals, failed messages, per-field state), shape caps on either side, the
//! tag walker against the decoder, hostile version 2 files and subset decodes.

use std::collections::BTreeMap;
use std::fmt::Debug;

use qdf_core::{DecoderSession, Dictionary, EncoderSession, ErrorCode, Features, Options, Value};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize, Serializer};

use crate::common::{F64b, hex, mutate, unhex, xorshift};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Row {
    id: u64,
    name: String,
    at: Point,
    w: F64b,
}

/// Same first field and count as `Point` (`["x", "y"]`), another second field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct PointZ {
    x: i32,
    z: i32,
}

/// Entries: two long strings and short ones (below the default `min_intern`); shapes:
/// `["x","y"]`, `["x","z"]` (same first name and count), `["id","name","at","w"]`,
/// `["k"]`, `["a","a"]` (a repeated name).
fn dict() -> Dictionary {
    Dictionary::from_strs(["checkout", "payment-service", "ok", "a", "GET"])
        .unwrap()
        .with_shapes([
            vec!["x", "y"],
            vec!["x", "z"],
            vec!["id", "name", "at", "w"],
            vec!["k"],
            vec!["a", "a"],
        ])
        .unwrap()
}

fn with(opts: Options, f: Features) -> Options {
    opts.features(opts.features.with(f))
}

/// Every tier, and the tiers with the features that touch shapes and strings.
fn all_opts() -> Vec<Options> {
    let b = Options::balanced();
    let c = Options::compression();
    vec![
        Options::speed(),
        b,
        c,
        with(b, Features::MAP_SHAPE),
        with(c, Features::MAP_SHAPE.with(Features::STR_STATE)),
        with(b, Features::STR_STATE),
        with(b, Features::COLUMN_INDEX),
        with(b, Features::ALL),
        b.features(b.features.without(Features::NESTED_COLUMNS)),
    ]
}

/// Encodes `v` on `d`, decodes it back (typed, equal), re-encodes the decoded value to the
/// same bytes (floats by bits), decodes it as a `Value` and checks the tag walker accepts
/// the message. Returns the message.
fn check<T>(v: &T, opts: Options, d: &Dictionary) -> Vec<u8>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let msg = qdf_core::to_vec_with_dictionary(v, opts, d).expect("encodes");
    let back: T = qdf_core::from_slice_with_dictionary(&msg, opts, d)
        .unwrap_or_else(|e| panic!("{e}: {}", hex(&msg)));
    assert_eq!(&back, v, "{}", hex(&msg));
    let again = qdf_core::to_vec_with_dictionary(&back, opts, d).unwrap();
    assert_eq!(hex(&again), hex(&msg));
    let _: Value = qdf_core::from_slice_with_dictionary(&msg, opts, d)
        .unwrap_or_else(|e| panic!("Value: {e}: {}", hex(&msg)));
    qdf_core::inspect::message_with_dictionary(&msg, &opts, Some(d), &mut |_| {})
        .unwrap_or_else(|e| panic!("inspect: {e:?}: {}", hex(&msg)));
    msg
}

fn check_all<T>(v: &T, d: &Dictionary)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    for opts in all_opts() {
        check(v, opts, d);
    }
}

/// The next frame of `buf`, decoded as the type of `_like`, and its length.
fn next_frame<T: DeserializeOwned>(_like: &T, dec: &mut DecoderSession, buf: &[u8]) -> (T, usize) {
    dec.decode_frame(buf).unwrap().expect("a whole frame")
}

/// Decodes every frame of `wire` with `dec`: exactly the values `sent`, in order, and
/// nothing after them.
fn frames_are<T: DeserializeOwned + PartialEq + Debug>(
    sent: &[T],
    dec: &mut DecoderSession,
    wire: &[u8],
) {
    let mut pos = 0;
    for v in sent {
        let (b, n) = next_frame(v, dec, &wire[pos..]);
        assert_eq!(&b, v);
        pos += n;
    }
    assert_eq!(pos, wire.len());
}

fn row(i: u64) -> Row {
    Row {
        id: i,
        name: ["checkout", "ok", "a", "zz"][i as usize % 4].into(),
        at: Point {
            x: i as i32 * 3 - 7,
            y: -(i as i32),
        },
        w: F64b(match i % 7 {
            0 => -0.0,
            3 => f64::from_bits(0x7ff8_0000_0000_0001),
            _ => i as f64 / 7.0,
        }),
    }
}

/// A dictionary shape nested in columnar `Vec<struct>` batches (16 rows and more switch to
/// columns) and in small ones, every tier and feature mix.
#[test]
fn nested_dictionary_shapes_in_columns_and_small_batches() {
    let d = dict();
    for n in [0u64, 1, 2, 3, 15, 16, 17, 40] {
        let rows: Vec<Row> = (0..n).map(row).collect();
        check_all(&rows, &d);
        let points: Vec<Point> = rows.iter().map(|r| r.at.clone()).collect();
        check_all(&points, &d);
        // Outer struct of no dictionary shape holding a column of a dictionary shape.
        let wrapped: BTreeMap<String, Vec<Point>> = [("pts".to_string(), points)].into();
        check_all(&wrapped, &d);
    }
    // The one-row message reuses shape 3 (Row) and shape 1 (Point) and refers to "ok".
    let msg = check(&row(1), Options::balanced(), &d);
    let body = hex(&msg[13..]);
    assert!(body.starts_with("ec 03 01 e1 02 ec 01"), "{body}");
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Ev {
    Move { x: i32, y: i32 },
    Jump { x: i32, z: i32 },
    Other { q: String, x: i32 },
    Unit,
}

/// Enums with struct variants whose fields match dictionary shapes, the same first field
/// with another second one, and none.
#[test]
fn enum_struct_variants_on_dictionary_shapes() {
    let d = dict();
    let evs: Vec<Ev> = (0..20)
        .map(|i| match i % 4 {
            0 => Ev::Move { x: i, y: -i },
            1 => Ev::Jump { x: i, z: 2 * i },
            2 => Ev::Other {
                q: "ok".into(),
                x: i,
            },
            _ => Ev::Unit,
        })
        .collect();
    check_all(&evs, &d);
    check_all(&evs[..3].to_vec(), &d);
    check_all(&Ev::Jump { x: 1, z: 2 }, &d);
}

/// Structs with the same first field and count as a dictionary shape but another later
/// field (`PointZ` vs shape 1 `["x","y"]`: the encoder picks shape 1, the first with that
/// count and first name), interleaved with the matching struct.
#[test]
fn same_first_field_and_count_other_later_fields() {
    let d = dict();
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Both {
        p: Point,
        z: PointZ,
    }
    for n in [1, 2, 5, 16, 20] {
        let v: Vec<Both> = (0..n)
            .map(|i| Both {
                p: Point { x: i, y: i + 1 },
                z: PointZ { x: -i, z: 7 },
            })
            .collect();
        check_all(&v, &d);
        let zs: Vec<PointZ> = v.iter().map(|b| b.z.clone()).collect();
        check_all(&zs, &d);
    }
    // PointZ alone: shape 1 picked, then an escape at "z" (or shape 2): either way it
    // decodes; both a typed target and a Value see the field "z".
    let msg = check(&PointZ { x: 1, z: 2 }, Options::balanced(), &d);
    let v: Value = qdf_core::from_slice_with_dictionary(&msg, Options::balanced(), &d).unwrap();
    assert_eq!(v.to_string(), r#"{"x": 1, "z": 2}"#);
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct SkipFirst {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    x: Option<i32>,
    y: i32,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    k: Option<String>,
}

/// `skip_serializing_if` on the first field: the announced count and first name change per
/// record, so records move between dictionary shapes and declarations.
#[test]
fn skip_serializing_if_first_fields() {
    let d = dict();
    let v: Vec<SkipFirst> = (0..24)
        .map(|i| SkipFirst {
            x: (i % 2 == 0).then_some(i),
            y: i * 10,
            k: (i % 3 == 0).then(|| "ok".to_string()),
        })
        .collect();
    check_all(&v, &d);
    for n in 1..6 {
        check_all(&v[..n].to_vec(), &d);
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Flat {
    id: u64,
    #[serde(flatten)]
    at: Point,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct FlatFirst {
    #[serde(flatten)]
    at: Point,
}

/// `#[serde(flatten)]` serializes a map of unknown length: a record of `["x","y"]` keys
/// that must not be taken for shape 1 by count.
#[test]
fn flatten_on_dictionary_shapes() {
    let d = dict();
    let v: Vec<Flat> = (0..18)
        .map(|i| Flat {
            id: i,
            at: Point { x: i as i32, y: 1 },
        })
        .collect();
    check_all(&v, &d);
    check_all(&v[..2].to_vec(), &d);
    let f: Vec<FlatFirst> = (0..18)
        .map(|i| FlatFirst {
            at: Point { x: i, y: 2 },
        })
        .collect();
    check_all(&f, &d);
    check_all(&f[..1].to_vec(), &d);
}

/// Maps under `MAP_SHAPE`: non-string keys, a string first key followed by a non-string
/// one (the count and first name of shape 1), the repeated-name shape 5 `["a","a"]`, and
/// a map with an empty-string key.
#[test]
fn maps_under_map_shape_with_odd_keys() {
    let d = dict();
    let int_keys: BTreeMap<u32, String> = [(1, "ok".to_string()), (2, "x".to_string())].into();
    check_all(&int_keys, &d);
    let mixed = Value::Map(vec![
        (Value::Str("x".into()), Value::U64(1)),
        (Value::U64(7), Value::U64(2)),
    ]);
    let dup = Value::Map(vec![
        (Value::Str("a".into()), Value::U64(1)),
        (Value::Str("a".into()), Value::U64(2)),
    ]);
    let ab = Value::Map(vec![
        (Value::Str("a".into()), Value::U64(1)),
        (Value::Str("b".into()), Value::U64(2)),
    ]);
    let bytes_key = Value::Map(vec![
        (Value::Bytes(b"x".to_vec()), Value::U64(1)),
        (Value::Str("y".into()), Value::U64(2)),
    ]);
    let empty_key = Value::Map(vec![
        (Value::Str("".into()), Value::U64(1)),
        (Value::Str("x".into()), Value::U64(2)),
    ]);
    for v in [&mixed, &dup, &ab, &bytes_key, &empty_key] {
        let arr = Value::Array(vec![v.clone(); 3]);
        let arr20 = Value::Array(vec![v.clone(); 20]);
        for opts in all_opts() {
            for v in [v, &arr, &arr20] {
                let msg = qdf_core::to_vec_with_dictionary(v, opts, &d).unwrap();
                let back: Value = qdf_core::from_slice_with_dictionary(&msg, opts, &d)
                    .unwrap_or_else(|e| panic!("{e}: {}", hex(&msg)));
                assert_eq!(&back, v, "{}", hex(&msg));
                qdf_core::inspect::message_with_dictionary(&msg, &opts, Some(&d), &mut |_| {})
                    .unwrap();
            }
        }
    }
    // Shape 5 is used for the duplicate-key map under MAP_SHAPE: `EC 05` then the values.
    let opts = with(Options::balanced(), Features::MAP_SHAPE);
    let msg = qdf_core::to_vec_with_dictionary(&dup, opts, &d).unwrap();
    assert_eq!(hex(&msg[13..]), "ec 05 01 02");
}

/// Strings shorter than `min_intern` that the dictionary holds become references (`E1
/// id`) everywhere a string goes: values, map keys, field names of declarations, variant
/// names, columns, and with per-field text state.
#[test]
fn short_dictionary_strings_everywhere() {
    let d = dict();
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
    enum Tag {
        ok,
        GET,
        a(String),
    }
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct S {
        ok: String,
        a: Tag,
        m: BTreeMap<String, String>,
    }
    let v: Vec<S> = (0..20)
        .map(|i| S {
            ok: ["ok", "a", "GET", "b", ""][i % 5].into(),
            a: [Tag::ok, Tag::GET, Tag::a("ok".into())][i % 3].clone(),
            m: [("ok".to_string(), "GET".to_string())].into(),
        })
        .collect();
    check_all(&v, &d);
    check_all(&v[..2].to_vec(), &d);
    // Plain: "ok" is `E1 02` (2 bytes, as the inline `82 6f 6b` is 3).
    let msg = check(&"ok".to_string(), Options::balanced(), &d);
    assert_eq!(hex(&msg[13..]), "e1 02");
    // "a" inline is 2 bytes (`81 61`), as long as its reference: the encoder takes the
    // reference on a tie (as for any interned string, `encode_ref`).
    let msg = check(&"a".to_string(), Options::balanced(), &d);
    assert_eq!(hex(&msg[13..]), "e1 03");
    // Bytes never match a string entry.
    let msg = check(
        &serde_bytes::ByteBuf::from(b"ok".to_vec()),
        Options::balanced(),
        &d,
    );
    assert!(!hex(&msg[13..]).contains("e1"), "{}", hex(&msg));
}

/// A `Serialize` that fails after writing some fields (of a dictionary shape's record).
struct Failing {
    after: usize,
}

impl Serialize for Failing {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeStruct};
        let mut st = s.serialize_struct("Row", 4)?;
        let fields = ["id", "name", "at", "w"];
        for (i, f) in fields.iter().enumerate() {
            if i == self.after {
                return Err(S::Error::custom("boom"));
            }
            match i {
                0 => st.serialize_field(f, &9u64)?,
                1 => st.serialize_field(f, "a fresh string to intern")?,
                2 => st.serialize_field(f, &Point { x: 5, y: 6 })?,
                _ => st.serialize_field(f, &F64b(1.5))?,
            }
        }
        st.end()
    }
}

fn session_opts() -> Vec<Options> {
    let b = Options::balanced();
    let c = Options::compression();
    vec![
        b,
        c,
        with(b, Features::NUM_STATE.with(Features::STR_STATE)),
        with(c, Features::STR_STATE.with(Features::MAP_SHAPE)),
        b.features(b.features.without(Features::NUM_STATE)),
    ]
}

/// Sessions on the dictionary: rows across frames, a renewal, failed values mid-record
/// (after 0 to 3 fields) between good ones; every good frame decodes to its value, and the
/// stream walker accepts the stream.
#[test]
fn sessions_with_renewals_and_failed_messages() {
    let d = dict();
    for opts in session_opts() {
        for framed in [true, false] {
            let mut enc = EncoderSession::new(opts).with_dictionary(d.clone());
            let mut wire = Vec::new();
            let mut ends = Vec::new();
            let mut sent = Vec::new();
            for i in 0..14u64 {
                if i == 6 || i == 11 {
                    enc.renew();
                }
                if i % 3 == 2 {
                    let before = wire.len();
                    let f = Failing {
                        after: (i as usize / 3) % 4,
                    };
                    let r = if framed {
                        enc.encode_frame(&f, &mut wire)
                    } else {
                        enc.encode_message(&f, &mut wire)
                    };
                    assert!(r.is_err());
                    assert_eq!(wire.len(), before);
                }
                let r = vec![row(i), row(i + 1)];
                if framed {
                    enc.encode_frame(&r, &mut wire).unwrap();
                } else {
                    enc.encode_message(&r, &mut wire).unwrap();
                }
                ends.push(wire.len());
                sent.push(r);
            }
            let mut dec = DecoderSession::new(opts).with_dictionary(d.clone());
            let mut pos = 0;
            for (k, r) in sent.iter().enumerate() {
                let back: Vec<Row> = if framed {
                    let (b, n) = dec.decode_frame(&wire[pos..]).unwrap().unwrap();
                    assert_eq!(pos + n, ends[k]);
                    b
                } else {
                    dec.decode_message(&wire[pos..ends[k]])
                        .unwrap_or_else(|e| panic!("{opts:?} message {k}: {e}"))
                };
                assert_eq!(&back, r, "{opts:?} frame {k}");
                pos = ends[k];
            }
            if framed {
                let s = qdf_core::inspect::stream_with_dictionary(
                    &wire,
                    &opts,
                    1 << 20,
                    Some(&d),
                    &mut |_| {},
                )
                .unwrap();
                let _ = s;
            }
        }
    }
}

/// A one-shot message whose value fails mid-record leaves nothing behind: the next
/// one-shot message is as without the failure.
#[test]
fn one_shot_failure_then_success() {
    let d = dict();
    for opts in all_opts() {
        for after in 0..4 {
            assert!(qdf_core::to_vec_with_dictionary(&Failing { after }, opts, &d).is_err());
        }
        check(&row(3), opts, &d);
    }
}

/// `max_shapes` at, below and just above the dictionary's 5 shapes, the same on both
/// sides: whatever the encoder writes decodes, one-shot and in sessions.
#[test]
fn max_shapes_around_the_dictionary_shape_count() {
    let d = dict();
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Other {
        p: u8,
        q: Point,
        r: PointZ,
    }
    let v: Vec<Other> = (0..20)
        .map(|i| Other {
            p: i,
            q: Point { x: i as i32, y: 0 },
            r: PointZ { x: 1, z: i as i32 },
        })
        .collect();
    for cap in [0, 1, 4, 5, 6, 7] {
        for base in all_opts() {
            let opts = base.max_shapes(cap);
            check(&v, opts, &d);
            check(&v[..2].to_vec(), opts, &d);
            check(&(0..20).map(row).collect::<Vec<_>>(), opts, &d);
            if !opts.features.contains(Features::DENSE) {
                continue;
            }
            let mut enc = EncoderSession::new(opts).with_dictionary(d.clone());
            let mut dec = DecoderSession::new(opts).with_dictionary(d.clone());
            let mut wire = Vec::new();
            for i in 0..4 {
                if i == 2 {
                    enc.renew();
                }
                enc.encode_frame(&v[..3], &mut wire).unwrap();
            }
            let mut pos = 0;
            for _ in 0..4 {
                let (b, n): (Vec<Other>, usize) = dec
                    .decode_frame(&wire[pos..])
                    .unwrap_or_else(|e| panic!("cap {cap} {opts:?}: {e}"))
                    .unwrap();
                assert_eq!(b, v[..3]);
                pos += n;
            }
        }
    }
}

/// Subset decodes: a target that ignores fields of a dictionary-shaped record (and of an
/// escaped one) reads the fields it has.
#[test]
fn subset_decodes() {
    let d = dict();
    #[derive(Debug, PartialEq, Deserialize)]
    struct OnlyName {
        name: String,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    struct OnlyY {
        y: i32,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    struct OnlyX {
        x: i32,
    }
    for opts in all_opts() {
        for n in [1u64, 3, 20] {
            let rows: Vec<Row> = (0..n).map(row).collect();
            let msg = qdf_core::to_vec_with_dictionary(&rows, opts, &d).unwrap();
            let names: Vec<OnlyName> = qdf_core::from_slice_with_dictionary(&msg, opts, &d)
                .unwrap_or_else(|e| panic!("{opts:?} {n}: {e}"));
            let want: Vec<OnlyName> = rows
                .iter()
                .map(|r| OnlyName {
                    name: r.name.clone(),
                })
                .collect();
            assert_eq!(names, want);
            let pts: Vec<Point> = rows.iter().map(|r| r.at.clone()).collect();
            let msg = qdf_core::to_vec_with_dictionary(&pts, opts, &d).unwrap();
            let ys: Vec<OnlyY> = qdf_core::from_slice_with_dictionary(&msg, opts, &d).unwrap();
            assert_eq!(ys, pts.iter().map(|p| OnlyY { y: p.y }).collect::<Vec<_>>());
            let zs: Vec<PointZ> = pts.iter().map(|p| PointZ { x: p.x, z: p.y }).collect();
            let msg = qdf_core::to_vec_with_dictionary(&zs, opts, &d).unwrap();
            let xs: Vec<OnlyX> = qdf_core::from_slice_with_dictionary(&msg, opts, &d).unwrap();
            assert_eq!(xs, zs.iter().map(|p| OnlyX { x: p.x }).collect::<Vec<_>>());
        }
    }
}

/// Mutated messages and streams on the dictionary: never a panic, and the tag walker gives
/// the decoder's verdict (code and offset) on every one.
#[test]
fn inspect_agrees_with_decoder_on_mutations() {
    let d = dict();
    let mut next = xorshift(0x5eed_d1c7);
    let rows: Vec<Row> = (0..20).map(row).collect();
    let evs = vec![Ev::Move { x: 1, y: 2 }, Ev::Jump { x: 1, z: 2 }, Ev::Unit];
    let mut disagreements = Vec::new();
    let caps = [
        Options::balanced().max_shapes(5),
        Options::balanced().max_shapes(1),
        with(Options::balanced(), Features::MAP_SHAPE).max_shapes(6),
        Options::balanced().max_intern_entries(3),
        Options::compression().min_intern(40),
    ];
    for opts in all_opts().into_iter().chain(caps) {
        let mut seeds = vec![
            qdf_core::to_vec_with_dictionary(&rows, opts, &d).unwrap(),
            qdf_core::to_vec_with_dictionary(&rows[..2], opts, &d).unwrap(),
            qdf_core::to_vec_with_dictionary(&evs, opts, &d).unwrap(),
        ];
        if !opts.features.contains(Features::DENSE) {
            // Speed writes no id: give it a Balanced body's header so it reads the dictionary.
            seeds.truncate(0);
        }
        for seed in &seeds {
            for _ in 0..300 {
                let mut m = seed.clone();
                // Keep the header and id, mutate the body.
                let mut body = m.split_off(13);
                body.splice(0..0, [0u8; 5]);
                mutate(&mut body, &mut next);
                m.extend_from_slice(&body[5..]);
                disagreements.extend(crate::inspect::dictionary_disagreement(&m, &opts, &d));
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "{}\n{}",
        disagreements.len(),
        disagreements[..disagreements.len().min(5)].join("\n")
    );
}

/// Hostile version 2 files: random mutations of a real file and forged counts give typed
/// errors at offsets inside the file, never a panic, and an accepted file is canonical;
/// messages encoded on any accepted file round-trip.
#[test]
fn hostile_version_2_files() {
    let base = dict().to_bytes();
    let mut next = xorshift(0xd1c7_f11e);
    for _ in 0..3000 {
        let mut f = base.clone();
        mutate(&mut f, &mut next);
        match Dictionary::from_bytes(&f) {
            Ok(d) => {
                assert_eq!(d.to_bytes(), f);
                let maps = Value::Array(
                    (1..=d.shape_count())
                        .map(|id| {
                            let mut seen = std::collections::HashSet::new();
                            Value::Map(
                                d.shape(id)
                                    .unwrap()
                                    .into_iter()
                                    .filter(|n| seen.insert(*n))
                                    .map(|n| (Value::Str(n.into()), Value::U64(1)))
                                    .collect(),
                            )
                        })
                        .collect(),
                );
                for opts in all_opts() {
                    let msg = qdf_core::to_vec_with_dictionary(&maps, opts, &d).unwrap();
                    let back: Value = qdf_core::from_slice_with_dictionary(&msg, opts, &d).unwrap();
                    assert_eq!(back, maps);
                }
            }
            Err(e) => {
                assert!(e.offset().is_some_and(|o| o <= f.len() as u64), "{e}");
            }
        }
    }
    // Forged counts: huge shape count, huge field count, huge name length.
    let cases: &[(&str, u64)] = &[
        ("51 44 46 44 02 00 ff ff ff ff 0f", 6),
        ("51 44 46 44 02 00 01 ff ff ff ff 0f", 7),
        ("51 44 46 44 02 00 01 01 ff ff ff ff 0f", 8),
        ("51 44 46 44 02 00 01 01 ff ff ff ff ff ff ff ff ff 01", 8),
    ];
    for (h, _) in cases {
        let e = Dictionary::from_bytes(&unhex(h)).unwrap_err();
        assert!(e.offset().is_some(), "{h}: {e}");
    }
    // A 4 096-shape file of one-name shapes (the cap) reads, and a message on it reuses
    // the last one (`EC 80 20` is id 4096).
    let shapes: Vec<Vec<String>> = (0..4096).map(|i| vec![format!("f{i}")]).collect();
    let big = Dictionary::from_strs(["x"])
        .unwrap()
        .with_shapes(shapes)
        .unwrap();
    assert_eq!(big.shape_count(), 4096);
    let m: BTreeMap<String, u8> = [("f4095".to_string(), 1)].into();
    let opts = with(Options::balanced(), Features::MAP_SHAPE);
    let msg = check(&m, opts, &big);
    assert_eq!(hex(&msg[13..]), "ec 80 20 01");
    // The default shape cap is full: a new shape cannot be declared, the encoder writes
    // a plain map and the decoder reads it.
    let other: BTreeMap<String, u8> = [("g".to_string(), 1), ("h".to_string(), 2)].into();
    check(&vec![other.clone(), other], opts, &big);
}

/// Training pre-loads the shapes of the samples; messages of other values of those types
/// round-trip in every tier, also as sessions.
#[test]
fn trained_dictionary_round_trips() {
    let samples: Vec<Row> = (0..30).map(row).collect();
    for train in [
        Options::balanced(),
        Options::compression(),
        with(Options::balanced(), Features::MAP_SHAPE),
    ] {
        let d = Dictionary::train(&samples, train, 2048).unwrap();
        assert!(d.shape_count() >= 2, "{d:?}");
        let rows: Vec<Row> = (100..125).map(row).collect();
        check_all(&rows, &d);
        check_all(&rows[0], &d);
    }
}

/// Declarations across a session after a dictionary shape was picked by restart: the
/// session's own shape ids (6, 7, ...) on both sides stay in step.
#[test]
fn restarts_and_own_ids_in_sessions() {
    let d = dict();
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct A {
        x: i32,
        y: i32,
        w: u8,
    }
    let opts = with(Options::balanced(), Features::MAP_SHAPE);
    let mut enc = EncoderSession::new(opts).with_dictionary(d.clone());
    let mut dec = DecoderSession::new(opts).with_dictionary(d.clone());
    let mut wire = Vec::new();
    let mut vals = Vec::new();
    for i in 0..6 {
        let v = (
            A { x: i, y: 1, w: 2 },
            Point { x: i, y: 3 },
            PointZ { x: 0, z: i },
            BTreeMap::from([("x".to_string(), i), ("y".to_string(), 1)]),
            BTreeMap::from([("k".to_string(), i)]),
        );
        enc.encode_frame(&v, &mut wire).unwrap();
        vals.push(v);
    }
    frames_are(&vals, &mut dec, &wire);
}

/// Mutated session streams on the dictionary (renewals, per-field state): the stream walker
/// and a `DecoderSession` stopping at its first error agree on the verdict, the error code
/// and the frame.
#[test]
fn stream_walker_agrees_with_session_on_mutations() {
    let d = dict();
    let mut next = xorshift(0x57ea_d1c7);
    let mut disagreements = Vec::new();
    for opts in session_opts() {
        for checksum in [false, true] {
            let mut enc = EncoderSession::new(opts)
                .with_dictionary(d.clone())
                .with_checksum(checksum);
            let mut wire = Vec::new();
            for i in 0..6u64 {
                if i == 3 {
                    enc.renew();
                }
                enc.encode_frame(&(row(i), Ev::Jump { x: 1, z: i as i32 }), &mut wire)
                    .unwrap();
            }
            for round in 0..400 {
                let mut m = wire.clone();
                if round > 0 {
                    mutate(&mut m, &mut next);
                }
                let walked = qdf_core::inspect::stream_with_dictionary(
                    &m,
                    &opts,
                    qdf_core::Limits::DEFAULT.max_frame_length,
                    Some(&d),
                    &mut |_| {},
                );
                let mut dec = DecoderSession::new(opts).with_dictionary(d.clone());
                let (mut pos, mut frames) = (0, 0u64);
                let decoded = loop {
                    match dec.decode_frame::<Value>(&m[pos..]) {
                        Ok(Some((_, used))) => {
                            pos += used;
                            frames += 1;
                        }
                        Ok(None) => break dec.check_end(&m[pos..]).map(|()| frames),
                        Err(e) => break Err(e),
                    }
                };
                let ok = match (&walked, &decoded) {
                    (Ok(s), Ok(f)) => s.frames == *f,
                    (Err(w), Err(e)) => {
                        let in_header = frames == 0 && w.error.offset().is_some_and(|o| o < 13);
                        w.error.code() == e.code()
                            && (in_header || w.frame.map(|f| f.index) == Some(frames))
                    }
                    _ => false,
                };
                if !ok {
                    disagreements.push(format!(
                        "{:?} checksum {checksum}: walker {:?} decoder {:?} {}",
                        opts.features,
                        walked.as_ref().map(|s| s.frames).map_err(|w| (
                            w.error.code().clone(),
                            w.error.offset(),
                            w.frame.map(|f| f.index)
                        )),
                        decoded.as_ref().map_err(|e| (e.code().clone(), e.offset())),
                        hex(&m)
                    ));
                }
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements, first:\n{}",
        disagreements.len(),
        disagreements[..disagreements.len().min(3)].join("\n")
    );
}

/// `max_shapes` on one side only. A decoder whose cap the dictionary's 5 shapes fill (or
/// exceed) reads every reuse of them and refuses a declaration with `SessionCap`, the tag
/// walker likewise at the same offset; an encoder whose cap they fill writes what the
/// default decoder reads.
#[test]
fn max_shapes_on_one_side() {
    let d = dict();
    let small = Options::balanced().max_shapes(2);
    // Only dictionary shapes (ids up to 5, above the cap of 2): read.
    let pts = (
        Point { x: 1, y: 2 },
        BTreeMap::from([("k".to_string(), 3)]),
        row(4),
    );
    let msg = qdf_core::to_vec_with_dictionary(&pts, Options::balanced(), &d).unwrap();
    let back: (Point, BTreeMap<String, i32>, Row) =
        qdf_core::from_slice_with_dictionary(&msg, small, &d).unwrap();
    assert_eq!(back, pts);
    // A declaration (`Ev::Other`'s fields) on the default encoder: refused by the small
    // decoder, and by the walker at the same offset.
    let other = Ev::Other {
        q: "q".into(),
        x: 1,
    };
    let msg = qdf_core::to_vec_with_dictionary(&other, Options::balanced(), &d).unwrap();
    let e = qdf_core::from_slice_with_dictionary::<Ev>(&msg, small, &d).unwrap_err();
    assert!(matches!(e.code(), ErrorCode::SessionCap { .. }), "{e}");
    let w = qdf_core::inspect::message_with_dictionary(&msg, &small, Some(&d), &mut |_| {})
        .unwrap_err();
    assert_eq!((w.error.code(), w.error.offset()), (e.code(), e.offset()));
    // The small encoder writes a plain map for it: the default decoder reads it.
    let msg = qdf_core::to_vec_with_dictionary(&other, small, &d).unwrap();
    let back: Ev = qdf_core::from_slice_with_dictionary(&msg, Options::balanced(), &d).unwrap();
    assert_eq!(back, other);
    // Same in a session, across a renewal.
    let mut enc = EncoderSession::new(small).with_dictionary(d.clone());
    let mut dec = DecoderSession::new(Options::balanced()).with_dictionary(d.clone());
    let mut wire = Vec::new();
    for i in 0..4 {
        if i == 2 {
            enc.renew();
        }
        enc.encode_frame(&(other.clone(), row(i)), &mut wire)
            .unwrap();
    }
    let mut pos = 0;
    for i in 0..4 {
        let (b, n): ((Ev, Row), usize) = dec.decode_frame(&wire[pos..]).unwrap().unwrap();
        assert_eq!(b, (other.clone(), row(i)));
        pos += n;
    }
}

/// `Dictionary::train` keeps the file within the budget, whatever the budget, with shapes.
#[test]
fn training_stays_within_the_budget() {
    let samples: Vec<Row> = (0..300).map(row).collect();
    let wide: Vec<BTreeMap<String, String>> = (0..4)
        .map(|_| {
            (0..200)
                .map(|i| (format!("key-{i:03}"), format!("value-{i:03}")))
                .collect()
        })
        .collect();
    let opts = with(Options::balanced(), Features::MAP_SHAPE);
    for budget in (0..80).chain([200, 511, 512, 513, 1000, 2047, 2048, 4000, 4100]) {
        let d = Dictionary::train(&samples, Options::balanced(), budget).unwrap();
        assert!(
            d.to_bytes().len() <= budget.max(6),
            "{budget}: {}",
            d.to_bytes().len()
        );
        let d = Dictionary::train(&wide, opts, budget).unwrap();
        assert!(
            d.to_bytes().len() <= budget.max(6),
            "{budget}: {}",
            d.to_bytes().len()
        );
        check(&wide[0], opts, &d);
    }
}

/// A map that fails after writing `after` of its string-keyed entries (`x`, `y`).
struct FailingMap {
    after: usize,
}

impl Serialize for FailingMap {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeMap};
        let mut m = s.serialize_map(Some(2))?;
        for (i, k) in ["x", "y"].iter().enumerate() {
            if i == self.after {
                return Err(S::Error::custom("boom"));
            }
            m.serialize_entry(k, &(i as u32 + 40))?;
        }
        Err(S::Error::custom("boom at the end"))
    }
}

/// Under `MAP_SHAPE` a map's first key picks a dictionary shape mid-record (a declaration's
/// header replaced by the reuse): a value that fails there, or after, leaves the session as
/// it was; the next maps and structs decode.
#[test]
fn failed_maps_on_dictionary_shapes_in_sessions() {
    let d = dict();
    for base in [Options::balanced(), Options::compression()] {
        let opts = with(base, Features::MAP_SHAPE.with(Features::STR_STATE));
        let mut enc = EncoderSession::new(opts).with_dictionary(d.clone());
        let mut wire = Vec::new();
        let mut sent = Vec::new();
        for i in 0..9u32 {
            let before = wire.len();
            let bad = vec![FailingMap {
                after: i as usize % 3,
            }];
            assert!(enc.encode_frame(&bad, &mut wire).is_err());
            assert_eq!(wire.len(), before);
            let good = (
                BTreeMap::from([("x".to_string(), i), ("y".to_string(), 2 * i)]),
                BTreeMap::from([("y".to_string(), i), ("x".to_string(), 1)]),
                Point { x: i as i32, y: 0 },
            );
            enc.encode_frame(&good, &mut wire).unwrap();
            sent.push(good);
            if i == 4 {
                enc.renew();
            }
        }
        let mut dec = DecoderSession::new(opts).with_dictionary(d.clone());
        frames_are(&sent, &mut dec, &wire);
    }
}

/// Caps and `min_intern` other than the defaults, the same on both sides: fewer intern
/// entries than the dictionary holds, a `min_intern` above every entry (all of them
/// looked up as short strings), and 1.
#[test]
fn intern_caps_and_min_intern_on_the_dictionary() {
    let d = dict();
    let rows: Vec<Row> = (0..20).map(row).collect();
    let strs: Vec<String> = [
        "checkout",
        "payment-service",
        "ok",
        "a",
        "GET",
        "new-one",
        "new-one",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for base in [
        Options::balanced(),
        Options::compression(),
        with(Options::balanced(), Features::STR_STATE),
    ] {
        for opts in [
            base.max_intern_entries(2),
            base.max_intern_entries(6),
            base.min_intern(1),
            base.min_intern(64),
        ] {
            check(&rows, opts, &d);
            check(&rows[..2].to_vec(), opts, &d);
            let msg = check(&strs, opts, &d);
            if opts.min_intern == 64 {
                // Every entry is looked up as a short string: "checkout" is `E1 00`.
                assert!(
                    hex(&msg[13..]).starts_with("a7 e1 00 e1 01"),
                    "{}",
                    hex(&msg)
                );
            }
        }
    }
}

/// The id names the file, shapes included: a message on the dictionary with shapes is
/// refused (`UnknownDictionary` at offset 5) by a decoder holding the same entries without
/// them, and the other way round; a Speed stream needs no dictionary.
#[test]
fn shapes_change_the_id() {
    let d = dict();
    let plain = Dictionary::from_strs(["checkout", "payment-service", "ok", "a", "GET"]).unwrap();
    assert_ne!(d.id(), plain.id());
    assert_eq!(
        (d.shape(0), d.shape(6), d.shape(usize::MAX)),
        (None, None, None)
    );
    assert_eq!(d.shape(5), Some(vec!["a", "a"]));
    for (enc, dec) in [(&d, &plain), (&plain, &d)] {
        let msg = qdf_core::to_vec_with_dictionary(&row(2), Options::balanced(), enc).unwrap();
        let e = qdf_core::from_slice_with_dictionary::<Row>(&msg, Options::balanced(), dec)
            .unwrap_err();
        assert!(
            matches!(e.code(), ErrorCode::UnknownDictionary { .. }),
            "{e}"
        );
        assert_eq!(e.offset(), Some(5));
    }
    let mut enc = EncoderSession::new(Options::speed()).with_dictionary(d.clone());
    let mut wire = Vec::new();
    enc.encode_frame(&row(3), &mut wire).unwrap();
    assert_eq!(wire[4] & 0x20, 0);
    let mut dec = DecoderSession::new(Options::speed()).with_dictionary(d.clone());
    let (b, _) = next_frame(&row(3), &mut dec, &wire);
    assert_eq!(b, row(3));
}
