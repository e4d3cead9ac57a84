import Synchronization

/// Remembers answers (found or not) for a short `lifetime`, bounded to `capacity` entries: when
/// full, the least recently used answer makes room (`SegmentedLRU`).
///
/// Souk's processes agree within a second: every cache in front of the database uses a lifetime of
/// one second by default, so an operator's change (a takedown, a new version) is seen everywhere
/// within that time, while a hot key costs one query per second instead of one per request.
public final class ShortLivedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var value: Value?
        var expires: ContinuousClock.Instant
    }

    private let lifetime: Duration
    private let entries: Mutex<SegmentedLRU<Key, Entry>>

    public init(lifetime: Duration = .seconds(1), capacity: Int = 100_000) {
        self.lifetime = lifetime
        self.entries = Mutex(SegmentedLRU(capacity: capacity))
    }

    /// How many answers are held now (at most `capacity`).
    public var count: Int { entries.withLock { $0.count } }

    /// Entries, hits, misses and evictions so far.
    public var statistics: CacheStatistics { entries.withLock { $0.statistics } }

    /// The values for `keys`, loading the ones not held (in one call to `load`) and remembering
    /// which of them do not exist.
    public func values(for keys: [Key], load: ([Key]) async throws -> [Key: Value]) async throws -> [Key: Value] {
        let now = ContinuousClock.now
        var result: [Key: Value] = [:]
        var missing: [Key] = []
        entries.withLock { entries in
            for key in Set(keys) {
                if let entry = entries.value(forKey: key, where: { $0.expires > now }) {
                    if let value = entry.value { result[key] = value }
                } else {
                    missing.append(key)
                }
            }
        }
        guard !missing.isEmpty else { return result }
        let loaded = try await load(missing)
        entries.withLock { entries in
            for key in missing {
                entries.insert(Entry(value: loaded[key], expires: now + lifetime), forKey: key)
            }
        }
        result.merge(loaded) { _, new in new }
        return result
    }

    /// One value, loaded with `load` when not held.
    public func value(for key: Key, load: () async throws -> Value?) async throws -> Value? {
        try await values(for: [key]) { _ in
            if let value = try await load() { return [key: value] }
            return [:]
        }[key]
    }
}

/// One value remembered for a short `lifetime` (the marketplace identity on hot paths): cheaper
/// than a `ShortLivedCache` with a single key.
public final class ShortLivedValue<Value: Sendable>: Sendable {
    private let lifetime: Duration
    private let held = Mutex<(value: Value, expires: ContinuousClock.Instant)?>(nil)

    public init(lifetime: Duration = .seconds(1)) {
        self.lifetime = lifetime
    }

    /// The value, loaded again once its lifetime ran out. With `keepOnFailure`, a failing load
    /// (the database is down) answers the last value loaded, if there is one: for values that
    /// change rarely and matter more than their freshness, such as the marketplace's identity.
    public func value(keepOnFailure: Bool = false, load: () async throws -> Value) async throws -> Value {
        let now = ContinuousClock.now
        let last = held.withLock { $0 }
        if let last, last.expires > now { return last.value }
        let value: Value
        do {
            value = try await load()
        } catch {
            guard keepOnFailure, let last else { throw error }
            return last.value
        }
        held.withLock { $0 = (value, now + lifetime) }
        return value
    }
}
