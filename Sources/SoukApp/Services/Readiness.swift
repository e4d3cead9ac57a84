import Foundation
import Synchronization

/// Whether this process has loaded the in-memory indexes its hot requests read (`GET /health/ready`).
///
/// Each part (`catalogIndex`, `storefrontIndex`) is marked loaded by the service that builds it at
/// start (`IndexKeeper.catalog`, `IndexKeeper.storefront`) after its first load succeeded. A load
/// that fails (a database outage) leaves the part pending and is retried; the failures are counted
/// so an operator (and a test) can see that a retry happened. Nothing is ever marked pending again:
/// a loaded index answers from memory while later refreshes fail.
///
/// `gate`, when set, is awaited by every warm-up before its first load: tests hold the build there
/// to look at the process while it is not ready. `onReady` runs once, when the last part is loaded
/// (`souk serve` tells systemd then).
public final class Readiness: Sendable {
    /// An index a part of the process needs before it is ready.
    public enum Part: String, Sendable, CaseIterable {
        case catalogIndex = "catalog index"
        case storefrontIndex = "storefront index"
    }

    /// What the warm-up has done so far.
    public struct Status: Sendable, Equatable {
        /// The parts not loaded yet, in `Part.allCases` order.
        public var pending: [Part]
        /// Failed load attempts so far, all parts together.
        public var failures: Int
        public var isReady: Bool { pending.isEmpty }
    }

    private struct State {
        package var loaded: Set<Part> = []
        package var failures = 0
        package var announced = false
    }

    private let state = Mutex(State())
    package let gate: (@Sendable (Part) async -> Void)?
    package let onReady: @Sendable () -> Void

    public init(gate: (@Sendable (Part) async -> Void)? = nil, onReady: @escaping @Sendable () -> Void = {}) {
        self.gate = gate
        self.onReady = onReady
    }

    public var status: Status {
        state.withLock { state in
            Status(pending: Part.allCases.filter { !state.loaded.contains($0) }, failures: state.failures)
        }
    }

    package func markLoaded(_ part: Part) {
        let nowReady = state.withLock { state in
            state.loaded.insert(part)
            guard state.loaded.count == Part.allCases.count, !state.announced else { return false }
            state.announced = true
            return true
        }
        if nowReady { onReady() }
    }

    package func recordFailure(_ part: Part) {
        state.withLock { $0.failures += 1 }
    }

    /// Runs `load` until it succeeds once (or the task is cancelled), then marks `part` loaded.
    /// Between failures it waits `retryDelay(n)` for the n-th failure: a short wait first, growing
    /// to a few seconds, so a database that comes back is used soon without being hammered.
    package func warmUp(_ part: Part, retryDelay: @Sendable (Int) -> Duration = Readiness.retryDelay,
                onFailure: (any Error) -> Void = { _ in }, load: () async throws -> Void) async {
        await gate?(part)
        var attempt = 0
        while !Task.isCancelled {
            do {
                try await load()
                markLoaded(part)
                return
            } catch {
                attempt += 1
                recordFailure(part)
                onFailure(error)
                try? await Task.sleep(for: retryDelay(attempt))
            }
        }
    }

    /// 250 ms, 500 ms, 1 s, 2 s, then every 4 s.
    package static func retryDelay(_ attempt: Int) -> Duration {
        .milliseconds(250 << min(max(attempt - 1, 0), 4))
    }
}
