import Foundation
import SoukApp
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The install verification key rotation the console's integrations page and `souk keys rotate`
/// share (`RotateInstallVerificationKey`), on both databases: only the operator side rotates, an
/// unknown app is refused before any key is made, and each rotation is audited once with the key
/// ids before and after.
@Suite struct KeyRotationOperationTests {
    typealias World = DeveloperAPIWorld

    @Test(arguments: TestBackend.available)
    func onlyTheOperatorSideRotatesAndEachRotationIsAuditedOnce(backend: TestBackend) async throws {
        try await World.with(backend) { _, runtime, _ in
            let rotate = RotateInstallVerificationKey(runtime: runtime)
            let marketplace = InstallVerificationKeyRecord.marketplaceOwner
            let first = try await runtime.installVerificationKeys.activeKeys()[marketplace]?.kid
            for actor in [AppAvailabilityOperationTests.support, AppAvailabilityOperationTests.acmeMember] {
                await #expect(throws: DeveloperOperationError.self) { try await rotate(actor: actor) }
            }
            await #expect(throws: DeveloperOperationError.notFound("No app has AppleItemID 6600999999.")) {
                try await rotate(actor: .cli(user: "ops"), owner: 6_600_999_999)
            }
            #expect(try await runtime.installVerificationKeys.activeKeys()[marketplace]?.kid == first)
            #expect(try await runtime.installVerificationKeys.activeKeys()[6_600_999_999] == nil)

            let rotated = try await rotate(actor: AppAvailabilityOperationTests.operatorStaff)
            #expect(rotated.kid != first)
            #expect(try await runtime.installVerificationKeys.activeKeys()[marketplace]?.kid == rotated.kid)
            let web = try await rotate(actor: .cli(user: "ops"), owner: World.acmeItem, kid: "WEBKEY0001")
            #expect(web.kid == "WEBKEY0001")

            let audit = AuditLog(database: runtime.database)
            let entries = try await audit.list(target: "key:marketplace")
            #expect(entries.map(\.action) == ["key.rotate"] && entries.map(\.actor) == ["operator@souk.test"])
            let appEntries = try await audit.list(target: "key:app:\(World.acmeItem)")
            #expect(appEntries.map(\.action) == ["key.rotate"] && appEntries.map(\.actor) == ["cli:ops"])
        }
    }
}
