//! The `qdf` binary on the shipped datasets (every tier, messages and streams), on corrupt and
//! truncated files, and a golden `inspect` of a small message.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use qdf_core::{EncoderSession, Options};
use qdf_fixtures::real::{seattle, usgs, zipkin};
use serde::Serialize;

const QDF: &str = env!("CARGO_BIN_EXE_qdf");

fn data(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../support/qdf-fixtures/data")
        .join(file)
}

/// A fresh directory for one test's files.
fn tmp(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qdf-cli-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn qdf(args: &[&str]) -> Output {
    Command::new(QDF)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// Runs `qdf args` and expects success with nothing on stderr; returns stdout.
fn ok(args: &[&str]) -> String {
    let o = qdf(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "qdf {args:?} failed: {err}");
    assert_eq!(err, "", "qdf {args:?} wrote to stderr");
    String::from_utf8(o.stdout).unwrap()
}

/// Runs `qdf args` and expects exit code 1 with exactly one stderr line naming a byte
/// offset, and no panic; returns that line.
fn fails(args: &[&str]) -> String {
    let o = qdf(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "qdf {args:?}: {err}");
    assert!(!err.contains("panicked"), "qdf {args:?} panicked: {err}");
    assert_eq!(err.lines().count(), 1, "qdf {args:?}: {err}");
    assert!(err.starts_with("qdf: "), "{err}");
    assert!(err.contains("byte "), "qdf {args:?}: no offset in {err}");
    err.trim_end().to_string()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const TIERS: [&str; 3] = ["speed", "balanced", "compression"];

#[test]
fn json_datasets_round_trip_in_every_tier() {
    let dir = tmp("json");
    for name in [zipkin::FILE, usgs::FILE] {
        let path = data(name);
        let original: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let mut sizes = Vec::new();
        for tier in TIERS {
            let q = dir.join(format!("{tier}.qdf"));
            ok(&["from-json", s(&path), "--tier", tier, "-o", s(&q)]);
            sizes.push(std::fs::metadata(&q).unwrap().len());
            let back: serde_json::Value = serde_json::from_str(&ok(&["to-json", s(&q)])).unwrap();
            assert_eq!(back, original, "{name} {tier}");
            let pretty: serde_json::Value =
                serde_json::from_str(&ok(&["to-json", "--pretty", s(&q)])).unwrap();
            assert_eq!(pretty, original);
            let text = ok(&["inspect", s(&q)]);
            let last = text.lines().last().unwrap();
            assert!(last.starts_with("-- message, "), "{last}");
            assert!(
                text.starts_with("       0  header QDF v1, flags"),
                "{text:.80}"
            );
            let stats = ok(&["stats", s(&q)]);
            assert!(stats.starts_with("message: "), "{stats}");
        }
        // Dense strings make Balanced smaller than Speed on these repetitive files.
        assert!(sizes[1] < sizes[0], "{name}: {sizes:?}");
    }
}

#[test]
fn json_lines_become_a_stream_and_back() {
    let dir = tmp("lines");
    let spans: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(data(zipkin::FILE)).unwrap()).unwrap();
    let lines: String = spans.iter().map(|v| format!("{v}\n")).collect();
    let jl = dir.join("spans.jsonl");
    std::fs::write(&jl, &lines).unwrap();
    for tier in TIERS {
        for checksum in [false, true] {
            let q = dir.join(format!("{tier}-{checksum}.qdfs"));
            let mut args = vec!["from-json", "--stream", s(&jl), "--tier", tier, "-o", s(&q)];
            if checksum {
                args.push("--checksum");
            }
            ok(&args);
            let out = ok(&["to-json", s(&q)]);
            let back: Vec<serde_json::Value> = out
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            assert_eq!(back, spans, "{tier}");
            let stats = ok(&["stats", s(&q)]);
            assert!(
                stats.contains(&format!("\nframes: {}\n", spans.len())),
                "{stats}"
            );
            let text = ok(&["inspect", s(&q)]);
            assert!(
                text.contains(&format!("  frame {}: ", spans.len() - 1)),
                "{tier}"
            );
            if checksum {
                assert!(stats.contains("(dense, qpack, frame checksums)") || tier == "speed");
            }
            if tier == "speed" {
                assert!(stats.contains("Dense state: none"), "{stats}");
            } else {
                // The intern table grows with the frames and ends with every distinct
                // string of at least 4 bytes the spans hold.
                let rows: Vec<Vec<u64>> = stats
                    .lines()
                    .skip_while(|l| !l.trim_start().starts_with("frame "))
                    .skip(1)
                    .map(|l| l.split_whitespace().map(|x| x.parse().unwrap()).collect())
                    .collect();
                assert_eq!(rows.last().unwrap()[0], spans.len() as u64);
                assert!(rows.windows(2).all(|w| w[0][1] <= w[1][1]), "{stats}");
                assert!(rows.last().unwrap()[1] > 50, "{stats}");
            }
        }
    }
}

#[test]
fn map_shapes_shrink_json_lines_and_keep_them() {
    let dir = tmp("shapes");
    let spans: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(data(zipkin::FILE)).unwrap()).unwrap();
    let lines: String = spans.iter().map(|v| format!("{v}\n")).collect();
    let jl = dir.join("spans.jsonl");
    std::fs::write(&jl, &lines).unwrap();
    let (plain, shaped) = (dir.join("plain.qdfs"), dir.join("shaped.qdfs"));
    ok(&["from-json", "--stream", s(&jl), "-o", s(&plain)]);
    ok(&[
        "from-json",
        "--stream",
        "--map-shapes",
        s(&jl),
        "-o",
        s(&shaped),
    ]);
    assert_eq!(ok(&["to-json", s(&shaped)]), ok(&["to-json", s(&plain)]));
    let size = |p: &Path| std::fs::metadata(p).unwrap().len();
    assert!(
        size(&shaped) < size(&plain),
        "{} {}",
        size(&shaped),
        size(&plain)
    );
    let text = ok(&["inspect", s(&shaped)]);
    assert!(text.contains("(from the shape)"));
    let e = fails_plain(&["from-json", "--map-shapes", "--tier", "speed", s(&jl)]);
    assert!(e.contains("--map-shapes needs the Dense tiers"), "{e}");
}

/// Runs `qdf args` and expects exit code 1 with one stderr line (no offset needed).
fn fails_plain(args: &[&str]) -> String {
    let o = qdf(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "qdf {args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "qdf {args:?}: {err}");
    err
}

/// `value` encoded with `opts` in a file of `dir`.
fn write_qdf<T: Serialize>(dir: &Path, name: &str, value: &T, opts: Options) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, qdf_core::to_vec_with(value, opts).unwrap()).unwrap();
    p
}

