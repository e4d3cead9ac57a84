import Hummingbird

/// A request context that carries the console session its route group's middleware let in
/// (`ConsoleMiddleware` for `/admin…`, `DeveloperConsoleMiddleware` for `/developer…`).
protocol ConsoleRequestContext: RequestContext {
    /// The operator console's session, set by `ConsoleMiddleware` (nil outside its groups).
    var consoleSession: ConsoleSession? { get set }
    /// The developer console's session, set by `DeveloperConsoleMiddleware` (nil outside its groups).
    var developerSession: DeveloperSession? { get set }
}

/// Which sessions a route group of the operator console lets through.
enum ConsoleAccess: Sendable {
    /// Support staff and operators, with two-factor sign-in on where `consoleRequiresTwoFactor` asks for it.
    case staff
    /// Operators only: another console role is a 403 problem, before any body is read.
    case operators
    /// The two-factor enrolment pages: staff, also before two-factor sign-in is on.
    case enrolment
}

/// Authenticates every route of an `/admin…` group once, before its handlers, by `ConsoleGate`'s
/// rules (signed out → 303 to sign-in, a customer → 403 page, two-factor enrolment and code steps),
/// then checks the group's `ConsoleAccess`; the handlers read `context.requireConsoleSession()`.
/// A POST's CSRF token is checked where the handler reads its form (`AdminController.consoleForm`):
/// each form has its own size limit, and uploads stream their body.
struct ConsoleMiddleware<Context: ConsoleRequestContext>: RouterMiddleware {
    let gate: ConsoleGate
    let access: ConsoleAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let session = try await gate.authenticate(request, enrolment: access == .enrolment)
        if access == .operators { try ConsoleGate.requireOperator(session) }
        var context = context
        context.consoleSession = session
        return try await next(request, context)
    }
}

/// Authenticates every route of a `/developer…` group once, by `DeveloperConsoleGate`'s rules
/// (`enrolment`: the two-factor enrolment pages, open before two-factor sign-in is on); the
/// handlers read `context.requireDeveloperSession()`.
struct DeveloperConsoleMiddleware<Context: ConsoleRequestContext>: RouterMiddleware {
    let gate: DeveloperConsoleGate
    let enrolment: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.developerSession = try await gate.authenticate(request, enrolment: enrolment)
        return try await next(request, context)
    }
}

extension ConsoleRequestContext {
    /// The session `ConsoleMiddleware` let in. A handler registered outside the console's route
    /// groups has none: a programming error, answered 500 (and caught by `ConsoleRouteGuardTests`).
    func requireConsoleSession() throws -> ConsoleSession {
        guard let consoleSession else { throw Problem(.internalServerError, "This console page is outside the console's route group.") }
        return consoleSession
    }

    /// The session `DeveloperConsoleMiddleware` let in; 500 for a handler outside its route groups.
    func requireDeveloperSession() throws -> DeveloperSession {
        guard let developerSession else { throw Problem(.internalServerError, "This console page is outside the console's route group.") }
        return developerSession
    }
}

extension SoukRequestContext: ConsoleRequestContext {}
