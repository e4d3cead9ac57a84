import Foundation
import NIOCore
import Synchronization

/// Keeps small blobs (manifests, signatures) in memory. Blobs are content-addressed and never
/// change, so a cached copy can never be stale; the cache only bounds how much memory it holds.
package final class SmallBlobCache: Sendable {
    /// Files up to this size are cached; larger ones always stream from disk.
    package let maxFileSize: Int
    private let maxTotalBytes: Int
    private let state = Mutex<(buffers: [String: ByteBuffer], total: Int)>(([:], 0))

    package init(maxFileSize: Int = 64 * 1024, maxTotalBytes: Int = 32 << 20) {
        self.maxFileSize = maxFileSize
        self.maxTotalBytes = maxTotalBytes
    }

    /// The bytes of blob `sha256` at `path`, read once from disk. The read is synchronous, which is
    /// acceptable for at most `maxFileSize` bytes once per blob per process.
    package func bytes(sha256: String, path: String) throws -> ByteBuffer {
        if let cached = state.withLock({ $0.buffers[sha256] }) { return cached }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let buffer = ByteBuffer(bytes: data)
        state.withLock { state in
            if state.total + buffer.readableBytes > maxTotalBytes {
                state = ([:], 0)  // rare: a simple reset keeps the bound without bookkeeping
            }
            state.buffers[sha256] = buffer
            state.total += buffer.readableBytes
        }
        return buffer
    }
}
