import Glibc

/// How many CPU cores this process may run on: the online cores, fewer when the process is
/// pinned to some of them (`taskset`, a container's cpuset), as Linux lists them in the
/// `Cpus_allowed` line of `/proc/self/status`. A CPU time quota (`docker --cpus`) is not a
/// pinning and is not seen.
public enum UsableCores {
    /// The usable cores now: at least 1.
    public static func count() -> Int {
        let online = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        guard let status = readStatus(), let allowed = allowedCount(inStatus: status) else { return online }
        return max(1, min(online, allowed))
    }

    /// The number of set bits in the `Cpus_allowed:` line of a `/proc/<pid>/status` text (a hex
    /// mask in comma-separated 32-bit groups, e.g. `ff,ffffffff`); nil when there is no such line
    /// or it is not a hex mask.
    public static func allowedCount(inStatus text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix("Cpus_allowed:") {
            let mask = line.dropFirst("Cpus_allowed:".count).filter { $0 != " " && $0 != "\t" && $0 != "," }
            guard !mask.isEmpty else { return nil }
            var bits = 0
            for digit in mask {
                guard let value = digit.hexDigitValue else { return nil }
                bits += value.nonzeroBitCount
            }
            return bits
        }
        return nil
    }

    private static func readStatus() -> String? {
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
