use super::*;

#[test]
fn deep_value_drops_without_recursion() {
    let mut v = Value::Nil;
    for i in 0..200_000 {
        v = match i % 3 {
            0 => Value::Array(vec![v]),
            1 => Value::Some(Box::new(v)),
            _ => Value::Map(vec![(Value::U64(1), v)]),
        };
    }
    drop(v);
}

#[test]
fn floats_compare_by_bits() {
    assert_eq!(Value::F64(f64::NAN), Value::F64(f64::NAN));
    assert_ne!(Value::F64(0.0), Value::F64(-0.0));
    assert_ne!(Value::F32(1.0), Value::F64(1.0));
}

#[test]
fn some_is_canonical() {
    assert_eq!(Value::some(Value::U64(3)), Value::U64(3));
    assert_eq!(Value::some(Value::Nil), Value::Some(Box::new(Value::Nil)));
}
