// `HeaderField` lives in HTTPFields, shared with the transport; APNsCore re-exports it so its
// users see it as before.
@_exported import HTTPFields
