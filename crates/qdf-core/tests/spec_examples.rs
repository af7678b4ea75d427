//! Every hex example in `docs/SPEC.md` decodes to the stated `Value` text (or fails with the
//! stated category) and, where its block says so, re-encodes to the same bytes, so the spec
//! cannot drift from the code.
//!
//! Block kinds (the fence's info string):
//! - ```` ```qdf ````: re-encoded with `Options::speed()`, compared byte for byte;
//! - ```` ```qpack ````: re-encoded Balanced, or Compression for the float-XOR (`E7`) and ALP
//!   (`F4`) examples; bodies compared (Balanced sets header flags the examples leave at `00`);
//! - ```` ```qdf-dense ````: only decoded (the Dense encoder's choices are pinned by
//!   `tests/dense.rs`, `tests/shapes.rs` and `tests/columnar.rs`).

use qdf_core::{Category, Options, Value};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Block {
    Speed,
    QPack,
    DecodeOnly,
}

struct Example {
    line: usize,
    block: Block,
    msg: Vec<u8>,
    expect: String,
}

fn examples() -> Vec<Example> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/SPEC.md");
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
        let mut msg = b"QDF\x01\x00".to_vec();
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
    for Example {
        line,
        block,
        msg,
        expect,
    } in all
    {
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
            Block::DecodeOnly => continue,
            Block::Speed => (Options::speed(), 0),
            Block::QPack if matches!(msg[5], 0xE7 | 0xF4) => (Options::compression(), 5),
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
