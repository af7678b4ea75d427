//! The generated client and server over loopback TCP: a unary call and a client stream,
//! both carried by `qdf::tonic::QdfCodec`.

use tonic::transport::server::TcpIncoming;
use tonic::transport::{Channel, Server};
use tonic_user::api::logs_client::LogsClient;
use tonic_user::api::logs_server::LogsServer;
use tonic_user::{LogLine, LogsService, Query, Summary};

async fn client() -> LogsClient<Channel> {
    let incoming = TcpIncoming::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = incoming.local_addr().unwrap();
    tokio::spawn(
        Server::builder()
            .add_service(LogsServer::new(LogsService))
            .serve_with_incoming(incoming),
    );
    LogsClient::connect(format!("http://{addr}")).await.unwrap()
}

#[tokio::test]
async fn unary_and_client_streaming_calls_round_trip() {
    let mut client = client().await;

    let q = Query {
        service: "api".into(),
        time_ns: 1_700_000_000_123_456_789,
    };
    let line = client.query(q).await.unwrap().into_inner();
    assert_eq!(
        line,
        LogLine {
            service: "api".into(),
            level: 2,
            message: "found".into(),
            time_ns: 1_700_000_000_123_456_789,
        }
    );

    let lines: Vec<LogLine> = (0..500u64)
        .map(|i| LogLine {
            service: format!("svc-{}", i % 3),
            level: (i % 6) as u8,
            message: format!("request {i} done"),
            time_ns: 1_700_000_000_000_000_000 + i * 1_000,
        })
        .collect();
    let bytes: u64 = lines.iter().map(|l| l.message.len() as u64).sum();
    let summary = client
        .push(tokio_stream::iter(lines))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        summary,
        Summary {
            lines: 500,
            message_bytes: bytes
        }
    );
    assert_eq!(bytes, 7_890);
}
