import Foundation

// Request and response bodies of the App Store Server API calls Souk makes on an operator's or a
// refund request's behalf, under Apple's names (App Store Server API: ConsumptionRequest,
// ExtendRenewalDateRequest, MassExtendRenewalDateRequest, OrderLookupResponse, …).

/// `deliveryStatus` of Send Consumption Information (v2).
public enum AppleDeliveryStatus: String, Sendable, Hashable, CaseIterable, Codable {
    case delivered = "DELIVERED"
    case undeliveredQualityIssue = "UNDELIVERED_QUALITY_ISSUE"
    case undeliveredWrongItem = "UNDELIVERED_WRONG_ITEM"
    case undeliveredServerOutage = "UNDELIVERED_SERVER_OUTAGE"
    case undeliveredOther = "UNDELIVERED_OTHER"

    /// The v1 `deliveryStatus` integer (Send Consumption Information v1).
    var v1: Int {
        switch self {
        case .delivered: 0
        case .undeliveredQualityIssue: 1
        case .undeliveredWrongItem: 2
        case .undeliveredServerOutage: 3
        case .undeliveredOther: 5
        }
    }
}

/// `refundPreference` of Send Consumption Information (v2).
public enum AppleRefundPreference: String, Sendable, Hashable, CaseIterable, Codable {
    case decline = "DECLINE"
    case grantFull = "GRANT_FULL"
    case grantProrated = "GRANT_PRORATED"

    /// The v1 `refundPreference` integer: 1 prefer grant, 2 prefer decline (v1 has no prorated grant).
    var v1: Int {
        switch self {
        case .decline: 2
        case .grantFull, .grantProrated: 1
        }
    }
}

/// `ConsumptionRequest` (v2): the answer to a CONSUMPTION_REQUEST notification.
public struct AppleConsumptionRequest: Codable, Sendable, Equatable {
    public var customerConsented: Bool
    public var sampleContentProvided: Bool
    public var deliveryStatus: AppleDeliveryStatus
    /// The consumed share in milliunits of a percent (0…100000); nil when Souk does not count it.
    public var consumptionPercentage: Int?
    public var refundPreference: AppleRefundPreference?

    public init(customerConsented: Bool, sampleContentProvided: Bool, deliveryStatus: AppleDeliveryStatus,
                consumptionPercentage: Int?, refundPreference: AppleRefundPreference?) {
        self.customerConsented = customerConsented
        self.sampleContentProvided = sampleContentProvided
        self.deliveryStatus = deliveryStatus
        self.consumptionPercentage = consumptionPercentage
        self.refundPreference = refundPreference
    }

    /// `ConsumptionRequestV1` with what v2 says; what v1 asks and Souk does not know is 0 (undeclared).
    var v1: [String: AnyEncodableValue] {
        let status: Int = switch consumptionPercentage {
        case nil: 0
        case 0?: 1
        case 100_000?: 3
        default: 2
        }
        return ["customerConsented": .bool(customerConsented), "sampleContentProvided": .bool(sampleContentProvided),
                "deliveryStatus": .int(deliveryStatus.v1), "consumptionStatus": .int(status), "platform": .int(0),
                "appAccountToken": .string(""), "accountTenure": .int(0), "playTime": .int(0), "lifetimeDollarsRefunded": .int(0),
                "lifetimeDollarsPurchased": .int(0), "userStatus": .int(0), "refundPreference": .int(refundPreference?.v1 ?? 0)]
    }
}

/// A JSON scalar, for bodies built field by field.
enum AnyEncodableValue: Encodable, Sendable {
    case bool(Bool)
    case int(Int)
    case string(String)

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        }
    }
}

/// `extendReasonCode`: 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage.
public enum AppleExtendReasonCode: Int, Sendable, Hashable, CaseIterable, Codable {
    case undeclared = 0
    case customerSatisfaction = 1
    case other = 2
    case serviceIssueOrOutage = 3
}

/// `ExtendRenewalDateRequest`: one subscription. Apple allows at most 90 days a request.
public struct AppleExtendRenewalDateRequest: Codable, Sendable, Equatable {
    public static let maxDays = 90
    public var extendByDays: Int
    public var extendReasonCode: AppleExtendReasonCode
    /// Souk's id of the request (Apple answers a repeated id with the first outcome).
    public var requestIdentifier: String

    public init(extendByDays: Int, extendReasonCode: AppleExtendReasonCode, requestIdentifier: String) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
    }
}

/// `ExtendRenewalDateResponse`.
public struct AppleExtendRenewalDateResponse: Codable, Sendable, Equatable {
    public var originalTransactionId: String?
    public var webOrderLineItemId: String?
    public var success: Bool?
    /// The new expiry, Apple's milliseconds since 1970.
    public var effectiveDate: Int64?

    public init(originalTransactionId: String?, webOrderLineItemId: String?, success: Bool?, effectiveDate: Int64?) {
        self.originalTransactionId = originalTransactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.success = success
        self.effectiveDate = effectiveDate
    }

    public var effective: Date? { effectiveDate.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) } }
}

/// `MassExtendRenewalDateRequest`: every eligible active subscriber of a product.
public struct AppleMassExtendRenewalDateRequest: Codable, Sendable, Equatable {
    public var requestIdentifier: String
    public var extendByDays: Int
    public var extendReasonCode: AppleExtendReasonCode
    public var productId: String
    /// Limits the extension to these storefronts (ISO 3166-1 alpha-3); nil: all.
    public var storefrontCountryCodes: [String]?

    public init(requestIdentifier: String, extendByDays: Int, extendReasonCode: AppleExtendReasonCode, productId: String,
                storefrontCountryCodes: [String]? = nil) {
        self.requestIdentifier = requestIdentifier
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.productId = productId
        self.storefrontCountryCodes = storefrontCountryCodes
    }
}

/// `MassExtendRenewalDateStatusResponse`.
public struct AppleMassExtensionStatus: Codable, Sendable, Equatable {
    public var requestIdentifier: String?
    public var complete: Bool?
    public var completeDate: Int64?
    public var succeededCount: Int64?
    public var failedCount: Int64?

    public init(requestIdentifier: String?, complete: Bool?, completeDate: Int64?, succeededCount: Int64?, failedCount: Int64?) {
        self.requestIdentifier = requestIdentifier
        self.complete = complete
        self.completeDate = completeDate
        self.succeededCount = succeededCount
        self.failedCount = failedCount
    }
}

/// `OrderLookupResponse`: `status` 0 valid (with the order's signed transactions), 1 invalid.
public struct AppleOrderLookup: Codable, Sendable, Equatable {
    public var status: Int?
    public var signedTransactions: [String]

    public init(status: Int?, signedTransactions: [String]) {
        self.status = status
        self.signedTransactions = signedTransactions
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decodeIfPresent(Int.self, forKey: .status)
        signedTransactions = try container.decodeIfPresent([String].self, forKey: .signedTransactions) ?? []
    }

    /// Apple knows the order id (`OrderLookupStatus` 0).
    public var isValid: Bool { status == 0 }
}
