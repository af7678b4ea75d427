//! Break attempts on map columns in sessions and on pre-shared dictionaries, whose child
//! string columns may be per-value strings through the intern table (`docs/SPEC.md` §22.2
//! "Codecs", §16–§18, §25).

use std::cell::Cell as StdCell;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

use qdf_core::inspect::{ColumnValues, EventKind};
use qdf_core::{DecoderSession, Dictionary, EncoderSession, ErrorCode, Options, Value};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------- fixtures

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Inner {
    name: String,
    tags: BTreeMap<String, String>,
    vals: Vec<String>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Rec {
    id: u32,
    svc: String,
    attrs: BTreeMap<String, String>,
    inner: Inner,
    list: Vec<Inner>,
    opt: Option<BTreeMap<String, Option<String>>>,
    nested: Vec<BTreeMap<String, Vec<String>>>,
    nums: HashMap<u16, String>,
}

/// A vocabulary word: `k`-th of generation `g` (generation 0 words recur in every frame).
fn word(g: usize, k: usize) -> String {
    format!("word-{g}-{k:03}-{}", "x".repeat(k % 5))
}

/// `n` records of frame `f`: most strings from a shared vocabulary (interned by earlier
/// frames), some new to the frame.
fn recs(n: usize, f: usize) -> Vec<Rec> {
    (0..n)
        .map(|i| {
            let w = |k: usize| word(0, (i * 7 + k) % 23);
            let fresh = |k: usize| word(f + 1, (i + k) % 11);
            Rec {
                id: (f * 1000 + i) as u32,
                svc: w(1),
                attrs: (0..(i % 4) + 1)
                    .map(|k| (format!("attr.{k}"), if k == 2 { fresh(k) } else { w(k) }))
                    .collect(),
                inner: Inner {
                    name: w(3),
                    tags: [("env".to_string(), w(5)), ("zone".to_string(), fresh(1))].into(),
                    vals: (0..i % 3).map(w).collect(),
                },
                list: (0..i % 3)
                    .map(|k| Inner {
                        name: fresh(k),
                        tags: (0..k).map(|j| (w(j), w(j + 1))).collect(),
                        vals: vec![w(k + 2)],
                    })
                    .collect(),
                opt: match i % 4 {
                    0 => None,
                    1 => Some(BTreeMap::new()),
                    2 => Some([("a".to_string(), None), ("bb".to_string(), Some(w(9)))].into()),
                    _ => Some([("cc".to_string(), Some(fresh(4)))].into()),
                },
                nested: (0..i % 2 + 1)
                    .map(|k| [(w(k + 10), vec![w(k), fresh(k)]), (String::new(), vec![])].into())
                    .collect(),
                nums: (0..i % 3)
                    .map(|k| (k as u16 * 100, if k == 1 { fresh(9) } else { w(k + 11) }))
                    .collect(),
            }
        })
        .collect()
}

/// The vocabulary as plain strings: a row frame that interns every word of generation 0.
fn vocabulary() -> Vec<String> {
    (0..23).map(|k| word(0, k)).collect()
}

// ---------------------------------------------------------------- helpers

fn session_opts() -> [Options; 2] {
    [Options::balanced(), Options::compression()]
}

/// Appends `frames` to a new stream of `enc`.
fn encode_all<T: Serialize>(enc: &mut EncoderSession, frames: &[T]) -> Vec<u8> {
    let mut out = Vec::new();
    for f in frames {
        enc.encode_frame(f, &mut out).unwrap();
    }
    out
}

/// Decodes every frame of `stream` as `U` with a fresh decoder session: all of it used.
fn decode_all<U: DeserializeOwned>(stream: &[u8], dec: &mut DecoderSession) -> Vec<U> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some((v, used)) = dec.decode_frame::<U>(&stream[at..]).unwrap() {
        out.push(v);
        at += used;
    }
    assert_eq!(at, stream.len());
    out
}

/// The `Value` row mode (a Speed one-shot message) gives for `v`.
fn rows_value<T: Serialize + ?Sized>(v: &T) -> Value {
    qdf_core::from_slice(&qdf_core::to_vec_with(v, Options::speed()).unwrap()).unwrap()
}

