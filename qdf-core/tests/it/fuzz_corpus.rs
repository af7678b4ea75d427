//! Replays the committed fuzz corpora (`fuzz/corpus/<target>/`) through the fuzz targets' own
//! checks on stable, so every `cargo test` runs them (the QPack targets' in
//! `qpack_fuzz_corpus.rs`).
//!
//! Regenerate the seed files from the test encodings with
//! `QDF_WRITE_FUZZ_CORPUS=1 cargo test -p qdf-core --test it fuzz_corpus::`.

#[path = "../../../fuzz/src/checks.rs"]
#[allow(dead_code)]
mod checks;

use std::path::PathBuf;

use crate::common::*;

fn corpus_dir(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target)
}

/// A record type whose batches of 16+ are columnar (Balanced) with string blocks.
#[derive(serde::Serialize)]
struct Row {
    id: u32,
    host: String,
    msg: String,
    took: f64,
    tag: Option<&'static str>,
}

fn rows(n: u32) -> Vec<Row> {
    (0..n)
        .map(|i| Row {
            id: 1000 + i,
            host: format!("web-{}", i % 3),
            msg: format!(
                "GET /api/v1/items/{} took {} ms from client {}",
                i * 7,
                i % 13,
                i % 5
            ),
            took: f64::from(i) * 0.25,
            tag: (i % 3 == 0).then_some("slow"),
        })
        .collect()
}

/// Rows whose string columns are canonical hex and decimal text (`docs/SPEC.md` §22.1),
/// every fifth parent id empty (a root span).
#[derive(serde::Serialize)]
struct Ids {
    span: String,
    parent: String,
    start: String,
    delta: String,
}

fn ids(n: u64) -> Vec<Ids> {
    (0..n)
        .map(|i| Ids {
            span: format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            parent: if i % 5 == 0 {
                String::new()
            } else {
                format!("{:016X}", i.wrapping_mul(0xBF58_476D_1CE4_E5B9))
            },
            start: (1_782_036_644_636_668_325 + i * 1_000_003).to_string(),
            delta: (i as i64 * 37 % 11 - 5).to_string(),
        })
        .collect()
}

/// Hex ids whose parents are other rows' ids (`docs/SPEC.md` §22.1, hex flag `04`): the
/// parent column before the id column it refers to, at the top level and under a struct.
#[derive(serde::Serialize)]
struct Family {
    parent: String,
    id: String,
    inner: Kin,
}

#[derive(serde::Serialize)]
struct Kin {
    id: String,
    parent: String,
}

fn family(n: u64) -> Vec<Family> {
    let id = |i: u64| format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    (0..n)
        .map(|i| Family {
            parent: if i % 6 == 0 { String::new() } else { id(i / 2) },
            id: id(i),
            inner: Kin {
                id: id(i + 7),
                parent: id((i + 7) / 3),
            },
        })
        .collect()
}

/// Maps whose keys repeat in a few sequences: Balanced writes them by key sets
/// (`docs/SPEC.md` §22.2, kind bit `10` on a map column), string keys and integer keys.
#[derive(serde::Serialize)]
struct TagMap {
    tags: std::collections::BTreeMap<&'static str, String>,
    codes: std::collections::BTreeMap<u16, bool>,
}

fn tag_maps(n: u16) -> Vec<TagMap> {
    const SETS: [&[&str]; 3] = [&["http.path"], &["http.method", "http.path"], &[]];
    (0..n)
        .map(|i| TagMap {
            tags: SETS[usize::from(i % 3)]
                .iter()
                .map(|&k| (k, format!("/v{}", i % 4)))
                .collect(),
            codes: (0..i % 2).map(|c| (200 + c, i % 3 == 0)).collect(),
        })
        .collect()
}

/// Rows with a struct field and two list fields (a list of structs among them): Balanced
/// writes struct and list child columns (`docs/SPEC.md` §22.2).
#[derive(serde::Serialize)]
struct Span {
    id: u32,
    at: Point,
    codes: Vec<u16>,
    events: Vec<Mark>,
}

