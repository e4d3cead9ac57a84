import SoukCore

extension AuditLog {
    /// The entry of a catalog change (`catalog.apply`), whoever made it (the console, `souk catalog
    /// apply`, `souk stores set`): the revision before and after, the diff's lines under `changes`,
    /// and each value it changed before and after (`product reader.monthly: prices`: `4.99 USD` →
    /// `5.49 USD`; store settings by reference, never a secret's value). Nothing when nothing was written.
    @discardableResult
    public func recordCatalogApply(actor: String, beforeRevision: Int?, report: CatalogApplyReport) async throws -> AuditEntry? {
        guard report.applied else { return nil }
        var (before, after) = report.diff.changes.auditObjects
        before["revision"] = beforeRevision.map(String.init) ?? ""
        after["revision"] = report.revision.map(String.init) ?? ""
        after["changes"] = report.diff.lines.joined(separator: "\n")
        return try await record(actor: actor, action: .catalogApply, target: "catalog:\(report.app)", before: before, after: after)
    }
}
