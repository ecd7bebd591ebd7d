import { Type } from 'typebox';

/** WebAuthn JSON shapes (the browser's `PublicKeyCredential.toJSON()`); the library checks the rest. */
const base64url = (maxLength: number) =>
  Type.String({ minLength: 1, maxLength, pattern: '^[A-Za-z0-9_-]+$' });
const Extensions = Type.Object({}, { additionalProperties: true });

export const RegistrationResponse = Type.Object(
  {
    id: base64url(1400),
    rawId: base64url(1400),
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: base64url(4000),
        attestationObject: base64url(20_000),
        transports: Type.Optional(Type.Array(Type.String({ maxLength: 20 }), { maxItems: 10 })),
      },
      { additionalProperties: true },
    ),
    clientExtensionResults: Extensions,
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 20 })),
  },
  { additionalProperties: true },
);

export const AuthenticationResponse = Type.Object(
  {
    id: base64url(1400),
    rawId: base64url(1400),
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: base64url(4000),
        authenticatorData: base64url(4000),
        // ML-DSA (post-quantum, which Chromium's authenticators may pick) signs with up to 4,627 bytes.
        signature: base64url(8000),
        userHandle: Type.Optional(Type.String({ maxLength: 200 })),
      },
      { additionalProperties: true },
    ),
    clientExtensionResults: Extensions,
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 20 })),
  },
  { additionalProperties: true },
);

/** Options as `@simplewebauthn/server` makes them, passed through to the browser as they are. */
export const PublicKeyOptions = Type.Object({ challenge: Type.String() }, { additionalProperties: true });
