// The token and entitlement caches' structure (`SegmentedLRU`, compiled in beside this file by
// scripts/bench-cache.sh) against the behaviour it replaced (a dictionary emptied when full), in
// one run: the same Zipf-distributed requests, each a lookup under a `Mutex` and, on a miss, an
// insert — what `BearerCache` and `EntitlementIndex` do around their database read.
//
// Prints the hit rate of each and per-operation latency percentiles before and after the cache
// first filled. Not a test: numbers depend on the machine (docs/benchmarks.md).
import Foundation
import Synchronization

struct Options {
    var people = 300_000
    var capacity = 100_000
    var requests = 3_000_000
    var skew = 1.1
    var seed: UInt64 = 42

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        while let name = rest.popFirst() {
            guard let value = rest.popFirst() else { fatalError("\(name) needs a value") }
            switch name {
            case "--people": people = Int(value)!
            case "--capacity": capacity = Int(value)!
            case "--requests": requests = Int(value)!
            case "--skew": skew = Double(value)!
            case "--seed": seed = UInt64(value)!
            default: fatalError("unknown option \(name) (--people, --capacity, --requests, --skew, --seed)")
            }
        }
    }
}

/// SplitMix64: the same sequence on every machine for a seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A key shaped like the token cache's (a SHA-256 digest: 32 bytes).
struct Digest: Hashable {
    var a, b, c, d: UInt64
}

/// A value shaped like a held answer (an account and when it expires).
struct Held {
    var account: UUID
    var email: String
    var expires: ContinuousClock.Instant
}

/// Person indices drawn with P(rank k) ∝ 1 / k^skew; rank 1 is person 0.
func zipfRequests(_ options: Options) -> [Int32] {
    var cumulative = [Double](repeating: 0, count: options.people)
    var total = 0.0
    for rank in 0..<options.people {
        total += 1 / pow(Double(rank + 1), options.skew)
        cumulative[rank] = total
    }
    var random = SplitMix64(state: options.seed)
    return (0..<options.requests).map { _ in
        let target = Double.random(in: 0..<total, using: &random)
        var low = 0, high = options.people - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] <= target { low = middle + 1 } else { high = middle }
        }
        return Int32(low)
    }
}

/// What the caches did before `SegmentedLRU`: a dictionary, emptied when full.
struct EmptiedWhenFull {
    var entries: [Digest: Held] = [:]
    let capacity: Int
    mutating func value(forKey key: Digest) -> Held? { entries[key] }
    mutating func insert(_ value: Held, forKey key: Digest) {
        if entries[key] == nil, entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = value
    }
}

struct Run {
    var hits = 0
    var hitsAfterFull = 0
    /// Nanoseconds per operation (lookup, and insert on a miss), before and after the cache first filled.
    var beforeFull: [Int64] = []
    var afterFull: [Int64] = []
    /// Operations after which the cache held fewer entries than before (it was emptied).
    var emptying: [Int64] = []
    var seconds = 0.0
}

/// How an operation's time is read: the wall clock (which counts the time the thread waited for a
/// core on a busy machine), or the thread's own CPU time (which does not, but costs a system call).
enum Timing: String {
    case wall, cpu

    func now() -> Int64 {
        switch self {
        case .wall:
            return nanoseconds(ContinuousClock.now - origin)
        case .cpu:
            var spec = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
            return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
        }
    }
}

let origin = ContinuousClock.now

func nanoseconds(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
}

func measure(timing: Timing, capacity: Int, _ requests: [Int32], keys: [Digest], values: [Held], lookup: (Digest) -> Held?, insert: (Held, Digest) -> Void,
             count: () -> Int) -> Run {
    var run = Run()
    run.beforeFull.reserveCapacity(requests.count)
    run.afterFull.reserveCapacity(requests.count)
    var full = false
    let clock = ContinuousClock()
    let started = clock.now
    var held = 0
    for person in requests {
        let key = keys[Int(person)]
        let start = timing.now()
        if lookup(key) != nil {
            run.hits += 1
            if full { run.hitsAfterFull += 1 }
        } else {
            insert(values[Int(person)], key)
        }
        let spent = timing.now() - start
        if full { run.afterFull.append(spent) } else { run.beforeFull.append(spent) }
        let now = count()
        if now < held { run.emptying.append(spent) }
        held = now
        if held >= capacity { full = true }
    }
    run.seconds = Double(nanoseconds(clock.now - started)) / 1e9
    return run
}

