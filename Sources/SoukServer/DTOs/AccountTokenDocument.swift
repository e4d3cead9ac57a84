/// `GET /commerce/<app>/account-token`: `{"accountToken": "<uuid>"}`, lowercase.
struct AccountTokenDocument: Codable, Equatable {
    var accountToken: String
}
