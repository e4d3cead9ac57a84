import Foundation
import SoukStore
import SoukTestSupport
import Testing

/// Blobs no row names are removed a day after they were last touched, and no other (what
/// a failed import left in `blobs/sha256/`).
@Suite struct UnreferencedBlobsTests {
    static func age(_ path: String, by seconds: TimeInterval) throws {
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-seconds)], ofItemAtPath: path)
    }

    static func allBlobs(_ blobs: BlobStore) -> Set<String> {
        let root = blobs.root + "/sha256"
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return Set(folders.flatMap { (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + $0)) ?? [] })
    }

    static func recordHostedContent(_ content: BlobStore.Staged, in database: SoukDatabase) async throws {
        try await database.sql.raw("""
            INSERT INTO hosted_content (id, app, product_id, content_version, size, sha256, created_at)
            VALUES (\(bind: UUID()), 'com.example.reader', 'book', '1', \(bind: content.size), \(bind: content.sha256), \(bind: Date()))
            """).run()
    }

    static func put(_ blobs: BlobStore, _ text: String) throws -> String {
        let staged = try blobs.stage(data: Data(text.utf8))
        try blobs.commit(staged)
        return staged.sha256
    }

    @Test(arguments: TestBackend.available)
    func onlyOldBlobsNoRowNamesGo(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let blobs = store.blobs
            // Named: a package version's files, an app's icon and media (with their resized variants), hosted content.
            _ = try await store.importer.importPackage(at: try await store.makeSample())
            try await store.catalog.createApp(AppModel(appleItemId: 7, bundleId: "org.example.media", name: "Media"))
            let icon = try AppMediaStoreTests.png(width: 200, height: 200), screenshot = try AppMediaStoreTests.png(width: 700, height: 1400)
            let app = try await store.catalog.setMedia(appleItemId: 7, icon: icon, screenshots: [.iphone: [screenshot]], blobs: store.blobs)
            let mediaNames = Set(app.media?.blobNames ?? [])
            let content = try blobs.stage(data: Data("hosted content".utf8))
            try blobs.commit(content)
            try await Self.recordHostedContent(content, in: store.database)
            let named = Self.allBlobs(blobs)
            #expect(mediaNames.count == 6 && mediaNames.isSubset(of: named))
            #expect(named.contains(content.sha256) && named.count > 10)

            // Not named: what a failed import or a replaced image leaves, old and new.
            let old = try Self.put(blobs, "left by a failed import"), fresh = try Self.put(blobs, "being imported right now")
            // Not a blob: a file with another name is never the sweep's.
            let stray = blobs.root + "/sha256/ab/notes.txt"
            try FileManager.default.createDirectory(atPath: blobs.root + "/sha256/ab", withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: stray))
            for name in Self.allBlobs(blobs) where name != fresh && name != "notes.txt" {
                try Self.age(blobs.path(for: name), by: 2 * 86_400)
            }
            try Self.age(stray, by: 2 * 86_400)

            let sweep = UnreferencedBlobs(blobs: blobs, database: store.database)
            let first = try await sweep.sweep()
            #expect(first == UnreferencedBlobs.Report(blobs: 1, bytes: 23))
            #expect(!blobs.contains(old) && blobs.contains(fresh) && FileManager.default.fileExists(atPath: stray))
            #expect(Self.allBlobs(blobs) == named.union([fresh, "notes.txt"]))
            #expect(try FileManager.default.contentsOfDirectory(atPath: blobs.root + "/tmp").filter { !$0.hasPrefix(".") }.isEmpty)

            // A day later the fresh one goes too, unless an import uses it again (a commit touches it).
            let reused = try Self.put(blobs, "used again")
            for name in [fresh, reused] { try Self.age(blobs.path(for: name), by: 2 * 86_400) }
            _ = try Self.put(blobs, "used again")
            let second = try await sweep.sweep()
            #expect(second.blobs == 1)
            #expect(!blobs.contains(fresh) && blobs.contains(reused))
            #expect(Self.allBlobs(blobs) == named.union([reused, "notes.txt"]))
        }
    }

    @Test func aCommitAfterTheSweepTookTheBlobPutsItsOwnCopyBack() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let blobs = try BlobStore(root: folder.path + "/blobs")
        let first = try blobs.stage(data: Data("same bytes".utf8))
        try blobs.commit(first)
        // The sweep renamed it away between the commit's look and its touch.
        try FileManager.default.removeItem(atPath: blobs.path(for: first.sha256))
        let again = try blobs.stage(data: Data("same bytes".utf8))
        try blobs.commit(again)
        #expect(try Data(contentsOf: URL(fileURLWithPath: blobs.path(for: first.sha256))) == Data("same bytes".utf8))
        #expect(!FileManager.default.fileExists(atPath: again.temporaryPath))
    }

    @Test func digestsAreFoundAnywhereInTheText() {
        let a = String(repeating: "a", count: 64), b = "0123456789abcdef" + String(repeating: "0", count: 48)
        #expect(UnreferencedBlobs.digestKeys(in: "{\"sha256\":\"\(a)\",\"variants\":[{\"sha256\":\"\(b)\"}]}")
                == [0xaaaa_aaaa_aaaa_aaaa, 0x0123_4567_89ab_cdef])
        #expect(UnreferencedBlobs.digestKeys(in: String(repeating: "a", count: 65) + " " + String(repeating: "b", count: 63)).isEmpty)
        #expect(UnreferencedBlobs.digestKeys(in: b) == [0x0123_4567_89ab_cdef])
    }
}
