import Foundation
import SoukCore
import SoukStore

/// What the two consoles' two-factor enrolment page (`console-two-factor`) and recovery codes page
/// (`console-recovery-codes`) show: the same enrolment under each console's own navigation, path
/// and wording.
struct ConsoleTwoFactorPage {
    /// `/admin` or `/developer`: where the form posts and the recovery codes page continues.
    let consoleBase: String
    /// Why the console asks for enrolment before anything else.
    let enrolNotice: String
    /// How the person turns two-factor sign-in off, and the command that does, if any.
    let offHint: String
    var offCommand: String?

    static let operators = ConsoleTwoFactorPage(
        consoleBase: "/admin", enrolNotice: "Your role needs two-factor sign-in: turn it on here to use the console.",
        offHint: "To turn it off, an operator runs", offCommand: "souk accounts totp reset --email …")
    static let developers = ConsoleTwoFactorPage(
        consoleBase: "/developer", enrolNotice: "The developer console needs two-factor sign-in: turn it on here to use it.",
        offHint: "To turn it off, ask the marketplace's operator.")

    /// The `console-two-factor` partial's context.
    struct Values: Sendable {
        let enabled: Bool
        let consoleBase: String
        let enrolNotice: String
        let offHint: String
        let offCommand: String?
        /// How many recovery codes are left, when two-factor sign-in is on.
        var unusedRecoveryCodes: String?
        /// The pending secret as base32 text and as an `otpauth://` URI, while enrolling.
        var secret: String?
        var uri: String?
        let error: String?
    }

    /// The `console-recovery-codes` partial's context.
    struct RecoveryCodes: Sendable {
        let codes: [String]
        let consoleBase: String
    }

    /// The enrolment page's values: the state when two-factor sign-in is on, else the pending
    /// secret as an `otpauth://` URI and base32 text.
    func values(account: UUID, email: String, enabled: Bool, totp: TOTPStore, issuer: () async throws -> String,
                error: String?) async throws -> Values {
        var values = Values(enabled: enabled, consoleBase: consoleBase, enrolNotice: enrolNotice, offHint: offHint, offCommand: offCommand,
                            error: error)
        if enabled {
            values.unusedRecoveryCodes = String(try await totp.unusedRecoveryCodes(account: account))
        } else if let secret = try await totp.pendingSecret(account: account) {
            values.secret = Base32.encode(secret)
            values.uri = TOTP.provisioningURI(secret: secret, issuer: try await issuer(), account: email)
        }
        return values
    }

    /// The recovery codes page's values, shown once when two-factor sign-in is turned on.
    func recoveryCodes(_ codes: [String]) -> RecoveryCodes {
        RecoveryCodes(codes: codes, consoleBase: consoleBase)
    }
}
