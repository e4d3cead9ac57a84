import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

/// `souk entitlements show`: what a person may use in an app now, as the API answers it;
/// `grant`, `revoke`, `grants`: promotional grants.
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
                let person = try await PeopleDirectory(database: runtime.database).requireAccount(email: account)
                let accountId = person.id
                let catalog = try await runtime.commerceCatalogs.state(app: app)
                let environments = EntitlementEngine.environments(accountIsSandbox: person.sandbox,
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
                let person = try await PeopleDirectory(database: runtime.database).requireAccount(email: account)
                let grant = try await PeopleOperationError.failing {
                    try await PeopleOperations(runtime: runtime).grant(actor: .currentCLIUser, to: person, .init(
                        app: app, entitlement: entitlement, until: end, reason: reason))
                }
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
                let operations = PeopleOperations(runtime: runtime)
                if let id, let grantId = UUID(uuidString: id) {
                    let grant: EntitlementGrant
                    do {
                        grant = try await operations.revokeGrant(actor: .currentCLIUser, id: grantId)
                    } catch PeopleOperationError.noSuchGrant {
                        throw CommandFailure("no grant with id \(id)")
                    } catch let error as PeopleOperationError {
                        throw error.commandFailure
                    }
                    print("Revoked grant \(id) (\(grant.entitlementId) in \(grant.app)) at \(grant.revokedAt.map(Table.date) ?? "-")")
                    return
                }
                guard let account, let app, let entitlement else { return }
                let person = try await PeopleDirectory(database: runtime.database).requireAccount(email: account)
                let revoked = try await PeopleOperationError.failing {
                    try await operations.revokeGrants(actor: .currentCLIUser, of: person, app: app, entitlement: entitlement)
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
                let people = PeopleDirectory(database: runtime.database)
                if let account { accountId = try await people.requireAccount(email: account).id }
                var emails: [UUID: String] = [:]
                for person in try await people.accounts() { emails[person.id] = person.email }
                let list = try await EntitlementGrantStore(purchases: runtime.purchases).list(account: accountId, app: app)
                print(EntitlementsCommand.grantsTable(list, emails: emails))
            }
        }
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