#[test]
fn typed_datasets_show_their_columns_and_convert_exactly() {
    let dir = tmp("typed");
    let trace = zipkin::load().unwrap();
    let quakes = usgs::load().unwrap();
    let normals = seattle::load().unwrap();
    for (tier, opts) in [
        ("balanced", Options::balanced()),
        ("compression", Options::compression()),
    ] {
        for (name, json, path) in [
            (
                "zipkin",
                serde_json::to_value(&trace).unwrap(),
                write_qdf(&dir, &format!("zipkin-{tier}.qdf"), &trace, opts),
            ),
            (
                "usgs",
                serde_json::to_value(&quakes).unwrap(),
                write_qdf(&dir, &format!("usgs-{tier}.qdf"), &quakes, opts),
            ),
            (
                "seattle",
                serde_json::to_value(&normals).unwrap(),
                write_qdf(&dir, &format!("seattle-{tier}.qdf"), &normals, opts),
            ),
        ] {
            let text = ok(&["inspect", s(&path)]);
            assert!(text.contains("  columnar "), "{name} {tier}: no container");
            assert!(text.contains("  column 0 "), "{name} {tier}");
            let back: serde_json::Value =
                serde_json::from_str(&ok(&["to-json", s(&path)])).unwrap();
            assert_eq!(back, json, "{name} {tier}");
        }
    }
    // Seattle's four columns, with their codecs and byte costs.
    let text = ok(&["inspect", s(&dir.join("seattle-compression.qdf"))]);
    let cols: Vec<&str> = text.lines().filter(|l| l.contains("  column ")).collect();
    assert_eq!(cols.len(), 4, "{text}");
    for (col, name) in cols.iter().zip(["date", "pressure", "temperature", "wind"]) {
        assert!(col.contains(&format!("\"{name}\"")), "{col}");
        assert!(col.ends_with(" bytes"), "{col}");
    }
    // A typed stream: 100 rows per frame.
    let mut enc = EncoderSession::new(Options::balanced());
    let mut stream = Vec::new();
    let chunks: Vec<_> = normals.0.chunks(100).collect();
    for c in &chunks {
        enc.encode_frame(c, &mut stream).unwrap();
    }
    let p = dir.join("seattle.qdfs");
    std::fs::write(&p, &stream).unwrap();
    let stats = ok(&["stats", s(&p)]);
    assert!(
        stats.contains(&format!("\nframes: {}\n", chunks.len())),
        "{stats}"
    );
    let lines = ok(&["to-json", s(&p)]);
    assert_eq!(lines.lines().count(), chunks.len());
    let first: serde_json::Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert_eq!(first, serde_json::to_value(chunks[0]).unwrap());
}

