//! QdfCodec over real loopback TCP: round trips, many messages, frame limits on both sides,
//! bounded memory, backpressure and cancellation.

use std::time::Duration;

use crate::common::{Msg, Reading, mixed, reading, tcp_pair};
use futures::{SinkExt, StreamExt};
use qdf_core::{Category, EncoderSession, Options};
use qdf_stream::{QdfCodec, QdfCodecError};
use tokio::io::AsyncWriteExt;
use tokio::time::timeout;
use tokio_util::codec::{Framed, FramedRead, FramedWrite};

/// Generous guard against a hang; never an assertion about speed.
const GUARD: Duration = Duration::from_secs(30);

#[tokio::test]
async fn mixed_message_types_round_trip_both_tiers() {
    for builder in [
        QdfCodec::builder(),
        QdfCodec::builder().options(Options::speed()).clone(),
    ] {
        let (c, s) = tcp_pair().await;
        let msgs = mixed(200);
        let mut tx = builder.new_framed::<_, Msg>(c);
        let mut rx = builder.new_framed::<_, Msg>(s);
        let sent = msgs.clone();
        let writer = tokio::spawn(async move {
            for m in &sent {
                tx.feed(m).await.unwrap();
            }
            tx.flush().await.unwrap();
            // Echoes come back on the same connection: each direction has its own session.
            let mut back = Vec::new();
            while let Some(m) = tx.next().await {
                back.push(m.unwrap());
            }
            back
        });
        let mut got = Vec::new();
        while got.len() < msgs.len() {
            let m = rx.next().await.unwrap().unwrap();
            rx.send(&m).await.unwrap();
            got.push(m);
        }
        drop(rx);
        assert_eq!(got, msgs);
        assert_eq!(timeout(GUARD, writer).await.unwrap().unwrap(), msgs);
    }
}

#[tokio::test]
async fn hundred_thousand_small_messages_through_one_connection() {
    const N: u64 = 100_000;
    let (c, s) = tcp_pair().await;
    // Small caps, so the sessions fill up early and run at their cap for most of the stream.
    let builder = QdfCodec::builder()
        .max_intern_entries(64)
        .max_shapes(8)
        .backpressure_boundary(64 * 1024)
        .clone();
    let mut tx = builder.new_write::<_, Reading>(c);
    let writer = tokio::spawn(async move {
        for i in 0..N {
            tx.feed(&reading(i * 13)).await.unwrap();
        }
        tx.close().await.unwrap();
    });
    let mut rx = builder.new_read::<_, Reading>(s);
    let mut n = 0;
    while let Some(r) = timeout(GUARD, rx.next()).await.unwrap() {
        assert_eq!(r.unwrap(), reading(n * 13), "message {n}");
        n += 1;
    }
    assert_eq!(n, N);
    writer.await.unwrap();
}

/// The length of the string whose body is exactly `body` bytes under `opts`.
fn string_with_body_len(opts: Options, body: usize) -> String {
    let body_of = |n: usize| {
        let mut out = Vec::new();
        EncoderSession::new(opts)
            .with_max_frame_length(usize::MAX)
            .encode_message(&"x".repeat(n), &mut out)
            .unwrap();
        out.len() - 5
    };
    let mut n = body;
    while body_of(n) > body {
        n -= 1;
    }
    assert_eq!(
        body_of(n),
        body,
        "no string has a body of exactly {body} bytes"
    );
    "x".repeat(n)
}

