//! Pre-shared dictionaries through `Qdf<T>` on a real loopback server: request bodies that
//! name a registered dictionary, the 415 for an unknown one, responses encoded with the
//! dictionary the client announces (`Available-Dictionary` or `qdf-dictionary`), the bytes
//! saved, and a rotation under concurrent clients with no failed request.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::*;
use axum::routing::post;
use axum::{Extension, Router};
use futures::StreamExt;
use http::{HeaderName, HeaderValue, Method, Request};
use http_body_util::BodyExt;
use qdf_axum::{
    AVAILABLE_DICTIONARY, AvailableDictionary, QDF_DICTIONARY, Qdf, QdfFrames, QdfRejection,
    QdfStream, QdfWithDictionary, available_dictionary, qdf_dictionary,
};
use qdf_core::{Dictionary, DictionaryId, DictionaryRegistry, Options};

/// A dictionary trained on spans like the ones sent (not the same ones).
fn trained() -> Dictionary {
    let all = spans(600);
    let samples: Vec<&[Span]> = all[300..].chunks(3).collect();
    Dictionary::train(&samples, Options::balanced(), 4096).unwrap()
}

/// A hand-written one: the services and field names only.
fn listed() -> Dictionary {
    Dictionary::from_strs([
        "platformapi",
        "pusher",
        "archiver",
        "installedapp",
        "trace_id",
        "service",
        "timestamp_us",
        "duration_us",
        "sampled_ratio",
    ])
    .unwrap()
}

/// One no server holds.
fn unknown() -> Dictionary {
    Dictionary::from_strs(["EventProcessor", "get /events"]).unwrap()
}

async fn echo(dict: AvailableDictionary, Qdf(v): Qdf<Vec<Span>>) -> QdfWithDictionary<Vec<Span>> {
    dict.respond(v)
}

/// Collects the request's frames and streams them back, from the announced dictionary.
async fn echo_stream(
    dict: AvailableDictionary,
    mut frames: QdfFrames<Span>,
) -> Result<QdfStream<impl futures::Stream<Item = Span>>, QdfRejection> {
    let mut got = Vec::new();
    while let Some(span) = frames.next().await {
        got.push(span?);
    }
    Ok(QdfStream::new(futures::stream::iter(got)).dictionary(dict))
}

async fn server(registry: Option<Arc<DictionaryRegistry>>) -> SocketAddr {
    let app = Router::new()
        .route("/echo", post(echo))
        .route("/stream", post(echo_stream));
    serve(match registry {
        Some(r) => app.layer(Extension(r)),
        None => app,
    })
    .await
}

/// The response to `body` posted to `/echo` with `headers`: status, headers, body.
async fn post_echo(
    addr: SocketAddr,
    body: Vec<u8>,
    headers: &[(&str, HeaderValue)],
) -> (u16, http::HeaderMap, bytes::Bytes) {
    let mut req = Request::builder()
        .method(Method::POST)
        .uri(format!("http://{addr}/echo"))
        .header(http::header::CONTENT_TYPE, "application/qdf");
    for (name, value) in headers {
        req = req.header(HeaderName::from_bytes(name.as_bytes()).unwrap(), value);
    }
    let res = client()
        .request(req.body(full(body)).unwrap())
        .await
        .unwrap();
    let (status, headers) = (res.status().as_u16(), res.headers().clone());
    (
        status,
        headers,
        res.into_body().collect().await.unwrap().to_bytes(),
    )
}

fn vary(h: &http::HeaderMap) -> Vec<&str> {
    h.get_all(http::header::VARY)
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect()
}

/// The request body's dictionary, the request headers, the dictionary of the response.
type Case<'a> = (
    Option<&'a Dictionary>,
    Vec<(&'a str, HeaderValue)>,
    Option<DictionaryId>,
);

