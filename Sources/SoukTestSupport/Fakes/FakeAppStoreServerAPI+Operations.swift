import Foundation
import HTTPTypes
import Hummingbird

/// The acting endpoints of the fake App Store Server API, as Apple's documentation describes them:
/// Send Consumption Information v2 (and v1, unless `serveV2Consumption` is off, which makes the v2
/// path unknown to the host), Extend a Subscription Renewal Date, the mass extension and its
/// status, and Look Up Order ID. Bodies are checked as Apple checks them (`customerConsented` must
/// be true; `consumptionPercentage` 0 when undelivered, absent for auto-renewable subscriptions,
/// strictly between 0 and 100000 with GRANT_PRORATED; `extendByDays` 1…90; `extendReasonCode`
/// 0…3; a `requestIdentifier`), answered with Apple's error codes otherwise.
extension FakeAppStoreServerAPI {
    /// A Send Consumption Information body the fake accepted.
    public struct ConsumptionAnswer: Sendable, Equatable {
        public var transactionId: String
        /// `v2` or `v1`.
        public var version: String
        /// Each field of the body as text (`true`, `40000`, `DELIVERED`).
        public var fields: [String: String]
    }

    /// A mass extension the fake took: applied to the active subscribers of `productId` by `completeMassExtensions()`.
    public struct MassExtension: Sendable, Equatable {
        public var requestIdentifier: String
        public var productId: String
        public var extendByDays: Int
        public var extendReasonCode: Int
        public var storefrontCountryCodes: [String]?
        public var complete: Bool
        public var succeededCount: Int
        public var completeDate: Date?
    }

    /// An `ExtendRenewalDateResponse` given, kept per request identifier (a repeated request gets it again).
    struct ExtensionAnswer: Sendable {
        var originalTransactionId: String
        var webOrderLineItemId: String
        var effectiveDate: Int64

        var object: [String: Any] {
            ["originalTransactionId": originalTransactionId, "webOrderLineItemId": webOrderLineItemId, "success": true,
             "effectiveDate": effectiveDate]
        }
    }

    struct Operations {
        var consumption: [ConsumptionAnswer] = []
        var serveV2Consumption = true
        var orders: [String: [String]] = [:]
        var extensions: [String: ExtensionAnswer] = [:]
        var massExtensions: [MassExtension] = []
        var completeMassOnStatus = false
    }

    /// Every consumption answer accepted so far.
    public var consumptionAnswers: [ConsumptionAnswer] { state.withLock { $0.operations.consumption } }
    /// Every mass extension requested so far.
    public var massExtensions: [MassExtension] { state.withLock { $0.operations.massExtensions } }

    /// On: Apple completes a mass extension when its status is first asked (instead of on `completeMassExtensions()`).
    public func completeMassExtensionsWhenAsked(_ on: Bool = true) { state.withLock { $0.operations.completeMassOnStatus = on } }

    /// Off: the host does not serve `/inApps/v2/transactions/consumption` (Apple's hosts before v2).
    public func serveV2Consumption(_ on: Bool) { state.withLock { $0.operations.serveV2Consumption = on } }

    /// An order id (as on the customer's App Store receipt) and the transactions it contains.
    public func addOrder(_ orderId: String, transactionIds: [String]) {
        state.withLock { $0.operations.orders[orderId] = transactionIds }
    }

    /// Apple finishes the pending mass extensions: each active subscription of the product is
    /// extended (its latest transaction's expiry moves) and the request reads complete.
    public func completeMassExtensions() {
        let pending = state.withLock { $0.operations.massExtensions.filter { !$0.complete } }
        for request in pending {
            var count = 0
            for original in activeSubscriptions(productId: request.productId) where extend(original, days: request.extendByDays) != nil {
                count += 1
            }
            state.withLock { state in
                for index in state.operations.massExtensions.indices
                where state.operations.massExtensions[index].requestIdentifier == request.requestIdentifier {
                    state.operations.massExtensions[index].complete = true
                    state.operations.massExtensions[index].succeededCount = count
                    state.operations.massExtensions[index].completeDate = now()
                }
            }
        }
    }