#[tokio::test]
async fn frames_at_the_limit_pass_and_above_it_fail_on_encode() {
    const MAX: usize = 64 * 1024;
    let (c, s) = tcp_pair().await;
    let builder = QdfCodec::builder().max_frame_length(MAX).clone();
    let mut tx = builder.new_write::<_, String>(c);
    let mut rx = builder.new_read::<_, String>(s);
    let at_limit = string_with_body_len(*tx.encoder().encoder_session().options(), MAX);
    let above = format!("{at_limit}y");

    tx.send(&at_limit).await.unwrap();
    let err = tx.send(&above).await.unwrap_err();
    assert!(
        matches!(err, QdfCodecError::FrameTooLarge { len, max, frame: None, offset: None } if len == MAX as u64 + 1 && max == MAX as u64)
    );
    assert_eq!(err.category(), Category::Limit);
    assert!(
        tx.write_buffer().is_empty(),
        "nothing of the refused frame was buffered"
    );
    tx.send(&"after".to_string()).await.unwrap();
    drop(tx);

    assert_eq!(rx.next().await.unwrap().unwrap(), at_limit);
    assert_eq!(rx.next().await.unwrap().unwrap(), "after");
    assert!(rx.next().await.is_none());
}

#[tokio::test]
async fn a_frame_above_the_readers_limit_fails_when_its_length_arrives() {
    const MAX: usize = 4096;
    let (c, s) = tcp_pair().await;
    // The writer allows bigger frames than the reader.
    let mut tx = QdfCodec::builder().new_write::<_, str>(c);
    let mut rx = QdfCodec::builder()
        .max_frame_length(MAX)
        .new_read::<_, String>(s);
    tx.send("fits").await.unwrap();
    // A too-large frame: only its header and length prefix are sent, the body never is.
    let mut warmup = Vec::new();
    let mut enc = EncoderSession::new(Options::balanced());
    enc.encode_frame(&"fits", &mut warmup).unwrap(); // the header went with it
    let mut frame = Vec::new();
    enc.encode_frame(&"z".repeat(MAX + 10), &mut frame).unwrap();
    let mut raw = tx.into_inner();
    raw.write_all(&frame[..3]).await.unwrap();
    raw.flush().await.unwrap();

    assert_eq!(rx.next().await.unwrap().unwrap(), "fits");
    let err = timeout(GUARD, rx.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap_err();
    assert!(matches!(err, QdfCodecError::FrameTooLarge { max, .. } if max == MAX as u64));
    // Placed in the stream as the core session's errors are: frame 1, after the first.
    let at = warmup.len();
    assert!(
        matches!(err, QdfCodecError::FrameTooLarge { frame: Some(1), offset: Some(o), .. } if o == at as u64),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "frame of {} bytes exceeds the maximum of {MAX} in frame 1 at stream byte {at}",
            frame.len() - 2 // its body: the frame without its 2-byte length prefix
        )
    );
    drop(raw);
}

#[tokio::test]
async fn a_stalled_huge_frame_costs_memory_in_proportion_to_what_arrived() {
    let (c, s) = tcp_pair().await;
    let mut tx = QdfCodec::builder().new_write::<_, u8>(c);
    tx.send(&1).await.unwrap();
    let mut raw = tx.into_inner();
    // Announce a body of 8 MiB - 1 (allowed), send 1000 bytes of it, then stall.
    let mut prefix = Vec::new();
    let mut v: u64 = (8 << 20) - 1;
    while v >= 0x80 {
        prefix.push(v as u8 | 0x80);
        v >>= 7;
    }
    prefix.push(v as u8);
    raw.write_all(&prefix).await.unwrap();
    raw.write_all(&[0xC0; 1000]).await.unwrap();
    raw.flush().await.unwrap();

    let mut rx = FramedRead::new(s, QdfCodec::<u8>::dense());
    assert_eq!(rx.next().await.unwrap().unwrap(), 1);
    assert!(
        timeout(Duration::from_millis(300), rx.next())
            .await
            .is_err()
    );
    assert!(rx.read_buffer().len() >= 1000);
    assert!(
        rx.read_buffer().capacity() <= 64 * 1024,
        "reserved {} bytes for a frame that sent 1000",
        rx.read_buffer().capacity()
    );
    drop(raw);
}

