//! Stream lifetime: ending long-lived client streams so that they rebalance.
//!
//! A client stream (`Export(stream Batch) returns Summary`) that lives for hours stays on
//! the backend it was first balanced to, however many backends are added later, and its
//! Dense sessions keep the tables of hours ago. A [`StreamLifetime`] bounds one stream by
//! messages, bytes and age. Both sides enforce it:
//!
//! - the client ([`Rotation`](crate::Rotation)) closes its stream once the lifetime is
//!   reached, awaits the response and opens the next stream on the same channel, which
//!   balances it anew;
//! - the server ([`LifetimeStream`]) is the backstop for clients that do not rotate: it
//!   stops reading at its own lifetime and the handler answers `OK` as usual, with the
//!   number of messages it read in the [`ACCEPTED_HEADER`] response metadata
//!   ([`LifetimeStream::respond`]). The client resends the messages past that count on
//!   the next stream, so none is lost or delivered twice.
//!
//! Each new RPC starts fresh Dense sessions both ways (tonic builds one codec per call).

use std::fmt;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;
use qdf_core::Options;
use serde::Serialize;
use tokio::time::{Instant, Sleep};
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::{Response, Status, Streaming};

/// Response metadata key under which a server states how many messages of the client
/// stream it read and accepted, as decimal ASCII (`qdf-accepted: 100`).
///
/// Set by [`LifetimeStream::respond`] / [`LifetimeStream::stamp`], read by
/// [`Rotation`](crate::Rotation). The messages a client sent past this count were not
/// processed and are resent on the next stream.
pub const ACCEPTED_HEADER: &str = "qdf-accepted";

/// Measures one message for [`StreamLifetime::max_bytes`].
type SizeFn<T> = fn(&T) -> u64;

/// The lifetime of one client stream: at most `max_messages` messages, `max_bytes` bytes
/// (as measured by a size function) and `max_age` of wall-clock time. Unset bounds do not
/// apply; [`StreamLifetime::unlimited`] (the default) never ends a stream.
///
/// `T` is the message type, named only by the size function of
/// [`max_bytes`](Self::max_bytes). The lifetime is reached when any bound is; the message
/// that reaches a count bound is still part of the stream (a stream carries at least one
/// message before a message or byte bound ends it).
///
/// ```
/// use std::time::Duration;
/// use qdf_tonic::{StreamLifetime, encoded_len};
///
/// #[derive(serde::Serialize)]
/// struct Batch { records: Vec<String> }
///
/// // At most 10 000 batches, 64 MiB of (self-contained qdf) batch bytes or 5 minutes.
/// let lifetime = StreamLifetime::<Batch>::unlimited()
///     .max_messages(10_000)
///     .max_bytes(64 << 20, encoded_len::<Batch>)
///     .max_age(Duration::from_secs(300));
/// assert_eq!(lifetime.message_cap(), Some(10_000));
/// assert_eq!(lifetime.byte_cap(), Some(64 << 20));
/// assert!(StreamLifetime::<Batch>::unlimited().is_unlimited());
/// ```
pub struct StreamLifetime<T> {
    max_messages: Option<u64>,
    max_bytes: Option<(u64, SizeFn<T>)>,
    max_age: Option<Duration>,
}

impl<T> StreamLifetime<T> {
    /// No bound: the stream lives until the client ends it.
    pub const fn unlimited() -> Self {
        StreamLifetime {
            max_messages: None,
            max_bytes: None,
            max_age: None,
        }
    }

    /// Ends the stream after `n` messages (`0` acts as `1`: a stream carries at least one).
    pub const fn max_messages(mut self, n: u64) -> Self {
        self.max_messages = Some(n);
        self
    }

    /// Ends the stream once the sizes of its messages add up to `n` bytes or more, each
    /// message measured by `size` (for example [`encoded_len`], or a cheap estimate such as
    /// a record count times an average). The message that crosses `n` is still sent.
    pub const fn max_bytes(mut self, n: u64, size: fn(&T) -> u64) -> Self {
        self.max_bytes = Some((n, size));
        self
    }

