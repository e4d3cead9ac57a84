import Foundation

/// `POST transactions`' answer (Zapp's payment-provider API), `application/vnd.api+json`:
/// `{"data": {"type": "payment", "id": "<payment id>"}}`, with `201` or `202` + `Location`.
struct PaymentDocument: Codable, Equatable {
    struct Resource: Codable, Equatable {
        var type: String
        var id: String
    }

    var data: Resource

    init(paymentId: UUID) {
        data = Resource(type: "payment", id: paymentId.uuidString.lowercased())
    }
}
