import Foundation
import SQLKit
import SoukCore
import SoukStore
import SoukTestSupport
import Testing
import ZIPFoundation

/// `HostedContentStore` on both databases: packages from folders and zips, checked, packed
/// deterministically, stored as blobs with one row per version.
@Suite struct HostedContentStoreTests {
    static let app = CommerceCatalogSamples.readerApp

    /// A reader catalog applied, and a store over the fixture's blobs.
    static func with(_ backend: TestBackend, limits: ContentPackageLayout.Limits = .standard,
                     _ body: @escaping @Sendable (StoreFixture, HostedContentStore) async throws -> Void) async throws {
        try await StoreFixture.with(backend) { fixture in
            _ = try await CommerceCatalogStore(database: fixture.database).apply(CommerceCatalogSamples.reader)
            try await body(fixture, HostedContentStore(database: fixture.database, blobs: fixture.blobs,
                                                       workArea: fixture.folder.path + "/work", limits: limits))
        }
    }

    /// Writes a package folder: `ContentInfo.plist` and `files` (paths under the folder).
    @discardableResult
    static func makeFolder(_ path: String, product: String = "reader.book.1", version: String = "1.0",
                           format: PropertyListSerialization.PropertyListFormat = .xml,
                           files: [String: String] = ["Contents/chapter1.txt": "Once upon a time", "Contents/art/cover.bin": "\u{1}\u{2}\u{3}"])
        throws -> String {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let info = try PropertyListSerialization.data(fromPropertyList: ["ContentVersion": version, "IAPProductIdentifier": product],
                                                      format: format, options: 0)
        try info.write(to: URL(fileURLWithPath: "\(path)/ContentInfo.plist"))
        for (name, text) in files {
            let file = "\(path)/\(name)"
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        }
        return path
    }

