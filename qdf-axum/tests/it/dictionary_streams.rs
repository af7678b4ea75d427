//! Streamed bodies on pre-shared dictionaries against a real loopback server, driven the way
//! a user reading the docs would: a request streamed frame by frame while its response
//! streams back, the registry rotated and the old dictionary retired on both sides while
//! the stream is open, streamed bodies cut at every byte, unknown and malformed dictionary
//! headers on streams, and concurrent streaming clients.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::common::*;
use axum::routing::post;
use axum::{Extension, Router};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use futures::channel::mpsc;
use futures::{Stream, StreamExt};
use http::{HeaderValue, Method, Request};
use http_body::Frame;
use http_body_util::{BodyExt, StreamBody};
use qdf_axum::{
    AVAILABLE_DICTIONARY, AvailableDictionary, QDF_DICTIONARY, Qdf, QdfFrames, QdfRejection,
    QdfStream, available_dictionary, qdf_dictionary,
};
use qdf_core::{Dictionary, DictionaryRegistry, EncoderSession, Options};

const STREAM: &str = "application/qdf-stream";

fn v1() -> Dictionary {
    let all = spans(600);
    let samples: Vec<&[Span]> = all[300..].chunks(3).collect();
    Dictionary::train(&samples, Options::balanced(), 4096).unwrap()
}

fn v2() -> Dictionary {
    Dictionary::from_strs(["platformapi", "pusher", "archiver", "trace_id", "service"]).unwrap()
}

fn v3() -> Dictionary {
    Dictionary::from_strs(["EventProcessor", "get /events"]).unwrap()
}

/// Streams every request frame back as soon as it is decoded, from the announced
/// dictionary; a failed frame ends the response body with an error.
async fn relay(
    dict: AvailableDictionary,
    frames: QdfFrames<Span>,
) -> QdfStream<impl Stream<Item = Span>> {
    let items = frames.take_while(|r| std::future::ready(r.is_ok()));
    QdfStream::new(items.map(Result::unwrap)).dictionary(dict)
}

/// Counts the request's frames; a failed frame is the response.
async fn count(mut frames: QdfFrames<Span>) -> Result<String, QdfRejection> {
    let mut n = 0;
    while let Some(span) = frames.next().await {
        span?;
        n += 1;
    }
    Ok(n.to_string())
}

async fn server(registry: Option<Arc<DictionaryRegistry>>) -> SocketAddr {
    let app = Router::new()
        .route("/relay", post(relay))
        .route("/count", post(count))
        .route(
            "/tail-checked-first",
            axum::routing::get(|d: AvailableDictionary| async move {
                QdfStream::new(futures::stream::iter(spans(30)))
                    .checksum(true)
                    .dictionary(d)
            }),
        )
        .route(
            "/tail-dictionary-first",
            axum::routing::get(|d: AvailableDictionary| async move {
                QdfStream::new(futures::stream::iter(spans(30)))
                    .dictionary(d)
                    .checksum(true)
            }),
        )
        .route(
            "/one",
            post(|Qdf(v): Qdf<Vec<Span>>| async move { v.len().to_string() }),
        );
    serve(match registry {
        Some(r) => app.layer(Extension(r)),
        None => app,
    })
    .await
}

/// The frames of `spans` one by one, the first with the stream header, from `dict`.
fn frames_of(spans: &[Span], dict: Option<&Dictionary>) -> Vec<Vec<u8>> {
    let mut enc = EncoderSession::new(Options::default());
    if let Some(d) = dict {
        enc = enc.with_dictionary(d.clone());
    }
    spans
        .iter()
        .map(|s| {
            let mut buf = Vec::new();
            enc.encode_frame(s, &mut buf).unwrap();
            buf
        })
        .collect()
}

fn request(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, HeaderValue)],
) -> http::request::Builder {
    let mut req = Request::builder()
        .method(Method::POST)
        .uri(format!("http://{addr}{path}"))
        .header(http::header::CONTENT_TYPE, STREAM);
    for (name, value) in headers {
        req = req.header(*name, value);
    }
    req
}

/// Bounds a step that would otherwise hang the test.
async fn within<F: std::future::Future>(what: &str, f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(5), f)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within 5 s"))
}

