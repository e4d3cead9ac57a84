import Foundation
@testable import SoukStore
import SoukTestSupport
import Testing

/// Files left by work a killed process never finished are swept, and nothing else.
@Suite struct StaleFilesTests {
    @Test func onlyOldLeftoversOfImportsAndUploadsAreRemoved() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let blobs = try BlobStore(root: folder.path + "/blobs")
        let work = folder.path + "/work"
        let manager = FileManager.default
        try manager.createDirectory(atPath: work + "/import-old/variant", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: work + "/import-busy", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: work + "/notes", withIntermediateDirectories: true)
        func write(_ path: String, _ bytes: Int, age: TimeInterval) throws {
            try Data(count: bytes).write(to: URL(fileURLWithPath: path))
            try manager.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: path)
        }
        try write(blobs.root + "/tmp/STAGED-OLD", 1_000, age: 7_200)
        try write(blobs.root + "/tmp/STAGED-NEW", 1_000, age: 10)
        try write(work + "/import-old/variant/app.ipa", 5_000, age: 7_200)
        try write(work + "/upload-old", 300, age: 7_200)
        // An import another process is still writing: an old folder with a fresh file in it stays.
        try write(work + "/import-busy/manifest.json", 10, age: 5)
        try write(work + "/notes/old.txt", 10, age: 7_200)  // not a prefix this sweeps
        for folder in [work + "/import-old", work + "/import-old/variant", work + "/import-busy", work + "/notes"] {
            try manager.setAttributes([.modificationDate: Date().addingTimeInterval(-7_200)], ofItemAtPath: folder)
        }

        let report = try await StaleFiles(blobs: blobs, workFolder: work).sweep()
        #expect(report == StaleFiles.Report(entries: 3, bytes: 6_300))
        #expect(!manager.fileExists(atPath: blobs.root + "/tmp/STAGED-OLD") && manager.fileExists(atPath: blobs.root + "/tmp/STAGED-NEW"))
        #expect(!manager.fileExists(atPath: work + "/import-old") && !manager.fileExists(atPath: work + "/upload-old"))
        #expect(manager.fileExists(atPath: work + "/import-busy/manifest.json") && manager.fileExists(atPath: work + "/notes/old.txt"))
        #expect(try await StaleFiles(blobs: blobs, workFolder: work).sweep() == StaleFiles.Report(entries: 0, bytes: 0))
    }

    @Test func aDeadOwnersFilesGoAtOnceALiveOwnersStayWhateverTheirAge() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let blobs = try BlobStore(root: folder.path + "/blobs")
        let work = folder.path + "/work"
        let manager = FileManager.default
        try manager.createDirectory(atPath: work, withIntermediateDirectories: true)
        // This process's own files: fresh or an hour old, they stay while it lives.
        let mine = WorkOwner.name(prefix: "import-", in: work)
        try manager.createDirectory(atPath: mine, withIntermediateDirectories: true)
        try Data(count: 100).write(to: URL(fileURLWithPath: mine + "/app.ipa"))
        try manager.setAttributes([.modificationDate: Date().addingTimeInterval(-7_200)], ofItemAtPath: mine + "/app.ipa")
        try manager.setAttributes([.modificationDate: Date().addingTimeInterval(-7_200)], ofItemAtPath: mine)
        let staged = try blobs.stage(data: Data(count: 50))
        // A killed process's: its lock file is there, but nobody holds the lock any more.
        try manager.createDirectory(atPath: work + "/.owners", withIntermediateDirectories: true)
        #expect(manager.createFile(atPath: work + "/.owners/o1234abcd.lock", contents: nil))
        try manager.createDirectory(atPath: work + "/upload-o1234abcd.x", withIntermediateDirectories: true)
        try Data(count: 700).write(to: URL(fileURLWithPath: work + "/upload-o1234abcd.x/part"))
        // One whose lock file is gone too (an earlier sweep forgot the owner), and a staged blob of the dead owner.
        try Data(count: 20).write(to: URL(fileURLWithPath: work + "/content-o99.y"))
        try Data(count: 30).write(to: URL(fileURLWithPath: blobs.root + "/tmp/o99.z"))

        let report = try await StaleFiles(blobs: blobs, workFolder: work).sweep()
        #expect(report == StaleFiles.Report(entries: 3, bytes: 750))
        #expect(manager.fileExists(atPath: mine + "/app.ipa") && manager.fileExists(atPath: staged.temporaryPath))
        #expect(!manager.fileExists(atPath: work + "/upload-o1234abcd.x") && !manager.fileExists(atPath: work + "/content-o99.y"))
        #expect(!manager.fileExists(atPath: work + "/.owners/o1234abcd.lock"), "a dead owner's lock file is forgotten")
        #expect(try manager.contentsOfDirectory(atPath: work + "/.owners").count == 1, "this process's claim stays")
        #expect(WorkOwner.token(ofEntry: (mine as NSString).lastPathComponent, prefix: "import-") != nil)
        #expect(WorkOwner.token(ofEntry: "import-1F2E.x", prefix: "import-") == nil, "older names fall to the age rule")
    }
}