#[derive(serde::Serialize)]
struct Point {
    x: i32,
    y: f64,
}

#[derive(serde::Serialize)]
struct Mark {
    t: u32,
    name: &'static str,
    attrs: Vec<u8>,
}

fn spans(n: u32) -> Vec<Span> {
    (0..n)
        .map(|i| Span {
            id: 7 * i,
            at: Point {
                x: i as i32 - 9,
                y: f64::from(i) * 0.5,
            },
            codes: (0..i % 4).map(|k| (200 + k * 100) as u16).collect(),
            events: (0..i % 3)
                .map(|k| Mark {
                    t: i * 10 + k,
                    name: ["retry", "exception"][(k % 2) as usize],
                    attrs: vec![k as u8; (i % 2) as usize],
                })
                .collect(),
        })
        .collect()
}

/// Map columns (`docs/SPEC.md` §22.2, class 9): string tags and a map of integer keys to
/// optional floats.
#[derive(serde::Serialize)]
struct Tagged {
    tags: std::collections::BTreeMap<&'static str, &'static str>,
    by_id: std::collections::BTreeMap<u16, Option<f64>>,
}

fn tagged(n: u16) -> Vec<Tagged> {
    (0..n)
        .map(|i| Tagged {
            tags: [
                ("env", "prod"),
                ("region", ["eu", "us"][usize::from(i % 2)]),
            ]
            .into_iter()
            .take(1 + usize::from(i % 3 != 0))
            .collect(),
            by_id: (0..i % 4)
                .map(|k| (k * 100 + i, (k != 1).then_some(f64::from(i) / 8.0)))
                .collect(),
        })
        .collect()
}

/// Tuple and struct variants in a tagged column (`docs/SPEC.md` §22.3, kind bit `10` on the
/// variant's list or struct column) and a tuple as a list column.
#[derive(serde::Serialize)]
enum Act {
    Idle,
    Move { dx: i16, dy: i16 },
    Turn(i8, u16),
    Fire(u32),
}

#[derive(serde::Serialize)]
struct Acts {
    at: (f32, f32),
    act: Act,
}

fn acts(n: u16) -> Vec<Acts> {
    (0..n)
        .map(|i| Acts {
            at: (f32::from(i) / 4.0, -f32::from(i)),
            act: match i % 4 {
                0 => Act::Idle,
                1 => Act::Move {
                    dx: i as i16 - 9,
                    dy: 3,
                },
                2 => Act::Turn(-(i as i8), i * 5),
                _ => Act::Fire(u32::from(i) << 12),
            },
        })
        .collect()
}

/// Date-time text (`docs/SPEC.md` §22.1, kind bits `30`): an ISO 8601 column with
/// milliseconds and `Z`, and a Common Log Format column with its offset.
#[derive(serde::Serialize)]
struct Stamps {
    at: String,
    logged: String,
}

fn stamps(n: u64) -> Vec<Stamps> {
    (0..n)
        .map(|i| Stamps {
            at: format!(
                "2010-01-01T{:02}:{:02}:07.{:03}Z",
                i / 60 % 24,
                i % 60,
                i * 7 % 1000
            ),
            logged: format!("{:02}/Oct/2000:13:{:02}:36 -0700", 1 + i % 28, i % 60),
        })
        .collect()
}

