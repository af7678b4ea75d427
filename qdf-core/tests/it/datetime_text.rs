//! Date-time text columns (`docs/SPEC.md` §22.1, kind bits `30`): a string column whose
//! values are dates and times of one layout (ISO 8601 with `T` or a space, the Common Log
//! Format) is stored as instants and printed back byte for byte, in every tier and batch
//! size; anything else stays a string column and exact; hostile bodies are typed errors on
//! which the `inspect` walker and the decoder agree.

use crate::common::dates::{Y2010, clf, iso};
use crate::common::{hex, tiers, unhex, xorshift};
use crate::inspect::{agree, agree_mutated};
use proptest::prelude::*;
use qdf_core::inspect::{self, EventKind};
use qdf_core::{Category, Options, Value};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Rec {
    t: String,
    n: u32,
}

fn recs(vals: &[String]) -> Vec<Rec> {
    let rec = |(i, t): (usize, &String)| Rec {
        t: t.clone(),
        n: i as u32,
    };
    vals.iter().enumerate().map(rec).collect()
}

/// The kind byte and values description of column `t` of the first container in `bytes`.
fn t_column(bytes: &[u8], opts: &Options) -> Option<(u8, String)> {
    let mut out = None;
    inspect::message(bytes, opts, &mut |e| {
        if let EventKind::Column {
            name, kind, values, ..
        } = &e.kind
            && *name == "t"
        {
            out = Some((*kind, values.to_string()));
        }
    })
    .unwrap();
    out
}

/// Named columns of `n` values and whether Balanced must store them as date-time text.
fn datasets(n: usize) -> Vec<(&'static str, Vec<String>, bool)> {
    let r = 0..n as i64;
    let map = |f: &dyn Fn(i64) -> String| r.clone().map(f).collect::<Vec<_>>();
    let mut next = xorshift(7);
    let jitter: Vec<i64> = (0..n).map(|_| (next() % 1_000_000_000) as i64).collect();
    vec![
        ("hourly", map(&|i| iso(Y2010 + 3600 * i, 'T')), true),
        ("hourly, space", map(&|i| iso(Y2010 + 3600 * i, ' ')), true),
        ("utc", map(&|i| iso(Y2010 + 7 * i, 'T') + "Z"), true),
        (
            "offset and millis",
            map(&|i| format!("{}.{:03}+02:00", iso(Y2010 + i, 'T'), (i * 37) % 1000)),
            true,
        ),
        (
            "nanos",
            map(&|i| format!("{}.{:09}Z", iso(Y2010 + i, 'T'), jitter[i as usize])),
            true,
        ),
        ("clf", map(&|i| clf(971_186_136 + 2 * i) + " -0700"), true),
        (
            "random instants",
            map(&|i| iso(jitter[i as usize] * 61 - 30_000_000_000, 'T')),
            true,
        ),
        ("before 1970", map(&|i| iso(-86_400 * 400 * i, 'T')), true),
        (
            "year 0 and 9999",
            map(&|i| {
                iso(
                    if i % 2 == 0 {
                        -62_167_219_200
                    } else {
                        253_402_300_799
                    },
                    'T',
                )
            }),
            true,
        ),
        (
            "leap second",
            map(&|i| {
                if i == 3 {
                    "2016-12-31T23:59:60Z".into()
                } else {
                    iso(Y2010 + i, 'T') + "Z"
                }
            }),
            false,
        ),
        (
            "mixed layouts",
            map(&|i| iso(Y2010 + i, if i == 5 { ' ' } else { 'T' })),
            false,
        ),
        (
            "mixed suffixes",
            map(&|i| iso(Y2010 + i, 'T') + if i == 2 { "+00:00" } else { "Z" }),
            false,
        ),
        (
            "mixed fraction widths",
            map(&|i| {
                format!(
                    "{}.{}",
                    iso(Y2010 + i, 'T'),
                    if i == 1 { "5" } else { "50" }
                )
            }),
            false,
        ),
        (
            "not a day",
            map(&|i| {
                if i == 4 {
                    "2010-02-30T00:00:00".into()
                } else {
                    iso(Y2010 + i, 'T')
                }
            }),
            false,
        ),
        ("lowercase t", map(&|i| iso(Y2010 + i, 't')), false),
        (
            "dates only",
            map(&|i| iso(Y2010 + 86_400 * i, 'T')[..10].to_owned()),
            false,
        ),
        (
            "empty among dates",
            map(&|i| {
                if i == 0 {
                    String::new()
                } else {
                    iso(Y2010 + i, 'T')
                }
            }),
            false,
        ),
    ]
}

