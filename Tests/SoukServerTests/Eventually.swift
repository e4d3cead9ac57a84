import Testing

/// Waits for what a server's own workers record: `check` every 100 ms, for at most `within`, then
/// records `what` as the test's failure. A green run returns as soon as the state is there; the
/// bound is generous because a loaded machine's workers lag by tens of seconds
/// (docs/development.md, "Test layout").
func eventually(_ what: Comment, within: Duration = .seconds(120), _ check: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + within
    while ContinuousClock.now < deadline {
        if try await check() { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    Issue.record(what)
}
