//! QdfCodec over a real multi-frame capture replayed in pieces: every split point, one byte
//! per read, EOF at every byte offset, and a corrupt frame followed by valid ones.

use std::sync::atomic::Ordering;

use crate::common::{Chunked, Msg, capture, mixed};
use futures::StreamExt;
use qdf_core::{Category, ErrorCode};
use qdf_stream::{QdfCodec, QdfCodecError};
use tokio_util::codec::FramedRead;

async fn drain(reader: Chunked) -> (Vec<Msg>, Option<QdfCodecError>) {
    let mut rx = FramedRead::new(reader, QdfCodec::<Msg>::dense());
    let mut got = Vec::new();
    while let Some(r) = rx.next().await {
        match r {
            Ok(m) => got.push(m),
            Err(e) => return (got, Some(e)),
        }
    }
    (got, None)
}

#[tokio::test]
async fn every_split_point_and_bytewise_reads_decode_the_same_messages() {
    let msgs = mixed(6);
    let (wire, _) = capture(QdfCodec::dense(), &msgs).await;
    for at in 0..=wire.len() {
        let (got, err) = drain(Chunked::split(&wire, at)).await;
        assert!(err.is_none(), "split at {at}: {err:?}");
        assert_eq!(got, msgs, "split at {at}");
    }
    let (got, err) = drain(Chunked::bytewise(&wire)).await;
    assert!(err.is_none());
    assert_eq!(got, msgs);
}

#[tokio::test]
async fn eof_at_every_byte_offset_is_an_error_unless_between_frames() {
    let msgs = mixed(4);
    let (wire, ends) = capture(QdfCodec::dense(), &msgs).await;
    for cut in 0..=wire.len() {
        let (got, err) = drain(Chunked::new([wire[..cut].to_vec()])).await;
        let whole = ends.iter().filter(|&&e| e <= cut).count();
        assert_eq!(got, msgs[..whole], "cut {cut}");
        let clean = cut == 0 || cut == 5 || ends.contains(&cut);
        match err {
            None => assert!(clean, "cut {cut} ended cleanly inside a frame"),
            Some(e) => {
                assert!(!clean, "cut {cut}: {e}");
                assert_eq!(e.category(), Category::Eof, "cut {cut}: {e}");
            }
        }
    }
}

/// Header, one good frame, a complete frame with a corrupt body, two good frames.
async fn with_corrupt_second_frame(codec: QdfCodec<Msg>) -> (Vec<u8>, Vec<Msg>) {
    let msgs = mixed(3);
    let (wire, ends) = capture(codec, &msgs).await;
    let mut bad = wire[..ends[0]].to_vec();
    bad.extend_from_slice(&[3, 0xFD, 0xFD, 0xFD]); // FD: a reserved tag, rejected everywhere
    bad.extend_from_slice(&wire[ends[0]..]);
    (bad, msgs)
}

#[tokio::test]
async fn a_corrupt_frame_in_a_fast_stream_is_skipped_without_spinning() {
    let (wire, msgs) = with_corrupt_second_frame(QdfCodec::fast()).await;
    let reader = Chunked::new([wire]);
    let polls = reader.polls.clone();
    let mut rx = FramedRead::new(reader, QdfCodec::<Msg>::fast());
    assert_eq!(rx.next().await.unwrap().unwrap(), msgs[0]);
    let err = rx.next().await.unwrap().unwrap_err();
    assert!(
        matches!(err.category(), Category::Syntax | Category::Data),
        "{err}"
    );
    // tokio-util ends the stream once after an error; polled again it goes on.
    assert!(rx.next().await.is_none());
    let mut rest = Vec::new();
    while let Some(m) = rx.next().await {
        rest.push(m.unwrap());
    }
    assert_eq!(rest, msgs[1..]);
    assert!(rx.decoder().decoder_session().broken().is_none());
    // One read for the data, one that sees EOF, and at most a couple of re-polls after it.
    assert!(
        polls.load(Ordering::Relaxed) <= 4,
        "{} polls",
        polls.load(Ordering::Relaxed)
    );
}

#[tokio::test]
async fn a_corrupt_frame_in_a_dense_stream_breaks_it_without_spinning() {
    let (mut wire, msgs) = with_corrupt_second_frame(QdfCodec::dense()).await;
    // Announce the Dense dialect explicitly (flag 0x01), so the bodies count as stateful
    // whatever the encoder's tier currently emits.
    wire[4] |= 0x01;
    let reader = Chunked::new([wire]);
    let polls = reader.polls.clone();
    let mut rx = FramedRead::new(reader, QdfCodec::<Msg>::dense());
    assert_eq!(rx.next().await.unwrap().unwrap(), msgs[0]);
    let first = rx.next().await.unwrap().unwrap_err();
    assert!(matches!(
        first.category(),
        Category::Syntax | Category::Data
    ));
    assert!(rx.next().await.is_none());
    // Polled again, the session refuses: no later frame comes out after the error.
    let later = rx.next().await.unwrap().unwrap_err();
    assert_eq!(later.category(), Category::Broken);
    let QdfCodecError::Qdf(e) = &later else {
        panic!("{later:?}")
    };
    assert!(matches!(e.code(), ErrorCode::Broken(_)));
    for _ in 0..3 {
        assert!(!matches!(rx.next().await, Some(Ok(_))));
    }
    assert!(
        polls.load(Ordering::Relaxed) <= 6,
        "{} polls",
        polls.load(Ordering::Relaxed)
    );
}

#[tokio::test]
async fn bad_stream_flags_and_non_minimal_lengths_are_refused() {
    let mut entropy = b"QDF\x01\x05".to_vec();
    entropy.extend_from_slice(&[1, 0xC0]);
    let (got, err) = drain(Chunked::new([entropy])).await;
    assert!(got.is_empty());
    let QdfCodecError::Qdf(e) = err.unwrap() else {
        panic!()
    };
    assert_eq!(e.code(), &ErrorCode::BadFlags(0x05));

    let non_minimal = b"QDF\x01\x01\x81\x00\xC0".to_vec();
    let (_, err) = drain(Chunked::new([non_minimal])).await;
    assert_eq!(err.unwrap().category(), Category::Syntax);
}
