import Hummingbird

/// The operator console's route groups under `/admin`, each carrying its authentication as
/// middleware (`ConsoleMiddleware`): a handler registered here runs only for the sessions its group
/// lets through. Sign-in and the two-factor code step are not console pages (`/signin…`).
struct ConsoleRoutes<Context: ConsoleRequestContext> {
    /// Support staff and operators.
    let staff: RouterGroup<Context>
    /// Operators only (another role: 403).
    let operators: RouterGroup<Context>
    /// The two-factor enrolment pages, open to staff before two-factor sign-in is on.
    let enrolment: RouterGroup<Context>

    init(_ admin: RouterGroup<Context>, gate: ConsoleGate) {
        staff = admin.group().add(middleware: ConsoleMiddleware(gate: gate, access: .staff))
        operators = admin.group().add(middleware: ConsoleMiddleware(gate: gate, access: .operators))
        enrolment = admin.group().add(middleware: ConsoleMiddleware(gate: gate, access: .enrolment))
    }
}

/// The developer console's route groups under `/developer` (`DeveloperConsoleMiddleware`).
struct DeveloperConsoleRoutes<Context: ConsoleRequestContext> {
    /// Members of a developer organisation.
    let members: RouterGroup<Context>
    /// The two-factor enrolment pages, open to members before two-factor sign-in is on.
    let enrolment: RouterGroup<Context>

    init(_ developer: RouterGroup<Context>, gate: DeveloperConsoleGate) {
        members = developer.group().add(middleware: DeveloperConsoleMiddleware(gate: gate, enrolment: false))
        enrolment = developer.group().add(middleware: DeveloperConsoleMiddleware(gate: gate, enrolment: true))
    }
}
