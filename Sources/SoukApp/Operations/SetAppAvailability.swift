import Foundation
import SoukCore
import SoukStore

/// Takes an app down, marks it removed by its developer, or makes it available again, for the
/// marketplace's operator side only (operator staff, the CLI, the system): the console and
/// `souk apps takedown|remove|reinstate` both call it. Writes one audit entry (`app.takedown`,
/// `app.remove`, `app.reinstate`) when the availability or its reason changed, none otherwise.
package struct SetAppAvailability: Sendable {
    /// What the app was and is now.
    package struct Change: Sendable, Equatable {
        package let appleItemId: UInt64
        package let bundleId: String
        package let before: Availability
        package let after: Availability
        /// Whether anything changed (and an audit entry was written).
        package let changed: Bool
    }

    package let services: DeveloperServices

    package init(services: DeveloperServices) { self.services = services }

    @discardableResult
    package func callAsFunction(_ availability: Availability, actor: SoukActor, appleItemId: UInt64,
                                reason: String? = nil) async throws -> Change {
        guard actor.isMarketplaceOperator else {
            throw DeveloperOperationError.notAllowed("Only the marketplace's operators change whether an app is available.")
        }
        let reason = reason?.trimmingCharacters(in: .whitespaces) ?? ""
        guard reason.count <= 500 else { throw DeveloperOperationError.invalid(field: "reason", "A reason has at most 500 characters.") }
        let before = try await services.ownership.app(appleItemId, for: actor)
        let (wasAvailability, wasReason) = (before.availability, before.takedownReason)
        let after = try await services.catalog.setAvailability(appleItemId: appleItemId, to: availability,
                                                              reason: reason.isEmpty ? nil : reason)
        let changed = after.availability != wasAvailability || after.takedownReason != wasReason
        if changed {
            try await services.audit.record(actor: actor, action: Self.action(availability), target: "app:\(appleItemId)",
                                            before: ["availability": wasAvailability.rawValue, "reason": wasReason ?? ""],
                                            after: ["availability": after.availability.rawValue, "reason": after.takedownReason ?? ""])
        }
        return Change(appleItemId: appleItemId, bundleId: after.bundleId, before: wasAvailability, after: after.availability, changed: changed)
    }

    static func action(_ availability: Availability) -> AuditAction {
        switch availability {
        case .available: .appReinstate
        case .removedByDeveloper: .appRemove
        case .takenDown: .appTakedown
        }
    }
}