/// Map columns, and per-value string columns below the top level, in a stream.
fn census(stream: &[u8], opts: &Options, dict: Option<&Dictionary>) -> (usize, usize) {
    let (mut maps, mut per_value) = (0, 0);
    qdf_core::inspect::stream_with_dictionary(stream, opts, 1 << 24, dict, &mut |e| {
        if let EventKind::Column { values, .. } = &e.kind {
            maps += usize::from(matches!(
                values,
                ColumnValues::Map { .. } | ColumnValues::KeySets { .. }
            ));
            per_value += usize::from(matches!(values, ColumnValues::PerValue) && e.depth > 2);
        }
    })
    .unwrap();
    (maps, per_value)
}

/// Encodes `frames` in one session, decodes them typed, as `Value` (equal to row mode's)
/// and as a walk that agrees; returns the stream.
fn session_round_trip<T>(frames: &[T], opts: Options, checksum: bool) -> Vec<u8>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let mut enc = EncoderSession::new(opts).with_checksum(checksum);
    let stream = encode_all(&mut enc, frames);
    let back: Vec<T> = decode_all(&stream, &mut DecoderSession::new(opts));
    assert_eq!(back, frames, "{opts:?}");
    let vals: Vec<Value> = decode_all(&stream, &mut DecoderSession::new(opts));
    for (v, f) in vals.iter().zip(frames) {
        assert_eq!(v, &rows_value(f), "{opts:?}");
    }
    crate::inspect::agree_stream(&stream, &opts);
    stream
}

/// Every prefix and single-bit flips (every `step`th byte) of `stream`: walker and
/// decoder session agree.
fn agree_damaged(stream: &[u8], opts: &Options, step: usize) {
    for n in 0..stream.len() {
        crate::inspect::agree_stream(&stream[..n], opts);
    }
    let mut c = stream.to_vec();
    for i in (0..c.len()).step_by(step) {
        for x in [0x01u8, 0x40] {
            c[i] ^= x;
            crate::inspect::agree_stream(&c, opts);
            c[i] ^= x;
        }
    }
}

// ---------------------------------------------------------------- rows then columns

/// Strings interned by a row frame (a plain `Vec<String>`, and records too few to be a
/// container) are referred to by map keys and values, struct fields inside struct columns
/// and list elements of later frames' columns.
#[test]
fn row_interned_strings_referred_to_from_child_columns() {
    for opts in session_opts() {
        let mut enc = EncoderSession::new(opts);
        let mut stream = Vec::new();
        enc.encode_frame(&vocabulary(), &mut stream).unwrap();
        let frames = [
            recs(1, 0),
            recs(40, 1),
            recs(40, 2),
            recs(17, 1),
            recs(5, 3),
        ];
        for f in &frames {
            enc.encode_frame(f, &mut stream).unwrap();
        }
        let mut dec = DecoderSession::new(opts);
        let (voc, mut at): (Vec<String>, usize) = dec.decode_frame(&stream).unwrap().unwrap();
        assert_eq!(voc, vocabulary());
        for f in &frames {
            let (back, used): (Vec<Rec>, usize) = dec.decode_frame(&stream[at..]).unwrap().unwrap();
            assert_eq!(&back, f);
            at += used;
        }
        assert_eq!(at, stream.len());
        let vals: Vec<Value> = decode_all(&stream, &mut DecoderSession::new(opts));
        assert_eq!(vals[0], rows_value(&vocabulary()));
        for (v, f) in vals[1..].iter().zip(&frames) {
            assert_eq!(v, &rows_value(f));
        }
        let (maps, per_value) = census(&stream, &opts, None);
        assert!(maps >= 6, "{maps}");
        assert!(per_value >= 6, "{per_value}");
        crate::inspect::agree_stream(&stream, &opts);
    }
}