#[tokio::test]
async fn a_stream_keeps_its_dictionary_through_rotation_and_retirement_on_both_sides() {
    let (v1, v2) = (v1(), v2());
    let server_reg = Arc::new(DictionaryRegistry::new());
    server_reg.rotate(v1.clone()).unwrap();
    let addr = server(Some(Arc::clone(&server_reg))).await;
    let client_reg = Arc::new(DictionaryRegistry::new());
    client_reg.rotate(v1.clone()).unwrap();

    let sent = spans(40);
    let frames = frames_of(&sent, Some(&v1));
    let (tx, rx) = mpsc::unbounded::<Bytes>();
    let body = BodyExt::boxed(StreamBody::new(
        rx.map(|b| Ok::<_, Infallible>(Frame::data(b))),
    ));
    let req = request(
        addr,
        "/relay",
        &[(AVAILABLE_DICTIONARY, available_dictionary(&v1))],
    );
    // The header and the first frame go before the response is awaited.
    tx.unbounded_send(Bytes::from(frames[0].clone())).unwrap();
    let res = within("response head", client().request(req.body(body).unwrap()))
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let mut back =
        QdfFrames::<Span, _>::new(res.into_body()).with_registry(Arc::clone(&client_reg));
    let first = within("frame 0", back.next()).await.unwrap().unwrap();
    assert_eq!(first, sent[0]);
    // Both sides have read their stream's header: rotate to v2 and retire v1 everywhere.
    for reg in [&server_reg, &client_reg] {
        assert_eq!(reg.rotate(v2.clone()).unwrap(), Some(v1.id()));
        assert!(reg.retire(v1.id()).unwrap());
    }
    for (i, f) in frames.iter().enumerate().skip(1) {
        tx.unbounded_send(Bytes::from(f.clone())).unwrap();
        let got = within("a relayed frame", back.next()).await.unwrap();
        assert_eq!(got.unwrap(), sent[i], "frame {i}");
    }
    drop(tx);
    assert!(within("the end", back.next()).await.is_none());
    // A new stream on v1 is refused now, naming v2 as current.
    let res = client()
        .request(
            request(addr, "/count", &[])
                .body(full(frames_of(&sent[..2], Some(&v1)).concat()))
                .unwrap(),
        )
        .await
        .unwrap();
    let (status, h) = (res.status().as_u16(), res.headers().clone());
    let text = res.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(status, 415);
    assert_eq!(h.get(QDF_DICTIONARY).unwrap(), &qdf_dictionary(v2.id()));
    assert_eq!(
        String::from_utf8_lossy(&text),
        format!(
            "The qdf body names dictionary {}, which the reader does not hold (its current one is {})",
            v1.id(),
            v2.id()
        )
    );
}

/// The status and text of posting `body` to `path`.
async fn post_body(addr: SocketAddr, path: &str, ct: &str, body: Vec<u8>) -> (u16, String) {
    let res = client()
        .request(
            Request::builder()
                .method(Method::POST)
                .uri(format!("http://{addr}{path}"))
                .header(http::header::CONTENT_TYPE, ct)
                .body(full(body))
                .unwrap(),
        )
        .await
        .unwrap();
    let status = res.status().as_u16();
    let text = res.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&text).into_owned())
}

#[tokio::test]
async fn a_stream_body_cut_at_every_byte_is_a_clear_4xx() {
    let (v1, v3) = (v1(), v3());
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(v1.clone()).unwrap();
    let addr = server(Some(registry)).await;
    let frames = frames_of(&spans(3), Some(&v1));
    let whole = frames.concat();
    let ends: Vec<usize> = frames
        .iter()
        .scan(0, |at, f| {
            *at += f.len();
            Some(*at)
        })
        .collect();
    for cut in 0..=whole.len() {
        let (status, text) = post_body(addr, "/count", STREAM, whole[..cut].to_vec()).await;
        let done = ends.iter().filter(|&&e| e <= cut).count();
        if cut == 0 || cut == 13 || ends.contains(&cut) {
            assert_eq!((status, text), (200, done.to_string()), "cut at {cut}");
        } else {
            assert_eq!(status, 400, "cut at {cut}: {text}");
            assert!(
                text.starts_with("Failed to decode the qdf body: "),
                "cut at {cut}: {text}"
            );
            if (5..13).contains(&cut) {
                assert!(text.contains("dictionary id"), "cut at {cut}: {text}");
            }
        }
    }
    // The same for a stream on a dictionary the server does not hold: cut inside the id
    // is 400, a whole id is 415.
    let whole = frames_of(&spans(1), Some(&v3)).concat();
    for cut in 5..=whole.len() {
        let (status, text) = post_body(addr, "/count", STREAM, whole[..cut].to_vec()).await;
        let want = if cut < 13 { 400 } else { 415 };
        assert_eq!(status, want, "cut at {cut}: {text}");
    }
}

