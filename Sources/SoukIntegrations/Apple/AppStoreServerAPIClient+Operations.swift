import Foundation
import NIOHTTP1
import SoukCore

/// The App Store Server API calls that act rather than read: Send Consumption Information (the
/// answer to a refund request), Extend a Subscription Renewal Date (one subscription or every
/// eligible subscriber of a product, with its status), and Look Up Order ID.
extension AppStoreServerAPIClient {
    /// Which Send Consumption Information endpoint took the answer.
    public enum ConsumptionEndpoint: String, Sendable, Equatable {
        case v2
        case v1
    }

    /// Send Consumption Information: `PUT /inApps/v2/transactions/consumption/{transactionId}`
    /// (Apple answers 202). Where the host does not serve v2 (a 404 without Apple's error body),
    /// the same answer goes to v1 (`/inApps/v1/transactions/consumption/{transactionId}`) in its
    /// integer vocabulary.
    public func sendConsumptionInformation(_ transactionId: String, _ request: AppleConsumptionRequest, environment: CommerceEnvironment,
                                           credentials: Credentials) async throws(StoreFault) -> AppleAPIAnswer<ConsumptionEndpoint> {
        let id = AmazonRVSClient.escape(transactionId)
        let v2 = try await send(.PUT, "/inApps/v2/transactions/consumption/\(id)", body: try Self.json(request), environment: environment,
                                credentials: credentials, label: "App Store Server API consumption")
        if v2.status == 404, Self.error(in: v2.body).code == nil {
            let v1 = try await call(.PUT, "/inApps/v1/transactions/consumption/\(id)", body: try Self.json(request.v1), environment: environment,
                                    credentials: credentials, label: "App Store Server API consumption (v1)")
            return v1.map { _ in .v1 }
        }
        return try Self.answer(v2, label: "App Store Server API consumption").map { _ in .v2 }
    }

    /// Extend a Subscription Renewal Date: `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}`.
    public func extendRenewalDate(_ originalTransactionId: String, _ request: AppleExtendRenewalDateRequest, environment: CommerceEnvironment,
                                  credentials: Credentials) async throws(StoreFault) -> AppleAPIAnswer<AppleExtendRenewalDateResponse> {
        let label = "App Store Server API extend"
        return try await call(.PUT, "/inApps/v1/subscriptions/extend/\(AmazonRVSClient.escape(originalTransactionId))",
                              body: try Self.json(request), environment: environment, credentials: credentials, label: label)
            .decoded(AppleExtendRenewalDateResponse.self, label: label)
    }

    /// Extend Subscription Renewal Dates for All Active Subscribers: `POST /inApps/v1/subscriptions/extend/mass`.
    /// Found: the request identifier Apple took.
    public func massExtendRenewalDate(_ request: AppleMassExtendRenewalDateRequest, environment: CommerceEnvironment,
                                      credentials: Credentials) async throws(StoreFault) -> AppleAPIAnswer<String> {
        struct Body: Decodable, Sendable { var requestIdentifier: String? }
        let label = "App Store Server API mass extend"
        return try await call(.POST, "/inApps/v1/subscriptions/extend/mass", body: try Self.json(request), environment: environment,
                              credentials: credentials, label: label)
            .decoded(Body.self, label: label).map { $0.requestIdentifier ?? request.requestIdentifier }
    }

    /// Get Status of Subscription Renewal Date Extensions:
    /// `GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`.
    public func massExtensionStatus(productId: String, requestIdentifier: String, environment: CommerceEnvironment,
                                    credentials: Credentials) async throws(StoreFault) -> AppleAPIAnswer<AppleMassExtensionStatus> {
        try await get("/inApps/v1/subscriptions/extend/mass/\(AmazonRVSClient.escape(productId))/\(AmazonRVSClient.escape(requestIdentifier))",
                      environment: environment, credentials: credentials, label: "App Store Server API mass extend status",
                      as: AppleMassExtensionStatus.self)
    }

    /// Look Up Order ID: `GET /inApps/v1/lookup/{orderId}` — the order's signed transactions (not
    /// verified here), or status 1 for an order id Apple does not know.
    public func lookUpOrder(_ orderId: String, environment: CommerceEnvironment,
                            credentials: Credentials) async throws(StoreFault) -> AppleAPIAnswer<AppleOrderLookup> {
        try await get("/inApps/v1/lookup/\(AmazonRVSClient.escape(orderId))", environment: environment, credentials: credentials,
                      label: "App Store Server API order lookup", as: AppleOrderLookup.self)
    }

    // MARK: - Bodies

    static func json(_ value: some Encodable) throws(StoreFault) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do { return Array(try encoder.encode(value)) } catch {
            throw StoreFault(.unavailable, "Souk could not encode a request to Apple")
        }
    }

    /// A sent request's response read as `call` reads it.
    static func answer(_ response: StoreResponse, label: String) throws(StoreFault) -> AppleAPIAnswer<[UInt8]> {
        switch response.status {
        case 200, 202: return .found(response.body)
        case 401: throw StoreFault(.credentials, "Apple refused the In-App Purchase key (401)")
        case 403:
            // Apple's verdicts on an extension come as 403 with its error (4030004 ineligible,
            // 4030005 the yearly limit reached); a 403 without one refuses the key.
            let error = Self.error(in: response.body)
            guard let code = error.code else { throw StoreFault(.credentials, "Apple refused the In-App Purchase key for this app (403)") }
            return .invalid(errorCode: code, message: error.message ?? "Apple refused the request (403)")
        case 404: return .notFound
        case 400:
            let error = Self.error(in: response.body)
            return .invalid(errorCode: error.code, message: error.message ?? "Apple refused the request (400)")
        default: throw StoreFault(.unavailable, "\(label): Apple answered an unexpected status \(response.status)")
        }
    }
}

extension AppleAPIAnswer {
    /// The found value changed by `transform`; the verdicts kept.
    public func map<Other: Sendable>(_ transform: (Value) -> Other) -> AppleAPIAnswer<Other> {
        switch self {
        case .found(let value): .found(transform(value))
        case .notFound: .notFound
        case .invalid(let code, let message): .invalid(errorCode: code, message: message)
        }
    }
}

extension AppleAPIAnswer where Value == [UInt8] {
    /// The found body read as `Body`. An answer Souk cannot read is no verdict.
    func decoded<Body: Decodable & Sendable>(_: Body.Type, label: String) throws(StoreFault) -> AppleAPIAnswer<Body> {
        switch self {
        case .found(let bytes):
            do { return .found(try JSONDecoder().decode(Body.self, from: Data(bytes))) } catch {
                throw StoreFault(.unavailable, "\(label): Apple answered 200 with a body Souk cannot read")
            }
        case .notFound: return .notFound
        case .invalid(let code, let message): return .invalid(errorCode: code, message: message)
        }
    }
}