/// A writer whose peer never reads: buffered bytes stay within the boundary plus one frame.
#[tokio::test]
async fn backpressure_bounds_a_writer_against_a_stalled_reader() {
    const BOUNDARY: usize = 16 * 1024;
    let (c, s) = tcp_pair().await;
    let mut tx = QdfCodec::builder()
        .backpressure_boundary(BOUNDARY)
        .new_framed::<_, Msg>(c);
    let msg = Msg::Batch((0..20).map(reading).collect());
    let mut frame_len = 0;
    let mut sent = 0u64;
    loop {
        let before = tx.write_buffer().len();
        match timeout(Duration::from_millis(200), tx.feed(&msg)).await {
            Ok(r) => r.unwrap(),
            Err(_) => break, // the socket is full and the reader stalls
        }
        frame_len = frame_len.max(tx.write_buffer().len().saturating_sub(before));
        assert!(tx.write_buffer().len() <= BOUNDARY + frame_len);
        sent += 1;
        assert!(sent < 10_000_000, "never stalled");
    }
    assert!(frame_len > 0);
    assert!(tx.write_buffer().len() <= BOUNDARY + frame_len);
    assert!(
        tx.write_buffer().len() >= BOUNDARY,
        "the stall happened at the boundary"
    );
    drop(s);
}

/// Dropping a `send` in `select!` leaves the session in step: the message is either delivered
/// whole or not at all, and everything after it decodes.
#[tokio::test]
async fn a_send_dropped_in_select_does_not_desynchronise_the_session() {
    let (c, s) = tcp_pair().await;
    let mut tx = FramedWrite::new(c, QdfCodec::dense());
    tx.set_backpressure_boundary(4096);
    let msg = |i: u64| Msg::Batch((i..i + 20).map(reading).collect());
    // Fill the socket until a send pends, then drop it.
    let mut i = 0;
    let dropped = loop {
        let m = msg(i);
        tokio::select! {
            r = tx.send(&m) => r.unwrap(),
            _ = tokio::time::sleep(Duration::from_millis(200)) => break i,
        }
        i += 1;
    };
    let reader = tokio::spawn(async move {
        let mut rx = Framed::new(s, QdfCodec::<Msg>::dense());
        let mut got = Vec::new();
        while let Some(m) = rx.next().await {
            got.push(m.unwrap());
        }
        got
    });
    for j in dropped + 1..dropped + 50 {
        tx.send(&msg(j)).await.unwrap();
    }
    tx.close().await.unwrap();
    drop(tx);
    let got = timeout(GUARD, reader).await.unwrap().unwrap();
    let mut want: Vec<Msg> = (0..dropped + 50).map(msg).collect();
    if got.len() == want.len() - 1 {
        want.remove(dropped as usize);
    }
    assert_eq!(got.len(), want.len());
    assert!(got == want, "stream after the dropped send differs");
}

/// Split halves each own a session: requests on one half, replies on the other, both tasks
/// running at once.
#[tokio::test]
async fn split_halves_carry_independent_sessions() {
    let (c, s) = tcp_pair().await;
    let echo = tokio::spawn(async move {
        let (r, w) = s.into_split();
        let mut inbox = FramedRead::new(r, QdfCodec::<Msg>::dense());
        let mut outbox = FramedWrite::new(w, QdfCodec::dense());
        while let Some(m) = inbox.next().await {
            let reply = match m.unwrap() {
                Msg::Ping(n) => Msg::Ping(n + 1),
                other => other,
            };
            outbox.send(&reply).await.unwrap();
        }
    });
    let (r, w) = c.into_split();
    let mut replies = FramedRead::new(r, QdfCodec::<Msg>::dense());
    let mut requests = FramedWrite::new(w, QdfCodec::dense());
    let msgs = mixed(100);
    let sender = tokio::spawn(async move {
        for m in &msgs {
            requests.send(m).await.unwrap();
        }
    });
    let mut got = Vec::new();
    while got.len() < 100 {
        got.push(
            timeout(GUARD, replies.next())
                .await
                .unwrap()
                .unwrap()
                .unwrap(),
        );
    }
    sender.await.unwrap();
    let want: Vec<Msg> = mixed(100)
        .into_iter()
        .map(|m| match m {
            Msg::Ping(n) => Msg::Ping(n + 1),
            other => other,
        })
        .collect();
    assert_eq!(got, want);
    drop(replies);
    echo.abort();
}
