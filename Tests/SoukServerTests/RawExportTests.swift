import Foundation
import HTTPTypes
import HummingbirdTesting
import SoukApp
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The raw exports of an app's purchases and events (docs/metrics.md, "Exports"): every row of the
/// range, page after page, in the order recorded, buyers by account token; the reach check; the
/// developer API's streamed download. On SQLite and PostgreSQL.
@Suite struct RawExportTests {
    typealias World = DeveloperAPIWorld

    /// 2026-11-10T00:00:00Z.
    static let day = MetricDay("2026-11-10")!

    /// Writes Acme's history: `count` purchases and events over 2026-11-10 and 11-11 (five of them
    /// at one instant, to tie), one of each on the days before and after, and two paid-app sales
    /// (one refunded). Answers the payment ids inside the range, in the order recorded.
    static func history(_ runtime: SoukRuntime, _ world: World, count: Int = 60) async throws -> [UUID] {
        let database = runtime.database
        let stranger = try await runtime.catalog.createAccount(email: "stranger@example.com", passwordHash: "-").requireID()
        var inside: [(Date, UUID)] = []
        let tie = day.start.addingTimeInterval(3600)
        for index in 0..<count {
            let at = index < 5 ? tie : day.start.addingTimeInterval(Double(index) * 150_000 / Double(count) + 0.123)
            let account = index % 2 == 0 ? world.buyer : stranger
            let id = try await ExportRows.purchase(database, app: World.acmeApp, account: account, at: at, transaction: "t\(index)")
            try await ExportRows.event(database, app: World.acmeApp, account: account, at: at, transaction: "t\(index)")
            inside.append((at, id))
        }
        for (name, at) in [("before", day.start.addingTimeInterval(-0.001)), ("after", day.adding(days: 2).start)] {
            try await ExportRows.purchase(database, app: World.acmeApp, account: world.buyer, at: at, transaction: name)
            try await ExportRows.event(database, app: World.acmeApp, account: world.buyer, at: at, transaction: name)
        }
        // Beta's catalog's rows never appear in Acme's export.
        try await ExportRows.purchase(database, app: World.betaApp, account: world.buyer, at: tie, transaction: "beta")
        try await ExportRows.order(database, appleItemId: World.acmeItem, account: world.buyer, paidAt: day.start.addingTimeInterval(7200), amount: 299)
        try await ExportRows.order(database, appleItemId: World.acmeItem, account: stranger, paidAt: day.start.addingTimeInterval(9000), amount: 499,
                                   currency: "JPY", refunded: 200, refundedAt: day.adding(days: 1).start.addingTimeInterval(60))
        return inside.map(\.1)
    }

    static func text(_ stream: RawExportStream) async throws -> String {
        var text = ""
        try await stream.write { text += $0 }
        return text
    }

    @Test(arguments: TestBackend.available)
    func aStorePurchaseCarriesThePriceItsStoreStatedInMinorUnits(backend: TestBackend) async throws {
        try await World.with(backend) { _, runtime, world in
            let at = Self.day.start.addingTimeInterval(600)
            try await ExportRows.purchase(runtime.database, app: World.acmeApp, account: world.buyer, at: at, transaction: "usd",
                                          price: (9_990, "USD"), refundedMilliunits: 4_990, country: "US")
            try await ExportRows.purchase(runtime.database, app: World.acmeApp, account: world.buyer, at: at.addingTimeInterval(1),
                                          transaction: "jpy", price: (1_200_000, "JPY"))
            try await ExportRows.purchase(runtime.database, app: World.acmeApp, account: world.buyer, at: at.addingTimeInterval(2), transaction: "none")
            let asked = RawExportRequest(kind: .purchases, app: World.acmeApp, from: Self.day, to: Self.day, format: .jsonl)
            let lines = try await Self.text(try await RawExports(runtime: runtime).open(actor: .cli(user: "ops"), asked))
                .split(separator: "\n").map(String.init)
            #expect(lines.count == 3)
            #expect(lines[0].hasSuffix(#""amount":999,"currency":"USD","amount_refunded":499,"refunded_at":null,"country":"US"}"#), "\(lines[0])")
            #expect(lines[1].hasSuffix(#""amount":1200,"currency":"JPY","amount_refunded":null,"refunded_at":null,"country":null}"#), "\(lines[1])")
            #expect(lines[2].hasSuffix(#""amount":null,"currency":null,"amount_refunded":null,"refunded_at":null,"country":null}"#), "\(lines[2])")
        }
    }