/// Seed bodies: the test encodings, without their header.
fn seeds() -> Vec<Vec<u8>> {
    let body = |b: Vec<u8>| b[5..].to_vec();
    vec![
        body(qdf_core::to_vec(&sample()).unwrap()),
        body(qdf_core::to_vec(&sample().enums).unwrap()),
        body(qdf_core::to_vec(&vec![Some(Some(())), None, Some(None)]).unwrap()),
        body(qdf_core::to_vec(&(u128::MAX, i128::MIN, '🦀', -0.0f32, f64::NAN)).unwrap()),
        body(
            qdf_core::to_vec(&vec![
                checks::Shape::Empty,
                checks::Shape::Num(-300),
                checks::Shape::Pair(None, "p".into()),
                checks::Shape::Rec {
                    data: vec![0xC0, 0xF2],
                    inner: Some(Box::new(checks::Shape::Num(1))),
                },
            ])
            .unwrap(),
        ),
        body(qdf_core::to_vec(&vec![vec![vec![E::N(Box::new(E::A))]]]).unwrap()),
        body(qdf_core::to_vec(&rows(20)).unwrap()),
        body(qdf_core::to_vec_with(&rows(40), qdf_core::Options::compression()).unwrap()),
        body(qdf_core::to_vec(&ids(20)).unwrap()),
        body(qdf_core::to_vec_with(&ids(40), qdf_core::Options::compression()).unwrap()),
        body(qdf_core::to_vec(&spans(20)).unwrap()),
        body(qdf_core::to_vec_with(&spans(40), qdf_core::Options::compression()).unwrap()),
        body(qdf_core::to_vec(&stamps(20)).unwrap()),
        body(qdf_core::to_vec_with(&stamps(40), qdf_core::Options::compression()).unwrap()),
        body(qdf_core::to_vec(&tagged(20)).unwrap()),
        body(qdf_core::to_vec_with(&tagged(40), qdf_core::Options::compression()).unwrap()),
        body(qdf_core::to_vec(&acts(20)).unwrap()),
        body(qdf_core::to_vec_with(&acts(40), qdf_core::Options::compression()).unwrap()),
        body(qdf_core::to_vec(&family(20)).unwrap()),
        body(qdf_core::to_vec_with(&family(40), qdf_core::Options::compression()).unwrap()),
        body(qdf_core::to_vec(&tag_maps(20)).unwrap()),
        body(qdf_core::to_vec_with(&tag_maps(40), qdf_core::Options::compression()).unwrap()),
    ]
}

/// Seed streams (header included) for `session_frames`: a few frames of one session in each
/// tier, strings repeated across frames, a columnar batch among them; then Speed and
/// Balanced with frame checksums (header flag `10`, `docs/SPEC.md` §17); the last two renew
/// their state before the third and the fourth frame (`FF 01`, `FF 02`, §18).
fn stream_seeds() -> Vec<Vec<u8>> {
    use qdf_core::{EncoderSession, Options};
    [
        (Options::speed(), false),
        (Options::balanced(), false),
        (Options::compression(), false),
        (Options::speed(), true),
        (Options::balanced(), true),
        (Options::balanced(), false),
        (Options::compression(), true),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (opts, checksum))| {
        let renew = i >= 5;
        let mut enc = EncoderSession::new(opts).with_checksum(checksum);
        let mut out = Vec::new();
        enc.encode_frame(&rows(2), &mut out).unwrap();
        enc.encode_frame(&sample(), &mut out).unwrap();
        if renew {
            enc.renew();
        }
        enc.encode_frame(&rows(17), &mut out).unwrap();
        if renew {
            enc.renew();
        }
        enc.encode_frame(&rows(2), &mut out).unwrap();
        out
    })
    .chain([texts_stream(), maps_stream()])
    .collect()
}

/// A Balanced stream whose map columns' values are per-value strings through the intern
/// table (`docs/SPEC.md` §22.2, "Codecs"): URLs a first frame of rows interns, referred to in
/// the map columns of the next two.
fn maps_stream() -> Vec<u8> {
    #[derive(serde::Serialize)]
    struct Visit {
        attrs: std::collections::BTreeMap<&'static str, String>,
    }
    let visits = |n: u32| -> Vec<Visit> {
        (0..n)
            .map(|i| Visit {
                attrs: [
                    ("url", format!("/api/v1/customers/{i}/orders")),
                    ("agent", format!("client-{}", i % 3)),
                ]
                .into_iter()
                .collect(),
            })
            .collect()
    };
    let mut enc = qdf_core::EncoderSession::new(qdf_core::Options::balanced());
    let mut out = Vec::new();
    // Rows intern the URLs first.
    let urls: Vec<String> = visits(20)
        .into_iter()
        .map(|v| v.attrs["url"].clone())
        .collect();
    enc.encode_frame(&urls, &mut out).unwrap();
    for n in [20, 20, 3] {
        enc.encode_frame(&visits(n), &mut out).unwrap();
    }
    out
}

