import Foundation
import SoukCore
import SoukStore

extension PeopleOperations {
    /// Revokes a store purchase by its payment id, as a refund the operator records here (`souk
    /// purchases revoke`): access ends now, a consumable's balance loses its quantity. Asked of
    /// `AccountScope` as a refund on the purchase's owner; writes `purchase.revoke` on the owner
    /// when it was granted and not revoked yet. Returns the payment after, or nil for no such payment.
    package func revokePurchase(actor: SoukActor, paymentId: UUID, reason: String) async throws -> StoredPurchase? {
        guard let before = try await purchases.payment(paymentId) else { return nil }
        guard let owner = try await people.account(id: before.accountId) else { return nil }
        try await scope.check(.refund, actor: actor, on: owner)
        guard let after = try await purchases.revoke(paymentId, reason: reason) else { return nil }
        if before.revokedAt == nil, after.revokedAt != nil {
            try await audit.record(actor: actor, action: .purchaseRevoke, target: owner.auditTarget,
                                   after: ["payment": paymentId.uuidString.lowercased(), "app": after.app, "product": after.productId,
                                           "reason": reason])
        }
        return after
    }

    /// Sets how many devices may hold live licenses of `person`'s account (0: no limit; nil: the
    /// server's default), which only the server's operator does. Writes `account.device-limit`
    /// when it changed.
    package func setDeviceLimit(actor: SoukActor, of person: AccountRecord, to limit: Int?) async throws {
        try scope.checkMachineOperator(actor)
        guard limit.map({ (0...1000).contains($0) }) ?? true else { throw PeopleOperationError.invalid("A device limit is 0–1000.") }
        guard try await people.setDeviceLimit(limit, account: person.id) else { throw PeopleOperationError.invalid("No such account.") }
        if person.deviceLimit != limit {
            try await audit.record(actor: actor, action: .accountDeviceLimit, target: person.auditTarget,
                                   before: ["device_limit": person.deviceLimit.map(String.init) ?? "default"],
                                   after: ["device_limit": limit.map(String.init) ?? "default"])
        }
    }
}
