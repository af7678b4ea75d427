//! Pre-shared dictionaries through `QdfCodec` on a real loopback tonic server: requests
//! that start from the client's current dictionary, responses that answer in the request's,
//! the `invalid_argument` for an unknown dictionary, and the bytes saved.
//!
//! The unary service is written by hand (what `tonic_build` would generate), so the test
//! needs no build script. Each test has its own `Limits` types, whose registries are
//! `static`s, as tonic builds codecs with `Default`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::LazyLock;

use bytes::Bytes;
use http_body_util::BodyExt;
use qdf_core::{Dictionary, DictionaryRegistry, Options};
use qdf_tonic::{Limits, QdfCodec};

use crate::common::{Item, item};
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::body::Body;
use tonic::codec::{Codec, EncodeBody};
use tonic::codegen::http::uri::PathAndQuery;
use tonic::codegen::{BoxFuture, Context, Poll, Service, http};
use tonic::server::UnaryService;
use tonic::transport::{Channel, Server};
use tonic::{Code, Request, Response, Status};

/// Trained on items like the ones sent (not the same ones); `budget` varies the content.
fn trained(budget: usize) -> Dictionary {
    let samples: Vec<Item> = (1000..1100).map(item).collect();
    Dictionary::train(&samples, Options::balanced(), budget).unwrap()
}

fn v1() -> Dictionary {
    trained(4096)
}

fn v2() -> Dictionary {
    Dictionary::from_strs([
        "checkout",
        "payment-service",
        "request served",
        "service",
        "host",
    ])
    .unwrap()
}

/// A dictionary no server holds.
fn v3() -> Dictionary {
    Dictionary::from_strs(["inventory", "host-00"]).unwrap()
}

/// `$name`: a `Limits` whose registry holds `$dicts` (the last one current).
macro_rules! limits {
    ($name:ident, send_current: $send:expr, [$($dict:expr),*]) => {
        struct $name;
        impl Limits for $name {
            const SEND_CURRENT_DICTIONARY: bool = $send;
            fn dictionaries() -> Option<&'static DictionaryRegistry> {
                static R: LazyLock<DictionaryRegistry> = LazyLock::new(|| {
                    let r = DictionaryRegistry::new();
                    $(r.rotate($dict).unwrap();)*
                    r
                });
                Some(&R)
            }
        }
    };
}

// The server holds v1 and v2 and answers in the request's dictionary.
limits!(ServerDicts, send_current: false, [v1(), v2()]);
// Clients: one on each dictionary, one on a dictionary the server does not hold.
limits!(OnV1, send_current: true, [v1()]);
limits!(OnV2, send_current: true, [v1(), v2()]);
limits!(OnV3, send_current: true, [v3()]);
// A server that also starts streams answering nobody from its current dictionary (v2).
limits!(ServerSendsCurrent, send_current: true, [v1(), v2()]);
// A server with no registry.
struct NoDicts;
impl Limits for NoDicts {}

/// Echoes the item back; as generated code wraps a handler.
struct Echo<L>(std::marker::PhantomData<fn() -> L>);

impl<L> Clone for Echo<L> {
    fn clone(&self) -> Self {
        Echo(std::marker::PhantomData)
    }
}

struct EchoSvc;

impl UnaryService<Vec<Item>> for EchoSvc {
    type Response = Vec<Item>;
    type Future = BoxFuture<Response<Vec<Item>>, Status>;

    fn call(&mut self, request: Request<Vec<Item>>) -> Self::Future {
        Box::pin(async move { Ok(Response::new(request.into_inner())) })
    }
}

impl<L: Limits> Service<http::Request<Body>> for Echo<L> {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Infallible>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<Body>) -> Self::Future {
        Box::pin(async move {
            let mut grpc = tonic::server::Grpc::new(QdfCodec::<Vec<Item>, Vec<Item>, L>::default());
            Ok(grpc.unary(EchoSvc, req).await)
        })
    }
}

impl<L: Limits> tonic::server::NamedService for Echo<L> {
    const NAME: &'static str = "test.Echo";
}

