import Foundation
@testable import SoukStore
import SoukTestSupport
import Testing

/// Files left by work a killed process never finished are swept, and nothing else (issue 15).
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
}
