//! Frame checksums through `QdfCodec` (`Builder::checksum`, `docs/SPEC.md` §17): a
//! checksummed connection over loopback TCP read by a codec with default settings, and a
//! flipped bit that breaks the reader with `ChecksumMismatch`, Dense or fast.

use crate::common::{Chunked, Msg, capture, mixed};
use futures::StreamExt;
use qdf_core::{Category, ErrorCode, Options};
use qdf_stream::{QdfCodec, QdfCodecError};
use tokio_util::codec::FramedRead;

async fn drain(
    wire: Vec<u8>,
) -> (
    Vec<Msg>,
    Option<QdfCodecError>,
    FramedRead<Chunked, QdfCodec<Msg>>,
) {
    let mut rx = FramedRead::new(Chunked::new([wire]), QdfCodec::<Msg>::dense());
    let mut got = Vec::new();
    while let Some(r) = rx.next().await {
        match r {
            Ok(m) => got.push(m),
            Err(e) => return (got, Some(e), rx),
        }
    }
    (got, None, rx)
}

fn codec(opts: Options, checksum: bool) -> QdfCodec<Msg> {
    QdfCodec::builder()
        .options(opts)
        .checksum(checksum)
        .new_codec()
}

#[tokio::test]
async fn a_checksummed_connection_reads_back_through_a_default_codec() {
    let msgs = mixed(40);
    for (opts, flags) in [(Options::balanced(), 0x53), (Options::speed(), 0x10)] {
        let (wire, ends) = capture(codec(opts, true), &msgs).await;
        let (plain, plain_ends) = capture(codec(opts, false), &msgs).await;
        assert_eq!(wire[4], flags);
        // 4 bytes per frame (a length prefix may grow by one byte at 128).
        let extra = wire.len() - plain.len();
        assert!(
            (4 * msgs.len()..=5 * msgs.len()).contains(&extra),
            "{extra}"
        );
        assert_eq!(ends.len(), plain_ends.len());
        let (got, err, rx) = drain(wire).await;
        assert!(err.is_none(), "{err:?}");
        assert_eq!(got, msgs);
        assert_eq!(rx.decoder().decoder_session().checksum(), Some(true));
    }
}

#[tokio::test]
async fn a_flipped_bit_breaks_the_reader_dense_or_fast() {
    let msgs = mixed(10);
    for opts in [Options::balanced(), Options::speed()] {
        let (wire, ends) = capture(codec(opts, true), &msgs).await;
        for frame in [0, 3, 9] {
            let start = if frame == 0 { 0 } else { ends[frame - 1] };
            let mut bad = wire.clone();
            bad[(start + ends[frame]) / 2] ^= 0x10;
            let (got, err, mut rx) = drain(bad).await;
            assert_eq!(got, msgs[..frame]);
            let Some(QdfCodecError::Qdf(e)) = err else {
                panic!("frame {frame}: {err:?}");
            };
            assert!(
                matches!(e.code(), ErrorCode::ChecksumMismatch { frame: f, frame_offset, .. }
                    if *f == frame as u64 && *frame_offset == start as u64),
                "frame {frame}: {e}"
            );
            // tokio-util ends the stream once after an error; polled again, the session
            // refuses: a damaged frame is never skipped, even in a fast stream.
            assert!(rx.next().await.is_none());
            let later = rx.next().await.unwrap().unwrap_err();
            assert_eq!(later.category(), Category::Broken);
        }
    }
}
