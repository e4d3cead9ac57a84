/// Remembers `HostedFileQuery` answers (found or not) for a short time, so a hot file — every
/// device fetches `manifest.json` before an install or update — costs one query per second rather
/// than one per request. Package files never change under a version, so a cached answer can only
/// be late (by at most the lifetime), never wrong about bytes.
public final class HostedFileCache: Sendable {
    private struct Key: Hashable, Sendable {
        var appleItemId: UInt64
        var appleVersionId: UInt64
        var path: String
    }

    private let query: HostedFileQuery
    private let cache: ShortLivedCache<Key, HostedFile>

    public init(query: HostedFileQuery, lifetime: Duration = .seconds(1), capacity: Int = 10_000) {
        self.query = query
        self.cache = ShortLivedCache(lifetime: lifetime, capacity: capacity)
    }

    /// How many answers are held now (at most `capacity`).
    public var count: Int { cache.count }

    public func find(appleItemId: UInt64, appleVersionId: UInt64, path: String) async throws -> HostedFile? {
        try await cache.value(for: Key(appleItemId: appleItemId, appleVersionId: appleVersionId, path: path)) {
            try await query.find(appleItemId: appleItemId, appleVersionId: appleVersionId, path: path)
        }
    }
}
