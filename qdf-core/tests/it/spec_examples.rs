//! Every hex example in `docs/SPEC.md` decodes to the stated `Value` text (or fails with the
//! stated category) and, where its block says so, re-encodes to the same bytes, so the spec
//! cannot drift from the code.
//!
//! Block kinds (the fence's info string):
//! - ```` ```qdf ````: re-encoded with `Options::speed()`, compared byte for byte;
//! - ```` ```qpack ````: re-encoded Balanced, or Compression without the entropy stage for the
//!   float-XOR (`E7`) and ALP (`F4`) examples; bodies compared (Balanced sets header flags the
//!   examples leave at `00`);
//! - ```` ```qdf-dense ````: only decoded (the Dense encoder's choices are pinned by
//!   `dense.rs`, `shapes.rs` and `columnar.rs` of `tests/it/`);
//! - ```` ```qdf-stream ````: a whole stream, header included, decoded frame by frame by a
//!   `DecoderSession`; the expectation is the frames' values separated by ` | `, optionally
//!   ending in `!category` (the next frame's error, which must break the session unless it
//!   is a body error, `!data`, in a stream without `FLAG_DENSE`). Valid
//!   streams are re-encoded by an `EncoderSession` (Balanced if the header has flag `01`,
//!   else Speed; with checksums if it has flag `10`; asked to renew before each frame that
//!   renewed the decoder's state, §18) and compared byte for byte.
//!
//! The conformance vectors of `spec/vectors/*.txt` (format: docs/SPEC.md, Appendix A) are run
//! by [`vectors_decode_and_encode`], and [`every_spec_example_is_a_vector`] fails if an example
//! of SPEC.md, including the hex of its ```` ```text ```` examples (string blocks, gRPC), is
//! not among them.

use std::collections::BTreeSet;

use qdf_core::{Category, DecoderSession, EncoderSession, Error, Features, Options, Value};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Block {
    Speed,
    QPack,
    DecodeOnly,
    Stream,
    /// A stream whose Dense encoder choices are pinned elsewhere (`tests/it/num_state.rs`).
    StreamDecodeOnly,
}

struct Example {
    line: usize,
    block: Block,
    msg: Vec<u8>,
    expect: String,
}

fn examples() -> Vec<Example> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/SPEC.md");
    let text = std::fs::read_to_string(path).expect("docs/SPEC.md");
    let mut out = Vec::new();
    let mut block = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if let Some(info) = t.strip_prefix("```") {
            block = match info {
                "qdf" => Some(Block::Speed),
                "qpack" => Some(Block::QPack),
                "qdf-dense" => Some(Block::DecodeOnly),
                "qdf-stream" => Some(Block::Stream),
                "qdf-stream-dense" => Some(Block::StreamDecodeOnly),
                _ => None,
            };
            continue;
        }
        let Some(block) = block else { continue };
        if t.is_empty() {
            continue;
        }
        let (hex, expect) = t
            .split_once(" => ")
            .unwrap_or_else(|| panic!("SPEC.md line {}: no ` => `", i + 1));
        let mut msg = match block {
            Block::Stream | Block::StreamDecodeOnly => Vec::new(),
            _ => b"QDF\x01\x00".to_vec(),
        };
        for b in hex.split_whitespace() {
            msg.push(u8::from_str_radix(b, 16).expect("hex byte"));
        }
        out.push(Example {
            line: i + 1,
            block,
            msg,
            expect: expect.to_string(),
        });
    }
    out
}

fn category(line: usize, name: &str) -> Category {
    match name {
        "syntax" => Category::Syntax,
        "eof" => Category::Eof,
        "data" => Category::Data,
        "limit" => Category::Limit,
        other => panic!("SPEC.md line {line}: unknown category {other}"),
    }
}

