import Foundation
import SQLKit
import SoukCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Blobs in `blobs/sha256/` that no row names any more, removed once they have been left untouched
/// for `minimumAge`: what an import whose version transaction failed (a lost connection, a full
/// database disk, `kill -9` between the rename and the commit) left, the bytes of versions and
/// hosted content an operator removed, icons and screenshots that were replaced.
///
/// Blobs are shared by digest, so "no row names it" alone is not enough: another import may have
/// just found the same blob on disk and be about to write its rows. The two sides agree on the
/// file's modification time:
/// - `BlobStore.commit` *touches* a blob it finds already there (and puts its own copy in place if
///   the blob vanished meanwhile), before any row naming it is written;
/// - the sweep reads which digests the database names, then takes each old, unnamed file out of
///   `sha256/` with one `rename` into its own staging name, and looks at the modification time
///   again: a blob touched meanwhile goes back, any other is deleted. A commit after the rename no
///   longer finds the file and writes its own copy.
/// An import would have to take `minimumAge` between touching its blobs and committing its rows
/// to lose one. A sweep killed between its rename and its delete leaves the file in `tmp/` under
/// its own name, where `StaleFiles` removes it.
///
/// With an object store, this sweeps the local folder (a cache there); objects in the bucket are
/// not removed (docs/operations.md).
public struct UnreferencedBlobs: Sendable {
    /// How long a blob must have been left untouched before it can go.
    public static let minimumAge: TimeInterval = 86_400

    let blobs: BlobStore
    let database: SoukDatabase

    public init(blobs: BlobStore, database: SoukDatabase) {
        self.blobs = blobs
        self.database = database
    }

    /// What one sweep removed.
    public struct Report: Sendable, Equatable {
        public var blobs: Int
        public var bytes: Int64

        public init(blobs: Int, bytes: Int64) {
            self.blobs = blobs
            self.bytes = bytes
        }
    }

    /// Removes every blob no row names that was last modified `age` before `now` or earlier.
    public func sweep(olderThan age: TimeInterval = Self.minimumAge, now: Date = Date()) async throws -> Report {
        // The database first: a blob whose rows are written after this read was touched before them.
        let named = try await namedDigests()
        let root = blobs.root
        let cutoff = now.addingTimeInterval(-age).timeIntervalSince1970
        return try await BlockingWork.run { Self.remove(in: root, modifiedBefore: cutoff, unless: named) }
    }

    /// The first 64 bits of every digest a row names: package files, hosted content, icons, and the
    /// media JSON's images and their variants (any 64-hex-digit run in it, so nothing it names is
    /// missed). Two digests sharing 64 bits only keep a blob longer.
    func namedDigests() async throws -> Set<UInt64> {
        let named = Mutex(Set<UInt64>())
        let queries: [(SQLQueryString, [String])] = [
            ("SELECT blob_sha256 FROM package_files", ["blob_sha256"]),
            ("SELECT sha256 FROM hosted_content", ["sha256"]),
            ("SELECT icon_sha256, media FROM apps WHERE icon_sha256 IS NOT NULL OR media IS NOT NULL", ["icon_sha256", "media"]),
        ]
        for (query, columns) in queries {
            try await database.sql.raw(query).run { row in
                var keys: [UInt64] = []
                for column in columns {
                    guard let text = try? row.decode(column: column, as: String?.self) else { continue }
                    keys += Self.digestKeys(in: text)
                }
                named.withLock { $0.formUnion(keys) }
            }
        }
        return named.withLock { $0 }
    }

    /// The key (first 16 hex digits) of every run of exactly 64 hex digits in `text`.
    public static func digestKeys(in text: String) -> [UInt64] {
        var keys: [UInt64] = []
        var run: [UInt8] = []
        func end() {
            if run.count == 64, let key = UInt64(String(decoding: run.prefix(16), as: UTF8.self), radix: 16) { keys.append(key) }
            run.removeAll(keepingCapacity: true)
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): run.append(byte)
            default: end()
            }
        }
        end()
        return keys
    }

    static func key(ofDigest sha256: String) -> UInt64? {
        UInt64(sha256.prefix(16), radix: 16)
    }

    static func remove(in root: String, modifiedBefore cutoff: TimeInterval, unless named: Set<UInt64>) -> Report {
        var report = Report(blobs: 0, bytes: 0)
        let manager = FileManager.default
        let folders = ((try? manager.contentsOfDirectory(atPath: root + "/sha256")) ?? []).filter { $0.count == 2 }
        for folder in folders.sorted() {
            for name in (try? manager.contentsOfDirectory(atPath: "\(root)/sha256/\(folder)")) ?? [] {
                guard Digest.isSHA256Hex(name), let key = key(ofDigest: name), !named.contains(key) else { continue }
                let path = "\(root)/sha256/\(folder)/\(name)"
                guard let before = modification(of: path), before.time < cutoff else { continue }
                let taken = WorkOwner.name(in: root + "/tmp")
                guard rename(path, taken) == 0 else { continue }  // gone meanwhile
                if let after = modification(of: taken), after.time >= cutoff {
                    _ = rename(taken, path)  // touched by a commit that is about to name it
                    continue
                }
                if unlink(taken) == 0 {
                    report.blobs += 1
                    report.bytes += before.size
                }
            }
        }
        return report
    }

    /// The file's modification time (seconds since 1970) and size, for a regular file.
    static func modification(of path: String) -> (time: TimeInterval, size: Int64)? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        #if canImport(Darwin)
        let modified = info.st_mtimespec
        #else
        let modified = info.st_mtim
        #endif
        return (TimeInterval(modified.tv_sec) + TimeInterval(modified.tv_nsec) / 1e9, Int64(info.st_size))
    }
}