/// A stream with per-field strings (header flag `40`, `docs/SPEC.md` §15.3): URLs with new
/// ids written as prefixes of the field's last one, non-ASCII text, a renewal.
fn texts_stream() -> Vec<u8> {
    use qdf_core::{EncoderSession, Features, Options};
    #[derive(serde::Serialize)]
    struct Ev {
        url: String,
        n: u32,
        note: Option<String>,
    }
    let opts = Options::balanced().features(Features::BALANCED | Features::STR_STATE);
    let mut enc = EncoderSession::new(opts);
    let mut out = Vec::new();
    for i in 0..5u32 {
        if i == 3 {
            enc.renew();
        }
        let ev = Ev {
            url: format!("https://x.io/ev/{}", 100 + i),
            n: i,
            note: (i % 2 == 0).then(|| format!("café {i}")),
        };
        enc.encode_frame(&ev, &mut out).unwrap();
    }
    out
}

/// Seeds for `renewing_session`: a mode byte (caps, frames or messages, checksums), then
/// steps (message sizes and pools; `FF` an explicit renewal; `Ex` a failing message).
fn renewing_seeds() -> Vec<Vec<u8>> {
    let steps: Vec<u8> = (0..200u32).map(|i| (i * 37 % 251) as u8).collect();
    let mut with_renewals = steps.clone();
    for i in (0..with_renewals.len()).step_by(9) {
        with_renewals[i] = 0xFF;
    }
    let mut failing = steps.clone();
    for i in (3..failing.len()).step_by(7) {
        failing[i] = 0xE5;
    }
    [
        (0x00, &steps),
        (0x13, &with_renewals),
        (0xF2, &failing),
        (0x41, &steps),
    ]
    .into_iter()
    .map(|(mode, steps)| {
        let mut v = vec![mode];
        v.extend_from_slice(steps);
        v
    })
    .collect()
}

/// Seeds for `num_session`: 4-byte steps (op, number families, two payload bytes): steady
/// sends, then renewals, failing records and subset reads among them.
fn num_seeds() -> Vec<Vec<u8>> {
    let steady: Vec<u8> = (0..40u8).flat_map(|i| [0, 0, i, i / 3]).collect();
    let mixed: Vec<u8> = (0..60u8)
        .flat_map(|i| [i % 4, i.wrapping_mul(37), i.wrapping_mul(11), i ^ 0x5A])
        .collect();
    let extremes: Vec<u8> = (0..30u8)
        .flat_map(|i| [i % 2, 0xAA ^ i, 0xFF - i, i])
        .collect();
    vec![steady, mixed, extremes]
}

/// The committed `encode_round_trip` seeds (fuzz inputs picked by what they build, see
/// `fuzz/README.md`; not regenerated by `QDF_WRITE_FUZZ_CORPUS`).
const ENCODE_SEEDS: usize = 16;

/// The committed `nested_round_trip` seeds (byte patterns for `arbitrary` and inputs its
/// first run found, see `fuzz/README.md`; not regenerated by `QDF_WRITE_FUZZ_CORPUS`).
const NESTED_SEEDS: usize = 15;

