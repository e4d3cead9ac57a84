import Foundation
import SoukCore
import SoukStore

/// Review before release (docs/developers.md, "Review"): the queue of versions developers uploaded,
/// and the operator's decision on each. Only the marketplace's operator decides (staff with the
/// operator role, or a `souk` command); support staff read the queue. A developer actor never
/// reaches it: for them there is nothing here ("not found"). Each decision writes its own audit
/// entry (`version.approve`, `version.reject`) with the review state before and after.
public struct VersionReview: Sendable {
    package let store: VersionReviewStore
    package let audit: AuditLog

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = VersionReviewStore(database: database, now: now)
        self.audit = AuditLog(database: database, now: now)
    }

    /// Longest rejection reason, as the developer is shown it.
    public static let maxReasonLength = 1_000

    /// Why a review step did not happen.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// No such app or version (or, for a developer actor, nothing of theirs to review here).
        case notFound(appleItemId: UInt64, appleVersionId: UInt64)
        /// The actor may read the queue but not decide (support staff).
        case notPermitted
        /// The version is not waiting in review: it was decided already (or never needed review).
        case notInReview(VersionReviewState)
        /// A rejection needs a reason of 1–1000 characters.
        case invalidReason

        public var description: String {
            switch self {
            case .notFound(let item, let version): "app \(item) has no version \(version)"
            case .notPermitted: "only the marketplace's operator approves or rejects versions"
            case .notInReview(let state): "the version is not in review (it is \(state.rawValue.replacingOccurrences(of: "_", with: " "))): nothing changed"
            case .invalidReason: "a rejection needs a reason of 1–\(VersionReview.maxReasonLength) characters"
            }
        }
    }

    /// What a review page shows: the version, and the release devices get now (nil: the app's first).
    public struct Comparison: Sendable {
        public var version: VersionFacts
        public var previous: VersionFacts?
    }

    /// Versions waiting in review, the longest-waiting first (staff and the CLI).
    public func queue(actor: SoukActor) async throws -> [VersionFacts] {
        try mayRead(actor, appleItemId: 0, appleVersionId: 0)
        return try await store.queue()
    }

    /// One version's facts beside the previous release's (staff and the CLI).
    public func comparison(actor: SoukActor, appleItemId: UInt64, appleVersionId: UInt64) async throws -> Comparison {
        try mayRead(actor, appleItemId: appleItemId, appleVersionId: appleVersionId)
        guard let version = try await store.facts(appleItemId: appleItemId, appleVersionId: appleVersionId) else {
            throw Failure.notFound(appleItemId: appleItemId, appleVersionId: appleVersionId)
        }
        return Comparison(version: version, previous: try await store.previousRelease(appleItemId: appleItemId, appleVersionId: appleVersionId))
    }

    /// Releases a version in review: every process offers it within a catalog refresh.
    @discardableResult
    public func approve(actor: SoukActor, appleItemId: UInt64, appleVersionId: UInt64) async throws -> VersionFacts {
        try await decide(.released, reason: nil, actor: actor, appleItemId: appleItemId, appleVersionId: appleVersionId)
    }

    /// Rejects a version in review with the reason the developer is shown; it is never offered.
    @discardableResult
    public func reject(actor: SoukActor, appleItemId: UInt64, appleVersionId: UInt64, reason: String) async throws -> VersionFacts {
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...Self.maxReasonLength).contains(reason.count) else {
            try mayDecide(actor, appleItemId: appleItemId, appleVersionId: appleVersionId)
            throw Failure.invalidReason
        }
        return try await decide(.rejected, reason: reason, actor: actor, appleItemId: appleItemId, appleVersionId: appleVersionId)
    }

    private func decide(_ decision: VersionReviewState, reason: String?, actor: SoukActor, appleItemId: UInt64,
                        appleVersionId: UInt64) async throws -> VersionFacts {
        try mayDecide(actor, appleItemId: appleItemId, appleVersionId: appleVersionId)
        if try await !store.decide(appleItemId: appleItemId, appleVersionId: appleVersionId, to: decision, reason: reason, by: actor.auditName) {
            guard let current = try await store.facts(appleItemId: appleItemId, appleVersionId: appleVersionId) else {
                throw Failure.notFound(appleItemId: appleItemId, appleVersionId: appleVersionId)
            }
            throw Failure.notInReview(current.reviewState)
        }
        var after = ["review_state": decision.rawValue]
        if let reason { after["reason"] = reason }
        try await audit.record(actor: actor.auditName, action: decision == .released ? .versionApprove : .versionReject,
                               target: "app:\(appleItemId)/version:\(appleVersionId)",
                               before: ["review_state": VersionReviewState.inReview.rawValue], after: after)
        guard let facts = try await store.facts(appleItemId: appleItemId, appleVersionId: appleVersionId) else {
            throw Failure.notFound(appleItemId: appleItemId, appleVersionId: appleVersionId)
        }
        return facts
    }

    /// Staff of either role and the operator's side read; developers find nothing here.
    private func mayRead(_ actor: SoukActor, appleItemId: UInt64, appleVersionId: UInt64) throws {
        switch actor {
        case .staff, .cli, .system: return
        case .developerMember, .developerKey: throw Failure.notFound(appleItemId: appleItemId, appleVersionId: appleVersionId)
        }
    }

    private func mayDecide(_ actor: SoukActor, appleItemId: UInt64, appleVersionId: UInt64) throws {
        try mayRead(actor, appleItemId: appleItemId, appleVersionId: appleVersionId)
        guard actor.isMarketplaceOperator else { throw Failure.notPermitted }
    }
}