/// The same stream read into `serde_json::Value` (string keys only): equal to the JSON of
/// the frames.
#[test]
fn child_columns_read_into_serde_json() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct J {
        id: u32,
        attrs: BTreeMap<String, String>,
        inner: Inner,
        list: Vec<Inner>,
        opt: Option<BTreeMap<String, Option<String>>>,
    }
    let frames: Vec<Vec<J>> = [recs(3, 0), recs(40, 1), recs(33, 2)]
        .into_iter()
        .map(|f| {
            f.into_iter()
                .map(|r| J {
                    id: r.id,
                    attrs: r.attrs,
                    inner: r.inner,
                    list: r.list,
                    opt: r.opt,
                })
                .collect()
        })
        .collect();
    for opts in session_opts() {
        let stream = session_round_trip(&frames, opts, false);
        let json: Vec<serde_json::Value> = decode_all(&stream, &mut DecoderSession::new(opts));
        for (j, f) in json.iter().zip(&frames) {
            assert_eq!(j, &serde_json::to_value(f).unwrap());
        }
        assert!(census(&stream, &opts, None).1 > 0);
    }
}

/// The whole fixture in sessions, with and without checksums, typed and as `Value`; then its
/// prefixes and bit flips.
#[test]
fn fixture_streams_with_checksums_agree_when_damaged() {
    let frames = [recs(20, 0), recs(16, 1), recs(3, 2), recs(20, 0)];
    for opts in session_opts() {
        for checksum in [false, true] {
            let stream = session_round_trip(&frames, opts, checksum);
            let (maps, per_value) = census(&stream, &opts, None);
            assert!(maps > 0 && per_value > 0, "{maps} {per_value}");
            agree_damaged(&stream, &opts, if checksum { 7 } else { 3 });
        }
    }
}

// ---------------------------------------------------------------- skipping

/// A subset struct that skips the map fields: the skipped per-value strings still define
/// intern entries, so later frames (decoded whole) refer to the right ids.
#[test]
fn subset_targets_step_the_intern_table_through_skipped_map_columns() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Ids {
        id: u32,
        svc: String,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct OnlyId {
        id: u32,
    }
    let frames = [recs(40, 1), recs(40, 2), recs(40, 1), recs(40, 3)];
    for opts in session_opts() {
        let mut enc = EncoderSession::new(opts);
        let stream = encode_all(&mut enc, &frames);
        assert!(census(&stream, &opts, None).1 > 0);
        // Frame by frame, alternating targets: subset, ignored, whole, `Value`.
        let mut dec = DecoderSession::new(opts);
        let mut at = 0;
        for (k, f) in frames.iter().enumerate() {
            let used = match k {
                0 => {
                    let (v, used): (Vec<Ids>, usize) =
                        dec.decode_frame(&stream[at..]).unwrap().unwrap();
                    let want: Vec<Ids> = f
                        .iter()
                        .map(|r| Ids {
                            id: r.id,
                            svc: r.svc.clone(),
                        })
                        .collect();
                    assert_eq!(v, want);
                    used
                }
                1 => {
                    let (_, used): (IgnoredAny, usize) =
                        dec.decode_frame(&stream[at..]).unwrap().unwrap();
                    used
                }
                2 => {
                    let (v, used): (Vec<OnlyId>, usize) =
                        dec.decode_frame(&stream[at..]).unwrap().unwrap();
                    assert_eq!(
                        v.iter().map(|r| r.id).collect::<Vec<_>>(),
                        (1000..1040).collect::<Vec<_>>()
                    );
                    used
                }
                _ => {
                    let (v, used): (Vec<Rec>, usize) =
                        dec.decode_frame(&stream[at..]).unwrap().unwrap();
                    assert_eq!(&v, f);
                    used
                }
            };
            at += used;
        }
        assert_eq!(at, stream.len());
    }
}

