//! Pre-shared dictionaries (`docs/SPEC.md` §25) through `QdfCodec` over real loopback TCP:
//! exact round trips with a fixed dictionary and with a registry that picks the one the
//! peer's stream header names, the typed error for an unknown id, and the bytes saved.

use std::sync::Arc;
use std::time::Duration;

use crate::common::{Chunked, Msg, Reading, mixed, reading, tcp_pair};
use bytes::BytesMut;
use futures::{SinkExt, StreamExt};
use qdf_core::{Category, Dictionary, DictionaryRegistry, ErrorCode, Options};
use qdf_stream::{Builder, QdfCodec, QdfCodecError};
use tokio::time::timeout;
use tokio_util::codec::{Encoder, FramedRead};

/// Generous guard against a hang; never an assertion about speed.
const GUARD: Duration = Duration::from_secs(30);

/// A dictionary trained on messages like the ones sent (not the same ones).
fn trained() -> Dictionary {
    let samples: Vec<Msg> = mixed(400).into_iter().skip(200).collect();
    Dictionary::train(&samples, Options::balanced(), 4096).unwrap()
}

/// Another dictionary, trained on the readings alone.
fn other() -> Dictionary {
    let samples: Vec<Reading> = (1000..1100).map(reading).collect();
    Dictionary::train(&samples, Options::balanced(), 1024).unwrap()
}

/// Sends `msgs` from a codec of `client` to one of `server` over TCP, the server echoes each
/// back; returns what each side received (the client: until its first error) and the dictionary the server's decoder used.
async fn echo(
    client: &Builder,
    server: &Builder,
    msgs: &[Msg],
) -> (Vec<Msg>, Vec<Msg>, Option<qdf_core::DictionaryId>) {
    let (c, s) = tcp_pair().await;
    let mut tx = client.new_framed::<_, Msg>(c);
    let mut rx = server.new_framed::<_, Msg>(s);
    let sent = msgs.to_vec();
    let writer = tokio::spawn(async move {
        for m in &sent {
            tx.feed(m).await.unwrap();
        }
        tx.flush().await.unwrap();
        // Replies until the first error (a reply stream this client cannot read).
        let mut back = Vec::new();
        while let Some(Ok(m)) = tx.next().await {
            back.push(m);
        }
        back
    });
    let mut got = Vec::new();
    while got.len() < msgs.len() {
        let m = timeout(GUARD, rx.next()).await.unwrap().unwrap().unwrap();
        // A client that cannot read the replies hangs up: the replies it gets are checked.
        let _ = rx.send(&m).await;
        got.push(m);
    }
    let used = rx.codec().decoder_session().dictionary_id();
    drop(rx);
    (got, timeout(GUARD, writer).await.unwrap().unwrap(), used)
}

#[tokio::test]
async fn fixed_dictionary_round_trips_both_ways() {
    let dict = trained();
    let builder = QdfCodec::builder().dictionary(dict.clone()).clone();
    let msgs = mixed(200);
    let (got, back, used) = echo(&builder, &builder, &msgs).await;
    assert_eq!(got, msgs);
    assert_eq!(back, msgs);
    assert_eq!(used, Some(dict.id()));
}

#[tokio::test]
async fn registry_picks_the_dictionary_each_peer_names() {
    let (v1, v2) = (trained(), other());
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(v1.clone()).unwrap();
    registry.rotate(v2.clone()).unwrap();
    let server = QdfCodec::builder()
        .dictionary_registry(Arc::clone(&registry))
        .clone();
    let msgs = mixed(150);
    // A client on the older dictionary, one on the current, one on none.
    for (client, expect) in [
        (
            QdfCodec::builder().dictionary(v1.clone()).clone(),
            Some(v1.id()),
        ),
        (
            QdfCodec::builder().dictionary(v2.clone()).clone(),
            Some(v2.id()),
        ),
        (QdfCodec::builder(), None),
    ] {
        let (got, back, used) = echo(&client, &server, &msgs).await;
        assert_eq!(got, msgs, "{expect:?}");
        assert_eq!(used, expect);
        // The server's replies start from the registry's current dictionary (v2), which a
        // client holding v1 or none cannot read: it fails at the header, typed.
        if expect == Some(v2.id()) {
            assert_eq!(back, msgs);
        } else {
            assert!(back.is_empty());
        }
    }
    // A codec built from the registry writes its current dictionary.
    let codec: QdfCodec<Msg> = server.new_codec();
    assert_eq!(codec.encoder_session().dictionary_id(), Some(v2.id()));
}

#[tokio::test]
async fn a_stream_keeps_its_dictionary_when_it_is_retired() {
    let (v1, v2) = (trained(), other());
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(v1.clone()).unwrap();
    let server = QdfCodec::builder()
        .dictionary_registry(Arc::clone(&registry))
        .clone();
    let (c, s) = tcp_pair().await;
    let mut tx = QdfCodec::builder()
        .dictionary(v1.clone())
        .new_write::<_, Msg>(c);
    let mut rx = server.new_read::<_, Msg>(s);
    let msgs = mixed(40);
    tx.send(&msgs[0]).await.unwrap();
    assert_eq!(rx.next().await.unwrap().unwrap(), msgs[0]);
    registry.rotate(v2).unwrap();
    assert!(registry.retire(v1.id()).unwrap());
    for m in &msgs[1..] {
        tx.send(m).await.unwrap();
        assert_eq!(
            &timeout(GUARD, rx.next()).await.unwrap().unwrap().unwrap(),
            m
        );
    }
}

