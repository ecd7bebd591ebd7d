"""Platform sign-in's refusals are typed (docs/federation.md, "Platform sign-in inside the game")."""

from __future__ import annotations

import unittest

from dauth_sdk import FederationError, PlatformBannedError, PlatformRejectedError
from dauth_sdk.errors import federation_error


class PlatformErrors(unittest.TestCase):
    def test_codes_map_to_their_classes(self) -> None:
        rejected = federation_error(401, "platform_rejected", "Steam refused the credential")
        self.assertIsInstance(rejected, PlatformRejectedError)
        self.assertIsInstance(rejected, FederationError)
        self.assertEqual((rejected.response_status, rejected.error_code), (401, "platform_rejected"))
        banned = federation_error(403, "platform_banned", "banned")
        self.assertIsInstance(banned, PlatformBannedError)
        other = federation_error(400, "platform_unsupported", "not a platform kind")
        self.assertNotIsInstance(other, PlatformRejectedError)
        self.assertIsInstance(other, FederationError)


if __name__ == "__main__":
    unittest.main()
