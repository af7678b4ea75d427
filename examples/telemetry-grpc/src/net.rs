//! A loopback server whose connections count the bytes they carry.
//!
//! [`serve`] binds `127.0.0.1:0` and wraps every accepted `TcpStream` in a
//! [`CountingStream`], so [`WireCounters`] hold the exact TCP payload each way: gRPC
//! message prefixes, HTTP/2 frames and headers included, which is what a network carries.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::transport::Channel;
use tonic::transport::server::{Connected, Router};

/// Bytes the server's connections read (client to server) and wrote (server to client).
#[derive(Debug, Default)]
pub struct WireCounters {
    read: AtomicU64,
    written: AtomicU64,
}

impl WireCounters {
    /// Bytes received from clients so far.
    pub fn client_to_server(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }

    /// Bytes sent to clients so far.
    pub fn server_to_client(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }
}

/// A `TcpStream` that adds what passes through it to shared [`WireCounters`].
#[derive(Debug)]
pub struct CountingStream {
    inner: TcpStream,
    counters: Arc<WireCounters>,
}

impl AsyncRead for CountingStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        let n = (buf.filled().len() - before) as u64;
        self.counters.read.fetch_add(n, Ordering::Relaxed);
        polled
    }
}

impl AsyncWrite for CountingStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = polled {
            self.counters.written.fetch_add(n as u64, Ordering::Relaxed);
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

impl Connected for CountingStream {
    type ConnectInfo = ();

    fn connect_info(&self) -> Self::ConnectInfo {}
}

/// A server running on a tokio task; dropping it without [`Running::stop`] aborts it.
#[derive(Debug)]
pub struct Running {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its byte counters.
    pub counters: Arc<WireCounters>,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), tonic::transport::Error>>,
}

impl Running {
    /// `http://127.0.0.1:PORT`, for `connect`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A connected channel to this server, for clients built with `new`.
    pub async fn channel(&self) -> Result<Channel, tonic::transport::Error> {
        Channel::from_shared(self.url())
            .expect("a loopback URL is a valid URI")
            .connect()
            .await
    }

    /// Graceful shutdown: waits for open calls to finish.
    pub async fn stop(mut self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        (&mut self.task).await??;
        Ok(())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Serves `router` on `127.0.0.1` with an OS-chosen port and counting connections.
pub async fn serve(router: Router) -> io::Result<Running> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let counters = Arc::new(WireCounters::default());
    let shared = Arc::clone(&counters);
    let incoming = TcpListenerStream::new(listener).map(move |conn| {
        conn.map(|inner| CountingStream {
            inner,
            counters: Arc::clone(&shared),
        })
    });
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(router.serve_with_incoming_shutdown(incoming, async {
        let _ = rx.await;
    }));
    Ok(Running {
        addr,
        counters,
        shutdown: Some(tx),
        task,
    })
}
