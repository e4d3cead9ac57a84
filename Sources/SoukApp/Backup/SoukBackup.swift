#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SoukCore
import SoukStore

/// `souk backup create DEST` and `souk backup restore SRC` (docs/operations.md "Backups").
///
/// A backup is a folder: the database (`souk.sqlite`, an online copy made with SQLite's
/// `VACUUM INTO`, or `database.pgdump`, `pg_dump`'s custom format), `blobs/sha256/…`, `keys/`, and
/// `backup.json`, written last, so a folder without it is an unfinished backup.
///
/// Consistency while Souk serves: the database is copied first, in one snapshot; blobs are
/// written before the rows that name them, and only blobs no row names are ever deleted
/// (`UnreferencedBlobs`), so every blob the snapshot names is in the blob folder when it is copied
/// afterwards. Blobs committed later come along harmlessly (a restored server sweeps them a day later).
public struct SoukBackup: Sendable {
    public static let manifestFile = "backup.json"
    public static let sqliteFile = "souk.sqlite"
    public static let postgresFile = "database.pgdump"
    package static let format = "souk-backup-1"

    /// `backup.json`.
    public struct Manifest: Codable, Sendable, Equatable {
        public var format: String
        public var createdAt: Date
        /// `sqlite` or `postgres`.
        public var database: String
        public var blobs: Int
        public var blobBytes: Int64
        public var keyFiles: [String]
        /// `s3` when the blobs live in the object store and are not in the backup (nil: they are).
        public var blobStore: String?
    }

    package let config: SoukConfig

    public init(config: SoukConfig) {
        self.config = config
    }

    // MARK: create

    /// Copies the database (through `database`, which stays open for the server's other work),
    /// the blobs and the keys into `destination`, which must not exist or be empty.
    public func create(into destination: String, database: SoukDatabase) async throws -> Manifest {
        try Self.prepareEmptyFolder(destination, role: "backup destination")
        let kind: String
        switch config.database {
        case .sqlite:
            kind = "sqlite"
            let target = destination + "/" + Self.sqliteFile
            try await database.sql.raw("VACUUM INTO \(bind: target)").run()
        case .postgres(let url):
            kind = "postgres"
            try await PostgresTool.run("pg_dump", url: url, arguments: ["--format=custom", "--no-owner", "--no-privileges",
                                                                        "--file=\(destination)/\(Self.postgresFile)"])
        case .sqliteInMemory:
            throw CommandProblem("an in-memory database cannot be backed up")
        }
        // With an object store, the blobs are the bucket's (its versioning or replication backs them
        // up); the data folder holds only a cache of them.
        let (blobs, bytes) = config.objectStore != nil ? (0, 0) : try await BlockingWork.run { [config] in
            try Self.copyBlobs(from: config.blobsDir, to: destination + "/blobs", verify: false)
        }
        let keyFiles = try await BlockingWork.run { [config] in try Self.copyKeys(from: config.keysDir, to: destination + "/keys") }
        let manifest = Manifest(format: Self.format, createdAt: Date(), database: kind, blobs: blobs, blobBytes: bytes, keyFiles: keyFiles,
                                blobStore: config.objectStore != nil ? "s3" : nil)
        try Self.write(manifest, to: destination + "/" + Self.manifestFile)
        return manifest
    }

    // MARK: restore

