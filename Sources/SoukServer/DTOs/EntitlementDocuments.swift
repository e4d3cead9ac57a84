import Foundation

/// One entitlement (Zapp's payment-provider API): `{"type": "entitlement", "id": "<productId>"}` — the answer of
/// `GET entitlement/<id>` and each element of `GET entitlements`.
struct EntitlementObject: Codable, Equatable {
    var type: String
    var id: String

    init(id: String) {
        type = "entitlement"
        self.id = id
    }
}

/// The seed's failure of the entitlement endpoints: `{"statusText": "Unauthorized", "status": 401}`.
struct EntitlementFailure: Codable, Equatable {
    var statusText: String
    var status: Int
}

/// The seed's failure of `user-purchases`: `{"error": "Unauthorized", "status": 401}`.
struct UserPurchasesFailure: Codable, Equatable {
    var error: String
    var status: Int
}

/// `GET user-purchases` (Zapp's payment-provider API, mandatory for Roku): the person's active purchases as a Pipes2 feed.
struct UserPurchasesFeed: Codable, Equatable {
    struct TypeValue: Codable, Equatable {
        var value: String
    }

    struct Extensions: Codable, Equatable {
        /// RFC 3339.
        var startedAt: String
        /// RFC 3339; absent for a purchase that does not end (non-consumable).
        var expiresAt: String?
        /// `Production` or `Sandbox`.
        var environment: String
        /// The payment id of the purchase.
        var paymentId: String

        enum CodingKeys: String, CodingKey {
            case startedAt = "started_at"
            case expiresAt = "expires_at"
            case environment
            case paymentId = "payment_id"
        }
    }

    struct Entry: Codable, Equatable {
        /// `subscription` (auto-renewable, non-renewing) or `consumable` (non-consumable), as the product feed says.
        var type: TypeValue
        /// Souk's product id (what `entitlement/<id>` checks).
        var id: String
        var title: String
        var extensions: Extensions
    }

    var id: String
    var type: TypeValue
    var title: String
    var entry: [Entry]
}

/// `POST restore`'s body: the signed transactions the device holds (StoreKit 2's current entitlements).
struct RestoreRequest: Codable, Equatable {
    var signedTransactions: [String]
}

/// `POST consume`'s body: use `quantity` (default 1) of a consumable.
struct ConsumeRequest: Codable, Equatable {
    var productId: String
    var quantity: Int?
}

/// A consumable balance (`GET balances`, `POST consume`).
struct BalanceObject: Codable, Equatable {
    var productId: String
    var environment: String
    var balance: Int
}

/// `GET balances`: the person's consumable balances in the app, in the environments they see.
struct BalancesResponse: Codable, Equatable {
    var balances: [BalanceObject]
}
