//! Every hex example in `docs/SPEC.md` decodes to the stated `Value` text (or fails with the
//! stated category) and re-encodes to the same bytes, so the spec cannot drift from the code.

use qdf_core::{Category, Options, Value};

/// `(line, message, expected text, re-encode check)`. Lines of ```` ```qdf-dense ```` blocks
/// are only decoded: the Dense encoder's choices are pinned by `tests/dense.rs`.
fn examples() -> Vec<(usize, Vec<u8>, String, bool)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/SPEC.md");
    let text = std::fs::read_to_string(path).expect("docs/SPEC.md");
    let mut out = Vec::new();
    let mut in_block = false;
    let mut re_encode = true;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t == "```qdf" || t == "```qdf-dense" {
            in_block = true;
            re_encode = t == "```qdf";
            continue;
        }
        if t.starts_with("```") {
            in_block = false;
            continue;
        }
        if !in_block || t.is_empty() {
            continue;
        }
        let (hex, expect) = t
            .split_once(" => ")
            .unwrap_or_else(|| panic!("SPEC.md line {}: no ` => `", i + 1));
        let mut msg = b"QDF\x01\x00".to_vec();
        for b in hex.split_whitespace() {
            msg.push(u8::from_str_radix(b, 16).expect("hex byte"));
        }
        out.push((i + 1, msg, expect.to_string(), re_encode));
    }
    out
}

#[test]
fn spec_examples_decode_and_re_encode() {
    let all = examples();
    assert!(all.len() >= 60, "only {} examples found", all.len());
    for (line, msg, expect, re_encode) in all {
        let got = qdf_core::from_slice::<Value>(&msg);
        if let Some(cat) = expect.strip_prefix('!') {
            let e = got.expect_err(&format!("SPEC.md line {line} should fail"));
            let want = match cat {
                "syntax" => Category::Syntax,
                "eof" => Category::Eof,
                "data" => Category::Data,
                "limit" => Category::Limit,
                other => panic!("SPEC.md line {line}: unknown category {other}"),
            };
            assert_eq!(e.classify(), want, "SPEC.md line {line}: {e}");
            continue;
        }
        let v = got.unwrap_or_else(|e| panic!("SPEC.md line {line}: {e}"));
        assert_eq!(v.to_string(), expect, "SPEC.md line {line}");
        if !re_encode {
            continue;
        }
        let again = qdf_core::to_vec_with(&v, Options::speed()).unwrap();
        assert_eq!(again, msg, "SPEC.md line {line} re-encodes differently");
    }
}
