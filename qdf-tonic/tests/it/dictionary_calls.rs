//! Pre-shared dictionaries on streaming calls over a real loopback tonic server:
//! client-streaming and bidirectional calls on a dictionary, rotation and retirement while
//! calls are open, unknown dictionaries on streaming calls, and many concurrent calls.
//!
//! The service is written by hand (what `tonic_build` would generate for one
//! client-streaming and one bidirectional method). Each test has its own `Limits` types,
//! whose registries are `static`s, as tonic builds codecs with `Default`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use futures_core::Stream;
use qdf_core::{Dictionary, DictionaryRegistry, Options};
use qdf_tonic::{Limits, QdfCodec};

use crate::common::{Item, item};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc};
use tokio_stream::StreamExt;
use tokio_stream::wrappers::{TcpListenerStream, UnboundedReceiverStream};
use tonic::body::Body;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::codegen::{BoxFuture, Context, Poll, Service, http};
use tonic::server::{ClientStreamingService, StreamingService};
use tonic::transport::{Channel, Server};
use tonic::{Code, Request, Response, Status, Streaming};

fn v1() -> Dictionary {
    let samples: Vec<Item> = (1000..1100).map(item).collect();
    Dictionary::train(&samples, Options::balanced(), 4096).unwrap()
}

fn v2() -> Dictionary {
    Dictionary::from_strs(["checkout", "payment-service", "request served", "service"]).unwrap()
}

fn v3() -> Dictionary {
    Dictionary::from_strs(["inventory", "host-00"]).unwrap()
}

/// `$name`: a `Limits` whose registry `$reg` is a `static` holding `$dicts` (the last one
/// current).
macro_rules! limits {
    ($name:ident, $reg:ident, send_current: $send:expr, [$($dict:expr),*]) => {
        static $reg: LazyLock<DictionaryRegistry> = LazyLock::new(|| {
            let r = DictionaryRegistry::new();
            $(r.rotate($dict).unwrap();)*
            r
        });
        struct $name;
        impl Limits for $name {
            const SEND_CURRENT_DICTIONARY: bool = $send;
            fn dictionaries() -> Option<&'static DictionaryRegistry> {
                Some(&$reg)
            }
        }
    };
}

/// Lets a test hold the server's answers: each received id is reported on `seen`, and
/// each answer waits for a permit of `go`.
#[derive(Clone)]
struct Gate {
    seen: mpsc::UnboundedSender<u64>,
    go: Arc<Semaphore>,
}

impl Gate {
    async fn pass(&self, id: u64) {
        let _ = self.seen.send(id);
        self.go.acquire().await.unwrap().forget();
    }
}

/// `Sum` (client streaming: every item back in one response) and `Chat` (bidirectional:
/// each item echoed as it arrives), on codecs with limits `L`.
struct Svc<L> {
    gate: Option<Gate>,
    _l: std::marker::PhantomData<fn() -> L>,
}

impl<L> Clone for Svc<L> {
    fn clone(&self) -> Self {
        Svc {
            gate: self.gate.clone(),
            _l: std::marker::PhantomData,
        }
    }
}

type Items = Pin<Box<dyn Stream<Item = Result<Item, Status>> + Send>>;

struct Sum(Option<Gate>);

impl ClientStreamingService<Item> for Sum {
    type Response = Vec<Item>;
    type Future = BoxFuture<Response<Vec<Item>>, Status>;

    fn call(&mut self, request: Request<Streaming<Item>>) -> Self::Future {
        let gate = self.0.clone();
        Box::pin(async move {
            let mut stream = request.into_inner();
            let mut all = Vec::new();
            while let Some(item) = stream.message().await? {
                if let Some(g) = &gate {
                    g.pass(item.id).await;
                }
                all.push(item);
            }
            Ok(Response::new(all))
        })
    }
}

struct Chat(Option<Gate>);

impl StreamingService<Item> for Chat {
    type Response = Item;
    type ResponseStream = Items;
    type Future = BoxFuture<Response<Items>, Status>;

    fn call(&mut self, request: Request<Streaming<Item>>) -> Self::Future {
        let gate = self.0.clone();
        Box::pin(async move {
            let stream = request.into_inner();
            let echoed = stream.then(move |r| {
                let gate = gate.clone();
                async move {
                    let item = r?;
                    if let Some(g) = &gate {
                        g.pass(item.id).await;
                    }
                    Ok(item)
                }
            });
            Ok(Response::new(Box::pin(echoed) as Items))
        })
    }
}

impl<L: Limits> Service<http::Request<Body>> for Svc<L> {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Infallible>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<Body>) -> Self::Future {
        let gate = self.gate.clone();
        Box::pin(async move {
            Ok(match req.uri().path() {
                "/test.Dict/Sum" => {
                    let codec = QdfCodec::<Vec<Item>, Item, L>::default();
                    let mut grpc = tonic::server::Grpc::new(codec);
                    grpc.client_streaming(Sum(gate), req).await
                }
                _ => {
                    let mut grpc = tonic::server::Grpc::new(QdfCodec::<Item, Item, L>::default());
                    grpc.streaming(Chat(gate), req).await
                }
            })
        })
    }
}

