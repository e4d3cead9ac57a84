import Foundation
import SoukCore
import Testing

@Suite struct CloudEventTests {
    /// Seed 003's sample, as a Zapp app sends it (misspelled datacontenttype included).
    static let seedSample = """
        {
        "specversion": "1.0",
        "type": "com.applicaster.payment.validate",
        "source": "reader://com.example.reader/versions/1.2.0",
        "subject": "Purchased product id com.example.reader.monthly product name: Monthly",
        "id": "9c4e3c1e-0a5c-4d8b-9f0e-4a2b1c3d5e6f",
        "time": "2026-11-25T04:10:03Z",
        "datacontenttype": "applicastion/json",
        "data": {
        "transaction": {
        "storeProductId": "com.example.reader.monthly",
        "transactionId": "2000000123456789",
        "userId": "abcd",
        "receipt": "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"
        },
        "itemId": "video_1",
        "productId": "reader.monthly",
        "username": "test@gmail.com",
        "store": "apple_store",
        "platform": "ios"
        }
        }
        """

    static func structured(_ text: String) -> Result<PaymentValidationEvent, CloudEventError> {
        CloudEventParser.structured(Array(text.utf8))
    }

    /// The seed sample with `data` (or an attribute) changed.
    static func event(data: String, attributes: String = #""specversion": "1.0", "id": "e1", "source": "s", "type": "t""#) -> String {
        "{\(attributes), \"data\": \(data)}"
    }

    static let minimalData = #"{"transaction": {"storeProductId": "sku", "transactionId": "1", "receipt": "r"}, "productId": "p", "store": "apple_store"}"#

