use super::*;
use crate::value::Variant;

#[test]
fn display_forms() {
    let v = Value::Array(vec![
        Value::Nil,
        Value::Unit,
        Value::I64(-3),
        Value::F64(-0.0),
        Value::F32(1.5),
        Value::F64(f64::from_bits(0x7ff8_0000_0000_0001)),
        Value::Char('\n'),
        Value::Bytes(vec![0, b'a']),
        Value::Map(vec![(Value::Str("k".into()), Value::Bool(true))]),
        Value::Variant(Box::new(Variant {
            kind: VariantKind::Tuple,
            name: "P".into(),
            value: Value::Array(vec![Value::U64(1), Value::U64(2)]),
        })),
    ]);
    assert_eq!(
        v.to_string(),
        r#"[nil, (), -3, -0.0, 1.5f32, NaN(0x7ff8000000000001), '\n', b"\x00a", {"k": true}, P(1, 2)]"#
    );
}
