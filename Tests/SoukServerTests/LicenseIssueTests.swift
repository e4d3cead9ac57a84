import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// Issuing licenses: the device limit holds under racing requests, a device asking again gets its
/// live license back instead of a new row, and expired licenses are pruned in bounded batches.
@Suite struct LicenseIssueTests {
    /// A bearer token of ada@example.com, whose device limit becomes `limit`.
    static func token(_ runtime: SoukRuntime, limit: Int?) async throws -> (String, UUID) {
        let account = try await runtime.catalog.requireAccount(email: "ada@example.com")
        account.deviceLimit = limit
        try await account.save(on: runtime.database.db)
        let grant = try await runtime.tokens.issueInstallGrant(accountID: try account.requireID())
        return (try await runtime.tokens.exchange(subjectToken: grant, clientId: "iphone").get().accessToken, try account.requireID())
    }

    @Test(arguments: TestBackend.available)
    func concurrentDevicesNeverExceedTheDeviceLimit(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend) { client, runtime in
            let (token, accountID) = try await Self.token(runtime, limit: 3)
            let licensing = try await LicenseClient.make(client)
            let devices = (0..<12).map { String(format: "d%03x", $0) }
            let bodies = try devices.map { try licensing.body(device: $0, apps: [(2, 201)]) }
            let licensed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for body in bodies {
                    group.addTask {
                        let response = try await LicenseClient.post(client, "/marketplace-kit/v1/license", body, token: token)
                        let answer = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                        return (answer["unlicensedApps"] as? [String])?.isEmpty == true
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(licensed == 3)
            let store = LicenseStore(database: runtime.database)
            #expect(try await store.liveDevices(accountID: accountID).count == 3)
            #expect(try await store.list(accountID: accountID).count == 3)
        }
    }

    @Test(arguments: TestBackend.available)
    func aDeviceAskingAgainGetsItsLiveLicenseNotANewOne(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend) { client, runtime in
            let licensing = try await LicenseClient.make(client)
            // The same device racing itself: one license, one id for every answer.
            let bodies = try (0..<8).map { _ in try licensing.body(device: "beef", apps: [(1, 102), (4, 401)]) }
            let ids = try await withThrowingTaskGroup(of: String.self) { group in
                for body in bodies {
                    group.addTask {
                        let response = try await LicenseClient.post(client, "/marketplace-kit/v1/license", body)
                        let answer = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                        let jws = try #require((answer["license"] as? String).flatMap { Data(base64Encoded: $0) }).split(separator: UInt8(ascii: "."))
                        let payload = try #require(Base64URL.decode(String(decoding: jws[1], as: UTF8.self)))
                        let licenses = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])["licenses"] as? [[String: Any]]
                        return (licenses ?? []).compactMap { $0["licenseId"] as? String }.sorted().joined(separator: ",")
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(ids.count == 1)
            let store = LicenseStore(database: runtime.database)
            #expect(try await store.list(appleItemId: 1).count == 1)
            #expect(try await store.list(appleItemId: 4).count == 1)

            // Asked again later: the same id with a new term; another version is another license.
            let first = try #require(try await store.list(appleItemId: 1).first)
            let later = first.issuedAt.addingTimeInterval(600)
            let again = try await store.issue(accountID: nil, appleItemId: 1, appleVersionId: 102, deviceId: "beef", duration: 3600,
                                              deviceLimit: 0, now: later)
            guard case .issued(let record, let reused) = again else { Issue.record("not issued"); return }
            #expect(reused && record.licenseId == first.licenseId)
            #expect(abs(record.expiresAt.timeIntervalSince(later.addingTimeInterval(3600))) < 1)
            guard case .issued(let older, false) = try await store.issue(accountID: nil, appleItemId: 1, appleVersionId: 101, deviceId: "beef",
                                                                          duration: 3600, deviceLimit: 0, now: later) else {
                Issue.record("another version reused the license")
                return
            }
            #expect(older.licenseId != first.licenseId)
            // Once revoked (or expired), the next request is a new license.
            try await store.revoke(.init(licenseId: first.licenseId), reason: "test")
            guard case .issued(let fresh, false) = try await store.issue(accountID: nil, appleItemId: 1, appleVersionId: 102, deviceId: "beef",
                                                                          duration: 3600, deviceLimit: 0, now: later) else {
                Issue.record("a revoked license was reused")
                return
            }
            #expect(fresh.licenseId != first.licenseId)
            guard case .issued(let afterExpiry, false) = try await store.issue(accountID: nil, appleItemId: 1, appleVersionId: 102, deviceId: "beef",
                                                                                duration: 3600, deviceLimit: 0, now: later.addingTimeInterval(7200)) else {
                Issue.record("an expired license was reused")
                return
            }
            #expect(afterExpiry.licenseId != fresh.licenseId)
        }
    }

    @Test(arguments: TestBackend.available)
    func theDeviceLimitAdmitsDevicesAlreadyLiveAndCountsOnlyLiveLicenses(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend) { _, runtime in
            let (_, accountID) = try await Self.token(runtime, limit: nil)
            let store = LicenseStore(database: runtime.database)
            let now = Date()
            func issue(_ device: String, app: UInt64 = 2, version: UInt64 = 201, at time: Date = now) async throws -> LicenseStore.Issue {
                try await store.issue(accountID: accountID, appleItemId: app, appleVersionId: version, deviceId: device, duration: 3600,
                                      deviceLimit: 2, now: time)
            }
            guard case .issued = try await issue("aa"), case .issued = try await issue("bb") else { Issue.record("refused"); return }
            #expect(try await issue("cc") == .deviceLimitReached)
            // A device already live gets licenses for other apps.
            guard case .issued(_, false) = try await issue("aa", app: 1, version: 102) else { Issue.record("live device refused"); return }
            // Two hours later both licenses have expired: the limit counts live licenses only.
            guard case .issued = try await issue("cc", at: now.addingTimeInterval(7200)) else { Issue.record("expired licenses counted"); return }
        }
    }

    @Test(arguments: TestBackend.available)
    func expiredLicensesArePrunedInBoundedBatches(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend) { _, runtime in
            let store = LicenseStore(database: runtime.database)
            let now = Date()
            let old = now.addingTimeInterval(-Cleanup.licenseHistory - 86_400)
            for device in ["a1", "a2", "a3"] {
                _ = try await store.issued(accountID: nil, appleItemId: 1, appleVersionId: 102, deviceId: device, now: old)
            }
            let recent = try await store.issued(accountID: nil, appleItemId: 1, appleVersionId: 102, deviceId: "b1",
                                                now: now.addingTimeInterval(-86_400))
            let live = try await store.issued(accountID: nil, appleItemId: 1, appleVersionId: 102, deviceId: "c1", now: now)
            // The housekeeping sweep (batches of two here) removes the three, and only them.
            let report = try await Cleanup(database: runtime.database, now: { now }).run(batchSize: 2)
            #expect(report.first { $0.name == "licenses" }?.removed == 3)
            let left = try await store.list(appleItemId: 1).map(\.licenseId)
            #expect(Set(left) == [recent.licenseId, live.licenseId])
        }
    }
}