/// A subset struct naming only a field of the inner struct column, and only a map inside a
/// list of structs: the rest is skipped, the next frame whole.
#[test]
fn partial_struct_and_list_targets_then_whole_frames() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct InnerName {
        name: String,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct ListTags {
        tags: BTreeMap<String, String>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Part {
        inner: InnerName,
        list: Vec<ListTags>,
    }
    let frames = [recs(30, 4), recs(30, 5), recs(30, 4)];
    for opts in session_opts() {
        let stream = encode_all(&mut EncoderSession::new(opts), &frames);
        let mut dec = DecoderSession::new(opts);
        let (p, at): (Vec<Part>, usize) = dec.decode_frame(&stream).unwrap().unwrap();
        for (p, r) in p.iter().zip(&frames[0]) {
            assert_eq!(p.inner.name, r.inner.name);
            let tags: Vec<_> = r.list.iter().map(|i| i.tags.clone()).collect();
            assert_eq!(
                p.list.iter().map(|l| l.tags.clone()).collect::<Vec<_>>(),
                tags
            );
        }
        let (v, used): (Vec<Rec>, usize) = dec.decode_frame(&stream[at..]).unwrap().unwrap();
        assert_eq!(v, frames[1]);
        let (v, used2): (Value, usize) = dec.decode_frame(&stream[at + used..]).unwrap().unwrap();
        assert_eq!(v, rows_value(&frames[2]));
        assert_eq!(at + used + used2, stream.len());
    }
}

// ---------------------------------------------------------------- failing frames

/// Fails to serialize on the `fail_at`-th call of its `serialize` (counting from 1), each
/// call otherwise a `Rec`.
struct Flaky<'a> {
    rec: &'a Rec,
    calls: &'a StdCell<usize>,
    fail_at: usize,
}

impl Serialize for Flaky<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.calls.get() + 1;
        self.calls.set(n);
        if n == self.fail_at {
            return Err(serde::ser::Error::custom("flaky"));
        }
        self.rec.serialize(s)
    }
}

/// Frames whose `Serialize` fails at each row in turn (before, inside and after the rows
/// the tape holds), each followed by a good frame: the failures leave nothing, the stream
/// decodes to the good frames.
#[test]
fn failed_frames_leave_the_session_as_before() {
    for opts in session_opts() {
        let mut enc = EncoderSession::new(opts);
        let mut stream = Vec::new();
        let mut good = Vec::new();
        enc.encode_frame(&recs(20, 0), &mut stream).unwrap();
        good.push(recs(20, 0));
        for (k, fail_at) in [1usize, 2, 16, 17, 20, 21].into_iter().enumerate() {
            let batch = recs(20, k + 1);
            let calls = StdCell::new(0);
            let flaky: Vec<Flaky> = batch
                .iter()
                .map(|rec| Flaky {
                    rec,
                    calls: &calls,
                    fail_at,
                })
                .collect();
            let before = stream.clone();
            match enc.encode_frame(&flaky, &mut stream) {
                Err(e) => {
                    assert!(fail_at <= 20, "{e}");
                    assert!(e.to_string().contains("flaky"), "{e}");
                    assert_eq!(stream, before);
                }
                // The encoder may serialize a row more than once (a later call succeeds):
                // then the frame is the batch's.
                Ok(()) => good.push(batch.clone()),
            }
            // Then the same batch, which the failed frame had started to intern.
            enc.encode_frame(&batch, &mut stream).unwrap();
            good.push(batch);
        }
        let back: Vec<Vec<Rec>> = decode_all(&stream, &mut DecoderSession::new(opts));
        assert_eq!(back, good);
        crate::inspect::agree_stream(&stream, &opts);
    }
}

/// The smallest `max_output` under which a fresh session encodes `frames` (all of them,
/// in one session), by bisection.
fn least_output<T: Serialize>(frames: &[T], opts: Options) -> u64 {
    let ok = |limit: u64| {
        let mut enc = EncoderSession::new(opts.max_output(limit));
        let mut out = Vec::new();
        frames.iter().all(|f| enc.encode_frame(f, &mut out).is_ok())
    };
    let (mut lo, mut hi) = (0u64, 1 << 24);
    assert!(ok(hi));
    while lo < hi {
        let mid = (lo + hi) / 2;
        if ok(mid) { hi = mid } else { lo = mid + 1 }
    }
    lo
}

