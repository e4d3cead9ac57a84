import SoukCore

/// `GET /api/v1/developer/metrics`'s answer: one point per day, week or month of the range.
struct DeveloperMetricsDocument: Encodable {
    struct Point: Encodable {
        /// The interval's first and last day within the range asked for (YYYY-MM-DD).
        var start: String
        var end: String
        /// Minor units of `currency` for money; a count otherwise.
        var value: Int64
        /// `churned`: every reason's count.
        var breakdown: [String: Int64]?
        /// Payments left out of a money value because their price is unknown.
        var priceUnknown: Int64?

        init(_ point: MetricPoint) {
            start = point.start.description
            end = point.end.description
            value = point.value
            breakdown = point.breakdown
            priceUnknown = point.priceUnknown
        }
    }

    var app: String
    var metric: String
    var interval: String
    var environment: String
    var from: String
    var to: String
    /// The reporting currency, for money only.
    var currency: String?
    /// The filter asked for (at most one of the three), absent when not filtered.
    var store: String?
    var product: String?
    /// ISO 3166-1 alpha-2.
    var country: String?
    var points: [Point]
}
