//! `Value` through other serde formats: the private names it uses with qdf degrade to plain
//! self-described data elsewhere.

use qdf_core::{Value, Variant, VariantKind};

#[test]
fn value_from_json() {
    let v: Value = serde_json::from_str(r#"{"a":[1,-2,3.5,"x",null,true]}"#).unwrap();
    // JSON null is serde unit.
    assert_eq!(v.to_string(), r#"{"a": [1, -2, 3.5, "x", (), true]}"#);
    // And on through qdf.
    let bytes = qdf_core::to_vec(&v).unwrap();
    assert_eq!(qdf_core::from_slice::<Value>(&bytes).unwrap(), v);
}

#[test]
fn value_variants_to_json_are_externally_tagged() {
    let v = Value::Array(vec![
        Value::Variant(Box::new(Variant {
            kind: VariantKind::Unit,
            name: "A".into(),
            value: Value::Unit,
        })),
        Value::Variant(Box::new(Variant {
            kind: VariantKind::Tuple,
            name: "C".into(),
            value: Value::Array(vec![Value::U64(1), Value::Str("x".into())]),
        })),
        Value::Timestamp {
            secs: -2,
            nanos: 1000,
        },
    ]);
    assert_eq!(
        serde_json::to_string(&v).unwrap(),
        r#"["A",{"C":[1,"x"]},"-2.000001000"]"#
    );
}

#[test]
fn qdf_typed_enums_read_from_json_shapes_via_value() {
    #[derive(serde::Deserialize, serde::Serialize, Debug, PartialEq)]
    enum E {
        A,
        C(u8, String),
    }
    // JSON → Value (map form) → qdf bytes → typed enum.
    let v: Value = serde_json::from_str(r#"[{"C":[1,"x"]},"A"]"#).unwrap();
    let bytes = qdf_core::to_vec(&v).unwrap();
    let typed: Vec<E> = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(typed, vec![E::C(1, "x".into()), E::A]);
}
