//! Session renewal (`docs/SPEC.md` §18) over real loopback TCP with small caps: the session's
//! own policy and the builder's `renew_after_messages` renew many times while the connection
//! stays open; every value arrives intact and both sides count the same renewals.

use std::time::Duration;

use crate::common::tcp_pair;
use futures::{SinkExt, StreamExt};
use qdf_stream::QdfCodec;
use tokio::time::timeout;

/// Generous guard against a hang; never an assertion about speed.
const GUARD: Duration = Duration::from_secs(30);

fn batch(i: u32) -> Vec<String> {
    let mut v: Vec<String> = (0..4).map(|k| format!("host-{}", (i + k) % 7)).collect();
    v.extend((0..4).map(|k| format!("req-{i:06}-{k}")));
    v.push(format!("user-{:04}", i % 300));
    v
}

#[tokio::test]
async fn renewing_sessions_over_tcp_keep_every_value() {
    const N: u32 = 5_000;
    for (name, builder) in [
        // Small caps: the policy renews near them.
        ("caps", QdfCodec::builder().max_intern_entries(40).clone()),
        // Default caps, renewed by the transport every 250 frames.
        (
            "every 250",
            QdfCodec::builder().renew_after_messages(250).clone(),
        ),
        // Both, with checksums.
        (
            "both",
            QdfCodec::builder()
                .max_intern_entries(40)
                .renew_after_bytes(20_000)
                .checksum(true)
                .clone(),
        ),
    ] {
        let (c, s) = tcp_pair().await;
        let mut tx = builder.new_write::<_, Vec<String>>(c);
        let mut rx = builder.new_read::<_, Vec<String>>(s);
        let writer = tokio::spawn(async move {
            for i in 0..N {
                tx.feed(&batch(i)).await.unwrap();
            }
            tx.flush().await.unwrap();
            tx.encoder().encoder_stats()
        });
        for i in 0..N {
            let got = timeout(GUARD, rx.next()).await.unwrap().unwrap().unwrap();
            assert_eq!(got, batch(i), "{name}: message {i}");
        }
        let enc = timeout(GUARD, writer).await.unwrap().unwrap();
        let dec = rx.decoder().decoder_stats();
        assert_eq!(enc.renewals, dec.renewals, "{name}");
        assert_eq!(
            (enc.intern_entries, enc.evictions, enc.hits),
            (dec.intern_entries, dec.evictions, dec.hits),
            "{name}"
        );
        assert!(enc.renewals >= 15, "{name}: {enc:?}");
        assert!(
            dec.intern_entries <= 40 || name == "every 250",
            "{name}: {dec:?}"
        );
    }
}
