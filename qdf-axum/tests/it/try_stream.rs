//! `QdfStream::from_try_stream` / `from_try_stream_with_session` against a real server, as a new user would
//! drive them: an error as the very first item, an empty source, an error after several
//! 16 KiB chunks, an encode failure inside a try stream, a source that must not be polled
//! after its error, `checksum` and `dictionary` on a try stream, relays of broken uploads,
//! an error that comes after an idle pause, and many such requests at once.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use crate::common::*;
use axum::body::Body;
use axum::extract::DefaultBodyLimit;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Extension, Router};
use futures::channel::mpsc;
use futures::{Stream, StreamExt, stream};
use http::{Method, Request};
use hyper::body::Incoming;
use qdf_axum::{
    AVAILABLE_DICTIONARY, AvailableDictionary, QdfFrames, QdfRejection, QdfStream, TryItems,
    available_dictionary,
};
use qdf_core::{Dictionary, DictionaryRegistry, EncoderSession, Options};
use serde::Serialize;

const STREAM: &str = "application/qdf-stream";
/// Spans in the long responses: their frames are several 16 KiB chunks (checked below).
const MANY: usize = 2000;
/// The body limit of the limited relay route.
const LIMIT: usize = 2048;

/// A source of `items`, then pending forever (no waker kept): polling it after its last
/// item would hang the response. Counts every poll.
struct ThenPending {
    items: VecDeque<Result<u32, &'static str>>,
    polls: Arc<AtomicUsize>,
}

impl Stream for ThenPending {
    type Item = Result<u32, &'static str>;

    fn poll_next(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.polls.fetch_add(1, Ordering::SeqCst);
        match self.items.pop_front() {
            Some(item) => Poll::Ready(Some(item)),
            None => Poll::Pending,
        }
    }
}

/// Relays uploaded spans back as they are decoded; a broken upload aborts the response.
async fn relay(
    frames: QdfFrames<Span>,
) -> QdfStream<TryItems<impl Stream<Item = Result<Span, QdfRejection>>>> {
    QdfStream::from_try_stream(frames)
}

fn many_then_err() -> impl Stream<Item = Result<Span, &'static str>> {
    stream::iter(spans(MANY).into_iter().map(Ok).chain([Err("late")]))
}

/// A 16 KiB string, distinct per `i` so nothing is interned.
fn big(i: usize) -> String {
    format!("{i:08}").repeat(2 << 10)
}

/// Big frames (256 KiB in all, less than hyper buffers) then the source's error.
const BIG: usize = 16;

struct Shared {
    polls: Arc<AtomicUsize>,
    /// The source of `/channel`, taken by its one request.
    channel: Mutex<Option<mpsc::UnboundedReceiver<Result<u32, String>>>>,
}

async fn app(shared: Arc<Shared>) -> std::net::SocketAddr {
    let polls = Arc::clone(&shared.polls);
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(dict()).unwrap();
    let app = Router::new()
        .route(
            "/first_err",
            get(|| async { QdfStream::from_try_stream(stream::iter([Err("at once"), Ok(1u32)])) }),
        )
        .route(
            "/empty",
            get(|| async {
                QdfStream::from_try_stream(stream::empty::<Result<u32, std::io::Error>>())
            }),
        )
        .route(
            "/many_then_err",
            get(|| async { QdfStream::from_try_stream(many_then_err()) }),
        )
        .route(
            "/encode_fails",
            get(|| async {
                let items = (0..6).map(|n| Ok::<_, std::io::Error>(FailsAtThree(n)));
                QdfStream::from_try_stream(stream::iter(items))
            }),
        )
        .route(
            "/then_pending",
            get(move || {
                let polls = Arc::clone(&polls);
                async move {
                    let items = [Ok(0), Ok(1), Err("source failed"), Ok(3)].into();
                    QdfStream::from_try_stream(ThenPending { items, polls })
                }
            }),
        )
        .route(
            "/channel",
            get(move || {
                let rx = shared.channel.lock().unwrap().take().unwrap();
                async move { QdfStream::from_try_stream(rx) }
            }),
        )
        .route(
            "/checked",
            get(|| async { QdfStream::from_try_stream(many_then_err()).checksum(true) }),
        )
        .route(
            "/dict",
            get(|d: AvailableDictionary| async move {
                QdfStream::from_try_stream(many_then_err()).dictionary(d)
            }),
        )
        .route("/relay", post(relay))
        .route(
            "/relay_small",
            post(relay).layer(DefaultBodyLimit::max(LIMIT)),
        )
        .layer(Extension(registry));
    serve(app).await
}

