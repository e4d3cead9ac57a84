import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// `StripeWebhook.verify`: the `Stripe-Signature` scheme, its tolerance, and what is refused.
@Suite struct StripeWebhookTests {
    static let secret = "whsec_test_secret"
    static let at = Date(timeIntervalSince1970: 1_800_000_000)
    static let body = Array(#"{"id":"evt_1","object":"event","type":"invoice.paid","created":1800000000,"livemode":false,"data":{"object":{"id":"in_1","object":"invoice"}}}"#.utf8)
    // Computed independently: Python hmac.new(b"whsec_test_secret", b"1800000000." + body, hashlib.sha256).hexdigest()
    static let knownSignature = "5a406180d627ec28d05772eb1eec5f13d8016f2e62135f71b9ae034733f803e9"

    func verify(_ body: [UInt8] = body, header: String?, secret: String = secret, now: Date = at,
                tolerance: TimeInterval = 300) throws(StripeWebhookError) -> StripeEvent {
        try StripeWebhook.verify(payload: body, header: header, secret: secret, now: now, tolerance: tolerance)
    }

    func refusal(_ body: [UInt8] = body, header: String?, secret: String = secret, now: Date = at) -> StripeWebhookError.Kind? {
        do {
            _ = try verify(body, header: header, secret: secret, now: now)
            return nil
        } catch {
            #expect(!error.description.contains(secret))
            return error.kind
        }
    }

    @Test func aValidSignatureGivesTheEvent() throws {
        let header = "t=1800000000,v1=\(Self.knownSignature)"
        #expect(StripeWebhook.signatureHeader(payload: Self.body, secret: Self.secret, timestamp: Self.at.addingTimeInterval(0.9)) == header)
        let event = try verify(header: header, now: Self.at.addingTimeInterval(299))
        #expect(event.id == "evt_1" && event.type == "invoice.paid" && event.kind == .invoicePaid)
        #expect(event.created == Self.at && !event.livemode)
        #expect(String(decoding: event.object, as: UTF8.self) == #"{"id":"in_1","object":"invoice"}"#)
    }

    @Test func theFakesSignatureIsAccepted() throws {
        let fake = FakeStripe(webhookSecret: Self.secret, now: { Self.at })
        let payload = fake.event(type: "customer.subscription.deleted", object: .object([JSONMember("id", .string("sub_1")),
                                                                                          JSONMember("object", .string("subscription")),
                                                                                          JSONMember("status", .string("canceled"))]))
        let event = try verify(payload, header: fake.signatureHeader(payload))
        #expect(event.kind == .customerSubscriptionDeleted && event.id.hasPrefix("evt_"))
        #expect(try event.subscription().status == "canceled")
    }

    @Test func aWrongSecretATamperedBodyOrAMovedTimestampMatchNoSignature() {
        let header = "t=1800000000,v1=\(Self.knownSignature)"
        #expect(refusal(header: header, secret: "whsec_another") == .noMatchingSignature)
        var tampered = Self.body
        tampered[tampered.count - 5] = UInt8(ascii: "X")
        #expect(refusal(tampered, header: header) == .noMatchingSignature)
        #expect(refusal(header: "t=1800000001,v1=\(Self.knownSignature)") == .noMatchingSignature)
        #expect(refusal(header: "t=1800000000,v0=\(Self.knownSignature)") == .malformed)
    }

    @Test func aSignatureOlderOrNewerThanTheToleranceIsRefused() throws {
        let header = "t=1800000000,v1=\(Self.knownSignature)"
        _ = try verify(header: header, now: Self.at.addingTimeInterval(300))
        _ = try verify(header: header, now: Self.at.addingTimeInterval(-300))
        #expect(refusal(header: header, now: Self.at.addingTimeInterval(301)) == .outsideTolerance)
        #expect(refusal(header: header, now: Self.at.addingTimeInterval(-301)) == .outsideTolerance)
        #expect(throws: StripeWebhookError(.outsideTolerance)) {
            try verify(header: header, now: Self.at.addingTimeInterval(61), tolerance: 60)
        }
    }

