/// The state of the app on a virtual device (docs/device-model.md §1). The seeds' three states map
/// onto these: active is `foreground`, background is `background`, not running is `notRunning`.
///
/// Decoded by name; an unknown name is refused with the valid names and a "did you mean"
/// (`appState: expected one of "foreground", ..., got "forground" (did you mean "foreground"?)`).
public enum AppState: String, Sendable, Hashable, CaseIterable, Codable {
    /// Active, on screen.
    case foreground
    /// Running in the background.
    case background
    /// In memory, not running code.
    case suspended
    /// Not launched, or terminated by the system.
    case notRunning
    /// Force-quit by the user: the system does not launch it for pushes until the user relaunches
    /// it (docs/device-model.md §3.2).
    case forceQuit
}
