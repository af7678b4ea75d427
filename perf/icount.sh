#!/usr/bin/env bash
# Instruction counts per call (callgrind) of the rows docs/BENCH.md tracks, from the drivers of
# perf/src/bin: (count at N calls - count at 1 call) / (N - 1), so building the fixture and
# the one-time setup cancel out. Deterministic for a given build; prints a markdown table.
#
#   cargo build --profile bench -p qdf-perf --bin speed_count --bin coldec_count --bin stream_prof
#   perf/icount.sh [BIN_DIR]      # BIN_DIR defaults to target/release
set -euo pipefail
bin=${1:-target/release}
n=6
count() { # prints the instruction total of one callgrind run
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
per_call() { # $1 = calls at the high end, then the command without its count argument
    local hi=$1
    shift
    local a b
    a=$(count "$@" 1)
    b=$(count "$@" "$hi")
    echo $(((b - a) / (hi - 1)))
}
echo "| row | instructions per call |"
echo "|---|---:|"
row() { echo "| $1 | $2 |"; }
row "LogBatch 1000 Speed encode" "$(per_call $n "$bin/speed_count" logbatch encode qdf)"
row "LogBatch 1000 Speed decode" "$(per_call $n "$bin/speed_count" logbatch decode qdf)"
row "IoT 32×256 Speed encode" "$(per_call $n "$bin/speed_count" iot encode qdf)"
row "IoT 32×256 Speed decode" "$(per_call $n "$bin/speed_count" iot decode qdf)"
row "Logs 1024 Balanced encode" "$(per_call $n "$bin/speed_count" logs encode balanced)"
row "Logs 1024 Balanced decode" "$(per_call $n "$bin/coldec_count" logs qdf)"
row "OTLP 4×512 Balanced encode" "$(per_call $n "$bin/speed_count" otlp encode balanced)"
row "OTLP 4×512 Balanced decode" "$(per_call $n "$bin/speed_count" otlp decode balanced)"
row "RTB 1024 Balanced encode" "$(per_call $n "$bin/speed_count" rtb encode balanced)"
row "RTB 1024 Balanced decode" "$(per_call $n "$bin/speed_count" rtb decode balanced)"
# The issue #19 shapes (qdf_fixtures::outside), with postcard's encode for the ratio.
row "WebLog 10000 Balanced encode" "$(per_call $n "$bin/speed_count" weblog encode balanced)"
row "WebLog 10000 postcard encode" "$(per_call $n "$bin/speed_count" weblog encode postcard)"
row "SaveGame 500 Balanced encode" "$(per_call $n "$bin/speed_count" savegame encode balanced)"
row "SaveGame 500 postcard encode" "$(per_call $n "$bin/speed_count" savegame encode postcard)"
row "GameState 1000 Balanced encode" "$(per_call $n "$bin/speed_count" gamestate encode balanced)"
row "GameState 1000 postcard encode" "$(per_call $n "$bin/speed_count" gamestate encode postcard)"
row "Mesh 125000 Balanced encode" "$(per_call 3 "$bin/speed_count" mesh encode balanced)"
row "Mesh 125000 postcard encode" "$(per_call 3 "$bin/speed_count" mesh encode postcard)"
row "ADUser 5000 Balanced decode" "$(per_call 3 "$bin/coldec_count" aduser qdf)"
row "wide 5000 × 16 full decode" "$(per_call $n "$bin/coldec_count" wide full)"
row "wide 5000 × 16 3-of-16 decode" "$(per_call $n "$bin/coldec_count" wide subset)"
# stream_prof counts rounds of 1 000 messages: per message = (10 rounds - 5 rounds) / 5 000.
msg() {
    local a b
    a=$(count "$bin/stream_prof" "$@" 5)
    b=$(count "$bin/stream_prof" "$@" 10)
    echo $(((b - a) / 5000))
}
row "TelemetryEvent per frame, dense encode + decode" "$(msg dense both)"
row "TelemetryEvent per frame, dense encode" "$(msg dense enc)"
# Balanced without per-field strings (STR_STATE, in the presets since issue #21): their cost.
row "TelemetryEvent per frame, dense without STR_STATE encode + decode" "$(msg dense-nostr both)"
row "TelemetryEvent per frame, dense without STR_STATE encode" "$(msg dense-nostr enc)"