    /// Ends the stream `age` after it started, also while it is idle.
    pub const fn max_age(mut self, age: Duration) -> Self {
        self.max_age = Some(age);
        self
    }

    /// The message bound, if any.
    pub const fn message_cap(&self) -> Option<u64> {
        self.max_messages
    }

    /// The byte bound, if any.
    pub fn byte_cap(&self) -> Option<u64> {
        self.max_bytes.map(|(n, _)| n)
    }

    /// The age bound, if any.
    pub const fn age_cap(&self) -> Option<Duration> {
        self.max_age
    }

    /// `true` when no bound is set.
    pub const fn is_unlimited(&self) -> bool {
        self.max_messages.is_none() && self.max_bytes.is_none() && self.max_age.is_none()
    }

    /// The size of `item` for the byte bound; 0 without one (nothing to count).
    pub(crate) fn size_of(&self, item: &T) -> u64 {
        self.max_bytes.map_or(0, |(_, size)| size(item))
    }

    /// Which count bound (messages, bytes) `messages` messages of `bytes` bytes reach.
    pub(crate) fn count_end(&self, messages: u64, bytes: u64) -> Option<LifetimeEnd> {
        if messages == 0 {
            return None;
        }
        if self.max_messages.is_some_and(|max| messages >= max) {
            return Some(LifetimeEnd::Messages);
        }
        if self.max_bytes.is_some_and(|(max, _)| bytes >= max) {
            return Some(LifetimeEnd::Bytes);
        }
        None
    }

    /// A timer for the age bound, started now. Needs a Tokio runtime with time enabled.
    pub(crate) fn deadline(&self) -> Option<Pin<Box<Sleep>>> {
        let age = self.max_age?;
        // A far-future age (Duration::MAX) would overflow Instant; such a stream never ages.
        let at = Instant::now().checked_add(age)?;
        Some(Box::pin(tokio::time::sleep_until(at)))
    }
}

impl<T> Default for StreamLifetime<T> {
    fn default() -> Self {
        Self::unlimited()
    }
}

impl<T> Clone for StreamLifetime<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for StreamLifetime<T> {}

impl<T> fmt::Debug for StreamLifetime<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamLifetime")
            .field("max_messages", &self.max_messages)
            .field("max_bytes", &self.byte_cap())
            .field("max_age", &self.max_age)
            .finish()
    }
}

/// The size of `item` as one self-contained qdf message of the Speed tier, in bytes: a
/// size function for [`StreamLifetime::max_bytes`].
///
/// It serializes `item` once more (into a counter, no allocation), so it costs about one
/// Speed encode per message; on a Dense stream the message usually travels in fewer bytes
/// (repeated strings are references), so this is an upper bound of what a stream carries.
/// A value qdf cannot encode measures 0 (the codec reports the error when it sends it).
pub fn encoded_len<T: Serialize>(item: &T) -> u64 {
    let mut counter = ByteCounter(0);
    match qdf_core::to_writer_with(&mut counter, item, Options::speed()) {
        Ok(()) => counter.0,
        Err(_) => 0,
    }
}

/// An `io::Write` that only counts.
struct ByteCounter(u64);

impl io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Which bound of a [`StreamLifetime`] ended a stream.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LifetimeEnd {
    /// The stream carried `max_messages` messages.
    Messages,
    /// Its messages added up to `max_bytes`.
    Bytes,
    /// It was `max_age` old.
    Age,
}

