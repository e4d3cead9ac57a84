import Foundation
import SoukTestSupport
@testable import SoukStore
import Testing

/// Licences name their device by a row of `devices` (migration 052, docs/licensing.md): the
/// migration keeps every licence's device, and issuing, reading and revoking go through the rows.
@Suite struct LicensesKeyByDeviceTests {
    @Test(arguments: TestBackend.available)
    func theMigrationKeepsEveryLicencesDeviceAndTheStoreWorksThroughTheRows(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let sql = store.database.sql
            // The schema before the migration, with licences naming their device by its id.
            try await UpdateLicensesKeyByDevice().revert(on: store.database.db)
            let now = Date()
            for (index, device) in ["d-a", "d-b", "d-a"].enumerated() {
                try await sql.raw("""
                    INSERT INTO licenses (license_id, account_id, apple_item_id, apple_version_id, device_id, issued_at, expires_at, renewals) \
                    VALUES (\(bind: Int64(index + 1)), NULL, \(bind: Int64(100 + index)), \(bind: Int64(200 + index)), \(bind: device), \
                    \(bind: now), \(bind: now.addingTimeInterval(3_600)), 0)
                    """).run()
            }
            try await UpdateLicensesKeyByDevice().prepare(on: store.database.db)

            func deviceRows() async throws -> Int {
                try await sql.raw("SELECT COUNT(*) AS n FROM devices").first()?.decode(column: "n", as: Int.self) ?? -1
            }
            let licenses = LicenseStore(database: store.database)
            #expect(try await licenses.licenses(ids: [1, 2, 3]).mapValues(\.deviceId) == [1: "d-a", 2: "d-b", 3: "d-a"])
            #expect(try await deviceRows() == 2)

            // The device's live licence of that app and version is found by its row and reused.
            let again = try await licenses.issue(accountID: nil, appleItemId: 100, appleVersionId: 200, deviceId: "d-a",
                                                 duration: 3_600, deviceLimit: 0)
            #expect(again == .issued(try #require(try await licenses.licenses(ids: [1])[1]), reused: true))
            // A device never seen gets its row once, however many licences it holds.
            for app in [UInt64(100), 101] {
                guard case .issued(let record, let reused) = try await licenses.issue(
                    accountID: nil, appleItemId: app, appleVersionId: app + 100, deviceId: "d-c", duration: 3_600, deviceLimit: 0) else {
                    Testing.Issue.record("no licence for d-c")
                    return
                }
                #expect(!reused && record.deviceId == "d-c")
                #expect(try await licenses.licenses(ids: [record.licenseId])[record.licenseId]?.deviceId == "d-c")
            }
            #expect(try await deviceRows() == 3)
            #expect(try await licenses.list().filter { $0.deviceId == "d-c" }.count == 2)

            #expect(try await licenses.revoke(.init(deviceId: "d-a"), reason: "test") == 2)
            #expect(try await licenses.revoke(.init(deviceId: "d-unknown"), reason: "test") == 0)
            #expect(try await licenses.licenses(ids: [1, 2, 3]).mapValues { $0.revokedAt != nil } == [1: true, 2: false, 3: true])
        }
    }
}