    /// Zips `entries` (path → bytes; nil: a folder) as an operator's tool would, with today's dates.
    static func makeZip(_ path: String, _ entries: [(String, Data?)], symlink: String? = nil) throws -> String {
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        for (name, data) in entries {
            if let data {
                try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                    data.subdata(in: Int(position)..<Int(position) + size)
                }
            } else {
                try archive.addEntry(with: name, type: .directory, uncompressedSize: Int64(0)) { _, _ in Data() }
            }
        }
        if let symlink {
            let target = Data("/etc/passwd".utf8)
            try archive.addEntry(with: symlink, type: .symlink, uncompressedSize: Int64(target.count)) { _, _ in target }
        }
        return path
    }

    static func imported(_ outcome: HostedContentStore.Outcome) -> HostedContent? {
        if case .imported(let content) = outcome { return content }
        return nil
    }

    static func rejection(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as PackageError {
            return error.description
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test(arguments: TestBackend.available)
    func aFolderIsPackedIntoAZipOfSortedEntriesAndStoredOnce(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture, store in
            let folder = try Self.makeFolder(fixture.folder.path + "/book")
            let content = try #require(Self.imported(try await store.importPackage(at: folder, app: Self.app)))
            #expect(content.productId == "reader.book.1")
            #expect(content.contentVersion.text == "1.0")
            #expect(fixture.blobs.contains(content.sha256))
            let zip = store.path(of: content)
            #expect(Int64((try FileManager.default.attributesOfItem(atPath: zip)[.size] as? NSNumber)?.intValue ?? -1) == content.size)

            let archive = try Archive(url: URL(fileURLWithPath: zip), accessMode: .read)
            #expect(archive.map(\.path) == ["ContentInfo.plist", "Contents/", "Contents/art/", "Contents/art/cover.bin", "Contents/chapter1.txt"])
            var chapter = Data()
            _ = try archive.extract(try #require(archive["Contents/chapter1.txt"])) { chapter.append($0) }
            #expect(String(decoding: chapter, as: UTF8.self) == "Once upon a time")

            // The same folder again: nothing new, the same row.
            #expect(try await store.importPackage(at: folder, app: Self.app) == .alreadyImported(content))
            #expect(try await store.versions(app: Self.app, productId: "reader.book.1").count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func concurrentImportsOfOneVersionRecordItOnce(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture, store in
            let folder = try Self.makeFolder(fixture.folder.path + "/book")
            let outcomes = try await withThrowingTaskGroup(of: HostedContentStore.Outcome.self) { group in
                for _ in 0..<4 { group.addTask { try await store.importPackage(at: folder, app: Self.app) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let imported = outcomes.compactMap(Self.imported)
            #expect(imported.count >= 1)
            #expect(Set(imported.map(\.sha256)).count == 1)
            #expect(try await store.versions(app: Self.app, productId: "reader.book.1").count == 1)
            #expect(try leftWorkFiles(in: fixture.blobs.root + "/tmp").isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func aZipOfTheSameContentGivesTheSameBytesAndAWrappingFolderIsAccepted(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture, store in
            let base = fixture.folder.path
            let folder = try Self.makeFolder(base + "/book")
            let fromFolder = try #require(Self.imported(try await store.importPackage(at: folder, app: Self.app)))
            // Finder-style: one wrapping folder, deflated, no folder entries, a resource fork.
            let plist = try Data(contentsOf: URL(fileURLWithPath: folder + "/ContentInfo.plist"))
            let zip = try Self.makeZip(base + "/book.zip", [
                ("Book/Contents/chapter1.txt", Data("Once upon a time".utf8)), ("Book/ContentInfo.plist", plist),
                ("Book/Contents/art/cover.bin", Data([1, 2, 3])), ("__MACOSX/Book/._ContentInfo.plist", Data([0])),
            ])
            #expect(try await store.importPackage(at: zip, app: Self.app) == .alreadyImported(fromFolder))
        }
    }

    @Test(arguments: TestBackend.available)
    func theSameVersionWithOtherBytesIsRefusedAndNewVersionsListNewestFirst(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture, store in
            let base = fixture.folder.path
            let first = try #require(Self.imported(try await store.importPackage(at: try Self.makeFolder(base + "/v1"), app: Self.app)))
            let changed = try Self.makeFolder(base + "/v1b", files: ["Contents/chapter1.txt": "Changed"])
            let conflict = await Self.rejection { _ = try await store.importPackage(at: changed, app: Self.app) }
            #expect(conflict?.contains("already imported with other bytes") == true)
            // `1` is the version `1.0` spelled differently: refused, not a second row.
            let respelled = await Self.rejection {
                _ = try await store.importPackage(at: try Self.makeFolder(base + "/v1c", version: "1"), app: Self.app)
            }
            #expect(respelled?.contains("is the same version as 1.0") == true)

            // Binary plist, the App Store product id of reader.pass.30d, and three versions of the book.
            _ = try await store.importPackage(at: try Self.makeFolder(base + "/v10", version: "1.10", files: ["Contents/a": "10"]), app: Self.app)
            _ = try await store.importPackage(at: try Self.makeFolder(base + "/v9", version: "1.9", format: .binary, files: ["Contents/a": "9"]),
                                              app: Self.app)
            let pass = try #require(Self.imported(try await store.importPackage(
                at: try Self.makeFolder(base + "/pass", product: "com.example.reader.pass30", version: "3"), app: Self.app)))
            #expect(pass.productId == "reader.pass.30d")

            let versions = try await store.versions(app: Self.app, productId: "reader.book.1")
            #expect(versions.map(\.contentVersion.text) == ["1.10", "1.9", "1.0"])
            #expect(versions.last == first)
            #expect(Set(versions.map(\.sha256)).count == 3)
            #expect(try await store.list(app: Self.app).map { "\($0.productId) \($0.contentVersion)" }
                    == ["reader.book.1 1.10", "reader.book.1 1.9", "reader.book.1 1.0", "reader.pass.30d 3"])
            #expect(try await store.list(app: "com.example.other").isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func unsafeOrForeignPackagesAreRefusedAndLeaveNothingBehind(backend: TestBackend) async throws {
        try await Self.with(backend, limits: .init(maxTotalBytes: 1000, maxEntries: 50, maxInfoBytes: 1000)) { fixture, store in
            let base = fixture.folder.path
            let plist = try PropertyListSerialization.data(fromPropertyList: ["ContentVersion": "2", "IAPProductIdentifier": "reader.book.1"],
                                                           format: .xml, options: 0)
            var cases: [(String, String)] = []
            cases.append((try Self.makeZip(base + "/slip.zip", [("ContentInfo.plist", plist), ("../../evil.txt", Data("x".utf8))]), "../../evil.txt"))
            cases.append((try Self.makeZip(base + "/abs.zip", [("ContentInfo.plist", plist), ("/tmp/evil.txt", Data("x".utf8))]), "/tmp/evil.txt"))
            cases.append((try Self.makeZip(base + "/link.zip", [("ContentInfo.plist", plist)], symlink: "Contents/passwd"), "symbolic link"))
            cases.append((try Self.makeZip(base + "/extra.zip", [("ContentInfo.plist", plist), ("Contents/a", Data("a".utf8)),
                                                                ("notes.txt", Data("x".utf8))]), "notes.txt: is outside"))
            cases.append((try Self.makeZip(base + "/big.zip", [("ContentInfo.plist", plist), ("Contents/a", Data(count: 2000))]),
                          "more than 1000 bytes"))
            cases.append((try Self.makeZip(base + "/noinfo.zip", [("Contents/a", Data("a".utf8))]), "ContentInfo.plist: is missing"))
            let linked = try Self.makeFolder(base + "/linked")
            try FileManager.default.createSymbolicLink(atPath: linked + "/Contents/secret", withDestinationPath: "/etc/passwd")
            cases.append((linked, "Contents/secret: is a symbolic link"))
            let linkedFolder = try Self.makeFolder(base + "/linkedfolder")
            try FileManager.default.createSymbolicLink(atPath: linkedFolder + "/Contents/etc", withDestinationPath: "/etc")
            cases.append((linkedFolder, "Contents/etc: is a symbolic link"))
            cases.append((try Self.makeFolder(base + "/unknown", product: "reader.book.99"), "reader.book.99 is not a product of"))
            cases.append((try Self.makeFolder(base + "/badversion", version: "1.0-beta"), "ContentVersion"))
            try Data("not a zip".utf8).write(to: URL(fileURLWithPath: base + "/text.zip"))
            cases.append((base + "/text.zip", "neither a content package folder nor a readable zip"))
            cases.append((base + "/missing", "no such file or folder"))

            for (path, expected) in cases {
                let problem = await Self.rejection { _ = try await store.importPackage(at: path, app: Self.app) }
                #expect(problem?.contains(expected) == true, "\(path): \(problem ?? "accepted")")
            }
            let noCatalog = await Self.rejection { _ = try await store.importPackage(at: try Self.makeFolder(base + "/ok"), app: "com.example.none") }
            #expect(noCatalog?.contains("has no in-app catalog") == true)

            #expect(!FileManager.default.fileExists(atPath: base + "/evil.txt"))
            #expect(try await store.list(app: Self.app).isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.blobs.root + "/sha256").isEmpty)
            #expect(try leftWorkFiles(in: fixture.blobs.root + "/tmp").isEmpty)
            #expect(try leftWorkFiles(in: base + "/work").isEmpty)
        }
    }
}