#[test]
fn replay_corpora() {
    if std::env::var_os("QDF_WRITE_FUZZ_CORPUS").is_some() {
        for (target, seeds) in [
            ("decode_value", seeds()),
            ("round_trip", seeds()),
            ("session_frames", stream_seeds()),
            ("renewing_session", renewing_seeds()),
            ("num_session", num_seeds()),
        ] {
            let dir = corpus_dir(target);
            std::fs::create_dir_all(&dir).unwrap();
            for (i, s) in seeds.iter().enumerate() {
                std::fs::write(dir.join(format!("seed-{i:02}")), s).unwrap();
            }
        }
    }
    let mut files = 0;
    for (target, check) in [
        ("decode_value", checks::decode_value as fn(&[u8])),
        ("round_trip", checks::round_trip),
        ("session_frames", checks::session_frames),
        ("encode_round_trip", checks::encode_round_trip),
        ("inspect", checks::inspect),
        ("renewing_session", checks::renewing_session),
        ("nested_round_trip", checks::nested_round_trip),
        ("num_session", checks::num_session),
        ("dictionary_file", checks::dictionary_file),
    ] {
        let dir = corpus_dir(target);
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let data = std::fs::read(&path).unwrap();
            check(&data);
            files += 1;
        }
    }
    assert!(
        files
            >= 2 * seeds().len()
                + stream_seeds().len()
                + renewing_seeds().len()
                + num_seeds().len()
                + ENCODE_SEEDS
                + NESTED_SEEDS,
        "corpora hold only {files} files"
    );
}

#[test]
fn seeds_pass_the_checks() {
    for s in seeds() {
        checks::decode_value(&s);
        checks::round_trip(&s);
        checks::inspect(&s);
    }
    for s in renewing_seeds() {
        checks::renewing_session(&s);
    }
    for s in num_seeds() {
        checks::num_session(&s);
    }
    for s in stream_seeds() {
        checks::session_frames(&s);
        checks::inspect(&s);
        // Every strict prefix and every one-byte change keeps the rules too.
        for n in 0..s.len() {
            checks::session_frames(&s[..n]);
            checks::inspect(&s[..n]);
        }
        for i in 0..s.len() {
            let mut m = s.clone();
            for x in [0x01, 0x80, 0xFF] {
                m[i] ^= x;
                checks::session_frames(&m);
                checks::inspect(&m);
                m[i] ^= x;
            }
        }
    }
}

/// Struct and list columns (as [`qdf_core::inspect`] reports them) in a message.
fn child_columns(bytes: &[u8], opts: &qdf_core::Options) -> (usize, usize) {
    let n = column_counts(bytes, opts);
    (n[0], n[1])
}

/// Struct, list and map columns (as [`qdf_core::inspect`] reports them) in a message.
fn column_counts(bytes: &[u8], opts: &qdf_core::Options) -> [usize; 3] {
    use qdf_core::inspect::{ColumnValues, EventKind};
    let mut n = [0; 3];
    qdf_core::inspect::message(bytes, opts, &mut |e| {
        if let EventKind::Column { values, .. } = &e.kind {
            match values {
                ColumnValues::Struct(_) => n[0] += 1,
                ColumnValues::List { .. } => n[1] += 1,
                ColumnValues::Map { .. } | ColumnValues::KeySets { .. } => n[2] += 1,
                _ => {}
            }
        }
    })
    .unwrap();
    n
}

/// The map seeds hold two map columns each; so do the Balanced encodings of some batches the
/// committed `nested_round_trip` inputs build (their `tags`).
#[test]
fn map_seeds_hold_map_columns() {
    use qdf_core::Options;
    let (b, c) = (Options::balanced(), Options::compression());
    assert_eq!(
        column_counts(&qdf_core::to_vec(&tagged(20)).unwrap(), &b),
        [0, 0, 2]
    );
    let bytes = qdf_core::to_vec_with(&tagged(40), c).unwrap();
    assert_eq!(column_counts(&bytes, &c), [0, 0, 2]);
    let mut maps = 0;
    for e in std::fs::read_dir(corpus_dir("nested_round_trip")).unwrap() {
        let data = std::fs::read(e.unwrap().path()).unwrap();
        let mut u = arbitrary::Unstructured::new(&data);
        let Ok(batch) = checks::nested_checks::batch(&mut u) else {
            continue;
        };
        maps += column_counts(&qdf_core::to_vec_with(&batch, b).unwrap(), &b)[2];
    }
    assert!(maps > 0, "{maps}");
}

