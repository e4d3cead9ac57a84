import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLKit
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing
import SoukApp

/// Review before release: a version in review (or rejected) is offered nowhere — restore, updates,
/// packages, the JSON API, the storefront — until the operator approves it, which every index sees
/// through the catalog change log; only the operator decides, once, and each decision is audited.
@Suite struct VersionReviewTests {
    /// `AppDataTests.prepare`, support and operator staff, and 1.3 (103) of app 1 waiting in review.
    static func prepare(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await AppDataTests.prepare(runtime, paths)
        let hash = try PasswordHashing.hash(OAuthTests.password)
        for (email, role) in [("sam@example.com", AccountRole.support), ("olive@example.com", .operator)] {
            let account = try await runtime.catalog.createAccount(email: email, passwordHash: hash)
            account.role = role
            try await account.save(on: runtime.database.db)
        }
        try await runtime.importSample(appleItemId: 1, appleVersionId: 103, bundleId: "org.example.one", minimumOS: "17.4",
                                       releaseDate: Date(), in: paths.folder)
        try await setReviewState(.inReview, runtime, appleVersionId: 103)
    }

    /// What a developer's upload does to a version (another part of Souk writes it).
    static func setReviewState(_ state: VersionReviewState, _ runtime: SoukRuntime, appleVersionId: UInt64) async throws {
        try await runtime.database.sql.raw("""
            UPDATE app_versions SET review_state = \(bind: state.rawValue) WHERE apple_version_id = \(bind: Int64(appleVersionId))
            """).run()
    }

    static let device = #""platform": "iOS", "osVersion": "17.4""#

