/// One value a change changed, as the audit log keeps it: the field's name and its text before and
/// after. nil on one side: the field did not exist there (it was added, or removed).
public struct FieldChange: Sendable, Equatable {
    public var field: String
    public var before: String?
    public var after: String?

    public init(_ field: String, before: String?, after: String?) {
        self.field = field
        self.before = before
        self.after = after
    }
}

extension Sequence where Element == FieldChange {
    /// The `before` and `after` objects of an audit entry: each field with its value on that side,
    /// left out of the side where it did not exist.
    public var auditObjects: (before: [String: String], after: [String: String]) {
        var before: [String: String] = [:], after: [String: String] = [:]
        for change in self {
            before[change.field] = change.before
            after[change.field] = change.after
        }
        return (before, after)
    }
}
