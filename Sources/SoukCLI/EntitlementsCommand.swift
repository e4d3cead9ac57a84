import ArgumentParser
import Foundation
import SoukCore
import SoukStore

/// `souk entitlements show`: what a person may use in an app now, as the API answers it;
/// `grant`, `revoke`, `grants`: promotional grants (issue 12 item 9).
struct EntitlementsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "entitlements", abstract: "Show a person's entitlements in an app; grant and revoke promotional ones.",
        subcommands: [Show.self, Grant.self, Revoke.self, Grants.self]
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Products and entitlement ids the account is entitled to now, with their ends; then consumable balances.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The account's email.") var account: String
        @Option(help: "The app (bundle id / package name).") var app: String

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let model = try await runtime.catalog.requireAccount(email: account)
                let accountId = try model.requireID()
                let catalog = try await runtime.commerceCatalogs.state(app: app)
                let environments = EntitlementEngine.environments(accountIsSandbox: model.sandbox,
                                                                  allowSandbox: catalog?.catalog.allowSandbox ?? false)
                let records = try await runtime.purchases.grantedRecords(account: accountId, app: app)
                let snapshot = EntitlementEngine.evaluate(records, catalog: catalog, environments: environments, at: Date())
                print(EntitlementsCommand.render(snapshot, balances: try await runtime.purchases.balances(account: accountId, app: app)
                    .filter { environments.contains($0.environment) }))
            }
        }
    }

    static func render(_ snapshot: EntitlementSnapshot, balances: [ConsumableBalance]) -> String {
        var rows: [[String]] = []
        for id in snapshot.productIds {
            let access = snapshot.products[id]!
            rows.append(["product", id, access.environment.rawValue, access.expiresAt.map(Table.date) ?? "never",
                         access.paymentId.uuidString.lowercased()])
        }
        for id in snapshot.entitlements.keys.sorted() {
            let access = snapshot.entitlements[id]!
            rows.append([access.isGrant ? "grant" : "entitlement", id, access.environment.rawValue, access.expiresAt.map(Table.date) ?? "never",
                         access.paymentId.uuidString.lowercased()])
        }
        for balance in balances {
            rows.append(["balance", balance.productId, balance.environment.rawValue, String(balance.balance), "-"])
        }
        return rows.isEmpty ? "No entitlements." : Table(["KIND", "ID", "ENVIRONMENT", "ENDS / BALANCE", "PAYMENT"], rows).render()
    }
}

extension EntitlementsCommand {
    /// `souk entitlements grant`: opens an entitlement for one account, outside every store.
    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Grant an entitlement to an account (promotional): it counts like a purchase until --until, or until revoked.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The account's email.") var account: String
        @Option(help: "The app (bundle id / package name).") var app: String
        @Option(help: "The entitlement id, as the app's catalog declares it.") var entitlement: String
        @Option(help: "When it ends, RFC 3339 (2027-01-01T00:00:00Z); without it, it lasts until revoked.") var until: String?
        @Option(help: "Why (kept with the grant).") var reason: String?

        func validate() throws {
            if let until, RFC3339.parse(until) == nil {
                throw ValidationError("--until must be an RFC 3339 date-time such as 2027-01-01T00:00:00Z; got '\(until)'")
            }
        }