async fn serve<L: Limits>() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let echo = Echo::<L>(std::marker::PhantomData);
    tokio::spawn(Server::builder().serve_with_incoming(echo, TcpListenerStream::new(listener)));
    addr
}

async fn call<L: Limits>(addr: SocketAddr, items: Vec<Item>) -> Result<Vec<Item>, Status> {
    let channel = Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.unwrap();
    let path = PathAndQuery::from_static("/test.Echo/Echo");
    let codec = QdfCodec::<Vec<Item>, Vec<Item>, L>::default();
    Ok(grpc
        .unary(Request::new(items), path, codec)
        .await?
        .into_inner())
}

#[tokio::test]
async fn requests_and_responses_use_the_clients_dictionary() {
    let addr = serve::<ServerDicts>().await;
    let items: Vec<Item> = (0..30).map(item).collect();
    assert_eq!(call::<OnV1>(addr, items.clone()).await.unwrap(), items);
    assert_eq!(call::<OnV2>(addr, items.clone()).await.unwrap(), items);
    // A client without dictionaries: plain both ways.
    assert_eq!(call::<NoDicts>(addr, items.clone()).await.unwrap(), items);

    // The response answers in the request's dictionary even where the server would start
    // other streams from its current one (v2): the client on v1 holds no v2.
    let addr = serve::<ServerSendsCurrent>().await;
    assert_eq!(call::<OnV1>(addr, items.clone()).await.unwrap(), items);
    // A client that sent no dictionary gets the current one, which it cannot read.
    let status = call::<NoDicts>(addr, items.clone()).await.unwrap_err();
    let want = format!(
        "the input names dictionary {}, this decoder holds no dictionary",
        v2().id()
    );
    assert!(status.message().contains(&want), "{status:?}");
}

#[tokio::test]
async fn an_unknown_dictionary_is_invalid_argument_naming_it() {
    let items: Vec<Item> = (0..3).map(item).collect();
    for (addr, holds) in [
        (
            serve::<ServerDicts>().await,
            format!("this decoder holds dictionary {}", v2().id()),
        ),
        (
            serve::<NoDicts>().await,
            "this decoder holds no dictionary".to_string(),
        ),
    ] {
        let status = call::<OnV3>(addr, items.clone()).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        let want = format!(
            "qdf: cannot decode message 0 of this stream: the input names dictionary {}, {holds}",
            v3().id()
        );
        assert!(status.message().starts_with(&want), "{}", status.message());
    }
}

/// The gRPC request body a client's codec `L` writes for one message (the 5-byte gRPC
/// prefix, then the qdf message).
async fn request_bytes<L: Limits>(msg: Vec<Item>) -> Bytes {
    let mut codec = QdfCodec::<Vec<Item>, Vec<Item>, L>::default();
    let source = tokio_stream::iter([Ok(msg)]);
    let body = EncodeBody::new_client(codec.encoder(), source, None, None);
    body.collect().await.unwrap().to_bytes()
}

#[tokio::test]
async fn one_small_message_is_smaller_with_the_dictionary() {
    let one = vec![item(7)];
    let plain = request_bytes::<NoDicts>(one.clone()).await;
    let with = request_bytes::<OnV1>(one.clone()).await;
    // One small message (with the 5-byte gRPC prefix): 81 bytes alone, 28 with the
    // dictionary (its qdf header 13 bytes instead of 5; 38 before the dictionary held the
    // item's shape, docs/SPEC.md §25.2).
    assert_eq!((plain.len(), with.len()), (81, 28));
    assert_eq!(
        qdf_core::dictionary_id(&with[5..]).unwrap(),
        Some(v1().id())
    );
    assert_eq!(qdf_core::dictionary_id(&plain[5..]).unwrap(), None);
    let mut dec = qdf_core::DecoderSession::new(Options::balanced()).with_dictionary(v1());
    assert_eq!(dec.decode_message::<Vec<Item>>(&with[5..]).unwrap(), one);
}

// The rotation test's registries: the server's, and the one all its clients share.
static ROT_SERVER: LazyLock<DictionaryRegistry> = LazyLock::new(|| {
    let r = DictionaryRegistry::new();
    r.rotate(v1()).unwrap();
    r
});
static ROT_CLIENTS: LazyLock<DictionaryRegistry> = LazyLock::new(|| {
    let r = DictionaryRegistry::new();
    r.rotate(v1()).unwrap();
    r
});

