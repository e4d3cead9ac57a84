import Foundation
import Logging
import SoukCore
import SoukIntegrations
import SoukStore

/// Reads each app's Google Play voided purchases (`purchases.voidedpurchases.list`, one-time products
/// and subscriptions, quantity-based partial refunds included) and revokes what Google voided, so a
/// refund or chargeback ends access even when its real-time notification never reached Souk.
///
/// Where it stopped is kept per app (`GoogleVoidedPositionStore`): the latest voided time read, and
/// while a listing is paged its next page token, written after every page, so a restart resumes
/// there. Google lists only the last 30 days; a start older than that begins at the window's edge.
/// Each listing re-reads a little before the last voided time (Google may list an entry late):
/// a second sight of a voided purchase changes nothing. With several processes, an app's listing is
/// claimed through a `MaintenanceLease`, so one process reads it at a time.
public struct GoogleVoidedPurchasesPoller: Sendable {
    /// How far back Google lists voided purchases.
    package static let window: TimeInterval = 30 * 86_400
    /// A start this far inside the window, so clocks a little apart do not make Google refuse it.
    package static let windowMargin: TimeInterval = 600
    /// How far before the last voided time read a listing starts again.
    package static let overlap: TimeInterval = 900

    package let google: GooglePlayStoreVerifier
    package let positions: GoogleVoidedPositionStore
    package let purchases: PurchaseStore
    package let apps: @Sendable () async throws -> [String]
    package let lease: MaintenanceLease?
    package let storeStatus: StoreStatusStore?
    package let holder: String
    /// Pages one run reads at most for an app (the rest waits for the next run, from the saved token).
    package let pagesPerRun: Int
    package let now: @Sendable () -> Date
    package let logger: Logger

    public init(google: GooglePlayStoreVerifier, positions: GoogleVoidedPositionStore, purchases: PurchaseStore,
                apps: @escaping @Sendable () async throws -> [String], lease: MaintenanceLease?, storeStatus: StoreStatusStore?,
                holder: String = "serve-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))", pagesPerRun: Int = 50,
                now: @escaping @Sendable () -> Date = { Date() }, logger: Logger) {
        self.pagesPerRun = max(1, pagesPerRun)
        self.google = google
        self.positions = positions
        self.purchases = purchases
        self.apps = apps
        self.lease = lease
        self.storeStatus = storeStatus
        self.holder = holder
        self.now = now
        self.logger = logger
    }

    /// What one run did.
    public struct Summary: Sendable, Equatable, CustomStringConvertible {
        /// Apps whose voided purchases were listed.
        public var apps = 0
        /// Voided purchases Google listed.
        public var read = 0
        /// Purchases revoked now (a voided purchase seen before revokes nothing).
        public var revoked = 0
        /// Consumables of which a partial refund took some quantity back now.
        public var partial = 0
        /// Voided purchases of which Souk holds no purchase.
        public var unmatched = 0
        /// Apps whose listing got no answer (asked again at the next run, from where it stopped).
        public var failed = 0

        public var description: String {
            "apps \(apps), voided \(read), revoked \(revoked), partial refunds \(partial), unknown \(unmatched), no answer \(failed)"
        }
    }

    /// Lists the voided purchases of every app with Google Play settings (or of `app` only).
    public func run(app only: String? = nil) async -> Summary {
        var summary = Summary()
        let apps: [String]
        do {
            if let only { apps = [only] } else { apps = try await self.apps() }
        } catch {
            logger.warning("voided purchases: the apps cannot be listed now", metadata: ["error": "\(String(reflecting: error))"])
            summary.failed += 1
            return summary
        }
        for app in apps {
            guard await google.isConfigured(app: app) else { continue }
            let job = "google-voided:\(app)"
            if let lease, (try? await lease.claim(job, holder: holder, for: 600)) != true { continue }
            summary.apps += 1
            do {
                try await poll(app, into: &summary)
            } catch {
                summary.failed += 1
                if let fault = error as? StoreFault { try? await storeStatus?.recordFault(app: app, store: .googlePlay, fault, at: now()) }
                logger.warning("voided purchases got no answer; read again at the next run",
                               metadata: ["app": "\(app)", "error": "\(String(reflecting: error))"])
            }
            if let lease {
                do {
                    try await lease.release(job, holder: holder)
                } catch {
                    // The lease runs out by itself (ten minutes); until then other processes skip this app.
                    logger.warning("voided purchases: the listing's lease could not be released", metadata: ["app": "\(app)", "error": "\(String(reflecting: error))"])
                }
            }
        }
        return summary
    }

