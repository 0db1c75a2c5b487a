/// The version of MockAPNs, as `mock-apns --version` prints it.
public enum MockAPNsVersion {
    /// Semantic version of this release.
    public static let string = "0.1.0"
}