impl<L: Limits> tonic::server::NamedService for Svc<L> {
    const NAME: &'static str = "test.Dict";
}

async fn serve<L: Limits>(gate: Option<Gate>) -> Channel {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let svc = Svc::<L> {
        gate,
        _l: std::marker::PhantomData,
    };
    tokio::spawn(Server::builder().serve_with_incoming(svc, TcpListenerStream::new(listener)));
    Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap()
}

/// Opens a `Chat` call on `channel` with codec limits `L`: the sender of its requests and
/// its response stream.
async fn chat<L: Limits>(
    channel: &Channel,
) -> (
    mpsc::UnboundedSender<Item>,
    Result<Response<Streaming<Item>>, Status>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    grpc.ready().await.unwrap();
    let path = PathAndQuery::from_static("/test.Dict/Chat");
    let codec = QdfCodec::<Item, Item, L>::default();
    // The first message goes with the call, so the response head comes back.
    tx.send(item(0)).unwrap();
    let res = grpc
        .streaming(Request::new(UnboundedReceiverStream::new(rx)), path, codec)
        .await;
    (tx, res)
}

async fn sum<L: Limits>(
    channel: &Channel,
    items: impl Stream<Item = Item> + Send + 'static,
) -> Result<Vec<Item>, Status> {
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    grpc.ready().await.unwrap();
    let path = PathAndQuery::from_static("/test.Dict/Sum");
    let codec = QdfCodec::<Item, Vec<Item>, L>::default();
    Ok(grpc
        .client_streaming(Request::new(items), path, codec)
        .await?
        .into_inner())
}

/// Bounds a step that would otherwise hang the test.
async fn within<F: std::future::Future>(what: &str, f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(5), f)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within 5 s"))
}

limits!(BidiServer, BIDI_SERVER, send_current: false, [v1()]);
limits!(BidiClient, BIDI_CLIENT, send_current: true, [v1()]);

#[tokio::test]
async fn a_bidi_call_keeps_its_dictionary_through_rotation_on_both_sides() {
    let channel = serve::<BidiServer>(None).await;
    let (tx, res) = chat::<BidiClient>(&channel).await;
    let mut back = res.unwrap().into_inner();
    assert_eq!(
        within("echo 0", back.message()).await.unwrap(),
        Some(item(0))
    );
    // Both sides have read their stream's first message: rotate and retire v1 everywhere.
    for reg in [&BIDI_SERVER, &BIDI_CLIENT] {
        assert_eq!(reg.rotate(v2()).unwrap(), Some(v1().id()));
        assert!(reg.retire(v1().id()).unwrap());
    }
    for id in 1..50 {
        tx.send(item(id)).unwrap();
        let got = within("an echo", back.message()).await.unwrap();
        assert_eq!(got, Some(item(id)));
    }
    drop(tx);
    assert_eq!(within("the end", back.message()).await.unwrap(), None);
    // A new call starts from v2 and works.
    let (tx, res) = chat::<BidiClient>(&channel).await;
    let mut back = res.unwrap().into_inner();
    assert_eq!(
        within("echo 0", back.message()).await.unwrap(),
        Some(item(0))
    );
    drop(tx);
    assert_eq!(within("the end", back.message()).await.unwrap(), None);
}

limits!(RaceServer, RACE_SERVER, send_current: false, [v1()]);
limits!(RaceClient, RACE_CLIENT, send_current: true, [v1()]);

/// A client that rotates and retires its dictionary while a call it started on it waits
/// for its first answer: the answer is in the request's dictionary, which the call itself
/// sent, so it must still read it.
#[tokio::test]
async fn a_client_reads_answers_in_the_dictionary_it_sent_after_retiring_it() {
    let (seen_tx, mut seen) = mpsc::unbounded_channel();
    let go = Arc::new(Semaphore::new(0));
    let gate = Gate {
        seen: seen_tx,
        go: Arc::clone(&go),
    };
    let channel = serve::<RaceServer>(Some(gate)).await;
    // Bidirectional: the server holds its first answer.
    let (tx, res) = chat::<RaceClient>(&channel).await;
    let mut back = res.unwrap().into_inner();
    assert_eq!(within("the server's read", seen.recv()).await, Some(0));
    RACE_SERVER.rotate(v2()).unwrap();
    RACE_CLIENT.rotate(v2()).unwrap();
    assert!(RACE_CLIENT.retire(v1().id()).unwrap());
    go.add_permits(1);
    let first = within("echo 0", back.message()).await;
    assert_eq!(first.unwrap(), Some(item(0)));
    drop(tx);
    go.add_permits(1);
    assert_eq!(within("the end", back.message()).await.unwrap(), None);
}

limits!(RaceSumServer, RACE_SUM_SERVER, send_current: false, [v1()]);
limits!(RaceSumClient, RACE_SUM_CLIENT, send_current: true, [v1()]);

