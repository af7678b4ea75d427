//! Number-text string columns (`docs/SPEC.md` §22.1): a string column of canonical decimal
//! integers (kind bit `10`) or canonical fixed-length hex (kind bit `20`; both bits are date-time
//! text, `datetime_text.rs`) round-trips to the
//! same `String`s in every tier and at every batch size; strings that only look numeric stay
//! exact; hostile bodies are typed errors.

use std::borrow::Cow;

use crate::common::{hex, tiers, unhex};
use proptest::prelude::*;
use qdf_core::inspect::{self, EventKind};
use qdf_core::{Category, DecoderSession, EncoderSession, Options, Value};
use serde::{Deserialize, Serialize};

const DECIMAL: u8 = 0x10;
const HEX: u8 = 0x20;

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Rec {
    s: String,
    n: u32,
}

fn recs(vals: &[String]) -> Vec<Rec> {
    vals.iter()
        .enumerate()
        .map(|(i, s)| Rec {
            s: s.clone(),
            n: i as u32,
        })
        .collect()
}

/// A deterministic 64-bit mix (SplitMix64).
fn mix(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The kind byte of each column of the first container in `bytes` (by name).
fn kinds(bytes: &[u8], opts: &Options) -> Vec<(String, u8, String)> {
    let mut out = Vec::new();
    inspect::message(bytes, opts, &mut |e| {
        if let EventKind::Column {
            name, kind, values, ..
        } = &e.kind
        {
            out.push((name.to_string(), *kind, values.to_string()));
        }
    })
    .unwrap();
    out
}

/// The kind byte of column `s`, if the batch was written as a container.
fn s_kind(bytes: &[u8], opts: &Options) -> Option<u8> {
    kinds(bytes, opts)
        .into_iter()
        .find(|(n, ..)| n == "s")
        .map(|(_, k, _)| k)
}

/// Named datasets of `n` values and the number-text bit the Balanced writer must pick for
/// them once columnar (`None`: must stay a plain string column; `Some(0xFF)`: either).
fn datasets(n: usize) -> Vec<(&'static str, Vec<String>, Option<u8>)> {
    let r = 0..n as u64;
    let map = |f: &dyn Fn(u64) -> String| r.clone().map(f).collect::<Vec<_>>();
    vec![
        (
            "unix nanos",
            map(&|i| (1_782_036_644_636_668_325u64 + i * 1_234_567).to_string()),
            Some(DECIMAL),
        ),
        ("small", map(&|i| (i % 7).to_string()), Some(DECIMAL)),
        (
            "negatives",
            map(&|i| (i as i64 - 8).to_string()),
            Some(DECIMAL),
        ),
        (
            "u64 max",
            map(&|i| (u64::MAX - i).to_string()),
            Some(DECIMAL),
        ),
        (
            "i64 min",
            map(&|i| (i64::MIN + i as i64).to_string()),
            Some(DECIMAL),
        ),
        ("span ids", map(&|i| format!("{:016x}", mix(i))), Some(HEX)),
        (
            "trace ids upper",
            map(&|i| format!("{:016X}{:016X}", mix(i), mix(!i))),
            Some(HEX),
        ),
        (
            "parent ids",
            map(&|i| {
                if i % 5 == 0 {
                    String::new()
                } else {
                    format!("{:016x}", mix(i))
                }
            }),
            Some(HEX),
        ),
        ("leading zeros", map(&|i| format!("{i:03}")), None),
        ("plus", map(&|i| format!("+{i}")), None),
        ("exponent", map(&|i| format!("{i}e3")), None),
        (
            "minus zero",
            map(&|i| if i == 3 { "-0".into() } else { i.to_string() }),
            None,
        ),
        (
            "past u128",
            map(&|i| format!("34028236692093846346337460743176821145{}", i % 10)),
            None,
        ),
        // 20 digits past u64: not decimal, but canonical hex (digits only, one length).
        (
            "past u64",
            map(&|i| (u128::from(u64::MAX) + 1 + u128::from(i)).to_string()),
            Some(0xFF),
        ),
        (
            "empty among numbers",
            map(&|i| {
                if i % 4 == 0 {
                    String::new()
                } else {
                    (1000 + i).to_string()
                }
            }),
            Some(0xFF),
        ),
        (
            "mixed case hex",
            map(&|i| {
                let s = format!("{:016x}", mix(i) | 0xA000_0000_0000_000A);
                if i % 2 == 0 { s.to_uppercase() } else { s }
            }),
            None,
        ),
        (
            "odd hex",
            map(&|i| format!("{:015x}", mix(i) >> 4 | 0xA)),
            None,
        ),
        (
            "mixed lengths",
            map(&|i| format!("{:x}", mix(i) >> (i % 3))),
            Some(0xFF),
        ),
        (
            "sign only",
            map(&|i| if i == 1 { "-".into() } else { i.to_string() }),
            None,
        ),
        ("spaces", map(&|i| format!(" {i}")), None),
    ]
}

#[test]
fn round_trips_are_exact_in_every_tier_and_size() {
    for n in [1, 15, 16, 17, 40, 100] {
        for (what, vals, expect) in datasets(n) {
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
                let kind = s_kind(&b, &opts);
                if n < 16 || tier == "speed" {
                    assert_eq!(kind, None, "{what} {tier} {n}: rows");
                    continue;
                }
                let bits = kind.map(|k| k & (DECIMAL | HEX));
                match expect {
                    Some(0xFF) => assert_ne!(bits, Some(DECIMAL), "{what} {tier} {n}"),
                    Some(e) if n >= 40 || tier != "compression" => {
                        assert_eq!(bits, Some(e), "{what} {tier} {n}: {}", hex(&b))
                    }
                    Some(_) => {}
                    None => assert!(
                        bits.is_none_or(|b| b == 0),
                        "{what} {tier} {n}: {}",
                        hex(&b)
                    ),
                }
            }
        }
    }
}