    func operationRoutes(_ router: Router<BasicRequestContext>) {
        router.put("/inApps/v2/transactions/consumption/:id") { request, context in
            guard self.state.withLock({ $0.operations.serveV2Consumption }) else { return Response(status: .notFound) }
            return try await self.authorized(request) { body in
                try self.consumption(id: Self.id(context), body: body, version: "v2")
            }
        }
        router.put("/inApps/v1/transactions/consumption/:id") { request, context in
            try await self.authorized(request) { body in try self.consumption(id: Self.id(context), body: body, version: "v1") }
        }
        router.put("/inApps/v1/subscriptions/extend/:id") { request, context in
            try await self.authorized(request) { body in try self.extendOne(id: Self.id(context), body: body) }
        }
        router.post("/inApps/v1/subscriptions/extend/mass") { request, _ in
            try await self.authorized(request) { body in try self.extendMass(body: body) }
        }
        router.get("/inApps/v1/subscriptions/extend/mass/:product/:request") { request, context in
            try await self.authorized(request) { _ in
                let product = context.parameters.get("product")?.removingPercentEncoding ?? ""
                let identifier = context.parameters.get("request")?.removingPercentEncoding ?? ""
                if self.state.withLock({ $0.operations.completeMassOnStatus }) { self.completeMassExtensions() }
                guard let found = self.massExtensions.first(where: { $0.productId == product && $0.requestIdentifier == identifier }) else {
                    return Self.error(.notFound, 4_040_009, "Status request not found.")
                }
                var object: [String: Any] = ["requestIdentifier": found.requestIdentifier, "complete": found.complete,
                                             "succeededCount": found.succeededCount, "failedCount": 0]
                if let date = found.completeDate { object["completeDate"] = Int64(date.timeIntervalSince1970 * 1000) }
                return FakeStoreServer.json(object: object)
            }
        }
        router.get("/inApps/v1/lookup/:order") { request, context in
            try await self.authorized(request) { _ in
                let order = context.parameters.get("order")?.removingPercentEncoding ?? ""
                guard let ids = self.state.withLock({ $0.operations.orders[order] }) else {
                    return FakeStoreServer.json(object: ["status": 1])
                }
                let signed = ids.compactMap { self.entry($0) }.map { self.sign($0.transaction) }
                return FakeStoreServer.json(object: ["status": 0, "signedTransactions": signed])
            }
        }
    }

    // MARK: - Endpoints

    private func consumption(id: String, body: [String: Any], version: String) throws -> Response {
        guard !id.isEmpty, id.allSatisfy(\.isNumber) else { return Self.error(.badRequest, 4_000_006, "Invalid transaction id.") }
        guard let entry = entry(id) else { return Self.error(.notFound, 4_040_010, "Transaction id not found.") }
        guard let consented = body["customerConsented"] as? Bool, consented else {
            return Self.error(.badRequest, 4_000_035, "Invalid customer consented.")
        }
        guard body["sampleContentProvided"] is Bool else { return Self.error(.badRequest, 4_000_041, "Invalid sample content provided.") }
        if version == "v2" {
            let delivery = body["deliveryStatus"] as? String
            let known = ["DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER"]
            guard let delivery, known.contains(delivery) else { return Self.error(.badRequest, 4_000_036, "Invalid delivery status.") }
            let preference = body["refundPreference"] as? String
            if let preference, !["DECLINE", "GRANT_FULL", "GRANT_PRORATED"].contains(preference) {
                return Self.error(.badRequest, 4_000_000, "Invalid refund preference.")
            }
            if let share = body["consumptionPercentage"] {
                guard let share = share as? Int, (0...100_000).contains(share) else {
                    return Self.error(.badRequest, 4_000_000, "Invalid consumption percentage.")
                }
                if entry.transaction.rawType == "Auto-Renewable Subscription" {
                    return Self.error(.badRequest, 4_000_000, "ConsumptionPercentageAutoRenewableSubscriptionError")
                }
                if delivery != "DELIVERED", share != 0 {
                    return Self.error(.badRequest, 4_000_000, "UndeliveredConsumptionPercentageNonZeroError")
                }
                if preference == "GRANT_PRORATED", share == 0 || share == 100_000 {
                    return Self.error(.badRequest, 4_000_000, "Invalid consumption percentage for a prorated refund.")
                }
            } else if preference == "GRANT_PRORATED", entry.transaction.rawType != "Auto-Renewable Subscription" {
                return Self.error(.badRequest, 4_000_000, "A prorated refund needs a consumption percentage.")
            }
        } else {
            for key in ["deliveryStatus", "consumptionStatus", "platform", "accountTenure", "playTime", "lifetimeDollarsRefunded",
                        "lifetimeDollarsPurchased", "userStatus"] where !(body[key] is Int) {
                return Self.error(.badRequest, 4_000_000, "Invalid \(key).")
            }
        }
        let fields = body.mapValues { "\($0)" }
        state.withLock { $0.operations.consumption.append(ConsumptionAnswer(transactionId: id, version: version, fields: fields)) }
        return Response(status: .accepted)
    }

    private func extendOne(id: String, body: [String: Any]) throws -> Response {
        guard !id.isEmpty, id.allSatisfy(\.isNumber) else { return Self.error(.badRequest, 4_000_008, "Invalid original transaction id.") }
        if let refused = Self.checkExtension(body) { return refused }
        let identifier = body["requestIdentifier"] as? String ?? ""
        if let earlier = state.withLock({ $0.operations.extensions[identifier] }) { return FakeStoreServer.json(object: earlier.object) }
        guard let entry = entry(id), entry.transaction.originalTransactionId == id else {
            return Self.error(.notFound, 4_040_005, "Original transaction id not found.")
        }
        guard entry.transaction.rawType == "Auto-Renewable Subscription",
              activeSubscriptions(productId: nil).contains(id) else {
            return Self.error(.forbidden, 4_030_004, "Subscription extension ineligible.")
        }
        guard let latest = extend(id, days: body["extendByDays"] as? Int ?? 0) else {
            return Self.error(.forbidden, 4_030_004, "Subscription extension ineligible.")
        }
        let answer = ExtensionAnswer(originalTransactionId: id, webOrderLineItemId: latest.webOrderLineItemId ?? "",
                                     effectiveDate: Int64(((latest.expiresDate ?? now()).timeIntervalSince1970 * 1000).rounded()))
        state.withLock { $0.operations.extensions[identifier] = answer }
        return FakeStoreServer.json(object: answer.object)
    }

