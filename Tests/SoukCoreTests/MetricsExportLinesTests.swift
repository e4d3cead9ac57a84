import Foundation
import SoukCore
import Testing

/// The documented shapes of the metrics and cohort exports (docs/metrics.md, "Exports").
@Suite struct MetricsExportLinesTests {
    static let day = MetricDay("2026-10-01")!

    @Test func metricLinesHaveTheirDocumentedShape() throws {
        let mrr = ReportedMetric(day: Self.day, metric: .mrr, value: 3948, currency: "USD", breakdown: nil)
        #expect(MetricsExportLines.jsonl(mrr, app: "com.example.reader")
                == #"{"date":"2026-10-01","app":"com.example.reader","metric":"mrr","value":3948,"currency":"USD"}"#)
        let churn = ReportedMetric(day: Self.day, metric: .churned, value: 2, currency: nil, breakdown: ["voluntary": 1, "refund": 1])
        let line = MetricsExportLines.jsonl(churn, app: "a\"b")
        #expect(line == #"{"date":"2026-10-01","app":"a\"b","metric":"churned","value":2,"breakdown":{"voluntary":1,"billing":0,"refund":1,"other":0}}"#)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        let parsed = try #require(object as? [String: Any])
        #expect(parsed["app"] as? String == "a\"b" && parsed["value"] as? Int == 2)
        #expect(MetricsExportLines.csvHeader == "date,app,metric,value,currency,churned_voluntary,churned_billing,churned_refund,churned_other")
        #expect(MetricsExportLines.csv(mrr, app: "x,y") == "2026-10-01,\"x,y\",mrr,3948,USD,,,,")
        #expect(MetricsExportLines.csv(churn, app: "x") == "2026-10-01,x,churned,2,,1,0,1,0")
    }

    @Test func cohortLinesHaveTheirDocumentedShape() {
        let cell = CohortCell(cohort: StatementMonth("2026-08")!, month: 2, accounts: 10, active: 6)
        #expect(MetricsExportLines.jsonl(cell) == #"{"cohort":"2026-08","month":2,"accounts":10,"active":6,"share":0.6}"#)
        #expect(MetricsExportLines.csv(cell) == "2026-08,2,10,6,0.6")
        #expect(CohortCell(cohort: StatementMonth("2026-08")!, month: 0, accounts: 3, active: 1).share == 0.3333)
    }
}
