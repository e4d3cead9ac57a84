import Foundation
import Hummingbird
import SoukStore

/// What the website's and the consoles' pages share, whichever controller answers: the redirect
/// after a form, and times and plan states in words.
enum WebPage {
    /// A 303 to `location` (the answer to a form that worked), never cached.
    static func seeOther(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// A moment as the pages show it: `2026-11-29T16:25:01 UTC`.
    static func format(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false).timeSeparator(.colon)) + " UTC"
    }

    /// What a plan's state means to its holder, in words.
    static func planStatus(_ plan: MarketplaceSubscription) -> String {
        switch plan.state {
        case .active where plan.willRenew: "renews \(format(plan.expiresAt))"
        case .active, .cancelled: "ends \(format(plan.expiresAt))"
        case .gracePeriod: "payment failed; access until \(plan.graceExpiresAt.map(format) ?? "")"
        case .billingRetry: "payment failed"
        case .revoked: "refunded"
        case .expired, .paused: "ended \(format(plan.expiresAt))"
        }
    }
}
