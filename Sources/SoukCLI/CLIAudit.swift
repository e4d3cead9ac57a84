import SoukServer
import SoukStore

extension SoukRuntime {
    /// Records a change made by a `souk` command in the audit log (actor `cli:<system user>`), as the
    /// console records its own (issue 14). Flat before/after fields, never a secret.
    func auditCLI(_ action: String, target: String, before: [String: String]? = nil, after: [String: String]? = nil) async throws {
        try await AuditLog(database: database).record(actor: AuditLog.cliActor, action: action, target: target, before: before, after: after)
    }

    /// A catalog change: the revision before and after, and the diff's lines (which name store
    /// settings by key and reference, never a secret's value). Nothing when nothing was written.
    func auditCatalogApply(app: String, beforeRevision: Int?, report: CatalogApplyReport) async throws {
        guard report.applied else { return }
        try await auditCLI("catalog.apply", target: "catalog:\(app)", before: ["revision": beforeRevision.map(String.init) ?? ""],
                           after: ["revision": report.revision.map(String.init) ?? "", "changes": report.diff.lines.joined(separator: "\n")])
    }
}
