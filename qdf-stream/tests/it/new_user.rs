//! The codec as a tokio-util user writes it: a write-only `Framed` from `QdfCodec::dense()`
//! with no type named, `flush`/`close` without annotations, a connection with a different
//! type each way; and a one-shot message fed to the codec.

use crate::common::{Reading, reading};
use futures::{SinkExt, StreamExt};
use qdf_stream::{QdfCodec, QdfCodecError};
use tokio::io::AsyncWriteExt;
use tokio_util::codec::{Framed, FramedRead};

#[tokio::test]
async fn a_write_only_framed_infers_its_type_and_flushes_without_annotations() {
    let (a, b) = tokio::io::duplex(64 * 1024);
    // No type named: `send(&Reading)` fixes it (E0282 and E0283 before).
    let mut tx = Framed::new(a, QdfCodec::dense());
    tx.feed(&reading(1)).await.unwrap();
    tx.feed(&reading(2)).await.unwrap();
    tx.flush().await.unwrap();
    tx.send(&reading(3)).await.unwrap();
    tx.close().await.unwrap();

    let rx = FramedRead::new(b, QdfCodec::<Reading>::dense());
    let got: Vec<Reading> = rx.map(Result::unwrap).collect().await;
    assert_eq!(got, [reading(1), reading(2), reading(3)]);
}

#[tokio::test]
async fn a_connection_receives_one_type_and_sends_another() {
    let (a, b) = tokio::io::duplex(4096);
    let mut client = Framed::new(a, QdfCodec::builder().new_codec::<u64, str>());
    let mut server = Framed::new(b, QdfCodec::builder().new_codec::<String, u64>());
    client.send("attic").await.unwrap();
    let req = server.next().await.unwrap().unwrap();
    server.send(&(req.len() as u64)).await.unwrap();
    assert_eq!(client.next().await.unwrap().unwrap(), 5);
}

#[tokio::test]
async fn a_one_shot_message_is_named_as_such() {
    let (mut a, b) = tokio::io::duplex(4096);
    a.write_all(&qdf_core::to_vec(&reading(7)).unwrap())
        .await
        .unwrap();
    drop(a);
    let mut rx = FramedRead::new(b, QdfCodec::<Reading>::dense());
    let e = rx.next().await.unwrap().unwrap_err();
    let QdfCodecError::Qdf(e) = e else {
        panic!("{e}")
    };
    assert_eq!(e.code(), &qdf_core::ErrorCode::NotAStream);
    assert!(
        e.to_string()
            .contains("found a one-shot qdf message, not a stream"),
        "{e}"
    );
}