    @Test(arguments: TestBackend.available)
    func anExportHoldsEveryRowOfTheRangeAcrossPagesInTheOrderRecorded(backend: TestBackend) async throws {
        try await World.with(backend) { _, runtime, world in
            let ids = try await Self.history(runtime, world)
            var exports = RawExports(runtime: runtime)
            exports.pageSize = 7
            let acme = SoukActor.developerKey(keyID: world.acmeKeyID, developerID: "acme", scopes: [.purchasesRead])
            let asked = RawExportRequest(kind: .purchases, app: World.acmeApp, from: Self.day, to: Self.day.adding(days: 1), format: .csv)
            let csv = try await Self.text(try await exports.open(actor: acme, asked))
            let lines = csv.components(separatedBy: "\r\n").dropLast()
            #expect(csv.hasSuffix("\r\n") && lines.first == RawExportKind.purchases.columns.joined(separator: ","))
            let rows = lines.dropFirst().map { $0.components(separatedBy: ",") }
            #expect(rows.count == 62, "60 store purchases and 2 marketplace sales, \(rows.count) rows")
            let store = rows.filter { $0[2] == "apple_store" }
            #expect(Set(store.map { $0[5] }) == Set(ids.map { $0.uuidString.lowercased() }), "every purchase of the range once")
            #expect(store.count == Set(store.map { $0[5] }).count)
            #expect(rows.map { $0[0] } == rows.map { $0[0] }.sorted(), "in the order recorded")
            #expect(rows.first?[0] == "2026-11-10T01:00:00.000Z" && rows.contains { $0[0] == "2026-11-10T03:28:20.123Z" } && !csv.contains("before") && !csv.contains("after") && !csv.contains("beta"))
            #expect(!csv.contains("@example.com") && !csv.contains(world.buyer.uuidString.lowercased()))
            #expect(store.filter { $0[6] == world.acmeToken.uuidString.lowercased() }.count == 30, "buyers by account token")
            let sales = rows.filter { $0[2] == "marketplace" }
            #expect(sales.map { [$0[4], $0[9], $0[21], $0[22], $0[23]] } == [["paid", "paid-app", "299", "EUR", ""],
                                                                               ["refunded", "paid-app", "499", "JPY", "200"]])
            #expect(sales.first?[8] == String(World.acmeItem))