fn shared() -> Arc<Shared> {
    Arc::new(Shared {
        polls: Arc::new(AtomicUsize::new(0)),
        channel: Mutex::new(None),
    })
}

fn dict() -> Dictionary {
    Dictionary::from_strs(["platformapi", "pusher", "archiver", "EventProcessor"]).unwrap()
}

/// The whole stream body of `items` as one session would write it.
fn encode_frames<T: Serialize>(items: &[T], session: EncoderSession) -> Vec<u8> {
    let mut session = session;
    let mut out = Vec::new();
    for item in items {
        session.encode_frame(item, &mut out).unwrap();
    }
    out
}

/// The items read before the first error, and that error (`None`: the body ended cleanly).
async fn outcome<T: serde::de::DeserializeOwned>(
    frames: QdfFrames<T, Incoming>,
) -> (Vec<T>, Option<QdfRejection>) {
    let read = async {
        let mut items = Vec::new();
        let mut frames = std::pin::pin!(frames);
        while let Some(item) = frames.next().await {
            match item {
                Ok(v) => items.push(v),
                Err(e) => {
                    // An error is the last item.
                    assert!(frames.next().await.is_none());
                    return (items, Some(e));
                }
            }
        }
        (items, None)
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .expect("the response neither ended nor failed within 10 s")
}

async fn get_frames<T: serde::de::DeserializeOwned>(
    addr: std::net::SocketAddr,
    path: &str,
) -> (Vec<T>, Option<QdfRejection>) {
    let res = send(addr, Method::GET, path, None, full("")).await;
    assert_eq!(res.status(), 200, "{path}");
    assert_eq!(res.headers()["content-type"], STREAM, "{path}");
    outcome(QdfFrames::new(res.into_body())).await
}

fn assert_aborted(err: Option<QdfRejection>) {
    let err = err.expect("the body ended as if complete");
    assert!(matches!(err, QdfRejection::BodyRead(_)), "{err:?}");
}

#[tokio::test]
async fn try_stream_error_as_first_item_aborts_before_any_frame() {
    let addr = app(shared()).await;
    let (items, err) = get_frames::<u32>(addr, "/first_err").await;
    assert_eq!(items, Vec::<u32>::new());
    assert_aborted(err);
    // Read as plain bytes too: the body fails, it is not an empty (valid) stream.
    let res = send(addr, Method::GET, "/first_err", None, full("")).await;
    assert!(
        http_body_util::BodyExt::collect(res.into_body())
            .await
            .is_err()
    );
}

#[tokio::test]
async fn try_stream_of_nothing_is_an_empty_body() {
    let res = send(app(shared()).await, Method::GET, "/empty", None, full("")).await;
    let (status, ct, body) = read(res).await;
    assert_eq!((status, ct.as_str(), body.len()), (200, STREAM, 0));
}

#[tokio::test]
async fn try_stream_error_after_several_chunks_keeps_every_frame_before_it() {
    let whole = encode_frames(&spans(MANY), EncoderSession::new(Options::default()));
    assert!(whole.len() > 3 * (16 << 10), "{} bytes", whole.len());
    let addr = app(shared()).await;
    let (items, err) = get_frames::<Span>(addr, "/many_then_err").await;
    assert_same(&items, &spans(MANY));
    assert_aborted(err);
}

/// Frames then the source's error, read by a client that waits before reading, over
/// sockets with small kernel buffers (so the kernel takes only part of the body while the
/// client waits): hyper cannot write everything it holds in the one `Pending` the body
/// gives before the error, and drops the rest with the connection (as `QdfStream`'s docs
/// say). What holds: the client reads an exact prefix of the frames, then a failed read,
/// never a body that ends as if complete.
#[tokio::test]
async fn try_stream_error_reaches_a_slow_client_as_a_failed_read() {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    // Accepted sockets inherit it (Linux), and a fixed size turns off autotuning.
    socket.set_send_buffer_size(8 << 10).unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(16).unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new().route(
        "/big_then_err",
        get(|| async {
            let items = (0..BIG)
                .map(|i| Ok(big(i)))
                .chain([Err("after the big ones")]);
            QdfStream::from_try_stream(stream::iter(items))
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let mut connector = hyper_util::client::legacy::connect::HttpConnector::new();
    connector.set_recv_buffer_size(Some(8 << 10));
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build::<_, ClientBody>(connector);
    let req = Request::get(format!("http://{addr}/big_then_err"))
        .body(full(""))
        .unwrap();
    let res = client.request(req).await.unwrap();
    assert_eq!(res.status(), 200);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (items, err) = outcome::<String>(QdfFrames::new(res.into_body())).await;
    assert_aborted(err);
    let want: Vec<String> = (0..BIG).map(big).collect();
    assert!(items.len() <= want.len(), "{} frames", items.len());
    assert!(items[..] == want[..items.len()], "a prefix of the frames");
}

#[tokio::test]
async fn try_stream_encode_failure_aborts_after_the_frames_before_it() {
    let (items, err) = get_frames::<u32>(app(shared()).await, "/encode_fails").await;
    assert_eq!(items, [0, 1, 2]);
    assert_aborted(err);
}

#[tokio::test]
async fn try_stream_source_is_not_polled_after_its_error() {
    let shared = shared();
    let addr = app(Arc::clone(&shared)).await;
    let (items, err) = get_frames::<u32>(addr, "/then_pending").await;
    assert_eq!(items, [0, 1]);
    assert_aborted(err);
    // Ok(0), Ok(1), the error: the item after it stays unread.
    assert_eq!(shared.polls.load(Ordering::SeqCst), 3);
}

/// The source is idle (pending) between items, so each frame goes out alone; the error
/// then comes with nothing buffered.
#[tokio::test]
async fn try_stream_error_after_an_idle_pause() {
    let shared = shared();
    let (tx, rx) = mpsc::unbounded();
    *shared.channel.lock().unwrap() = Some(rx);
    let addr = app(shared).await;
    let res = send(addr, Method::GET, "/channel", None, full("")).await;
    let mut frames = QdfFrames::<u32, _>::new(res.into_body());
    for n in [7, 8] {
        tx.unbounded_send(Ok(n)).unwrap();
        let got = tokio::time::timeout(Duration::from_secs(5), frames.next()).await;
        assert_eq!(got.unwrap().unwrap().unwrap(), n);
    }
    tx.unbounded_send(Err("cursor lost".to_string())).unwrap();
    let (items, err) = outcome(frames).await;
    assert_eq!(items, Vec::<u32>::new());
    assert_aborted(err);
}

#[tokio::test]
async fn try_stream_checksum_frames_then_abort() {
    let addr = app(shared()).await;
    let res = send(addr, Method::GET, "/checked", None, full("")).await;
    let body = res.into_body();
    let mut got = Vec::new();
    let mut body = std::pin::pin!(body);
    let err = loop {
        match http_body_util::BodyExt::frame(&mut body).await {
            Some(Ok(f)) => got.extend_from_slice(&f.into_data().unwrap()),
            Some(Err(e)) => break e,
            None => panic!("the body ended as if complete"),
        }
    };
    // hyper: "unexpected EOF during chunk size line", the HTTP/1.1 sign of an abort.
    let eof = std::error::Error::source(&err).and_then(|e| e.downcast_ref::<std::io::Error>());
    assert_eq!(
        eof.map(std::io::Error::kind),
        Some(std::io::ErrorKind::UnexpectedEof),
        "{err:?}"
    );
    // Every frame before the error, with its CRC, byte for byte.
    let session = EncoderSession::new(Options::default()).with_checksum(true);
    let want = encode_frames(&spans(MANY), session);
    assert_eq!(got.len(), want.len());
    assert!(got == want);
}

#[tokio::test]
async fn try_stream_dictionary_names_it_varies_and_aborts() {
    let d = dict();
    let addr = app(shared()).await;
    let req = Request::builder()
        .uri(format!("http://{addr}/dict"))
        .header(AVAILABLE_DICTIONARY, available_dictionary(&d))
        .body(full(""))
        .unwrap();
    let res = client().request(req).await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(
        res.headers()["vary"],
        "available-dictionary, qdf-dictionary"
    );
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(d.clone()).unwrap();
    let (items, err) =
        outcome(QdfFrames::<Span, _>::new(res.into_body()).with_registry(registry)).await;
    assert_same(&items, &spans(MANY));
    assert_aborted(err);
}

/// A checksummed upload with one flipped bit in frame 3: the relay sends frames 0..3 back,
/// then aborts. The rest of the upload is still unread on the server when it does.
#[tokio::test]
async fn relay_of_a_damaged_upload_sends_the_frames_before_the_damage() {
    let sent = spans(2000);
    let mut enc = EncoderSession::new(Options::default()).with_checksum(true);
    let mut body = Vec::new();
    let mut ends = Vec::new();
    for s in &sent {
        enc.encode_frame(s, &mut body).unwrap();
        ends.push(body.len());
    }
    body[ends[3] - 6] ^= 1;
    let addr = app(shared()).await;
    let res = send(addr, Method::POST, "/relay", Some(STREAM), full(body)).await;
    assert_eq!(res.status(), 200);
    let (items, err) = outcome(QdfFrames::<Span, _>::new(res.into_body())).await;
    assert_same(&items, &sent[..3]);
    assert_aborted(err);
}

/// An upload over the route's body limit: the frames that fit come back, then the abort.
#[tokio::test]
async fn relay_over_the_body_limit_sends_what_fit_then_aborts() {
    let sent = spans(100);
    let whole = encode_frames(&sent, EncoderSession::new(Options::default()));
    let mut enc = EncoderSession::new(Options::default());
    let mut fit = 0;
    let mut len = Vec::new();
    while fit < sent.len() {
        enc.encode_frame(&sent[fit], &mut len).unwrap();
        if len.len() > LIMIT {
            break;
        }
        fit += 1;
    }
    assert!(fit > 0 && fit < sent.len());
    let addr = app(shared()).await;
    let body = chunked(whole, || 64);
    let res = send(addr, Method::POST, "/relay_small", Some(STREAM), body).await;
    assert_eq!(res.status(), 200);
    let (items, err) = outcome(QdfFrames::<Span, _>::new(res.into_body())).await;
    assert_same(&items, &sent[..fit]);
    assert_aborted(err);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_try_streams_each_get_their_frames_then_abort() {
    let addr = app(shared()).await;
    let cut = {
        let mut b = encode_frames(&spans(20), EncoderSession::new(Options::default()));
        b.pop();
        b
    };
    let tasks: Vec<_> = (0..24)
        .map(|i| {
            let cut = cut.clone();
            tokio::spawn(async move {
                match i % 3 {
                    0 => {
                        let (items, err) = get_frames::<Span>(addr, "/many_then_err").await;
                        assert_same(&items, &spans(MANY));
                        assert_aborted(err);
                    }
                    1 => {
                        let (items, err) = get_frames::<u32>(addr, "/encode_fails").await;
                        assert_eq!(items, [0, 1, 2]);
                        assert_aborted(err);
                    }
                    _ => {
                        let res = send(addr, Method::POST, "/relay", Some(STREAM), full(cut)).await;
                        let (items, err) =
                            outcome(QdfFrames::<Span, _>::new(res.into_body())).await;
                        assert_same(&items, &spans(19));
                        assert_aborted(err);
                    }
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
}

/// Any error axum can carry is a source error: `io::Error`, `String`, `&str`, a `BoxError`,
/// `Infallible`; an `Infallible` source is a whole, valid body.
#[tokio::test]
async fn try_stream_takes_any_boxable_error() {
    async fn body_of(res: axum::response::Response) -> Result<Vec<u8>, axum::Error> {
        let b: Body = res.into_body();
        axum::body::to_bytes(b, usize::MAX)
            .await
            .map(|b| b.to_vec())
    }
    let ok = encode_frames(&[1u8, 2], EncoderSession::new(Options::default()));
    let never = stream::iter([Ok::<u8, std::convert::Infallible>(1), Ok(2)]);
    assert_eq!(
        body_of(QdfStream::from_try_stream(never).into_response())
            .await
            .unwrap(),
        ok
    );
    let io = stream::iter([Ok(1u8), Err(std::io::Error::other("io"))]);
    assert!(
        body_of(QdfStream::from_try_stream(io).into_response())
            .await
            .is_err()
    );
    let text = stream::iter([Ok(1u8), Err("text".to_string())]);
    assert!(
        body_of(QdfStream::from_try_stream(text).into_response())
            .await
            .is_err()
    );
    let boxed = stream::iter([Ok(1u8), Err(axum::BoxError::from("boxed"))]);
    let session = EncoderSession::new(Options::speed());
    let res = QdfStream::from_try_stream_with_session(boxed, session).into_response();
    assert!(body_of(res).await.is_err());
}
