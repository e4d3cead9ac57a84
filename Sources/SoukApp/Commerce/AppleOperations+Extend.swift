import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

/// Extending renewal dates (Apple's Extend a Subscription Renewal Date; its mass form is sent from
/// `AppleOperations+MassExtend` and followed here).
extension AppleOperations {
    /// What became of one subscription's extension.
    public struct ExtensionOutcome: Sendable, Equatable {
        public enum Result: Sendable, Equatable {
            /// Apple moved the renewal date; Souk's entitlement follows.
            case extended(Date)
            /// Apple refused (ineligible, the yearly limit of extensions reached, …).
            case refused(String)
        }

        public var originalTransactionId: String
        public var productId: String
        public var result: Result
    }

    /// Extends every live App Store subscription of `person` in `app` by `days` (one request per
    /// subscription, each recorded before Apple is asked) and moves its entitlement to Apple's new
    /// date at once, for `actor` (`AccountScope` decides first: the console's person page and `souk
    /// subscriptions extend --account`). A subscription Apple refuses is reported, not retried.
    /// - Throws: `PeopleOperationError.refused` for an actor below the role; `Refusal` for bad input
    ///   or a missing key; `StoreFault` when Apple gave no answer (the row says so; nothing moved).
    public func extend(app: String, person: AccountRecord, days: Int, reason: Int, actor: SoukActor) async throws -> [ExtensionOutcome] {
        try await AccountScope(audit: audit).check(.extendSubscriptions, actor: actor, on: person)
        let account = person.id, accountLabel = person.email
        let code = try Self.check(days: days, reason: reason)
        let (credentials, _) = try await credentials(app: app)
        let live = try await liveSubscriptions(app: app, account: account)
        guard !live.isEmpty else { throw Refusal("\(accountLabel) has no active App Store subscription in \(app)") }
        let catalog = try await catalogs.state(app: app)
        var outcomes: [ExtensionOutcome] = []
        for purchase in live {
            guard let original = purchase.originalTransactionId, let environment = purchase.environment else { continue }
            let request = AppleExtendRenewalDateRequest(extendByDays: days, extendReasonCode: code, requestIdentifier: Self.requestIdentifier())
            let row = AppleRenewalExtension(app: app, requestIdentifier: request.requestIdentifier, kind: .single, environment: environment,
                                            productId: purchase.storeProductId, originalTransactionId: original, extendByDays: days,
                                            reasonCode: reason, requestedBy: actor.auditName, requestedAt: now())
            try await extensions.record(row)
            let answer: AppleAPIAnswer<AppleExtendRenewalDateResponse>
            do {
                answer = try await api.extendRenewalDate(original, request, environment: environment, credentials: credentials)
            } catch {
                try await extensions.update(row.id, status: .unanswered, nextCheckAt: nil, detail: "Apple gave no answer: \(error)")
                throw error
            }
            let result: ExtensionOutcome.Result
            switch answer {
            case .found(let response) where response.success == true:
                let effective = response.effective ?? (purchase.expiresDate ?? now()).addingTimeInterval(TimeInterval(days) * 86_400)
                _ = try await purchases.moveExpiry(purchase.paymentId, to: effective, catalog: catalog)
                try await extensions.update(row.id, status: .complete, nextCheckAt: nil, succeeded: 1, failed: 0, moved: 1,
                                            detail: "renews \(effective.ISO8601Format())")
                result = .extended(effective)
            case .found:
                try await extensions.update(row.id, status: .refused, nextCheckAt: nil, succeeded: 0, failed: 1, detail: "Apple did not extend it")
                result = .refused("Apple did not extend it")
            case .notFound:
                try await extensions.update(row.id, status: .refused, nextCheckAt: nil, detail: "Apple knows no such subscription")
                result = .refused("Apple knows no such subscription")
            case .invalid(let errorCode, let message):
                let detail = "errorCode \(errorCode.map(String.init) ?? "none"): \(message)"
                try await extensions.update(row.id, status: .refused, nextCheckAt: nil, detail: detail)
                result = .refused(detail)
            }
            try await audit.record(actor: actor, action: .subscriptionsExtend, target: "purchase:\(purchase.paymentId.uuidString.lowercased())",
                                   before: ["expires": purchase.expiresDate?.ISO8601Format() ?? "-"],
                                   after: ["account": accountLabel, "days": String(days), "reason": String(reason),
                                           "request": request.requestIdentifier, "outcome": Self.describe(result)])
            outcomes.append(ExtensionOutcome(originalTransactionId: original, productId: purchase.storeProductId, result: result))
        }
        return outcomes
    }