#[test]
fn round_trips_are_exact_in_every_tier_and_size() {
    for n in [1, 15, 16, 17, 40, 100] {
        for (what, vals, date_time) in datasets(n) {
            let rows = recs(&vals);
            let speed = qdf_core::to_vec_with(&rows, Options::speed()).unwrap();
            let row_text = qdf_core::from_slice::<Value>(&speed).unwrap().to_string();
            for (tier, opts) in tiers() {
                let b = qdf_core::to_vec_with(&rows, opts).unwrap();
                let back: Vec<Rec> = qdf_core::from_slice_with(&b, opts)
                    .unwrap_or_else(|e| panic!("{what} {tier} {n}: {e}"));
                assert_eq!(back, rows, "{what} {tier} {n}");
                let v: Value = qdf_core::from_slice_with(&b, opts).unwrap();
                assert_eq!(v.to_string(), row_text, "{what} {tier} {n}: as Value");
                agree(&b, &opts, what);
                let kind = t_column(&b, &opts).map(|(k, _)| k & 0x30);
                if n < 16 || tier == "speed" {
                    assert_eq!(kind, None, "{what} {tier} {n}: rows");
                } else if date_time && n >= 40 {
                    assert_eq!(kind, Some(0x30), "{what} {tier} {n}: {}", hex(&b));
                } else if !date_time {
                    assert_ne!(kind, Some(0x30), "{what} {tier} {n}");
                }
            }
        }
    }
}

#[test]
fn an_hourly_series_costs_a_few_bytes() {
    let vals: Vec<String> = (0..8759)
        .map(|i| iso(Y2010 + 3600 * (i + 1), 'T'))
        .collect();
    #[derive(Serialize)]
    struct D<'a> {
        date: &'a str,
    }
    let rows: Vec<D<'_>> = vals.iter().map(|d| D { date: d }).collect();
    let b = qdf_core::to_vec(&rows).unwrap();
    // Container, name, kind, layout and suffix length, then a delta body of width 0: first
    // 2010-01-01T01:00:00 (1 262 307 600), step 3 600, 8 759 values.
    assert_eq!(
        hex(&b[5..]),
        "ef b7 44 00 01 e0 04 64 61 74 65 34 00 00 e6 03 00 90 92 f5 d9 04 a0 38 b7 44"
    );
    let back: Vec<String> = qdf_core::from_slice::<Vec<Rec2>>(&b)
        .unwrap()
        .into_iter()
        .map(|r| r.date)
        .collect();
    assert_eq!(back, vals);
}

#[derive(Deserialize)]
struct Rec2 {
    date: String,
}

#[test]
fn golden_bodies() {
    #[derive(Serialize)]
    struct S {
        t: String,
    }
    let rows = |f: &dyn Fn(i64) -> String| (0..16).map(|i| S { t: f(i) }).collect::<Vec<_>>();
    // Every second from 2010-01-01T00:00:00Z: layout 00, suffix "Z", delta + FOR width 0.
    let b = qdf_core::to_vec(&rows(&|i| iso(Y2010 + i, 'T') + "Z")).unwrap();
    assert_eq!(
        hex(&b[5..]),
        "ef 10 00 01 81 74 34 00 01 5a e6 03 00 80 f6 f4 d9 04 02 10"
    );
    // The Common Log Format with its offset: layout 02, suffix " -0700".
    let b = qdf_core::to_vec(&rows(&|i| clf(971_186_136 + 60 * i) + " -0700")).unwrap();
    assert_eq!(
        hex(&b[5..]),
        "ef 10 00 01 81 74 34 02 06 20 2d 30 37 30 30 e6 03 00 d8 bf 8c cf 03 78 10"
    );
    let v: Value = qdf_core::from_slice(&b).unwrap();
    assert!(
        v.to_string().starts_with(
            r#"[{"t": "10/Oct/2000:13:55:36 -0700"}, {"t": "10/Oct/2000:13:56:36 -0700"}"#
        ),
        "{v}"
    );
    // Milliseconds 50 apart, space separator: layout 0d (F = 3, pattern 1), no suffix.
    let b = qdf_core::to_vec(&rows(&|i| format!("{}.{:03}", iso(Y2010, ' '), 50 * i))).unwrap();
    assert_eq!(
        hex(&b[5..]),
        "ef 10 00 01 81 74 34 0d 00 e6 03 00 80 f0 b9 b9 de 24 64 10"
    );
}

