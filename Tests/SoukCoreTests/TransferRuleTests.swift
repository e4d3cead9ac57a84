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

    @Test(arguments: TransferPolicy.allCases, [false, true])
    func anIdAloneNeverMovesIt(policy: TransferPolicy, active: Bool) {
        #expect(TransferRule.decide(policy: policy, owner: Self.owner, claimant: Self.claimant, ownerHasActiveSubscription: active,
                                    proofOfPossession: false) == .keep(owner: Self.owner))
    }

    @Test(arguments: TransferPolicy.allCases, [false, true])
    func theAccountTokenDecidesWhateverThePolicyAndProof(policy: TransferPolicy, proof: Bool) {
        #expect(TransferRule.decide(policy: policy, owner: Self.owner, claimant: Self.claimant, ownerHasActiveSubscription: true,
                                    proofOfPossession: proof, accountToken: .claimant) == .transfer(from: Self.owner))
        #expect(TransferRule.decide(policy: policy, owner: Self.owner, claimant: Self.claimant, ownerHasActiveSubscription: false,
                                    proofOfPossession: proof, accountToken: .otherAccount(Self.owner)) == .keep(owner: Self.owner))
    }

    @Test func onlySignedClaimsProvePossession() {
        func claim(_ store: CommerceStore, receipt: String, userId: String? = nil) -> PurchaseClaim {
            PurchaseClaim(store: store, app: "a", storeProductId: "p", transactionId: "1000000000000001", userId: userId, receipt: receipt)
        }
        #expect(claim(.appleStore, receipt: "eyJh.eyJi.c2ln").hasProofOfPossession)
        #expect(!claim(.appleStore, receipt: "").hasProofOfPossession)
        #expect(!claim(.appleStore, receipt: "  \n").hasProofOfPossession)
        // A wrapper holding no signed transaction is a look-up by id, for the proof as for the verifier.
        #expect(!claim(.appleStore, receipt: "{\"signedTransaction\": \"\"}").hasProofOfPossession)
        #expect(!claim(.appleStore, receipt: "\"  \"").hasProofOfPossession)
        #expect(claim(.appleStore, receipt: "{\"jwsRepresentation\": \"eyJh.eyJi.c2ln\"}").hasProofOfPossession)
        #expect(claim(.appleStore, receipt: "{\"jwsRepresentation\": \"eyJh.eyJi.c2ln\"}").appleSignedTransaction == "eyJh.eyJi.c2ln")
        #expect(claim(.googlePlay, receipt: "purchase-token").hasProofOfPossession)
        #expect(claim(.amazon, receipt: "", userId: "amzn1.user").hasProofOfPossession)
        #expect(!claim(.amazon, receipt: "", userId: nil).hasProofOfPossession)
        #expect(!claim(.roku, receipt: "anything at all").hasProofOfPossession)
    }

    @Test func compactJWSHasThreeBase64urlParts() {
        #expect(CompactJWS.isWellFormed("eyJhbGciOiJFUzI1NiJ9.eyJ0IjoxfQ.c2lnbmF0dXJl_-"))
        for bad in ["", "a.b", "a.b.c.d", "a..c", ".b.c", "a.b.", "a b.c.d", "a.b.c=", "{\"signedTransaction\": \"a.b.c\"}", "é.b.c"] {
            #expect(!CompactJWS.isWellFormed(bad), "\(bad)")
        }
    }
}