    /// Restores `source` into this configuration's data folder and database, which must be empty:
    /// keys, then blobs (each checked against its digest), then the database. Refuses a backup of
    /// the other database kind, an unfinished backup and a target that holds anything.
    public func restore(from source: String) async throws -> Manifest {
        let manifestPath = source + "/" + Self.manifestFile
        guard let data = FileManager.default.contents(atPath: manifestPath) else {
            throw CommandProblem("\(source) is not a finished Souk backup: it has no \(Self.manifestFile)")
        }
        let manifest: Manifest
        do {
            manifest = try Self.decoder.decode(Manifest.self, from: data)
        } catch {
            throw CommandProblem("\(manifestPath) cannot be read: \(error)")
        }
        guard manifest.format == Self.format else {
            throw CommandProblem("\(manifestPath) has format \(manifest.format); this Souk restores \(Self.format)")
        }
        let kind = config.database.isPostgres ? "postgres" : "sqlite"
        guard manifest.database == kind else {
            throw CommandProblem(manifest.database == "postgres"
                ? "this backup holds a PostgreSQL database: restore it with SOUK_DATABASE_URL naming an empty PostgreSQL database"
                : "this backup holds a SQLite database: restore it without SOUK_DATABASE_URL, into an empty data folder")
        }
        if manifest.blobStore == "s3", config.objectStore == nil {
            throw CommandProblem("this backup's blobs are in an object store: restore it with blobStore s3 and the same bucket (SOUK_BLOB_STORE=s3, SOUK_S3_…)")
        }
        try await refuseNonEmptyTarget()

        let (dataDir, keysDir, blobsDir) = (config.dataDir, config.keysDir, config.blobsDir)
        try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
        do {
            _ = try await BlockingWork.run { try Self.copyKeys(from: source + "/keys", to: keysDir) }
            let (blobs, _) = try await BlockingWork.run { try Self.copyBlobs(from: source + "/blobs", to: blobsDir, verify: true) }
            guard blobs == manifest.blobs else {
                throw CommandProblem("the backup lists \(manifest.blobs) blobs but holds \(blobs)")
            }
            switch config.database {
            case .sqlite(let path):
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                let staging = path + ".restoring"
                try? FileManager.default.removeItem(atPath: staging)
                try FileManager.default.copyItem(atPath: source + "/" + Self.sqliteFile, toPath: staging)
                guard rename(staging, path) == 0 else { throw CommandProblem("cannot move the database into \(path)") }
            case .postgres(let url):
                try await PostgresTool.run("pg_restore", url: url, arguments: ["--single-transaction", "--exit-on-error", "--no-owner",
                                                                               "--no-privileges", source + "/" + Self.postgresFile])
            case .sqliteInMemory:
                throw CommandProblem("an in-memory database cannot be restored into")
            }
        } catch {
            // Leave the target as empty as it was, so the operator can fix the cause and run it again.
            try? FileManager.default.removeItem(atPath: keysDir)
            try? FileManager.default.removeItem(atPath: blobsDir)
            throw error
        }
        return manifest
    }

    /// The data folder may exist (an operator prepares it with the right owner), but may hold no
    /// keys, no blobs and no database; a PostgreSQL database may hold no tables.
    package func refuseNonEmptyTarget() async throws {
        let manager = FileManager.default
        var found: [String] = []
        if !((try? manager.contentsOfDirectory(atPath: config.keysDir)) ?? []).isEmpty { found.append(config.keysDir) }
        if !((try? manager.contentsOfDirectory(atPath: config.blobsDir + "/sha256")) ?? []).isEmpty { found.append(config.blobsDir) }
        switch config.database {
        case .sqlite(let path):
            if manager.fileExists(atPath: path) { found.append(path) }
        case .postgres:
            let database = try SoukDatabase(location: config.database, logger: .init(label: "souk.backup"))
            do {
                let row = try await database.sql.raw("""
                    SELECT count(*) AS tables FROM information_schema.tables WHERE table_schema = current_schema()
                    """).first()
                let tables = try row?.decode(column: "tables", as: Int.self) ?? 0
                await database.shutdown()
                if tables > 0 { found.append("the PostgreSQL database (\(tables) tables)") }
            } catch {
                await database.shutdown()
                throw error
            }
        case .sqliteInMemory:
            break
        }
        guard found.isEmpty else {
            throw CommandProblem("the restore target is not empty: \(found.joined(separator: ", ")). Restore into an empty data folder and database.")
        }
    }

    // MARK: files

    package static func prepareEmptyFolder(_ path: String, role: String) throws {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, (try manager.contentsOfDirectory(atPath: path)).isEmpty else {
                throw CommandProblem("the \(role) \(path) exists and is not an empty folder")
            }
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
        } else {
            try manager.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
    }

