import Foundation

/// The metrics of one app's periods (docs/metrics.md has every definition): active subscriptions
/// and trials, MRR, revenue and refunds, new subscribers, trials started and converted, churn by
/// reason, reactivations and cohort retention. A pure rule over `MetricPeriod`s: the order they
/// come in changes nothing (each subscription's periods are sorted by a total order).
public struct SubscriptionMetrics: Sendable {
    /// Each subscription's periods, in order.
    let subscriptions: [[MetricPeriod]]
    /// One-time purchases (revenue and refunds only).
    let oneTime: [MetricPeriod]
    /// Each account's subscriptions (indexes into `subscriptions`).
    let accounts: [String: [Int]]
    /// Each account's first paid subscription period's start.
    let firstPaid: [String: Date]
    /// How many accounts' first paid period starts on each day (ordinal).
    let newSubscribers: [Int: Int]
    /// Each subscription's periods' `monthlyPrice`, computed once (MRR asks it every day).
    let monthlyPrices: [[Decimal?]]

    /// The metrics of `periods` of one environment: production unless `sandbox`.
    public init(periods: [MetricPeriod], sandbox: Bool = false) {
        let chosen = periods.filter { $0.sandbox == sandbox }
        let grouped = Dictionary(grouping: chosen.filter { $0.kind == .subscription }, by: \.subscription)
        subscriptions = grouped.keys.sorted().map { key in grouped[key]!.sorted(by: Self.order) }
        oneTime = chosen.filter { $0.kind == .oneTime }
        var accounts: [String: [Int]] = [:], firstPaid: [String: Date] = [:]
        for (index, periods) in subscriptions.enumerated() {
            let account = periods[0].account
            accounts[account, default: []].append(index)
            if let paid = periods.first(where: { !$0.isTrial }) {
                firstPaid[account] = min(firstPaid[account] ?? paid.start, paid.start)
            }
        }
        self.accounts = accounts
        self.firstPaid = firstPaid
        var newSubscribers: [Int: Int] = [:]
        for start in firstPaid.values { newSubscribers[MetricDay(containing: start).ordinal, default: 0] += 1 }
        self.newSubscribers = newSubscribers
        monthlyPrices = subscriptions.map { $0.map(\.monthlyPrice) }
    }

    /// A total order of one subscription's periods, so that the input's order never matters.
    static func order(_ a: MetricPeriod, _ b: MetricPeriod) -> Bool {
        if a.start != b.start { return a.start < b.start }
        if a.end != b.end { return (a.end ?? .distantFuture) < (b.end ?? .distantFuture) }
        if a.isTrial != b.isTrial { return a.isTrial }
        if a.price != b.price { return a.price < b.price }
        return a.product < b.product
    }

    /// The period that makes the subscription active on `day`: the last started of those active.
    static func current(_ periods: [MetricPeriod], on day: MetricDay) -> MetricPeriod? {
        periods.last { $0.isActive(on: day) }
    }

    func accountIsActive(_ account: String, on day: MetricDay) -> Bool {
        (accounts[account] ?? []).contains { Self.current(subscriptions[$0], on: day) != nil }
    }

    /// Whether the account had an active subscription on a day before `day`.
    func accountWasActive(_ account: String, before day: MetricDay) -> Bool {
        (accounts[account] ?? []).contains { index in
            subscriptions[index].contains { period in
                let first = MetricDay(containing: period.start)
                return first < day && period.isActive(on: first)
            }
        }
    }

    /// The metrics of `day`.
    public func day(_ day: MetricDay) -> DayMetrics {
        self.day(day, subscriptions: Array(subscriptions.indices), oneTime: Array(oneTime.indices))
    }

    /// The metrics of every day from `first` through `last`, each equal to `day(_:)`'s, in time
    /// proportional to the periods and days rather than their product: a day looks only at the
    /// subscriptions and one-time purchases whose days (`span`) include it, found by one sweep.
    public func days(from first: MetricDay, through last: MetricDay) -> [DayMetrics] {
        guard first <= last else { return [] }
        var subscriptionSweep = Sweep(spans: subscriptions.map(Self.span))
        var oneTimeSweep = Sweep(spans: oneTime.map { Self.span([$0]) })
        var result: [DayMetrics] = []
        result.reserveCapacity(last.ordinal - first.ordinal + 1)
        var day = first
        while day <= last {
            result.append(self.day(day, subscriptions: subscriptionSweep.open(on: day.ordinal), oneTime: oneTimeSweep.open(on: day.ordinal)))
            day = day.adding(days: 1)
        }
        return result
    }

    /// The days (ordinals) on which `periods` can count for anything: from the first start through
    /// the day after the last day one of them can be active (its churn), or its last start or refund.
    /// A superset is harmless (`day` checks each period); a day outside it sees nothing of them.
    static func span(_ periods: [MetricPeriod]) -> ClosedRange<Int> {
        var low = Int.max, high = Int.min
        for period in periods {
            let start = MetricDay(containing: period.start).ordinal
            low = min(low, start)
            high = max(high, start)
            for date in [period.activeUntil, period.end, period.refund?.at].compactMap({ $0 }) where date < .distantFuture {
                high = max(high, MetricDay(containing: date).ordinal)
            }
            if period.activeUntil.map({ $0 >= .distantFuture }) == true { high = Int.max - 1 }
        }
        return low...(high + 1)
    }

    /// The items whose spans include a day, for days asked in increasing order.
    struct Sweep {
        let spans: [ClosedRange<Int>]
        let byStart: [Int]
        var next = 0
        var open: [Int] = []

