import FluentKit
import FluentPostgresDriver
import Foundation
import Logging
import NIOCore
import SoukCore

/// One public app with one released version, as a bulk load adds it (`CatalogStore.bulkAdd`):
/// synthetic catalogs for benchmarks and load tests.
public struct BulkApp: Sendable {
    public var appleItemId: UInt64
    public var bundleId: String
    public var name: String
    public var subtitle: String
    public var description: String
    public var developerName: String
    public var category: String?
    public var appleVersionId: UInt64
    public var bundleVersion: String
    public var shortVersionString: String
    public var minimumOS: [Platform: OSVersion]
    public var releaseDate: Date

    public init(appleItemId: UInt64, bundleId: String, name: String, subtitle: String, description: String, developerName: String,
                category: String?, appleVersionId: UInt64, bundleVersion: String, shortVersionString: String,
                minimumOS: [Platform: OSVersion], releaseDate: Date) {
        self.appleItemId = appleItemId
        self.bundleId = bundleId
        self.name = name
        self.subtitle = subtitle
        self.description = description
        self.developerName = developerName
        self.category = category
        self.appleVersionId = appleVersionId
        self.bundleVersion = bundleVersion
        self.shortVersionString = shortVersionString
        self.minimumOS = minimumOS
        self.releaseDate = releaseDate
    }
}

extension CatalogStore {
    /// Adds `count` apps, app `i` being `app(i)`, each with its one version, all or none.
    ///
    /// On PostgreSQL the rows are streamed with `COPY … FROM STDIN` in one transaction, with the
    /// catalog change-log triggers off for it: instead of one change-log row per app, the catalog
    /// revision moves once without a row, a gap that makes every running process's indexes reload in
    /// full (`CatalogIndex.changedApps`), as they would after that many changes anyway. On SQLite the
    /// apps are inserted 1,000 to a statement in one transaction, the triggers on.
    public func bulkAdd(count: Int, _ app: @escaping @Sendable (Int) -> BulkApp) async throws {
        guard count > 0 else { return }
        if database.location.isPostgres {
            try await bulkAddPostgres(count: count, app)
        } else {
            try await bulkAddModels(count: count, app)
        }
    }

    private func bulkAddModels(count: Int, _ app: @escaping @Sendable (Int) -> BulkApp) async throws {
        try await database.db.transaction { db in
            var index = 0
            while index < count {
                let batch = index..<min(index + 1000, count)
                let pairs = batch.map { i -> (BulkApp, AppModel) in
                    let bulk = app(i)
                    let model = AppModel(appleItemId: bulk.appleItemId, bundleId: bulk.bundleId, name: bulk.name, subtitle: bulk.subtitle,
                                         description: bulk.description, developerName: bulk.developerName)
                    model.id = UUID()
                    model.category = bulk.category
                    return (bulk, model)
                }
                try await pairs.map(\.1).create(on: db)
                try await pairs.map { bulk, model in
                    AppVersionModel(appID: model.id!, appleVersionId: bulk.appleVersionId, bundleVersion: bulk.bundleVersion,
                                    shortVersionString: bulk.shortVersionString, minimumOS: bulk.minimumOS, releaseDate: bulk.releaseDate)
                }.create(on: db)
                index = batch.upperBound
            }
        }
    }

