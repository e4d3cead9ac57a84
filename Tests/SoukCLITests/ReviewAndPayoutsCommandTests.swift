import Foundation
@testable import SoukCLI
import SoukCore
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing
import SoukApp

/// `souk review list|approve|reject` and `souk payouts statement`, on both databases.
@Suite struct ReviewAndPayoutsCommandTests {
    static let item = "6450000021"

    @Test(arguments: TestBackend.available)
    func theOperatorApprovesAndRejectsVersionsInReview(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            try await SoukCommand.run(["apps", "create", "--apple-item-id", Self.item, "--bundle-id", "org.example.review", "--name", "Reviewed"] + settings)
            for version in ["9000000021", "9000000022"] {
                try await SoukCommand.run(["packages", "make-sample", "--apple-item-id", Self.item, "--apple-version-id", version,
                                           "--bundle-id", "org.example.review", "--short-version", "1.\(version.suffix(1))",
                                           "--bundle-version", String(version.suffix(2)), "--min-os", "17.0", "--variant-size", "20000",
                                           "--out", folder.path + "/pkg-\(version)"])
                try await SoukCommand.run(["packages", "import", folder.path + "/pkg-\(version)"] + settings)
            }
            // The operator's imports are released at once; what a developer uploads waits (written as their upload does).
            try await WebhooksCommandTests.withRuntime(config) { runtime in
                #expect(try await VersionReview(database: runtime.database).queue(actor: .cli(user: "t")).isEmpty)
                try await runtime.database.sql.raw("UPDATE app_versions SET review_state = 'in_review'").run()
            }
            try await SoukCommand.run(["review", "list"] + settings)
            try await SoukCommand.run(["review", "approve", "--apple-item-id", Self.item, "--apple-version-id", "9000000021"] + settings)
            await #expect(throws: CommandFailure.self) {  // approved already
                try await SoukCommand.run(["review", "approve", "--apple-item-id", Self.item, "--apple-version-id", "9000000021"] + settings)
            }
            await #expect(throws: (any Error).self) {  // a rejection names its reason
                try await SoukCommand.run(["review", "reject", "--apple-item-id", Self.item, "--apple-version-id", "9000000022"] + settings)
            }
            await #expect(throws: (any Error).self) {
                try await SoukCommand.run(["review", "reject", "--apple-item-id", Self.item, "--apple-version-id", "9000000022", "--reason", " "] + settings)
            }
            try await SoukCommand.run(["review", "reject", "--apple-item-id", Self.item, "--apple-version-id", "9000000022",
                                       "--reason", "Uses a private API"] + settings)
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["review", "approve", "--apple-item-id", Self.item, "--apple-version-id", "1"] + settings)
            }
            try await WebhooksCommandTests.withRuntime(config) { runtime in
                let first = try await runtime.catalog.version(appleItemId: 6_450_000_021, appleVersionId: 9_000_000_021)
                let second = try await runtime.catalog.version(appleItemId: 6_450_000_021, appleVersionId: 9_000_000_022)
                #expect(first.reviewState == .released && second.reviewState == .rejected && second.reviewReason == "Uses a private API")
                #expect(second.reviewedBy?.hasPrefix("cli:") == true)
                let app = try await runtime.catalog.app(appleItemId: 6_450_000_021)
                #expect(try await runtime.catalog.versions(of: app).map(\.appleVersionId) == [9_000_000_021])
                let audit = AuditLog(database: runtime.database)
                #expect(try await audit.list(action: "version.approve").map(\.target) == ["app:\(Self.item)/version:9000000021"])
                #expect(try await audit.list(action: "version.reject").map(\.target) == ["app:\(Self.item)/version:9000000022"])
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func aStatementIsPrintedAsATableOrCSV(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            try await WebhooksCommandTests.withRuntime(config) { runtime in
                _ = try await DeveloperDirectory(database: runtime.database).create(name: "Acme", id: "acme")
            }
            try await SoukCommand.run(["payouts", "statement", "--developer", "acme", "--month", "2026-11"] + settings)
            try await SoukCommand.run(["payouts", "statement", "--developer", "acme", "--month", "2026-11", "--csv"] + settings)
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["payouts", "statement", "--developer", "nobody", "--month", "2026-11"] + settings)
            }
            await #expect(throws: (any Error).self) {
                try await SoukCommand.run(["payouts", "statement", "--developer", "acme", "--month", "November"] + settings)
            }
        }
    }
}