/// At the least `max_output` the encoder accepts, the decoder (same options) accepts the
/// stream, typed and as `Value`: the encoder counts the deferred strings as the decoder
/// charges them.
#[test]
fn the_output_limit_the_encoder_meets_the_decoder_meets() {
    let frames = [recs(24, 0), recs(24, 1)];
    for opts in session_opts() {
        let limit = least_output(&frames, opts);
        let o = opts.max_output(limit);
        let stream = encode_all(&mut EncoderSession::new(o), &frames);
        assert!(census(&stream, &o, None).1 > 0);
        let back: Vec<Vec<Rec>> = decode_all(&stream, &mut DecoderSession::new(o));
        assert_eq!(back, frames);
        let vals: Vec<Value> = decode_all(&stream, &mut DecoderSession::new(o));
        assert_eq!(vals[1], rows_value(&frames[1]));
        // One unit less: the encoder refuses some frame, with OutputLimit.
        let mut enc = EncoderSession::new(opts.max_output(limit - 1));
        let mut out = Vec::new();
        let errs: Vec<_> = frames
            .iter()
            .filter_map(|f| enc.encode_frame(f, &mut out).err())
            .collect();
        assert!(!errs.is_empty());
        assert!(
            errs.iter()
                .all(|e| matches!(e.code(), ErrorCode::OutputLimit { .. })),
            "{errs:?}"
        );
        // What it did write still decodes.
        let _: Vec<Value> = decode_all(&out, &mut DecoderSession::new(opts.max_output(limit - 1)));
    }
}

/// A frame refused for its output in the middle of its deferred strings, then the frames
/// after it: the session is as before the refused frame.
#[test]
fn output_limit_mid_frame_then_more_frames() {
    for opts in session_opts() {
        let small = recs(16, 0);
        let big = recs(64, 1);
        let limit = least_output(std::slice::from_ref(&small), opts).max(4000);
        let o = opts.max_output(limit);
        let mut enc = EncoderSession::new(o);
        let mut stream = Vec::new();
        enc.encode_frame(&small, &mut stream).unwrap();
        let before = stream.clone();
        let e = enc.encode_frame(&big, &mut stream).unwrap_err();
        assert!(matches!(e.code(), ErrorCode::OutputLimit { .. }), "{e}");
        assert_eq!(stream, before);
        enc.encode_frame(&recs(16, 1), &mut stream).unwrap();
        enc.encode_frame(&small, &mut stream).unwrap();
        let back: Vec<Vec<Rec>> = decode_all(&stream, &mut DecoderSession::new(o));
        assert_eq!(back, [small.clone(), recs(16, 1), small]);
        crate::inspect::agree_stream(&stream, &o);
    }
}

/// A frame above the session's largest body, then more frames.
#[test]
fn frame_too_large_then_more_frames() {
    for opts in session_opts() {
        let mut enc = EncoderSession::new(opts).with_max_frame_length(3000);
        let mut stream = Vec::new();
        enc.encode_frame(&recs(16, 0), &mut stream).unwrap();
        let before = stream.clone();
        let e = enc.encode_frame(&recs(400, 1), &mut stream).unwrap_err();
        assert!(matches!(e.code(), ErrorCode::FrameTooLarge { .. }), "{e}");
        assert_eq!(stream, before);
        enc.encode_frame(&recs(16, 1), &mut stream).unwrap();
        let back: Vec<Vec<Rec>> = decode_all(&stream, &mut DecoderSession::new(opts));
        assert_eq!(back, [recs(16, 0), recs(16, 1)]);
    }
}

// ---------------------------------------------------------------- renewal and caps

/// Renewals asked for between frames: the state starts empty, the strings are defined again.
#[test]
fn renewal_between_frames() {
    for opts in session_opts() {
        let mut enc = EncoderSession::new(opts);
        let mut stream = Vec::new();
        let frames = [
            recs(20, 0),
            recs(20, 1),
            recs(20, 1),
            recs(3, 2),
            recs(20, 0),
        ];
        for (k, f) in frames.iter().enumerate() {
            if k % 2 == 1 {
                enc.renew();
            }
            enc.encode_frame(f, &mut stream).unwrap();
        }
        assert_eq!(enc.renewals(), 2);
        let back: Vec<Vec<Rec>> = decode_all(&stream, &mut DecoderSession::new(opts));
        assert_eq!(back, frames);
        crate::inspect::agree_stream(&stream, &opts);
        agree_damaged(&stream, &opts, 11);
    }
}

