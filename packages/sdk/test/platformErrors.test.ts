import { describe, expect, it } from 'vitest';
import { federationError } from '../src/errors.js';
import { FederationError, PlatformBannedError, PlatformRejectedError } from '../src/index.js';

/** Platform sign-in's refusals are typed (docs/federation.md, "Platform sign-in inside the game"). */
describe('platform sign-in errors', () => {
  it('platform_rejected and platform_banned are their own FederationErrors; other codes stay generic', () => {
    const rejected = federationError(401, 'platform_rejected', 'Steam refused the credential');
    expect(rejected).toBeInstanceOf(PlatformRejectedError);
    expect(rejected).toBeInstanceOf(FederationError);
    expect(rejected).toMatchObject({ responseStatus: 401, errorCode: 'platform_rejected' });
    const banned = federationError(403, 'platform_banned', 'This Steam account is banned');
    expect(banned).toBeInstanceOf(PlatformBannedError);
    expect(banned).toMatchObject({ responseStatus: 403, errorCode: 'platform_banned' });
    const other = federationError(400, 'platform_unsupported', 'not a platform kind');
    expect(other).not.toBeInstanceOf(PlatformRejectedError);
    expect(other).toBeInstanceOf(FederationError);
  });
});