/// Server side of a [`StreamLifetime`]: yields the messages of a client stream until the
/// lifetime is reached, then ends as if the client had closed the stream.
///
/// Wrap the request stream in the handler, read it as usual, and answer with
/// [`respond`](Self::respond) so that the client learns how many messages were read:
///
/// ```no_run
/// # #[derive(serde::Deserialize)] struct Batch;
/// # #[derive(serde::Serialize, Default)] struct Summary { batches: u64 }
/// use qdf_tonic::{LifetimeStream, StreamLifetime};
/// use tonic::{Request, Response, Status, Streaming};
///
/// async fn export(req: Request<Streaming<Batch>>) -> Result<Response<Summary>, Status> {
///     let lifetime = StreamLifetime::unlimited().max_messages(10_000);
///     let mut batches = LifetimeStream::new(req.into_inner(), lifetime);
///     let mut summary = Summary::default();
///     while let Some(_batch) = batches.message().await? {
///         summary.batches += 1;
///     }
///     // `OK`, with `qdf-accepted: <batches read>` in the response metadata.
///     Ok(batches.respond(summary))
/// }
/// ```
///
/// When the lifetime ends the stream, the handler returns while the client may still be
/// sending; HTTP/2 then resets the request half with `NO_ERROR` (RFC 9113 §8.1) and the
/// client sees the `OK` response. The messages it sent past the accepted count were not
/// read: a [`Rotation`](crate::Rotation) resends them on its next stream, another client
/// learns the count from the [`ACCEPTED_HEADER`] metadata.
///
/// Count bounds are checked when the next message is asked for, so a handler that stops
/// reading after the last message it wants never pulls one more. The age bound needs a
/// Tokio runtime with time enabled (every tonic server has one) and ends the stream also
/// while no message arrives. A `tracing` event (target `qdf_tonic::lifetime`, level
/// debug) marks the end by lifetime. Errors of the inner stream pass through unchanged;
/// the stream ends after the first one.
pub struct LifetimeStream<T, S = Streaming<T>> {
    inner: S,
    lifetime: StreamLifetime<T>,
    accepted: u64,
    bytes: u64,
    deadline: Option<Pin<Box<Sleep>>>,
    end: Option<LifetimeEnd>,
    finished: bool,
}

impl<T, S> LifetimeStream<T, S>
where
    S: Stream<Item = Result<T, Status>> + Unpin,
{
    /// Wraps `inner` (the handler's `Streaming<T>`, or any stream of the same items); the
    /// age bound counts from now.
    pub fn new(inner: S, lifetime: StreamLifetime<T>) -> Self {
        LifetimeStream {
            inner,
            deadline: lifetime.deadline(),
            lifetime,
            accepted: 0,
            bytes: 0,
            end: None,
            finished: false,
        }
    }

    /// The next message, `None` at the end of the stream or of its lifetime; the same as
    /// `Streaming::message`.
    pub async fn message(&mut self) -> Result<Option<T>, Status> {
        match std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await {
            Some(Ok(item)) => Ok(Some(item)),
            Some(Err(status)) => Err(status),
            None => Ok(None),
        }
    }

    /// Messages yielded so far: what the handler read and the response will acknowledge.
    pub fn accepted(&self) -> u64 {
        self.accepted
    }

    /// Bytes of the messages yielded so far, by the lifetime's size function (0 without a
    /// byte bound).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Which bound ended the stream, `None` while it runs or when the client ended it.
    pub fn lifetime_end(&self) -> Option<LifetimeEnd> {
        self.end
    }

    /// A response carrying `message` and the [`ACCEPTED_HEADER`] metadata.
    pub fn respond<R>(&self, message: R) -> Response<R> {
        let mut response = Response::new(message);
        self.stamp(response.metadata_mut());
        response
    }

    /// Adds the [`ACCEPTED_HEADER`] entry to `metadata` (of a `Response`, or of a
    /// `Status` returned instead, so the client still learns what was read).
    pub fn stamp(&self, metadata: &mut MetadataMap) {
        metadata.insert(ACCEPTED_HEADER, MetadataValue::from(self.accepted));
    }

    /// The wrapped stream.
    pub fn into_inner(self) -> S {
        self.inner
    }

    fn end(&mut self, end: LifetimeEnd) {
        self.end = Some(end);
        tracing::debug!(
            target: "qdf_tonic::lifetime",
            reason = ?end,
            accepted = self.accepted,
            bytes = self.bytes,
            "stream lifetime reached: ending the client stream"
        );
    }
}

