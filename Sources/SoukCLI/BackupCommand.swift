import ArgumentParser
import Foundation
import SoukApp

/// `souk backup create DEST` / `souk backup restore SRC` (docs/operations.md "Backups").
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Copy the database, blobs and keys to a folder while Souk serves, and restore such a copy.",
        subcommands: [CreateCommand.self, RestoreCommand.self])

    struct CreateCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Write a consistent backup to DEST (a new or empty folder): the database (SQLite's online copy, or pg_dump), blobs, keys.")
        @Argument(help: "The backup folder to write (must not exist, or be empty).") var destination: String
        @OptionGroup var settings: SettingsOptions

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let manifest = try await SoukBackup(config: runtime.config).create(into: destination, database: runtime.database)
                let blobs = manifest.blobStore == "s3" ? "blobs left in the object store (back the bucket up with its versioning or replication)"
                    : "\(manifest.blobs) blobs (\(manifest.blobBytes) bytes)"
                print("backup: \(destination): \(manifest.database) database, \(blobs), \(manifest.keyFiles.count) key files")
                FileHandle.standardError.write(Data("""
                    warning: \(destination)/keys holds the marketplace's private keys (license signing and encryption,
                    install verification, the TOTP sealing key). Keep this backup as private as the data folder:
                    encrypt it before it leaves the machine, and never put it where the web server or other users can read it.\n
                    """.utf8))
            }
        }
    }

    struct RestoreCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Restore the backup in SRC into an empty data folder and database (refuses any other target).")
        @Argument(help: "A folder written by `souk backup create`.") var source: String
        @OptionGroup var settings: SettingsOptions

        func run() async throws {
            let config = try await settings.loadConfig()
            let manifest = try await SoukBackup(config: config).restore(from: source)
            print("restored: \(manifest.database) database, \(manifest.blobs) blobs, \(manifest.keyFiles.count) key files from the backup of \(ISO8601DateFormatter().string(from: manifest.createdAt))")
        }
    }
}