#[test]
fn corrupt_and_truncated_files_fail_with_one_line_and_an_offset() {
    let dir = tmp("corrupt");
    let msg = qdf_core::to_vec(&seattle::load().unwrap().0[..200]).unwrap();
    let mut enc = EncoderSession::new(Options::balanced()).with_checksum(true);
    let mut stream = Vec::new();
    for i in 0..5 {
        let spans = &zipkin::load().unwrap().0[i * 10..i * 10 + 10];
        enc.encode_frame(spans, &mut stream).unwrap();
    }
    let f = dir.join("bad");
    let fs = s(&f).to_string();
    // Every strict prefix of the message, at a stride, and the last few bytes.
    let cuts = (0..msg.len()).step_by(53).chain(msg.len() - 3..msg.len());
    for n in cuts {
        std::fs::write(&f, &msg[..n]).unwrap();
        for cmd in ["inspect", "to-json", "stats"] {
            let e = fails(&[cmd, &fs]);
            // A cut message is not reported as the first frame of a stream.
            assert!(n < 5 || !e.contains("frame 0"), "{n}: {e}");
        }
    }
    // Streams cut inside their last frame, or with a damaged byte: the frame is named.
    for n in [stream.len() - 1, stream.len() - 4, stream.len() - 30] {
        std::fs::write(&f, &stream[..n]).unwrap();
        for cmd in ["inspect", "to-json", "stats"] {
            let e = fails(&[cmd, &fs]);
            assert!(e.contains("frame 4 (at stream byte "), "{e}");
        }
    }
    let mut bad = stream.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0x20;
    std::fs::write(&f, &bad).unwrap();
    for cmd in ["inspect", "to-json", "stats"] {
        let e = fails(&[cmd, "--stream", &fs]);
        // The frame is named once: `frame N (stream byte O) fails its CRC-32C: …`.
        let (_, text) = e.split_once(": frame ").unwrap();
        assert!(text.contains(" fails its CRC-32C: it carries 0x"), "{e}");
        assert!(text.contains(" (stream byte "), "{e}");
        assert_eq!(e.matches("frame ").count(), 1, "{e}");
    }
    // Flipped bytes in the message: whatever fails, fails cleanly.
    let mut flipped = 0;
    for i in (5..msg.len()).step_by(97) {
        let mut m = msg.clone();
        m[i] ^= 0x5A;
        std::fs::write(&f, &m).unwrap();
        let o = qdf(&["to-json", &fs]);
        if !o.status.success() {
            fails(&["to-json", &fs]);
            fails(&["inspect", &fs]);
            flipped += 1;
        }
    }
    assert!(flipped > 0);
    // Not qdf at all; JSON that is not JSON; two values without --stream.
    std::fs::write(&f, b"{\"not\": \"qdf\"}").unwrap();
    let e = fails(&["inspect", &fs]);
    assert!(
        e.ends_with("expected the header magic 'Q' 'D' 'F' at byte 0"),
        "{e}"
    );
    std::fs::write(&f, b"{\"a\": 1,\n \"b\": tru}").unwrap();
    let e = fails(&["from-json", &fs, "-o", s(&dir.join("x"))]);
    // serde_json stops at the `}` after `tru`: line 2, column 10, byte 9 + 9.
    assert!(e.contains("line 2 column 10 (byte 18)"), "{e}");
    std::fs::write(&f, b"1 2").unwrap();
    let e = fails(&["from-json", &fs, "-o", s(&dir.join("x"))]);
    assert!(e.contains("use --stream"), "{e}");
}

