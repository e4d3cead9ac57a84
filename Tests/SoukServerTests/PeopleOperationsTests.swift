import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukCore
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `PeopleOperations`: what the operator's console and the `souk` commands do to a person. Each
/// operation asks `AccountScope` (the staff rules) itself and writes its own audit entry, so the
/// console and the commands record the same entry for the same action.
@Suite struct PeopleOperationsTests {
    static let everyone = ["ada@example.com", "sam@example.com", "sue@example.com", "olive@example.com", "otto@example.com"]

    static func person(_ runtime: SoukRuntime, _ email: String) async throws -> AccountRecord {
        try await PeopleDirectory(database: runtime.database).requireAccount(email: email)
    }

    static func staff(_ person: AccountRecord) -> SoukActor { .staff(accountID: person.id, email: person.email, role: person.role) }

    /// The audit log's entries, newest first (of one action).
    static func entries(_ runtime: SoukRuntime, _ action: AuditAction? = nil, limit: Int = 10_000) async throws -> [AuditEntry] {
        try await AuditLog(database: runtime.database).list(action: action?.rawValue, limit: limit)
    }

    static func latest(_ runtime: SoukRuntime) async throws -> AuditEntry {
        try #require(try await entries(runtime, limit: 1).first)
    }

    static func refusals(_ runtime: SoukRuntime) async throws -> [AuditEntry] {
        try await AuditLog(database: runtime.database).list(action: AuditAction.consoleRefused.rawValue, limit: 10_000)
    }

