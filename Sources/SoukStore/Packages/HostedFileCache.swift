import Synchronization

/// Remembers `HostedFileQuery` answers (found or not) for a short time, so a hot file — every
/// device fetches `manifest.json` before an install or update — costs one query per second rather
/// than one per request.
///
/// The lifetime bounds staleness: a takedown, a reinstatement or a new import is seen by every
/// process within `lifetime` (one second by default), the consistency bar Souk keeps across
/// processes. Package files themselves never change under a version, so a cached answer can only be
/// late, never wrong about bytes.
public final class HostedFileCache: Sendable {
    private struct Key: Hashable {
        var appleItemId: UInt64
        var appleVersionId: UInt64
        var path: String
    }

    private struct Entry {
        var file: HostedFile?
        var expires: ContinuousClock.Instant
    }

    private let query: HostedFileQuery
    private let lifetime: Duration
    private let capacity: Int
    private let entries = Mutex<[Key: Entry]>([:])

    public init(query: HostedFileQuery, lifetime: Duration = .seconds(1), capacity: Int = 10_000) {
        self.query = query
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// How many answers are held now (at most `capacity`).
    public var count: Int { entries.withLock { $0.count } }

    public func find(appleItemId: UInt64, appleVersionId: UInt64, path: String) async throws -> HostedFile? {
        let key = Key(appleItemId: appleItemId, appleVersionId: appleVersionId, path: path)
        let now = ContinuousClock.now
        if let entry = entries.withLock({ $0[key] }), entry.expires > now {
            return entry.file
        }
        let file = try await query.find(appleItemId: appleItemId, appleVersionId: appleVersionId, path: path)
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.expires > now }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[key] = Entry(file: file, expires: now + lifetime)
        }
        return file
    }
}