/// The OTLP JSON mapping's shape: ids as hex, times as decimal strings, one root per trace.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(rename_all = "camelCase")]
struct JsonSpan {
    trace_id: String,
    span_id: String,
    parent_span_id: String,
    name: String,
    start_time_unix_nano: String,
    end_time_unix_nano: String,
}

fn spans(n: u64) -> Vec<JsonSpan> {
    (0..n)
        .map(|i| {
            let start = 1_782_036_644_636_668_325 + i * 3_000_017;
            JsonSpan {
                trace_id: format!("{:016x}{:016x}", mix(i / 10), mix(!(i / 10))),
                span_id: format!("{:016x}", mix(i)),
                parent_span_id: if i % 10 == 0 {
                    String::new()
                } else {
                    format!("{:016x}", mix(i - 1))
                },
                name: format!("GET /api/{}", i % 4),
                start_time_unix_nano: start.to_string(),
                end_time_unix_nano: (start + 500_000 + mix(i) % 9_000_000).to_string(),
            }
        })
        .collect()
}

#[test]
fn json_mapping_spans_shrink_and_come_back() {
    let s = spans(100);
    let b = qdf_core::to_vec(&s).unwrap();
    let k = kinds(&b, &Options::default());
    let bits: Vec<(String, u8)> = k.iter().map(|(n, k, _)| (n.clone(), k & 0x30)).collect();
    assert_eq!(
        bits,
        [
            ("traceId".to_string(), 0),
            ("spanId".into(), HEX),
            ("parentSpanId".into(), HEX),
            ("name".into(), 0),
            ("startTimeUnixNano".into(), DECIMAL),
            ("endTimeUnixNano".into(), DECIMAL),
        ]
    );
    assert_eq!(k[1].2, "hex bytes");
    assert_eq!(qdf_core::from_slice::<Vec<JsonSpan>>(&b).unwrap(), s);
    // Cow comes out owned (the values are printed by the decoder).
    #[derive(Deserialize)]
    struct Ids<'a> {
        #[serde(borrow, rename = "spanId")]
        span_id: Cow<'a, str>,
    }
    let ids: Vec<Ids<'_>> = qdf_core::from_slice(&b).unwrap();
    assert!(matches!(ids[3].span_id, Cow::Owned(_)));
    assert_eq!(ids[3].span_id, s[3].span_id);
    // A borrowed &str is the rebuilt-column Data error, naming the field.
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Borrowed<'a> {
        #[serde(rename = "startTimeUnixNano")]
        t: &'a str,
    }
    let e = qdf_core::from_slice::<Vec<Borrowed<'_>>>(&b).unwrap_err();
    assert_eq!(e.classify(), Category::Data, "{e}");
    assert!(e.to_string().contains("startTimeUnixNano"), "{e}");
    // Borrowable strings never use the printed forms.
    let opts = Options::balanced().borrowable_strings(true);
    let bb = qdf_core::to_vec_with(&s, opts).unwrap();
    assert!(kinds(&bb, &opts).iter().all(|(_, k, _)| k & 0x30 == 0));
    let back: Vec<Borrowed<'_>> = qdf_core::from_slice_with(&bb, opts).unwrap();
    assert_eq!(back[7].t, s[7].start_time_unix_nano);
}

