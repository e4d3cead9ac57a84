import Foundation
import SoukCore
import SoukStore

extension PeopleOperations {
    /// Disables (`disabled`) or enables the account; a disabled account is signed out everywhere at
    /// once. Writes `account.disable` / `account.enable` when it changed; returns whether it did.
    @discardableResult
    package func setDisabled(_ disabled: Bool, actor: SoukActor, person: AccountRecord) async throws -> Bool {
        try await scope.check(disabled ? .disable : .enable, actor: actor, on: person)
        let changed = try await people.setDisabled(disabled, account: person.id)
        // Signed out even when it was disabled already: nothing of a disabled account stays live.
        if disabled { try await signOutEverywhere(person.id) }
        if changed {
            try await audit.record(actor: actor, action: disabled ? .accountDisable : .accountEnable, target: person.auditTarget,
                                   before: ["email": person.email, "disabled": String(!disabled)],
                                   after: ["email": person.email, "disabled": String(disabled)])
        }
        return changed
    }

    /// Ends every browser session and device token of the person; writes `account.sign-out`.
    package func signOut(actor: SoukActor, person: AccountRecord) async throws {
        try await scope.check(.signOut, actor: actor, on: person)
        try await signOutEverywhere(person.id)
        try await audit.record(actor: actor, action: .accountSignOut, target: person.auditTarget,
                               before: ["email": person.email], after: ["email": person.email, "sessions": "signed out"])
    }

    /// Makes a password reset link (`PasswordResetLinks`) for the person to choose their own
    /// password; their sessions and tokens end and the old password stops working at once. Writes
    /// `account.reset-password`. The link's token is in the answer only (shown once).
    package func makeResetLink(actor: SoukActor, person: AccountRecord) async throws -> PasswordResetLinks.Made {
        try await scope.check(.resetPassword, actor: actor, on: person)
        let link = try await PasswordResetLinks(database: database, now: now).make(account: person.id)
        try await signOutEverywhere(person.id)
        try await audit.record(actor: actor, action: .accountResetPassword, target: person.auditTarget,
                               before: ["email": person.email],
                               after: ["email": person.email, "password": "reset link until \(Self.auditDate(link.expiresAt))",
                                       "sessions": "signed out"])
        return link
    }

    /// Sets the person's role (the machine's operator only); writes `account.set-role`. Returns the
    /// role before, or nil when it already had `role`.
    package func setRole(_ role: AccountRole, actor: SoukActor, person: AccountRecord) async throws -> AccountRole? {
        try scope.checkMachineOperator(actor)
        guard let before = try await people.setRole(role, account: person.id) else { return nil }
        try await audit.record(actor: actor, action: .accountSetRole, target: person.auditTarget,
                               before: ["email": person.email, "role": before.rawValue], after: ["email": person.email, "role": role.rawValue])
        return before
    }

    /// Turns two-factor sign-in off and forgets its secret and recovery codes (the machine's operator
    /// only); writes `account.totp-reset`. Returns whether it was on or being enrolled.
    package func resetTOTP(actor: SoukActor, person: AccountRecord) async throws -> Bool {
        try scope.checkMachineOperator(actor)
        guard try await TOTPStore(database: database, keysDir: keysDir, now: now).reset(account: person.id) else { return false }
        try await audit.record(actor: actor, action: .accountTOTPReset, target: person.auditTarget,
                               before: ["email": person.email, "totp": person.totpEnabled ? "on" : "enrolling"],
                               after: ["email": person.email, "totp": "off"])
        return true
    }

    /// A date as the console shows it and the audit log has always kept it ("2027-01-01T00:00:00 UTC").
    package static func auditDate(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false).timeSeparator(.colon)) + " UTC"
    }
}

extension PeopleOperations {
    /// Creates an account (the machine's operator only); writes `account.create`.
    package func create(actor: SoukActor, email: String, passwordHash: String, role: AccountRole, sandbox: Bool) async throws -> AccountRecord {
        try scope.checkMachineOperator(actor)
        let account = try await people.create(email: email, passwordHash: passwordHash, role: role, sandbox: sandbox)
        try await audit.record(actor: actor, action: .accountCreate, target: account.auditTarget,
                               after: ["email": account.email, "role": role.rawValue, "sandbox": String(sandbox)])
        return account
    }

    /// Sets a new password (the machine's operator only: the console makes a reset link instead);
    /// the account is signed out everywhere and its open reset links end, so none replaces this
    /// password later. Writes `account.reset-password`.
    package func setPassword(hash: String, actor: SoukActor, person: AccountRecord) async throws {
        try scope.checkMachineOperator(actor)
        try await people.setPasswordHash(hash, account: person.id)
        try await signOutEverywhere(person.id)
        try await PasswordResetLinks(database: database, now: now).cancel(account: person.id)
        try await audit.record(actor: actor, action: .accountResetPassword, target: person.auditTarget,
                               before: ["email": person.email],
                               after: ["email": person.email, "password": "set by the server's operator", "sessions": "signed out"])
    }
}
