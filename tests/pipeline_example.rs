//! Runs `examples/pipeline` in-process: a clean run exits 0, a run with one corrupted record
//! on the wire exits non-zero.

#[allow(dead_code)]
#[path = "../examples/pipeline/app.rs"]
mod app;
#[path = "../examples/pipeline/codecs.rs"]
mod codecs;
#[path = "../examples/pipeline/data.rs"]
mod data;

fn args(list: &[&str]) -> app::Args {
    app::parse_args(list.iter().map(|s| s.to_string())).unwrap()
}

#[test]
fn the_pipeline_verifies_every_record_and_fails_on_one_corrupted_record() {
    assert_eq!(app::run(&args(&["--telemetry", "300"])), 0);
    // Record 1500 is a USGS quake (the 1041 Zipkin spans come first).
    assert_eq!(
        app::run(&args(&["--telemetry", "300", "--corrupt", "1500"])),
        1
    );
}

#[test]
fn arguments_are_checked() {
    assert_eq!(
        args(&["--corrupt", "7"]),
        app::Args {
            corrupt: Some(7),
            telemetry: 20_000
        }
    );
    assert!(app::parse_args(["--corrupt".to_string()].into_iter()).is_err());
    assert!(app::parse_args(["--frobnicate".to_string()].into_iter()).is_err());
}
