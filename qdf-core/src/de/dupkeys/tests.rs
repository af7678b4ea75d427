use super::*;

#[test]
fn records_are_canonical() {
    let rec = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = Vec::new();
        f(&mut b);
        b
    };
    assert_eq!(
        rec(&|b| rec_i(b, 5)),
        rec(&|b| rec_u(b, 5)),
        "5i64 and 5u64 are one key"
    );
    assert_eq!(rec(&|b| rec_u(b, 0)), [UINT, 0]);
    assert_eq!(rec(&|b| rec_u(b, 300)), [UINT, 2, 0x2C, 0x01]);
    assert_eq!(rec(&|b| rec_i(b, -1)), [NEG, 0]);
    assert_eq!(rec(&|b| rec_i(b, -129)), [NEG, 1, 0x7F]);
    for v in [0u128, 1, 255, 256, u64::MAX as u128, u128::MAX] {
        assert_eq!(describe(&rec(&|b| rec_u(b, v))), Some(v.to_string()));
    }
    for v in [-1i128, -128, -129, i64::MIN as i128, i128::MIN] {
        assert_eq!(describe(&rec(&|b| rec_i(b, v))), Some(v.to_string()));
    }
    let mut s = rec(&|b| rec_text(b, b"ab"));
    assert_eq!(describe(&s).as_deref(), Some("\"ab\""));
    // A string record followed by more is no plain string.
    s.push(END);
    assert_eq!(describe(&s), None);
    let long = rec(&|b| rec_text(b, "é".repeat(100).as_bytes()));
    assert_eq!(describe(&long), Some(format!("{:?}…", "é".repeat(64))));
}