/// Small session caps, with automatic renewal on and off: interning stops (or the state
/// renews) in the middle of frames with map columns.
#[test]
fn small_caps_stop_interning_mid_stream() {
    let frames: Vec<Vec<Rec>> = (0..8).map(|f| recs(16 + f, f)).collect();
    for base in session_opts() {
        for renewal in [false, true] {
            for (entries, bytes) in [
                (1, 1 << 20),
                (5, 1 << 20),
                (40, 1 << 20),
                (1000, 300),
                (30, 600),
            ] {
                let opts = base
                    .max_intern_entries(entries)
                    .max_intern_bytes(bytes)
                    .session_renewal(renewal);
                let mut enc = EncoderSession::new(opts);
                let stream = encode_all(&mut enc, &frames);
                let back: Vec<Vec<Rec>> = decode_all(&stream, &mut DecoderSession::new(opts));
                assert_eq!(back, frames, "{entries} {bytes} {renewal}");
                let st = enc.stats();
                assert!(st.intern_entries <= entries, "{st:?}");
                crate::inspect::agree_stream(&stream, &opts);
            }
        }
    }
}

// ---------------------------------------------------------------- shapes of maps

/// Maps with non-string keys and values of every kind, `HashMap`s in their iteration order,
/// empty maps, `Option`s, nested maps in lists in structs.
#[test]
fn map_shapes_in_sessions() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Deep {
        outer: Vec<Holder>,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Holder {
        m: HashMap<String, Vec<BTreeMap<String, Option<String>>>>,
        k: BTreeMap<i64, String>,
        b: BTreeMap<bool, Vec<String>>,
        c: BTreeMap<char, String>,
        e: Option<HashMap<String, String>>,
    }
    let deep = |n: usize, g: usize| -> Vec<Deep> {
        (0..n)
            .map(|i| Deep {
                outer: (0..i % 3)
                    .map(|j| Holder {
                        m: (0..(i + j) % 3)
                            .map(|k| {
                                (
                                    word(0, k + j),
                                    (0..k)
                                        .map(|q| {
                                            [(word(0, q), (q % 2 == 0).then(|| word(g, q)))].into()
                                        })
                                        .collect(),
                                )
                            })
                            .collect(),
                        k: (0..j)
                            .map(|k| (-(k as i64) * 1_000_000, word(g, k)))
                            .collect(),
                        b: [(i % 2 == 0, vec![word(0, i % 7); j])].into(),
                        c: [
                            (char::from(b'a' + (i % 26) as u8), word(0, 1)),
                            ('é', String::new()),
                        ]
                        .into(),
                        e: (j == 1).then(HashMap::new),
                    })
                    .collect(),
            })
            .collect()
    };
    let frames = [deep(20, 1), deep(40, 2), deep(5, 1), deep(16, 3)];
    for opts in session_opts() {
        let stream = session_round_trip(&frames, opts, true);
        agree_damaged(&stream, &opts, 13);
    }
}

/// Hex-looking strings (hex text in rows under `HEX_TEXT`) interned by rows, then referred
/// to from map columns; and interned by a map column first, then referred to by rows.
#[test]
fn hex_strings_cross_between_rows_and_child_columns() {
    let hex = |k: usize| format!("{:016x}{:08x}", 0xdead_beef_0000_u64 + k as u64, k * 977);
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct H {
        id: String,
        m: BTreeMap<String, String>,
    }
    let rows = |n: usize, shift: usize| -> Vec<H> {
        (0..n)
            .map(|i| H {
                id: hex(i + shift),
                m: [(hex(i + 1), hex(i + 2 + shift)), ("k".into(), hex(i % 3))].into(),
            })
            .collect()
    };
    let vocab: Vec<String> = (0..30).map(hex).collect();
    for opts in session_opts() {
        let mut enc = EncoderSession::new(opts);
        let mut stream = Vec::new();
        enc.encode_frame(&vocab, &mut stream).unwrap();
        let frames = [rows(20, 0), rows(3, 40), rows(20, 40), rows(2, 0)];
        for f in &frames {
            enc.encode_frame(f, &mut stream).unwrap();
        }
        let mut dec = DecoderSession::new(opts);
        let (v, mut at): (Vec<String>, usize) = dec.decode_frame(&stream).unwrap().unwrap();
        assert_eq!(v, vocab);
        for f in &frames {
            let (back, used): (Vec<H>, usize) = dec.decode_frame(&stream[at..]).unwrap().unwrap();
            assert_eq!(&back, f);
            at += used;
        }
        let vals: Vec<Value> = decode_all(&stream, &mut DecoderSession::new(opts));
        assert_eq!(vals[2], rows_value(&frames[1]));
        crate::inspect::agree_stream(&stream, &opts);
        agree_damaged(&stream, &opts, 9);
    }
}

