import Foundation
import SQLKit
import SoukCore
import ZIPFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One version of an in-app product's hosted content (`hosted_content`): the zip Souk wrote and serves.
public struct HostedContent: Sendable, Equatable {
    public var id: UUID
    public var app: String
    /// The catalog's product id (never the store SKU the plist may have named).
    public var productId: String
    public var contentVersion: ContentVersion
    public var size: Int64
    /// SHA-256 of the zip, lower-case hex: also its name in the blob store and its `ETag`.
    public var sha256: String
    public var createdAt: Date

    static let columns = "id, app, product_id, content_version, size, sha256, created_at"

    static func decode(_ row: any SQLRow) throws -> HostedContent {
        let text = try row.decode(column: "content_version", as: String.self)
        guard let version = ContentVersion(text) else { throw PackageError("hosted_content", "holds an invalid version \(text)") }
        return HostedContent(id: try row.decode(column: "id", as: UUID.self), app: try row.decode(column: "app", as: String.self),
                             productId: try row.decode(column: "product_id", as: String.self), contentVersion: version,
                             size: try row.decode(column: "size", as: Int64.self), sha256: try row.decode(column: "sha256", as: String.self),
                             createdAt: try row.decode(column: "created_at", as: Date.self))
    }
}

/// Hosted content packages: `souk content import` and the entitled-only downloads.
///
/// Import never trusts the operator's bytes: the folder or zip is listed and checked against
/// `ContentPackageLayout` before anything is read, and Souk writes the zip it serves itself — files
/// stored uncompressed (no zlib version can change the bytes), entries sorted, fixed dates and
/// permissions — so the same content always has the same SHA-256, whether it came as a folder or a zip.
/// The zip becomes visible as a blob (written, flushed, renamed) before its row is inserted, so a
/// crash leaves at most an unreferenced blob, never a row without its file.
public struct HostedContentStore: Sendable {
    let database: SoukDatabase
    let blobs: BlobStore
    let workArea: String
    let limits: ContentPackageLayout.Limits
    let now: @Sendable () -> Date

    public init(database: SoukDatabase, blobs: BlobStore, workArea: String, limits: ContentPackageLayout.Limits = .standard,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.blobs = blobs
        self.workArea = workArea
        self.limits = limits
        self.now = now
    }

    /// What an import did.
    public enum Outcome: Sendable, Equatable {
        case imported(HostedContent)
        /// This version of the product was already imported with the same bytes; nothing changed.
        case alreadyImported(HostedContent)
    }