#[tokio::test]
async fn bodies_and_responses_use_the_announced_dictionary() {
    let (v1, v2) = (trained(), listed());
    assert_ne!(v1.id(), v2.id());
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(v1.clone()).unwrap();
    registry.rotate(v2.clone()).unwrap();
    let addr = server(Some(registry)).await;
    let sent = spans(20);
    let cases: [Case; 5] = [
        // RFC 9842's header, for the older dictionary (still registered).
        (
            Some(&v1),
            vec![(AVAILABLE_DICTIONARY, available_dictionary(&v1))],
            Some(v1.id()),
        ),
        // The id header, for the current one.
        (
            Some(&v2),
            vec![(QDF_DICTIONARY, qdf_dictionary(v2.id()))],
            Some(v2.id()),
        ),
        // A body on v1, a client that announces nothing: a plain response.
        (Some(&v1), vec![], None),
        // No dictionary at all.
        (None, vec![], None),
        // A malformed header and an unknown id are ignored.
        (
            None,
            vec![
                (AVAILABLE_DICTIONARY, HeaderValue::from_static(":AAAA:")),
                (QDF_DICTIONARY, HeaderValue::from_static("0123456789abcdef")),
            ],
            None,
        ),
    ];
    for (body_dict, headers, answer) in cases {
        let body = match body_dict {
            Some(d) => qdf_core::to_vec_with_dictionary(&sent, Options::default(), d).unwrap(),
            None => qdf_core::to_vec(&sent).unwrap(),
        };
        let (status, h, got) = post_echo(addr, body, &headers).await;
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&got));
        assert_eq!(vary(&h), ["available-dictionary, qdf-dictionary"]);
        assert_eq!(qdf_core::dictionary_id(&got).unwrap(), answer);
        let back: Vec<Span> = match answer {
            Some(id) => {
                let d = if id == v1.id() { &v1 } else { &v2 };
                qdf_core::from_slice_with_dictionary(&got, Options::default(), d).unwrap()
            }
            None => qdf_core::from_slice(&got).unwrap(),
        };
        assert_same(&back, &sent);
    }
}

#[tokio::test]
async fn an_unknown_dictionary_is_415_naming_it() {
    let (v1, v2, v3) = (trained(), listed(), unknown());
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(v1.clone()).unwrap();
    registry.rotate(v2.clone()).unwrap();
    assert!(registry.retire(v1.id()).unwrap());
    let with = server(Some(Arc::clone(&registry))).await;
    let without = server(None).await;
    let body = |d: &Dictionary| {
        qdf_core::to_vec_with_dictionary(&spans(3), Options::default(), d).unwrap()
    };
    for (addr, dict, text, current) in [
        (
            with,
            &v1,
            format!(
                "The qdf body names dictionary {}, which the reader does not hold (its current one is {})",
                v1.id(),
                v2.id()
            ),
            Some(v2.id()),
        ),
        (
            with,
            &v3,
            format!(
                "The qdf body names dictionary {}, which the reader does not hold (its current one is {})",
                v3.id(),
                v2.id()
            ),
            Some(v2.id()),
        ),
        (
            without,
            &v2,
            format!(
                "The qdf body names dictionary {}, and the reader holds no dictionaries",
                v2.id()
            ),
            None,
        ),
    ] {
        let (status, h, got) = post_echo(addr, body(dict), &[]).await;
        assert_eq!(status, 415);
        assert_eq!(String::from_utf8_lossy(&got), text);
        assert_eq!(
            h.get(QDF_DICTIONARY)
                .map(|v| v.to_str().unwrap().to_owned()),
            current.map(|c| c.to_string())
        );
    }
    // The current dictionary still decodes.
    let (status, _, _) = post_echo(with, body(&v2), &[]).await;
    assert_eq!(status, 200);
}

/// A stream body of `spans`, one frame each, from `dict`.
fn stream_body(spans: &[Span], dict: Option<&Dictionary>) -> Vec<u8> {
    let mut enc = qdf_core::EncoderSession::new(Options::default());
    if let Some(d) = dict {
        enc = enc.with_dictionary(d.clone());
    }
    let mut buf = Vec::new();
    for s in spans {
        enc.encode_frame(s, &mut buf).unwrap();
    }
    buf
}