#[test]
fn spec_examples_decode_and_re_encode() {
    let all = examples();
    let count = |b: Block| all.iter().filter(|e| e.block == b).count();
    assert!(
        count(Block::Speed) >= 60,
        "only {} qdf examples",
        count(Block::Speed)
    );
    assert!(
        count(Block::QPack) >= 28,
        "only {} qpack examples",
        count(Block::QPack)
    );
    assert!(
        count(Block::Stream) >= 13,
        "only {} qdf-stream examples",
        count(Block::Stream)
    );
    for Example {
        line,
        block,
        msg,
        expect,
    } in all
    {
        if matches!(block, Block::Stream | Block::StreamDecodeOnly) {
            check_stream(line, &msg, &expect, block == Block::Stream);
            continue;
        }
        let got = qdf_core::from_slice::<Value>(&msg);
        if let Some(cat) = expect.strip_prefix('!') {
            let e = got.expect_err(&format!("SPEC.md line {line} should fail"));
            assert_eq!(
                e.classify(),
                category(line, cat),
                "SPEC.md line {line}: {e}"
            );
            continue;
        }
        let v = got.unwrap_or_else(|e| panic!("SPEC.md line {line}: {e}"));
        assert_eq!(v.to_string(), expect, "SPEC.md line {line}");
        let (opts, from) = match block {
            Block::DecodeOnly | Block::Stream | Block::StreamDecodeOnly => continue,
            Block::Speed => (Options::speed(), 0),
            // Compression without the entropy stage: these examples show the float codecs.
            Block::QPack if matches!(msg[5], 0xE7 | 0xF4) => (
                Options::compression().features(Features::COMPRESSION.without(Features::ENTROPY)),
                5,
            ),
            Block::QPack => (Options::balanced(), 5),
        };
        let again = qdf_core::to_vec_with(&v, opts).unwrap();
        assert_eq!(
            again[from..],
            msg[from..],
            "SPEC.md line {line} re-encodes differently"
        );
    }
}

/// A `qdf-stream` example: the frames' values, then the end or the stated error; valid
/// streams are re-encoded if `reencode`.
fn check_stream(line: usize, wire: &[u8], expect: &str, reencode: bool) {
    let mut dec = DecoderSession::new(Options::default());
    let mut rest = wire;
    let mut values = Vec::new();
    let mut renewed = Vec::new();
    for want in expect.split(" | ") {
        let renewals = dec.stats().renewals;
        let got = dec.decode_frame::<Value>(rest);
        if let Some(cat) = want.strip_prefix('!') {
            let e = got.expect_err(&format!("SPEC.md line {line} should fail"));
            assert_eq!(
                e.classify(),
                category(line, cat),
                "SPEC.md line {line}: {e}"
            );
            // A checksum or framing error always breaks the session; a body error (Data)
            // only in a Dense stream (§16, §17).
            let breaks = cat != "data" || wire[4] & 0x01 != 0;
            assert_eq!(dec.broken().is_some(), breaks, "SPEC.md line {line}: {e}");
            return;
        }
        let (v, n) = got
            .unwrap_or_else(|e| panic!("SPEC.md line {line}: {e}"))
            .unwrap_or_else(|| panic!("SPEC.md line {line}: a frame is cut short"));
        assert_eq!(v.to_string(), want, "SPEC.md line {line}");
        rest = &rest[n..];
        values.push(v);
        renewed.push(dec.stats().renewals > renewals);
    }
    dec.check_end(rest)
        .unwrap_or_else(|e| panic!("SPEC.md line {line}: {e}"));
    if !reencode {
        return;
    }
    let flags = wire[4];
    let opts = if flags & 0x01 != 0 {
        Options::balanced()
    } else {
        Options::speed()
    };
    let mut enc = EncoderSession::new(opts).with_checksum(flags & 0x10 != 0);
    let mut again = Vec::new();
    for (v, &renew) in values.iter().zip(&renewed) {
        if renew {
            enc.renew();
        }
        enc.encode_frame(v, &mut again).unwrap();
    }
    assert_eq!(again, wire, "SPEC.md line {line} re-encodes differently");
}

/// One record of `spec/vectors/*.txt` (docs/SPEC.md, Appendix A).
#[derive(Default, Debug)]
struct Vector {
    /// `file:line` of the record's first line.
    at: String,
    name: String,
    kind: String,
    bytes: Vec<u8>,
    /// `value:`, split at ` | ` for streams; `None` if the record has no `value` line.
    values: Option<Vec<String>>,
    /// `(category, ErrorCode name)`.
    error: Option<(String, Option<String>)>,
    then: Option<String>,
    encode: Option<String>,
}

fn hex_bytes(at: &str, text: &str) -> Vec<u8> {
    text.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap_or_else(|_| panic!("{at}: bad hex byte {b}")))
        .collect()
}

