import Foundation
import SoukCore
import SoukStore

/// Withdraws a version of an app (no longer offered) or offers it again, for an actor that reaches
/// the app (the developer console and API, the operator's console, `souk packages withdraw|reinstate`);
/// writes `version.withdraw` / `version.reinstate` to the audit log when it changed, and answers
/// whether it did. Withdrawing is apart from review: offering a version again does not release one in review.
package struct SetVersionWithdrawn: Sendable {
    package let services: DeveloperServices

    package init(services: DeveloperServices) { self.services = services }

    @discardableResult
    package func callAsFunction(_ withdrawn: Bool, actor: SoukActor, appleItemId: UInt64, appleVersionId: UInt64,
                                reason: String = "") async throws -> Bool {
        _ = try await services.ownership.app(appleItemId, for: actor, scope: .packagesWrite)
        guard (try? await services.catalog.versionRecord(appleItemId: appleItemId, appleVersionId: appleVersionId)) != nil else {
            throw DeveloperOperationError.notFound("This app has no version with this AppleVersionID.")
        }
        let reason = reason.trimmingCharacters(in: .whitespaces)
        guard reason.count <= 500 else { throw DeveloperOperationError.invalid(field: "reason", "A reason has at most 500 characters.") }
        if try await services.catalog.setWithdrawn(withdrawn, appleItemId: appleItemId, appleVersionId: appleVersionId,
                                                   reason: reason.isEmpty ? nil : reason) {
            try await services.audit.record(actor: actor.auditName, action: withdrawn ? .versionWithdraw : .versionReinstate,
                                            target: "app:\(appleItemId)/version:\(appleVersionId)",
                                            before: ["withdrawn": String(!withdrawn)], after: ["withdrawn": String(withdrawn), "reason": reason])
            return true
        }
        return false
    }
}