#[tokio::test]
async fn streams_of_frames_use_the_registry_and_the_announced_dictionary() {
    let (v1, v2, v3) = (trained(), listed(), unknown());
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(v1.clone()).unwrap();
    registry.rotate(v2.clone()).unwrap();
    let addr = server(Some(Arc::clone(&registry))).await;
    let sent = spans(50);
    let post_stream = |body: Vec<u8>, announce: Option<&Dictionary>| {
        let mut req = Request::builder()
            .method(Method::POST)
            .uri(format!("http://{addr}/stream"))
            .header(http::header::CONTENT_TYPE, "application/qdf-stream");
        if let Some(d) = announce {
            req = req.header(AVAILABLE_DICTIONARY, available_dictionary(d));
        }
        client().request(req.body(full(body)).unwrap())
    };
    for (dict, announce) in [(Some(&v1), Some(&v1)), (Some(&v2), None), (None, Some(&v2))] {
        let res = post_stream(stream_body(&sent, dict), announce)
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        assert_eq!(
            vary(res.headers()),
            ["available-dictionary, qdf-dictionary"]
        );
        // The client reads the response with its own registry of what it holds.
        let mine = Arc::new(DictionaryRegistry::new());
        if let Some(d) = announce {
            mine.rotate(d.clone()).unwrap();
        }
        let mut frames = QdfFrames::<Span, _>::new(res.into_body()).with_registry(mine);
        let mut back = Vec::new();
        while let Some(s) = frames.next().await {
            back.push(s.unwrap());
        }
        assert_same(&back, &sent);
    }
    // An unknown dictionary: 415 before any item.
    let res = post_stream(stream_body(&sent, Some(&v3)), None)
        .await
        .unwrap();
    let (status, h) = (res.status().as_u16(), res.headers().clone());
    let text = res.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(status, 415);
    assert_eq!(
        String::from_utf8_lossy(&text),
        format!(
            "The qdf body names dictionary {}, which the reader does not hold (its current one is {})",
            v3.id(),
            v2.id()
        )
    );
    assert_eq!(h.get(QDF_DICTIONARY).unwrap(), &qdf_dictionary(v2.id()));
    // The sizes of one small stream (one span): the dictionary's 8-byte id in the header,
    // the span's strings as references, its shapes the dictionary's (§25.2).
    let one = &sent[..1];
    assert_eq!(
        (
            stream_body(one, None).len(),
            stream_body(one, Some(&v1)).len()
        ),
        (185, 81)
    );
}

#[tokio::test]
async fn one_small_message_is_smaller_with_the_dictionary() {
    let dict = trained();
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(dict.clone()).unwrap();
    let addr = server(Some(registry)).await;
    let one = spans(1);
    let plain = qdf_core::to_vec(&one).unwrap();
    let with = qdf_core::to_vec_with_dictionary(&one, Options::default(), &dict).unwrap();
    // One span: 184 bytes alone, 81 with the dictionary (13 header bytes instead of 5; 99
    // before the dictionary held shapes, §25.2); its hex ids are hex text (docs/SPEC.md §9;
    // 191 and 106 before).
    assert_eq!((plain.len(), with.len()), (184, 81));
    // The server reads both, and answers in kind: the response bodies have the same sizes.
    let (_, _, back_plain) = post_echo(addr, plain.clone(), &[]).await;
    let (_, _, back_with) = post_echo(
        addr,
        with.clone(),
        &[(AVAILABLE_DICTIONARY, available_dictionary(&dict))],
    )
    .await;
    assert_eq!(back_plain, plain);
    assert_eq!(back_with, with);
}

