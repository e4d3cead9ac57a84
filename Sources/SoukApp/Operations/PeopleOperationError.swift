/// Why an operation on a person did nothing. Each face words it: the console as a status and page
/// (`refused` 403, `noSuchGrant` 404, the others 400 on the person's page), the `souk` commands as
/// `Error: …` with exit code 1.
package enum PeopleOperationError: Error, Equatable, Sendable {
    /// The actor may not take the action on this person (the reason, in words they can act on).
    case refused(String)
    /// No grant with this id (of this person).
    case noSuchGrant
    /// The app has no in-app catalog to grant from.
    case noCatalog(app: String)
    /// The input was refused: the message names what to change.
    case invalid(String)
}
