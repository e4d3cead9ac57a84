import Foundation

extension PurchaseClaim {
    /// Whether the claim carries something only the buyer's device holds: an Apple signed
    /// transaction (or app receipt), a Google purchase token, an Amazon receipt with its user id.
    /// An Apple transaction id alone, and every Roku transaction id, can be learnt by anyone who saw
    /// it (a screenshot, a support mail): such a claim is looked up at the store, never trusted to
    /// move a purchase another account holds (`TransferRule`), and its lookups are rate-limited.
    public var hasProofOfPossession: Bool {
        switch store {
        case .appleStore: !receipt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        case .googlePlay: !receipt.isEmpty || !transactionId.isEmpty
        case .amazon: !(userId ?? "").isEmpty && !transactionId.isEmpty
        case .roku: false
        }
    }
}