/// Messages (`encode_message` / `decode_message`) rather than frames.
#[test]
fn messages_with_map_columns() {
    let frames = [recs(20, 0), recs(40, 1), recs(2, 0), recs(20, 2)];
    for opts in session_opts() {
        for checksum in [false, true] {
            let mut enc = EncoderSession::new(opts).with_checksum(checksum);
            let msgs: Vec<Vec<u8>> = frames
                .iter()
                .map(|f| {
                    let mut m = Vec::new();
                    enc.encode_message(f, &mut m).unwrap();
                    m
                })
                .collect();
            let mut dec = DecoderSession::new(opts);
            for (m, f) in msgs.iter().zip(&frames) {
                let back: Vec<Rec> = dec.decode_message(m).unwrap();
                assert_eq!(&back, f);
            }
            let mut dec = DecoderSession::new(opts);
            for (m, f) in msgs.iter().zip(&frames) {
                let back: Value = dec.decode_message(m).unwrap();
                assert_eq!(back, rows_value(f));
            }
        }
    }
}

// ---------------------------------------------------------------- dictionaries

fn dict_words() -> Dictionary {
    let mut w: Vec<String> = (0..23).map(|k| word(0, k)).collect();
    w.extend(["attr.0", "attr.1", "attr.2", "attr.3", "env", "zone"].map(String::from));
    Dictionary::from_strs(w).unwrap()
}

/// One-shot messages on a dictionary whose entries are the maps' keys and values: typed,
/// `Value` equal to row mode's, the walker agreeing on them and on their damage.
#[test]
fn dictionary_messages_with_map_columns() {
    let d = dict_words();
    let indexed = Options::balanced()
        .features(qdf_core::Features::BALANCED.with(qdf_core::Features::COLUMN_INDEX));
    for opts in [Options::balanced(), Options::compression(), indexed] {
        for n in [1, 3, 16, 40, 100] {
            let v = recs(n, 1);
            let m = qdf_core::to_vec_with_dictionary(&v, opts, &d).unwrap();
            let back: Vec<Rec> = qdf_core::from_slice_with_dictionary(&m, opts, &d).unwrap();
            assert_eq!(back, v, "{opts:?} {n}");
            let val: Value = qdf_core::from_slice_with_dictionary(&m, opts, &d).unwrap();
            assert_eq!(val, rows_value(&v), "{opts:?} {n}");
            assert_eq!(crate::inspect::dictionary_disagreement(&m, &opts, &d), None);
            if n == 40 {
                for cut in 0..m.len() {
                    assert_eq!(
                        crate::inspect::dictionary_disagreement(&m[..cut], &opts, &d),
                        None
                    );
                }
                let mut c = m.clone();
                for i in 0..c.len() {
                    c[i] ^= 0x01;
                    assert_eq!(crate::inspect::dictionary_disagreement(&c, &opts, &d), None);
                    c[i] ^= 0x01;
                }
            }
        }
    }
}

