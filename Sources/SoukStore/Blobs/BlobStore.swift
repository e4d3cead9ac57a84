import Crypto
import Foundation
import SoukCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Content-addressed files on disk: `<root>/sha256/ab/abcdef…`.
///
/// A blob is written to `<root>/tmp/`, hashed and flushed while it is copied, and only then renamed
/// into place (an atomic step on one file system), so a reader never sees a half-written blob and a
/// crash leaves at most a stray file in `tmp/`.
///
/// With an object store (`blobStore = s3`), the local folder is a staging area and cache: `publish`
/// uploads a committed blob before any row names it, and `localPath` fetches one this machine has
/// not seen. Downloads then go from the store by presigned URL (`DownloadDelivery`).
public struct BlobStore: Sendable {
    public let root: String
    public let remote: S3ObjectStore?
    static let copyChunk = 1 << 20
    /// Blob folders are world-readable like the blobs (0644), whatever the process's umask: nginx's
    /// workers, another user, serve them with `downloadsVia = nginx` (docs/deploy.md).
    static var folderAttributes: [FileAttributeKey: Any] { [.posixPermissions: 0o755] }

    public init(root: String, remote: S3ObjectStore? = nil) throws {
        self.root = root
        self.remote = remote
        for folder in [root, root + "/sha256", root + "/tmp"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: Self.folderAttributes)
        }
    }

    /// Where the blob with this digest lives (whether or not it exists).
    public func path(for sha256: String) -> String {
        "\(root)/\(Self.relativePath(for: sha256))"
    }

    /// The blob's path under the root: `sha256/ab/abcdef…` (nginx's X-Accel location serves the root).
    public static func relativePath(for sha256: String) -> String {
        precondition(Digest.isSHA256Hex(sha256), "blob names are SHA-256 hex digests")
        return "sha256/\(sha256.prefix(2))/\(sha256)"
    }

    /// Makes a committed blob available to every process: with an object store, uploads it unless
    /// it is there already. Call it after `commit` and before the rows that name the blob are written.
    public func publish(_ sha256: String) async throws {
        guard let remote else { return }
        let key = Self.relativePath(for: sha256)
        if try await remote.exists(key) { return }
        let path = path(for: sha256)
        let size = ((try FileManager.default.attributesOfItem(atPath: path))[.size] as? NSNumber)?.int64Value ?? 0
        try await remote.put(fileAt: path, key: key, sha256: sha256, size: size)
    }

    /// The blob's local file, fetched from the object store first when this machine has no copy.
    public func localPath(for sha256: String) async throws -> String {
        let path = path(for: sha256)
        guard let remote, !FileManager.default.fileExists(atPath: path) else { return path }
        let temporary = WorkOwner.name(in: root + "/tmp")
        try await remote.get(Self.relativePath(for: sha256), to: temporary)
        let staged = Staged(temporaryPath: temporary, sha256: sha256, size: 0, chunkDigests: [])
        guard try await BlockingWork.run({ try Self.digest(ofFileAt: temporary) }) == sha256 else {
            discard(staged)
            throw ObjectStoreUnavailable("the object store's copy of \(sha256) does not match its digest")
        }
        try commit(staged)
        return path
    }

    /// The SHA-256 (hex) of the file at `path`, read in 1 MiB chunks.
    public static func digest(ofFileAt path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw BlobError.unreadable(path) }
        defer { try? handle.close() }
        var hash = SHA256()
        while let chunk = try handle.read(upToCount: copyChunk), !chunk.isEmpty { hash.update(data: chunk) }
        return Digest.hex(hash.finalize())
    }

    public func contains(_ sha256: String) -> Bool {
        FileManager.default.fileExists(atPath: path(for: sha256))
    }

    /// A file copied into `tmp/` and measured, not yet visible.
    public struct Staged: Sendable {
        public let temporaryPath: String
        public let sha256: String
        public let size: Int64
        /// SHA-256 of each `chunkSize` slice, when a chunk size was asked for.
        public let chunkDigests: [[UInt8]]
    }

    /// Copies `source` into `tmp/`, computing its SHA-256 (and chunk digests of `chunkSize` bytes).
    public func stage(fileAt source: String, chunkSize: Int? = nil) throws -> Staged {
        guard let input = FileHandle(forReadingAtPath: source) else {
            throw BlobError.unreadable(source)
        }
        defer { try? input.close() }
        let temporary = WorkOwner.name(in: root + "/tmp")
        guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o644]),
              let output = FileHandle(forWritingAtPath: temporary) else {
            throw BlobError.unwritable(temporary)
        }
        var whole = SHA256()
        var chunk = SHA256()
        var chunkFill = 0
        var chunkDigests: [[UInt8]] = []
        var size: Int64 = 0
        do {
            while true {
                let data = try input.read(upToCount: Self.copyChunk) ?? Data()
                if data.isEmpty { break }
                whole.update(data: data)
                if let chunkSize {
                    var offset = data.startIndex
                    while offset < data.endIndex {
                        let take = min(chunkSize - chunkFill, data.endIndex - offset)
                        chunk.update(data: data[offset..<(offset + take)])
                        chunkFill += take
                        offset += take
                        if chunkFill == chunkSize {
                            chunkDigests.append(Array(chunk.finalize()))
                            chunk = SHA256()
                            chunkFill = 0
                        }
                    }
                }
                try output.write(contentsOf: data)
                size += Int64(data.count)
            }
            if chunkSize != nil, chunkFill > 0 { chunkDigests.append(Array(chunk.finalize())) }
            try output.synchronize()
            try output.close()
        } catch {
            try? output.close()
            let full = Self.isNearlyFull(root)  // before the partial copy is removed and frees its space
            try? FileManager.default.removeItem(atPath: temporary)
            throw full ? BlobError.diskFull(root) : error
        }
        return Staged(temporaryPath: temporary, sha256: Digest.hex(whole.finalize()), size: size, chunkDigests: chunkDigests)
    }

    /// Stages bytes held in memory.
    public func stage(data: Data) throws -> Staged {
        let temporary = WorkOwner.name(in: root + "/tmp") + ".src"
        try data.write(to: URL(fileURLWithPath: temporary))
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        return try stage(fileAt: temporary)
    }

    /// Makes a staged blob visible under its digest. A blob that already exists is kept as it is
    /// (same digest, same bytes) and touched, so that `UnreferencedBlobs` leaves it alone until the
    /// rows about to name it are written; the staged copy is dropped. A blob that cannot be touched
    /// (the sweep took it a moment ago, or another user owns it) is replaced by the staged copy.
    public func commit(_ staged: Staged) throws {
        let destination = path(for: staged.sha256)
        let folder = (destination as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: Self.folderAttributes)
        if utimes(destination, nil) == 0 {
            discard(staged)
            return
        }
        guard rename(staged.temporaryPath, destination) == 0 else {
            let code = errno
            discard(staged)
            throw BlobError.unwritable("\(destination) (errno \(code))")
        }
        Self.syncDirectory(folder)
    }

    /// Drops a staged copy that will not be used.
    public func discard(_ staged: Staged) {
        try? FileManager.default.removeItem(atPath: staged.temporaryPath)
    }

    /// Whether the file system holding `path` has less than 4 MiB left: a write that failed there
    /// failed for want of space, not because of what was written.
    static func isNearlyFull(_ path: String) -> Bool {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return false }
        return UInt64(stats.f_bavail) * UInt64(stats.f_frsize) < 4 << 20
    }

    /// Flushes a directory entry, so a committed rename survives a power loss.
    private static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = close(descriptor)
    }
}

/// Blob storage failures (disk problems, not bad input).
public enum BlobError: Error, CustomStringConvertible {
    case unreadable(String)
    case unwritable(String)
    case diskFull(String)

    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read \(path)"
        case .unwritable(let path): "cannot write \(path)"
        case .diskFull(let path): "the disk holding \(path) is full: nothing was imported; free some space and try again"
        }
    }
}