    /// Imports the package at `path` (a folder, or a zip recognised by its signature) for `app`.
    /// Throws `PackageError` naming the file or key at fault for anything the operator must fix.
    public func importPackage(at path: String, app: String) async throws -> Outcome {
        guard let catalog = try await CommerceCatalogStore(database: database).state(app: app) else {
            throw PackageError("--app", "\(app) has no in-app catalog here; apply one first (souk catalog apply)")
        }
        let (workArea, limits, blobs) = (workArea, limits, blobs)
        let folder = WorkOwner.name(prefix: "content-", in: workArea)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let (source, plan, info) = try await blocking { () throws -> (String, ContentPackageLayout.Plan, ContentInfo) in
            let (source, plan) = try ContentPackageReader.open(path, extractingInto: folder + "/extracted", limits: limits)
            let infoPath = "\(source)/\(ContentPackageLayout.infoFile)"
            let info = try ContentInfo.parse(try ContentPackageReader.read(infoPath, upTo: limits.maxInfoBytes)).get()
            return (source, plan, info)
        }
        // Xcode writes the App Store product id; the catalog's own id is accepted too.
        guard let product = catalog.product(info.productIdentifier)
                ?? catalog.product(store: .appleStore, sku: info.productIdentifier) else {
            throw PackageError("\(ContentPackageLayout.infoFile) \(ContentInfo.productIdentifierKey)",
                               "\(info.productIdentifier) is not a product of \(app) (on sale or retired), nor its App Store product id")
        }
        let existing = try await versions(app: app, productId: product.id).first { $0.contentVersion == info.contentVersion }
        if let existing, existing.contentVersion.text != info.contentVersion.text {
            throw PackageError("\(ContentPackageLayout.infoFile) \(ContentInfo.contentVersionKey)",
                               "\(info.contentVersion) is the same version as \(existing.contentVersion), already imported; give a new version")
        }
        let staged = try await blocking { () throws -> BlobStore.Staged in
            let zip = folder + "/content.zip"
            try ContentPackageWriter.write(plan, from: source, to: zip)
            return try blobs.stage(fileAt: zip)
        }
        if let existing { return try Self.same(existing, staged, blobs: blobs) }
        try await blocking { try blobs.commit(staged) }
        try await blobs.publish(staged.sha256)
        // Whole seconds: what `Last-Modified` can say, and what every database keeps exactly.
        let createdAt = Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down))
        let row = HostedContent(id: UUID(), app: app, productId: product.id, contentVersion: info.contentVersion, size: staged.size,
                                sha256: staged.sha256, createdAt: createdAt)
        let inserted = try await database.sql.raw("""
            INSERT INTO hosted_content (\(unsafeRaw: HostedContent.columns))
            VALUES (\(bind: row.id), \(bind: app), \(bind: row.productId), \(bind: row.contentVersion.text), \(bind: row.size),
                    \(bind: row.sha256), \(bind: row.createdAt))
            ON CONFLICT (app, product_id, content_version) DO NOTHING
            RETURNING id
            """).first()
        if inserted != nil { return .imported(row) }
        // Another import of the same version won the race: the same bytes are success, others are not.
        guard let winner = try await versions(app: app, productId: product.id).first(where: { $0.contentVersion.text == row.contentVersion.text }) else {
            throw PackageError("hosted_content", "the version could not be recorded; try again")
        }
        return try Self.same(winner, staged, blobs: nil)
    }

    /// `.alreadyImported` when the bytes match what is stored, an error naming both digests otherwise.
    private static func same(_ existing: HostedContent, _ staged: BlobStore.Staged, blobs: BlobStore?) throws -> Outcome {
        blobs?.discard(staged)
        guard existing.sha256 == staged.sha256 else {
            throw PackageError("\(ContentPackageLayout.infoFile) \(ContentInfo.contentVersionKey)",
                               "version \(existing.contentVersion) of \(existing.productId) is already imported with other bytes "
                                   + "(SHA-256 \(existing.sha256.prefix(12))…, this package \(staged.sha256.prefix(12))…); a version never changes, give a new one")
        }
        return .alreadyImported(existing)
    }

    /// Every version of one product, newest first.
    public func versions(app: String, productId: String) async throws -> [HostedContent] {
        try await database.sql.raw("""
            SELECT \(unsafeRaw: HostedContent.columns) FROM hosted_content WHERE app = \(bind: app) AND product_id = \(bind: productId)
            """).all().map(HostedContent.decode).sorted { $0.contentVersion > $1.contentVersion }
    }

    /// Every version of every product of `app`, by product id, newest version first.
    public func list(app: String) async throws -> [HostedContent] {
        try await database.sql.raw("""
            SELECT \(unsafeRaw: HostedContent.columns) FROM hosted_content WHERE app = \(bind: app)
            """).all().map(HostedContent.decode)
            .sorted { ($0.productId, $1.contentVersion) < ($1.productId, $0.contentVersion) }
    }

    /// Where the zip of `content` lives on disk.
    public func path(of content: HostedContent) -> String { blobs.path(for: content.sha256) }
}

