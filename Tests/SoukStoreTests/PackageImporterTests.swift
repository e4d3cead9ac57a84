import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

@Suite struct PackageImporterTests {
    @Test(arguments: TestBackend.available)
    func importsASamplePackageAndServesItsFilesFromBlobs(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let folder = try await store.makeSample(variantSize: 50_000)
            let outcome = try await store.importer.importPackage(at: folder)
            #expect(outcome == .imported(appleItemId: 6_500_000_001, appleVersionId: 9_000_000_001, files: 4,
                                         bytes: try Self.totalSize(folder)))
            let version = try #require(try await AppVersionModel.find(appleVersionId: 9_000_000_001, on: store.database.db))
            #expect(version.platforms == ["ios"])
            #expect(version.minimumOS == ["ios": "17.0"])
            let files = try await store.catalog.files(of: version)
            #expect(files.count == 4)
            for file in files {
                let original = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(file.path)"))
                #expect(try Data(contentsOf: URL(fileURLWithPath: store.blobs.path(for: file.blobSHA256))) == original)
            }
            let hosted = try await HostedFileQuery(database: store.database)
                .find(appleItemId: 6_500_000_001, appleVersionId: 9_000_000_001, path: "manifest.json")
            #expect(hosted?.contentType == "application/json")
        }
    }

    @Test(arguments: TestBackend.available)
    func importingTheSamePackageTwiceChangesNothing(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let folder = try await store.makeSample()
            _ = try await store.importer.importPackage(at: folder)
            let again = try await store.importer.importPackage(at: folder)
            #expect(again == .alreadyImported(appleItemId: 6_500_000_001, appleVersionId: 9_000_000_001))
            #expect(try await PackageFileModel.query(on: store.database.db).count() == 4)
        }
    }

    @Test(arguments: TestBackend.available)
    func concurrentImportsOfOnePackageBothSucceedOnce(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let folder = try await store.makeSample()
            let importer = store.importer
            async let first = importer.importPackage(at: folder)
            async let second = importer.importPackage(at: folder)
            let outcomes = try await [first, second]
            #expect(outcomes.filter { if case .imported = $0 { true } else { false } }.count == 1)
            #expect(try await AppVersionModel.query(on: store.database.db).count() == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func aDifferentPackageUnderAnImportedVersionIdIsRefused(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            _ = try await store.importer.importPackage(at: try await store.makeSample(shortVersion: "1.0"))
            let other = try await store.makeSample(shortVersion: "1.0.1")
            await #expect(throws: PackageError.self) { try await store.importer.importPackage(at: other) }
        }
    }

    @Test(arguments: TestBackend.available)
    func aTamperedVariantIsRefusedAndLeavesNothingBehind(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let folder = try await store.makeSample(variantSize: 40_000)
            let manifest = try PackageManifest.parse(Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))).get()
            let variant = folder + "/" + manifest.variants[1].assetPath
            var bytes = try Data(contentsOf: URL(fileURLWithPath: variant))
            bytes[20_000] ^= 0xFF
            try bytes.write(to: URL(fileURLWithPath: variant))

            let error = await #expect(throws: PackageError.self) { try await store.importer.importPackage(at: folder) }
            #expect(error?.location == manifest.variants[1].assetPath)
            #expect(error?.problem.contains("chunk 1") == true)
            #expect(try await AppVersionModel.query(on: store.database.db).count() == 0)
            #expect(try await PackageFileModel.query(on: store.database.db).count() == 0)
            #expect(try leftWorkFiles(in: store.blobs.root + "/tmp").isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.blobs.root + "/sha256").isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func refusalsNameTheFieldOrFile(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            // Missing variant file.
            var folder = try await store.makeSample()
            let manifest = try PackageManifest.parse(Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))).get()
            try FileManager.default.removeItem(atPath: folder + "/" + manifest.variants[0].assetPath)
            #expect(await Self.rejection(store, folder)?.location == manifest.variants[0].assetPath)

            // Wrong size.
            folder = try await store.makeSample()
            try Data("short".utf8).write(to: URL(fileURLWithPath: folder + "/" + manifest.variants[0].assetPath))
            #expect(await Self.rejection(store, folder)?.problem.contains("compressedSize") == true)

            // A symlink where a variant should be.
            folder = try await store.makeSample()
            let target = folder + "/" + manifest.variants[0].assetPath
            try FileManager.default.removeItem(atPath: target)
            try FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: "/etc/passwd")
            #expect(await Self.rejection(store, folder)?.problem.contains("symbolic link") == true)

            // No signature.
            folder = try await store.makeSample()
            try FileManager.default.removeItem(atPath: folder + "/signature")
            #expect(await Self.rejection(store, folder)?.location == "signature")

            // Broken manifest.
            folder = try await store.makeSample()
            try Data(#"{"appleItemId": "x"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/manifest.json"))
            #expect(await Self.rejection(store, folder)?.location == "platforms")

            // Unknown app, then a bundle id that does not match.
            folder = try await store.makeSample(appleItemId: 6_500_000_999, createApp: false)
            #expect(await Self.rejection(store, folder)?.location == "appleItemId")
            folder = try await store.makeSample(bundleId: "org.example.other", createApp: false)
            #expect(await Self.rejection(store, folder)?.location == "bundleId")

            #expect(try await AppVersionModel.query(on: store.database.db).count() == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func importsAZipIncludingOneWrappedInAFolder(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let folder = try await store.makeSample()
            let flat = store.folder.path + "/flat.zip"
            try Self.zip(contentsOf: folder, to: flat)
            #expect(try await store.importer.importPackage(at: flat) == .imported(
                appleItemId: 6_500_000_001, appleVersionId: 9_000_000_001, files: 4, bytes: try Self.totalSize(folder)))

            let second = try await store.makeSample(appleVersionId: 9_000_000_002, shortVersion: "1.1", bundleVersion: "2")
            let wrapped = store.folder.path + "/wrapped.zip"
            try Self.zip(folder: second, to: wrapped)
            if case .imported = try await store.importer.importPackage(at: wrapped) {} else { Issue.record("wrapped zip not imported") }
            #expect(try leftWorkFiles(in: store.folder.path + "/tmp").isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func aZipWhoseEntriesClimbOutIsRefused(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let folder = try await store.makeSample()
            let evil = store.folder.path + "/evil.zip"
            // Python writes the '../' entry name that zip tools refuse to create.
            try Self.run("/usr/bin/env", ["python3", "-c", """
                import zipfile, os, sys
                src, out = sys.argv[1], sys.argv[2]
                with zipfile.ZipFile(out, 'w') as z:
                    for root, _, files in os.walk(src):
                        for f in files:
                            p = os.path.join(root, f); z.write(p, os.path.relpath(p, src))
                    z.writestr('../outside.txt', 'gotcha')
                """, folder, evil])
            let error = await #expect(throws: PackageError.self) { try await store.importer.importPackage(at: evil) }
            #expect(error?.location == "../outside.txt")
            #expect(!FileManager.default.fileExists(atPath: store.folder.path + "/outside.txt"))
        }
    }

    @Test func aFileThatIsNeitherFolderNorZipIsRefused() async throws {
        try await StoreFixture.with(.sqlite) { store in
            let path = store.folder.path + "/package.txt"
            try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
            let error = await #expect(throws: PackageError.self) { try await store.importer.importPackage(at: path) }
            #expect(error?.problem.contains("neither") == true)
        }
    }

    static func rejection(_ store: StoreFixture, _ folder: String) async -> PackageError? {
        do {
            _ = try await store.importer.importPackage(at: folder)
            return nil
        } catch {
            return error as? PackageError
        }
    }

    static func totalSize(_ folder: String) throws -> Int64 {
        let enumerator = FileManager.default.enumerator(atPath: folder)!
        var total: Int64 = 0
        while let path = enumerator.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + path)
            if attributes[.type] as? FileAttributeType == .typeRegular { total += (attributes[.size] as! NSNumber).int64Value }
        }
        return total
    }

    static func zip(contentsOf folder: String, to zipPath: String) throws {
        try run("/usr/bin/env", ["python3", "-c", "import shutil,sys; shutil.make_archive(sys.argv[1][:-4], 'zip', sys.argv[2])", zipPath, folder])
    }

    static func zip(folder: String, to zipPath: String) throws {
        let parent = (folder as NSString).deletingLastPathComponent
        let name = (folder as NSString).lastPathComponent
        try run("/usr/bin/env", ["python3", "-c", "import shutil,sys; shutil.make_archive(sys.argv[1][:-4], 'zip', sys.argv[2], sys.argv[3])", zipPath, parent, name])
    }

    static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestSetupError("\(arguments.prefix(2)) failed") }
    }
}