/// The variant seeds hold a struct variant's column (kind `15`), a tuple variant's (`17`) and
/// a tuple's list column (`07`).
#[test]
fn variant_seeds_hold_variant_columns() {
    use qdf_core::Options;
    use qdf_core::inspect::EventKind;
    let (b, c) = (Options::balanced(), Options::compression());
    let seeds = [
        (qdf_core::to_vec(&acts(20)).unwrap(), b),
        (qdf_core::to_vec_with(&acts(40), c).unwrap(), c),
    ];
    for (bytes, opts) in seeds {
        let mut kinds = Vec::new();
        qdf_core::inspect::message(&bytes, &opts, &mut |e| {
            if let EventKind::Column { kind, .. } = &e.kind {
                kinds.push(*kind);
            }
        })
        .unwrap();
        assert_eq!(
            kinds,
            [0x07, 0x06, 0x08, 0x0F, 0x15, 0x00, 0x01, 0x17, 0x00, 0x01],
            "{opts:?}"
        );
    }
}

/// The nested seeds hold struct and list columns; so do the Balanced encodings of the
/// batches the committed `nested_round_trip` inputs build (the target reaches child columns).
#[test]
fn nested_seeds_hold_child_columns() {
    use qdf_core::Options;
    let b = Options::balanced();
    let c = Options::compression();
    // `at`, the events' elements; `codes`, `events`, the events' `attrs`.
    assert_eq!(
        child_columns(&qdf_core::to_vec(&spans(20)).unwrap(), &b),
        (2, 3)
    );
    let bytes = qdf_core::to_vec_with(&spans(40), c).unwrap();
    assert_eq!(child_columns(&bytes, &c), (2, 3));
    let mut found = (0, 0);
    for e in std::fs::read_dir(corpus_dir("nested_round_trip")).unwrap() {
        let data = std::fs::read(e.unwrap().path()).unwrap();
        let mut u = arbitrary::Unstructured::new(&data);
        let Ok(batch) = checks::nested_checks::batch(&mut u) else {
            continue;
        };
        let (s, l) = child_columns(&qdf_core::to_vec_with(&batch, b).unwrap(), &b);
        found = (found.0 + s, found.1 + l);
    }
    assert!(found.0 > 0 && found.1 > 0, "{found:?}");
}

/// The `small-container-*` seeds of `nested_round_trip` build sibling lists below 16 records
/// that Balanced writes as small containers (`docs/SPEC.md` §22.2), at least two each.
#[test]
fn small_container_seeds_build_small_containers() {
    let mut seeds = 0;
    for e in std::fs::read_dir(corpus_dir("nested_round_trip")).unwrap() {
        let path = e.unwrap().path();
        if !path.to_string_lossy().contains("small-container-") {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        let mut u = arbitrary::Unstructured::new(&data);
        let batch = checks::nested_checks::batch(&mut u).expect("the seed builds a batch");
        let small = batch
            .groups
            .iter()
            .flat_map(|g| &g.lists)
            .filter(|l| {
                let b = qdf_core::to_vec(l).unwrap();
                l.len() < 16 && matches!(b[5], 0xEF | 0xF7)
            })
            .count();
        assert!(small >= 2, "{}: {small}", path.display());
        seeds += 1;
    }
    assert_eq!(seeds, 3);
}

/// The session seed with map columns holds them, with per-value string children.
#[test]
fn maps_stream_holds_per_value_map_children() {
    let (mut maps, mut per_value) = (0, 0);
    let opts = qdf_core::Options::balanced();
    qdf_core::inspect::stream(&maps_stream(), &opts, 1 << 20, &mut |e| {
        if let qdf_core::inspect::EventKind::Column { values, .. } = &e.kind {
            maps += usize::from(matches!(
                values,
                qdf_core::inspect::ColumnValues::Map { .. }
                    | qdf_core::inspect::ColumnValues::KeySets { .. }
            ));
            per_value += usize::from(matches!(values, qdf_core::inspect::ColumnValues::PerValue));
        }
    })
    .unwrap();
    assert!(
        maps >= 2 && per_value >= 2,
        "{maps} map columns, {per_value} per-value"
    );
}