    /// Copies `<from>/sha256/ab/<digest>` files; with `verify`, each file's SHA-256 must be its name.
    package static func copyBlobs(from: String, to: String, verify: Bool) throws -> (Int, Int64) {
        let manager = FileManager.default
        var (count, bytes): (Int, Int64) = (0, 0)
        for shard in ((try? manager.contentsOfDirectory(atPath: from + "/sha256")) ?? []).sorted() {
            let folder = "\(from)/sha256/\(shard)"
            let target = "\(to)/sha256/\(shard)"
            try manager.createDirectory(atPath: target, withIntermediateDirectories: true)
            for name in try manager.contentsOfDirectory(atPath: folder).sorted() where Digest.isSHA256Hex(name) {
                let path = folder + "/" + name
                if verify {
                    guard try BlobStore.digest(ofFileAt: path) == name else { throw CommandProblem("the blob \(path) does not match its digest") }
                }
                let destination = target + "/" + name
                try? manager.removeItem(atPath: destination + ".part")
                do {
                    try manager.copyItem(atPath: path, toPath: destination + ".part")
                } catch where !manager.fileExists(atPath: path) {
                    // Gone since the listing: the sweep of unreferenced blobs took it (no row names
                    // it, so the backup does not need it). Blobs rows name are never removed.
                    try? manager.removeItem(atPath: destination + ".part")
                    continue
                }
                guard rename(destination + ".part", destination) == 0 else { throw CommandProblem("cannot write \(destination)") }
                count += 1
                bytes += ((try manager.attributesOfItem(atPath: destination))[.size] as? NSNumber)?.int64Value ?? 0
            }
        }
        try manager.createDirectory(atPath: to + "/tmp", withIntermediateDirectories: true)
        return (count, bytes)
    }

    /// Copies the key folder's files with owner-only permissions; returns their names.
    package static func copyKeys(from: String, to: String) throws -> [String] {
        let manager = FileManager.default
        let names = ((try? manager.contentsOfDirectory(atPath: from)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        try manager.createDirectory(atPath: to, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: to)
        for name in names {
            try manager.copyItem(atPath: from + "/" + name, toPath: to + "/" + name)
            try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: to + "/" + name)
        }
        return names
    }

    package static func write(_ manifest: Manifest, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(manifest).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    package static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// A backup or restore failure an operator can act on.
public struct CommandProblem: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Runs PostgreSQL's client tools (`pg_dump`, `pg_restore`) for a `postgres://` URL, handing the
/// password over in `PGPASSWORD`, never on a command line another user could read.
package enum PostgresTool {
    package static func run(_ tool: String, url: String, arguments: [String]) async throws {
        guard var components = URLComponents(string: url) else { throw CommandProblem("the database URL cannot be parsed") }
        var environment = ProcessInfo.processInfo.environment
        if let password = components.password {
            environment["PGPASSWORD"] = password
            components.password = nil
        }
        guard let executable = locate(tool) else {
            throw CommandProblem("\(tool) is not installed (Debian: apt-get install postgresql-client, the server's major version or newer)")
        }
        let commandLine = arguments + ["--dbname=\(components.string ?? url)"]
        let childEnvironment = environment
        let (status, output) = try await BlockingWork.run { try ChildProcess.run(executable, commandLine, environment: childEnvironment) }
        guard status == 0 else {
            let message = output.trimmingCharacters(in: .whitespacesAndNewlines)
            throw CommandProblem("\(tool) failed (exit \(status)): \(message.suffix(2000))")
        }
    }

    package static func locate(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let candidates = path.split(separator: ":").map { "\($0)/\(tool)" } + ["/usr/bin/\(tool)"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A program run to its end with `posix_spawn`: its exit status and what it wrote to stderr
/// (stdout goes to /dev/null).
///
/// Not Foundation's `Process`: its `run()` crashed with a bad pointer in `memcpy` inside the
/// test process (many threads, hundreds of descriptors), once in a full test run.
package enum ChildProcess {
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> (Int32, String) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw CommandProblem("cannot make a pipe (errno \(errno))") }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }  // the child gets only its dup2'd copy
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(pipeEnds[1])
        guard spawned == 0 else {
            close(pipeEnds[0])
            throw CommandProblem("cannot start \(executable) (error \(spawned))")
        }
        var output = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count > 0 {
                output += buffer[0..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(pipeEnds[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which Swift does not import; a signal counts as 128 + its number.
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exit, String(decoding: output, as: UTF8.self))
    }
}
