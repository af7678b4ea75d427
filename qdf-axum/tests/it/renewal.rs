//! A `QdfStream` response whose session renews (`docs/SPEC.md` §18) several times mid-body:
//! the server's session has a 64-entry intern cap, so with renewal on (the default) it renews
//! each time the table passes 15/16 of it. The client reads the body with `QdfFrames` in
//! random chunks and gets every record back exactly; a `DecoderSession` over the same bytes
//! counts the renewals in its `SessionStats`, as many as the encoder wrote.

use crate::common::*;
use axum::Router;
use axum::routing::get;
use futures::{StreamExt, stream};
use http::Method;
use http_body_util::BodyExt;
use qdf_axum::{QdfFrames, QdfStream};
use qdf_core::{DecoderSession, EncoderSession, Options};
use serde::{Deserialize, Serialize};

const RECORDS: usize = 2_000;

/// A record with one new string each (so the intern table fills: its varying part comes
/// first, so no id keeps 12 bytes of the last one and goes out as a per-field prefix
/// form, `docs/SPEC.md` §15.3), repeated strings and a float.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Event {
    id: String,
    service: String,
    seq: u64,
    latency: f64,
}

fn events() -> Vec<Event> {
    (0..RECORDS)
        .map(|i| Event {
            id: format!(
                "{:016x}-request-{i:08}",
                (i as u64).wrapping_mul(0x2545_f491)
            ),
            service: ["checkout", "cart", "payment"][i % 3].to_owned(),
            seq: i as u64,
            latency: 0.25 + i as f64 / 7.0,
        })
        .collect()
}

/// The server's session: Balanced, renewal on, a small intern cap.
fn session() -> EncoderSession {
    EncoderSession::new(
        Options::balanced()
            .session_renewal(true)
            .max_intern_entries(64),
    )
}

#[tokio::test]
async fn a_renewing_stream_decodes_exactly() {
    let app = Router::new().route(
        "/events",
        get(|| async { QdfStream::with_session(stream::iter(events()), session()) }),
    );
    let addr = serve(app).await;
    let events = events();
    let res = send(addr, Method::GET, "/events", None, full("")).await;
    assert_eq!(res.status(), 200);
    let body = res.into_body().collect().await.unwrap().to_bytes();

    // The body is what the same session writes, and that session renewed at least twice.
    let mut enc = session();
    let mut want = Vec::new();
    for e in &events {
        enc.encode_frame(e, &mut want).unwrap();
    }
    assert_eq!(body.as_ref(), want.as_slice());
    let renewals = enc.renewals();
    assert!(renewals >= 2, "only {renewals} renewals");

    // The crate's frame reader, fed in random chunks, yields every record exactly.
    for seed in [1, 2] {
        let chunks = Rechunk::new(full(body.clone()), random_sizes(seed, 300));
        let got: Vec<Event> = QdfFrames::new(chunks).map(|r| r.unwrap()).collect().await;
        assert_eq!(got.len(), RECORDS);
        for (g, w) in got.iter().zip(&events) {
            assert_eq!(g.latency.to_bits(), w.latency.to_bits());
            assert_eq!(g, w);
        }
    }

    // A decoder session over the same frames counts the renewals the encoder wrote.
    let mut dec = DecoderSession::new(Options::default());
    let mut at = 0;
    let mut frames = 0;
    while at < body.len() {
        let (back, used): (Event, usize) = dec.decode_frame(&body[at..]).unwrap().unwrap();
        assert_eq!(back, events[frames]);
        at += used;
        frames += 1;
    }
    assert_eq!(frames, RECORDS);
    assert_eq!(dec.stats().renewals, renewals);
    assert_eq!(dec.renewals(), renewals);
}