    /// Whether each way a device, the storefront and the API reach a version offers 103.
    static func offered(_ client: any TestClientProtocol) async throws -> [String: Bool] {
        let updates = try AppDataTests.json(try await AppDataTests.post(client, "updates",
            #"{"apps": [{"appleItemId": "1", "appleVersionId": "102"}], \#(device)}"#))
        let latest = try AppDataTests.json(try await AppDataTests.post(client, "restore",
            #"{"apps": [{"appleItemId": "1", "appleVersionId": "0"}], \#(device)}"#))
        let exact = try AppDataTests.json(try await AppDataTests.post(client, "restore",
            #"{"apps": [{"appleItemId": "1", "appleVersionId": "103"}], \#(device)}"#))
        let api = try AppDataTests.json(try await client.execute(uri: "/api/v1/apps/1", method: .get))
        let page = String(buffer: try await client.execute(uri: "/apps/1", method: .get).body)
        return [
            "updates": (updates["updates"] as? [[String: Any]])?.first?["appleVersionId"] as? String == "103",
            "restore latest": (latest["restores"] as? [[String: Any]])?.first?["appleVersionId"] as? String == "103",
            "restore exact": (exact["restores"] as? [[String: Any]])?.first?["appleVersionId"] as? String == "103",
            "package": try await client.execute(uri: "/packages/1/103/manifest.json", method: .get).status == .ok,
            "api": (api["latestVersion"] as? [String: Any])?["appleVersionId"] as? String == "103"
                && (api["versions"] as? [[String: Any]])?.contains { $0["appleVersionId"] as? String == "103" } == true,
            "storefront": page.contains("<strong>1.3</strong>"),
        ]
    }

    @Test(arguments: TestBackend.available)
    func aVersionInReviewIsOfferedNowhereUntilTheOperatorApprovesIt(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let nowhere = try await Self.offered(client)
            #expect(nowhere.values.allSatisfy { !$0 }, "\(nowhere)")
            // Nor is a license handed out for one of its assets.
            let variant = try #require(try await runtime.catalog.files(of: try await runtime.catalog.version(appleItemId: 1, appleVersionId: 103))
                .compactMap(\.publicId).first)
            let licenses = LicenseStore(database: runtime.database)
            #expect(try await licenses.asset(variant, appleItemId: 1, appleVersionId: 103) == .notInVersion)
            // Nor does 1.2's package go: the version in review changes nothing that is offered.
            #expect(try await client.execute(uri: "/packages/1/102/manifest.json", method: .get).status == .ok)

            let review = VersionReview(database: runtime.database)
            #expect(try await review.queue(actor: .cli(user: "tester")).map(\.appleVersionId) == [103])
            let comparison = try await review.comparison(actor: .cli(user: "tester"), appleItemId: 1, appleVersionId: 103)
            #expect(comparison.previous?.appleVersionId == 102)
            #expect(comparison.version.lines.contains("short version: 1.3") && comparison.version.size > 0)

            let released = try await review.approve(actor: .cli(user: "tester"), appleItemId: 1, appleVersionId: 103)
            #expect(released.reviewState == .released)
            let everywhere = try await Self.offered(client)
            #expect(everywhere.values.allSatisfy { $0 }, "\(everywhere)")
            #expect(try await licenses.asset(variant, appleItemId: 1, appleVersionId: 103) != .notInVersion)
            #expect(try await review.queue(actor: .cli(user: "tester")).isEmpty)

            // Approving again is a clear refusal, not a second change (nor a second audit entry).
            await #expect(throws: VersionReview.Failure.notInReview(.released)) {
                try await review.approve(actor: .cli(user: "tester"), appleItemId: 1, appleVersionId: 103)
            }
            await #expect(throws: VersionReview.Failure.notFound(appleItemId: 1, appleVersionId: 999)) {
                try await review.approve(actor: .cli(user: "tester"), appleItemId: 1, appleVersionId: 999)
            }
            let entries = try await AuditLog(database: runtime.database).list(action: "version.approve")
            #expect(entries.count == 1)
            #expect(entries.first?.actor == "cli:tester" && entries.first?.target == "app:1/version:103")
            #expect(entries.first?.before == #"{"review_state":"in_review"}"# && entries.first?.after == #"{"review_state":"released"}"#)
        }
    }

    @Test(arguments: TestBackend.available)
    func onlyTheOperatorDecidesAndARejectionNeedsAReason(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let review = VersionReview(database: runtime.database)
            let support = SoukActor.staff(accountID: UUID(), email: "sam@example.com", role: .support)
            let member = SoukActor.developerMember(accountID: UUID(), email: "dev@example.com", developerID: "acme", role: .owner)
            let key = SoukActor.developerKey(keyID: UUID(), developerID: "acme", scopes: Set(DeveloperScope.allCases))
            #expect(try await review.queue(actor: support).count == 1)
            await #expect(throws: VersionReview.Failure.notPermitted) {
                try await review.approve(actor: support, appleItemId: 1, appleVersionId: 103)
            }
            for developer in [member, key] {
                await #expect(throws: VersionReview.Failure.notFound(appleItemId: 1, appleVersionId: 103)) {
                    try await review.approve(actor: developer, appleItemId: 1, appleVersionId: 103)
                }
                await #expect(throws: VersionReview.Failure.notFound(appleItemId: 0, appleVersionId: 0)) {
                    try await review.queue(actor: developer)
                }
            }
            let operatorActor = SoukActor.staff(accountID: UUID(), email: "olive@example.com", role: .operator)
            for reason in ["", "   ", String(repeating: "x", count: 1_001)] {
                await #expect(throws: VersionReview.Failure.invalidReason) {
                    try await review.reject(actor: operatorActor, appleItemId: 1, appleVersionId: 103, reason: reason)
                }
            }
            let rejected = try await review.reject(actor: operatorActor, appleItemId: 1, appleVersionId: 103, reason: " Crashes at launch on iPad. ")
            #expect(rejected.reviewState == .rejected && rejected.reviewReason == "Crashes at launch on iPad.")
            let model = try await runtime.catalog.version(appleItemId: 1, appleVersionId: 103)
            #expect(model.reviewState == .rejected && model.reviewedBy == "olive@example.com" && model.reviewedAt != nil)
            // Rejected is as unoffered as in review, and cannot be approved afterwards.
            #expect(try await Self.offered(client).values.allSatisfy { !$0 })
            await #expect(throws: VersionReview.Failure.notInReview(.rejected)) {
                try await review.approve(actor: operatorActor, appleItemId: 1, appleVersionId: 103)
            }
            let entry = try #require(try await AuditLog(database: runtime.database).list(action: "version.reject").first)
            #expect(entry.actor == "olive@example.com")
            #expect(entry.after == #"{"reason":"Crashes at launch on iPad.","review_state":"rejected"}"#)
        }
    }

    @Test(arguments: TestBackend.available)
    func theConsoleShowsTheQueueAndTheDiffAndOnlyAnOperatorApproves(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
            let queue = String(buffer: try await AdminConsoleTests.get(client, "/admin/review", session: sam).body)
            #expect(queue.contains("/admin/review/1/103") && queue.contains("1.3 (3)"))
            let page = String(buffer: try await AdminConsoleTests.get(client, "/admin/review/1/103", session: sam).body)
            #expect(page.contains("<del>− short version: 1.2</del>") && page.contains("<ins>+ short version: 1.3</ins>"))
            #expect(page.contains("Only an operator approves") && !page.contains("Approve and release"))
            #expect(try await AdminConsoleTests.get(client, "/admin/review/1/999", session: sam).status == .notFound)
            #expect(try await AdminConsoleTests.get(client, "/admin/review/1/x", session: sam).status == .notFound)

            // Support cannot act; a POST without the CSRF token is refused; a rejection without reason is a 400.
            #expect(try await AdminConsoleTests.post(client, "/admin/review/1/103/approve", session: sam).status == .forbidden)
            #expect(try await AdminConsoleTests.post(client, "/admin/review/1/103/approve", session: olive, csrf: "forged").status == .forbidden)
            let noReason = try await AdminConsoleTests.post(client, "/admin/review/1/103/reject", session: olive, ["reason": " "])
            #expect(noReason.status == .badRequest && String(buffer: noReason.body).contains("needs a reason"))
            #expect(try await runtime.catalog.version(appleItemId: 1, appleVersionId: 103).reviewState == .inReview)

            let operatorPage = String(buffer: try await AdminConsoleTests.get(client, "/admin/review/1/103", session: olive).body)
            #expect(operatorPage.contains("Approve and release"))
            let approved = try await AdminConsoleTests.post(client, "/admin/review/1/103/approve", session: olive)
            #expect(approved.status == .seeOther && approved.headers[.location] == "/admin/review?done=approved")
            #expect(try await Self.offered(client)["updates"] == true)
            let again = try await AdminConsoleTests.post(client, "/admin/review/1/103/approve", session: olive)
            #expect(again.status == .conflict && String(buffer: again.body).contains("not in review"))
            #expect(try await AuditLog(database: runtime.database).list(action: "version.approve").map(\.actor) == ["olive@example.com"])
        }
    }
}
