//! Client side of a [`StreamLifetime`]: one logical export split into successive RPCs.
//!
//! gRPC client streaming gives the client no per-message acknowledgement: messages that
//! tonic took from the request stream may sit in HTTP/2 buffers when the server stops
//! reading. A [`Rotation`] therefore keeps a clone of every message of the current RPC
//! until the response accounts for it. The response's [`ACCEPTED_HEADER`] says how many
//! the server read (all of them when the client closed the stream itself and the server
//! drained it); the rest go first on the next RPC, in their order.
//!
//! ```text
//! source ──▶ [resend queue] ──▶ RPC 1: m0 … m99   ◀── OK, qdf-accepted: 100
//!                             ──▶ RPC 2: m100 … m199 ◀── OK, qdf-accepted: 70 (server backstop)
//!                             ──▶ RPC 3: m170 … m269 (m170 … m199 resent first)
//! ```

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use futures_core::Stream;
use tokio::time::Sleep;
use tonic::{Response, Status};

use crate::lifetime::{ACCEPTED_HEADER, LifetimeEnd, StreamLifetime, accepted_in};

/// Streams in a row that may end with no message accepted before [`Rotation::run`] gives
/// up: a server that reads nothing would otherwise be called forever.
const MAX_STALLED_STREAMS: u32 = 3;

/// Why the client's request stream of one RPC ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Close {
    /// The client's lifetime was reached.
    Lifetime(LifetimeEnd),
    /// The source ended.
    SourceEnded,
}

/// State shared by a [`Rotation`] and the request stream of its current RPC.
struct Shared<T> {
    /// Messages not yet taken; `None` once it ended.
    source: Option<Pin<Box<dyn Stream<Item = T> + Send>>>,
    /// Messages to send before the source's next: those the server did not accept.
    queue: VecDeque<T>,
    /// Clones of the messages the current RPC's stream yielded, in order.
    in_flight: Vec<T>,
    /// Bytes of `in_flight` by the lifetime's size function.
    bytes: u64,
    /// Number of the current RPC's stream; a stream of an older RPC yields nothing.
    generation: u64,
    /// Whether the current stream may still yield.
    open: bool,
    /// Why the current stream ended, if it did.
    closed: Option<Close>,
}

fn lock<T>(shared: &Mutex<Shared<T>>) -> MutexGuard<'_, Shared<T>> {
    // The state is plain data; a panic in a size function must not wedge the rotation.
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

/// Counters of a [`Rotation`] since it was built.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RotationStats {
    /// RPCs that ended (with a response or an error).
    pub streams: u64,
    /// Messages the servers accepted.
    pub accepted: u64,
    /// Messages sent on an RPC whose server did not accept them, queued to be sent again.
    pub resent: u64,
}