            let jsonl = try await Self.text(try await exports.open(actor: acme, RawExportRequest(
                kind: .events, app: World.acmeApp, from: Self.day, to: Self.day.adding(days: 1), format: .jsonl)))
            let events = jsonl.split(separator: "\n").map(String.init)
            #expect(events.count == 63, "60 events, 2 sales paid and 1 refunded: \(events.count)")
            let keys = RawExportKind.events.columns.map { "\"\($0)\":" }
            #expect(events.allSatisfy { line in
                var position = line.startIndex
                return keys.allSatisfy { key in
                    guard let found = line.range(of: key, range: position..<line.endIndex) else { return false }
                    position = found.upperBound
                    return true
                }
            }, "every key, in the columns' order")
            let refund = try #require(events.first { $0.contains("\"type\":\"refund\"") })
            #expect(refund.contains("\"amount\":200,\"currency\":\"JPY\"") && refund.contains("\"store\":\"marketplace\""))
            #expect(events.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) is [String: Any] })
        }
    }

    @Test(arguments: TestBackend.available)
    func anExportReachesOnlyTheActorsOwnApps(backend: TestBackend) async throws {
        try await World.with(backend) { _, runtime, world in
            _ = try await Self.history(runtime, world, count: 3)
            let exports = RawExports(runtime: runtime)
            let asked = RawExportRequest(kind: .purchases, app: World.acmeApp, from: Self.day, to: Self.day, format: .csv)
            let beta = SoukActor.developerKey(keyID: UUID(), developerID: "beta", scopes: [.purchasesRead])
            await #expect(throws: DeveloperOwnership.noSales) { _ = try await exports.open(actor: beta, asked) }
            let noScope = SoukActor.developerKey(keyID: UUID(), developerID: "acme", scopes: [.metricsRead])
            await #expect(throws: DeveloperOperationError.missingScope(.purchasesRead)) { _ = try await exports.open(actor: noScope, asked) }
            var unknown = asked
            unknown.app = "org.nobody.app"
            await #expect(throws: DeveloperOwnership.noSales) { _ = try await exports.open(actor: .cli(user: "t"), unknown) }
            // The marketplace's operator reaches every app; Acme's own app without a catalog has its sales.
            #expect(try await Self.text(try await exports.open(actor: .cli(user: "t"), asked)).split(separator: "\r\n").count == 6)
            var notes = asked
            notes.app = World.acmeNotesApp
            let member = SoukActor.developerMember(accountID: UUID(), email: "m@acme.test", developerID: "acme", role: .member)
            #expect(try await Self.text(try await exports.open(actor: member, notes)) == RawExportLines.header(.purchases, format: .csv))
        }
    }

    @Test(arguments: TestBackend.available)
    func theDeveloperAPIStreamsTheExport(backend: TestBackend) async throws {
        try await World.with(backend) { client, runtime, world in
            _ = try await Self.history(runtime, world, count: 600)
            let query = "app=\(World.acmeApp)&from=2026-11-10&to=2026-11-11"
            let csv = try await client.developer(.get, "exports/purchases?\(query)&format=csv", key: world.acmeKey)
            #expect(csv.status == .ok && csv.headers[.contentType] == ExportFormat.csv.contentType)
            #expect(csv.headers[.contentDisposition] == "attachment; filename=\"\(World.acmeApp)-purchases-2026-11-10-2026-11-11.csv\"")
            #expect(csv.text.components(separatedBy: "\r\n").count == 1 + 602 + 1, "header, rows, and the last line's end")
            let jsonl = try await client.developer(.get, "exports/events?\(query)&format=jsonl", key: world.acmeKey)
            #expect(jsonl.status == .ok && jsonl.text.split(separator: "\n").count == 603)
            #expect(!jsonl.text.contains(World.buyerEmail))

            let refusals: [(String, String?, HTTPResponse.Status, String?)] = [
                ("exports/purchases?app=\(World.betaApp)&from=2026-11-10&to=2026-11-11&format=csv", world.acmeKey, .notFound, nil),
                ("exports/purchases?\(query)&format=csv", world.betaKey, .notFound, nil),
                ("exports/purchases?app=\(World.acmeApp)&from=2026-11-31&to=2026-12-01&format=csv", world.acmeKey, .badRequest, "from"),
                ("exports/purchases?app=\(World.acmeApp)&from=2026-11-10&to=11/12/2026&format=csv", world.acmeKey, .badRequest, "to"),
                ("exports/purchases?app=\(World.acmeApp)&from=2026-11-12&to=2026-11-10&format=csv", world.acmeKey, .badRequest, "to"),
                ("exports/purchases?\(query)", world.acmeKey, .badRequest, "format"),
                ("exports/purchases?\(query)&format=xml", world.acmeKey, .badRequest, "format"),
                ("exports/purchases?from=2026-11-10&to=2026-11-11&format=csv", world.acmeKey, .badRequest, "app"),
                ("exports/metrix?\(query)&format=csv", world.acmeKey, .notFound, nil),
                ("exports/purchases?\(query)&format=csv", world.metricsOnlyKey, .forbidden, nil),
                ("exports/purchases?\(query)&format=csv", nil, .unauthorized, nil),
                ("exports/purchases?\(query)&format=csv", world.revokedKey, .unauthorized, nil),
            ]
            for (path, key, status, field) in refusals {
                let answer = try await client.developer(.get, path, key: key)
                #expect(answer.status == status, "\(path): \(answer.text)")
                #expect(answer.headers[.contentType]?.hasPrefix("application/problem+json") == true, "\(path)")
                if let field { #expect(answer.object["field"] as? String == field, "\(path): \(answer.text)") }
            }
        }
    }
}
