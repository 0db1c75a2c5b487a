// A Swift test suite imports MockAPNsTesting alone: the embeddable server and its domain types
// (MockAPNs re-exports them), and the repository's HTTP/2 client behind `TestPushClient`.
@_exported import HTTP2Client
@_exported import HTTPFields
@_exported import MockAPNs