/// Sends one long stream of messages as successive client-streaming RPCs, each at most
/// one [`StreamLifetime`] long, with no message lost or sent twice across the cuts.
///
/// Each RPC is a new call on the client's channel: a balanced channel
/// (`Channel::balance_list`) picks a backend for each, and each gets fresh Dense sessions.
/// The server side should wrap its request stream in a [`LifetimeStream`] and answer with
/// [`LifetimeStream::respond`] (see [`ACCEPTED_HEADER`]).
///
/// [`LifetimeStream`]: crate::LifetimeStream
/// [`LifetimeStream::respond`]: crate::LifetimeStream::respond
///
/// ```no_run
/// # use std::time::Duration;
/// # #[derive(Clone, serde::Serialize)] struct Batch;
/// # #[derive(serde::Deserialize)] struct Summary;
/// # #[derive(Clone)] struct ExportClient;
/// # impl ExportClient {
/// #     async fn export(&mut self, _: qdf_tonic::RotatingStream<Batch>)
/// #         -> Result<tonic::Response<Summary>, tonic::Status> { unimplemented!() }
/// # }
/// # async fn demo(client: ExportClient, batches: tokio_stream::Iter<std::vec::IntoIter<Batch>>)
/// #     -> Result<(), tonic::Status> {
/// use qdf_tonic::{Rotation, StreamLifetime};
///
/// let lifetime = StreamLifetime::unlimited()
///     .max_messages(10_000)
///     .max_age(Duration::from_secs(300));
/// let mut rotation = Rotation::new(batches, lifetime);
/// rotation
///     .run(|stream| {
///         let mut client = client.clone(); // generated client over a (balanced) Channel
///         async move { client.export(stream).await }
///     })
///     .await?;
/// println!("{:?}", rotation.stats());
/// # Ok(()) }
/// ```
///
/// # Semantics
///
/// - A stream is opened only when there is a message to send, so an idle source holds no
///   RPC open; the stream ends when the lifetime is reached (checked before each message,
///   and by a timer for the age) or the source ends.
/// - The response's [`ACCEPTED_HEADER`] count `n` acknowledges the first `n` messages of
///   the RPC; the others are sent again first on the next RPC. A count that is not a
///   number or exceeds what was sent, and a response without the header, are refused:
///   [`run`](Self::run) returns an `internal` status and keeps the messages queued (the
///   client cannot tell how many messages a server that stopped reading early had read).
///   For servers that always read their stream to the end and do not stamp the count,
///   [`trust_unstamped`](Self::trust_unstamped) lets such a response acknowledge a stream
///   the client closed itself.
/// - When an RPC fails, [`run`](Self::run) returns its status. The messages of that RPC
///   past the count in the status metadata (if the server stamped it) stay queued: a
///   later `run` sends them again first, then carries on with the source. A server that
///   processed some of them before failing without saying so receives those twice; a
///   clean rotation never duplicates.
/// - Three RPCs in a row that accept nothing end [`run`](Self::run) with `aborted`.
///
/// Memory: the clones of the current RPC's messages, so at most `max_messages` messages
/// or about `max_bytes` bytes. A lifetime bounded by age alone keeps every message of up
/// to `max_age`; set a message or byte bound too.
///
/// Messages must be `Clone` (a copy is kept until acknowledged). The request streams need
/// a Tokio runtime with time enabled when the lifetime has an age bound. Each finished RPC
/// emits a `tracing` event (target `qdf_tonic::rotation`, level debug) with its counts.
pub struct Rotation<T> {
    shared: Arc<Mutex<Shared<T>>>,
    lifetime: StreamLifetime<T>,
    stats: RotationStats,
    stalled: u32,
    trust_unstamped: bool,
}