func percentiles(_ samples: [Int64]) -> String {
    guard !samples.isEmpty else { return "(none)" }
    let sorted = samples.sorted()
    func at(_ fraction: Double) -> Int64 { sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))] }
    return String(format: "%8d ops  p50 %5d ns  p90 %5d ns  p99 %6d ns  p99.9 %6d ns  p99.99 %7d ns  max %9d ns",
                  sorted.count, at(0.5), at(0.9), at(0.99), at(0.999), at(0.9999), sorted.last!)
}

/// The hit rate of a cache that always holds the `capacity` most asked people, after their first request.
func bestPossible(_ requests: [Int32], _ options: Options) -> Double {
    var counts = [Int](repeating: 0, count: options.people)
    for person in requests { counts[Int(person)] += 1 }
    let top = counts.sorted(by: >).prefix(options.capacity)
    return Double(top.reduce(0) { $0 + max(0, $1 - 1) }) / Double(requests.count)
}

func run(_ options: Options) {
    print("people \(options.people), capacity \(options.capacity), requests \(options.requests), Zipf s=\(options.skew), seed \(options.seed)")
    let requests = zipfRequests(options)
    var random = SplitMix64(state: options.seed ^ 0xA5A5)
    let keys = (0..<options.people).map { _ in Digest(a: random.next(), b: random.next(), c: random.next(), d: random.next()) }
    let later = ContinuousClock.now + .seconds(3600)
    let values = (0..<options.people).map { Held(account: UUID(), email: "person\($0)@example.com", expires: later) }
    print(String(format: "distinct people asked: %d; best possible hit rate (the most asked always held): %.1f %%",
                 Set(requests).count, 100 * bestPossible(requests, options)))


    // Each timed by the wall clock, then each by CPU time, alternately, so that neither has the
    // machine to itself more than the other.
    var runs: [(String, Run, Int)] = []
    for timing in [Timing.wall, .cpu] {
        let lru = Mutex(SegmentedLRU<Digest, Held>(capacity: options.capacity))
        let segmented = measure(timing: timing, capacity: options.capacity, requests, keys: keys, values: values,
                                lookup: { key in
                                    let now = ContinuousClock.now
                                    return lru.withLock { cache in cache.value(forKey: key) { $0.expires > now } }
                                },
                                insert: { value, key in lru.withLock { $0.insert(value, forKey: key) } },
                                count: { lru.withLock { $0.count } })
        runs.append(("segmented LRU, \(timing.rawValue) time", segmented, lru.withLock { $0.evictions }))
        let old = Mutex(EmptiedWhenFull(capacity: options.capacity))
        let emptied = measure(timing: timing, capacity: options.capacity, requests, keys: keys, values: values,
                              lookup: { key in
                                  let now = ContinuousClock.now
                                  return old.withLock { cache in cache.value(forKey: key).flatMap { $0.expires > now ? $0 : nil } }
                              },
                              insert: { value, key in old.withLock { $0.insert(value, forKey: key) } },
                              count: { old.withLock { $0.entries.count } })
        runs.append(("emptied when full, \(timing.rawValue) time", emptied, 0))
    }
    for (name, run, evictions) in runs {
        let rate = Double(run.hits) / Double(options.requests)
        print(name + String(format: ": hit rate %.2f %% (%d misses), %.2f s", 100 * rate, options.requests - run.hits, run.seconds)
              + (evictions > 0 ? ", \(evictions) evictions" : ""))
        print("  before full  " + percentiles(run.beforeFull))
        print("  after full   " + percentiles(run.afterFull)
              + String(format: "  (hit rate after full %.2f %%)", 100 * Double(run.hitsAfterFull) / Double(max(1, run.afterFull.count))))
        if !run.emptying.isEmpty {
            print("  emptied the cache \(run.emptying.count) times: those operations took " + run.emptying.map { String(format: "%.2f ms", Double($0) / 1e6) }.joined(separator: ", "))
        }
    }
    let (segmented, emptied) = (runs[0].1, runs[1].1)
    print(String(format: "misses: emptied when full / segmented LRU = %.2f; hit rates: segmented LRU / emptied when full = %.3f",
                 Double(options.requests - emptied.hits) / Double(options.requests - segmented.hits),
                 Double(segmented.hits) / Double(emptied.hits)))
}

run(Options(CommandLine.arguments))
