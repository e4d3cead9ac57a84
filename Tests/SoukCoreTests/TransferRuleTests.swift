import Foundation
import SoukCore
import Testing

@Suite struct TransferRuleTests {
    static let owner = UUID()
    static let claimant = UUID()

    @Test(arguments: TransferPolicy.allCases, [false, true])
    func theOwnerPresentingItAgainOwnsItAlready(policy: TransferPolicy, active: Bool) {
        #expect(TransferRule.decide(policy: policy, owner: Self.owner, claimant: Self.owner, ownerHasActiveSubscription: active) == .alreadyOwned)
    }

    @Test(arguments: [false, true])
    func transferMovesThePurchaseWhatever(active: Bool) {
        #expect(TransferRule.decide(policy: .transfer, owner: Self.owner, claimant: Self.claimant, ownerHasActiveSubscription: active)
            == .transfer(from: Self.owner))
    }

    @Test func transferIfInactiveKeepsItWithAnOwnerWhoseSubscriptionIsActive() {
        #expect(TransferRule.decide(policy: .transferIfInactive, owner: Self.owner, claimant: Self.claimant, ownerHasActiveSubscription: true)
            == .keep(owner: Self.owner))
        #expect(TransferRule.decide(policy: .transferIfInactive, owner: Self.owner, claimant: Self.claimant, ownerHasActiveSubscription: false)
            == .transfer(from: Self.owner))
    }

    @Test(arguments: [false, true])
    func keepNeverMovesIt(active: Bool) {
        #expect(TransferRule.decide(policy: .keep, owner: Self.owner, claimant: Self.claimant, ownerHasActiveSubscription: active)
            == .keep(owner: Self.owner))
    }
}
