use super::*;

#[test]
fn wraps_only_when_smaller() {
    assert!(wrap(&[0xE4; 10]).is_none());
    let mut block = vec![0xE4, 0x00, 0x80, 0x01];
    block.extend(std::iter::repeat_n([1u8, 2, 3, 1], 32).flatten());
    let w = wrap(&block).expect("skewed bytes shrink");
    assert!(w.len() < block.len());
    assert_eq!(w[0], tags::ENTROPY);
    let mut budget = 1000;
    let (inner, used) = unwrap(&w[1..], 11, &mut budget).unwrap();
    assert_eq!((inner, used), (block.clone(), w.len() - 1));
    assert_eq!(budget, 1000 - block.len() as u64);
    // Never wraps a wrapped block.
    assert!(wrap(&w).is_none());
}

#[test]
fn nested_and_empty_blocks_are_rejected() {
    // n = 30 copies of FE (constant form).
    let e = unwrap(&[30, 0, 0xFE], 11, &mut 100).unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (
            &ErrorCode::BadCodec("an entropy-coded block inside another"),
            Some(10)
        )
    );
    let e = unwrap(&[0], 11, &mut 100).unwrap_err();
    assert_eq!(e.offset(), Some(10));
    let e = finish(Ok(((), 3)), &[1, 2, 3, 4], 11).unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (
            &ErrorCode::BadCodec("an entropy-coded block has bytes after its block"),
            Some(10)
        )
    );
    let inner = Error::at(ErrorCode::BadCodec("x"), 2);
    let e = finish::<()>(Err(inner), &[1], 11).unwrap_err();
    assert_eq!(e.offset(), Some(10));
}