fn vectors() -> Vec<Vector> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/vectors");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("spec/vectors")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "spec/vectors holds {files:?}");
    let mut out: Vec<Vector> = Vec::new();
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut cur: Option<Vector> = None;
        for (i, line) in text.lines().chain([""]).enumerate() {
            let at = format!("{file}:{}", i + 1);
            if line.trim().is_empty() {
                out.extend(cur.take());
                continue;
            }
            if line.starts_with('#') {
                continue;
            }
            let (key, value) = line
                .split_once(':')
                .unwrap_or_else(|| panic!("{at}: not `key: value`"));
            let value = value.trim();
            let v = cur.get_or_insert_with(|| Vector {
                at: at.clone(),
                ..Vector::default()
            });
            match key {
                "name" => v.name = value.to_owned(),
                "kind" => v.kind = value.to_owned(),
                "hex" => v.bytes.extend(hex_bytes(&at, value)),
                "value" if value.is_empty() => v.values = Some(Vec::new()),
                "value" => v.values = Some(value.split(" | ").map(str::to_owned).collect()),
                "error" => {
                    let mut w = value.split_whitespace().map(str::to_owned);
                    v.error = Some((w.next().expect("a category"), w.next()));
                }
                "then" => v.then = Some(value.to_owned()),
                "encode" => v.encode = Some(value.to_owned()),
                "source" => {}
                other => panic!("{at}: unknown key {other}"),
            }
        }
    }
    let mut names = BTreeSet::new();
    for v in &out {
        assert!(!v.name.is_empty(), "{}: a record without a name", v.at);
        assert!(
            names.insert(v.name.clone()),
            "{}: name {} twice",
            v.at,
            v.name
        );
        assert!(
            v.values.is_some() || v.error.is_some() || v.kind != "message",
            "{}: neither value nor error",
            v.at
        );
    }
    out
}

/// `ErrorCode`'s variant name, from its `Debug` form (`NonMinimal("a uvarint")` → `NonMinimal`).
fn code_name(e: &Error) -> String {
    let dbg = format!("{:?}", e.code());
    dbg.split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap()
        .to_owned()
}

fn check_error(v: &Vector, e: &Error) {
    let (cat, code) = v.error.as_ref().unwrap();
    assert_eq!(e.classify(), category(0, cat), "{} {}: {e}", v.at, v.name);
    if let Some(code) = code {
        assert_eq!(&code_name(e), code, "{} {}: {e}", v.at, v.name);
    }
}

fn encoder_options(v: &Vector, enc: &str) -> Options {
    match enc {
        "speed" => Options::speed(),
        "balanced" => Options::balanced(),
        "compression" => Options::compression(),
        "compression-no-entropy" => {
            Options::compression().features(Features::COMPRESSION.without(Features::ENTROPY))
        }
        other => panic!("{} {}: unknown encoder {other}", v.at, v.name),
    }
}

fn run_message(v: &Vector) {
    let got = qdf_core::from_slice::<Value>(&v.bytes);
    let value = match (got, &v.values, &v.error) {
        (Err(e), _, Some(_)) => return check_error(v, &e),
        (Ok(val), Some(want), None) => {
            assert_eq!([val.to_string()], want.as_slice(), "{} {}", v.at, v.name);
            val
        }
        (got, ..) => panic!("{} {}: got {got:?}", v.at, v.name),
    };
    let Some(enc) = &v.encode else { return };
    let (preset, flags) = match enc.split_once(" flags=") {
        Some((p, f)) => (p, Some(u8::from_str_radix(f, 16).expect("flags hex"))),
        None => (enc.as_str(), None),
    };
    let mut want = v.bytes.clone();
    if let Some(f) = flags {
        want[4] = f;
    }
    let again = qdf_core::to_vec_with(&value, encoder_options(v, preset)).unwrap();
    assert_eq!(again, want, "{} {}: re-encodes differently", v.at, v.name);
}

/// Splits gRPC Length-Prefixed-Messages (flag byte 0, big-endian `u32` length).
fn grpc_messages(v: &Vector) -> Vec<&[u8]> {
    let mut rest = v.bytes.as_slice();
    let mut out = Vec::new();
    while !rest.is_empty() {
        assert!(rest.len() >= 5 && rest[0] == 0, "{}: gRPC prefix", v.at);
        let len = u32::from_be_bytes(rest[1..5].try_into().unwrap()) as usize;
        out.push(&rest[5..5 + len]);
        rest = &rest[5 + len..];
    }
    out
}