    /// One look at a pending mass extension (the extension worker's): Apple's status; once complete,
    /// each affected purchase is read again from Apple and recorded (an operator event) and the
    /// extension is complete. Returns the row as it stands after.
    @discardableResult
    public func followMassExtension(_ row: AppleRenewalExtension) async throws -> AppleRenewalExtension.Status {
        let (credentials, _) = try await credentials(app: row.app)
        let status: AppleAPIAnswer<AppleMassExtensionStatus>
        do throws(StoreFault) {
            status = try await api.massExtensionStatus(productId: row.productId ?? "", requestIdentifier: row.requestIdentifier,
                                                       environment: row.environment, credentials: credentials)
        } catch {
            try await extensions.update(row.id, status: .pending, nextCheckAt: later(row), detail: "no answer from Apple: \(error.description)")
            return .pending
        }
        guard case .found(let found) = status else {
            // Apple may not list a request it has just taken: asked again for a day, then given up.
            let expired = now().timeIntervalSince(row.requestedAt) > 86_400
            try await extensions.update(row.id, status: expired ? .refused : .pending, nextCheckAt: expired ? nil : later(row),
                                        detail: "Apple lists no such request")
            return expired ? .refused : .pending
        }
        guard found.complete == true else {
            try await extensions.update(row.id, status: .pending, nextCheckAt: now().addingTimeInterval(massPollInterval),
                                        succeeded: found.succeededCount, failed: found.failedCount, detail: "Apple is extending")
            return .pending
        }
        do {
            let moved = try await moveAffected(row)
            try await extensions.update(row.id, status: .complete, nextCheckAt: nil, succeeded: found.succeededCount, failed: found.failedCount,
                                        moved: moved, detail: "complete")
            return .complete
        } catch let fault as StoreFault {
            try await extensions.update(row.id, status: .pending, nextCheckAt: later(row), succeeded: found.succeededCount,
                                        failed: found.failedCount, detail: "complete at Apple; entitlements not moved yet: \(fault.description)")
            return .pending
        }
    }

    /// Reads again from Apple every subscription of the product live when the extension was asked,
    /// and records what Apple says now (its new expiry). Returns how many changed.
    package func moveAffected(_ row: AppleRenewalExtension) async throws -> Int {
        guard let verifier else { return 0 }
        let catalog = try await catalogs.state(app: row.app)
        var moved = 0
        for purchase in try await liveSubscriptions(app: row.app, account: nil, at: row.requestedAt)
        where purchase.storeProductId == row.productId && purchase.environment == row.environment {
            guard let original = purchase.originalTransactionId else { continue }
            guard case .verified(let current) = try await verifier.currentSubscription(app: row.app, originalTransactionId: original,
                                                                                           environment: row.environment) else { continue }
            if case .applied = try await purchases.apply(current, app: row.app, source: .operator, catalog: catalog) { moved += 1 }
        }
        return moved
    }

    /// The latest period of each App Store subscription of the app (of `account`) that is granted,
    /// not revoked and running at `at`.
    package func liveSubscriptions(app: String, account: UUID?, at: Date? = nil) async throws -> [StoredPurchase] {
        let instant = at ?? now()
        let all = try await purchases.list(account: account, app: app).filter {
            $0.store == .appleStore && $0.productType == .autoRenewable && $0.status == .granted && $0.originalTransactionId != nil
        }
        var latest: [String: StoredPurchase] = [:]
        for purchase in all {
            let key = purchase.originalTransactionId ?? ""
            if let current = latest[key], (current.purchaseDate ?? .distantPast) >= (purchase.purchaseDate ?? .distantPast) { continue }
            latest[key] = purchase
        }
        return latest.values.filter { $0.revokedAt == nil && ($0.expiresDate ?? .distantPast) > instant }
            .sorted { ($0.originalTransactionId ?? "") < ($1.originalTransactionId ?? "") }
    }

    package func later(_ row: AppleRenewalExtension) -> Date {
        now().addingTimeInterval(max(massPollInterval, retry.delay(beforeRetry: max(1, row.attempts)).timeInterval))
    }

    package static func describe(_ result: ExtensionOutcome.Result) -> String {
        switch result {
        case .extended(let date): "extended to \(date.ISO8601Format())"
        case .refused(let why): "refused: \(why)"
        }
    }
}