/// The same for a client-streaming call: the client retires v1 while the server reads.
#[tokio::test]
async fn a_client_streaming_call_survives_its_client_retiring_the_dictionary() {
    let (seen_tx, mut seen) = mpsc::unbounded_channel();
    let go = Arc::new(Semaphore::new(0));
    let gate = Gate {
        seen: seen_tx,
        go: Arc::clone(&go),
    };
    let channel = serve::<RaceSumServer>(Some(gate)).await;
    let items: Vec<Item> = (0..5).map(item).collect();
    let call = tokio::spawn({
        let (channel, items) = (channel.clone(), items.clone());
        async move { sum::<RaceSumClient>(&channel, tokio_stream::iter(items)).await }
    });
    assert_eq!(within("the server's read", seen.recv()).await, Some(0));
    RACE_SUM_SERVER.rotate(v2()).unwrap();
    RACE_SUM_CLIENT.rotate(v2()).unwrap();
    assert!(RACE_SUM_CLIENT.retire(v1().id()).unwrap());
    go.add_permits(items.len());
    assert_eq!(within("the response", call).await.unwrap().unwrap(), items);
}

limits!(UnknownServer, UNKNOWN_SERVER, send_current: false, [v1(), v2()]);
limits!(OnV3, ON_V3, send_current: true, [v3()]);

#[tokio::test]
async fn streaming_calls_on_an_unknown_dictionary_fail_fast_naming_it() {
    let channel = serve::<UnknownServer>(None).await;
    let want = format!(
        "qdf: cannot decode message 0 of this stream: the input names dictionary {}, this decoder holds dictionary {}",
        v3().id(),
        v2().id()
    );
    // Client streaming whose request stream never ends: the status still comes back.
    let (tx, rx) = mpsc::unbounded_channel();
    for id in 0..3 {
        tx.send(item(id)).unwrap();
    }
    let status = within(
        "the status",
        sum::<OnV3>(&channel, UnboundedReceiverStream::new(rx)),
    )
    .await
    .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(status.message().starts_with(&want), "{}", status.message());
    drop(tx);
    // Bidirectional: the status is the response stream's first item.
    let (_tx, res) = chat::<OnV3>(&channel).await;
    let status = match res {
        Ok(r) => within("the status", r.into_inner().message())
            .await
            .unwrap_err(),
        Err(s) => s,
    };
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(status.message().starts_with(&want), "{}", status.message());
}

limits!(ManyServer, MANY_SERVER, send_current: false, [v1(), v2()]);
limits!(ManyOnV1, MANY_ON_V1, send_current: true, [v1()]);
limits!(ManyOnV2, MANY_ON_V2, send_current: true, [v2()]);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_streaming_calls_on_two_dictionaries() {
    let channel = serve::<ManyServer>(None).await;
    let mut tasks = Vec::new();
    for c in 0..40u64 {
        let channel = channel.clone();
        tasks.push(tokio::spawn(async move {
            let items: Vec<Item> = (c..c + 20 + c).map(item).collect();
            let src = tokio_stream::iter(items.clone());
            let got = if c % 2 == 0 {
                sum::<ManyOnV1>(&channel, src).await
            } else {
                sum::<ManyOnV2>(&channel, src).await
            };
            assert_eq!(got.unwrap(), items, "call {c}");
        }));
    }
    for t in tasks {
        within("a call", t).await.unwrap();
    }
}

limits!(OpenServer, OPEN_SERVER, send_current: false, [v1()]);
limits!(OpenClient, OPEN_CLIENT, send_current: true, [v1()]);

/// Twenty bidirectional calls open on v1 while both sides rotate to v2 and retire v1:
/// every open call goes on in v1, every new one starts on v2.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_calls_outlive_a_rotation_while_new_calls_start_on_the_new_dictionary() {
    let channel = serve::<OpenServer>(None).await;
    let mut open = Vec::new();
    for _ in 0..20 {
        let (tx, res) = chat::<OpenClient>(&channel).await;
        let mut back = res.unwrap().into_inner();
        assert_eq!(
            within("echo 0", back.message()).await.unwrap(),
            Some(item(0))
        );
        open.push((tx, back));
    }
    for reg in [&OPEN_SERVER, &OPEN_CLIENT] {
        reg.rotate(v2()).unwrap();
        assert!(reg.retire(v1().id()).unwrap());
    }
    let mut tasks = Vec::new();
    for (c, (tx, mut back)) in open.into_iter().enumerate() {
        let channel = channel.clone();
        tasks.push(tokio::spawn(async move {
            // A new call beside the open one.
            let (new_tx, res) = chat::<OpenClient>(&channel).await;
            let mut new_back = res.unwrap().into_inner();
            for id in 1..20 {
                let id = id + 100 * c as u64;
                tx.send(item(id)).unwrap();
                new_tx.send(item(id)).unwrap();
                assert_eq!(back.message().await.unwrap(), Some(item(id)));
            }
            assert_eq!(new_back.message().await.unwrap(), Some(item(0)));
            for id in 1..20 {
                let id = id + 100 * c as u64;
                assert_eq!(new_back.message().await.unwrap(), Some(item(id)));
            }
            drop((tx, new_tx));
            assert_eq!(back.message().await.unwrap(), None);
            assert_eq!(new_back.message().await.unwrap(), None);
        }));
    }
    for t in tasks {
        within("a call", t).await.unwrap();
    }
}
