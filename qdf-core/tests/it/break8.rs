//! Trying to break date-time text columns (`docs/SPEC.md` §22.1, kind bits `30`) from the
//! public API, as an outside user would (h-break8).
//! Every string must come back byte for byte, in every columnar tier, through `T`, `Value`
//! and `serde_json::Value`, with the `inspect` walker agreeing with the decoder; dates are
//! printed here by an independent year-by-year walk, not the library's arithmetic.

use std::borrow::Cow;
use std::fmt::Debug;

use proptest::prelude::*;
use qdf_core::inspect::{self, EventKind};
use qdf_core::{
    Category, DecoderSession, Dictionary, EncoderSession, ErrorCode, Features, Limits, Options,
    Value,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::common::dates::{Y2010, month_len, stamp, written};
use crate::common::{unhex, xorshift};
use crate::inspect::{agree, agree_mutated, dictionary_disagreement};

/// The columnar tiers: Balanced, Compression, each also with the column index.
fn tiers() -> [(&'static str, Options); 4] {
    let idx = |o: Options| {
        let f = o.features.with(Features::COLUMN_INDEX);
        o.features(f)
    };
    [
        ("balanced", Options::balanced()),
        ("compression", Options::compression()),
        ("balanced+index", idx(Options::balanced())),
        ("compression+index", idx(Options::compression())),
    ]
}

/// Kind bytes of every column named `name` in `bytes`, nested ones too, in walk order.
fn kinds(bytes: &[u8], opts: &Options, name: &str) -> Vec<u8> {
    let mut out = Vec::new();
    inspect::message(bytes, opts, &mut |e| {
        if let EventKind::Column { name: n, kind, .. } = &e.kind
            && *n == name
        {
            out.push(*kind);
        }
    })
    .unwrap();
    out
}

/// Whether some column named `name` is date-time text.
fn is_date_time(bytes: &[u8], opts: &Options, name: &str) -> bool {
    kinds(bytes, opts, name).iter().any(|k| k & 0x30 == 0x30)
}

/// `rows` round-trips exactly in every columnar tier as `T`, as `Value` and as
/// `serde_json::Value` (both compared with the Speed tier's row form), and the walker agrees;
/// returns the Balanced bytes.
fn exact<T: Serialize + DeserializeOwned + PartialEq + Debug>(rows: &T, what: &str) -> Vec<u8> {
    let speed = qdf_core::to_vec_with(rows, Options::speed()).unwrap();
    let row_value = qdf_core::from_slice::<Value>(&speed).unwrap().to_string();
    let row_json: serde_json::Value = qdf_core::from_slice(&speed).unwrap();
    let mut first = None;
    for (tier, opts) in tiers() {
        let b = qdf_core::to_vec_with(rows, opts).unwrap();
        let back: T =
            qdf_core::from_slice_with(&b, opts).unwrap_or_else(|e| panic!("{what} {tier}: {e}"));
        assert_eq!(&back, rows, "{what} {tier}");
        let v: Value = qdf_core::from_slice_with(&b, opts).unwrap();
        assert_eq!(v.to_string(), row_value, "{what} {tier}: Value");
        let j: serde_json::Value = qdf_core::from_slice_with(&b, opts).unwrap();
        assert_eq!(j, row_json, "{what} {tier}: serde_json");
        agree(&b, &opts, what);
        first.get_or_insert(b);
    }
    first.unwrap()
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Row {
    t: String,
    n: u32,
}

fn rows(vals: &[String]) -> Vec<Row> {
    let row = |(i, t): (usize, &String)| Row {
        t: t.clone(),
        n: i as u32,
    };
    vals.iter().enumerate().map(row).collect()
}

#[test]
fn calendar_edges_print_back_exactly() {
    let years = [
        0, 1, 4, 99, 100, 400, 1582, 1899, 1900, 1969, 1970, 1999, 2000, 2024, 2100, 2400, 9996,
        9999,
    ];
    for pattern in 0..3 {
        for frac in ["", ".000", ".990", ".000001"] {
            let mut vals = Vec::new();
            for &y in &years {
                for m in 0..12 {
                    let last = month_len(y, m);
                    vals.push(written(y, m, 1, "00:00:00", pattern) + frac);
                    vals.push(written(y, m, last, "23:59:59", pattern) + frac + "Z");
                }
            }
            // One suffix over the column: the first pushes get "Z" too.
            let vals: Vec<String> = vals
                .into_iter()
                .map(|v| if v.ends_with('Z') { v } else { v + "Z" })
                .collect();
            let what = format!("pattern {pattern} fraction {frac:?}");
            let b = exact(&rows(&vals), &what);
            assert!(is_date_time(&b, &Options::balanced(), "t"), "{what}");
        }
    }
    // Nanoseconds: an i64 reaches 1677-09-21 .. 2262-04-11; inside it the column is
    // date-time text, one value outside keeps it a string column, exact either way.
    let nanos = |ys: &[i64]| -> Vec<String> {
        ys.iter()
            .flat_map(|&y| {
                [
                    written(y, 1, month_len(y, 1), "23:59:59.999999999", 0),
                    written(y, 0, 1, "00:00:00.000000000", 0),
                ]
            })
            .collect()
    };
    let inside = nanos(&[1678, 1700, 1900, 1970, 2000, 2100, 2200, 2261]);
    let b = exact(&rows(&inside), "nanos inside i64");
    assert!(is_date_time(&b, &Options::balanced(), "t"));
    let mut outside = inside.clone();
    outside[5] = written(1600, 1, 29, "00:00:00.000000000", 0);
    let b = exact(&rows(&outside), "nanos in 1600");
    assert!(!is_date_time(&b, &Options::balanced(), "t"));
}

#[test]
fn suffixes_that_look_like_fields() {
    // (suffix after the seconds and the fraction, fraction digits, pattern, date-time?)
    let z32 = "Z".repeat(32);
    let z33 = "Z".repeat(33);
    let cases: &[(&str, usize, u8, bool)] = &[
        ("123", 0, 0, true),
        ("0", 0, 1, true),
        (".5", 1, 0, true),
        (".5", 3, 2, true),
        (":00", 0, 0, true),
        (":00", 2, 2, true),
        ("-07:00", 0, 0, true),
        ("+05:30", 3, 1, true),
        (" -0700", 0, 2, true),
        ("T", 0, 0, true),
        (" ", 0, 1, true),
        (z32.as_str(), 0, 0, true),
        (z32.as_str(), 9, 2, true),
        (z33.as_str(), 0, 0, false),
        ("Z\u{e9}", 0, 0, false),
        ("\u{7f}", 0, 0, false),
        ("\t", 0, 1, false),
        (".", 0, 0, false),
        (".Z", 0, 0, false),
        // Digits after nine fraction digits: ten digits, not a layout.
        ("0", 9, 0, false),
    ];
    for &(suffix, f, pattern, dt) in cases {
        let vals: Vec<String> = (0..40)
            .map(|i| {
                let frac = if f > 0 {
                    format!(".{:0f$}", (i as u64 * 7_919) % 10u64.pow(f as u32))
                } else {
                    String::new()
                };
                format!("{}{frac}{suffix}", stamp(Y2010 + 3_601 * i, pattern))
            })
            .collect();
        let what = format!("suffix {suffix:?} F {f} pattern {pattern}");
        let b = exact(&rows(&vals), &what);
        assert_eq!(is_date_time(&b, &Options::balanced(), "t"), dt, "{what}");
    }
}

#[test]
fn layouts_that_change_after_the_first_value() {
    let base: Vec<String> = (0..40).map(|i| stamp(Y2010 + 61 * i, 0) + "Z").collect();
    let iso0 = stamp(Y2010, 0);
    let edits: [(&str, usize, String); 12] = [
        ("last is CLF", 39, stamp(Y2010, 2) + "Z"),
        ("first is CLF", 0, stamp(Y2010, 2) + "Z"),
        ("first has a fraction", 0, iso0.clone() + ".5Z"),
        ("one without suffix", 20, iso0.clone() + "\u{0}"),
        ("same length, other suffix", 7, iso0.clone() + "z"),
        ("same length, fraction", 7, iso0[..18].to_owned() + ".5"),
        ("a leap second", 3, "2016-12-31T23:59:60Z".into()),
        ("Feb 29 of 1900", 3, "1900-02-29T00:00:00Z".into()),
        ("year 10000", 3, "10000-01-01T00:00:00".into()),
        ("hour 24", 3, "2010-01-01T24:00:00Z".into()),
        ("fullwidth digit", 3, "2010-01-01T00:00:0\u{ff11}".into()),
        ("first empty", 0, String::new()),
    ];
    for (what, i, edit) in edits {
        let mut vals = base.clone();
        vals[i] = edit;
        let b = exact(&rows(&vals), what);
        assert!(!is_date_time(&b, &Options::balanced(), "t"), "{what}");
    }
    let b = exact(&rows(&base), "unedited");
    assert!(is_date_time(&b, &Options::balanced(), "t"));
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Default)]
struct Opt {
    a: u32,
    #[serde(skip)]
    skipped: String,
    t: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    u: Option<String>,
    v: Option<String>,
}

#[test]
fn optional_and_skipped_fields() {
    let rows: Vec<Opt> = (0..48)
        .map(|i| Opt {
            a: i,
            skipped: String::new(),
            t: (i % 3 != 0).then(|| stamp(Y2010 + 86_399 * i64::from(i), 1) + ".25"),
            u: (i % 2 == 1).then(|| stamp(-86_400 * 365 * i64::from(i), 2) + " +0000"),
            v: (i == 7).then(|| stamp(0, 0)),
        })
        .collect();
    let b = exact(&rows, "optional");
    let o = Options::balanced();
    assert!(is_date_time(&b, &o, "t"), "{:x?}", kinds(&b, &o, "t"));
    assert!(is_date_time(&b, &o, "u"), "{:x?}", kinds(&b, &o, "u"));
}

#[test]
fn borrowed_and_cow_targets() {
    #[derive(Deserialize)]
    struct Borrowed<'a> {
        #[allow(dead_code)]
        t: &'a str,
    }
    #[derive(Deserialize)]
    struct Cowed<'a> {
        #[serde(borrow)]
        t: Cow<'a, str>,
    }
    let vals: Vec<String> = (0..20).map(|i| stamp(Y2010 + i, 0) + "Z").collect();
    for (tier, opts) in tiers() {
        let b = qdf_core::to_vec_with(&rows(&vals), opts).unwrap();
        assert!(is_date_time(&b, &opts, "t"), "{tier}");
        let e = qdf_core::from_slice_with::<Vec<Borrowed<'_>>>(&b, opts)
            .err()
            .unwrap();
        assert_eq!(e.classify(), Category::Data, "{tier}: {e}");
        assert!(
            matches!(e.code(), ErrorCode::TypeMismatch { .. }),
            "{tier}: {e}"
        );
        let c: Vec<Cowed<'_>> = qdf_core::from_slice_with(&b, opts).unwrap();
        let got: Vec<&str> = c.iter().map(|r| &*r.t).collect();
        assert_eq!(
            got,
            vals.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
            "{tier}"
        );
        assert!(c.iter().all(|r| matches!(r.t, Cow::Owned(_))), "{tier}");
        // Under borrowable strings the column stays strings, and `&str` borrows them.
        let keep = opts.borrowable_strings(true);
        let b = qdf_core::to_vec_with(&rows(&vals), keep).unwrap();
        assert!(!is_date_time(&b, &keep, "t"), "{tier}");
        let r: Vec<Borrowed<'_>> = qdf_core::from_slice_with(&b, keep).unwrap();
        assert_eq!(r.iter().map(|r| r.t).collect::<Vec<_>>(), vals, "{tier}");
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Inner {
    at: String,
    k: u8,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Outer {
    id: u32,
    events: Vec<Inner>,
    head: Inner,
    maybe: Option<Inner>,
    ats: Vec<String>,
}

fn outers(n: u32) -> Vec<Outer> {
    let at = |i: u32, j: u32| stamp(971_186_136 + i64::from(i * 97 + j), 2) + " -0700";
    (0..n)
        .map(|i| Outer {
            id: i,
            events: (0..i % 4)
                .map(|j| Inner {
                    at: at(i, j),
                    k: j as u8,
                })
                .collect(),
            head: Inner { at: at(i, 9), k: 1 },
            maybe: (i % 2 == 0).then(|| Inner { at: at(i, 7), k: 2 }),
            ats: (0..i % 3)
                .map(|j| stamp(Y2010 + i64::from(i * 10 + j), 0))
                .collect(),
        })
        .collect()
}

#[test]
fn nested_child_columns() {
    let rows = outers(40);
    let b = exact(&rows, "nested");
    let o = Options::balanced();
    let at = kinds(&b, &o, "at");
    assert!(
        at.len() >= 3 && at.iter().all(|k| k & 0x30 == 0x30),
        "{at:x?}"
    );
    // The list of strings' element column has an empty name.
    assert!(is_date_time(&b, &o, ""), "{:x?}", kinds(&b, &o, ""));
}

#[test]
fn subset_and_reordered_targets() {
    #[derive(Serialize)]
    struct Two {
        a: String,
        n: u32,
        b: String,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct OnlyB {
        b: String,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct OnlyN {
        n: u32,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Reordered {
        b: String,
        a: String,
    }
    let rows: Vec<Two> = (0..30)
        .map(|i| Two {
            a: stamp(Y2010 + 3_600 * i64::from(i), 1),
            n: i,
            b: stamp(-1 - 86_400 * i64::from(i), 2) + ".123456",
        })
        .collect();
    for (tier, opts) in tiers() {
        let bytes = qdf_core::to_vec_with(&rows, opts).unwrap();
        assert!(is_date_time(&bytes, &opts, "a") && is_date_time(&bytes, &opts, "b"));
        let only_b: Vec<OnlyB> = qdf_core::from_slice_with(&bytes, opts).unwrap();
        let want: Vec<OnlyB> = rows.iter().map(|r| OnlyB { b: r.b.clone() }).collect();
        assert_eq!(only_b, want, "{tier}");
        let only_n: Vec<OnlyN> = qdf_core::from_slice_with(&bytes, opts).unwrap();
        assert_eq!(
            only_n,
            (0..30).map(|n| OnlyN { n }).collect::<Vec<_>>(),
            "{tier}"
        );
        let re: Vec<Reordered> = qdf_core::from_slice_with(&bytes, opts).unwrap();
        let want: Vec<Reordered> = rows
            .iter()
            .map(|r| Reordered {
                b: r.b.clone(),
                a: r.a.clone(),
            })
            .collect();
        assert_eq!(re, want, "{tier}");
    }
}

/// Batches of one session: date-time columns, then the same field as strings, another
/// layout, a short batch in rows, and the first batch again.
fn session_batches() -> Vec<Vec<Row>> {
    let iso: Vec<String> = (0..20).map(|i| stamp(Y2010 + 60 * i, 0) + "Z").collect();
    let mut mixed = iso.clone();
    mixed[4] = "not a date".into();
    let clf: Vec<String> = (0..24)
        .map(|i| stamp(971_186_136 + i, 2) + " -0700")
        .collect();
    let short: Vec<String> = iso[..3].to_vec();
    vec![
        rows(&iso),
        rows(&mixed),
        rows(&clf),
        rows(&short),
        rows(&iso),
        rows(&clf),
    ]
}

#[test]
fn sessions_over_several_frames() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct OnlyN {
        n: u32,
    }
    for (tier, opts) in tiers() {
        let batches = session_batches();
        let mut enc = EncoderSession::new(opts);
        let mut buf = Vec::new();
        for b in &batches {
            enc.encode_frame(b, &mut buf).unwrap();
        }
        let mut dec = DecoderSession::new(opts);
        let mut ignoring = DecoderSession::new(opts);
        let (mut at, mut at2) = (0, 0);
        for (i, want) in batches.iter().enumerate() {
            let (got, used) = dec.decode_frame::<Vec<Row>>(&buf[at..]).unwrap().unwrap();
            assert_eq!(&got, want, "{tier} frame {i}");
            at += used;
            // A reader that ignores the date-time field stays in step.
            let (ns, used) = ignoring
                .decode_frame::<Vec<OnlyN>>(&buf[at2..])
                .unwrap()
                .unwrap();
            let want_n: Vec<OnlyN> = want.iter().map(|r| OnlyN { n: r.n }).collect();
            assert_eq!(ns, want_n, "{tier} frame {i}");
            at2 += used;
        }
        assert_eq!(at, buf.len());
        assert_eq!(at2, buf.len());
    }
}

#[test]
fn pre_shared_dictionary() {
    let vals: Vec<String> = (0..32).map(|i| stamp(Y2010 + 3_600 * i, 0) + "Z").collect();
    let dict =
        Dictionary::from_strs(vals[..8].iter().map(|s| s.as_str()).chain(["t", "n"])).unwrap();
    for (tier, opts) in tiers() {
        for (what, vals) in [
            ("all dates", vals.clone()),
            ("one not", {
                let mut v = vals.clone();
                v[30] = "x".into();
                v
            }),
        ] {
            let r = rows(&vals);
            let b = qdf_core::to_vec_with_dictionary(&r, opts, &dict).unwrap();
            let back: Vec<Row> = qdf_core::from_slice_with_dictionary(&b, opts, &dict).unwrap();
            assert_eq!(back, r, "{tier} {what}");
            assert_eq!(
                dictionary_disagreement(&b, &opts, &dict),
                None,
                "{tier} {what}"
            );
        }
    }
}

/// The least `max_output` the encoder accepts for `value` under `opts`, by bisection.
fn least_encodable<T: Serialize>(value: &T, opts: Options) -> u64 {
    let ok =
        |u: u64| qdf_core::to_vec_with(value, opts.limits(Limits::DEFAULT.max_output(u))).is_ok();
    let (mut lo, mut hi) = (0u64, 1 << 26);
    assert!(ok(hi));
    while lo < hi {
        let mid = (lo + hi) / 2;
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// The least limit the encoder accepts decodes (as `T` and as `Value`); one below fails in
/// both, with `OutputLimit`.
fn limit_agrees<T: Serialize + DeserializeOwned + PartialEq + Debug>(value: &T, what: &str) {
    for (tier, opts) in tiers() {
        let least = least_encodable(value, opts);
        let at = |u: u64| opts.limits(Limits::DEFAULT.max_output(u));
        let b = qdf_core::to_vec_with(value, at(least)).unwrap();
        let back: T = qdf_core::from_slice_with(&b, at(least))
            .unwrap_or_else(|e| panic!("{what} {tier}: least {least}: {e}"));
        assert_eq!(&back, value, "{what} {tier}");
        qdf_core::from_slice_with::<Value>(&b, at(least)).unwrap();
        let e = qdf_core::to_vec_with(value, at(least - 1)).err().unwrap();
        assert_eq!(e.classify(), Category::Limit, "{what} {tier}: {e}");
        for e in [
            qdf_core::from_slice_with::<T>(&b, at(least - 1)).err(),
            qdf_core::from_slice_with::<Value>(&b, at(least - 1)).err(),
        ] {
            let e = e.unwrap_or_else(|| panic!("{what} {tier}: {} decodes", least - 1));
            assert!(
                matches!(e.code(), ErrorCode::OutputLimit { .. }),
                "{what} {tier}: {e}"
            );
        }
    }
}

#[test]
fn output_limits_agree_with_the_encoder() {
    let flat: Vec<String> = (0..64).map(|i| stamp(Y2010 + 977 * i, 0) + "Z").collect();
    limit_agrees(&rows(&flat), "flat");
    let long: Vec<String> = (0..40)
        .map(|i| format!("{}.{:09}{}", stamp(Y2010 + i, 2), i * 13, "x".repeat(32)))
        .collect();
    limit_agrees(&rows(&long), "clf nanos long suffix");
    let opt: Vec<Opt> = (0..33)
        .map(|i| Opt {
            a: i,
            t: (i % 3 != 0).then(|| stamp(Y2010 + i64::from(i), 1)),
            ..Opt::default()
        })
        .collect();
    limit_agrees(&opt, "optional");
    limit_agrees(&outers(40), "nested");
}

/// The one-column container of 16 rows `t` of kind `kind` followed by `body`.
fn container(kind: u8, body: &str) -> Vec<u8> {
    let mut b = unhex("51 44 46 01 00 ef 10 00 01 81 74");
    b.push(kind);
    b.extend(unhex(body));
    b
}

#[test]
fn hostile_errors_are_at_the_documented_byte() {
    // 2010-01-01T00:00:00 and on, a second apart.
    const OK: &str = "e6 03 00 80 f6 f4 d9 04 02 10";
    // Offsets: kind 11, layout 12, S 13.
    let cases: [(&str, String, u64); 7] = [
        ("layout bit 6", format!("40 00 {OK}"), 12),
        ("pattern 3", format!("03 00 {OK}"), 12),
        ("fraction 15", format!("3c 00 {OK}"), 12),
        (
            "suffix of 33",
            format!("00 21 {} {OK}", "5a ".repeat(33)),
            13,
        ),
        ("suffix DEL", format!("00 02 5a 7f {OK}"), 13),
        (
            "past 9999",
            "00 00 e6 03 00 00 80 a0 b7 87 e9 05 10".into(),
            14,
        ),
        (
            "past 9999 after a suffix",
            "00 02 5a 5a e6 03 00 00 80 a0 b7 87 e9 05 10".into(),
            16,
        ),
    ];
    for (what, body, at) in cases {
        let b = container(0x34, &body);
        agree(&b, &Options::default(), what);
        let e = qdf_core::from_slice::<Value>(&b).err().unwrap();
        assert!(matches!(e.code(), ErrorCode::BadCodec(_)), "{what}: {e}");
        assert_eq!(e.offset(), Some(at), "{what}: {e}");
    }
    // The same body with a two-byte suffix decodes, the suffix printed after each value.
    let v =
        qdf_core::from_slice::<Vec<Row2>>(&container(0x34, &format!("00 02 2b 31 {OK}"))).unwrap();
    let want: Vec<String> = (0..16).map(|i| stamp(Y2010 + i, 0) + "+1").collect();
    assert_eq!(v.into_iter().map(|r| r.t).collect::<Vec<_>>(), want);
}

#[derive(Deserialize)]
struct Row2 {
    t: String,
}

#[test]
fn mutated_nested_and_optional_messages_agree_with_the_walker() {
    let opt: Vec<Opt> = (0..20)
        .map(|i| Opt {
            a: i,
            t: (i % 4 != 1).then(|| stamp(Y2010 + 7 * i64::from(i), 0) + ".5Z"),
            ..Opt::default()
        })
        .collect();
    let mut msgs = Vec::new();
    for (_, opts) in tiers() {
        msgs.push((qdf_core::to_vec_with(&opt, opts).unwrap(), opts));
        msgs.push((qdf_core::to_vec_with(&outers(18), opts).unwrap(), opts));
    }
    for (m, opts) in &msgs {
        assert!(is_date_time(m, opts, "t") || is_date_time(m, opts, "at"));
    }
    agree_mutated(&msgs);
    // Random multi-byte edits too.
    let mut next = xorshift(88);
    for (m, opts) in &msgs {
        for _ in 0..200 {
            let mut c = m.clone();
            crate::common::mutate(&mut c, &mut next);
            agree(&c, opts, "random edit");
        }
    }
}

/// `secs` in units of 10^-f s, with fraction `frac`, in `pattern` and `suffix`.
fn value_of(secs: i64, frac: u64, f: u32, pattern: u8, suffix: &str) -> String {
    let fr = if f > 0 {
        format!(".{:0w$}", frac % 10u64.pow(f), w = f as usize)
    } else {
        String::new()
    };
    format!("{}{fr}{suffix}", stamp(secs, pattern))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random instants of years 0000-9999 (within an i64 of nanoseconds for F = 9), any
    /// fraction width, pattern and printable suffix up to 33 bytes: exact in every tier.
    #[test]
    fn random_layouts_round_trip(
        picks in prop::collection::vec((any::<u64>(), any::<u64>()), 16..40),
        f in 0u32..10,
        pattern in 0u8..3,
        suffix in "[ -~]{0,33}",
    ) {
        let (lo, hi) = if f == 9 {
            (-9_223_372_035i64, 9_223_372_035i64)
        } else {
            (-62_167_219_200, 253_402_300_799)
        };
        let span = (hi - lo) as u64 + 1;
        let vals: Vec<String> = picks
            .iter()
            .map(|&(s, fr)| value_of(lo + (s % span) as i64, fr, f, pattern, &suffix))
            .collect();
        let r = rows(&vals);
        for (tier, opts) in tiers() {
            let b = qdf_core::to_vec_with(&r, opts).unwrap();
            let back: Vec<Row> = qdf_core::from_slice_with(&b, opts).unwrap();
            prop_assert_eq!(&back, &r, "{}", tier);
        }
    }

    /// Random bytes after a valid layout and suffix: the walker agrees with the decoder, and
    /// whatever decodes is 16 values of the layout that round-trip.
    #[test]
    fn random_integers_after_a_valid_layout(
        head in prop::sample::select(vec!["00 01 5a", "0d 00", "26 06 20 2d 30 37 30 30"]),
        kind in prop::sample::select(vec![0x34u8, 0x74]),
        body in prop::collection::vec(any::<u8>(), 0..48),
    ) {
        let mut b = container(kind, head);
        b.extend(&body);
        agree(&b, &Options::default(), "random integers");
        if let Ok(v) = qdf_core::from_slice::<Vec<Opt2>>(&b) {
            prop_assert_eq!(v.len(), 16);
            let len = match head {
                "00 01 5a" => 20,
                "0d 00" => 23,
                _ => 36,
            };
            for r in v.iter().flat_map(|r| r.t.as_ref()) {
                prop_assert_eq!(r.len(), len, "{}", r);
            }
            let again = qdf_core::to_vec(&v).unwrap();
            let back: Vec<Opt2> = qdf_core::from_slice(&again).unwrap();
            prop_assert_eq!(back, v);
        }
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Opt2 {
    t: Option<String>,
}

#[test]
fn instants_at_the_ends_of_an_i64_of_nanoseconds() {
    // i64::MIN and i64::MAX nanoseconds since 1970, alternating (their deltas overflow an
    // i64), then one nanosecond past either end.
    let min = stamp(-9_223_372_037, 0) + ".145224192Z";
    let max = stamp(9_223_372_036, 0) + ".854775807Z";
    assert_eq!(
        (min.as_str(), max.as_str()),
        (
            "1677-09-21T00:12:43.145224192Z",
            "2262-04-11T23:47:16.854775807Z"
        )
    );
    let ends: Vec<String> = (0..20)
        .map(|i| if i % 2 == 0 { min.clone() } else { max.clone() })
        .collect();
    let b = exact(&rows(&ends), "i64 ends");
    assert!(is_date_time(&b, &Options::balanced(), "t"));
    let all_max = vec![max.clone(); 17];
    exact(&rows(&all_max), "i64::MAX only");
    for (what, i, past) in [
        (
            "before i64::MIN",
            4,
            stamp(-9_223_372_037, 0) + ".145224191Z",
        ),
        ("after i64::MAX", 5, stamp(9_223_372_036, 0) + ".854775808Z"),
    ] {
        let mut vals = ends.clone();
        vals[i] = past;
        let b = exact(&rows(&vals), what);
        assert!(!is_date_time(&b, &Options::balanced(), "t"), "{what}");
    }
}

#[test]
fn value_and_json_sources_round_trip() {
    let vals: Vec<String> = (0..24)
        .map(|i| stamp(Y2010 + 86_401 * i, 1) + ".5+01:00")
        .collect();
    let r = rows(&vals);
    for (tier, opts) in tiers() {
        // Decoded into a `Value`, written again from it: the same rows.
        let b = qdf_core::to_vec_with(&r, opts).unwrap();
        let v: Value = qdf_core::from_slice_with(&b, opts).unwrap();
        let again = qdf_core::to_vec_with(&v, opts).unwrap();
        let back: Vec<Row> = qdf_core::from_slice_with(&again, opts).unwrap();
        assert_eq!(back, r, "{tier}: from Value");
        // JSON objects (maps, not structs) as the source.
        let j = serde_json::to_value(&r).unwrap();
        let b = qdf_core::to_vec_with(&j, opts).unwrap();
        let back: serde_json::Value = qdf_core::from_slice_with(&b, opts).unwrap();
        assert_eq!(back, j, "{tier}: from JSON");
        let typed: Vec<Row> = qdf_core::from_slice_with(&b, opts).unwrap();
        assert_eq!(typed, r, "{tier}: JSON to rows");
        agree(&b, &opts, "json");
    }
}

#[test]
fn session_messages_with_renewal() {
    for (tier, opts) in tiers() {
        let opts = opts.session_renewal(true);
        let mut enc = EncoderSession::new(opts);
        let mut dec = DecoderSession::new(opts);
        for (i, batch) in session_batches().iter().enumerate() {
            let mut m = Vec::new();
            enc.encode_message(batch, &mut m).unwrap();
            let got: Vec<Row> = dec.decode_message(&m).unwrap();
            assert_eq!(&got, batch, "{tier} message {i}");
            if i == 2 {
                enc.renew();
            }
        }
    }
}

#[test]
fn an_overlong_suffix_length_is_refused_or_described_alike() {
    // S = 0 as the minimal `00` and as the overlong `80 00`.
    const OK: &str = "e6 03 00 80 f6 f4 d9 04 02 10";
    let describe = |b: &[u8]| {
        let mut out = None;
        inspect::message(b, &Options::default(), &mut |e| {
            if let EventKind::Column { values, .. } = &e.kind {
                out = Some(values.to_string());
            }
        })
        .map(|()| out)
    };
    let minimal = container(0x34, &format!("00 00 {OK}"));
    let overlong = container(0x34, &format!("00 80 00 {OK}"));
    agree(&overlong, &Options::default(), "overlong S");
    if let Ok(v) = qdf_core::from_slice::<Value>(&overlong) {
        assert_eq!(v, qdf_core::from_slice::<Value>(&minimal).unwrap());
        assert_eq!(describe(&overlong).ok(), describe(&minimal).ok());
    }
}