/// What each client uses: the dictionary "published" to clients (in a real deployment, a
/// file they download), swapped by the rotation.
struct Published(Mutex<Dictionary>);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotation_under_concurrent_clients_fails_no_request() {
    const CLIENTS: usize = 6;
    let (v1, v2) = (trained(), listed());
    let registry = Arc::new(DictionaryRegistry::new());
    registry.rotate(v1.clone()).unwrap();
    let addr = server(Some(Arc::clone(&registry))).await;
    let published = Arc::new(Published(Mutex::new(v1.clone())));
    let stop = Arc::new(AtomicBool::new(false));
    // Per client: whether it has started a request with v2 (its v1 requests are then over).
    let switched: Arc<Vec<AtomicBool>> =
        Arc::new((0..CLIENTS).map(|_| AtomicBool::new(false)).collect());
    let on = [Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0))];
    let mut tasks = Vec::new();
    for c in 0..CLIENTS {
        let (published, stop, switched, on) = (
            Arc::clone(&published),
            Arc::clone(&stop),
            Arc::clone(&switched),
            on.clone(),
        );
        let v2_id = v2.id();
        tasks.push(tokio::spawn(async move {
            let mut n = 0u64;
            while !stop.load(Ordering::Acquire) {
                let dict = published.0.lock().unwrap().clone();
                let is_v2 = dict.id() == v2_id;
                if is_v2 {
                    switched[c].store(true, Ordering::Release);
                }
                let all = spans(40);
                let sent: Vec<Span> = all[(n as usize + c) % 30..][..1 + n as usize % 10].to_vec();
                let body =
                    qdf_core::to_vec_with_dictionary(&sent, Options::default(), &dict).unwrap();
                let (status, _, got) = post_echo(
                    addr,
                    body,
                    &[(AVAILABLE_DICTIONARY, available_dictionary(&dict))],
                )
                .await;
                assert_eq!(
                    status,
                    200,
                    "client {c} request {n}: {}",
                    String::from_utf8_lossy(&got)
                );
                assert_eq!(qdf_core::dictionary_id(&got).unwrap(), Some(dict.id()));
                let back: Vec<Span> =
                    qdf_core::from_slice_with_dictionary(&got, Options::default(), &dict).unwrap();
                assert_same(&back, &sent);
                on[usize::from(is_v2)].fetch_add(1, Ordering::Relaxed);
                n += 1;
            }
            n
        }));
    }
    // A client that fails panics and stops counting: the phases below would wait forever,
    // so they are bounded (the client's panic is reported by its task's join below).
    let phases = async {
        // Phase 1: every client on v1 for a while.
        while on[0].load(Ordering::Relaxed) < 200 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // Rotate on the server first (v1 stays registered), then publish v2 to the clients.
        assert_eq!(registry.rotate(v2.clone()).unwrap(), Some(v1.id()));
        *published.0.lock().unwrap() = v2.clone();
        // Retire v1 once every client has switched (none has a v1 request in flight then).
        while !switched.iter().all(|s| s.load(Ordering::Acquire)) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert!(registry.retire(v1.id()).unwrap());
        let after_retire = on[1].load(Ordering::Relaxed);
        while on[1].load(Ordering::Relaxed) < after_retire + 200 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    let finished = tokio::time::timeout(Duration::from_secs(120), phases).await;
    stop.store(true, Ordering::Release);
    let mut total = 0;
    for t in tasks {
        total += t.await.expect("no client failed a request");
    }
    assert!(finished.is_ok(), "the rotation's phases did not finish");
    let (n1, n2) = (on[0].load(Ordering::Relaxed), on[1].load(Ordering::Relaxed));
    assert_eq!(n1 + n2, total);
    assert!(n1 >= 200 && n2 >= 200, "{n1} requests on v1, {n2} on v2");
    assert_eq!(registry.ids(), [v2.id()]);
}

/// A registry in a `static`, as qdf-tonic's `Limits::dictionaries` takes one, provided as an
/// `Extension<&'static DictionaryRegistry>`: message and stream bodies on its dictionary
/// decode, and the response uses the announced one.
#[tokio::test]
async fn a_static_registry_is_an_extension_too() {
    static REGISTRY: std::sync::LazyLock<DictionaryRegistry> =
        std::sync::LazyLock::new(DictionaryRegistry::new);
    let v1 = trained();
    REGISTRY.rotate(v1.clone()).unwrap();
    let app = Router::new()
        .route("/echo", post(echo))
        .route("/stream", post(echo_stream))
        .layer(Extension(&*REGISTRY));
    let addr = serve(app).await;
    let sent = spans(20);

    let body = qdf_core::to_vec_with_dictionary(&sent, Options::balanced(), &v1).unwrap();
    let (status, _, got) =
        post_echo(addr, body, &[(QDF_DICTIONARY, qdf_dictionary(v1.id()))]).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&got));
    assert_eq!(qdf_core::dictionary_id(&got).unwrap(), Some(v1.id()));
    let back: Vec<Span> =
        qdf_core::from_slice_with_dictionary(&got, Options::default(), &v1).unwrap();
    assert_eq!(back, sent);

    let mut enc = qdf_core::EncoderSession::new(Options::default()).with_dictionary(v1.clone());
    let mut body = Vec::new();
    for s in &sent {
        enc.encode_frame(s, &mut body).unwrap();
    }
    let req = Request::builder()
        .method(Method::POST)
        .uri(format!("http://{addr}/stream"))
        .header(http::header::CONTENT_TYPE, "application/qdf-stream")
        .body(full(body))
        .unwrap();
    let res = client().request(req).await.unwrap();
    assert_eq!(res.status().as_u16(), 200);
}