        func run() async throws {
            let end = until.flatMap(RFC3339.parse)
            try await withRuntime(settings) { runtime in
                let accountId = try await runtime.catalog.requireAccount(email: account).requireID()
                guard let catalog = try await runtime.commerceCatalogs.state(app: app) else {
                    throw CommandFailure("\(app) has no in-app catalog; apply one with `souk catalog apply` first")
                }
                let grant: EntitlementGrant
                do {
                    grant = try await EntitlementGrantStore(purchases: runtime.purchases)
                        .grant(account: accountId, catalog: catalog.catalog, entitlement: entitlement, until: end, reason: reason)
                } catch let error as EntitlementGrantError {
                    throw CommandFailure(error.description)
                }
                try await AuditLog(database: runtime.database).record(
                    actor: AuditLog.cliActor, action: .entitlementGrant, target: "account:\(accountId.uuidString.lowercased())",
                    after: grant.auditFields)
                print("Granted \(entitlement) to \(account) in \(app) (\(grant.environment.rawValue)) until "
                    + "\(grant.expiresAt.map(Table.date) ?? "revoked"); grant \(grant.id.uuidString.lowercased())")
            }
        }
    }

    /// `souk entitlements revoke`: ends promotional grants now.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a promotional grant (--id), or every grant of an entitlement (--account, --app, --entitlement).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The grant id (as `entitlements grants` shows it).") var id: String?
        @Option(help: "The account's email.") var account: String?
        @Option(help: "The app (bundle id / package name).") var app: String?
        @Option(help: "The entitlement id.") var entitlement: String?

        func validate() throws {
            if let id {
                guard UUID(uuidString: id) != nil else { throw ValidationError("--id must be a grant id (a UUID); got '\(id)'") }
                guard account == nil, app == nil, entitlement == nil else {
                    throw ValidationError("Give either --id, or --account, --app and --entitlement, not both.")
                }
            } else if account == nil || app == nil || entitlement == nil {
                throw ValidationError("Give --id GRANT, or --account EMAIL, --app APP and --entitlement ID.")
            }
        }

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let grants = EntitlementGrantStore(purchases: runtime.purchases)
                if let id, let grantId = UUID(uuidString: id) {
                    let before = try await grants.grant(grantId)
                    guard let grant = try await grants.revoke(grantId), let before else { throw CommandFailure("no grant with id \(id)") }
                    if before.revokedAt == nil {
                        try await EntitlementsCommand.auditRevoke(before: before, after: grant, database: runtime.database)
                    }
                    print("Revoked grant \(id) (\(grant.entitlementId) in \(grant.app)) at \(grant.revokedAt.map(Table.date) ?? "-")")
                    return
                }
                guard let account, let app, let entitlement else { return }
                let accountId = try await runtime.catalog.requireAccount(email: account).requireID()
                let open = try await grants.list(account: accountId, app: app).filter { $0.revokedAt == nil }
                let revoked = try await grants.revoke(account: accountId, app: app, entitlement: entitlement)
                for after in revoked {
                    if let before = open.first(where: { $0.id == after.id }) {
                        try await EntitlementsCommand.auditRevoke(before: before, after: after, database: runtime.database)
                    }
                }
                guard !revoked.isEmpty else {
                    throw CommandFailure("\(account) has no unrevoked grant of \(entitlement) in \(app)")
                }
                print("Revoked \(revoked.count) grant(s) of \(entitlement) to \(account) in \(app)")
            }
        }
    }

    /// `souk entitlements grants`: the promotional grants, revoked and ended ones included.
    struct Grants: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One line per promotional grant: id, account, app, entitlement, environment, start, end, revocation, reason.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Only this account's grants (email).") var account: String?
        @Option(help: "Only this app's grants (bundle id / package name).") var app: String?

        func validate() throws {
            guard account != nil || app != nil else { throw ValidationError("Give --account EMAIL, --app APP, or both.") }
        }

        func run() async throws {
            try await withRuntime(settings) { runtime in
                var accountId: UUID?
                if let account { accountId = try await runtime.catalog.requireAccount(email: account).requireID() }
                var emails: [UUID: String] = [:]
                for model in try await runtime.catalog.accounts() { emails[try model.requireID()] = model.email }
                let list = try await EntitlementGrantStore(purchases: runtime.purchases).list(account: accountId, app: app)
                print(EntitlementsCommand.grantsTable(list, emails: emails))
            }
        }
    }


    static func auditRevoke(before: EntitlementGrant, after: EntitlementGrant, database: SoukDatabase) async throws {
        try await AuditLog(database: database).record(
            actor: AuditLog.cliActor, action: .entitlementRevoke, target: "account:\(after.accountId.uuidString.lowercased())",
            before: before.auditFields, after: after.auditFields)
    }

    /// The grants as a table, one line each.
    static func grantsTable(_ grants: [EntitlementGrant], emails: [UUID: String]) -> String {
        guard !grants.isEmpty else { return "No grants." }
        return Table(["GRANT", "ACCOUNT", "APP", "ENTITLEMENT", "ENVIRONMENT", "STARTS", "ENDS", "REVOKED", "REASON"], grants.map { grant in
            [grant.id.uuidString.lowercased(), emails[grant.accountId] ?? grant.accountId.uuidString.lowercased(), grant.app,
             grant.entitlementId, grant.environment.rawValue, Table.date(grant.startsAt), grant.expiresAt.map(Table.date) ?? "never",
             grant.revokedAt.map(Table.date) ?? "-", grant.reason ?? "-"]
        }).render()
    }
}