#[tokio::test]
async fn a_message_body_cut_inside_the_dictionary_id_says_so() {
    let v1 = v1();
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(v1.clone()).unwrap();
    let addr = server(Some(registry)).await;
    let whole = qdf_core::to_vec_with_dictionary(&spans(2), Options::default(), &v1).unwrap();
    for cut in 0..whole.len() {
        let (status, text) =
            post_body(addr, "/one", "application/qdf", whole[..cut].to_vec()).await;
        assert_eq!(status, 400, "cut at {cut}: {text}");
        if (5..13).contains(&cut) {
            assert!(text.contains("dictionary id"), "cut at {cut}: {text}");
        }
    }
    let (status, text) = post_body(addr, "/one", "application/qdf", whole).await;
    assert_eq!((status, text.as_str()), (200, "2"));
}

#[tokio::test]
async fn a_peer_hanging_up_mid_frame_is_a_400() {
    let v1 = v1();
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(v1.clone()).unwrap();
    let addr = server(Some(registry)).await;
    let whole = frames_of(&spans(3), Some(&v1)).concat();
    let head = format!(
        "POST /count HTTP/1.1\r\nhost: x\r\ncontent-type: {STREAM}\r\ncontent-length: {}\r\n\r\n",
        whole.len()
    );
    // Plain blocking socket (the dev-dependencies' tokio has no io-util).
    let talk = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut sock = std::net::TcpStream::connect(addr).unwrap();
        sock.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        sock.write_all(head.as_bytes()).unwrap();
        sock.write_all(&whole[..whole.len() - 7]).unwrap();
        sock.shutdown(std::net::Shutdown::Write).unwrap();
        let mut answer = Vec::new();
        sock.read_to_end(&mut answer).unwrap();
        answer
    });
    let answer = talk.await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.starts_with("HTTP/1.1 400 Bad Request\r\n"),
        "{answer}"
    );
    assert!(
        answer.contains("Failed to read the request body"),
        "{answer}"
    );
}

