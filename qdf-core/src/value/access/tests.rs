use super::*;

#[test]
fn accessors() {
    #[derive(serde::Serialize)]
    struct S {
        n: i32,
        name: &'static str,
        xs: Vec<f32>,
    }
    let bytes = crate::to_vec(&S {
        n: -3,
        name: "q",
        xs: vec![0.5],
    })
    .unwrap();
    let v: Value = crate::from_slice(&bytes).unwrap();
    assert_eq!(v.get("n").and_then(Value::as_i64), Some(-3));
    assert_eq!(v.get("n").and_then(Value::as_u64), None);
    assert_eq!(v.get("name").and_then(Value::as_str), Some("q"));
    let xs = v.get("xs").and_then(Value::as_array).unwrap();
    assert_eq!(xs[0].as_f64(), Some(0.5));
    assert!(v.get("missing").is_none());
    assert_eq!(v.as_map().map(<[_]>::len), Some(3));
    assert!(Value::Nil.is_nil() && Value::Bool(true).as_bool().unwrap());
    assert_eq!(Value::Bytes(vec![1]).as_bytes(), Some(&[1u8][..]));
    assert_eq!(Value::U64(u64::MAX).as_i64(), None);
}