struct RotServer;
impl Limits for RotServer {
    fn dictionaries() -> Option<&'static DictionaryRegistry> {
        Some(&ROT_SERVER)
    }
}

struct RotClient;
impl Limits for RotClient {
    const SEND_CURRENT_DICTIONARY: bool = true;
    fn dictionaries() -> Option<&'static DictionaryRegistry> {
        Some(&ROT_CLIENTS)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotation_under_concurrent_clients_fails_no_call() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::time::Duration;

    const CLIENTS: usize = 6;
    const PER_PHASE: u64 = 200;
    let (v1, v2) = (v1(), v2());
    let addr = serve::<RotServer>().await;
    let channel = Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    // Per client: whether it has seen v2 current before a call (its later calls use v2,
    // and its v1 calls are over).
    let switched: Arc<Vec<AtomicBool>> =
        Arc::new((0..CLIENTS).map(|_| AtomicBool::new(false)).collect());
    let on = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
    let mut tasks = Vec::new();
    for c in 0..CLIENTS {
        let (channel, stop, switched, on) = (
            channel.clone(),
            Arc::clone(&stop),
            Arc::clone(&switched),
            Arc::clone(&on),
        );
        let v2_id = v2.id();
        tasks.push(tokio::spawn(async move {
            let mut grpc = tonic::client::Grpc::new(channel);
            let mut n = 0u64;
            while !stop.load(Ordering::Acquire) {
                // The codec reads the current dictionary at its first message, after this:
                // never older than what is seen here.
                let is_v2 = ROT_CLIENTS.current().map(|d| d.id()) == Some(v2_id);
                if is_v2 {
                    switched[c].store(true, Ordering::Release);
                }
                let items: Vec<Item> = (n..n + 1 + n % 8).map(|i| item(i * 7 + c as u64)).collect();
                grpc.ready().await.unwrap();
                let path = PathAndQuery::from_static("/test.Echo/Echo");
                let codec = QdfCodec::<Vec<Item>, Vec<Item>, RotClient>::default();
                let back = grpc.unary(Request::new(items.clone()), path, codec).await;
                let back = back.unwrap_or_else(|s| panic!("client {c} call {n}: {s:?}"));
                assert_eq!(back.into_inner(), items, "client {c} call {n}");
                on[usize::from(is_v2)].fetch_add(1, Ordering::Relaxed);
                n += 1;
            }
            n
        }));
    }
    let wait = |i: usize, at_least: u64| {
        let on = Arc::clone(&on);
        async move {
            while on[i].load(Ordering::Relaxed) < at_least {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    };
    // A client that fails panics and stops counting: the phases are bounded, and its panic
    // is reported by its task's join below.
    let phases = async {
        wait(0, PER_PHASE).await;
        // The server registers v2 first (v1 stays), then the clients rotate to it.
        assert_eq!(ROT_SERVER.rotate(v2.clone()).unwrap(), Some(v1.id()));
        ROT_CLIENTS.rotate(v2.clone()).unwrap();
        while !switched.iter().all(|s| s.load(Ordering::Acquire)) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert!(ROT_SERVER.retire(v1.id()).unwrap());
        let after = on[1].load(Ordering::Relaxed);
        wait(1, after + PER_PHASE).await;
    };
    let finished = tokio::time::timeout(Duration::from_secs(120), phases).await;
    stop.store(true, Ordering::Release);
    let mut total = 0;
    for t in tasks {
        total += t.await.expect("no client failed a call");
    }
    assert!(finished.is_ok(), "the rotation's phases did not finish");
    let (n1, n2) = (on[0].load(Ordering::Relaxed), on[1].load(Ordering::Relaxed));
    assert_eq!(n1 + n2, total);
    assert!(
        n1 >= PER_PHASE && n2 >= PER_PHASE,
        "{n1} calls on v1, {n2} on v2"
    );
    assert_eq!(ROT_SERVER.ids(), [v2.id()]);
}
