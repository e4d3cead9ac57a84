import Foundation
import SoukCore
import Testing

/// Who a staff member may act on from the console (docs/web.md, "Roles").
@Suite struct StaffScopeTests {
    let customer = StaffScope.Party(id: UUID(), role: .customer)
    let support = StaffScope.Party(id: UUID(), role: .support)
    let otherSupport = StaffScope.Party(id: UUID(), role: .support)
    let op = StaffScope.Party(id: UUID(), role: .operator)
    let otherOperator = StaffScope.Party(id: UUID(), role: .operator)

    @Test func rolesAreOrderedCustomerThenSupportThenOperator() {
        #expect(AccountRole.customer < .support)
        #expect(AccountRole.support < .operator)
        #expect(AccountRole.allCases.sorted() == [.customer, .support, .operator])
    }

    @Test(arguments: StaffScope.Action.allCases)
    func nobodyActsOnTheirOwnAccountOrOnAnEqualOrHigherRole(_ action: StaffScope.Action) {
        for staff in [support, op] {
            #expect(!StaffScope.verdict(action, by: staff, on: staff).isAllowed)
        }
        #expect(!StaffScope.verdict(action, by: support, on: otherSupport).isAllowed)
        #expect(!StaffScope.verdict(action, by: support, on: op).isAllowed)
        #expect(!StaffScope.verdict(action, by: op, on: otherOperator).isAllowed)
        #expect(!StaffScope.verdict(action, by: customer, on: customer).isAllowed)
        // An operator may take every action on the roles below.
        #expect(StaffScope.verdict(action, by: op, on: customer) == .allowed)
        #expect(StaffScope.verdict(action, by: op, on: support) == .allowed)
    }

    @Test func supportHelpsCustomersButDisablesRefundsAndGrantsMembershipsNever() {
        for action in [StaffScope.Action.resetPassword, .grant, .revoke, .signOut] {
            #expect(StaffScope.verdict(action, by: support, on: customer) == .allowed, "\(action)")
        }
        for action in [StaffScope.Action.disable, .enable, .refund, .grantMembership, .revokeMembership] {
            guard case .refused(let reason) = StaffScope.verdict(action, by: support, on: customer) else {
                Issue.record("support may \(action)")
                continue
            }
            #expect(reason.contains("Only an operator"))
        }
        guard case .refused(let reason) = StaffScope.verdict(.resetPassword, by: support, on: op) else {
            Issue.record("support may reset an operator")
            return
        }
        #expect(reason.contains("acts only on customer accounts"))
    }

    @Test func aMarketplaceGrantIsAMembershipGrant() {
        #expect(StaffScope.Action.grant(app: AppPricing.marketplaceApp) == .grantMembership)
        #expect(StaffScope.Action.grant(app: "com.example.reader") == .grant)
        #expect(StaffScope.Action.revoke(app: AppPricing.marketplaceApp) == .revokeMembership)
        #expect(StaffScope.Action.revoke(app: "com.example.reader") == .revoke)
    }
}
