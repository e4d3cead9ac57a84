import Foundation

extension PurchaseClaim {
    /// Whether the claim carries something only the buyer's device holds: an Apple signed
    /// transaction or StoreKit 1 app receipt (the verifier refuses either unless Apple signed it),
    /// a Google purchase token, an Amazon receipt with its user id. An Apple
    /// transaction id alone, and every Roku transaction id, can be learnt by anyone who saw it (a
    /// screenshot, a support mail): such a claim is looked up at the store, never trusted to move a
    /// purchase another account holds (`TransferRule`), and its look-ups are rate-limited.
    public var hasProofOfPossession: Bool {
        switch store {
        case .appleStore: !appleSignedTransaction.isEmpty
        case .googlePlay: !receipt.isEmpty || !transactionId.isEmpty
        case .amazon: !(userId ?? "").isEmpty && !transactionId.isEmpty
        case .roku: false
        }
    }

    /// The Apple signed transaction in `receipt` as the app sent it: the JWS itself, or a JSON string
    /// or object holding it (`signedTransaction`, `signedTransactionInfo`, `jwsRepresentation`,
    /// `receipt`), since the payment-provider API's `receipt` (Applicaster Zapp's in-app purchases
    /// document) is free text and apps wrap it in different ways. Empty:
    /// the claim names a transaction id only, and Apple is asked by id. The verifier and the proof
    /// rule read it here, so a wrapper holding nothing is an id-only claim for both.
    public var appleSignedTransaction: String {
        let trimmed = receipt.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let first = trimmed.first, first == "{" || first == "\"", let data = trimmed.data(using: .utf8) else { return trimmed }
        if let text = try? JSONDecoder().decode(String.self, from: data) {
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let object = try? JSONDecoder().decode([String: String?].self, from: data) {
            for key in ["signedTransaction", "signedTransactionInfo", "jwsRepresentation", "receipt"] {
                if let value = object[key] ?? nil { return value.trimmingCharacters(in: .whitespacesAndNewlines) }
            }
        }
        return trimmed
    }
}
