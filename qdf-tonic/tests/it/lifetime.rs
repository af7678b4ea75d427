//! Stream lifetime over real sockets: three tonic servers on loopback behind one
//! `Channel::balance_list`, a client-streaming `Export` carried by a [`Rotation`], the
//! servers reading through a [`LifetimeStream`]. Every message must arrive exactly once,
//! in order within its stream, and the streams must spread over more than one server.
//!
//! The service is written by hand (what `tonic_build` would generate for one
//! client-streaming method), so the test needs no build script.

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use qdf_tonic::{LifetimeEnd, LifetimeStream, QdfCodec, Rotation, RotationStats, StreamLifetime};
use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::body::Body;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::codegen::{BoxFuture, Context, Poll, Service, http};
use tonic::server::ClientStreamingService;
use tonic::transport::{Channel, Server};
use tonic::{Code, Request, Response, Status, Streaming};

/// One exported message; the strings repeat, so the Dense sessions intern them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Item {
    id: u64,
    service: String,
    host: String,
    text: String,
}

fn item(id: u64) -> Item {
    Item {
        id,
        service: ["checkout", "payments", "search"][id as usize % 3].to_owned(),
        host: format!("pod-{}", id % 7),
        text: format!("request handled in {} ms", id % 50),
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Summary {
    server: usize,
    received: u64,
}

/// One stream as a server saw it.
#[derive(Clone, Debug)]
struct StreamRecord {
    server: usize,
    ids: Vec<u64>,
    end: Option<LifetimeEnd>,
}

/// What every server records; one for the three servers of a test.
#[derive(Default)]
struct Log {
    /// Streams in the order they started (filled in when they end).
    streams: Mutex<Vec<Option<StreamRecord>>>,
    started: AtomicU64,
}

/// The `Export` service of one server.
#[derive(Clone)]
struct Sink {
    server: usize,
    lifetime: StreamLifetime<Item>,
    /// Whether the response carries the accepted count (`LifetimeStream::respond`).
    stamp: bool,
    log: Arc<Log>,
}

impl Sink {
    async fn export(&self, stream: Streaming<Item>) -> Result<Response<Summary>, Status> {
        let slot = {
            let mut streams = self.log.streams.lock().unwrap();
            streams.push(None);
            self.log.started.fetch_add(1, Ordering::Relaxed);
            streams.len() - 1
        };
        let mut items = LifetimeStream::new(stream, self.lifetime);
        let mut ids = Vec::new();
        while let Some(item) = items.message().await? {
            // The Dense session of this stream decoded the strings right.
            assert_eq!(item, self::item(item.id));
            ids.push(item.id);
        }
        let summary = Summary {
            server: self.server,
            received: ids.len() as u64,
        };
        self.log.streams.lock().unwrap()[slot] = Some(StreamRecord {
            server: self.server,
            ids,
            end: items.lifetime_end(),
        });
        Ok(if self.stamp {
            items.respond(summary)
        } else {
            Response::new(summary)
        })
    }
}

/// The handler, as generated code wraps it.
struct ExportSvc(Sink);

impl ClientStreamingService<Item> for ExportSvc {
    type Response = Summary;
    type Future = BoxFuture<Response<Summary>, Status>;

    fn call(&mut self, request: Request<Streaming<Item>>) -> Self::Future {
        let sink = self.0.clone();
        Box::pin(async move { sink.export(request.into_inner()).await })
    }
}

impl Service<http::Request<Body>> for Sink {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Infallible>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<Body>) -> Self::Future {
        let sink = self.clone();
        Box::pin(async move {
            let mut grpc = tonic::server::Grpc::new(QdfCodec::<Summary, Item>::default());
            Ok(grpc.client_streaming(ExportSvc(sink), req).await)
        })
    }
}

/// Three servers on `127.0.0.1:0` sharing one log.
struct Cluster {
    addrs: Vec<SocketAddr>,
    log: Arc<Log>,
    tasks: Vec<JoinHandle<Result<(), tonic::transport::Error>>>,
}

impl Cluster {
    async fn start(lifetime: StreamLifetime<Item>, stamp: bool) -> Cluster {
        let log = Arc::new(Log::default());
        let (mut addrs, mut tasks) = (Vec::new(), Vec::new());
        for server in 0..3 {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            addrs.push(listener.local_addr().unwrap());
            let sink = Sink {
                server,
                lifetime,
                stamp,
                log: Arc::clone(&log),
            };
            let incoming = TcpListenerStream::new(listener);
            tasks.push(tokio::spawn(
                Server::builder().serve_with_incoming(sink, incoming),
            ));
        }
        Cluster { addrs, log, tasks }
    }

    /// One channel balancing over the three servers (tower's power-of-two-choices).
    fn balanced_channel(&self) -> Channel {
        let endpoints = self
            .addrs
            .iter()
            .map(|a| Channel::from_shared(format!("http://{a}")).unwrap());
        Channel::balance_list(endpoints)
    }

    fn streams(&self) -> Vec<StreamRecord> {
        let streams = self.log.streams.lock().unwrap();
        streams
            .iter()
            .map(|s| s.clone().expect("stream finished"))
            .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Sends `source` through a rotation over `channel`; the status of `run` and the stats.
async fn export<S>(
    channel: Channel,
    source: S,
    lifetime: StreamLifetime<Item>,
) -> (Result<(), Status>, Rotation<Item>)
where
    S: tokio_stream::Stream<Item = Item> + Send + 'static,
{
    let grpc = tonic::client::Grpc::new(channel);
    let mut rotation = Rotation::new(source, lifetime);
    let result = rotation
        .run(|stream| {
            let mut grpc = grpc.clone();
            async move {
                grpc.ready()
                    .await
                    .map_err(|e| Status::unavailable(e.to_string()))?;
                let path = PathAndQuery::from_static("/test.Sink/Export");
                let codec = QdfCodec::<Item, Summary>::default();
                grpc.client_streaming(Request::new(stream), path, codec)
                    .await
            }
        })
        .await;
    (result, rotation)
}

/// Every id of `0..n` exactly once over all streams, each stream a contiguous ascending
/// run, each at most `max` long; returns how many servers got streams.
fn check_exactly_once(streams: &[StreamRecord], n: u64, max: usize) -> usize {
    let mut all: Vec<u64> = Vec::new();
    for (i, s) in streams.iter().enumerate() {
        assert!(s.ids.len() <= max, "stream {i}: {} messages", s.ids.len());
        assert!(
            s.ids.windows(2).all(|w| w[1] == w[0] + 1),
            "stream {i} on server {} out of order: {:?}",
            s.server,
            s.ids
        );
        all.extend(&s.ids);
    }
    let total = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), total, "duplicated messages");
    assert_eq!(all, (0..n).collect::<Vec<_>>(), "lost messages");
    let mut per_server = [0usize; 3];
    for s in streams {
        per_server[s.server] += 1;
    }
    eprintln!("streams per server: {per_server:?}");
    streams
        .iter()
        .map(|s| s.server)
        .collect::<BTreeSet<_>>()
        .len()
}

#[tokio::test]
async fn client_lifetime_rotates_streams_across_balanced_servers() {
    let cluster = Cluster::start(StreamLifetime::unlimited(), true).await;
    let source = tokio_stream::iter((0..2000).map(item));
    let lifetime = StreamLifetime::unlimited().max_messages(100);
    let (result, rotation) = export(cluster.balanced_channel(), source, lifetime).await;
    result.unwrap();

    let streams = cluster.streams();
    assert_eq!(streams.len(), 20);
    assert!(
        streams
            .iter()
            .all(|s| s.ids.len() == 100 && s.end.is_none())
    );
    let servers = check_exactly_once(&streams, 2000, 100);
    assert!(servers > 1, "every stream went to one server");
    let stats: RotationStats = rotation.stats();
    assert_eq!((stats.streams, stats.accepted, stats.resent), (20, 2000, 0));
    assert!(rotation.is_finished());
}

#[tokio::test]
async fn server_backstop_cuts_streams_and_the_client_resends_the_unread_rest() {
    // The servers read 70 messages per stream, the client sends up to 100: each cut leaves
    // messages in flight that only the accepted count tells apart.
    let cluster = Cluster::start(StreamLifetime::unlimited().max_messages(70), true).await;
    let source = tokio_stream::iter((0..2000).map(item));
    let lifetime = StreamLifetime::unlimited().max_messages(100);
    let (result, rotation) = export(cluster.balanced_channel(), source, lifetime).await;
    result.unwrap();

    let streams = cluster.streams();
    let servers = check_exactly_once(&streams, 2000, 70);
    assert!(servers > 1, "every stream went to one server");
    // 2000 = 28 × 70 + 40: every stream but the last was cut by the server.
    assert_eq!(streams.len(), 29);
    let cut = streams
        .iter()
        .filter(|s| s.end == Some(LifetimeEnd::Messages));
    assert!(cut.count() >= 28);
    let stats = rotation.stats();
    eprintln!("{stats:?}");
    assert_eq!((stats.streams, stats.accepted), (29, 2000));
    assert!(
        stats.resent > 0,
        "no message was in flight at a cut: {stats:?}"
    );
}

#[tokio::test]
async fn server_age_ends_streams_of_a_slow_client() {
    // 300 messages over ~100 ms; the servers end each stream after 25 ms.
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    let producer = tokio::spawn(async move {
        for id in 0..300 {
            tx.send(item(id)).await.unwrap();
            if id % 10 == 9 {
                tokio::time::sleep(Duration::from_millis(3)).await;
            }
        }
    });
    let server_lifetime = StreamLifetime::unlimited().max_age(Duration::from_millis(25));
    let cluster = Cluster::start(server_lifetime, true).await;
    let source = tokio_stream::wrappers::ReceiverStream::new(rx);
    let (result, rotation) = export(
        cluster.balanced_channel(),
        source,
        StreamLifetime::unlimited(),
    )
    .await;
    result.unwrap();
    producer.await.unwrap();

    let streams = cluster.streams();
    check_exactly_once(&streams, 300, 300);
    assert!(streams.len() >= 2, "{} streams", streams.len());
    assert!(streams.iter().any(|s| s.end == Some(LifetimeEnd::Age)));
    assert_eq!(rotation.stats().accepted, 300);
}

#[tokio::test]
async fn an_unstamped_early_answer_fails_instead_of_losing_messages() {
    // A server that stops at 50 but forgets `respond`: the client cannot know what was read.
    let cluster = Cluster::start(StreamLifetime::unlimited().max_messages(50), false).await;
    let source = tokio_stream::iter((0..500).map(item));
    let lifetime = StreamLifetime::unlimited().max_messages(100);
    let (result, rotation) = export(cluster.balanced_channel(), source, lifetime).await;
    let err = result.unwrap_err();
    assert_eq!(err.code(), Code::Internal, "{err:?}");
    assert!(err.message().contains("qdf-accepted"), "{err:?}");
    // Nothing acknowledged; what the first stream carried is kept for a later `run`.
    assert_eq!(rotation.stats().accepted, 0);
    assert!(rotation.pending() >= 50, "{}", rotation.pending());
    assert_eq!(cluster.streams().len(), 1);
}