#[test]
fn golden_inspect_of_a_small_message() {
    #[derive(Serialize)]
    struct Host<'a> {
        host: &'a str,
        port: u16,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<&'a str>,
    }
    let v = (
        [
            Host {
                host: "db-1",
                port: 5432,
                note: Some("primary"),
            },
            Host {
                host: "db-1",
                port: 6432,
                note: None,
            },
            Host {
                host: "db-2",
                port: 5432,
                note: Some("primary"),
            },
        ],
        [10u16, 20, 30, 40, 50, 60, 70, 80],
        'q',
    );
    let dir = tmp("golden");
    let p = write_qdf(&dir, "small.qdf", &v, Options::balanced());
    assert_eq!(
        ok(&["inspect", s(&p)]),
        r#"       0  header QDF v1, flags 0x03 (dense, qpack)
       5    array, 3 elements
       6      array, 3 elements
       7        shape declaration, 3 fields
      10          key "host"  = intern #0
      16          "db-1"  = intern #1
      22          key "port"  = intern #2
      28          5432
      31          key "note"  = intern #3
      37          "primary"  = intern #4
      46          = shape #1 (3 fields)
      46        shape declaration, 2 fields
      49          key "host"  <- intern #0 (E1)
      51          "db-1"  <- intern #1 (E1)
      53          key "port"  <- intern #2 (E1)
      55          6432
      58          = shape #2 (2 fields)
      58        shape #1, 3 fields
      60          key "host"  (from the shape)
      60          "db-2"  = intern #5
      66          key "port"  (from the shape)
      66          5432
      69          key "note"  (from the shape)
      69          "primary"  <- intern #4 (E1)
      71      QPack delta+FOR, 8 × u64, 6 bytes
      77      'q'
-- message, 80 bytes: 6 intern definitions, 4 references; 2 shapes declared, 1 reused; 0 predicted numbers; 1 QPack value; 0 columnar containers
"#
    );
}