    @Test(arguments: TestBackend.available)
    func everyStaffRuleIsCheckedByTheOperationAndEveryRefusalAudited(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: StaffScopeConsoleTests.prepare) { _, runtime in
            let operations = PeopleOperations(runtime: runtime)
            var people: [AccountRecord] = []
            for email in Self.everyone { people.append(try await Self.person(runtime, email)) }
            // Every account signing out every account: exactly what StaffScope allows happens.
            for actor in people {
                for target in people {
                    let expected = StaffScope.verdict(.signOut, by: .init(id: actor.id, role: actor.role), on: .init(id: target.id, role: target.role))
                    let before = try await Self.refusals(runtime).count
                    do {
                        try await operations.signOut(actor: Self.staff(actor), person: target)
                        #expect(expected == .allowed, "\(actor.email) signed out \(target.email)")
                    } catch PeopleOperationError.refused(let reason) {
                        #expect(expected == .refused(reason), "\(actor.email) on \(target.email)")
                        let refusals = try await Self.refusals(runtime)
                        #expect(refusals.count == before + 1)
                        #expect(refusals.first?.actor == actor.email && refusals.first?.target == target.auditTarget)
                        #expect(refusals.first?.after?.contains(#""action":"sign-out""#) == true)
                    }
                }
            }
            let (ada, sam, olive) = (people[0], people[1], people[3])
            let grants = EntitlementGrantStore(purchases: runtime.purchases)
            // Support grants an app's own entitlement; a marketplace membership is an operator's.
            try await operations.grant(actor: Self.staff(sam), to: ada, .init(app: CommerceCatalogSamples.readerApp, entitlement: "premium",
                                                                              until: nil, reason: "support"))
            await #expect(throws: PeopleOperationError.self) {
                try await operations.grant(actor: Self.staff(sam), to: ada, .init(app: AppPricing.marketplaceApp, entitlement: "member",
                                                                                  until: nil, reason: "support"))
            }
            #expect(try await Self.refusals(runtime).first?.after?.contains(#""action":"grant-membership""#) == true)
            let membership = try await operations.grant(actor: Self.staff(olive), to: ada, .init(
                app: AppPricing.marketplaceApp, entitlement: "member", until: nil, reason: "operator"))
            await #expect(throws: PeopleOperationError.refused("Only an operator may revoke a marketplace membership; your role is support.")) {
                try await operations.revokeGrant(actor: Self.staff(sam), id: membership.id, of: ada)
            }
            #expect(try await grants.grant(membership.id)?.revokedAt == nil)
            // Operator-only actions: support is refused before anything changes.
            await #expect(throws: PeopleOperationError.self) { try await operations.setDisabled(true, actor: Self.staff(sam), person: ada) }
            #expect(try await Self.person(runtime, "ada@example.com").disabled == false)
            // An input error is told only after the scope check: a refused actor learns nothing more.
            await #expect(throws: PeopleOperationError.refused("The console does not act on your own account (to grant an entitlement).")) {
                try await operations.grant(actor: Self.staff(sam), to: sam, .init(app: CommerceCatalogSamples.readerApp, entitlement: "premium",
                                                                                  until: nil, reason: "", inputError: "Say why."))
            }
            await #expect(throws: PeopleOperationError.invalid("Say why.")) {
                try await operations.grant(actor: Self.staff(sam), to: ada, .init(app: CommerceCatalogSamples.readerApp, entitlement: "premium",
                                                                                  until: nil, reason: "", inputError: "Say why."))
            }
            // Developer actors never act on accounts, and their refusal is no console entry.
            let count = try await Self.refusals(runtime).count
            let key = SoukActor.developerKey(keyID: UUID(), developerID: "acme", scopes: Set(DeveloperScope.allCases))
            await #expect(throws: PeopleOperationError.refused("Only the marketplace's staff act on accounts.")) {
                try await operations.signOut(actor: key, person: ada)
            }
            #expect(try await Self.refusals(runtime).count == count)
            // The machine's operator acts on anyone, an operator included; only it sets roles, two-factor sign-in and device limits.
            try await operations.setDisabled(true, actor: .cli(user: "root"), person: olive)
            try await operations.setDisabled(false, actor: .cli(user: "root"), person: olive)
            await #expect(throws: PeopleOperationError.self) { try await operations.setRole(.support, actor: Self.staff(olive), person: ada) }
            await #expect(throws: PeopleOperationError.self) { _ = try await operations.resetTOTP(actor: Self.staff(olive), person: sam) }
            await #expect(throws: PeopleOperationError.self) { try await operations.setDeviceLimit(actor: Self.staff(olive), of: ada, to: 1) }
            await #expect(throws: PeopleOperationError.invalid("A device limit is 0–1000.")) {
                try await operations.setDeviceLimit(actor: .cli(user: "root"), of: ada, to: 1001)
            }
            #expect(try await Self.person(runtime, "ada@example.com").deviceLimit == nil)
            #expect(try await Self.person(runtime, "ada@example.com").role == .customer)
            // A whole app's subscribers: an operator's, asked of the same rule.
            let appCount = try await Self.refusals(runtime).count
            await #expect(throws: PeopleOperationError.refused("Only an operator may do this; your role is support.")) {
                try await operations.scope.check(.extendSubscriptions, actor: Self.staff(sam), app: CommerceCatalogSamples.readerApp)
            }
            #expect(try await Self.refusals(runtime).first?.target == "app:\(CommerceCatalogSamples.readerApp)")
            #expect(try await Self.refusals(runtime).count == appCount + 1)
            try await operations.scope.check(.extendSubscriptions, actor: Self.staff(olive), app: CommerceCatalogSamples.readerApp)
            try await operations.scope.check(.extendSubscriptions, actor: .cli(user: "root"), app: CommerceCatalogSamples.readerApp)
        }
    }

    @Test(arguments: TestBackend.available)
    func eachOperationWritesItsOwnAuditEntryWithTheActorItWasGiven(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: StaffScopeConsoleTests.prepare) { _, runtime in
            let operations = PeopleOperations(runtime: runtime)
            let cli = SoukActor.cli(user: "ops")
            let ada = try await Self.person(runtime, "ada@example.com")

            let grant = try await operations.grant(actor: cli, to: ada, .init(app: CommerceCatalogSamples.readerApp, entitlement: "premium",
                                                                              until: nil, reason: "promo"))
            var entry = try await Self.latest(runtime)
            #expect(entry.actor == "cli:ops" && entry.action == "entitlement.grant" && entry.target == ada.auditTarget)
            #expect(entry.after?.contains(grant.id.uuidString.lowercased()) == true && entry.before == nil)
            try await operations.revokeGrant(actor: cli, id: grant.id)
            entry = try await Self.latest(runtime)
            #expect(entry.action == "entitlement.revoke" && entry.target == ada.auditTarget && entry.before?.contains("revoked_at") == false)
            var total = try await Self.entries(runtime).count
            try await operations.revokeGrant(actor: cli, id: grant.id)  // already revoked: no entry
            #expect(try await Self.entries(runtime).count == total)
            await #expect(throws: PeopleOperationError.noSuchGrant) { try await operations.revokeGrant(actor: cli, id: UUID()) }

            #expect(try await operations.setDisabled(true, actor: cli, person: ada))
            entry = try await Self.latest(runtime)
            #expect(entry.action == "account.disable" && entry.after == #"{"disabled":"true","email":"ada@example.com"}"#)
            total = try await Self.entries(runtime).count
            #expect(try await operations.setDisabled(true, actor: cli, person: ada) == false)
            #expect(try await Self.entries(runtime).count == total)
            try await operations.setDisabled(false, actor: cli, person: ada)
            #expect(try await Self.latest(runtime).action == "account.enable")

            try await operations.signOut(actor: cli, person: ada)
            #expect(try await Self.latest(runtime).action == "account.sign-out")
            let link = try await operations.makeResetLink(actor: cli, person: ada)
            entry = try await Self.latest(runtime)
            #expect(entry.action == "account.reset-password" && entry.after?.contains(PeopleOperations.auditDate(link.expiresAt)) == true)
            #expect(entry.after?.contains(link.token) == false)
            try await operations.setPassword(hash: try PasswordHashing.hash("another horse"), actor: cli, person: ada)
            #expect(try await Self.latest(runtime).action == "account.reset-password")

            #expect(try await operations.setRole(.support, actor: cli, person: ada) == .customer)
            entry = try await Self.latest(runtime)
            #expect(entry.action == "account.set-role" && entry.after == #"{"email":"ada@example.com","role":"support"}"#)
            total = try await Self.entries(runtime).count
            #expect(try await operations.setRole(.support, actor: cli, person: ada) == nil)
            #expect(try await operations.resetTOTP(actor: cli, person: ada) == false)
            #expect(try await Self.entries(runtime).count == total)

            let made = try await operations.create(actor: cli, email: "New@Example.com", passwordHash: try PasswordHashing.hash("correct horse"),
                                                   role: .support, sandbox: true)
            entry = try await Self.latest(runtime)
            #expect(made.email == "new@example.com" && made.role == .support && made.sandbox)
            #expect(entry.action == "account.create" && entry.target == made.auditTarget && entry.actor == "cli:ops")
        }
    }

    /// The settings a `souk` command needs to open the fixture's database.
    static func settings(_ runtime: SoukRuntime) -> [String] {
        var settings = ["--data-dir", runtime.config.dataDir]
        if case .postgres(let url) = runtime.config.database { settings += ["--database-url", url] }
        return settings
    }

    /// An entry without who wrote it and without the ids that differ between two grants.
    static func comparable(_ entry: AuditEntry?) -> [String?] {
        func strip(_ text: String?) -> String? {
            text?.replacingOccurrences(of: #""grant":"[0-9a-f-]+""#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #""revoked_at":"[^"]+""#, with: "", options: .regularExpression)
        }
        return [entry?.action, entry?.target, strip(entry?.before), strip(entry?.after)]
    }

    @Test(arguments: TestBackend.available)
    func theConsoleAndTheCommandsWriteTheSameEntryForTheSameAction(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, configure: { config in
            // The commands open the data folder's database, as `souk` does on the server.
            if case .sqlite = config.database { config.database = .sqlite(path: config.dataDir + "/souk.sqlite") }
        }, prepare: StaffScopeConsoleTests.prepare) { client, runtime in
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let ada = try await Self.person(runtime, "ada@example.com")
            let settings = Self.settings(runtime)
            let cliName = SoukActor.currentCLIUser.auditName

            _ = try await AdminConsoleTests.post(client, "/admin/people/\(ada.id.uuidString.lowercased())/disable", session: olive)
            let consoleDisable = try await Self.entries(runtime, .accountDisable, limit: 1).first
            try await SoukCommand.run(["accounts", "enable", "--email", "ada@example.com"] + settings)
            let cliEnable = try await Self.entries(runtime, .accountEnable, limit: 1).first
            try await SoukCommand.run(["accounts", "disable", "--email", "ada@example.com"] + settings)
            let cliDisable = try await Self.entries(runtime, .accountDisable, limit: 1).first
            _ = try await AdminConsoleTests.post(client, "/admin/people/\(ada.id.uuidString.lowercased())/enable", session: olive)
            let consoleEnable = try await Self.entries(runtime, .accountEnable, limit: 1).first
            #expect(consoleDisable?.actor == "olive@example.com" && cliDisable?.actor == cliName)
            #expect(consoleEnable?.actor == "olive@example.com" && cliEnable?.actor == cliName)
            #expect(Self.comparable(consoleDisable) == Self.comparable(cliDisable) && consoleDisable?.id != cliDisable?.id)
            #expect(Self.comparable(consoleEnable) == Self.comparable(cliEnable) && consoleEnable?.id != cliEnable?.id)

            _ = try await AdminConsoleTests.post(client, "/admin/people/\(ada.id.uuidString.lowercased())/grants", session: olive,
                                                 ["app": CommerceCatalogSamples.readerApp, "entitlement": "premium", "reason": "promo"])
            let consoleGrant = try await Self.entries(runtime, .entitlementGrant, limit: 1).first
            try await SoukCommand.run(["entitlements", "grant", "--account", "ada@example.com", "--app", CommerceCatalogSamples.readerApp,
                                       "--entitlement", "premium", "--reason", "promo"] + settings)
            let cliGrant = try await Self.entries(runtime, .entitlementGrant, limit: 1).first
            #expect(consoleGrant?.actor == "olive@example.com" && cliGrant?.actor == cliName)
            #expect(Self.comparable(consoleGrant) == Self.comparable(cliGrant) && consoleGrant?.id != cliGrant?.id)

            let open = try await EntitlementGrantStore(purchases: runtime.purchases).list(account: ada.id).sorted { $0.startsAt < $1.startsAt }
            try #require(open.count == 2)
            _ = try await AdminConsoleTests.post(client, "/admin/people/\(ada.id.uuidString.lowercased())/grants/\(open[0].id.uuidString.lowercased())/revoke",
                                                 session: olive)
            let consoleRevoke = try await Self.entries(runtime, .entitlementRevoke, limit: 1).first
            try await SoukCommand.run(["entitlements", "revoke", "--id", open[1].id.uuidString.lowercased()] + settings)
            let cliRevoke = try await Self.entries(runtime, .entitlementRevoke, limit: 1).first
            #expect(consoleRevoke?.actor == "olive@example.com" && cliRevoke?.actor == cliName)
            #expect(Self.comparable(consoleRevoke) == Self.comparable(cliRevoke) && consoleRevoke?.id != cliRevoke?.id)

            // `souk accounts reset-password` sets the password and writes the console's reset action too.
            try await SoukCommand.run(["accounts", "reset-password", "--email", "ada@example.com", "--password", "another horse"] + settings)
            let cliReset = try await Self.entries(runtime, .accountResetPassword, limit: 1).first
            #expect(cliReset?.actor == cliName && cliReset?.target == ada.auditTarget && cliReset?.after?.contains("signed out") == true)
        }
    }
}