#[tokio::test]
async fn unknown_dictionary_is_a_typed_error_at_the_header() {
    let (v1, v2) = (trained(), other());
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(v2.clone()).unwrap();
    for (server, held) in [
        (
            QdfCodec::builder()
                .dictionary_registry(Arc::clone(&registry))
                .clone(),
            Some(v2.id().to_bytes()),
        ),
        (
            QdfCodec::builder()
                .dictionary_registry(Arc::new(DictionaryRegistry::new()))
                .clone(),
            None,
        ),
        (
            QdfCodec::builder().dictionary(v2.clone()).clone(),
            Some(v2.id().to_bytes()),
        ),
        // A registry with no current dictionary: the fixed one is what this side holds.
        (
            QdfCodec::builder()
                .dictionary_registry(Arc::new(DictionaryRegistry::new()))
                .dictionary(v2.clone())
                .clone(),
            Some(v2.id().to_bytes()),
        ),
        (QdfCodec::builder(), None),
    ] {
        let (c, s) = tcp_pair().await;
        let mut tx = QdfCodec::builder()
            .dictionary(v1.clone())
            .new_write::<_, Msg>(c);
        let mut rx = server.new_read::<_, Msg>(s);
        tx.send(&mixed(1)[0]).await.unwrap();
        let err = timeout(GUARD, rx.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap_err();
        assert_eq!(err.category(), Category::Syntax);
        let QdfCodecError::Qdf(e) = &err else {
            panic!("not a qdf error: {err:?}");
        };
        assert_eq!(
            *e.code(),
            ErrorCode::UnknownDictionary {
                found: v1.id().to_bytes(),
                held
            }
        );
        assert_eq!((e.frame(), e.offset()), (Some(0), Some(5)));
        assert!(err.to_string().contains(&v1.id().to_string()), "{err}");
        assert!(rx.decoder().decoder_session().broken().is_some());
    }
}

/// The bytes of the first frames of `msgs` as written by a codec of `builder` (the first
/// includes the stream header).
fn frame_sizes(builder: &Builder, msgs: &[Reading]) -> Vec<usize> {
    let mut codec = builder.new_codec::<(), Reading>();
    msgs.iter()
        .map(|m| {
            let mut dst = BytesMut::new();
            codec.encode(m, &mut dst).unwrap();
            dst.len()
        })
        .collect()
}

#[test]
fn the_dictionary_makes_the_frames_smaller() {
    let dict = other();
    let msgs: Vec<Reading> = (0..3).map(reading).collect();
    let plain = frame_sizes(&QdfCodec::builder(), &msgs);
    let with = frame_sizes(QdfCodec::builder().dictionary(dict.clone()), &msgs);
    // One small message (a `Reading`; the first frame carries the stream header, 13 bytes
    // with the dictionary's 8-byte id instead of 5): the field names and the sensor name
    // are references to the dictionary instead of definitions, and `Reading`'s shape is the
    // dictionary's (§25.2: no field name at all; 43, 23, 11 before). The next frames each
    // define a new sensor name without the dictionary.
    assert_eq!(plain, [61, 31, 19]);
    assert_eq!(with, [36, 11, 9]);
    // The Speed tier ignores the dictionary: its stream names none.
    let fast = QdfCodec::builder()
        .options(Options::speed())
        .dictionary(dict)
        .new_codec::<(), Reading>();
    assert_eq!(fast.encoder_session().dictionary_id(), None);
}

#[tokio::test]
async fn a_header_cut_anywhere_still_picks_the_dictionary() {
    let dict = trained();
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(dict.clone()).unwrap();
    let msgs = mixed(30);
    let mut codec = QdfCodec::builder()
        .dictionary(dict.clone())
        .new_codec::<(), Msg>();
    let mut wire = BytesMut::new();
    for m in &msgs {
        codec.encode(m, &mut wire).unwrap();
    }
    let server = QdfCodec::builder().dictionary_registry(registry).clone();
    // One byte per read, and cuts inside the 13-byte header (after the magic, inside the id).
    let readers = [
        Chunked::bytewise(&wire),
        Chunked::split(&wire, 4),
        Chunked::split(&wire, 9),
        Chunked::split(&wire, 13),
    ];
    for reader in readers {
        let mut rx = FramedRead::new(reader, server.new_codec::<Msg, Msg>());
        let mut got = Vec::new();
        while let Some(m) = rx.next().await {
            got.push(m.unwrap());
        }
        assert_eq!(got, msgs);
        assert_eq!(
            rx.decoder().decoder_session().dictionary_id(),
            Some(dict.id())
        );
    }
    // A stream that ends inside the header is a typed `Eof`, not a hang or a panic.
    let mut rx = FramedRead::new(
        Chunked::new([wire[..9].to_vec()]),
        server.new_codec::<Msg, Msg>(),
    );
    let err = rx.next().await.unwrap().unwrap_err();
    assert_eq!(err.category(), Category::Eof, "{err}");
}