/// One-column containers of 16 rows named `t` with kind `kind` and body `body` (hex).
fn container(kind: u8, body: &str) -> Vec<u8> {
    let mut b = unhex("51 44 46 01 00 ef 10 00 01 81 74");
    b.push(kind);
    b.extend(unhex(body));
    b
}

#[test]
fn hostile_bodies_are_typed_errors() {
    use Category::{Eof, Syntax};
    // 2010-01-01T00:00:00 and on, a second apart.
    const OK: &str = "e6 03 00 80 f6 f4 d9 04 02 10";
    let cases: &[(&str, u8, String, Option<Category>)] = &[
        ("ok", 0x34, format!("00 00 {OK}"), None),
        ("ok, optional", 0x74, format!("ff ff 00 00 {OK}"), None),
        ("both bits on a uint", 0x31, OK.into(), Some(Syntax)),
        (
            "both bits on a tagged column",
            0x38,
            OK.into(),
            Some(Syntax),
        ),
        ("layout bit 6", 0x34, format!("40 00 {OK}"), Some(Syntax)),
        ("layout bit 7", 0x34, format!("80 00 {OK}"), Some(Syntax)),
        ("pattern 3", 0x34, format!("03 00 {OK}"), Some(Syntax)),
        ("fraction 10", 0x34, format!("28 00 {OK}"), Some(Syntax)),
        (
            "suffix of 33",
            0x34,
            format!("00 21 {} {OK}", "5a ".repeat(33)),
            Some(Syntax),
        ),
        (
            "suffix not ASCII",
            0x34,
            format!("00 01 c3 {OK}"),
            Some(Syntax),
        ),
        (
            "suffix control",
            0x34,
            format!("00 01 0a {OK}"),
            Some(Syntax),
        ),
        ("suffix cut", 0x34, "00 05 5a".into(), Some(Eof)),
        ("no layout", 0x34, String::new(), Some(Eof)),
        // 10^11 seconds a step: the 16th instant is past 9999-12-31.
        (
            "past year 9999",
            0x34,
            "00 00 e6 03 00 00 80 a0 b7 87 e9 05 10".into(),
            Some(Syntax),
        ),
        // -62 167 219 201: one second before 0000-01-01 (signed delta kind 07).
        (
            "before year 0",
            0x34,
            "00 00 e6 07 00 81 f0 a3 97 cf 03 00 10".into(),
            Some(Syntax),
        ),
        (
            "floats",
            0x34,
            format!("00 00 e4 0a 10 {}", "00 ".repeat(64)),
            Some(Syntax),
        ),
        (
            "a string block",
            0x34,
            "00 00 f9 01 31 10".into(),
            Some(Syntax),
        ),
        (
            "count",
            0x34,
            "00 00 e6 03 00 80 f6 f4 d9 04 02 0f".into(),
            Some(Syntax),
        ),
        (
            "signed without a negative",
            0x34,
            "00 00 e6 07 00 80 ec e9 b3 09 02 10".into(),
            Some(Syntax),
        ),
        (
            "integers cut",
            0x34,
            "00 00 e6 03 00 80 f6 f4 d9 04 02".into(),
            Some(Eof),
        ),
    ];
    for (what, kind, body, expect) in cases {
        let b = container(*kind, body);
        agree(&b, &Options::default(), what);
        let r = qdf_core::from_slice::<Value>(&b);
        match (expect, r) {
            (None, Ok(v)) => assert!(
                v.to_string()
                    .starts_with(r#"[{"t": "2010-01-01T00:00:00"}"#),
                "{what}: {v}"
            ),
            (None, Err(e)) => panic!("{what}: {e}"),
            (Some(_), Ok(v)) => panic!("{what}: accepted as {v}"),
            (Some(c), Err(e)) => {
                assert_eq!(e.classify(), *c, "{what}: {e}");
                assert!(e.offset().is_some_and(|o| o >= 11), "{what}: {e}");
            }
        }
    }
}

#[test]
fn mutated_messages_agree_with_the_walker() {
    let hourly: Vec<String> = (0..20).map(|i| iso(Y2010 + 3600 * i, 'T') + "Z").collect();
    let logs: Vec<String> = (0..20)
        .map(|i| clf(971_186_136 + 3 * i) + " -0700")
        .collect();
    let msgs = [
        (
            qdf_core::to_vec(&recs(&hourly)).unwrap(),
            Options::balanced(),
        ),
        (
            qdf_core::to_vec_with(&recs(&logs), Options::compression()).unwrap(),
            Options::compression(),
        ),
    ];
    for (m, opts) in &msgs {
        assert_eq!(t_column(m, opts).map(|(k, _)| k & 0x30), Some(0x30));
    }
    agree_mutated(&msgs);
}

#[test]
fn the_output_limit_charges_the_printed_text() {
    let vals: Vec<String> = (0..64).map(|i| iso(Y2010 + i, 'T') + "Z").collect();
    let b = qdf_core::to_vec(&recs(&vals)).unwrap();
    let fits = |units: u64| {
        let opts = Options::balanced().limits(qdf_core::Limits::DEFAULT.max_output(units));
        qdf_core::from_slice_with::<Vec<Rec>>(&b, opts).is_ok()
    };
    let least = (0..1 << 16).find(|&u| fits(u)).unwrap();
    // 64 instants (8 units each) and 64 × 20 characters are among what is charged.
    assert!(least >= 64 * 8 + 64 * 20, "{least}");
    assert!(!fits(least - 1));
    let enc = Options::balanced().limits(qdf_core::Limits::DEFAULT.max_output(least));
    assert_eq!(qdf_core::to_vec_with(&recs(&vals), enc).unwrap(), b);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random instants in a random layout come back exactly in every tier.
    #[test]
    fn random_instants_round_trip(
        secs in prop::collection::vec(-62_167_219_200i64..253_402_300_800, 16..48),
        frac in 0u32..10,
        pattern in 0u8..3,
        suffix in "[ -~]{0,8}",
    ) {
        let vals: Vec<String> = secs.iter().enumerate().map(|(i, &s)| {
            let stamp = match pattern {
                0 => iso(s, 'T'),
                1 => iso(s, ' '),
                _ => clf(s),
            };
            let f = if frac > 0 { format!(".{:0w$}", i as u64 * 7 % 10u64.pow(frac), w = frac as usize) } else { String::new() };
            format!("{stamp}{f}{suffix}")
        }).collect();
        let rows = recs(&vals);
        for (_, opts) in tiers() {
            let b = qdf_core::to_vec_with(&rows, opts).unwrap();
            let back: Vec<Rec> = qdf_core::from_slice_with(&b, opts).unwrap();
            prop_assert_eq!(&back, &rows);
        }
    }

    /// Random bodies behind a date-time kind byte never panic, and the walker agrees.
    #[test]
    fn random_bodies_do_not_panic(
        kind in prop::sample::select(vec![0x34u8, 0x74, 0xB4, 0xF4]),
        body in prop::collection::vec(any::<u8>(), 0..64),
    ) {
        let mut b = unhex("51 44 46 01 00 ef 10 00 01 81 74");
        b.push(kind);
        b.extend(body);
        agree(&b, &Options::default(), "random body");
    }
}