impl<T> Rotation<T>
where
    T: Clone + Send + Sync + 'static,
{
    /// A rotation that will send the messages of `source` in streams of at most `lifetime`.
    pub fn new<S>(source: S, lifetime: StreamLifetime<T>) -> Self
    where
        S: Stream<Item = T> + Send + 'static,
    {
        let shared = Shared {
            source: Some(Box::pin(source)),
            queue: VecDeque::new(),
            in_flight: Vec::new(),
            bytes: 0,
            generation: 0,
            open: false,
            closed: None,
        };
        Rotation {
            shared: Arc::new(Mutex::new(shared)),
            lifetime,
            stats: RotationStats::default(),
            stalled: 0,
            trust_unstamped: false,
        }
    }

    /// With `true`, an `OK` response without the [`ACCEPTED_HEADER`] acknowledges every
    /// message of a stream that the client closed itself (its lifetime was reached or the
    /// source ended): for servers that read every request stream to the end, such as a
    /// handler draining a plain `Streaming` without a [`LifetimeStream`].
    ///
    /// Off by default: a server that stops reading early and answers without the count
    /// would otherwise lose the messages it did not read, silently. A response that arrives
    /// while the client is still sending is refused either way.
    ///
    /// [`LifetimeStream`]: crate::LifetimeStream
    pub fn trust_unstamped(mut self, trust: bool) -> Self {
        self.trust_unstamped = trust;
        self
    }

    /// Sends everything: calls `call` with the request stream of each RPC (pass it to the
    /// generated client method) until the source ended and every message was accepted.
    ///
    /// Returns the first failed RPC's status (see the type's docs for what stays queued);
    /// calling `run` again resumes. `call` receives a stream of the rotation's messages and
    /// returns the method's response; the response message itself is left to `call`.
    pub async fn run<F, Fut, R>(&mut self, mut call: F) -> Result<(), Status>
    where
        F: FnMut(RotatingStream<T>) -> Fut,
        Fut: Future<Output = Result<Response<R>, Status>>,
    {
        loop {
            if !self.next_to_send().await {
                return Ok(());
            }
            let stream = self.open();
            let result = call(stream).await;
            self.settle(result)?;
        }
    }

    /// Counters since the rotation was built.
    pub fn stats(&self) -> RotationStats {
        self.stats
    }

    /// Messages taken from the source and not yet accepted (queued to be sent again).
    pub fn pending(&self) -> usize {
        let shared = lock(&self.shared);
        shared.queue.len() + shared.in_flight.len()
    }

    /// `true` once the source ended and every message was accepted.
    pub fn is_finished(&self) -> bool {
        let shared = lock(&self.shared);
        shared.source.is_none() && shared.queue.is_empty() && shared.in_flight.is_empty()
    }

    /// Waits until a message is queued (taking one from the source if need be); `false`
    /// when the source ended and nothing is queued.
    async fn next_to_send(&self) -> bool {
        std::future::poll_fn(|cx| {
            let mut shared = lock(&self.shared);
            if !shared.queue.is_empty() {
                return Poll::Ready(true);
            }
            let Some(source) = shared.source.as_mut() else {
                return Poll::Ready(false);
            };
            match source.as_mut().poll_next(cx) {
                Poll::Ready(Some(item)) => {
                    shared.queue.push_back(item);
                    Poll::Ready(true)
                }
                Poll::Ready(None) => {
                    shared.source = None;
                    Poll::Ready(false)
                }
                Poll::Pending => Poll::Pending,
            }
        })
        .await
    }

    /// Starts the next RPC's request stream.
    fn open(&self) -> RotatingStream<T> {
        let mut shared = lock(&self.shared);
        shared.generation += 1;
        shared.open = true;
        shared.closed = None;
        shared.bytes = 0;
        debug_assert!(shared.in_flight.is_empty());
        RotatingStream {
            shared: Arc::clone(&self.shared),
            generation: shared.generation,
            lifetime: self.lifetime,
            deadline: self.lifetime.deadline(),
        }
    }

    /// Accounts for a finished RPC: acknowledges what the server accepted and queues the
    /// rest in front of the queue.
    fn settle<R>(&mut self, result: Result<Response<R>, Status>) -> Result<(), Status> {
        let mut shared = lock(&self.shared);
        // Invalidate the stream: hyper may still hold and poll it after the response.
        shared.open = false;
        let closed = shared.closed.take();
        let in_flight = std::mem::take(&mut shared.in_flight);
        let sent = in_flight.len() as u64;

        let verdict = match &result {
            Ok(response) => match accepted_in(response.metadata()) {
                Some(Ok(n)) if n <= sent => Ok(n),
                Some(Ok(n)) => Err(Status::internal(format!(
                    "qdf-tonic rotation: the server acknowledged {n} messages \
                     ({ACCEPTED_HEADER}) of a stream that carried {sent}"
                ))),
                Some(Err(())) => Err(Status::internal(format!(
                    "qdf-tonic rotation: the server's {ACCEPTED_HEADER} metadata is not a count"
                ))),
                None if closed.is_some() && self.trust_unstamped => Ok(sent),
                None if closed.is_some() => Err(Status::internal(format!(
                    "qdf-tonic rotation: the server's response does not say how many of the \
                     {sent} messages it read ({ACCEPTED_HEADER}); see Rotation::trust_unstamped"
                ))),
                None => Err(Status::internal(format!(
                    "qdf-tonic rotation: the server answered while the stream was still open, \
                     after {sent} messages, and did not say how many it read ({ACCEPTED_HEADER})"
                ))),
            },
            // An error: what the server stamped, if it is a valid count, else nothing.
            Err(status) => match accepted_in(status.metadata()) {
                Some(Ok(n)) if n <= sent => Ok(n),
                _ => Ok(0),
            },
        };
        let accepted = *verdict.as_ref().unwrap_or(&0);
        // usize: `accepted <= sent = in_flight.len()`.
        let resend = in_flight.into_iter().skip(accepted as usize);
        let requeued = sent - accepted;
        for item in resend.rev() {
            shared.queue.push_front(item);
        }
        drop(shared);

        self.stats.streams += 1;
        self.stats.accepted += accepted;
        self.stats.resent += requeued;
        tracing::debug!(
            target: "qdf_tonic::rotation",
            stream = self.stats.streams,
            sent,
            accepted,
            requeued,
            closed_by = ?closed,
            ok = result.is_ok(),
            "qdf-tonic: client stream ended; the next one starts new sessions"
        );

        verdict?;
        result?;
        if accepted == 0 {
            self.stalled += 1;
            if self.stalled >= MAX_STALLED_STREAMS {
                self.stalled = 0;
                return Err(Status::aborted(format!(
                    "qdf-tonic rotation: {MAX_STALLED_STREAMS} streams in a row ended with \
                     no message accepted"
                )));
            }
        } else {
            self.stalled = 0;
        }
        Ok(())
    }
}

