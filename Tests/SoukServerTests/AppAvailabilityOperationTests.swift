import Foundation
import SoukApp
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The operations the operator's console and the CLI share for an app's availability and a
/// version's withdrawal (`SetAppAvailability`, `SetVersionWithdrawn`), on both databases: who may,
/// what is refused before anything changes, and one audit entry per change.
@Suite struct AppAvailabilityOperationTests {
    typealias World = DeveloperAPIWorld
    static let operatorStaff = SoukActor.staff(accountID: UUID(), email: "operator@souk.test", role: .operator)
    static let support = SoukActor.staff(accountID: UUID(), email: "support@souk.test", role: .support)
    static let acmeMember = SoukActor.developerMember(accountID: UUID(), email: "dev@acme.test", developerID: "acme", role: .owner)

    @Test(arguments: TestBackend.available)
    func onlyTheOperatorSideChangesAvailabilityAndEachChangeIsAuditedOnce(backend: TestBackend) async throws {
        try await World.with(backend) { _, runtime, _ in
            let set = SetAppAvailability(services: DeveloperServices(runtime: runtime, now: Date.init))
            for actor in [Self.support, Self.acmeMember] {
                await #expect(throws: DeveloperOperationError.self) {
                    try await set(.takenDown, actor: actor, appleItemId: World.acmeItem, reason: "policy")
                }
            }
            await #expect(throws: DeveloperOperationError.invalid(field: "reason", "A reason has at most 500 characters.")) {
                try await set(.takenDown, actor: Self.operatorStaff, appleItemId: World.acmeItem, reason: String(repeating: "x", count: 501))
            }
            await #expect(throws: DeveloperOperationError.notFound("No app of yours has this AppleItemID.")) {
                try await set(.takenDown, actor: Self.operatorStaff, appleItemId: 6_600_999_999)
            }
            #expect(try await runtime.catalog.app(appleItemId: World.acmeItem).availability == .available)

            let down = try await set(.takenDown, actor: Self.operatorStaff, appleItemId: World.acmeItem, reason: " policy ")
            #expect(down.appleItemId == World.acmeItem && down.bundleId == World.acmeApp)
            #expect(down.before == .available && down.after == .takenDown && down.changed)
            #expect(try await runtime.catalog.app(appleItemId: World.acmeItem).takedownReason == "policy")
            let again = try await set(.takenDown, actor: .cli(user: "ops"), appleItemId: World.acmeItem, reason: "policy")
            #expect(!again.changed)
            let removed = try await set(.removedByDeveloper, actor: .cli(user: "ops"), appleItemId: World.acmeItem)
            #expect(removed.changed && removed.after == .removedByDeveloper)
            try await set(.available, actor: Self.operatorStaff, appleItemId: World.acmeItem)

            let entries = try await AuditLog(database: runtime.database).list(target: "app:\(World.acmeItem)")
            #expect(entries.map(\.action).reversed() == ["app.takedown", "app.remove", "app.reinstate"])
            #expect(entries.map(\.actor).reversed() == ["operator@souk.test", "cli:ops", "operator@souk.test"])
        }
    }

    @Test(arguments: TestBackend.available)
    func aVersionIsWithdrawnOnceAndAnotherOrganisationsVersionIsNotFound(backend: TestBackend) async throws {
        try await World.with(backend) { _, runtime, _ in
            let services = DeveloperServices(runtime: runtime, now: Date.init)
            let version = try await Self.version(runtime, item: World.acmeItem, bundle: World.acmeApp, id: 9_660_000_001)
            let withdraw = SetVersionWithdrawn(services: services)
            #expect(try await withdraw(true, actor: .cli(user: "ops"), appleItemId: World.acmeItem, appleVersionId: version, reason: "crashes"))
            #expect(try await !withdraw(true, actor: .cli(user: "ops"), appleItemId: World.acmeItem, appleVersionId: version, reason: "crashes"))
            await #expect(throws: DeveloperOperationError.self) {
                try await withdraw(false, actor: .developerMember(accountID: UUID(), email: "dev@beta.test", developerID: "beta", role: .owner),
                                   appleItemId: World.acmeItem, appleVersionId: version)
            }
            await #expect(throws: DeveloperOperationError.self) {
                try await withdraw(false, actor: Self.support, appleItemId: World.acmeItem, appleVersionId: version)
            }
            #expect(try await withdraw(false, actor: Self.acmeMember, appleItemId: World.acmeItem, appleVersionId: version))
            let entries = try await AuditLog(database: runtime.database).list(target: "app:\(World.acmeItem)/version:\(version)")
            #expect(entries.map(\.action).reversed() == ["version.withdraw", "version.reinstate"])
        }
    }

    /// A version of `item` in the catalog (its files do not matter here).
    static func version(_ runtime: SoukRuntime, item: UInt64, bundle: String, id: UInt64) async throws -> UInt64 {
        let app = try await runtime.catalog.app(appleItemId: item)
        try await AppVersionModel(appID: try app.requireID(), appleVersionId: id, bundleVersion: "1", shortVersionString: "1.0",
                                  minimumOS: [.iOS: OSVersion("17.0")!], releaseDate: Date()).create(on: runtime.database.db)
        return id
    }
}
