import Foundation
import SoukApp
import SoukCore
import SoukStore

/// What both consoles' store credential pages share: the page's values, reading the upload form
/// and the kind in a path. The secret is never in a value: only the hint.
enum StoreCredentialPage {
    /// The credential pages' context: the secret is never in it, only its hint.
    struct Values: Sendable {
        struct Credential: Sendable {
            let summary: String
            let hint: String
            let setBy: String
            let setAt: String
            let removeAction: String
        }

        struct Kind: Sendable {
            let value: String
            let label: String
        }

        let app: String
        let catalogHref: String
        let action: String
        let canChange: Bool
        let credentials: [Credential]
        let kinds: [Kind]
        let notice: String?
        let error: String?
    }

    static func values(app: String, base: String, credentials: [StoredCredential], canChange: Bool,
                       notice: String?, error: String?) -> Values {
        Values(
            app: app, catalogHref: base, action: base + "/credentials", canChange: canChange,
            credentials: credentials.map { credential in
                Values.Credential(summary: credential.kind.summary, hint: credential.hint, setBy: credential.setBy,
                                  setAt: WebPage.format(credential.setAt),
                                  removeAction: base + "/credentials/" + StoreCredentialKind.storeWord(credential.kind.store) + "/"
                                      + credential.kind.rawValue + "/remove")
            },
            kinds: StoreCredentialKind.allCases.map { Values.Kind(value: $0.name, label: $0.summary) },
            notice: notice, error: error)
    }

    static func notice(_ done: String?) -> String? {
        switch done {
        case "set": "Sealed and saved. It is used from the next store call; it will not be shown again."
        case "removed": "Removed."
        default: nil
        }
    }

    enum Outcome { case set, refused(String) }

    /// Seals the form's file as the credential its `kind` names; a refusal is the page's message.
    static func set(_ form: MultipartForm, app: String, actor: SoukActor, operations: StoreCredentialOperations) async throws -> Outcome {
        guard let kind = form.fields["kind"].flatMap(StoreCredentialKind.init(name:)) else { return .refused("Choose which credential this is.") }
        guard let file = form.files["file"]?.first, let data = FileManager.default.contents(atPath: file.path) else {
            return .refused("Choose the file to upload.")
        }
        do {
            try await operations.set(actor: actor, app: app, kind: kind, upload: Array(data), filename: file.filename)
            return .set
        } catch DeveloperOperationError.invalid(_, let message) {
            return .refused("\(kind.summary) refused: \(message)")
        } catch is CredentialSealingError {
            throw Problem(.serviceUnavailable, "The credential cannot be sealed now: the server's sealing key is not available.", retryAfter: 30)
        }
    }

    /// The kind a path names (`…/credentials/roku/partner-api-key/remove`), else 404.
    static func kind(_ store: String?, _ kind: String?) throws -> StoreCredentialKind {
        guard let store, let kind, let found = StoreCredentialKind(store: store, kind: kind) else {
            throw DeveloperOperationError.notFound("No such store credential.")
        }
        return found
    }
}
