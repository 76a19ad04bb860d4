/// The version of this package, in one place.
///
/// `autocoding --version` prints it; CHANGELOG.md has a section for it; and the commit that releases it is
/// tagged with it, without a prefix (`0.1.0`, not `v0.1.0`), as CONTRIBUTING.md describes.
public enum AutoCodingVersion {
    /// The package's semantic version, `MAJOR.MINOR.PATCH`. Before 1.0.0 a minor version may break the API.
    public static let current = "0.1.0"
}
