"""MockAPNs for Python tests: `MockAPNs` (the control API client), `MockAPNsProcess` (the binary
started on port 0) and, in `mockapns.pytest_plugin`, the `mock_apns` pytest fixture."""

from .client import MockAPNs, MockAPNsError
from .process import MockAPNsProcess, MockAPNsStartError

__all__ = ["MockAPNs", "MockAPNsError", "MockAPNsProcess", "MockAPNsStartError"]
__version__ = "0.1.0"
