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
//!   `tests/dense.rs`, `tests/shapes.rs` and `tests/columnar.rs`);
//! - ```` ```qdf-stream ````: a whole stream, header included, decoded frame by frame by a
//!   `DecoderSession`; the expectation is the frames' values separated by ` | `, optionally
//!   ending in `!category` (the next frame's error, which must break the session unless it
//!   is a body error, `!data`, in a stream without `FLAG_DENSE`). Valid
//!   streams are re-encoded by an `EncoderSession` (Balanced if the header has flag `01`,
//!   else Speed; with checksums if it has flag `10`; asked to renew before each frame that
//!   renewed the decoder's state, §18) and compared byte for byte.

use qdf_core::{Category, DecoderSession, EncoderSession, Features, Options, Value};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Block {
    Speed,
    QPack,
    DecodeOnly,
    Stream,
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
            Block::Stream => Vec::new(),
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
        if block == Block::Stream {
            check_stream(line, &msg, &expect);
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
            Block::DecodeOnly | Block::Stream => continue,
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

/// A `qdf-stream` example: the frames' values, then the end or the stated error.
fn check_stream(line: usize, wire: &[u8], expect: &str) {
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
