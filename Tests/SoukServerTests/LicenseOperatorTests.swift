import ArgumentParser
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukCLI
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

@Suite struct LicenseOperatorTests {
    @Test func operatorCommandsRevokeLicensesSetLimitsAndRotateKeys() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let settings = ["--data-dir", folder.path + "/data"]
        try await SoukCommand.run(["apps", "create", "--apple-item-id", "6500000020", "--bundle-id", "org.example.l", "--name", "L"] + settings)
        try await SoukCommand.run(["accounts", "create", "--email", "lic@example.com", "--password", "correct horse"] + settings)
        var runtime = try await SoukRuntime.open(SoukConfig(dataDir: folder.path + "/data"), logger: testLogger())
        let account = try await runtime.catalog.requireAccount(email: "lic@example.com")
        let store = LicenseStore(database: runtime.database)
        let one = try await store.issued(accountID: try account.requireID(), appleItemId: 6_500_000_020, appleVersionId: 1, deviceId: "aa")
        let two = try await store.issued(accountID: try account.requireID(), appleItemId: 6_500_000_020, appleVersionId: 1, deviceId: "bb")
        await runtime.close()

        try await SoukCommand.run(["accounts", "show", "--email", "lic@example.com"] + settings)
        try await SoukCommand.run(["licenses", "list", "--email", "lic@example.com"] + settings)
        try await SoukCommand.run(["licenses", "revoke", "--device-id", "AA", "--reason", "lost phone"] + settings)
        try await SoukCommand.run(["accounts", "set-device-limit", "--email", "lic@example.com", "--limit", "3"] + settings)
        await #expect(throws: (any Error).self) { try await SoukCommand.run(["licenses", "revoke"] + settings) }
        await #expect(throws: (any Error).self) { try await SoukCommand.run(["accounts", "set-device-limit", "--email", "lic@example.com", "--limit", "-1"] + settings) }
        try await SoukCommand.run(["keys", "rotate", "--key-id", "ROTATED001"] + settings)
        try await SoukCommand.run(["keys", "rotate", "--apple-item-id", "6500000020"] + settings)
        try await SoukCommand.run(["keys", "retire", "--apple-item-id", "6500000020"] + settings)
        try await SoukCommand.run(["packages", "set-key-blob", "--asset-public-id", "v-1", "--apple-item-id", "6500000020",
                           "--apple-version-id", "1", "--key-blob", "AAEC"] + settings)

        runtime = try await SoukRuntime.open(SoukConfig(dataDir: folder.path + "/data"), logger: testLogger())
        let after = try await LicenseStore(database: runtime.database).licenses(ids: [one.licenseId, two.licenseId])
        #expect(after[one.licenseId]?.revokedReason == "lost phone")
        #expect(after[two.licenseId]?.revokedAt == nil)
        #expect(try await runtime.catalog.requireAccount(email: "lic@example.com").deviceLimit == 3)
        #expect(try await runtime.catalog.marketplace(defaultKeyId: "").installVerificationKeyId == "ROTATED001")
        #expect(try await runtime.installVerificationKeys.activeKeys().keys.sorted() == [0])
        #expect(try await LicenseStore(database: runtime.database).keyBlob(appleItemId: 6_500_000_020, appleVersionId: 1, assetPublicId: "v-1") == "AAEC")
        // Each change is audited once, as the command's user; the key blob itself is not written.
        let audit = AuditLog(database: runtime.database)
        func fields(_ entry: AuditEntry?) throws -> [String: String] { try AdminCatalogReviewTests.object(entry?.after) }
        let revoked = try await audit.list(action: "license.revoke")
        #expect(revoked.count == 1 && revoked.first?.actor.hasPrefix("cli:") == true)
        #expect(try fields(revoked.first)["device"] == "aa" && fields(revoked.first)["count"] == "1")
        let limit = try await audit.list(action: "account.device-limit")
        #expect(limit.map(\.target) == ["account:" + (try account.requireID()).uuidString.lowercased()])
        #expect(try fields(limit.first)["device_limit"] == "3")
        let blob = try await audit.list(action: "package.key-blob")
        #expect(try blob.count == 1 && fields(blob.first)["asset_public_id"] == "v-1" && fields(blob.first)["key_blob"] == nil)
        #expect(try await audit.list(action: "key.retire").map(\.target) == ["key:app:6500000020"])
        await runtime.close()
    }

    @Test func theAccountPageShowsActiveInstallsAndReleasesADevice() async throws {
        let box = Box<SoukRuntime>()
        try await ServerFixture.with(.sqlite, prepare: { runtime, paths in
            try await AppDataTests.prepare(runtime, paths)
            let account = try await runtime.catalog.requireAccount(email: "ada@example.com")
            _ = try await LicenseStore(database: runtime.database).issued(accountID: try account.requireID(), appleItemId: 1,
                                                                           appleVersionId: 102, deviceId: "d3v1ce")
            box.value = runtime
        }) { client in
            let session = try #require(try await WebAccountTests.webSignIn(client))
            let page = String(buffer: try await client.execute(uri: "/account", method: .get, headers: [.cookie: session]).body)
            #expect(page.contains("Device d3v1ce"))
            #expect(page.contains("1 device(s) with a live app license"))
            let csrf = try #require(WebAccountTests.csrf(in: page))
            var headers = OAuthTests.formHeaders
            headers[.cookie] = session
            let forged = try await client.execute(uri: "/account/installs/release", method: .post, headers: headers,
                                                  body: OAuthTests.form(["csrf_token": "wrong", "device_id": "d3v1ce"]))
            #expect(forged.status == .forbidden)
            let nameless = try await client.execute(uri: "/account/installs/release", method: .post, headers: headers,
                                                    body: OAuthTests.form(["csrf_token": csrf]))
            #expect(nameless.status == .badRequest)
            let released = try await client.execute(uri: "/account/installs/release", method: .post, headers: headers,
                                                    body: OAuthTests.form(["csrf_token": csrf, "device_id": "d3v1ce"]))
            #expect(released.status == .seeOther)
            let account = try await box.value!.catalog.requireAccount(email: "ada@example.com")
            #expect(try await LicenseStore(database: box.value!.database).liveDevices(accountID: try account.requireID()).isEmpty)
            let after = String(buffer: try await client.execute(uri: "/account", method: .get, headers: [.cookie: session]).body)
            #expect(after.contains("0 device(s)"))
        }
    }
}

extension LicenseStore {
    /// Issues a license without a device limit (test set-up); fails if it is not issued.
    func issued(accountID: UUID?, appleItemId: UInt64, appleVersionId: UInt64, deviceId: String,
                duration: TimeInterval = 3600, now: Date = Date()) async throws -> LicenseRecord {
        guard case .issued(let record, _) = try await issue(accountID: accountID, appleItemId: appleItemId, appleVersionId: appleVersionId,
                                                             deviceId: deviceId, duration: duration, deviceLimit: 0, now: now) else {
            throw CatalogError.invalid("not issued")
        }
        return record
    }
}
