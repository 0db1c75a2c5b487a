// Embedders import MockAPNs alone and get the domain types it speaks (Configuration,
// DeliveryFilter, DeliveryRecord, FaultRule...), which live in APNsCore.
@_exported import APNsCore