    static func error(_ result: Result<PaymentValidationEvent, CloudEventError>) -> CloudEventError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    @Test func readsTheSeedSampleInStructuredMode() throws {
        let event = try Self.structured(Self.seedSample).get()
        #expect(event.id == "9c4e3c1e-0a5c-4d8b-9f0e-4a2b1c3d5e6f")
        #expect(event.source == "reader://com.example.reader/versions/1.2.0")
        #expect(event.type == "com.applicaster.payment.validate")
        #expect(event.specversion == "1.0")
        #expect(event.subject == "Purchased product id com.example.reader.monthly product name: Monthly")
        #expect(event.time == RFC3339.parse("2026-11-25T04:10:03Z"))
        #expect(event.data == PaymentValidationData(
            transaction: PaymentTransaction(storeProductId: "com.example.reader.monthly", transactionId: "2000000123456789",
                                            userId: "abcd", receipt: "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"),
            itemId: "video_1", productId: "reader.monthly", username: "test@gmail.com", store: .appleStore, platform: "ios"))
    }

    @Test func readsTheSameEventInBinaryMode() throws {
        let structured = try Self.structured(Self.seedSample).get()
        let document = try JSONValue.parse(Array(Self.seedSample.utf8))
        let dataText = #"{"transaction": {"storeProductId": "com.example.reader.monthly", "transactionId": "2000000123456789", "userId": "abcd", "receipt": "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"}, "itemId": "video_1", "productId": "reader.monthly", "username": "test@gmail.com", "store": "apple_store", "platform": "ios"}"#
        #expect(document["data"] == (try JSONValue.parse(Array(dataText.utf8))))
        let headers = [
            "ce-specversion": "1.0", "ce-id": structured.id, "ce-source": structured.source, "ce-type": structured.type,
            // The HTTP binding percent-encodes header values outside printable ASCII.
            "ce-subject": "Purchased%20product%20id%20com.example.reader.monthly%20product%20name:%20Monthly",
            "ce-time": "2026-11-25T04:10:03Z", "content-type": "application/json; charset=utf-8",
        ]
        let binary = try CloudEventParser.binary(headers: headers, body: Array(dataText.utf8)).get()
        #expect(binary == structured)
        #expect(try CloudEventParser.parse(headers: headers, body: Array(dataText.utf8)).get() == structured)
    }

    @Test func choosesStructuredModeWithoutCeHeaders() throws {
        let event = try CloudEventParser.parse(headers: ["content-type": "application/cloudevents+json"], body: Array(Self.seedSample.utf8)).get()
        #expect(event.id == "9c4e3c1e-0a5c-4d8b-9f0e-4a2b1c3d5e6f")
    }

    @Test func binaryModeWithoutContentTypeReadsTheBodyAsJSON() throws {
        let headers = ["ce-specversion": "1.0", "ce-id": "e1", "ce-source": "s", "ce-type": "t"]
        let event = try CloudEventParser.binary(headers: headers, body: Array(Self.minimalData.utf8)).get()
        #expect(event.subject == nil && event.time == nil)
        #expect(event.data.productId == "p")
    }

    @Test(arguments: [
        ("ce-specversion", "ce-specversion", "is required"),
        ("ce-id", "ce-id", "is required"),
        ("ce-source", "ce-source", "is required"),
        ("ce-type", "ce-type", "is required"),
    ])
    func binaryModeNamesTheMissingHeader(missing: String, path: String, message: String) {
        var headers = ["ce-specversion": "1.0", "ce-id": "e1", "ce-source": "s", "ce-type": "t"]
        headers[missing] = nil
        #expect(Self.error(CloudEventParser.binary(headers: headers, body: Array(Self.minimalData.utf8))) == CloudEventError(path: path, message: message))
    }

    @Test func binaryModeRefusesANonJSONBodyAndAnEmptyOne() {
        let headers = ["ce-specversion": "1.0", "ce-id": "e1", "ce-source": "s", "ce-type": "t"]
        #expect(Self.error(CloudEventParser.binary(headers: headers, body: []))?.path == "data")
        #expect(Self.error(CloudEventParser.binary(headers: headers, body: Array("receipt=1".utf8)))?.path == "data")
        var xml = headers
        xml["content-type"] = "application/xml"
        #expect(Self.error(CloudEventParser.binary(headers: xml, body: Array(Self.minimalData.utf8)))?.path == "content-type")
        var badPercent = headers
        badPercent["ce-id"] = "e%zz"
        #expect(Self.error(CloudEventParser.binary(headers: badPercent, body: Array(Self.minimalData.utf8)))?.path == "ce-id")
        var version = headers
        version["ce-specversion"] = "0.3"
        #expect(Self.error(CloudEventParser.binary(headers: version, body: Array(Self.minimalData.utf8)))
            == CloudEventError(path: "ce-specversion", message: "\"0.3\" is not supported (only 1.0)"))
    }

    @Test(arguments: [
        (#""id": "e1", "source": "s", "type": "t""#, "specversion", "is required"),
        (#""specversion": "0.3", "id": "e1", "source": "s", "type": "t""#, "specversion", "\"0.3\" is not supported (only 1.0)"),
        (#""specversion": 1.0, "id": "e1", "source": "s", "type": "t""#, "specversion", "must be a string"),
        (#""specversion": "1.0", "source": "s", "type": "t""#, "id", "is required"),
        (#""specversion": "1.0", "id": "", "source": "s", "type": "t""#, "id", "must not be empty"),
        (#""specversion": "1.0", "id": 7, "source": "s", "type": "t""#, "id", "must be a string"),
        (#""specversion": "1.0", "id": "e1", "type": "t""#, "source", "is required"),
        (#""specversion": "1.0", "id": "e1", "source": "s""#, "type", "is required"),
        (#""specversion": "1.0", "id": "e1", "source": "s", "type": "t", "time": "yesterday""#, "time", "\"yesterday\" is not an RFC 3339 timestamp"),
        (#""specversion": "1.0", "id": "e1", "source": "s", "type": "t", "subject": 3"#, "subject", "must be a string"),
        (#""specversion": "1.0", "id": "e1", "source": "s", "type": "t", "datacontenttype": "text/plain""#, "datacontenttype", "\"text/plain\" is not a JSON media type (data must be JSON)"),
    ])
    func structuredModeNamesTheBadAttribute(attributes: String, path: String, message: String) {
        let result = Self.structured(Self.event(data: Self.minimalData, attributes: attributes))
        #expect(Self.error(result) == CloudEventError(path: path, message: message))
    }

    @Test(arguments: [
        (#"{"productId": "p", "store": "apple_store"}"#, "data.transaction", "is required"),
        (#"{"transaction": "x", "productId": "p", "store": "apple_store"}"#, "data.transaction", "must be an object"),
        (#"{"transaction": {"transactionId": "1", "receipt": "r"}, "productId": "p", "store": "apple_store"}"#, "data.transaction.storeProductId", "is required"),
        (#"{"transaction": {"storeProductId": "", "transactionId": "1", "receipt": "r"}, "productId": "p", "store": "apple_store"}"#, "data.transaction.storeProductId", "must not be empty"),
        (#"{"transaction": {"storeProductId": "sku", "receipt": "r"}, "productId": "p", "store": "apple_store"}"#, "data.transaction.transactionId", "is required"),
        (#"{"transaction": {"storeProductId": "sku", "transactionId": true, "receipt": "r"}, "productId": "p", "store": "apple_store"}"#, "data.transaction.transactionId", "must be a string"),
        (#"{"transaction": {"storeProductId": "sku", "transactionId": "1"}, "productId": "p", "store": "google_play"}"#, "data.transaction.receipt",
         "is required for google_play (Play Billing's purchase JSON or the purchase token)"),
        (#"{"transaction": {"storeProductId": "sku", "transactionId": "1", "receipt": "r"}, "productId": "p", "store": "amazon"}"#,
         "data.transaction.userId", "is required for amazon (the Amazon user id of the receipt)"),
        (#"{"transaction": {"storeProductId": "sku", "transactionId": "1", "receipt": null}, "productId": "p", "store": "google_play"}"#, "data.transaction.receipt",
         "is required for google_play (Play Billing's purchase JSON or the purchase token)"),
        (#"{"transaction": {"storeProductId": "sku", "transactionId": "1", "receipt": "r"}, "store": "apple_store"}"#, "data.productId", "is required"),
        (#"{"transaction": {"storeProductId": "sku", "transactionId": "1", "receipt": "r"}, "productId": ["p"], "store": "apple_store"}"#, "data.productId", "must be a string"),
        (#"{"transaction": {"storeProductId": "sku", "transactionId": "1", "receipt": "r"}, "productId": "p", "store": "apple_store", "username": {}}"#, "data.username", "must be a string"),
        (#"{"transaction": {"storeProductId": "sku", "transactionId": "1", "receipt": "r"}, "productId": "p", "store": "itunes"}"#, "data.store", "\"itunes\" is not one of apple_store, google_play, amazon, roku"),
        (#"{"transaction": {"storeProductId": "sku", "transactionId": "1", "receipt": "r"}, "productId": "p"}"#, "data.store", "is required (or data.platform: ios, tvos, android, amazon_fire_tv, roku)"),
        (#"{"transaction": {"storeProductId": "sku", "transactionId": "1", "receipt": "r"}, "productId": "p", "platform": "web"}"#, "data.store", "is required (platform \"web\" names no store)"),
        (#"{"transaction": {"storeProductId": "sku", "transactionId": "1", "receipt": "r"}, "productId": "p", "store": "apple_store", "platform": "android"}"#, "data.platform", "\"android\" buys through google_play, not apple_store"),
        (#"[1, 2]"#, "data", "must be a JSON object"),
    ])
    func structuredModeNamesTheBadDataMember(data: String, path: String, message: String) {
        #expect(Self.error(Self.structured(Self.event(data: data))) == CloudEventError(path: path, message: message))
    }

    @Test func aMissingDataIsRefused() {
        let result = Self.structured(#"{"specversion": "1.0", "id": "e1", "source": "s", "type": "t"}"#)
        #expect(Self.error(result) == CloudEventError(path: "data", message: "is required"))
        let both = Self.structured(#"{"specversion": "1.0", "id": "e1", "source": "s", "type": "t", "data": {}, "data_base64": "e30="}"#)
        #expect(Self.error(both)?.path == "data_base64")
    }

    @Test func aBodyThatIsNotAJSONObjectIsRefused() {
        #expect(Self.error(Self.structured("not json"))?.path == "")
        #expect(Self.error(Self.structured("[]")) == CloudEventError(path: "", message: "the body must be a JSON object: a CloudEvents 1.0 event"))
        #expect(Self.error(CloudEventParser.structured([])) != nil)
    }

    @Test func storeComesFromThePlatformWhenLeftOut() throws {
        let cases: [(String, CommerceStore)] = [("ios", .appleStore), ("tvos", .appleStore), ("android", .googlePlay),
                                                 ("amazon_fire_tv", .amazon), ("roku", .roku)]
        for (platform, store) in cases {
            let data = #"{"transaction": {"storeProductId": "sku", "transactionId": "1", "userId": "u", "receipt": "r"}, "productId": "p", "platform": "\#(platform)"}"#
            let event = try Self.structured(Self.event(data: data)).get()
            #expect(event.data.store == store)
            #expect(event.data.platform == platform)
        }
    }

    @Test func aPlatformTheSeedDoesNotListIsKeptWhenTheStoreIsNamed() throws {
        let data = #"{"transaction": {"storeProductId": "sku", "transactionId": "1", "receipt": "r"}, "productId": "p", "store": "roku", "platform": "roku_tv"}"#
        let event = try Self.structured(Self.event(data: data)).get()
        #expect(event.data.store == .roku)
        #expect(event.data.platform == "roku_tv")
    }

    @Test func aReceiptObjectIsKeptAsItsJSONText() throws {
        let data = #"{"transaction": {"storeProductId": "sku", "transactionId": 2000000123456789012, "receipt": {"token": "a\"b", "n": 1.50, "list": [true, null]}}, "productId": "p", "store": "google_play"}"#
        let event = try Self.structured(Self.event(data: data)).get()
        #expect(event.data.transaction.receipt == #"{"token":"a\"b","n":1.50,"list":[true,null]}"#)
        // Numeric ids keep their exact digits.
        #expect(event.data.transaction.transactionId == "2000000123456789012")
    }

    @Test func dataEncodedAsAJSONStringOrBase64IsRead() throws {
        let asString = #"{"specversion": "1.0", "id": "e1", "source": "s", "type": "t", "data": "{\"transaction\": {\"storeProductId\": \"sku\", \"transactionId\": \"1\", \"receipt\": \"r\"}, \"productId\": \"p\", \"store\": \"apple_store\"}"}"#
        #expect(try Self.structured(asString).get().data.productId == "p")
        let encoded = Data(Self.minimalData.utf8).base64EncodedString()
        let asBase64 = #"{"specversion": "1.0", "id": "e1", "source": "s", "type": "t", "data_base64": "\#(encoded)"}"#
        #expect(try Self.structured(asBase64).get().data.productId == "p")
        let notJSON = #"{"specversion": "1.0", "id": "e1", "source": "s", "type": "t", "data_base64": "\#(Data("x=1".utf8).base64EncodedString())"}"#
        #expect(Self.error(Self.structured(notJSON))?.path == "data_base64")
    }

    @Test func nullOptionalAttributesCountAsAbsent() throws {
        let event = try Self.structured(Self.event(data: Self.minimalData,
                                                   attributes: #""specversion": "1.0", "id": "e1", "source": "s", "type": "t", "subject": null, "time": null"#)).get()
        #expect(event.subject == nil && event.time == nil)
    }

    @Test(arguments: ["application/json", "application/cloudevents+json", "applicastion/json", "text/json", "application/vnd.api+json",
                      "Application/JSON; charset=utf-8"])
    func acceptsAnyJSONMediaType(_ type: String) {
        #expect(CloudEventParser.isJSONMediaType(type))
    }

    @Test(arguments: ["text/plain", "application/xml", "json", "/json", "application/jsonp", ""])
    func refusesOtherMediaTypes(_ type: String) {
        #expect(!CloudEventParser.isJSONMediaType(type))
    }

    @Test func buildsTheClaimForTheVerifier() throws {
        let event = try Self.structured(Self.seedSample).get()
        #expect(event.claim(app: "com.example.reader") == PurchaseClaim(
            store: .appleStore, app: "com.example.reader", storeProductId: "com.example.reader.monthly", transactionId: "2000000123456789",
            userId: "abcd", receipt: "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"))
    }

    @Test func errorsDescribeThemselvesByPath() {
        #expect(CloudEventError(path: "data.store", message: "is required").description == "data.store: is required")
        #expect(CloudEventError(path: "", message: "the body is empty").description == "the body is empty")
    }
}
