import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

/// What a signed-in person changes on their own account (the website's account page): a new
/// password, a membership plan's renewal off or back on (at Stripe first when Stripe bills it),
/// signing out everywhere, and closing the account. A plan id selects only a plan of that account.
package struct AccountSelfService: Sendable {
    package let database: SoukDatabase
    /// The purchase store that tells this process's entitlement index what each write changed.
    package let purchases: PurchaseStore
    package let tokens: TokenStore
    /// Stripe when it is the payment processor; nil when a plan Stripe bills cannot be changed here.
    package let stripe: StripeClient?

    package init(database: SoukDatabase, purchases: PurchaseStore, tokens: TokenStore, stripe: StripeClient?) {
        self.database = database
        self.purchases = purchases
        self.tokens = tokens
        self.stripe = stripe
    }

    package init(runtime: SoukRuntime) {
        self.init(database: runtime.database, purchases: runtime.purchases, tokens: runtime.tokens, stripe: runtime.stripeClient())
    }

    var plans: MarketplaceSubscriptionStore { MarketplaceSubscriptionStore(purchases: purchases) }
    var sessions: WebSessionStore { WebSessionStore(database: database) }

    /// The account's stored password hash, to check a password it is asked for.
    package func passwordHash(of account: UUID) async throws -> String? {
        try await PeopleDirectory(database: database).credentials(id: account)?.passwordHash
    }

    /// Sets a new password hash; every other browser session ends (`keeping` stays), devices keep their tokens.
    package func setPassword(hash: String, account: UUID, keeping session: String) async throws {
        try await PeopleDirectory(database: database).setPasswordHash(hash, account: account)
        try await sessions.deleteOthers(accountID: account, keeping: session)
    }

    /// Ends every device token and browser session of the account.
    package func signOutEverywhere(_ account: UUID) async throws {
        try await tokens.revokeAll(accountID: account)
        try await sessions.deleteAll(accountID: account)
    }

    /// What became of a renewal change.
    package enum RenewalOutcome: Sendable, Equatable {
        case changed
        /// Stripe bills the plan and could not be reached (or is not configured): nothing changed.
        case processorUnavailable
        /// Stripe refused the change: nothing changed.
        case processorRefused
        /// The plan is over: nothing to change.
        case planOver
    }

    /// Turns renewal off or back on for the account's plan `id`; nil when the account has no such plan.
    package func setRenewal(plan id: UUID, account: UUID, renew: Bool) async throws -> RenewalOutcome? {
        guard let plan = try await plans.subscriptions(account: account).first(where: { $0.id == id }) else { return nil }
        if plan.processor == "stripe", let stripeId = try await plans.stripeSubscription(id, account: account) {
            guard let stripe else { return .processorUnavailable }
            do {
                try await stripe.setCancelAtPeriodEnd(subscription: stripeId, !renew)
            } catch is StoreFault {
                return .processorUnavailable
            } catch is StripeRequestError {
                return .processorRefused
            }
        }
        guard try await plans.setWillRenew(id, account: account, renew: renew) != nil else { return .planOver }
        return .changed
    }

    /// Closes the account: its running plans stop renewing first (at Stripe too), then it is closed
    /// (`AccountClosure`) and every token ends. False, with nothing closed, when Stripe could not
    /// stop a plan it bills.
    package func close(account: UUID, now: Date = Date()) async throws -> Bool {
        for plan in try await plans.subscriptions(account: account) where plan.willRenew && !plan.pending && plan.expiresAt > now {
            if plan.processor == "stripe", let stripeId = try await plans.stripeSubscription(plan.id, account: account) {
                guard let stripe else { return false }
                do { try await stripe.setCancelAtPeriodEnd(subscription: stripeId, true) } catch { return false }
            }
            _ = try await plans.setWillRenew(plan.id, account: account, renew: false)
        }
        try await tokens.revokeAll(accountID: account)
        try await AccountClosure(database: database).close(accountID: account)
        return true
    }
}