    private func extendMass(body: [String: Any]) throws -> Response {
        if let refused = Self.checkExtension(body) { return refused }
        guard let product = body["productId"] as? String, !product.isEmpty else { return Self.error(.badRequest, 4_000_000, "Invalid product id.") }
        let identifier = body["requestIdentifier"] as? String ?? ""
        state.withLock { state in
            guard !state.operations.massExtensions.contains(where: { $0.requestIdentifier == identifier }) else { return }
            state.operations.massExtensions.append(MassExtension(
                requestIdentifier: identifier, productId: product, extendByDays: body["extendByDays"] as? Int ?? 0,
                extendReasonCode: body["extendReasonCode"] as? Int ?? 0, storefrontCountryCodes: body["storefrontCountryCodes"] as? [String],
                complete: false, succeededCount: 0, completeDate: nil))
        }
        return FakeStoreServer.json(object: ["requestIdentifier": identifier])
    }

    // MARK: - Helpers

    static func checkExtension(_ body: [String: Any]) -> Response? {
        guard let days = body["extendByDays"] as? Int, (1...90).contains(days) else {
            return error(.badRequest, 4_000_009, "Invalid extend by days value.")
        }
        guard let reason = body["extendReasonCode"] as? Int, (0...3).contains(reason) else {
            return error(.badRequest, 4_000_010, "Invalid extend reason code.")
        }
        guard let identifier = body["requestIdentifier"] as? String, !identifier.isEmpty, identifier.count <= 128 else {
            return error(.badRequest, 4_000_011, "Invalid request identifier.")
        }
        return nil
    }

    /// Original transaction ids of unrevoked subscriptions (of `productId`) whose latest transaction has not expired.
    func activeSubscriptions(productId: String?) -> [String] {
        let all = state.withLock { $0.entries.map(\.transaction) }.filter { $0.rawType == "Auto-Renewable Subscription" }
        let originals = Set(all.map(\.originalTransactionId))
        return originals.sorted().filter { original in
            guard let latest = all.filter({ $0.originalTransactionId == original }).max(by: { $0.purchaseDate < $1.purchaseDate }) else {
                return false
            }
            return (productId == nil || latest.productId == productId) && latest.revocationDate == nil && (latest.expiresDate ?? .distantPast) > now()
        }
    }

    /// Moves the expiry of the subscription's latest transaction by `days`; the transaction after.
    func extend(_ original: String, days: Int) -> AppleTestTransaction? {
        state.withLock { state in
            let indices = state.entries.indices.filter { state.entries[$0].transaction.originalTransactionId == original }
            guard let index = indices.max(by: { state.entries[$0].transaction.purchaseDate < state.entries[$1].transaction.purchaseDate }),
                  let expires = state.entries[index].transaction.expiresDate else { return nil }
            state.entries[index].transaction.expiresDate = expires.addingTimeInterval(TimeInterval(days) * 86_400)
            return state.entries[index].transaction
        }
    }

    private func authorized(_ request: Request, _ make: ([String: Any]) throws -> Response) async throws -> Response {
        guard let token = authorize(request.headers[.authorization]) else { return Response(status: .unauthorized) }
        state.withLock { $0.tokens.append(token) }
        var request = request
        let buffer = try await request.collectBody(upTo: 1 << 20)
        var body: [String: Any] = [:]
        if buffer.readableBytes > 0 {
            guard let object = try? JSONDecoder().decode([String: Scalar].self, from: Data(buffer.readableBytesView)) else {
                return Self.error(.badRequest, 4_000_000, "Bad request.")
            }
            body = object.mapValues(\.value)
        }
        return try make(body)
    }

    /// A top-level JSON value of a request body, typed as JSON types it (true is no number).
    enum Scalar: Decodable {
        case bool(Bool), int(Int), double(Double), string(String), strings([String]), other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) { self = .bool(value) }
            else if let value = try? container.decode(Int.self) { self = .int(value) }
            else if let value = try? container.decode(Double.self) { self = .double(value) }
            else if let value = try? container.decode(String.self) { self = .string(value) }
            else if let value = try? container.decode([String].self) { self = .strings(value) }
            else { self = .other }
        }

        var value: Any {
            switch self {
            case .bool(let value): value
            case .int(let value): value
            case .double(let value): value
            case .string(let value): value
            case .strings(let value): value
            case .other: NSNull()
            }
        }
    }

    static func id(_ context: BasicRequestContext) -> String {
        context.parameters.get("id").flatMap { $0.removingPercentEncoding } ?? ""
    }

    static func error(_ status: HTTPResponse.Status, _ code: Int, _ message: String) -> Response {
        FakeStoreServer.json(status, object: ["errorCode": code, "errorMessage": message])
    }
}
