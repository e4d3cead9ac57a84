import Foundation
import SoukApp
import SoukCLI
import SoukCore
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// `souk backup create` while writes go on, then `souk backup restore` elsewhere: every row and
/// blob committed before the backup began is there, every blob the restored rows name is on disk
/// with its digest, and the keys are identical.
@Suite struct BackupCommandTests {
    func settings(_ backend: TestBackend, _ folder: String) async throws -> (SoukConfig, [String], @Sendable () async -> Void) {
        let (location, drop) = try await backend.makeLocation(dataDir: folder)
        var arguments = ["--data-dir", folder + "/data"]
        var config = SoukConfig(dataDir: folder + "/data", database: location)
        if case .postgres(let url) = location {
            arguments += ["--database-url", url]
        } else {
            config.database = .sqlite(path: config.sqlitePath)
        }
        return (config, arguments, drop)
    }

    @Test(arguments: TestBackend.available)
    func aBackupTakenDuringWritesRestoresEveryCommittedRowBlobAndKey(_ backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (sourceConfig, sourceArguments, dropSource) = try await settings(backend, folder.path + "/source")
        let (targetConfig, targetArguments, dropTarget) = try await settings(backend, folder.path + "/target")
        // Each runtime is closed whatever happens: one released open stops the test process.
        let source = try await SoukRuntime.open(sourceConfig, logger: testLogger(), migrate: true)
        let (before, backup, sourceJWKS) = try await source.closing { source in
            try await source.catalog.createApp(AppModel(appleItemId: 6_500_000_001, bundleId: "org.example.sample", name: "Sample", access: .public))

            // Writes go on while the backup is taken: accounts, and package versions (blobs, then rows).
            let committed = Mutex<(accounts: [String], versions: [UInt64])>(([], []))
            let writer = Task {
                var index = 0
                while !Task.isCancelled {
                    index += 1
                    let email = "writer\(index)@example.com"
                    try await AccountModel(email: email, passwordHash: "unused").create(on: source.database.db)
                    committed.withLock { $0.accounts.append(email) }
                    if index % 4 == 0 {
                        let version = 9_000_000_000 + UInt64(index)
                        let out = "\(folder.path)/pkg-\(version)"
                        try SamplePackageMaker(appleItemId: 6_500_000_001, appleVersionId: version, bundleId: "org.example.sample",
                                               shortVersion: "1.\(index)", bundleVersion: "\(index)", minimumOS: OSVersion("17.0")!,
                                               variantSize: 40_000 + index, chunkSize: 16_384).write(to: out)
                        _ = try await source.importer.importPackage(at: out)
                        committed.withLock { $0.versions.append(version) }
                    }
                }
            }
            // Until a few versions are in (a loaded machine imports slowly), then the backup starts.
            for _ in 0..<600 where committed.withLock({ $0.versions.count }) < 2 { try await Task.sleep(for: .milliseconds(50)) }
            let before = committed.withLock { $0 }
            #expect(before.versions.count >= 1, "some versions were committed before the backup began")
            let backup = folder.path + "/backup"
            try await SoukCommand.run(["backup", "create", backup] + sourceArguments)
            try await Task.sleep(for: .milliseconds(200))
            writer.cancel()
            _ = await writer.result
            return (before, backup, try await source.installVerificationKeys.jwks())
        }

        #expect(FileManager.default.fileExists(atPath: backup + "/" + SoukBackup.manifestFile))
        let keysMode = try FileManager.default.attributesOfItem(atPath: backup + "/keys")[.posixPermissions] as? Int
        #expect(keysMode == 0o700)

        try await SoukCommand.run(["backup", "restore", backup] + targetArguments)
        let target = try await SoukRuntime.open(targetConfig, logger: testLogger(), migrate: backend == .postgres)
        try await target.closing { target in
            let emails = Set(try await AccountModel.query(on: target.database.db).all().map(\.email))
            #expect(Set(before.accounts).isSubset(of: emails), "every account committed before the backup is restored")
            let app = try await target.catalog.app(appleItemId: 6_500_000_001)
            let versions = Set(try await target.catalog.versions(of: app).map(\.appleVersionId))
            #expect(Set(before.versions).isSubset(of: versions), "every version committed before the backup is restored")
            // Every blob a restored row names is there, with the bytes its name promises.
            let rows = try await target.database.sql.raw("SELECT blob_sha256 FROM package_files").all()
            #expect(!rows.isEmpty)
            for row in rows {
                let digest = try row.decode(column: "blob_sha256", as: String.self)
                let path = target.blobs.path(for: digest)
                #expect(FileManager.default.fileExists(atPath: path), "blob \(digest)")
            }
            // Same keys: the same files, the same JWKS, the same license certificates.
            #expect(try await target.installVerificationKeys.jwks() == sourceJWKS)
            for name in try FileManager.default.contentsOfDirectory(atPath: sourceConfig.keysDir) where !name.hasPrefix(".") {
                #expect(FileManager.default.contents(atPath: sourceConfig.keysDir + "/" + name)
                        == FileManager.default.contents(atPath: targetConfig.keysDir + "/" + name), "\(name)")
            }
            #expect(target.keys.licenseSigningCertificateDER.count > 0)
        }