/// A session on a dictionary: frames, a renewal (back to the dictionary), subset frames.
#[test]
fn dictionary_sessions_with_map_columns() {
    let d = dict_words();
    let frames = [recs(20, 0), recs(40, 1), recs(3, 2), recs(20, 2)];
    for opts in session_opts() {
        let mut enc = EncoderSession::new(opts).with_dictionary(d.clone());
        let mut stream = Vec::new();
        for (k, f) in frames.iter().enumerate() {
            if k == 2 {
                enc.renew();
            }
            enc.encode_frame(f, &mut stream).unwrap();
        }
        let back: Vec<Vec<Rec>> = decode_all(
            &stream,
            &mut DecoderSession::new(opts).with_dictionary(d.clone()),
        );
        assert_eq!(back, frames);
        let vals: Vec<Value> = decode_all(
            &stream,
            &mut DecoderSession::new(opts).with_dictionary(d.clone()),
        );
        for (v, f) in vals.iter().zip(&frames) {
            assert_eq!(v, &rows_value(f));
        }
        let (maps, per_value) = census(&stream, &opts, Some(&d));
        assert!(maps > 0 && per_value > 0, "{maps} {per_value}");
        // Subset frames, then the whole.
        #[derive(Deserialize, Debug, PartialEq)]
        struct Ids {
            id: u32,
        }
        let mut dec = DecoderSession::new(opts).with_dictionary(d.clone());
        let (ids, at): (Vec<Ids>, usize) = dec.decode_frame(&stream).unwrap().unwrap();
        assert_eq!(ids.len(), 20);
        let (_, used): (IgnoredAny, usize) = dec.decode_frame(&stream[at..]).unwrap().unwrap();
        let (v, _): (Vec<Rec>, usize) = dec.decode_frame(&stream[at + used..]).unwrap().unwrap();
        assert_eq!(v, frames[2]);
    }
}

/// A trained dictionary (its entries what the samples repeat).
#[test]
fn trained_dictionary_messages_with_map_columns() {
    let samples: Vec<Vec<Rec>> = (0..6).map(|f| recs(20, f)).collect();
    for opts in [Options::balanced(), Options::compression()] {
        let d = Dictionary::train(&samples, opts, 8192).unwrap();
        assert!(!d.is_empty());
        for v in [recs(20, 7), recs(50, 0), recs(4, 8)] {
            let m = qdf_core::to_vec_with_dictionary(&v, opts, &d).unwrap();
            let back: Vec<Rec> = qdf_core::from_slice_with_dictionary(&m, opts, &d).unwrap();
            assert_eq!(back, v);
            let val: Value = qdf_core::from_slice_with_dictionary(&m, opts, &d).unwrap();
            assert_eq!(val, rows_value(&v));
            assert_eq!(crate::inspect::dictionary_disagreement(&m, &opts, &d), None);
        }
    }
}

// ---------------------------------------------------------------- one-entry maps

/// One-entry maps with repeating string keys (a tagged column's map form, §22.3, which the
/// map arm now reaches in sessions too): their values per-value strings, structs, lists.
#[test]
fn one_entry_maps_in_sessions() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct One {
        id: u32,
        s: BTreeMap<String, String>,
        st: HashMap<String, Inner>,
        l: BTreeMap<String, Vec<String>>,
    }
    let ones = |n: usize, g: usize| -> Vec<One> {
        (0..n)
            .map(|i| One {
                id: i as u32,
                s: [(["GET", "POST"][i % 2].to_string(), word(g, i % 5))].into(),
                st: [(
                    word(0, i % 2),
                    Inner {
                        name: word(g, i % 3),
                        tags: [(word(0, 1), word(g, 2))].into(),
                        vals: vec![word(0, i % 4)],
                    },
                )]
                .into(),
                l: [(word(0, 3 + i % 2), vec![word(g, i % 6); i % 3])].into(),
            })
            .collect()
    };
    let frames = [ones(20, 0), ones(20, 1), ones(4, 2), ones(33, 1)];
    for opts in session_opts() {
        let stream = session_round_trip(&frames, opts, false);
        let json: Vec<serde_json::Value> = decode_all(&stream, &mut DecoderSession::new(opts));
        for (j, f) in json.iter().zip(&frames) {
            assert_eq!(j, &serde_json::to_value(f).unwrap());
        }
        agree_damaged(&stream, &opts, 5);
    }
    let d = Dictionary::from_strs((0..10).map(|k| word(0, k))).unwrap();
    for opts in [Options::balanced(), Options::compression()] {
        for f in &frames {
            let m = qdf_core::to_vec_with_dictionary(f, opts, &d).unwrap();
            let back: Vec<One> = qdf_core::from_slice_with_dictionary(&m, opts, &d).unwrap();
            assert_eq!(&back, f);
            assert_eq!(crate::inspect::dictionary_disagreement(&m, &opts, &d), None);
        }
    }
}
