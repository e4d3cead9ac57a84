/// The rules for what a hosted content package may hold: `ContentInfo.plist` at its root and
/// files under `Contents/`, nothing else; no links, no path that could leave the package, and
/// bounded in entries and bytes. Applied to a folder's listing and to a zip's directory alike,
/// before a single byte is copied.
public enum ContentPackageLayout {
    public static let infoFile = "ContentInfo.plist"
    public static let contentsFolder = "Contents"

    /// One thing found in a package, as the folder or the zip describes it.
    public struct Entry: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case file(size: Int64)
            case directory
            /// A symbolic link, or anything else that is neither a regular file nor a folder.
            case other
        }

        public var path: String
        public var kind: Kind

        public init(path: String, kind: Kind) {
            self.path = path
            self.kind = kind
        }
    }

    /// Bounds on a package. The size limit is a constant rather than a setting: a package larger than
    /// this is better split into several products, and a fixed bound keeps a typo from filling a disk.
    public struct Limits: Sendable, Equatable {
        /// Total bytes of the files (uncompressed).
        public var maxTotalBytes: Int64
        /// Files and folders together.
        public var maxEntries: Int
        /// `ContentInfo.plist` is a few hundred bytes; a large one is not a content package.
        public var maxInfoBytes: Int64

        public init(maxTotalBytes: Int64, maxEntries: Int, maxInfoBytes: Int64) {
            self.maxTotalBytes = maxTotalBytes
            self.maxEntries = maxEntries
            self.maxInfoBytes = maxInfoBytes
        }

        /// 4 GiB, 10,000 entries, 1 MiB of `ContentInfo.plist`.
        public static let standard = Limits(maxTotalBytes: 4 << 30, maxEntries: 10_000, maxInfoBytes: 1 << 20)
    }

    /// A package that passed: its entries with paths relative to the package root (a wrapping folder
    /// removed), folders and files sorted by path so the zip Souk writes is the same every time.
    public struct Plan: Sendable, Equatable {
        /// The folder every entry sat in (`""` when the package root is the listing's root).
        public var root: String
        public var entries: [Entry]
        public var totalBytes: Int64
    }

    /// Checks a listing. `listing` paths are relative to the folder or zip, folders with or without a
    /// trailing slash. Finder's `__MACOSX/` resource forks in zips are skipped, and a package wrapped
    /// in one folder (as Finder zips a folder) is accepted as that folder.
    public static func plan(_ listing: [Entry], limits: Limits = .standard) -> Result<Plan, PackageError> {
        guard listing.count <= limits.maxEntries else {
            return .failure(PackageError("package", "has more than \(limits.maxEntries) files and folders"))
        }
        var entries: [Entry] = []
        for var entry in listing {
            if entry.kind == .directory, entry.path.hasSuffix("/") { entry.path.removeLast() }
            if entry.path == "__MACOSX" || entry.path.hasPrefix("__MACOSX/") { continue }
            guard PackagePath.isSafeRelative(entry.path) else {
                return .failure(PackageError(entry.path, "is not a plain relative path inside the package (absolute, '..', or escapes)"))
            }
            guard entry.kind != .other else {
                return .failure(PackageError(entry.path, "is a symbolic link or special file; content packages hold only files and folders"))
            }
            entries.append(entry)
        }
        let root = wrappingFolder(entries)
        var kept: [Entry] = []
        var total: Int64 = 0
        for entry in entries {
            guard root.isEmpty || entry.path != root else { continue }
            let path = root.isEmpty ? entry.path : String(entry.path.dropFirst(root.count + 1))
            switch (path, entry.kind) {
            case (infoFile, .file(let size)):
                guard size <= limits.maxInfoBytes else {
                    return .failure(PackageError(infoFile, "is larger than \(limits.maxInfoBytes) bytes"))
                }
                total += size
            case (contentsFolder, .directory):
                break
            case (_, .file(let size)) where path.hasPrefix(contentsFolder + "/"):
                guard size >= 0 else { return .failure(PackageError(path, "has a negative size")) }
                total += size
            case (_, .directory) where path.hasPrefix(contentsFolder + "/"):
                break
            default:
                return .failure(PackageError(path, "is outside ContentInfo.plist and Contents/; a content package holds nothing else"))
            }
            guard total <= limits.maxTotalBytes else {
                return .failure(PackageError("package", "holds more than \(limits.maxTotalBytes) bytes"))
            }
            kept.append(Entry(path: path, kind: entry.kind))
        }
        guard kept.contains(where: { $0.path == infoFile && $0.kind != .directory }) else {
            return .failure(PackageError(infoFile, "is missing from the package root"))
        }
        let files = Set(kept.filter { $0.kind != .directory }.map(\.path))
        var folders = Set(kept.filter { $0.kind == .directory }.map(\.path))
        guard files.count + folders.count == kept.count, files.isDisjoint(with: folders) else {
            return .failure(PackageError("package", "lists the same path twice"))
        }
        // Every folder on the way gets its entry, whether or not the zip listed it, so a folder and
        // a zip of it (with or without folder entries) become the same bytes.
        for path in files.union(folders) {
            var components = path.split(separator: "/").dropLast()
            while !components.isEmpty {
                let folder = components.joined(separator: "/")
                guard !files.contains(folder) else { return .failure(PackageError(folder, "is both a file and a folder")) }
                folders.insert(folder)
                components.removeLast()
            }
        }
        kept.removeAll { $0.kind == .directory }
        kept += folders.map { Entry(path: $0, kind: .directory) }
        // Byte order, not locale order: the same on every machine.
        kept.sort { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) }
        return .success(Plan(root: root, entries: kept, totalBytes: total))
    }

    /// The one folder everything sits in, when `ContentInfo.plist` is not at the top itself.
    static func wrappingFolder(_ entries: [Entry]) -> String {
        guard !entries.contains(where: { $0.path == infoFile }) else { return "" }
        let tops = Set(entries.map { $0.path.split(separator: "/", maxSplits: 1).first.map(String.init) ?? $0.path })
        guard tops.count == 1, let top = tops.first,
              entries.contains(where: { $0.path == "\(top)/\(infoFile)" }) else { return "" }
        return top
    }
}
