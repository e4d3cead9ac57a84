import Foundation
import SoukCore
import Testing

/// Developer ids, API key scopes and how actors are named in the audit log.
@Suite struct DeveloperIdentityTests {
    @Test func idsAreMadeFromNamesAndChecked() {
        #expect(DeveloperID.slug(of: "Acme Games, Inc.") == "acme-games-inc")
        #expect(DeveloperID.slug(of: "  --Zoë 2 ") == "zo-2")
        #expect(DeveloperID.slug(of: "!!!") == nil)
        #expect(DeveloperID.isValid("acme-2") && !DeveloperID.isValid("-acme") && !DeveloperID.isValid("Acme")
                && !DeveloperID.isValid("") && !DeveloperID.isValid(String(repeating: "a", count: 65)))
    }

    @Test func scopeListsParseOnlyKnownScopes() {
        #expect(DeveloperScope.parseList("catalog:write, packages:write") == [.catalogWrite, .packagesWrite])
        #expect(DeveloperScope.parseList("catalog:write,admin") == nil)
        #expect(DeveloperScope.parseList(" , ") == nil)
        #expect(DeveloperScope.format([.packagesWrite, .catalogWrite]) == "catalog:write,packages:write")
    }

    @Test func actorsAreNamedAndScoped() {
        let key = UUID(uuidString: "6A0F1C1E-0000-4000-8000-000000000001")!
        let member = SoukActor.developerMember(accountID: UUID(), email: "dana@example.com", developerID: "acme", role: .member)
        let apiKey = SoukActor.developerKey(keyID: key, developerID: "acme", scopes: [.catalogWrite])
        #expect(member.auditName == "dana@example.com" && member.developerID == "acme" && member.developerMay(.grantsWrite))
        #expect(apiKey.auditName == "apikey:6a0f1c1e-0000-4000-8000-000000000001")
        #expect(apiKey.developerMay(.catalogWrite) && !apiKey.developerMay(.packagesWrite) && !apiKey.isMarketplaceOperator)
        #expect(SoukActor.staff(accountID: UUID(), email: "o@example.com", role: .operator).isMarketplaceOperator)
        #expect(!SoukActor.staff(accountID: UUID(), email: "s@example.com", role: .support).isMarketplaceOperator)
        #expect(SoukActor.cli(user: "ops").auditName == "cli:ops" && SoukActor.cli(user: "ops").developerID == nil)
    }
}
