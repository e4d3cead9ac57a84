import Foundation

/// What happens when a store transaction already recorded for one account is presented again.
public enum TransferDecision: Sendable, Equatable {
    /// The presenting account already owns it: nothing changes (idempotent).
    case alreadyOwned
    /// Move the purchase from `from` to the presenting account, recorded as a transfer event.
    case transfer(from: UUID)
    /// The purchase stays with `owner`; the presenting account gets nothing from it.
    case keep(owner: UUID)
}

/// The transfer policy of spec §2 (`transferPolicy` setting).
public enum TransferRule {
    /// `ownerHasActiveSubscription`: whether the current owner has an active subscription in the
    /// app (only `transfer-if-inactive` asks).
    public static func decide(policy: TransferPolicy, owner: UUID, claimant: UUID, ownerHasActiveSubscription: Bool) -> TransferDecision {
        guard owner != claimant else { return .alreadyOwned }
        switch policy {
        case .transfer: return .transfer(from: owner)
        case .transferIfInactive: return ownerHasActiveSubscription ? .keep(owner: owner) : .transfer(from: owner)
        case .keep: return .keep(owner: owner)
        }
    }
}