        init(spans: [ClosedRange<Int>]) {
            self.spans = spans
            byStart = spans.indices.sorted { spans[$0].lowerBound < spans[$1].lowerBound }
        }

        mutating func open(on day: Int) -> [Int] {
            while next < byStart.count, spans[byStart[next]].lowerBound <= day {
                open.append(byStart[next])
                next += 1
            }
            open.removeAll { spans[$0].upperBound < day }
            return open
        }
    }

    /// The metrics of `day` from the subscriptions and one-time purchases (indexes) that can count
    /// on it; `day(_:)` passes them all.
    func day(_ day: MetricDay, subscriptions chosen: [Int], oneTime chosenOneTime: [Int]) -> DayMetrics {
        var metrics = DayMetrics(day: day)
        let before = day.adding(days: -1)
        var activeAccounts = Set<String>()
        for subscription in chosen {
            let periods = subscriptions[subscription]
            let currentIndex = periods.lastIndex { $0.isActive(on: day) }
            if let currentIndex {
                let current = periods[currentIndex]
                activeAccounts.insert(current.account)
                metrics.activeSubscriptions += 1
                if current.isTrial {
                    metrics.activeTrials += 1
                } else if current.priceKnown, let monthly = monthlyPrices[subscription][currentIndex] {
                    metrics.mrr[current.currency, default: 0] += monthly
                } else {
                    metrics.priceUnknown[.mrr, default: 0] += 1
                }
            } else if let previous = Self.current(periods, on: before) {
                metrics.churned[Self.reason(previous, periods: periods), default: 0] += 1
            }
            for (index, period) in periods.enumerated() {
                if period.isTrial, MetricDay(containing: period.start) == day { metrics.trialStarts += 1 }
                if period.isTrial, let next = periods.dropFirst(index + 1).first, !next.isTrial,
                   MetricDay(containing: next.start) == day, let limit = period.activeUntil ?? period.end, next.start <= limit {
                    metrics.trialConversions += 1
                }
            }
        }
        for index in chosen {
            for period in subscriptions[index] { Self.addMoney(period, on: day, to: &metrics) }
        }
        for index in chosenOneTime { Self.addMoney(oneTime[index], on: day, to: &metrics) }
        metrics.newSubscribers = newSubscribers[day.ordinal] ?? 0
        // Only an account with a subscription active on the day can be a reactivation.
        metrics.reactivations = activeAccounts.filter { account in
            !accountIsActive(account, on: before) && accountWasActive(account, before: before)
        }.count
        return metrics
    }

    static func addMoney(_ period: MetricPeriod, on day: MetricDay, to metrics: inout DayMetrics) {
        if !period.isTrial, MetricDay(containing: period.start) == day {
            if !period.priceKnown {
                metrics.priceUnknown[.revenue, default: 0] += 1
            } else if period.price > 0 {
                metrics.revenue[period.currency, default: 0] += period.price
            }
        }
        if let refund = period.refund, MetricDay(containing: refund.at) == day {
            if refund.amount > 0 {
                metrics.refunds[period.currency, default: 0] += refund.amount
            } else if !period.priceKnown {
                metrics.priceUnknown[.refunds, default: 0] += 1
            }
        }
    }

    /// Why `period`, current the day before, left its subscription inactive.
    static func reason(_ period: MetricPeriod, periods: [MetricPeriod]) -> ChurnReason {
        if let refund = period.refund, refund.endsAccess, let end = period.end, refund.at < max(end, period.graceUntil ?? end) {
            return .refund
        }
        if period.endedInBillingRetry { return .billing }
        if let off = period.autoRenewOffAt, let end = period.end, off < end { return .voluntary }
        return .other
    }

    /// Cohort retention: for each month of a first paid period from `from` to `to`, and each month
    /// k after it up to `to`, the share of the cohort's accounts with an active subscription on the
    /// last day of month cohort + k. With `through` (the rollup passes today), a month not ended by
    /// that day counts the accounts active on it ("as of today"), and later months have no cells.
    public func cohorts(from: StatementMonth, to: StatementMonth, through: MetricDay? = nil) -> [CohortCell] {
        let to = through.map { min(to, $0.month) } ?? to
        var members: [StatementMonth: [String]] = [:]
        for (account, start) in firstPaid {
            let month = StatementMonth(containing: start)
            if month >= from && month <= to { members[month, default: []].append(account) }
        }
        var cells: [CohortCell] = []
        for cohort in members.keys.sorted() {
            let accounts = members[cohort]!
            var month = cohort, k = 0
            while month <= to {
                let monthEnd = MetricDay(containing: month.end).adding(days: -1)
                let lastDay = through.map { min(monthEnd, $0) } ?? monthEnd
                let active = accounts.filter { accountIsActive($0, on: lastDay) }.count
                cells.append(CohortCell(cohort: cohort, month: k, accounts: accounts.count, active: active))
                month = StatementMonth(containing: month.end)
                k += 1
            }
        }
        return cells
    }
}

/// One cell of the cohort table: of the accounts whose first paid period began in `cohort`, how
/// many had an active subscription at the end of month `cohort + month`.
public struct CohortCell: Sendable, Equatable {
    public var cohort: StatementMonth
    public var month: Int
    public var accounts: Int
    public var active: Int

    public init(cohort: StatementMonth, month: Int, accounts: Int, active: Int) {
        self.cohort = cohort
        self.month = month
        self.accounts = accounts
        self.active = active
    }

    /// `active ÷ accounts`, rounded to four decimals (0 for an empty cohort).
    public var share: Double {
        accounts == 0 ? 0 : (Double(active) / Double(accounts) * 10_000).rounded() / 10_000
    }
}
