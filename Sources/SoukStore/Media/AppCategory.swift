/// The storefront's categories: a fixed list like the App Store's, stored as the slug
/// (`apps.category`, `/categories/<slug>`) and shown by its English display name.
public enum AppCategory: String, CaseIterable, Codable, Sendable {
    case books
    case business
    case developerTools = "developer-tools"
    case education
    case entertainment
    case finance
    case foodDrink = "food-drink"
    case games
    case graphicsDesign = "graphics-design"
    case healthFitness = "health-fitness"
    case lifestyle
    case medical
    case music
    case navigation
    case news
    case photoVideo = "photo-video"
    case productivity
    case reference
    case shopping
    case socialNetworking = "social-networking"
    case sports
    case travel
    case utilities
    case weather

    /// The slug as it appears in URLs and the database.
    public var slug: String { rawValue }

    /// The English name the storefront shows ("Health & Fitness").
    public var displayName: String {
        switch self {
        case .books: "Books"
        case .business: "Business"
        case .developerTools: "Developer Tools"
        case .education: "Education"
        case .entertainment: "Entertainment"
        case .finance: "Finance"
        case .foodDrink: "Food & Drink"
        case .games: "Games"
        case .graphicsDesign: "Graphics & Design"
        case .healthFitness: "Health & Fitness"
        case .lifestyle: "Lifestyle"
        case .medical: "Medical"
        case .music: "Music"
        case .navigation: "Navigation"
        case .news: "News"
        case .photoVideo: "Photo & Video"
        case .productivity: "Productivity"
        case .reference: "Reference"
        case .shopping: "Shopping"
        case .socialNetworking: "Social Networking"
        case .sports: "Sports"
        case .travel: "Travel"
        case .utilities: "Utilities"
        case .weather: "Weather"
        }
    }

    /// The category of a slug, or nil for one not on the list.
    public init?(slug: String) {
        self.init(rawValue: slug)
    }

    /// All slugs, comma-separated, for error messages and help.
    public static var slugList: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