#[tokio::test]
async fn unknown_and_malformed_announcements_give_a_plain_stream() {
    let (v1, v3) = (v1(), v3());
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(v1.clone()).unwrap();
    let addr = server(Some(registry)).await;
    let sent = spans(5);
    let body = frames_of(&sent, None).concat();
    let announcements: [&[(&str, HeaderValue)]; 6] = [
        &[(AVAILABLE_DICTIONARY, available_dictionary(&v3))],
        &[(QDF_DICTIONARY, qdf_dictionary(v3.id()))],
        &[(QDF_DICTIONARY, HeaderValue::from_static("not hex"))],
        &[(AVAILABLE_DICTIONARY, HeaderValue::from_static("::"))],
        &[(
            AVAILABLE_DICTIONARY,
            HeaderValue::from_bytes(b":\xff\xfe:").unwrap(),
        )],
        // The first 8 bytes of v1's hash, the rest another's: not v1.
        &[(AVAILABLE_DICTIONARY, {
            let mut h = v1.sha256();
            h[31] ^= 1;
            let s = format!(":{}:", STANDARD.encode(h));
            HeaderValue::from_str(&s).unwrap()
        })],
    ];
    for headers in announcements {
        let res = client()
            .request(
                request(addr, "/relay", headers)
                    .body(full(body.clone()))
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let got: Vec<Span> = QdfFrames::<Span, _>::new(res.into_body())
            .map(Result::unwrap)
            .collect()
            .await;
        assert_same(&got, &sent);
    }
}

#[tokio::test]
async fn a_registry_with_none_current_names_none() {
    let (v1, v2) = (v1(), v2());
    let registry = Arc::new(DictionaryRegistry::new());
    registry.register(v2.clone()).unwrap();
    let addr = server(Some(registry)).await;
    let res = client()
        .request(
            request(addr, "/count", &[])
                .body(full(frames_of(&spans(2), Some(&v1)).concat()))
                .unwrap(),
        )
        .await
        .unwrap();
    let (status, h) = (res.status().as_u16(), res.headers().clone());
    let text = res.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(status, 415);
    assert_eq!(h.get(QDF_DICTIONARY), None);
    assert_eq!(
        String::from_utf8_lossy(&text),
        format!(
            "The qdf body names dictionary {}, which the reader does not hold (it has none current)",
            v1.id()
        )
    );
    // A registered dictionary that is not current still reads.
    let (status, text) = post_body(
        addr,
        "/count",
        STREAM,
        frames_of(&spans(2), Some(&v2)).concat(),
    )
    .await;
    assert_eq!((status, text.as_str()), (200, "2"));
}

#[tokio::test]
async fn a_stream_renewed_many_times_returns_to_its_dictionary_each_time() {
    let v1 = v1();
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(v1.clone()).unwrap();
    let addr = server(Some(registry)).await;
    let sent = spans(500);
    let mut enc = EncoderSession::new(Options::default()).with_dictionary(v1.clone());
    let mut body = Vec::new();
    for (i, s) in sent.iter().enumerate() {
        if i % 37 == 36 {
            enc.renew();
        }
        enc.encode_frame(s, &mut body).unwrap();
    }
    assert_eq!(enc.renewals(), 13);
    let res = client()
        .request(
            request(addr, "/relay", &[(QDF_DICTIONARY, qdf_dictionary(v1.id()))])
                .body(chunked(body, random_sizes(7, 61)))
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let mine = Arc::new(DictionaryRegistry::new());
    mine.rotate(v1).unwrap();
    let got: Vec<Span> = QdfFrames::<Span, _>::new(res.into_body())
        .with_registry(mine)
        .map(Result::unwrap)
        .collect()
        .await;
    assert_same(&got, &sent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_streaming_clients_on_two_dictionaries() {
    let (v1, v2) = (v1(), v2());
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(v1.clone()).unwrap();
    registry.rotate(v2.clone()).unwrap();
    let addr = server(Some(Arc::clone(&registry))).await;
    let mut tasks = Vec::new();
    for c in 0..16usize {
        let dict = if c % 2 == 0 { v1.clone() } else { v2.clone() };
        tasks.push(tokio::spawn(async move {
            let all = spans(200);
            let sent = all[c..c + 50 + c].to_vec();
            let body = chunked(
                frames_of(&sent, Some(&dict)).concat(),
                random_sizes(c as u64, 97),
            );
            let res = client()
                .request(
                    request(
                        addr,
                        "/relay",
                        &[(AVAILABLE_DICTIONARY, available_dictionary(&dict))],
                    )
                    .body(body)
                    .unwrap(),
                )
                .await
                .unwrap();
            assert_eq!(res.status(), 200);
            let mine = Arc::new(DictionaryRegistry::new());
            mine.rotate(dict.clone()).unwrap();
            let got: Vec<Span> = QdfFrames::<Span, _>::new(Rechunk::new(
                res.into_body(),
                random_sizes(c as u64 + 99, 13),
            ))
            .with_registry(mine)
            .map(Result::unwrap)
            .collect()
            .await;
            assert_same(&got, &sent);
        }));
    }
    for t in tasks {
        within("a client", t).await.unwrap();
    }
}

#[tokio::test]
async fn an_unknown_dictionary_is_answered_while_the_client_is_still_sending() {
    let (v1, v3) = (v1(), v3());
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(v1.clone()).unwrap();
    let addr = server(Some(registry)).await;
    let (tx, rx) = mpsc::unbounded::<Bytes>();
    let body = BodyExt::boxed(StreamBody::new(
        rx.map(|b| Ok::<_, Infallible>(Frame::data(b))),
    ));
    // The stream header and one frame; the body stays open.
    tx.unbounded_send(Bytes::from(frames_of(&spans(1), Some(&v3)).concat()))
        .unwrap();
    let res = within(
        "the 415",
        client().request(request(addr, "/count", &[]).body(body).unwrap()),
    )
    .await
    .unwrap();
    assert_eq!(res.status(), 415);
    assert_eq!(
        res.headers().get(QDF_DICTIONARY).unwrap(),
        &qdf_dictionary(v1.id())
    );
    let text = within("the text", res.into_body().collect())
        .await
        .unwrap()
        .to_bytes();
    assert_eq!(
        String::from_utf8_lossy(&text),
        format!(
            "The qdf body names dictionary {}, which the reader does not hold (its current one is {})",
            v3.id(),
            v1.id()
        )
    );
    drop(tx);
}

#[tokio::test]
async fn a_streamed_response_has_checksums_and_the_dictionary_in_either_order() {
    let v1 = v1();
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(v1.clone()).unwrap();
    let addr = server(Some(registry)).await;
    let mine = Arc::new(DictionaryRegistry::new());
    mine.rotate(v1.clone()).unwrap();
    for path in ["/tail-checked-first", "/tail-dictionary-first"] {
        let req = Request::builder()
            .uri(format!("http://{addr}{path}"))
            .header(AVAILABLE_DICTIONARY, available_dictionary(&v1))
            .body(full(Vec::new()))
            .unwrap();
        let res = client().request(req).await.unwrap();
        assert_eq!(res.status(), 200);
        let body = res.into_body().collect().await.unwrap().to_bytes();
        // Header flags: checksums (10) and a dictionary (20), then the dictionary's id.
        assert_eq!(body[4] & 0x30, 0x30, "{path}");
        assert_eq!(
            qdf_core::dictionary_id(&body).unwrap(),
            Some(v1.id()),
            "{path}"
        );
        let got: Vec<Span> = QdfFrames::<Span, _>::new(full(body.clone()))
            .with_registry(Arc::clone(&mine))
            .map(Result::unwrap)
            .collect()
            .await;
        assert_same(&got, &spans(30));
        // A flipped bit in the last frame is caught by its checksum.
        let mut bad = body.to_vec();
        let at = bad.len() - 6;
        bad[at] ^= 0x01;
        let items: Vec<_> = QdfFrames::<Span, _>::new(full(bad))
            .with_registry(Arc::clone(&mine))
            .collect()
            .await;
        assert_eq!(items.len(), 30, "{path}");
        assert!(items[..29].iter().all(Result::is_ok), "{path}");
        let err = items[29].as_ref().unwrap_err();
        assert!(
            matches!(err, QdfRejection::Decode(e) if matches!(e.code(), qdf_core::ErrorCode::ChecksumMismatch { .. })),
            "{path}: {err:?}"
        );
    }
}

/// A client reading a response body gets the rejection in words that fit a client too, and
/// a session holding a dictionary of its own names it (as a registry's current one is).
#[tokio::test]
async fn an_unknown_dictionary_names_what_the_reader_holds() {
    let (d1, d2) = (v1(), v2());
    let body: Vec<u8> = frames_of(&spans(2), Some(&d1)).concat();
    let read = |frames: QdfFrames<Span, http_body_util::Full<Bytes>>| async move {
        let mut frames = frames;
        within("the first item", frames.next())
            .await
            .unwrap()
            .unwrap_err()
    };

    let session = qdf_core::DecoderSession::new(Options::default()).with_dictionary(d2.clone());
    let r = read(QdfFrames::with_session(
        http_body_util::Full::new(Bytes::from(body.clone())),
        session,
    ))
    .await;
    let QdfRejection::UnknownDictionary {
        id,
        current,
        registry,
    } = &r
    else {
        panic!("not UnknownDictionary: {r:?}");
    };
    assert_eq!((*id, *current, *registry), (d1.id(), Some(d2.id()), false));
    assert_eq!(
        r.to_string(),
        format!(
            "The qdf body names dictionary {}, which the reader does not hold (it holds {})",
            d1.id(),
            d2.id()
        )
    );

    let r = read(QdfFrames::new(http_body_util::Full::new(Bytes::from(body)))).await;
    assert_eq!(
        r.to_string(),
        format!(
            "The qdf body names dictionary {}, and the reader holds no dictionaries",
            d1.id()
        )
    );
}