fn run_stream(v: &Vector) {
    let grpc = v.kind == "grpc";
    let want = v.values.clone().unwrap_or_default();
    let mut dec = DecoderSession::new(Options::default());
    let messages = if grpc { grpc_messages(v) } else { Vec::new() };
    let mut rest = v.bytes.as_slice();
    let mut got = Vec::new();
    let mut renewed = Vec::new();
    let mut error = None;
    for i in 0.. {
        let renewals = dec.renewals();
        let r = if grpc {
            match messages.get(i) {
                Some(m) => dec.decode_message::<Value>(m).map(Some),
                None => Ok(None),
            }
        } else {
            match dec.decode_frame::<Value>(rest) {
                Ok(Some((val, n))) => {
                    rest = &rest[n..];
                    Ok(Some(val))
                }
                Ok(None) => dec.check_end(rest).map(|()| None),
                Err(e) => Err(e),
            }
        };
        match r {
            Ok(Some(val)) => {
                got.push(val);
                renewed.push(dec.renewals() > renewals);
            }
            Ok(None) => break,
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    let texts: Vec<String> = got.iter().map(Value::to_string).collect();
    assert_eq!(texts, want, "{} {}", v.at, v.name);
    match (&error, &v.error) {
        (None, None) => {}
        (Some(e), Some(_)) => {
            check_error(v, e);
            if !grpc {
                let then = v.then.as_deref().expect("a stream error says `then`");
                let broken = dec.broken().is_some();
                assert_eq!(broken, then == "broken", "{} {}: {e}", v.at, v.name);
            }
        }
        (e, _) => panic!("{} {}: got error {e:?}", v.at, v.name),
    }
    let Some(enc) = &v.encode else { return };
    let checksum = v.bytes.get(4).is_some_and(|f| f & 0x10 != 0);
    let mut session = EncoderSession::new(encoder_options(v, enc)).with_checksum(checksum);
    let mut again = Vec::new();
    for (val, &renew) in got.iter().zip(&renewed) {
        if renew {
            session.renew();
        }
        if grpc {
            let mut m = Vec::new();
            session.encode_message(val, &mut m).unwrap();
            again.push(0);
            again.extend_from_slice(&(m.len() as u32).to_be_bytes());
            again.extend_from_slice(&m);
        } else {
            session.encode_frame(val, &mut again).unwrap();
        }
    }
    // A stream of no frame: the header alone, or nothing (the encoder writes its header
    // with the first frame).
    if got.is_empty() {
        return;
    }
    assert_eq!(
        again, v.bytes,
        "{} {}: re-encodes differently",
        v.at, v.name
    );
}

#[test]
fn vectors_decode_and_encode() {
    let all = vectors();
    assert!(all.len() >= 200, "only {} vectors", all.len());
    // Every vector runs; the failures are listed together.
    let failed: Vec<&str> = all
        .iter()
        .filter(|v| {
            std::panic::catch_unwind(|| match v.kind.as_str() {
                "message" => run_message(v),
                "stream" | "grpc" => run_stream(v),
                other => panic!("{}: unknown kind {other}", v.at),
            })
            .is_err()
        })
        .map(|v| v.name.as_str())
        .collect();
    assert!(failed.is_empty(), "vectors failed: {failed:?}");
}

/// The hex of SPEC.md's ```` ```text ```` blocks whose every line is hex bytes, optionally
/// followed by a comment after two spaces (string-block and gRPC examples; grammar blocks
/// such as `F5 uvarint(d) …` are not examples).
fn text_block_examples() -> Vec<(usize, Vec<u8>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/SPEC.md");
    let text = std::fs::read_to_string(path).unwrap();
    let is_hex = |t: &str| t.len() == 2 && t.chars().all(|c| c.is_ascii_hexdigit());
    let hex_line = |line: &str| -> Option<Vec<u8>> {
        let mut bytes = Vec::new();
        let mut pos = 0;
        for t in line.split_whitespace() {
            let start = pos + line[pos..].find(t).unwrap();
            if !is_hex(t) {
                // A comment stands two spaces after the bytes.
                return (!bytes.is_empty() && line[..start].ends_with("  ")).then_some(bytes);
            }
            bytes.push(u8::from_str_radix(t, 16).unwrap());
            pos = start + 2;
        }
        (!bytes.is_empty()).then_some(bytes)
    };
    let mut out = Vec::new();
    let mut block: Option<(usize, Option<Vec<u8>>)> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t == "```text" {
            block = Some((i + 1, Some(Vec::new())));
        } else if t == "```" {
            if let Some((at, Some(bytes))) = block.take()
                && !bytes.is_empty()
            {
                out.push((at, bytes));
            }
        } else if let Some((_, acc)) = &mut block
            && !t.is_empty()
        {
            *acc = match (acc.take(), hex_line(t)) {
                (Some(mut a), Some(b)) => {
                    a.extend(b);
                    Some(a)
                }
                _ => None,
            };
        }
    }
    out
}

#[test]
fn every_spec_example_is_a_vector() {
    let all = vectors();
    let whole: BTreeSet<&[u8]> = all.iter().map(|v| v.bytes.as_slice()).collect();
    for e in examples() {
        assert!(
            whole.contains(e.msg.as_slice()),
            "SPEC.md line {}: no vector in spec/vectors holds {:02x?}",
            e.line,
            e.msg
        );
    }
    let texts = text_block_examples();
    assert!(texts.len() >= 9, "only {} text-block examples", texts.len());
    for (line, bytes) in texts {
        let found = all
            .iter()
            .any(|v| v.bytes.windows(bytes.len()).any(|w| w == bytes));
        assert!(found, "SPEC.md line {line}: no vector holds {bytes:02x?}");
    }
}
