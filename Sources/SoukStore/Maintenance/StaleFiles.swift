import Foundation

/// What a process killed in the middle of its work leaves on disk: staged blobs in the blob store's
/// `tmp/`, and the work folder's extraction and upload folders (`import-…` of a package import,
/// `content-…` of a hosted content import, `upload-…` of a console upload, `demo-…` of the demo's
/// packages, `asc-…` of an App Store Connect download). Nothing points at them; four killed
/// imports once left 700–800 MB behind.
///
/// An entry named for a `WorkOwner` that is gone (its process ended, `kill -9` included) is
/// removed at once; one whose owner lives is kept. Any other entry (older names, another
/// machine's) is removed once untouched for `minimumAge`: an import still running keeps writing,
/// so its files stay younger than that.
public struct StaleFiles: Sendable {
    /// The work folder's entries this sweeps (other files there are left alone).
    public static let workPrefixes = ["import-", "content-", "upload-", "demo-", "asc-"]
    /// How long an entry must have been left untouched.
    public static let minimumAge: TimeInterval = 3_600

    let stagingFolder: String
    let workFolder: String

    public init(blobs: BlobStore, workFolder: String) {
        self.stagingFolder = blobs.root + "/tmp"
        self.workFolder = workFolder
    }

    /// What one sweep removed.
    public struct Report: Sendable, Equatable {
        public var entries: Int
        public var bytes: Int64
    }

    /// Removes every stale entry (`now` minus `age` or older, by the newest modification inside it).
    public func sweep(olderThan age: TimeInterval = Self.minimumAge, now: Date = Date()) async throws -> Report {
        let staging = stagingFolder, work = workFolder
        return try await blocking {
            let cutoff = now.addingTimeInterval(-age)
            var report = Report(entries: 0, bytes: 0)
            let candidates = Self.entries(of: staging, matching: nil).map { ($0, staging, [""]) }
                + Self.entries(of: work, matching: Self.workPrefixes).map { ($0, work, Self.workPrefixes) }
            for (path, folder, prefixes) in candidates {
                let name = (path as NSString).lastPathComponent
                let owner = prefixes.lazy.compactMap { WorkOwner.token(ofEntry: name, prefix: $0) }.first
                let (newest, bytes) = Self.newestModification(path)
                if let owner {
                    guard WorkOwner.isDead(owner, in: folder) else { continue }
                } else {
                    guard newest < cutoff else { continue }
                }
                do {
                    try FileManager.default.removeItem(atPath: path)
                    report.entries += 1
                    report.bytes += bytes
                } catch {
                    continue  // gone meanwhile (another process swept it), or not ours to remove
                }
            }
            WorkOwner.forgetDeadOwners(in: staging)
            WorkOwner.forgetDeadOwners(in: work)
            return report
        }
    }

    static func entries(of folder: String, matching prefixes: [String]?) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { name in !name.hasPrefix(".") && prefixes.map { $0.contains { name.hasPrefix($0) } } ?? true }.map { folder + "/" + $0 }
    }

    /// The latest modification of `path` or anything under it, and the bytes it holds.
    static func newestModification(_ path: String) -> (Date, Int64) {
        let manager = FileManager.default
        guard let attributes = try? manager.attributesOfItem(atPath: path) else { return (.distantFuture, 0) }
        var newest = attributes[.modificationDate] as? Date ?? .distantFuture
        var bytes = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        if attributes[.type] as? FileAttributeType == .typeDirectory, let inside = manager.enumerator(atPath: path) {
            bytes = 0
            while let relative = inside.nextObject() as? String {
                guard let item = try? manager.attributesOfItem(atPath: path + "/" + relative) else { continue }
                if let modified = item[.modificationDate] as? Date, modified > newest { newest = modified }
                if item[.type] as? FileAttributeType == .typeRegular { bytes += (item[.size] as? NSNumber)?.int64Value ?? 0 }
            }
        }
        return (newest, bytes)
    }
}
