extension Configuration {
    /// An integer setting that is one plain field of `Configuration`: its configuration-file key,
    /// its command-line flag (both as `ConfigurationSetting` lists them, with the range checked
    /// there) and the field it sets.
    struct IntegerField: Sendable {
        let file: String
        let flag: String
        let field: WritableKeyPath<Configuration, Int> & Sendable
    }

    /// The plain integer settings, in the order the file reader and the command line check them
    /// (so the first bad one is the one named): one table, read by both.
    static let integerFields: [IntegerField] = [
        IntegerField(file: "maxRecords", flag: "--max-records", field: \.maxRecords),
        IntegerField(file: "maxEvents", flag: "--max-events", field: \.maxEvents),
        IntegerField(file: "maxGateways", flag: "--max-gateways", field: \.maxGateways),
        IntegerField(file: "gatewayMaxRecords", flag: "--gateway-max-records", field: \.gatewayMaxRecords),
        IntegerField(file: "maxFaultRules", flag: "--max-fault-rules", field: \.maxFaultRules),
        IntegerField(
            file: "controlIdleTimeoutSeconds", flag: "--control-idle-timeout", field: \.controlIdleTimeoutSeconds),
        IntegerField(file: "controlMaxStreams", flag: "--control-max-streams", field: \.controlMaxStreams),
        IntegerField(
            file: "controlStreamBufferBytes", flag: "--control-stream-buffer", field: \.controlStreamBufferBytes),
    ]
}