impl<T> fmt::Debug for Rotation<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rotation")
            .field("lifetime", &self.lifetime)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

/// The request stream of one RPC of a [`Rotation`]: resent messages first, then the
/// source's, until the lifetime is reached or the source ends. Pass it to the generated
/// client method (it implements `IntoStreamingRequest`).
///
/// Once its RPC has finished it yields nothing more, even if the transport still polls it.
pub struct RotatingStream<T> {
    shared: Arc<Mutex<Shared<T>>>,
    generation: u64,
    lifetime: StreamLifetime<T>,
    deadline: Option<Pin<Box<Sleep>>>,
}

impl<T: Clone> Stream for RotatingStream<T> {
    type Item = T;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let this = self.get_mut();
        let mut shared = lock(&this.shared);
        if shared.generation != this.generation || !shared.open {
            return Poll::Ready(None);
        }
        let messages = shared.in_flight.len() as u64;
        let mut end = this.lifetime.count_end(messages, shared.bytes);
        // The age counts only once the stream carries a message (it opens with one queued).
        if end.is_none()
            && messages > 0
            && let Some(deadline) = &mut this.deadline
            && deadline.as_mut().poll(cx).is_ready()
        {
            end = Some(LifetimeEnd::Age);
        }
        if let Some(end) = end {
            shared.open = false;
            shared.closed = Some(Close::Lifetime(end));
            return Poll::Ready(None);
        }
        let item = match shared.queue.pop_front() {
            Some(item) => item,
            None => {
                let Some(source) = shared.source.as_mut() else {
                    shared.open = false;
                    shared.closed = Some(Close::SourceEnded);
                    return Poll::Ready(None);
                };
                match source.as_mut().poll_next(cx) {
                    Poll::Ready(Some(item)) => item,
                    Poll::Ready(None) => {
                        shared.source = None;
                        shared.open = false;
                        shared.closed = Some(Close::SourceEnded);
                        return Poll::Ready(None);
                    }
                    Poll::Pending => return Poll::Pending,
                }
            }
        };
        let size = this.lifetime.size_of(&item);
        shared.bytes = shared.bytes.saturating_add(size);
        shared.in_flight.push(item.clone());
        Poll::Ready(Some(item))
    }
}

