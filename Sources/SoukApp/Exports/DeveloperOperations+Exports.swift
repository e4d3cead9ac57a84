import Foundation
import SoukCore
import SoukStore

extension DeveloperOperations {
    /// The raw exports, with the same reach check as every other developer operation.
    package var rawExports: RawExports {
        RawExports(database: database, ownership: ownership, now: now)
    }
}
