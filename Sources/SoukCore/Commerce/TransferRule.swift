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

/// Whose account a verified purchase's account token names (StoreKit's `appAccountToken`, Play
/// Billing's `obfuscatedAccountId`): the app set it from `GET /commerce/<app>/account-token` when
/// the purchase was made, so it says who bought, whoever presents the purchase now.
public enum AccountTokenHolder: Sendable, Equatable {
    /// No token, or one that is not a Souk account token of this app.
    case unknown
    /// The presenting account's own token.
    case claimant
    /// The token of another Souk account of the app.
    case otherAccount(UUID)
}

/// Who may take a purchase another account holds (docs/commerce.md, "Transfers"):
/// - an account token decides first: the claimant's own token moves the purchase to them, another
///   account's token never does;
/// - a claim backed only by an id (an Apple transaction id without signed data, every Roku claim)
///   proves nothing of possession, so it never moves a purchase, whatever the policy;
/// - signed data (an Apple JWS, a Google purchase token, an Amazon receipt with its user) follows the
///   `transferPolicy` setting.
public enum TransferRule {
    /// `ownerHasActiveSubscription`: whether the current owner has an active subscription in the
    /// app (only `transfer-if-inactive` asks). `proofOfPossession`: the claim carried signed data.
    public static func decide(policy: TransferPolicy, owner: UUID, claimant: UUID, ownerHasActiveSubscription: Bool,
                              proofOfPossession: Bool = true, accountToken: AccountTokenHolder = .unknown) -> TransferDecision {
        guard owner != claimant else { return .alreadyOwned }
        switch accountToken {
        case .claimant: return .transfer(from: owner)
        case .otherAccount: return .keep(owner: owner)
        case .unknown: break
        }
        guard proofOfPossession else { return .keep(owner: owner) }
        switch policy {
        case .transfer: return .transfer(from: owner)
        case .transferIfInactive: return ownerHasActiveSubscription ? .keep(owner: owner) : .transfer(from: owner)
        case .keep: return .keep(owner: owner)
        }
    }
}
