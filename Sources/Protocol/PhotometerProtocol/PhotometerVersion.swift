/// Photometer's version: the one place it is written. Both programs print it for `--version`,
/// the host gives it in its `Hello`, and the client in its own; CHANGELOG.md has a section for it.
public enum PhotometerVersion {
  public static let current = "0.2.0"
}
