import { AppError } from '../../errors.js';
import type { LoginStatusStore, LoginStatusValue } from '../../stores/loginStatusStore.js';

export type { LoginStatusValue } from '../../stores/loginStatusStore.js';

/** A user's login status for one app. Before any update it is `logged_out` (decisions §3). */
export interface LoginStatus {
  userId: string;
  clientId: string;
  status: LoginStatusValue;
  /** True exactly when the status is `logged_out`: only then may the rights be listed for transfer. */
  transferEnabled: boolean;
  /** When the status last changed (ms), or null when it was never set. */
  updatedAt: number | null;
}

const USER_ID = /^[1-9]\d{0,15}$/;

function toUserUuid(userId: string | number): number {
  const text = String(userId);
  if (!USER_ID.test(text) || Number(text) >= 2 ** 53) {
    throw new AppError(400, 'invalid_request', 'user_id must be a user id (decimal digits)', {
      field: 'user_id',
    });
  }
  return Number(text);
}

/**
 * Login status of users' OAuth rights per app (spec endpoints 5 and 6). The marketplace asks
 * `getStatus(...).transferEnabled` before listing and again at purchase.
 */
export class LoginStatusService {
  constructor(
    private readonly store: LoginStatusStore,
    private readonly now: () => number = Date.now,
  ) {}

  async getStatus(userId: string | number, clientId: string): Promise<LoginStatus> {
    const userUuid = toUserUuid(userId);
    const stored = await this.store.find(userUuid, clientId);
    const status = stored?.status ?? 'logged_out';
    return {
      userId: String(userUuid),
      clientId,
      status,
      transferEnabled: status === 'logged_out',
      updatedAt: stored?.updatedAt ?? null,
    };
  }

  async setStatus(userId: string | number, clientId: string, status: LoginStatusValue): Promise<LoginStatus> {
    const userUuid = toUserUuid(userId);
    const updatedAt = this.now();
    await this.store.upsert({ userUuid, clientId, status, updatedAt });
    return {
      userId: String(userUuid),
      clientId,
      status,
      transferEnabled: status === 'logged_out',
      updatedAt,
    };
  }
}
