//! Every example in the `qpack` blocks of `docs/SPEC.md` §QPack decodes to the stated `Value`
//! text (or fails with the stated category) and re-encodes to the same bytes: Balanced, or
//! Compression for the float-XOR (`E7`) and ALP (`F4`) examples.

use qdf_core::{Category, Options, Value};

#[test]
fn qpack_spec_examples() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/SPEC.md");
    let text = std::fs::read_to_string(path).expect("docs/SPEC.md");
    let mut in_block = false;
    let mut seen = 0;
    for (i, line) in text.lines().enumerate() {
        let (t, line) = (line.trim(), i + 1);
        if t.starts_with("```") {
            in_block = t == "```qpack";
            continue;
        }
        if !in_block || t.is_empty() {
            continue;
        }
        let (hex, expect) = t.split_once(" => ").expect("` => ` in a qpack example");
        let mut msg = b"QDF\x01\x00".to_vec();
        msg.extend(
            hex.split_whitespace()
                .map(|b| u8::from_str_radix(b, 16).unwrap()),
        );
        seen += 1;
        let got = qdf_core::from_slice::<Value>(&msg);
        if let Some(cat) = expect.strip_prefix('!') {
            let e = got.expect_err(&format!("SPEC.md line {line} should fail"));
            let want = match cat {
                "syntax" => Category::Syntax,
                "eof" => Category::Eof,
                other => panic!("SPEC.md line {line}: unknown category {other}"),
            };
            assert_eq!(e.classify(), want, "SPEC.md line {line}: {e}");
            continue;
        }
        let v = got.unwrap_or_else(|e| panic!("SPEC.md line {line}: {e}"));
        assert_eq!(v.to_string(), expect, "SPEC.md line {line}");
        let opts = if matches!(msg[5], 0xE7 | 0xF4) {
            Options::compression()
        } else {
            Options::balanced()
        };
        let again = qdf_core::to_vec_with(&v, opts).unwrap();
        // Bodies compare: Balanced sets the Dense header flag, the examples use flags 00.
        assert_eq!(again[5..], msg[5..], "SPEC.md line {line} re-encodes differently");
    }
    assert!(seen >= 28, "only {seen} qpack examples found");
}