    @Test func anyOfSeveralV1SignaturesMayMatch() throws {
        let wrong = String(repeating: "0", count: 64)
        let header = "t=1800000000, v1=\(wrong),v1=\(Self.knownSignature.uppercased()),v0=\(wrong),scheme2=x"
        #expect(try verify(header: header).id == "evt_1")
        #expect(refusal(header: "t=1800000000,v1=\(wrong),v1=\(wrong.dropLast(2))") == .noMatchingSignature)
    }

    @Test func aMissingOrMalformedHeaderIsRefused() {
        #expect(refusal(header: nil) == .missingHeader)
        #expect(refusal(header: "  ") == .missingHeader)
        #expect(refusal(header: "v1=\(Self.knownSignature)") == .malformed)
        #expect(refusal(header: "t=1800000000") == .malformed)
        #expect(refusal(header: "t=18e8,v1=\(Self.knownSignature)") == .malformed)
        #expect(refusal(header: "t=-5,v1=\(Self.knownSignature)") == .malformed)
        #expect(refusal(header: "garbage") == .malformed)
    }

    @Test func aSignedBodyThatIsNotAnEventIsRefused() {
        let notJSON = Array("event=paid".utf8)
        #expect(refusal(notJSON, header: StripeWebhook.signatureHeader(payload: notJSON, secret: Self.secret, timestamp: Self.at)) == .notJSON)
        for text in [#"{"id":"evt_1","type":"x","created":1}"#, #"{"object":"charge","id":"ch_1"}"#, #"[1,2]"#,
                     #"{"id":"evt_1","type":"x","data":{"object":{}}}"#, #"{"id":"evt_1","type":"x","created":1,"livemode":null,"data":{"object":{}}}"#,
                     #"{"id":"evt_1","type":"x","created":1,"livemode":"no","data":{"object":{}}}"#] {
            let body = Array(text.utf8)
            #expect(refusal(body, header: StripeWebhook.signatureHeader(payload: body, secret: Self.secret, timestamp: Self.at)) == .notAnEvent)
        }
    }

    @Test func theFakeDeliversSignedEventsOverHTTP() async throws {
        let fake = FakeStripe(webhookSecret: Self.secret)
        let received = StoreFaults()
        try await FakeStoreServer.run(faults: received, routes: { router in
            router.post("/webhooks/stripe") { request, _ in
                var request = request
                let body = Array(buffer: try await request.collectBody(upTo: 1 << 20))
                do throws(StripeWebhookError) {
                    let event = try StripeWebhook.verify(payload: body, header: request.headers[.init("Stripe-Signature")!],
                                                         secret: Self.secret, now: Date())
                    return FakeStoreServer.json(.ok, #"{"received":"\#(event.id)"}"#)
                } catch {
                    return FakeStoreServer.json(.badRequest, #"{"error":"\#(error.kind.rawValue)"}"#)
                }
            }
        }) { base in
            let payload = fake.event(type: "invoice.paid", object: .object([JSONMember("id", .string("in_1")), JSONMember("object", .string("invoice"))]))
            let id = try StripeEvent.parse(payload).id
            let accepted = try await fake.deliver(payload, to: base + "/webhooks/stripe")
            #expect(accepted.status == 200 && String(decoding: accepted.body, as: UTF8.self) == #"{"received":"\#(id)"}"#)
            let wrongSecret = try await fake.deliver(payload, to: base + "/webhooks/stripe", secret: "whsec_other")
            #expect(wrongSecret.status == 400 && String(decoding: wrongSecret.body, as: UTF8.self).contains("no-matching-signature"))
            let stale = try await fake.deliver(payload, to: base + "/webhooks/stripe", timestamp: Date().addingTimeInterval(-600))
            #expect(stale.status == 400 && String(decoding: stale.body, as: UTF8.self).contains("outside-tolerance"))
            let request = try #require(received.requests.first)
            #expect(request.headers["content-type"] == "application/json; charset=utf-8" && request.body == payload)
        }
    }

    @Test func errorsAreSentences() {
        #expect(StripeWebhookError(.missingHeader).description == "The request has no Stripe-Signature header.")
        #expect(StripeWebhookError(.notAnEvent, detail: "data.object: is missing").description
                == "The webhook body is not a Stripe event (data.object: is missing).")
    }
}
