import ArgumentParser
import FluentKit
import Foundation
import Hummingbird
import SoukCLI
import SQLKit
import SoukCore
import SoukStore
import SoukServer

extension BenchCommand {
    /// A synthetic purchase history for `scripts/bench-entitlements.sh`: a small catalog, many
    /// accounts, many granted purchases, and access tokens for some of the accounts.
    struct SeedPurchases: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "seed-purchases",
            abstract: "Add a bench app catalog, accounts and N granted purchases; write access tokens to a file (docs/benchmarks.md).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The app (bundle id).") var app: String = "org.example.bench.reader"
        @Option(help: "How many purchases in all.") var purchases: Int = 100_000
        @Option(help: "Over how many accounts (default: one per 10 purchases, at least --tokens).") var accounts: Int?
        @Option(help: "Access tokens to issue, for the first accounts (each is entitled to bench.monthly).") var tokens: Int = 100
        @Option(help: "Where to write the access tokens, one per line (mode 0600).") var tokenFile: String

        func run() async throws {
            let accountCount = accounts ?? max(tokens, purchases / 10)
            guard (1...10_000_000).contains(purchases), (1...1_000_000).contains(accountCount), (1...10_000).contains(tokens),
                  tokens <= accountCount, purchases >= accountCount else {
                throw ValidationError("--purchases 1…10000000, --accounts 1…1000000 and at most --purchases, --tokens 1…10000 and at most --accounts")
            }
            try await withRuntime(settings) { runtime in
                let started = ContinuousClock.now
                _ = try await runtime.commerceCatalogs.apply(Self.catalog(app: app))
                let accountIDs = try await Self.createAccounts(accountCount, on: runtime.database)
                try await Self.insertPurchases(purchases, accounts: accountIDs, app: app, on: runtime.database)
                // Eight at a time: each token is a few round trips to the database, which a second
                // core and the database's own processes answer meanwhile.
                let lines = try await withThrowingTaskGroup(of: String.self) { group in
                    var lines: [String] = []
                    lines.reserveCapacity(tokens)
                    for (index, account) in accountIDs.prefix(tokens).enumerated() {
                        if index >= 8, let line = try await group.next() { lines.append(line) }
                        group.addTask {
                            let grant = try await runtime.tokens.issueInstallGrant(accountID: account)
                            return try await runtime.tokens.exchange(subjectToken: grant, clientId: "bench").get().accessToken
                        }
                    }
                    for try await line in group { lines.append(line) }
                    return lines
                }
                guard FileManager.default.createFile(atPath: tokenFile, contents: Data((lines.joined(separator: "\n") + "\n").utf8),
                                                     attributes: [.posixPermissions: 0o600]) else {
                    throw CommandFailure("cannot write \(tokenFile)")
                }
                print("Seeded \(purchases) purchases of \(accountCount) accounts in \(app) (\(tokens) tokens in \(tokenFile)) in \(ContinuousClock.now - started)")
            }
        }

        /// Four products, one of each kind that entitles.
        static func catalog(app: String) -> CommerceCatalog {
            func product(_ id: String, _ type: ProductType, entitlements: [String]) -> ProductDefinition {
                var product = ProductDefinition(id: id, type: type, title: ["en-US": id], prices: [Price(currency: "USD", amount: 499)],
                                                skus: [.appleStore: "\(app).\(id)"], entitlements: entitlements)
                switch type {
                case .autoRenewable:
                    product.group = "plans"
                    product.level = id == "bench.yearly" ? 1 : 2
                    product.period = id == "bench.yearly" ? ISODuration(years: 1) : ISODuration(months: 1)
                case .nonRenewing: product.duration = ISODuration(days: 30)
                default: break
                }
                return product
            }
            return CommerceCatalog(
                app: app, entitlements: [EntitlementDefinition(id: "premium", title: "Premium"), EntitlementDefinition(id: "extra", title: "Extra")],
                products: [product("bench.monthly", .autoRenewable, entitlements: ["premium"]),
                           product("bench.yearly", .autoRenewable, entitlements: ["premium", "extra"]),
                           product("bench.book", .nonConsumable, entitlements: ["extra"]),
                           product("bench.pass", .nonRenewing, entitlements: ["premium"])])
        }

        static func createAccounts(_ count: Int, on database: SoukDatabase) async throws -> [UUID] {
            let run = UUID().uuidString.prefix(8).lowercased()
            var ids: [UUID] = []
            ids.reserveCapacity(count)
            var index = 0
            while index < count {
                let batch = index..<min(index + 1000, count)
                // What `CatalogStore.createAccount` writes for a customer who cannot sign in ('!' is
                // no password hash), 1,000 rows to a statement.
                var insert = database.sql.insert(into: "accounts")
                    .columns("id", "email", "password_hash", "disabled", "sandbox", "created_at", "role", "totp_enabled")
                let now = Date()
                for i in batch {
                    let id = UUID()
                    ids.append(id)
                    insert = insert.values(SQLBind(id), SQLBind("bench-\(run)-\(i)@example.com"), SQLBind("!"), SQLBind(false), SQLBind(false),
                                           SQLBind(now), SQLBind(AccountRole.customer.rawValue), SQLBind(false))
                }
                try await insert.run()
                index = batch.upperBound
            }
            return ids
        }

        /// Purchase `j` belongs to account `j % accounts`; each account's first purchase is an active
        /// monthly subscription, the others mix expired, revoked and lasting ones.
        static func insertPurchases(_ count: Int, accounts: [UUID], app: String, on database: SoukDatabase) async throws {
            let now = Date()
            let day: TimeInterval = 86_400
            let run = UUID().uuidString.prefix(8).lowercased()
            var index = 0
            while index < count {
                let batch = index..<min(index + 500, count)
                try await database.db.transaction { db in
                    let sql = db as! any SQLDatabase
                    var insert = sql.insert(into: "purchases").columns(
                        "id", "app", "account_id", "store", "status", "environment", "product_id", "store_product_id",
                        "claimed_transaction_id", "transaction_id", "original_transaction_id", "product_type", "purchase_date",
                        "expires_date", "revoked_at", "quantity", "ownership_type", "signed_date", "attempts", "created_at", "updated_at")
                    for j in batch {
                        let round = j / accounts.count
                        let (productId, type, bought, expires, revoked): (String, ProductType, Date, Date?, Date?) = switch round % 4 {
                        case 0: ("bench.monthly", .autoRenewable, now - 5 * day, now + 25 * day, nil)
                        case 1: ("bench.yearly", .autoRenewable, now - 400 * day, now - 35 * day, nil)
                        case 2: ("bench.book", .nonConsumable, now - 90 * day, nil, round % 8 == 6 ? now - 10 * day : nil)
                        default: ("bench.pass", .nonRenewing, now - Double(round) * day, nil, nil)
                        }
                        let transaction = "bench-\(run)-\(j)"
                        insert = insert.values(
                            SQLBind(UUID()), SQLBind(app), SQLBind(accounts[j % accounts.count]), SQLBind(CommerceStore.appleStore.rawValue),
                            SQLBind("granted"), SQLBind(CommerceEnvironment.production.rawValue), SQLBind(productId), SQLBind("\(app).\(productId)"),
                            SQLBind(transaction), SQLBind(transaction), SQLBind(transaction), SQLBind(type.rawValue), SQLBind(bought),
                            SQLBind(expires), SQLBind(revoked), SQLBind(1), SQLBind("PURCHASED"), SQLBind(bought), SQLBind(0), SQLBind(now), SQLBind(now))
                    }
                    try await insert.run()
                }
                index = batch.upperBound
            }
        }
    }

    /// The framework's floor for the entitlement check: the same route answering fixed bytes.
    struct EntitlementFloor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "entitlement-floor",
            abstract: "Serve GET /commerce/:app/entitlement/:id answering fixed bytes: no storage, no middleware (scripts/bench-entitlements.sh).")
        @Option(help: "Port on 127.0.0.1.") var port: Int

        func run() async throws {
            let router = Router()
            router.get("commerce/:app/entitlement/:id") { _, context -> Response in
                // The id is read so the route does the same parameter work as the real one.
                let id = try context.parameters.require("id")
                var body = ByteBuffer()
                body.writeString(#"{"id":"\#(id)","type":"entitlement"}"#)
                return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
            }
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
            try await app.runService()
        }
    }
}