#[test]
fn sessions_and_subset_decode_keep_step() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct NameOnly {
        name: String,
    }
    let mut enc = EncoderSession::new(Options::balanced());
    let mut wire = Vec::new();
    for _ in 0..3 {
        enc.encode_frame(&spans(40), &mut wire).unwrap();
    }
    let mut dec = DecoderSession::new(Options::balanced());
    let mut at = 0;
    let (names, used): (Vec<NameOnly>, usize) = dec.decode_frame(&wire[at..]).unwrap().unwrap();
    at += used;
    assert_eq!(names[5].name, "GET /api/1");
    for _ in 0..2 {
        let (full, used): (Vec<JsonSpan>, usize) = dec.decode_frame(&wire[at..]).unwrap().unwrap();
        at += used;
        assert_eq!(full, spans(40));
    }
    assert_eq!(at, wire.len());
}

/// One-column containers of 16 rows named `s` with kind `kind` and body `body` (hex).
fn container(kind: u8, body: &str) -> Vec<u8> {
    let mut b = unhex("51 44 46 01 00 ef 10 00 01 81 73");
    b.push(kind);
    b.extend(unhex(body));
    b
}

#[test]
fn golden_bodies() {
    let vals: Vec<String> = (100..116).map(|i: u32| i.to_string()).collect();
    #[derive(Serialize)]
    struct S {
        s: String,
    }
    let rows: Vec<S> = vals.iter().map(|v| S { s: v.clone() }).collect();
    let b = qdf_core::to_vec(&rows).unwrap();
    assert_eq!(hex(&b[5..]), "ef 10 00 01 81 73 14 e6 03 00 64 02 10");
    let ids: Vec<S> = (0..16u32)
        .map(|i| S {
            s: if i == 0 {
                String::new()
            } else {
                format!("ab{i:02x}")
            },
        })
        .collect();
    let b = qdf_core::to_vec(&ids).unwrap();
    assert_eq!(
        hex(&b[5..]),
        "ef 10 00 01 81 73 24 02 02 01 00 ab 01 ab 02 ab 03 ab 04 ab 05 ab 06 ab 07 ab 08 ab \
         09 ab 0a ab 0b ab 0c ab 0d ab 0e ab 0f"
    );
    let v: Value = qdf_core::from_slice(&b).unwrap();
    assert!(
        v.to_string().starts_with(r#"[{"s": ""}, {"s": "ab01"}"#),
        "{v}"
    );
}

/// 16 raw `f32` zeros.
const F32S: &str = "e4 0a 10 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";

#[test]
fn hostile_bodies_are_typed_errors() {
    use Category::{Eof, Syntax};
    let cases: &[(&str, u8, &str, Option<Category>)] = &[
        ("decimal ok", 0x14, "e6 03 00 64 02 10", None),
        (
            "hex ok",
            0x24,
            "00 01 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f",
            None,
        ),
        (
            "plain ok",
            0x14,
            "b0 05 d8 05 d8 05 d8 05 d8 05 d8 05 d8 05 d8 05 d8",
            None,
        ),
        (
            "decimal bit on uint",
            0x11,
            "e6 03 00 64 02 10",
            Some(Syntax),
        ),
        ("hex bit on bool", 0x23, "e3 10 00 00", Some(Syntax)),
        (
            "both bits (date-time), layout byte e6",
            0x34,
            "e6 03 00 64 02 10",
            Some(Syntax),
        ),
        ("decimal floats", 0x14, F32S, Some(Syntax)),
        ("decimal bools", 0x14, "e3 10 00 00", Some(Syntax)),
        ("decimal count", 0x14, "e6 03 00 64 02 0f", Some(Syntax)),
        (
            "decimal plain count",
            0x14,
            "af 05 05 05 05 05 05 05 05 05 05 05 05 05 05 05",
            Some(Syntax),
        ),
        (
            "decimal signed without a negative",
            0x14,
            "e6 07 00 02 02 10",
            Some(Syntax),
        ),
        ("decimal string block", 0x14, "f9 01 31 10", Some(Syntax)),
        ("decimal truncated", 0x14, "e6 03 00 64 02", Some(Eof)),
        ("hex flags", 0x24, "08 01", Some(Syntax)),
        ("hex length 0", 0x24, "00 00", Some(Syntax)),
        ("hex short", 0x24, "00 01 00 01 02", Some(Eof)),
        (
            "hex length overflow",
            0x24,
            "00 ff ff ff ff ff ff ff ff 7f 00",
            Some(Eof),
        ),
        (
            "hex empty mask without a bit",
            0x24,
            "02 01 00 00",
            Some(Syntax),
        ),
    ];
    for &(what, kind, body, expect) in cases {
        let b = container(kind, body);
        let r = qdf_core::from_slice::<Value>(&b);
        match (expect, r) {
            (None, Ok(v)) => assert!(v.to_string().starts_with(r#"[{"s": ""#), "{what}: {v}"),
            (None, Err(e)) => panic!("{what}: {e}"),
            (Some(_), Ok(v)) => panic!("{what}: accepted as {v}"),
            (Some(c), Err(e)) => {
                assert_eq!(e.classify(), c, "{what}: {e}");
                assert!(e.offset().is_some_and(|o| o >= 11), "{what}: {e}");
            }
        }
    }
}

#[test]
fn hex_mask_padding_and_plain_arrays() {
    // 17 rows: the mask's third byte has 7 padding bits.
    let mut b = unhex("51 44 46 01 00 ef 11 00 01 81 73 24 02 01 01 00 02");
    b.extend(std::iter::repeat_n(0x5a, 16));
    let e = qdf_core::from_slice::<Value>(&b).unwrap_err();
    assert_eq!(e.classify(), Category::Syntax, "{e}");
    assert_eq!(e.offset(), Some(16));
    b[16] = 0;
    let v: Value = qdf_core::from_slice(&b).unwrap();
    assert!(
        v.to_string().starts_with(r#"[{"s": ""}, {"s": "5a"}"#),
        "{v}"
    );
    // A plain array of ints prints them, signed ones with their sign.
    let b = container(0x14, "b0 05 d8 05 d8 05 d8 05 d8 05 d8 05 d8 05 d8 05 d8");
    let v: Vec<Rec2> = qdf_core::from_slice(&b).unwrap();
    assert_eq!((v[0].s.as_str(), v[1].s.as_str()), ("5", "-1"));
}

#[derive(Deserialize)]
struct Rec2 {
    s: String,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Strings near the canonical forms (signs, zeros, hex letters of both cases, lengths
    /// around 16 and 20) come back exactly in every tier.
    #[test]
    fn numeric_looking_strings_round_trip(
        vals in prop::collection::vec(
            prop_oneof![
                any::<u64>().prop_map(|v| v.to_string()),
                any::<i64>().prop_map(|v| v.to_string()),
                any::<u64>().prop_map(|v| format!("{v:016x}")),
                "[-+0-9a-fA-F]{0,22}",
                Just(String::new()),
            ],
            16..48,
        ),
        pick in 0usize..3,
    ) {
        // One generator per column most of the time, so columns qualify.
        let vals: Vec<String> = match pick {
            0 => vals,
            1 => vals.iter().map(|v| if v.starts_with('-') { v.clone() } else { format!("{:x}", v.len()) }).collect(),
            _ => vals.iter().map(|v| v.trim_start_matches(['-', '+', '0']).to_string()).collect(),
        };
        let rows = recs(&vals);
        for (_, opts) in tiers() {
            let b = qdf_core::to_vec_with(&rows, opts).unwrap();
            let back: Vec<Rec> = qdf_core::from_slice_with(&b, opts).unwrap();
            prop_assert_eq!(&back, &rows);
        }
    }

    /// Canonical columns pick their form and come back exactly.
    #[test]
    fn canonical_columns_round_trip(
        ints in prop::collection::vec(any::<i64>(), 16..64),
        ids in prop::collection::vec(any::<u64>(), 16..64),
    ) {
        let vals: Vec<String> = ints.iter().map(|v| v.to_string()).collect();
        let b = qdf_core::to_vec(&recs(&vals)).unwrap();
        prop_assert_eq!(s_kind(&b, &Options::default()).map(|k| k & 0x30), Some(DECIMAL));
        prop_assert_eq!(qdf_core::from_slice::<Vec<Rec>>(&b).unwrap(), recs(&vals));
        let vals: Vec<String> = ids.iter().map(|v| format!("{v:016x}")).collect();
        let b = qdf_core::to_vec(&recs(&vals)).unwrap();
        prop_assert_eq!(qdf_core::from_slice::<Vec<Rec>>(&b).unwrap(), recs(&vals));
    }

    /// Random bodies behind a decimal or hex kind byte never panic.
    #[test]
    fn random_bodies_do_not_panic(kind in prop::sample::select(vec![0x14u8, 0x24, 0x54, 0x94, 0xE4]), body in prop::collection::vec(any::<u8>(), 0..64)) {
        let mut b = unhex("51 44 46 01 00 ef 10 00 01 81 73");
        b.push(kind);
        b.extend(body);
        let _ = qdf_core::from_slice::<Value>(&b);
    }
}
