"""dauth backend SDK: turns a user's login JWT into slot information (authorize, callback, get_token).

Standard library only; Python 3.9 or later.
"""

from .aio import AsyncDauthClient
from .api import LoginStatus
from .callback import AuthorizeCallback, callback_fields, parse_callback
from .client import (
    DEFAULT_AUTH_SERVER_URL,
    DEFAULT_CALLBACK_TIMEOUT,
    DEFAULT_REQUEST_TIMEOUT,
    DauthClient,
    StatusReport,
)
from .content import ConsumptionResult, ContentConsumer, consumption_plaintext, gcm_aad
from .device import DEVICE_CODE_GRANT_TYPE, DeviceAuthorization, DeviceTokens
from .envelope import Envelope, parse_envelope, read_slot_envelope
from .errors import (
    AccountLinkRequiredError,
    AuthorizeError,
    CallbackRejectedError,
    CallbackTimeoutError,
    ConsumptionError,
    DauthError,
    DeviceFlowError,
    EnvelopeError,
    ExpiredTokenError,
    FederationError,
    FirstPartyRequiredError,
    IdTokenReplayedError,
    PlatformBannedError,
    PlatformRejectedError,
    InvalidIdTokenError,
    InvalidMfaCodeError,
    InvalidMfaTokenError,
    LastSignInMethodError,
    LoginMfaError,
    MalformedResponseError,
    MfaRequiredError,
    MissingJwtError,
    OutsideSessionPolicy,
    OutsideSessionPolicyError,
    ProviderRegistrationError,
    RefusedRequestError,
    RequestFailedError,
    SessionOperationError,
    ShutdownError,
    StatusRequestError,
    GuestRequestError,
    WalletRequiredError,
    to_http_status,
)
from .federation import FederatedLogin, LinkedIdentity
from .management import ManagementClient, ManagementError
from .mfa import LoginSession
from .handlers import callback_handler_class, respond_to_callback, wsgi_callback_app
from .provider import ProviderRegistration, register_content_provider
from .sessions import SessionCall, SessionOperationResult
from .slot import SlotId, SlotInfo
from .transport import HttpResponse, Transport, urllib_transport

from .webhooks import WebhookEvent, WebhookVerificationError, verify_webhook

__all__ = [
    "ManagementClient",
    "ManagementError",
    "InvalidMfaCodeError",
    "InvalidMfaTokenError",
    "LoginMfaError",
    "LoginSession",
    "MfaRequiredError",
    "AccountLinkRequiredError",
    "FederatedLogin",
    "FederationError",
    "FirstPartyRequiredError",
    "IdTokenReplayedError",
    "PlatformBannedError",
    "PlatformRejectedError",
    "InvalidIdTokenError",
    "LastSignInMethodError",
    "LinkedIdentity",
    "OutsideSessionPolicy",
    "OutsideSessionPolicyError",
    "RefusedRequestError",
    "SessionCall",
    "SessionOperationError",
    "SessionOperationResult",
    "WebhookEvent",
    "WebhookVerificationError",
    "verify_webhook",
    "AsyncDauthClient",
    "ConsumptionError",
    "ConsumptionResult",
    "ContentConsumer",
    "WalletRequiredError",
    "ProviderRegistration",
    "ProviderRegistrationError",
    "register_content_provider",
    "consumption_plaintext",
    "gcm_aad",
    "AuthorizeCallback",
    "AuthorizeError",
    "CallbackRejectedError",
    "CallbackTimeoutError",
    "DEFAULT_AUTH_SERVER_URL",
    "DEFAULT_CALLBACK_TIMEOUT",
    "DEFAULT_REQUEST_TIMEOUT",
    "DauthClient",
    "DauthError",
    "DEVICE_CODE_GRANT_TYPE",
    "DeviceAuthorization",
    "DeviceFlowError",
    "DeviceTokens",
    "Envelope",
    "EnvelopeError",
    "ExpiredTokenError",
    "HttpResponse",
    "LoginStatus",
    "MalformedResponseError",
    "MissingJwtError",
    "RequestFailedError",
    "ShutdownError",
    "SlotId",
    "SlotInfo",
    "StatusReport",
    "StatusRequestError",
    "GuestRequestError",
    "Transport",
    "callback_fields",
    "callback_handler_class",
    "parse_callback",
    "parse_envelope",
    "read_slot_envelope",
    "respond_to_callback",
    "to_http_status",
    "urllib_transport",
    "wsgi_callback_app",
]