#[test]
fn inspect_shows_struct_and_list_columns() {
    #[derive(Serialize)]
    struct P {
        x: u8,
        y: u8,
    }
    #[derive(Serialize)]
    struct Row {
        p: P,
        v: Vec<u16>,
    }
    let rows: Vec<Row> = (0..16u8)
        .map(|i| Row {
            p: P { x: i, y: 2 },
            v: (0..u16::from(i % 3))
                .map(|j| j * 7 + u16::from(i))
                .collect(),
        })
        .collect();
    let dir = tmp("nested");
    let p = write_qdf(&dir, "nested.qdf", &rows, Options::balanced());
    let text = ok(&["inspect", s(&p)]);
    // (indent, text) of each column line, after the 8-wide offset and two spaces.
    let cols: Vec<(usize, &str)> = text
        .lines()
        .filter_map(|l| l.get(10..))
        .filter(|l| l.trim_start().starts_with("column "))
        .map(|l| (l.len() - l.trim_start().len(), l.trim_start()))
        .collect();
    assert_eq!(cols.len(), 5, "{text}");
    // The struct column covers x (6 bytes) and y (5 bytes), one level deeper.
    assert_eq!(
        cols[0].1,
        r#"column 0 "p" struct: struct of 2 child columns, 16 values, 11 bytes"#
    );
    assert!(cols[1].1.starts_with(r#"column 0 "x" uint: "#), "{text}");
    assert!(cols[1].1.ends_with(", 16 values, 6 bytes"), "{text}");
    assert!(cols[2].1.starts_with(r#"column 1 "y" uint: "#), "{text}");
    assert!(cols[2].1.ends_with(", 16 values, 5 bytes"), "{text}");
    // The list column: 9 bytes of lengths, then the element column's 13.
    assert_eq!(
        cols[3].1,
        r#"column 1 "v" list: list of 15 elements, lengths FOR, 16 values, 22 bytes"#
    );
    assert!(cols[4].1.starts_with(r#"column 0 "" uint: "#), "{text}");
    assert!(cols[4].1.ends_with(", 15 values, 13 bytes"), "{text}");
    let indents: Vec<usize> = cols.iter().map(|c| c.0).collect();
    let d = indents[0];
    assert_eq!(indents, [d, d + 2, d + 2, d, d + 2], "{text}");
}

/// `docs/SPEC.md` §15.2's stream of five `{t, v}` records, as hex.
const SPEC_NUM_STREAM: &str = "51 44 46 01 03 15 ec 00 02 81 74 c5 00 f1 53 65 81 76 cc 00 00 \
    00 00 00 80 34 40 10 ec 01 c5 3c f1 53 65 cc 33 33 33 33 33 b3 34 40 08 ec 01 f1 f0 01 fd \
    01 01 04 ec 01 f0 f0 06 ec 01 f1 05 f1 04";

#[test]
fn inspect_shows_predicted_numbers_as_predicted() {
    let dir = tmp("predicted");
    let p = dir.join("nums.qdfs");
    let bytes: Vec<u8> = SPEC_NUM_STREAM
        .split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect();
    std::fs::write(&p, &bytes).unwrap();
    let text = ok(&["inspect", s(&p)]);
    let predicted: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("predicted:"))
        .map(str::trim_start)
        .collect();
    assert_eq!(
        predicted,
        [
            "47      1700000120  predicted: F1 delta +60",
            "50      20.6  predicted: FD decimal -1 × 10^-1",
            "56      1700000180  predicted: F0 same step",
            "57      20.6  predicted: F0 same value",
            "61      1700000241  predicted: F1 delta of delta +1",
            "63      20.8  predicted: F1 decimal +2 × 10^-1",
        ],
        "{text}"
    );
    assert!(
        text.ends_with(
            "-- stream, 5 frames, 65 bytes: 0 intern definitions, 0 references; 1 shape \
             declared, 4 reused; 6 predicted numbers; 0 QPack values; 0 columnar containers\n"
        ),
        "{text}"
    );
}

#[test]
fn inspect_counts_column_codecs_and_names_below_min_intern() {
    #[derive(Serialize)]
    struct Row {
        id: u32,
        x: u8,
        host: &'static str,
        port: u16,
        region: &'static str,
        count: u64,
    }
    let rows: Vec<Row> = (0..20u32)
        .map(|i| Row {
            id: i,
            x: (i % 3) as u8,
            host: ["db-1", "db-2"][i as usize % 2],
            port: 5432,
            region: "eu-west",
            count: u64::from(i) * 1000,
        })
        .collect();
    let dir = tmp("colcount");
    let p = write_qdf(&dir, "rows.qdf", &rows, Options::balanced());
    let text = ok(&["inspect", s(&p)]);
    // "id" and "x" are shorter than `min_intern` (4 bytes): written inline, not interned.
    let head = text.lines().find(|l| l.contains("columnar EF")).unwrap();
    assert!(
        head.ends_with(
            "columnar EF, 20 rows, column shape #1 declared, 4 names define intern #0..#3"
        ),
        "{text}"
    );
    // The four integer columns are QPack values (delta+FOR, FOR).
    assert_eq!(
        text.lines().last().unwrap(),
        "-- message, 101 bytes: 4 intern definitions, 0 references; 0 shapes declared, 0 \
         reused; 0 predicted numbers; 4 QPack values (4 in columns); 1 columnar container",
        "{text}"
    );
}

#[test]
fn help_and_stdin() {
    let help = ok(&["--help"]);
    for cmd in ["inspect", "to-json", "from-json", "stats", "train"] {
        assert!(help.contains(cmd), "{help}");
    }
    // `-` reads standard input.
    let msg = qdf_core::to_vec(&("x", 1u8)).unwrap();
    let mut child = Command::new(QDF)
        .args(["to-json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&msg).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    assert_eq!(String::from_utf8(o.stdout).unwrap(), "[\"x\",1]\n");
}

#[test]
fn train_writes_the_dictionary_the_library_trains_and_prints_its_id() {
    let dir = tmp("train");
    let lines: Vec<serde_json::Value> = (0..60)
        .map(|i| {
            let service = ["checkout", "payment-service", "inventory"][i % 3];
            serde_json::json!({
                "service": service,
                "host": format!("host-{:02}", i % 4),
                "message": "request served",
                "seq": i,
            })
        })
        .collect();
    let jsonl = dir.join("samples.jsonl");
    let text: String = lines.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(&jsonl, text).unwrap();
    let dict_path = dir.join("d.qdfd");
    let out = ok(&["train", s(&jsonl), "--budget", "4096", "-o", s(&dict_path)]);
    let dict = qdf_core::Dictionary::from_bytes(&std::fs::read(&dict_path).unwrap()).unwrap();
    // Exactly the library's dictionary for the same samples, options and budget.
    let want = qdf_core::Dictionary::train(&lines, Options::balanced(), 4096).unwrap();
    assert_eq!(dict.to_bytes(), want.to_bytes());
    let file_len = dict.to_bytes().len();
    assert_eq!(
        out,
        format!(
            "{}\t{} entries, 0 shapes, {file_len} bytes, 60 samples\n",
            dict.id(),
            dict.len()
        )
    );
    // With --map-shapes the objects' key set is a shape of the dictionary, and from-json
    // --map-shapes on it writes an object without its keys.
    let shaped_path = dir.join("shaped.qdfd");
    let shaped_out = ok(&["train", s(&jsonl), "--map-shapes", "-o", s(&shaped_path)]);
    let shaped = qdf_core::Dictionary::from_bytes(&std::fs::read(&shaped_path).unwrap()).unwrap();
    assert_eq!(
        shaped.shape(1),
        Some(vec!["host", "message", "seq", "service"])
    );
    assert!(shaped_out.contains(" entries, 1 shapes, "), "{shaped_out}");
    let one = dir.join("one.json");
    std::fs::write(&one, format!("{}", lines[7])).unwrap();
    let msg_path = dir.join("one.qdf");
    ok(&[
        "from-json",
        s(&one),
        "--map-shapes",
        "--dictionary",
        s(&shaped_path),
        "-o",
        s(&msg_path),
    ]);
    let msg = std::fs::read(&msg_path).unwrap();
    // The reuse of shape 1 right after the 13-byte header.
    assert_eq!(msg[13..15], [0xec, 0x01]);
    let back: serde_json::Value =
        qdf_core::from_slice_with_dictionary(&msg, Options::balanced(), &shaped).unwrap();
    assert_eq!(back, lines[7]);
    let entries: Vec<&[u8]> = (0..dict.len()).map(|i| dict.entry(i).unwrap().0).collect();
    for s in ["checkout", "payment-service", "request served", "host-00"] {
        assert!(entries.contains(&s.as_bytes()), "{s} not in {entries:?}");
    }
    // The same samples as a qdf stream (from-json --stream) train the same dictionary.
    let stream = dir.join("samples.qdf");
    ok(&["from-json", "--stream", s(&jsonl), "-o", s(&stream)]);
    let from_qdf = dir.join("d2.qdfd");
    let out2 = ok(&["train", s(&stream), "--budget", "4096", "-o", s(&from_qdf)]);
    assert_eq!(out2, out);
    assert_eq!(std::fs::read(&from_qdf).unwrap(), dict.to_bytes());
    // A small budget bounds the file.
    let small = dir.join("small.qdfd");
    ok(&["train", s(&jsonl), "--budget", "24", "-o", s(&small)]);
    let small_len = std::fs::read(&small).unwrap().len();
    assert!(small_len <= 24 && small_len < file_len, "{small_len}");
    // The dictionary shrinks one sample message.
    let plain = qdf_core::to_vec(&lines[7]).unwrap();
    let with = qdf_core::to_vec_with_dictionary(&lines[7], Options::balanced(), &dict).unwrap();
    assert!(
        with.len() < plain.len(),
        "{} vs {}",
        with.len(),
        plain.len()
    );
    // No samples, bad JSON: one line on stderr, exit code 1.
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let o = qdf(&["train", s(&empty), "-o", s(&dir.join("x.qdfd"))]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!("qdf: {}: no samples in the input\n", s(&empty))
    );
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "{\"a\": 1}\n{\"a\": }\n").unwrap();
    let err = fails(&["train", s(&bad), "-o", s(&dir.join("x.qdfd"))]);
    assert!(err.contains("invalid JSON"), "{err}");
    // Speed has no use for a dictionary: refused before any file is read.
    let o = qdf(&[
        "train",
        s(&jsonl),
        "--tier",
        "speed",
        "-o",
        s(&dir.join("x.qdfd")),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no use for a dictionary"));
    assert!(!dir.join("x.qdfd").exists());
}

/// `--dictionary FILE`: `from-json` writes messages and streams on a trained dictionary,
/// exactly the library's bytes; `to-json`, `inspect` and `stats` read them with it, and
/// without it fail naming the dictionary and the flag.
#[test]
fn dictionary_flag_writes_and_reads_input_on_a_dictionary() {
    let dir = tmp("dictionary-flag");
    let lines: Vec<serde_json::Value> = (0..30)
        .map(|i| {
            let service = ["checkout", "payment-service", "inventory"][i % 3];
            serde_json::json!({
                "service": service,
                "message": "request served",
                "seq": i,
            })
        })
        .collect();
    let text: String = lines.iter().map(|v| format!("{v}\n")).collect();
    let jsonl = dir.join("samples.jsonl");
    std::fs::write(&jsonl, &text).unwrap();
    let dict_path = dir.join("d.qdfd");
    ok(&["train", s(&jsonl), "-o", s(&dict_path)]);
    let dict = qdf_core::Dictionary::from_bytes(&std::fs::read(&dict_path).unwrap()).unwrap();
    let d = s(&dict_path);

    let one = dir.join("one.json");
    std::fs::write(&one, lines[4].to_string()).unwrap();
    let msg = dir.join("one.qdf");
    ok(&["from-json", s(&one), "--dictionary", d, "-o", s(&msg)]);
    let want = qdf_core::to_vec_with_dictionary(&lines[4], Options::balanced(), &dict).unwrap();
    assert_eq!(std::fs::read(&msg).unwrap(), want);
    assert_eq!(
        ok(&["to-json", s(&msg), "--dictionary", d]),
        format!("{}\n", lines[4])
    );
    let err = fails(&["to-json", s(&msg)]);
    assert_eq!(
        err,
        format!(
            "qdf: {}: the input names dictionary {}, this decoder holds no dictionary at \
             byte 5 (give its file with --dictionary FILE)",
            s(&msg),
            dict.id()
        )
    );

    let stream = dir.join("all.qdf");
    ok(&[
        "from-json",
        "--stream",
        s(&jsonl),
        "--dictionary",
        d,
        "-o",
        s(&stream),
    ]);
    assert_eq!(ok(&["to-json", s(&stream), "--dictionary", d]), text);
    let shown = ok(&["inspect", s(&stream), "--dictionary", d]);
    let first = shown.lines().next().unwrap();
    assert!(
        first.ends_with(&format!(
            "(dense, qpack, dictionary), dictionary {}",
            dict.id()
        )),
        "{first}"
    );
    assert!(
        shown.contains("\"payment-service\"  <- intern #"),
        "{shown}"
    );
    assert!(shown.contains("\n-- stream, 30 frames, "), "{shown}");
    let stats = ok(&["stats", s(&stream), "--dictionary", d]);
    assert!(stats.contains("\nframes: 30\n"), "{stats}");
    for cmd in ["inspect", "stats", "to-json"] {
        let err = fails(&[cmd, s(&stream)]);
        assert!(err.contains("--dictionary FILE"), "{cmd}: {err}");
    }
    // Another dictionary: refused, naming both.
    let other = dir.join("other.qdfd");
    std::fs::write(
        &other,
        qdf_core::Dictionary::from_strs(["elsewhere"])
            .unwrap()
            .to_bytes(),
    )
    .unwrap();
    let err = fails(&["to-json", s(&stream), "--dictionary", s(&other)]);
    assert!(err.contains("this decoder holds dictionary"), "{err}");
    // Speed writes no references: the flag is refused there.
    let o = qdf(&["from-json", s(&one), "--tier", "speed", "--dictionary", d]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs the Dense tiers"));
}