    package func poll(_ app: String, into summary: inout Summary) async throws {
        let floor = Int64((now().timeIntervalSince1970 - Self.window + Self.windowMargin) * 1000)
        var position = try await positions.position(app: app) ?? GoogleVoidedPosition()
        var start: Int64
        var token: String?
        // A listing that began at an earlier run's floor goes on with its page token while that start is
        // still inside Google's 30 days (the floor itself has moved on since, by the time between runs).
        let oldest = Int64((now().timeIntervalSince1970 - Self.window) * 1000)
        if let pageToken = position.pageToken, let pageStart = position.pageStartMillis, pageStart > oldest {
            start = pageStart
            token = pageToken
        } else {
            start = max(floor, (position.highWaterMillis ?? floor) - Int64(Self.overlap * 1000))
        }
        for _ in 0..<pagesPerRun {
            let page: GoogleVoidedPurchasePage
            switch try await google.voidedPurchases(app: app, startTimeMillis: start, token: token) {
            case .found(let found):
                page = found
            case .rejected(let status, let reason):
                guard token != nil else {
                    throw StoreFault(.unavailable, "Google refused to list the voided purchases of \(app) (\(status)\(reason.map { ", \($0)" } ?? "")).")
                }
                // A page token Google no longer takes: the listing starts again (what it shows twice changes nothing).
                token = nil
                start = max(floor, (position.highWaterMillis ?? floor) - Int64(Self.overlap * 1000))
                continue
            }
            try? await storeStatus?.recordAnswer(app: app, store: .googlePlay, at: now())
            for voided in page.voidedPurchases ?? [] {
                summary.read += 1
                try await apply(voided, app: app, into: &summary)
                position.highWaterMillis = max(position.highWaterMillis ?? voided.voidedTimeMillis, voided.voidedTimeMillis)
            }
            token = page.nextPageToken
            position.pageToken = token
            position.pageStartMillis = token == nil ? nil : start
            try await positions.save(app: app, position, at: now())
            if token == nil { return }
        }
    }

    /// Revokes what one voided purchase names: a one-time purchase by its token and order, a
    /// subscription's voided order and whatever period of it is running; a consumable refunded in
    /// part gives back that quantity only.
    package func apply(_ voided: GoogleVoidedPurchase, app: String, into summary: inout Summary) async throws {
        let known = try await purchases.purchases(app: app, store: .googlePlay, storeReference: voided.purchaseToken)
        guard let first = known.first else {
            summary.unmatched += 1
            return
        }
        if let quantity = voided.voidedQuantity, quantity > 0, first.productType == .consumable, quantity < first.quantity {
            let dedup = "google_play|\(voided.orderId ?? first.paymentId.uuidString.lowercased())|\(voided.voidedTimeMillis)"
            if try await purchases.refundPartially(app: app, store: .googlePlay, storeReference: voided.purchaseToken, quantity: quantity,
                                                   dedup: dedup, at: voided.voidedAt, source: .reconciliation) {
                summary.partial += 1
            }
            return
        }
        let subscription = known.contains { $0.productType == .autoRenewable || $0.expiresDate != nil }
        let revoked = try await purchases.revokeAtStore(app: app, store: .googlePlay, storeReference: voided.purchaseToken,
                                                        transactionId: voided.orderId,
                                                        activeAt: subscription || voided.orderId == nil ? voided.voidedAt : nil,
                                                        at: voided.voidedAt, reason: "voided: \(voided.reasonName)", source: .reconciliation)
        summary.revoked += revoked.count
    }
}
