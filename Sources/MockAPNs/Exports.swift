// Embedders import MockAPNs alone and get the domain types it speaks (Configuration,
// DeliveryFilter, DeliveryRecord, FaultRule...), which live in APNsCore.
@_exported import APNsCore
@_exported import Broadcast
// Since APNsCore was split into targets with one job each, those types live in these:
@_exported import Configuration
@_exported import ControlAPI
@_exported import Devices
@_exported import Faults
@_exported import Gateway
@_exported import JSONSupport
@_exported import Recording