        // A target that holds anything is refused, and left as it was.
        let error = await #expect(throws: (any Error).self) { try await SoukCommand.run(["backup", "restore", backup] + targetArguments) }
        #expect("\(error!)".contains("not empty"))
        #expect(FileManager.default.fileExists(atPath: targetConfig.keysDir + "/license-signing.key.pem"))
        await dropSource()
        await dropTarget()
    }

    @Test func unfinishedBackupsOtherKindsAndFullDestinationsAreRefused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.path + "/half", withIntermediateDirectories: true)
        let unfinished = await #expect(throws: (any Error).self) {
            try await SoukCommand.run(["backup", "restore", folder.path + "/half", "--data-dir", folder.path + "/t1"])
        }
        #expect("\(unfinished!)".contains("not a finished Souk backup"))
        try Data("{}".utf8).write(to: URL(fileURLWithPath: folder.path + "/half/note"))
        let full = await #expect(throws: (any Error).self) {
            try await SoukCommand.run(["backup", "create", folder.path + "/half", "--data-dir", folder.path + "/d"])
        }
        #expect("\(full!)".contains("not an empty folder"))
        try await SoukCommand.run(["backup", "create", folder.path + "/b", "--data-dir", folder.path + "/d"])
        let kind = await #expect(throws: (any Error).self) {
            try await SoukCommand.run(["backup", "restore", folder.path + "/b", "--data-dir", folder.path + "/t2",
                                       "--database-url", "postgres://souk@127.0.0.1:1/none"])
        }
        #expect("\(kind!)".contains("holds a SQLite database"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/t2/keys"), "nothing written to a refused target")

        // A manifest that is not JSON, or of another format, is refused before anything is written.
        let manifest = folder.path + "/b/" + SoukBackup.manifestFile
        let good = try Data(contentsOf: URL(fileURLWithPath: manifest))
        for (bytes, message) in [(Data("not json".utf8), "cannot be read"),
                                 (Data(String(decoding: good, as: UTF8.self).replacingOccurrences(of: "souk-backup-1", with: "souk-backup-9").utf8),
                                  "has format souk-backup-9")] {
            try bytes.write(to: URL(fileURLWithPath: manifest))
            let refused = await #expect(throws: (any Error).self) {
                try await SoukCommand.run(["backup", "restore", folder.path + "/b", "--data-dir", folder.path + "/t3"])
            }
            #expect("\(refused!)".contains(message), "\(refused!)")
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/t3/keys"), "nothing written to a refused target")
        }
    }

    @Test func aBlobThatNoLongerMatchesItsDigestStopsTheRestoreAndLeavesTheTargetEmpty() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let data = ["--data-dir", folder.path + "/d"]
        try await SoukCommand.run(["apps", "create", "--apple-item-id", "6500000010", "--bundle-id", "org.example.cli", "--name", "CLI App"] + data)
        try await SoukCommand.run(["packages", "make-sample", "--apple-item-id", "6500000010", "--apple-version-id", "9000000010",
                                   "--bundle-id", "org.example.cli", "--short-version", "1.0", "--bundle-version", "1", "--min-os", "17.0",
                                   "--variant-size", "20000", "--out", folder.path + "/pkg"])
        try await SoukCommand.run(["packages", "import", folder.path + "/pkg"] + data)
        try await SoukCommand.run(["backup", "create", folder.path + "/b"] + data)
        // One blob of the backup changed on its way (a bad disk, a bad copy).
        let shards = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/b/blobs/sha256")
        let shard = folder.path + "/b/blobs/sha256/" + shards.sorted()[0]
        let blob = shard + "/" + (try FileManager.default.contentsOfDirectory(atPath: shard)[0])
        try Data("not the bytes".utf8).write(to: URL(fileURLWithPath: blob))

        let target = folder.path + "/t"
        let error = await #expect(throws: (any Error).self) { try await SoukCommand.run(["backup", "restore", folder.path + "/b", "--data-dir", target]) }
        #expect("\(error!)".contains("does not match its digest"))
        for leftover in ["/keys", "/blobs", "/souk.sqlite"] {
            #expect(!FileManager.default.fileExists(atPath: target + leftover), "\(leftover) left in the target")
        }
    }
}