    private func bulkAddPostgres(count: Int, _ app: @escaping @Sendable (Int) -> BulkApp) async throws {
        guard let postgres = database.db as? any PostgresDatabase else {
            throw CatalogError.invalid("the PostgreSQL driver gave no PostgreSQL connection")
        }
        let logger = database.logger
        try await postgres.withConnection { connection in
            connection.eventLoop.makeFutureWithTask {
                func run(_ sql: String) async throws { _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).get() }
                try await run("BEGIN")
                do {
                    try await run("ALTER TABLE apps DISABLE TRIGGER catalog_apps_changed")
                    try await run("ALTER TABLE app_versions DISABLE TRIGGER catalog_app_versions_changed")
                    let now = CopyText.timestamp(Date())
                    let appIDs = (0..<count).map { _ in UUID() }
                    // Synthetic catalogs share a few release dates: each is formatted once in a row.
                    var lastRelease: (date: Date?, text: String) = (nil, "")
                    try await Self.copy(connection, logger, table: "apps",
                                        columns: ["id", "apple_item_id", "bundle_id", "name", "subtitle", "description", "developer_name",
                                                  "access", "availability", "category", "created_at", "updated_at"],
                                        count: count) { i, line in
                        let bulk = app(i)
                        line.fields([appIDs[i].uuidString, String(AppleIDColumn.store(bulk.appleItemId)), bulk.bundleId, bulk.name,
                                     bulk.subtitle, bulk.description, bulk.developerName, AccessPolicy.public.rawValue,
                                     Availability.available.rawValue, bulk.category, now, now])
                    }
                    try await Self.copy(connection, logger, table: "app_versions",
                                        columns: ["id", "app_id", "apple_version_id", "bundle_version", "short_version_string", "platforms",
                                                  "minimum_os", "required_capabilities", "release_date", "manifest_sha256", "created_at",
                                                  "review_state"],
                                        count: count) { i, line in
                        let bulk = app(i)
                        if bulk.releaseDate != lastRelease.date { lastRelease = (bulk.releaseDate, CopyText.timestamp(bulk.releaseDate)) }
                        let platforms = bulk.minimumOS.keys.map(\.rawValue).sorted()
                        let minimumOS = Dictionary(uniqueKeysWithValues: bulk.minimumOS.map { ($0.key.rawValue, $0.value.description) })
                        line.fields([UUID().uuidString, appIDs[i].uuidString, String(AppleIDColumn.store(bulk.appleVersionId)),
                                     bulk.bundleVersion, bulk.shortVersionString, CopyText.array(platforms), CopyText.json(minimumOS),
                                     "{}", lastRelease.text, "", now, VersionReviewState.released.rawValue])
                    }
                    try await run("ALTER TABLE apps ENABLE TRIGGER catalog_apps_changed")
                    try await run("ALTER TABLE app_versions ENABLE TRIGGER catalog_app_versions_changed")
                    try await run("UPDATE catalog_revision SET value = value + 1 WHERE id = 1")
                    try await run("COMMIT")
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger).get()
                    throw error
                }
            }
        }.get()
    }

    /// Streams `count` rows, row `i` written by `row(i, &line)`, to `COPY table (columns) FROM STDIN`.
    private static func copy(_ connection: PostgresConnection, _ logger: Logger, table: String, columns: [String], count: Int,
                             row: (Int, inout CopyText) -> Void) async throws {
        try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
            var line = CopyText()
            for i in 0..<count {
                row(i, &line)
                if line.buffer.readableBytes >= 1 << 20 || i == count - 1 {
                    try await writer.write(line.buffer)
                    line.buffer.clear()
                }
            }
        }
    }
}

/// Rows in `COPY`'s text format: fields separated by tabs, `\N` for NULL, backslash, tab, newline
/// and carriage return escaped (PostgreSQL's documentation, "COPY", "Text Format").
struct CopyText {
    var buffer = ByteBuffer()

    mutating func fields(_ values: [String?]) {
        for (index, field) in values.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
            guard var value = field else {
                buffer.writeStaticString("\\N")
                continue
            }
            value.withUTF8 { bytes in
                guard bytes.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) else {
                    buffer.writeBytes(bytes)
                    return
                }
                for byte in bytes {
                    switch byte {
                    case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                    case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
                    case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
                    case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
                    default: buffer.writeInteger(byte)
                    }
                }
            }
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    /// A `timestamptz` in UTC, to the millisecond.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// A `text[]` literal of simple words (letters, digits, dots).
    static func array(_ words: [String]) -> String {
        "{" + words.joined(separator: ",") + "}"
    }

    /// A JSON object of strings, keys sorted, as `JSONEncoder` writes it.
    static func json(_ object: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(object)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
