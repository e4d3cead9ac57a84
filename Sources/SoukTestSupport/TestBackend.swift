import Foundation
import Logging
import SQLKit
import SoukStore

/// The databases storage tests run on: SQLite always, PostgreSQL when `SOUK_TEST_POSTGRES_URL` is set
/// (CI sets it; `scripts/test.sh` starts a throwaway server and sets it).
public enum TestBackend: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite
    case postgres

    public var description: String { rawValue }

    /// The URL of a PostgreSQL server the tests may create databases on.
    public static var postgresURL: String? {
        ProcessInfo.processInfo.environment["SOUK_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The backends to run: SQLite, and PostgreSQL when configured. Without it, a loud line says so.
    public static var available: [TestBackend] {
        if postgresURL != nil { return [.sqlite, .postgres] }
        warnOnce
        return [.sqlite]
    }

    private static let warnOnce: Void = {
        FileHandle.standardError.write(Data("""
            ⚠️  SOUK_TEST_POSTGRES_URL is not set: PostgreSQL storage tests are SKIPPED (SQLite only).
                Run scripts/test.sh (it starts a throwaway PostgreSQL) to run them.\n
            """.utf8))
    }()

    /// A fresh, empty database location for one test, and a function that removes it again.
    public func makeLocation(dataDir: String) async throws -> (DatabaseLocation, @Sendable () async -> Void) {
        switch self {
        case .sqlite:
            return (.sqlite(path: dataDir + "/test.sqlite"), {})
        case .postgres:
            guard let adminURL = Self.postgresURL else { throw TestSetupError("SOUK_TEST_POSTGRES_URL is not set") }
            let name = "souk_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20))"
            try await Self.admin(adminURL) { sql in try await sql.raw("CREATE DATABASE \(unsafeRaw: name)").run() }
            guard var components = URLComponents(string: adminURL) else { throw TestSetupError("bad SOUK_TEST_POSTGRES_URL") }
            components.path = "/" + name
            return (.postgres(url: components.string!), {
                try? await Self.admin(adminURL) { sql in try await sql.raw("DROP DATABASE IF EXISTS \(unsafeRaw: name) WITH (FORCE)").run() }
            })
        }
    }

    private static func admin(_ url: String, _ body: (any SQLDatabase) async throws -> Void) async throws {
        try await body(try await adminDatabases.database(url).sql)
    }

    /// One pool per test process for creating and dropping test databases. A pool per call left its
    /// connections open for up to a minute after shutdown; with hundreds of PostgreSQL tests running
    /// in parallel on a loaded machine they exhausted the server's connections. The pool lives as
    /// long as the test process.
    private static let adminDatabases = AdminDatabases()

    private actor AdminDatabases {
        private var databases: [String: SoukDatabase] = [:]

        func database(_ url: String) throws -> SoukDatabase {
            if let known = databases[url] { return known }
            var logger = Logger(label: "souk.test.admin")
            logger.logLevel = .warning
            let database = try SoukDatabase(location: .postgres(url: url), logger: logger, poolTimeout: .seconds(120))
            databases[url] = database
            return database
        }
    }
}

/// A temporary folder removed by `remove()`.
public struct TemporaryFolder: Sendable {
    public let path: String

    public init() throws {
        path = NSTemporaryDirectory() + "souk-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

public struct TestSetupError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A logger for tests: warnings and worse only.
public func testLogger(_ label: String = "souk.test") -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = .warning
    return logger
}

/// The entries of a work or staging folder that work left behind: everything but the hidden
/// `.owners/` folder, where each process keeps its claim for as long as it runs (`WorkOwner`).
public func leftWorkFiles(in folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }
}