/// Lists and, for zips, extracts a package after checking its listing; never follows a link.
enum ContentPackageReader {
    /// The folder holding `ContentInfo.plist` and the checked plan of what to pack from it.
    static func open(_ path: String, extractingInto destination: String,
                     limits: ContentPackageLayout.Limits) throws -> (String, ContentPackageLayout.Plan) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PackageError(path, "no such file or folder")
        }
        if isDirectory.boolValue {
            let plan = try ContentPackageLayout.plan(try list(folder: path, limit: limits.maxEntries), limits: limits).get()
            return (plan.root.isEmpty ? path : "\(path)/\(plan.root)", plan)
        }
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw PackageError(path, "is neither a content package folder nor a readable zip archive")
        }
        var listing: [ContentPackageLayout.Entry] = []
        for entry in archive {
            guard listing.count <= limits.maxEntries else { break }
            let kind: ContentPackageLayout.Entry.Kind = switch entry.type {
            case .file: .file(size: Int64(clamping: entry.uncompressedSize))
            case .directory: .directory
            case .symlink: .other
            }
            listing.append(.init(path: entry.path, kind: kind))
        }
        let plan = try ContentPackageLayout.plan(listing, limits: limits).get()
        let prefix = plan.root.isEmpty ? "" : plan.root + "/"
        for planned in plan.entries {
            guard case .file(let size) = planned.kind else { continue }
            guard let entry = archive[prefix + planned.path] else { throw PackageError(planned.path, "cannot be found in the zip again") }
            let target = "\(destination)/\(planned.path)"
            do {
                try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                        withIntermediateDirectories: true)
                _ = try archive.extract(entry, to: URL(fileURLWithPath: target))
            } catch {
                throw PackageError(planned.path, "cannot be extracted: the zip archive is damaged")
            }
            // The zip's directory promised `size`; what was inflated must be exactly that.
            guard fileSize(target) == size else { throw PackageError(planned.path, "does not have the size the zip declares") }
        }
        return (destination, plan)
    }

    /// The folder's entries, paths relative to it; links are reported, never followed.
    static func list(folder: String, limit: Int) throws -> [ContentPackageLayout.Entry] {
        var entries: [ContentPackageLayout.Entry] = []
        var pending = [""]
        while let relative = pending.popLast() {
            let absolute = relative.isEmpty ? folder : "\(folder)/\(relative)"
            for name in try FileManager.default.contentsOfDirectory(atPath: absolute) {
                let path = relative.isEmpty ? name : "\(relative)/\(name)"
                // attributesOfItem does not follow a link: a link is seen as one.
                let attributes = try FileManager.default.attributesOfItem(atPath: "\(folder)/\(path)")
                switch attributes[.type] as? FileAttributeType {
                case .some(.typeRegular):
                    entries.append(.init(path: path, kind: .file(size: (attributes[.size] as? NSNumber)?.int64Value ?? 0)))
                case .some(.typeDirectory):
                    entries.append(.init(path: path, kind: .directory))
                    pending.append(path)
                default:
                    entries.append(.init(path: path, kind: .other))
                }
                guard entries.count <= limit else { return entries }
            }
        }
        return entries
    }

    /// A small file's bytes, refusing more than `limit`.
    static func read(_ path: String, upTo limit: Int64) throws -> Data {
        let handle = try openNoFollow(path)
        defer { try? handle.close() }
        let data = try handle.read(upToCount: Int(limit) + 1) ?? Data()
        guard data.count <= limit else { throw PackageError(ContentPackageLayout.infoFile, "is larger than \(limit) bytes") }
        return data
    }

    /// Opens a file for reading, refusing a link put in its place after the listing was checked.
    static func openNoFollow(_ path: String) throws -> FileHandle {
        let descriptor = openWithoutFollowing(path)
        guard descriptor >= 0 else { throw PackageError(path, "cannot be opened as a regular file") }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    static func fileSize(_ path: String) -> Int64? {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value
    }
}

/// Writes the zip Souk serves: entries in the plan's order, stored (not compressed), dated
/// 1980-01-01 00:00 UTC (the earliest ZIP date), files 0644 and folders 0755, ZIP64 past 4 GiB.
enum ContentPackageWriter {
    static let fixedDate = Date(timeIntervalSince1970: 315_532_800)

    static func write(_ plan: ContentPackageLayout.Plan, from source: String, to destination: String) throws {
        let archive = try Archive(url: URL(fileURLWithPath: destination), accessMode: .create)
        for entry in plan.entries {
            switch entry.kind {
            case .directory:
                try archive.addEntry(with: entry.path + "/", type: .directory, uncompressedSize: Int64(0), modificationDate: fixedDate,
                                     permissions: 0o755, provider: { _, _ in Data() })
            case .file(let size):
                let handle = try ContentPackageReader.openNoFollow("\(source)/\(entry.path)")
                defer { try? handle.close() }
                try archive.addEntry(with: entry.path, type: .file, uncompressedSize: size, modificationDate: fixedDate,
                                     permissions: 0o644, compressionMethod: .none) { position, count in
                    try handle.seek(toOffset: UInt64(position))
                    let data = try handle.read(upToCount: count) ?? Data()
                    guard data.count == min(count, Int(size - position)) else {
                        throw PackageError(entry.path, "changed while it was being imported")
                    }
                    return data
                }
            case .other:
                throw PackageError(entry.path, "is not a regular file")
            }
        }
    }
}

/// `open(2)` with `O_NOFOLLOW` (at file scope, where `open` is the C function).
private func openWithoutFollowing(_ path: String) -> Int32 {
    open(path, O_RDONLY | O_NOFOLLOW)
}