impl<T> fmt::Debug for RotatingStream<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RotatingStream")
            .field("generation", &self.generation)
            .field("lifetime", &self.lifetime)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_stream::StreamExt;
    use tonic::metadata::MetadataValue;

    /// What a fake server puts in the accepted header.
    #[derive(Copy, Clone)]
    enum Ack {
        /// The number of messages it read, as `LifetimeStream::respond` does.
        Read,
        /// This number.
        Count(u64),
        /// No header.
        Missing,
    }

    /// What one fake RPC does with its request stream: read `read` messages (or to the
    /// end), then answer `OK` with `ack`.
    #[derive(Copy, Clone)]
    struct Fake {
        read: usize,
        ack: Ack,
    }

    const DRAIN: Fake = Fake {
        read: usize::MAX,
        ack: Ack::Read,
    };

    /// Runs `rotation` against fake servers (one `Fake` per RPC, the last repeating);
    /// returns the messages each RPC read.
    async fn drive(
        rotation: &mut Rotation<u32>,
        script: &[Fake],
    ) -> (Result<(), Status>, Vec<Vec<u32>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut n = 0;
        let result = rotation
            .run(|mut stream| {
                let step = script[n.min(script.len() - 1)];
                n += 1;
                let seen = Arc::clone(&seen);
                async move {
                    let mut got = Vec::new();
                    while got.len() < step.read {
                        match stream.next().await {
                            Some(m) => got.push(m),
                            None => break,
                        }
                    }
                    let mut response = Response::new(());
                    let ack = match step.ack {
                        Ack::Read => Some(got.len() as u64),
                        Ack::Count(n) => Some(n),
                        Ack::Missing => None,
                    };
                    seen.lock().unwrap().push(got);
                    if let Some(ack) = ack {
                        response
                            .metadata_mut()
                            .insert(ACCEPTED_HEADER, MetadataValue::from(ack));
                    }
                    Ok(response)
                }
            })
            .await;
        let seen = std::mem::take(&mut *seen.lock().unwrap());
        (result, seen)
    }

    fn source(n: u32) -> tokio_stream::Iter<std::ops::Range<u32>> {
        tokio_stream::iter(0..n)
    }

    #[tokio::test]
    async fn client_lifetime_cuts_streams_without_resends() {
        let lifetime = StreamLifetime::unlimited().max_messages(4);
        let mut rotation = Rotation::new(source(10), lifetime);
        let (result, seen) = drive(&mut rotation, &[DRAIN]).await;
        result.unwrap();
        assert_eq!(seen, [vec![0, 1, 2, 3], vec![4, 5, 6, 7], vec![8, 9]]);
        let stats = rotation.stats();
        assert_eq!((stats.streams, stats.accepted, stats.resent), (3, 10, 0));
        assert!(rotation.is_finished());
    }

    #[tokio::test]
    async fn unacknowledged_messages_go_first_on_the_next_stream() {
        let lifetime = StreamLifetime::unlimited().max_messages(5);
        let mut rotation = Rotation::new(source(12), lifetime);
        // Reads 5, acknowledges 3: messages 3 and 4 are resent.
        let script = [
            Fake {
                read: 5,
                ack: Ack::Count(3),
            },
            DRAIN,
        ];
        let (result, seen) = drive(&mut rotation, &script).await;
        result.unwrap();
        assert_eq!(
            seen,
            [vec![0, 1, 2, 3, 4], vec![3, 4, 5, 6, 7], vec![8, 9, 10, 11],]
        );
        let accepted: Vec<u32> = [&seen[0][..3], &seen[1][..], &seen[2][..]].concat();
        assert_eq!(accepted, (0..12).collect::<Vec<_>>());
        let stats = rotation.stats();
        assert_eq!((stats.streams, stats.accepted, stats.resent), (3, 12, 2));
    }

    #[tokio::test]
    async fn a_response_without_a_count_is_refused_unless_trusted() {
        let lifetime = StreamLifetime::unlimited().max_messages(4);
        let unstamped = Fake {
            read: usize::MAX,
            ack: Ack::Missing,
        };
        let mut strict = Rotation::new(source(6), lifetime);
        let (result, seen) = drive(&mut strict, &[unstamped]).await;
        let err = result.unwrap_err();
        assert_eq!(err.code(), tonic::Code::Internal, "{err:?}");
        assert!(err.message().contains("trust_unstamped"), "{err:?}");
        assert_eq!(seen, [vec![0, 1, 2, 3]]);
        assert_eq!((strict.pending(), strict.stats().accepted), (4, 0));

        let mut trusting = Rotation::new(source(6), lifetime).trust_unstamped(true);
        let (result, seen) = drive(&mut trusting, &[unstamped]).await;
        result.unwrap();
        assert_eq!(seen, [vec![0, 1, 2, 3], vec![4, 5]]);
        assert_eq!(trusting.stats().accepted, 6);
    }

    #[tokio::test]
    async fn early_answer_without_a_count_is_refused_and_keeps_the_messages() {
        let lifetime = StreamLifetime::unlimited().max_messages(5);
        let mut rotation = Rotation::new(source(8), lifetime).trust_unstamped(true);
        let early = Fake {
            read: 2,
            ack: Ack::Missing,
        };
        let (result, seen) = drive(&mut rotation, &[early]).await;
        let err = result.unwrap_err();
        assert_eq!(err.code(), tonic::Code::Internal, "{err:?}");
        assert!(err.message().contains(ACCEPTED_HEADER), "{err:?}");
        assert_eq!(seen, [vec![0, 1]]);
        // Nothing was acknowledged: both read messages are queued, the rest is in the source.
        assert_eq!(rotation.pending(), 2);
        assert_eq!(rotation.stats().accepted, 0);

        // Resuming with a well-behaved server delivers everything once, in order.
        let (result, seen) = drive(&mut rotation, &[DRAIN]).await;
        result.unwrap();
        assert_eq!(seen, [vec![0, 1, 2, 3, 4], vec![5, 6, 7]]);
        assert!(rotation.is_finished());
    }

    #[tokio::test]
    async fn a_count_above_what_was_sent_is_refused() {
        let lifetime = StreamLifetime::unlimited().max_messages(3);
        let mut rotation = Rotation::new(source(3), lifetime);
        let liar = Fake {
            read: usize::MAX,
            ack: Ack::Count(4),
        };
        let (result, _) = drive(&mut rotation, &[liar]).await;
        let err = result.unwrap_err();
        assert_eq!(err.code(), tonic::Code::Internal);
        assert!(err.message().contains("acknowledged 4"), "{err:?}");
        assert_eq!(rotation.pending(), 3);
    }

    #[tokio::test]
    async fn servers_that_accept_nothing_end_the_run() {
        let mut rotation = Rotation::new(source(3), StreamLifetime::unlimited());
        let none = Fake {
            read: 1,
            ack: Ack::Count(0),
        };
        let (result, seen) = drive(&mut rotation, &[none]).await;
        assert_eq!(result.unwrap_err().code(), tonic::Code::Aborted);
        assert_eq!(seen, [vec![0], vec![0], vec![0]]);
        assert_eq!(rotation.stats().streams, 3);
        assert_eq!(rotation.pending(), 1);
    }

    #[tokio::test]
    async fn a_failed_rpc_keeps_what_its_status_did_not_acknowledge() {
        let mut rotation =
            Rotation::new(source(6), StreamLifetime::unlimited()).trust_unstamped(true);
        let mut calls = 0;
        let result = rotation
            .run(|mut stream| {
                calls += 1;
                async move {
                    for _ in 0..4 {
                        stream.next().await;
                    }
                    let mut status = Status::unavailable("backend going away");
                    status
                        .metadata_mut()
                        .insert(ACCEPTED_HEADER, MetadataValue::from(1u64));
                    Err::<Response<()>, _>(status)
                }
            })
            .await;
        assert_eq!(result.unwrap_err().code(), tonic::Code::Unavailable);
        assert_eq!(calls, 1);
        // 4 sent, 1 acknowledged: 3 queued.
        assert_eq!(rotation.pending(), 3);
        let stats = rotation.stats();
        assert_eq!((stats.accepted, stats.resent), (1, 3));
        let rest = Arc::new(Mutex::new(Vec::new()));
        rotation
            .run(|mut stream| {
                let out = Arc::clone(&rest);
                async move {
                    while let Some(m) = stream.next().await {
                        out.lock().unwrap().push(m);
                    }
                    Ok(Response::new(()))
                }
            })
            .await
            .unwrap();
        assert_eq!(*rest.lock().unwrap(), [1, 2, 3, 4, 5]);
    }

    #[tokio::test]
    async fn a_stale_stream_yields_nothing() {
        let mut rotation =
            Rotation::new(source(4), StreamLifetime::unlimited()).trust_unstamped(true);
        let kept: Arc<Mutex<Option<RotatingStream<u32>>>> = Arc::default();
        let keep = Arc::clone(&kept);
        let mut first = true;
        let rest = Arc::new(Mutex::new(Vec::new()));
        rotation
            .run(|mut stream| {
                let was_first = std::mem::replace(&mut first, false);
                let keep = Arc::clone(&keep);
                let out = Arc::clone(&rest);
                async move {
                    if was_first {
                        // Read one, acknowledge it and keep the stream past the response.
                        assert_eq!(stream.next().await, Some(0));
                        *keep.lock().unwrap() = Some(stream);
                        let mut response = Response::new(());
                        response
                            .metadata_mut()
                            .insert(ACCEPTED_HEADER, MetadataValue::from(1u64));
                        return Ok(response);
                    }
                    while let Some(m) = stream.next().await {
                        out.lock().unwrap().push(m);
                    }
                    Ok(Response::new(()))
                }
            })
            .await
            .unwrap();
        assert_eq!(*rest.lock().unwrap(), [1, 2, 3]);
        let mut stale = kept.lock().unwrap().take().unwrap();
        assert_eq!(stale.next().await, None);
        assert!(rotation.is_finished());
    }

    #[tokio::test]
    async fn age_ends_an_idle_stream() {
        // One message, then the source idles: the age bound closes the stream.
        let (tx, rx) = tokio::sync::mpsc::channel::<u32>(4);
        tx.send(7).await.unwrap();
        let lifetime = StreamLifetime::unlimited().max_age(std::time::Duration::from_millis(20));
        let source = tokio_stream::wrappers::ReceiverStream::new(rx);
        let mut rotation = Rotation::new(source, lifetime).trust_unstamped(true);
        let mut tx = Some(tx);
        let streams = Arc::new(Mutex::new(Vec::new()));
        rotation
            .run(|mut stream| {
                let tx = tx.take();
                let out = Arc::clone(&streams);
                async move {
                    let mut got = Vec::new();
                    while let Some(m) = stream.next().await {
                        got.push(m);
                    }
                    out.lock().unwrap().push(got);
                    // The first stream ended by age: one more message, then the source ends.
                    if let Some(tx) = tx {
                        tx.send(8).await.unwrap();
                    }
                    Ok(Response::new(()))
                }
            })
            .await
            .unwrap();
        assert_eq!(*streams.lock().unwrap(), [vec![7], vec![8]]);
    }

    /// Records the `accepted` and `requeued` fields of every event of one target.
    struct Events {
        target: &'static str,
        seen: Arc<Mutex<Vec<(u64, u64)>>>,
    }

    #[derive(Default)]
    struct Fields(u64, u64);

    impl tracing::field::Visit for Fields {
        fn record_u64(&mut self, field: &tracing::field::Field, value: u64) {
            match field.name() {
                "accepted" => self.0 = value,
                "requeued" => self.1 = value,
                _ => {}
            }
        }

        fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn fmt::Debug) {}
    }

    impl tracing::Subscriber for Events {
        fn enabled(&self, meta: &tracing::Metadata<'_>) -> bool {
            meta.target() == self.target
        }
        fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            tracing::span::Id::from_u64(1)
        }
        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
        fn event(&self, event: &tracing::Event<'_>) {
            let mut fields = Fields::default();
            event.record(&mut fields);
            self.seen.lock().unwrap().push((fields.0, fields.1));
        }
        fn enter(&self, _: &tracing::span::Id) {}
        fn exit(&self, _: &tracing::span::Id) {}
    }

    #[tokio::test]
    async fn every_finished_stream_emits_a_rotation_event() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let subscriber = Events {
            target: "qdf_tonic::rotation",
            seen: Arc::clone(&seen),
        };
        // `#[tokio::test]` runs on the current thread, where the default is set.
        let _guard = tracing::subscriber::set_default(subscriber);
        let lifetime = StreamLifetime::unlimited().max_messages(5);
        let mut rotation = Rotation::new(source(12), lifetime);
        let cut = Fake {
            read: 5,
            ack: Ack::Count(3),
        };
        let (result, _) = drive(&mut rotation, &[cut, DRAIN]).await;
        result.unwrap();
        // (accepted, requeued) per stream: 3 of 5, then 5 of 5, then the last 4.
        assert_eq!(*seen.lock().unwrap(), [(3, 2), (5, 0), (4, 0)]);
    }
}
