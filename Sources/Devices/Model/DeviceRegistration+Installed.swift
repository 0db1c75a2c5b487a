import APNsCore

extension DeviceRegistration {
    /// This registration of a virtual device as its `installed` makes it (docs/device-model.md
    /// §2.3): with `removedApp` `.unregistered`, an app not installed makes the token unregistered,
    /// so the gateway answers 410 `Unregistered` with `timestamp` the moment `installed` went
    /// false: the registration's own `unregisteredAt` when set, else `previous`'s when the app was
    /// already not installed, else `nowMilliseconds` (server clock, milliseconds since the Unix
    /// epoch). An app installed again clears the `unregisteredAt` that removal set. With
    /// `.discarded` the registration is left as it is (the push is accepted and discarded).
    /// - Parameters:
    ///   - device: the virtual device as it is now.
    ///   - previous: the device and its registration before this change, nil when new.
    public func following(
        _ device: VirtualDevice, previous: (device: VirtualDevice, registration: DeviceRegistration)?,
        removedApp: DeviceModelOptions.RemovedApp, nowMilliseconds: Int64
    ) -> DeviceRegistration {
        guard removedApp == .unregistered else { return self }
        var result = self
        let wasRemoved = previous.map { !$0.device.installed } ?? false
        if !device.installed {
            if result.unregisteredAt == nil {
                result.unregisteredAt = (wasRemoved ? previous?.registration.unregisteredAt : nil) ?? nowMilliseconds
            }
        } else if wasRemoved, let previous, result.unregisteredAt == previous.registration.unregisteredAt {
            result.unregisteredAt = nil
        }
        return result
    }
}
