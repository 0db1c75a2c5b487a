/// The APNs environment a listener serves.
///
/// `sandbox` is Apple's development environment (`api.sandbox.push.apple.com`);
/// `production` is `api.push.apple.com` (docs/apns-behaviour.md §3).
public enum APNsEnvironment: String, Sendable, Hashable, CaseIterable, Codable {
    case sandbox
    case production
}
