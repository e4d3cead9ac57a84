import Foundation
import SoukApp
@testable import SoukCLI
import SoukCore
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `souk accounts reset-password` sets the password itself (the console makes links instead), and
/// ends any reset link made in the console, so that a link cannot replace it later.
@Suite struct AccountsResetPasswordCommandTests {
    @Test(arguments: TestBackend.available)
    func theCommandSetsThePasswordAndEndsResetLinks(_ backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (location, drop) = try await backend.makeLocation(dataDir: folder.path)
        var settings = ["--data-dir", folder.path + "/data"]
        var flags = ["dataDir": folder.path + "/data"]
        if case .postgres(let url) = location {
            settings += ["--database-url", url]
            flags["databaseUrl"] = url
        }
        do {
            try await SoukCommand.run(["migrate"] + settings)
            try await SoukCommand.run(["accounts", "create", "--email", "ada@example.com", "--password", "correct horse"] + settings)
            let runtime = try await SoukRuntime.open(try await SoukConfig.load(flags: flags, environment: [:]), logger: testLogger())
            do {
                let account = try await runtime.catalog.requireAccount(email: "ada@example.com")
                let links = PasswordResetLinks(database: runtime.database)
                let link = try await links.make(account: try account.requireID())
                #expect(try await links.account(token: link.token) == account.id)

                try await SoukCommand.run(["accounts", "reset-password", "--email", "ada@example.com", "--password", "another horse"] + settings)
                #expect(try await links.account(token: link.token) == nil)
                #expect(try await links.use(token: link.token, passwordHash: try PasswordHashing.hash("a third horse")) == nil)
                let hash = try await runtime.catalog.requireAccount(email: "ada@example.com").passwordHash
                #expect(PasswordHashing.verify("another horse", hash: hash))
            } catch {
                await runtime.close()
                throw error
            }
            await runtime.close()
            await drop()
        } catch {
            await drop()
            throw error
        }
    }
}