impl<T, S> Stream for LifetimeStream<T, S>
where
    S: Stream<Item = Result<T, Status>> + Unpin,
{
    type Item = Result<T, Status>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        // No field is structurally pinned (the timer is boxed), so `Self: Unpin`.
        let this = self.get_mut();
        if this.finished || this.end.is_some() {
            return Poll::Ready(None);
        }
        if let Some(end) = this.lifetime.count_end(this.accepted, this.bytes) {
            this.end(end);
            return Poll::Ready(None);
        }
        if let Some(deadline) = &mut this.deadline
            && deadline.as_mut().poll(cx).is_ready()
        {
            this.end(LifetimeEnd::Age);
            return Poll::Ready(None);
        }
        match Pin::new(&mut this.inner).poll_next(cx) {
            Poll::Ready(Some(Ok(item))) => {
                this.accepted += 1;
                this.bytes = this.bytes.saturating_add(this.lifetime.size_of(&item));
                Poll::Ready(Some(Ok(item)))
            }
            Poll::Ready(Some(Err(status))) => {
                this.finished = true;
                Poll::Ready(Some(Err(status)))
            }
            Poll::Ready(None) => {
                this.finished = true;
                Poll::Ready(None)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T, S: fmt::Debug> fmt::Debug for LifetimeStream<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LifetimeStream")
            .field("inner", &self.inner)
            .field("lifetime", &self.lifetime)
            .field("accepted", &self.accepted)
            .field("bytes", &self.bytes)
            .field("end", &self.end)
            .finish()
    }
}

/// The [`ACCEPTED_HEADER`] count in `metadata`: `None` when absent, `Some(Err(_))` when it
/// is not a decimal `u64`.
pub(crate) fn accepted_in(metadata: &MetadataMap) -> Option<Result<u64, ()>> {
    let value = metadata.get(ACCEPTED_HEADER)?;
    Some(
        value
            .to_str()
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .ok_or(()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_stream::StreamExt;

    fn items(n: u32) -> impl Stream<Item = Result<u32, Status>> + Unpin {
        tokio_stream::iter((0..n).map(Ok))
    }

    async fn read_all<S: Stream<Item = Result<u32, Status>> + Unpin>(
        s: &mut LifetimeStream<u32, S>,
    ) -> Vec<u32> {
        let mut out = Vec::new();
        while let Some(m) = s.message().await.unwrap() {
            out.push(m);
        }
        out
    }

    #[test]
    fn encoded_len_is_the_speed_message_size() {
        // docs/SPEC.md "gRPC framing": "api" is the 5-byte header and 0x83 'a' 'p' 'i'.
        assert_eq!(encoded_len(&"api"), 9);
        assert_eq!(
            encoded_len(&"api") as usize,
            qdf_core::to_vec_with(&"api", Options::speed())
                .unwrap()
                .len()
        );
    }

    #[tokio::test]
    async fn unlimited_passes_everything_through() {
        let mut s = LifetimeStream::new(items(5), StreamLifetime::unlimited());
        assert_eq!(read_all(&mut s).await, [0, 1, 2, 3, 4]);
        assert_eq!(s.accepted(), 5);
        assert_eq!(s.lifetime_end(), None);
    }

    #[tokio::test]
    async fn message_bound_ends_without_pulling_more() {
        let mut s = LifetimeStream::new(items(10), StreamLifetime::unlimited().max_messages(3));
        assert_eq!(read_all(&mut s).await, [0, 1, 2]);
        assert_eq!(s.lifetime_end(), Some(LifetimeEnd::Messages));
        assert_eq!(s.accepted(), 3);
        // The inner stream was not read past the bound.
        let mut inner = s.into_inner();
        assert_eq!(inner.next().await.unwrap().unwrap(), 3);
    }

    #[tokio::test]
    async fn zero_bounds_still_carry_one_message() {
        let mut s = LifetimeStream::new(items(4), StreamLifetime::unlimited().max_messages(0));
        assert_eq!(read_all(&mut s).await, [0]);
        let lifetime = StreamLifetime::unlimited().max_bytes(0, |_: &u32| 10);
        let mut s = LifetimeStream::new(items(4), lifetime);
        assert_eq!(read_all(&mut s).await, [0]);
        assert_eq!(s.lifetime_end(), Some(LifetimeEnd::Bytes));
    }

    #[tokio::test]
    async fn byte_bound_keeps_the_message_that_crosses_it() {
        // Sizes 0, 10, 20, 30, ...: 0 + 10 + 20 + 30 = 60 >= 50 after message 3.
        let lifetime = StreamLifetime::unlimited().max_bytes(50, |m: &u32| u64::from(*m) * 10);
        let mut s = LifetimeStream::new(items(10), lifetime);
        assert_eq!(read_all(&mut s).await, [0, 1, 2, 3]);
        assert_eq!(s.bytes(), 60);
        assert_eq!(s.lifetime_end(), Some(LifetimeEnd::Bytes));
    }

    #[tokio::test]
    async fn age_bound_ends_an_idle_stream() {
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        tx.send(Ok(1u32)).await.unwrap();
        let lifetime = StreamLifetime::unlimited().max_age(Duration::from_millis(20));
        let inner = tokio_stream::wrappers::ReceiverStream::new(rx);
        let mut s = LifetimeStream::new(inner, lifetime);
        // The sender stays open: only the timer can end the stream.
        assert_eq!(read_all(&mut s).await, [1]);
        assert_eq!(s.lifetime_end(), Some(LifetimeEnd::Age));
        drop(tx);
    }

    #[tokio::test]
    async fn a_huge_age_never_overflows() {
        let lifetime = StreamLifetime::unlimited().max_age(Duration::MAX);
        let mut s = LifetimeStream::new(items(2), lifetime);
        assert_eq!(read_all(&mut s).await, [0, 1]);
        assert_eq!(s.lifetime_end(), None);
    }

    #[tokio::test]
    async fn errors_pass_through_and_end_the_stream() {
        let inner = tokio_stream::iter(vec![Ok(1u32), Err(Status::invalid_argument("bad")), Ok(2)]);
        let mut s = LifetimeStream::new(inner, StreamLifetime::unlimited());
        assert_eq!(s.message().await.unwrap(), Some(1));
        assert_eq!(
            s.message().await.unwrap_err().code(),
            tonic::Code::InvalidArgument
        );
        assert_eq!(s.message().await.unwrap(), None);
        assert_eq!(s.accepted(), 1);
    }

    #[tokio::test]
    async fn respond_stamps_the_accepted_count() {
        let mut s = LifetimeStream::new(items(10), StreamLifetime::unlimited().max_messages(7));
        read_all(&mut s).await;
        let response = s.respond("summary");
        assert_eq!(response.metadata().get(ACCEPTED_HEADER).unwrap(), "7");
        assert_eq!(accepted_in(response.metadata()), Some(Ok(7)));
        let mut status = Status::unavailable("x");
        s.stamp(status.metadata_mut());
        assert_eq!(accepted_in(status.metadata()), Some(Ok(7)));

        let mut bad = MetadataMap::new();
        assert_eq!(accepted_in(&bad), None);
        bad.insert(ACCEPTED_HEADER, MetadataValue::from_static("seven"));
        assert_eq!(accepted_in(&bad), Some(Err(())));
        bad.insert(ACCEPTED_HEADER, MetadataValue::from_static("-1"));
        assert_eq!(accepted_in(&bad), Some(Err(())));
    }
}
