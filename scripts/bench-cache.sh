#!/usr/bin/env bash
# The cache benchmark: the token and entitlement caches' structure (Sources/SoukStore/Caching/
# SegmentedLRU.swift) against a dictionary emptied when full (what the caches did before), on a
# Zipf-distributed workload: hit rate, and per-operation latency before and after the cache filled.
# Compiles the structure and scripts/bench-cache/main.swift with `swiftc -O` (seconds; no package
# build) and runs it; options go to the benchmark.
#
#   scripts/bench-cache.sh                       # 300,000 people, 100,000 entries, 3,000,000 requests, s = 1.1
#   scripts/bench-cache.sh --skew 0.9 --requests 6000000
#
# Numbers in docs/benchmarks.md ("The token and entitlement caches").
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
swiftc -O -swift-version 6 -module-name CacheBench -o "$WORK/bench-cache" \
  Sources/SoukStore/Caching/SegmentedLRU.swift scripts/bench-cache/main.swift
"$WORK/bench-cache" "$@"
