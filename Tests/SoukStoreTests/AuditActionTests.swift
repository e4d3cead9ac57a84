import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The one list of audit actions: its strings are those already stored and filtered on.
@Suite struct AuditActionTests {
    @Test func rawValuesAreTheStoredActionStrings() {
        // Entries written before the enum existed, and `souk audit --action`, use these exact strings.
        let stored: [AuditAction: String] = [
            .appCreate: "app.create", .appDetails: "app.details", .appMedia: "app.media", .packageImport: "package.import",
            .versionWithdraw: "version.withdraw", .versionReinstate: "version.reinstate", .appReinstate: "app.reinstate",
            .appTakedown: "app.takedown", .webhookRedeliver: "webhook.redeliver", .keyRotate: "key.rotate",
            .entitlementGrant: "entitlement.grant", .entitlementRevoke: "entitlement.revoke", .catalogApply: "catalog.apply",
            .accountSignOut: "account.sign-out", .accountTOTPEnable: "account.totp-enable", .subscriptionsExtendMass: "subscriptions.extend_mass",
            .developerMemberAdd: "developer.member-add", .appSetDeveloper: "app.set-developer", .versionApprove: "version.approve",
        ]
        for (action, raw) in stored { #expect(action.rawValue == raw) }
        #expect(Set(AuditAction.allCases.map(\.rawValue)).count == AuditAction.allCases.count)
        #expect(AuditAction(rawValue: "developer.key-revoke") == .developerKeyRevoke)
    }

    @Test(arguments: TestBackend.available)
    func recordsAnActorsAuditNameAndTheActionsString(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let audit = AuditLog(database: store.database)
            let key = UUID()
            try await audit.record(actor: .developerKey(keyID: key, developerID: "acme", scopes: [.packagesWrite]),
                                   action: .packageImport, target: "app:42")
            try await audit.record(actor: "ops@example.com", action: .appTakedown, target: "app:42")
            let entries = try await audit.list(action: "package.import")
            #expect(entries.map(\.actor) == ["apikey:" + key.uuidString.lowercased()])
            #expect(try await audit.list(action: AuditAction.appTakedown.rawValue).map(\.actor) == ["ops@example.com"])
        }
    }
}
