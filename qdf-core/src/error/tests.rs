use super::*;

#[test]
fn error_is_one_pointer() {
    assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
}

#[test]
fn categories_and_display() {
    let e = Error::at(
        ErrorCode::BadTag {
            found: 0xff,
            expected: "a string",
        },
        7,
    );
    assert_eq!(e.classify(), Category::Syntax);
    assert_eq!(e.offset(), Some(7));
    assert_eq!(e.to_string(), "expected a string, found tag 0xff at byte 7");
    let io: io::Error = Error::new(ErrorCode::UnexpectedEof { expected: "a tag" }).into();
    assert_eq!(io.kind(), io::ErrorKind::UnexpectedEof);
    let lim = Error::new(ErrorCode::DepthLimit(128));
    assert_eq!(lim.classify(), Category::Limit);
    let io2: io::Error = lim.into();
    assert_eq!(io2.kind(), io::ErrorKind::InvalidData);
}

#[test]
fn stream_errors_name_the_frame_and_count_from_the_stream_start() {
    let e = Error::at(ErrorCode::InvalidUtf8, 3).in_frame(2, 40);
    assert_eq!((e.frame(), e.offset()), (Some(2), Some(43)));
    assert_eq!(
        e.to_string(),
        "expected a UTF-8 string in frame 2 at stream byte 43"
    );
    // Placed once: an outer layer does not move it again.
    let e = e.in_frame(9, 100);
    assert_eq!((e.frame(), e.offset()), (Some(2), Some(43)));
    let e = Error::new(ErrorCode::InvalidUtf8).in_frame(0, 5);
    assert_eq!(e.to_string(), "expected a UTF-8 string in frame 0");
}
